"""Document properties read at conversion: what a document says about itself.

* Markdown: a YAML front matter block (a first line ``---``, YAML, a line ``---`` or
  ``...``) is parsed with PyYAML and removed from the text; its ``title`` becomes the
  document's title.
* DOCX: the core properties (``docProps/core.xml``): title, subject, keywords, created.
* PDF: the information dictionary: title, subject, keywords, creation date.
* HTML: the ``<meta name=... content=...>`` tags of the head.

Values are made JSON-safe (dates as ISO 8601 strings); ``keywords`` given as one
string ("a, b; c") become a list, so that ``where={"keywords": "b"}`` matches a member.
Properties are a convenience: a file whose properties cannot be read is still indexed,
with none.
"""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import yaml

Metadata = dict[str, Any]

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_MAX_FRONT_MATTER_CHARS = 64_000
_LIST_SEPARATORS = re.compile(r"\s*[,;]\s*")
_PDF_DATE = re.compile(r"^D:(\d{4})(\d{2})?(\d{2})?")
_HEAD_CHARS = 200_000
_PLACEHOLDER = re.compile(r"^\(?(anonymous|unspecified|untitled|unknown|none)\)?$", re.IGNORECASE)
"""Values some producers write for an empty property ("(anonymous)", "(unspecified)")."""
_IGNORED_META = frozenset({"viewport", "robots", "theme-color", "referrer", "format-detection"})
_CORE = {
    "title": "{http://purl.org/dc/elements/1.1/}title",
    "subject": "{http://purl.org/dc/elements/1.1/}subject",
    "keywords": "{http://schemas.openxmlformats.org/package/2006/metadata/core-properties}keywords",
    "created": "{http://purl.org/dc/terms/}created",
}


def split_front_matter(text: str) -> tuple[Metadata, str]:
    """The front matter of a Markdown text as a mapping, and the text without it.

    Text that does not start with a closed block of YAML mapping is returned as is (a
    ``---`` rule at the top of a document is not front matter).
    """
    match = _FRONT_MATTER.match(text[: _MAX_FRONT_MATTER_CHARS + 8])
    if match is None:
        return {}, text
    try:
        data = yaml.safe_load(match.group(1) or "")
    except yaml.YAMLError:
        return {}, text
    if not isinstance(data, dict):
        return {}, text
    return normalise(data), text[match.end() :].lstrip("\n")


def normalise(data: dict[Any, Any]) -> Metadata:
    """JSON-safe metadata: string keys, dates as ISO 8601, ``keywords`` and ``tags`` lists."""
    cleaned = {str(key): _json_safe(value) for key, value in data.items() if value is not None}
    for key in ("keywords", "tags"):
        if isinstance(cleaned.get(key), str):
            cleaned[key] = [word for word in _LIST_SEPARATORS.split(cleaned[key]) if word]
    return cleaned


def _json_safe(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def file_properties(path: Path, file_format: str) -> Metadata:
    """The properties a DOCX, PDF or HTML file carries; {} for other formats or on failure."""
    reader: Callable[[Path], Metadata] | None = _READERS.get(file_format)
    if reader is None:
        return {}
    try:
        found = reader(path)
    except Exception:  # properties are optional: an odd file is indexed without them
        return {}
    return normalise({k: v for k, v in found.items() if not _PLACEHOLDER.match(str(v).strip())})


def docx_properties(path: Path) -> Metadata:
    """Title, subject, keywords and created date from ``docProps/core.xml``."""
    with zipfile.ZipFile(path) as archive:
        if "docProps/core.xml" not in archive.namelist():
            return {}
        root = ElementTree.fromstring(archive.read("docProps/core.xml"))
    found = {key: root.findtext(tag) for key, tag in _CORE.items()}
    return {key: value.strip() for key, value in found.items() if value and value.strip()}


def pdf_properties(path: Path) -> Metadata:
    """Title, subject, keywords and the creation date (as ``date``) of the info dictionary."""
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser
    from pdfminer.pdftypes import resolve1
    from pdfminer.utils import decode_text

    with open(path, "rb") as handle:
        info = PDFDocument(PDFParser(handle)).info
        entries = resolve1(info[0]) if info else {}
        values = {}
        for key, name in (("title", "Title"), ("subject", "Subject"), ("keywords", "Keywords")):
            raw = resolve1(entries.get(name))
            text = decode_text(raw) if isinstance(raw, bytes) else raw
            if isinstance(text, str) and text.strip():
                values[key] = text.strip()
        created = resolve1(entries.get("CreationDate"))
        if isinstance(created, bytes) and (date := _pdf_date(created.decode("latin-1"))):
            values["date"] = date
    return values


def _pdf_date(text: str) -> str | None:
    """``D:20240131120000Z`` -> ``2024-01-31`` (as far as the date is given)."""
    match = _PDF_DATE.match(text)
    if match is None:
        return None
    return "-".join(part for part in match.groups() if part)


class _MetaTags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: Metadata = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "meta":
            return
        values = {k.lower(): v for k, v in attrs if v is not None}
        name = (values.get("name") or values.get("property") or "").strip().lower()
        content = (values.get("content") or "").strip()
        if name and content and name not in _IGNORED_META:
            self.found.setdefault(name, content)


def html_properties(path: Path) -> Metadata:
    """The named ``<meta>`` tags of the head (``description``, ``keywords``, ``date``...)."""
    from .convert import decode_text

    text = decode_text(path.read_bytes()[:_HEAD_CHARS])
    body = re.search(r"<body[\s>]", text, re.IGNORECASE)
    parser = _MetaTags()
    parser.feed(text[: body.start()] if body else text)
    return parser.found


_READERS: dict[str, Callable[[Path], Metadata]] = {
    "docx": docx_properties,
    "pdf": pdf_properties,
    "html": html_properties,
}


def document_properties(path: Path, file_format: str, text: str) -> tuple[Metadata, str]:
    """The properties of a converted file, and its text (without front matter, for Markdown);
    ``names``: the name the text gives itself near its start (:func:`self_names`)."""
    if file_format == "markdown":
        metadata, text = split_front_matter(text)
    else:
        metadata = file_properties(path, file_format)
    if "names" not in metadata and (names := self_names(text)):
        metadata["names"] = names
    return metadata, text


#: How a document names itself: "This document is called the Guidance and Policies Manual
#: (“GPM”)", "These Rules may be cited as the General Rulebook (GEN)".
_SELF_NAMED = re.compile(
    r"\b(?:is|are|be)\s+(?:called|cited\s+as|referred\s+to\s+as|known\s+as)\s+(?:the\s+)?"
    r"(?P<name>[A-Z][\w'’&, -]{2,80}?)\s*\(\s*[\"“']?(?P<short>[A-Z][A-Za-z]{1,7})[\"”']?\s*\)"
)
SELF_NAMED_CHARS = 3000
"""How far into a document its own name is looked for."""


def self_names(text: str) -> list[str]:
    """The name a document gives itself in its opening, with its short form in brackets
    ("Guidance and Policies Manual (GPM)"); none when it gives none."""
    match = _SELF_NAMED.search(text[:SELF_NAMED_CHARS])
    if match is None:
        return []
    return [f"{' '.join(match['name'].split())} ({match['short']})"]


def stated_title(metadata: Metadata, file_format: str) -> str | None:
    """The title a Markdown front matter gives, which wins over the text's own heading.
    (A DOCX or PDF title property is often a template's or a file name, so it is only kept
    as metadata.)"""
    if file_format != "markdown" or metadata.get("title") is None:
        return None
    return " ".join(str(metadata["title"]).split()) or None
