"""Convert stage: turn a source file into Markdown text.

DOCX goes through hierdoc's own converter, which renders Word's automatic
numbering (:mod:`hierdoc.pipeline.convert_docx`; ``docx_converter="markitdown"``
for markitdown's); PDF, HTML, PPTX and XLSX go through markitdown; Markdown and
plain text are decoded directly. Every failure surfaces as a :class:`ConversionError`
whose ``reason`` is one line a user can read, so that the ingest stage can
report it as a :class:`~hierdoc.models.FileProblem` and carry on.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from hierdoc.models import ConvertedDocument, FileProblem

from ..errors import InputError
from ..text.glyph_quotes import straighten_glyph_quotes
from ..text.invisible import clean_with_offsets
from . import limits as _limits
from .limits import Limits
from .metadata import document_properties, stated_title

if TYPE_CHECKING:
    from markitdown import MarkItDown

# Suffix -> value of ConvertedDocument.format.
_MARKITDOWN_FORMATS: dict[str, str] = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
}
_TEXT_FORMATS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
}
_FORMATS: dict[str, str] = {**_MARKITDOWN_FORMATS, **_TEXT_FORMATS}
SUPPORTED_SUFFIXES: tuple[str, ...] = tuple(_FORMATS)

_OOXML_SUFFIXES = frozenset({".docx", ".pptx", ".xlsx"})
_BINARY = "binary content, not text"
_INDEX_DIR_NAME = ".hierdoc"
_HASH_BLOCK = 1 << 20
_MAX_TITLE_CHARS = 120
#: A first line standing alone is read as a title up to this length (rule 3 of choose_title).
_MAX_LONG_TITLE_CHARS = 300
#: A short name: words that each begin with a capital, a digit or a lower-case joining word
#: ("Act of 2013", "Safety, and Security", "Security at the Southern Border Act, 2019").
_JOINING = r"of|and|or|the|for|to|in|on|at|by|from|with|under|a|an"
_NAME_HEAD = re.compile(
    rf"(?:[A-Z0-9][\w.,'’&–-]*|{_JOINING})(?:\s+(?:[A-Z0-9][\w.,'’&–-]*|{_JOINING}))*"
)
#: A numbered section's heading line: "1.<TAB>INTRODUCTION", "1) INTRODUCTION", "1.0  DEFINITIONS".
_NUMBERED_LINE = re.compile(r"^\d{1,3}(?:(?:\.\d{1,3})+\.?|[.)])[ \t]+\S")
_MAX_CAUSE_CHARS = 200
# Exceptions that signal a bug tripped by an odd file; their message means
# nothing to a user, so only the type name is reported.
_OPAQUE_ERRORS = (AttributeError, TypeError, KeyError, IndexError, AssertionError, RecursionError)

_NOTICE = re.compile(r"(?i)^(?:copyright\b|\(c\)|©)")
"""A copyright notice, as a font or a program prints above the licence it ships."""
_RULE_LINE = re.compile(r"^[ \t]*([-=*_])(?:[ \t]*\1){2,}[ \t]*$")
_FRAME_SEARCH_LINES = 40
"""How far down a framed title is looked for under a copyright notice."""
_ATX_H1 = re.compile(r"^ {0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_BLANK_LINES = re.compile(r"\n{4,}")
# A first line that is source code or a comment opener names nothing: a licence
# header or `package x;` as every chunk's title only adds noise to its context.
_CODE_OR_COMMENT_LINE = re.compile(
    r"^(?://|/\*|\*(?:\s|/|$)|#!|#include\b|#pragma\b|#define\b|#ifn?def\b|<\?|<!--|@\w"
    r"|(?:package|import|using|namespace|use|from|require|module)\s+[\w.:*\\/'\"{]"
    r"|['\"]use strict['\"])"
    r"|[{;(=\\]\s*$|\*/\s*$"
)


class ConversionError(InputError):
    """A file could not be turned into text; ``reason`` is a one-line explanation."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --------------------------------------------------------------------------- public API


def file_hash(path: Path, limits: Limits | None = None) -> str:
    """Return the sha256 hex digest of the file's raw bytes, read in blocks.

    With ``limits``, a file that is not a regular file or is over ``max_file_mb``
    is refused before a byte is read. Raises :class:`ConversionError` if the file
    cannot be read.
    """
    digest = hashlib.sha256()
    try:
        if limits is not None:
            check_file(path, limits)
        with open(path, "rb") as fh:
            while block := fh.read(_HASH_BLOCK):
                digest.update(block)
    except OSError as exc:
        raise ConversionError(_os_error_reason(exc)) from exc
    return digest.hexdigest()


def convert_file(
    path: Path,
    source: str | None = None,
    limits: Limits | None = None,
    docx_converter: str = "structured",
    pdf_converter: str = "structured",
) -> ConvertedDocument:
    """Convert ``path`` to Markdown; raise :class:`ConversionError` on any failure.

    ``limits`` (default: :class:`~hierdoc.pipeline.limits.Limits` defaults) bound
    the file size, what a zip-based document unpacks to and the converted text.
    ``docx_converter`` is ``IngestSettings.docx_converter``; ``pdf_converter`` is
    ``IngestSettings.pdf_converter`` (only the structured one records where pages start).
    """
    path = Path(path)
    limits = limits or Limits()
    suffix = path.suffix.lower()
    if path.is_dir():
        raise ConversionError("is a directory, not a file")
    if suffix not in SUPPORTED_SUFFIXES:
        raise ConversionError(_unsupported_reason(suffix))
    page_starts: tuple[int, ...] = ()
    try:
        if check_file(path, limits) == 0:
            raise ConversionError("empty file")
        if suffix == ".pdf" and pdf_converter == "structured":
            text, md_title, content_hash, page_starts = _convert_pdf(path, limits)
        elif suffix in _TEXT_FORMATS:
            text, md_title, content_hash = _convert_text(path)
        elif suffix == ".docx" and docx_converter == "structured":
            text, md_title, content_hash = _convert_docx(path, limits)
        else:
            text, md_title, content_hash = _convert_with_markitdown(path, suffix, limits)
    except ConversionError:
        raise
    except OSError as exc:
        raise ConversionError(_os_error_reason(exc)) from exc
    text, page_starts = clean_with_offsets(text, page_starts)
    text = straighten_glyph_quotes(text)
    if reason := _limits.chars_reason(len(text), limits):
        raise ConversionError(reason)
    metadata, text = document_properties(path, _FORMATS[suffix], text)
    if not text.strip():
        raise ConversionError("no text after the front matter")
    return ConvertedDocument(
        source=str(path) if source is None else source,
        title=stated_title(metadata, _FORMATS[suffix]) or choose_title(text, md_title, path.stem),
        text=text,
        content_hash=content_hash,
        format=_FORMATS[suffix],
        page_starts=page_starts,
        pages=len(page_starts) or None,
        metadata=metadata,
    )


def check_file(path: Path, limits: Limits) -> int:
    """The size of ``path``, after checking that it is a regular file within ``max_file_mb``.

    Only ``stat`` is called: a FIFO is never opened, a huge file never read.
    Raises :class:`ConversionError` (an ``OSError`` is turned into one).
    """
    try:
        info = os.stat(path)
    except OSError as exc:
        raise ConversionError(_os_error_reason(exc)) from exc
    reason = _limits.not_regular_reason(info.st_mode) or _limits.size_reason(info.st_size, limits)
    if reason:
        raise ConversionError(reason)
    return info.st_size


def discover_files(
    paths: Iterable[Path], follow_symlinks_outside: bool = False
) -> tuple[list[Path], list[FileProblem]]:
    """Expand ``paths`` into the supported files below them, plus what was left out.

    Folders are walked recursively in sorted order. Hidden entries (name starting
    with '.') met while walking are skipped silently, as is anything inside a
    ``.hierdoc`` index directory; symlinked folders are not followed (reported).
    A symlinked file met while walking whose target is outside every path given
    is not followed either, unless ``follow_symlinks_outside``. Only regular
    files are taken: FIFOs, sockets and devices are reported as such, as are
    broken symlinks and symlink loops. A path given explicitly is taken even if
    hidden or a symlink. Every file that is not indexed for another reason
    (unsupported type, missing, unreadable folder) is reported as a problem.
    A file reached twice is listed once.
    """
    roots = [Path(root) for root in paths]
    scope = _Scope(tuple(_identity(root) for root in roots), follow_symlinks_outside)
    files: list[Path] = []
    problems: list[FileProblem] = []
    seen: set[Path] = set()
    identity = _identities()
    for root in roots:
        for item in _expand(root, scope, explicit=True):
            if isinstance(item, FileProblem):
                problems.append(item)
            elif not _utf8_name(item):
                problems.append(FileProblem(str(item), _NOT_UTF8_NAME))
            elif (key := identity(item)) not in seen:
                seen.add(key)
                files.append(item)
    return files, problems


_NOT_UTF8_NAME = (
    "the file name is not valid UTF-8 (the index stores names as UTF-8): rename the file"
)


def _utf8_name(path: Path) -> bool:
    """Whether the path encodes as UTF-8: a name of other bytes reaches Python with
    surrogate escapes, which SQLite cannot store."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def choose_title(text: str, markitdown_title: str | None, stem: str) -> str:
    """Pick a document title, first rule that applies:

    1. the text starts (after blank lines) with a level-1 ATX heading ``# Title``;
    2. markitdown reported a title (e.g. the HTML ``<title>``);
    3. under a copyright notice, a line framed by two rules ("-----") near the top;
    4. the first non-empty line, markup stripped, if it looks like a title:
       at most 120 characters, contains a letter, and does not end like the
       middle of a sentence (``,`` ``;`` ``:``) and is not a line of source code
       or a comment opener (``/*``, ``//``, ``package x;``, ``#include``); a longer
       first line (up to 300 characters) standing alone, a blank line after it, is a
       title when it opens with one, a short name then a colon (a bill's
       "Bipartisan Budget Act of 2013: 113 HJRES 59 ENR: Making ...");
    5. the file name without its suffix.
    """
    first = _first_nonblank_line(text)
    heading = _ATX_H1.match(first)
    if heading:
        return heading.group(1).strip()
    if markitdown_title and markitdown_title.strip():
        return " ".join(markitdown_title.split())
    candidate = first.strip().lstrip("#").strip().strip("*_").strip()
    if _NOTICE.match(candidate) and (framed := _framed_title(text)):
        return framed
    if _NUMBERED_LINE.match(candidate):
        return stem  # "1.<TAB>INTRODUCTION": the first section's heading, not a title
    if _looks_like_title(candidate) and not _CODE_OR_COMMENT_LINE.search(first.strip()):
        return candidate
    if _long_title_line(candidate) and _stands_alone(text, first):
        return " ".join(candidate.split())
    return stem


def _framed_title(text: str) -> str | None:
    """The first short line between two rules near the top ("-----" / "SIL OPEN FONT
    LICENSE Version 1.1" / "-----"): the title of a licence printed under a copyright
    notice."""
    lines = text.split("\n", _FRAME_SEARCH_LINES)[:_FRAME_SEARCH_LINES]
    for above, line, below in zip(lines, lines[1:], lines[2:], strict=False):
        if _RULE_LINE.match(above) and _RULE_LINE.match(below) and _looks_like_title(line.strip()):
            return " ".join(line.split())
    return None


def _long_title_line(line: str) -> bool:
    """A first line too long for rule 3 that opens with a title: a short name, capitalised
    as a name is, before a colon ("Water Resources Reform and Development Act of 2014: ...")."""
    head, colon, _ = line.partition(": ")
    return (
        _MAX_TITLE_CHARS < len(line) <= _MAX_LONG_TITLE_CHARS
        and bool(colon)
        and _looks_like_title(head)
        and bool(_NAME_HEAD.fullmatch(head))
    )


def _stands_alone(text: str, first: str) -> bool:
    """Whether the first non-empty line is a paragraph of its own (a blank line or the end
    after it)."""
    after = text[text.index(first) + len(first) :].lstrip(" \t")
    return not after or after.startswith("\n\n") or after.strip() == ""


# --------------------------------------------------------------------------- text files


def _convert_text(path: Path) -> tuple[str, None, str]:
    """Sniff the first bytes before reading the whole (size-checked) file."""
    sniff = _limits.sniff_text(_limits.read_head(path))
    if sniff.binary:
        raise ConversionError(_BINARY)
    data = path.read_bytes()
    content_hash = hashlib.sha256(data).hexdigest()
    if sniff.encoding is not None:
        text = data.decode(sniff.encoding, errors="replace")
    elif b"\x00" in data and not _limits.has_bom(data):
        raise ConversionError(_BINARY)  # NUL bytes after the sniffed head
    else:
        text = decode_text(data)
    text = _normalise_newlines(text)
    if not text.strip():
        raise ConversionError("empty file (only whitespace)")
    return text, None, content_hash


def decode_text(data: bytes) -> str:
    """Decode bytes of unknown encoding; never raises.

    UTF-8 (with or without BOM) is tried strictly first: it is by far the most
    common and cheap to verify. Otherwise charset-normalizer guesses, and the
    last resort is UTF-8 with replacement characters.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    encoding = _guess_encoding(data)
    if encoding is not None:
        try:
            return data.decode(encoding, errors="replace").removeprefix("\ufeff")
        except LookupError:
            pass
    return data.decode("utf-8", errors="replace")


def _guess_encoding(data: bytes) -> str | None:
    """charset-normalizer's guess, biased towards Windows-1252.

    On short texts charset-normalizer often cannot tell the single-byte Latin
    code pages apart and picks e.g. cp1250 or cp1257, turning 'à' into 'ŕ' or
    'ą'. cp1252 (a superset of latin-1 for printable text) is by far the most
    common legacy encoding of Western documents, so it wins whenever a
    candidate that decodes like cp1252 is as coherent as the best guess and
    barely messier.
    """
    import charset_normalizer

    matches = charset_normalizer.from_bytes(data)
    best = matches.best()
    if best is None:
        return None
    for match in matches:
        if (
            "cp1252" in match.could_be_from_charset
            and match.chaos <= best.chaos + 0.05
            and match.coherence >= best.coherence
        ):
            return "cp1252"
    return best.encoding


# --------------------------------------------------------------------------- markitdown


@lru_cache(maxsize=1)
def _markitdown() -> MarkItDown:
    """One shared MarkItDown, built on first use (importing it takes ~1 s).

    Only the converters for our suffixes are registered, plugins are off and no
    LLM client is given. With all built-ins, a damaged PDF whose bytes look like
    text would be "converted" by the plain-text converter and yield garbage.
    """
    from markitdown import MarkItDown
    from markitdown.converters import DocxConverter, PdfConverter, PptxConverter, XlsxConverter

    from .permalinks import PermalinkFreeHtmlConverter

    md = MarkItDown(enable_builtins=False, enable_plugins=False)
    for converter in (PdfConverter, DocxConverter, PptxConverter, XlsxConverter):
        md.register_converter(converter())
    md.register_converter(PermalinkFreeHtmlConverter())
    return md


def _convert_docx(path: Path, limits: Limits) -> tuple[str, str | None, str]:
    """Word's numbering rendered; the zip limits are checked before anything is unpacked."""
    from .convert_docx import docx_to_markdown
    from .docx_package import UnsupportedPackage

    content_hash = file_hash(path)
    _check_signature(path, ".docx", limits)
    try:
        text = _normalise_newlines(docx_to_markdown(path))
    except UnsupportedPackage:  # Strict Open XML, a missing part: markitdown may read it
        return _convert_with_markitdown(path, ".docx", limits)
    if not text.strip():
        raise ConversionError("no text could be extracted")
    return text, None, content_hash


def _convert_pdf(path: Path, limits: Limits) -> tuple[str, str | None, str, tuple[int, ...]]:
    """The structured PDF converter (:mod:`.convert_pdf`): reading order, pages, headings."""
    from .convert_pdf import convert_pdf

    content_hash = file_hash(path)
    _check_signature(path, ".pdf", limits)
    converted = convert_pdf(path)
    if not converted.text.strip():
        raise ConversionError("no text could be extracted (scanned PDF without a text layer?)")
    return converted.text, None, content_hash, converted.page_starts


def _convert_with_markitdown(
    path: Path, suffix: str, limits: Limits
) -> tuple[str, str | None, str]:
    content_hash = file_hash(path)
    _check_signature(path, suffix, limits)
    kind = _MARKITDOWN_FORMATS[suffix].upper()
    try:
        result = _markitdown().convert(path)
    except OSError:
        raise
    except Exception as exc:  # markitdown wraps converter errors; anything else is a bug
        raise ConversionError(f"cannot read {kind}: {_markitdown_cause(exc)}") from exc
    text = _normalise_newlines(result.text_content or "")
    if suffix == ".pdf":
        text = normalise_pdf_text(text)
    if not text.strip():
        hint = " (scanned PDF without a text layer?)" if suffix == ".pdf" else ""
        raise ConversionError(f"no text could be extracted{hint}")
    return text, result.title, content_hash


def _check_signature(path: Path, suffix: str, limits: Limits) -> None:
    """Reject files whose bytes are not the format their suffix claims.

    Besides giving a clearer reason than the parser would, this keeps
    markitdown from falling back to another converter chosen by content sniffing
    (an HTML page named .pdf would otherwise be converted as HTML). A zip-based
    document is checked against the zip limits before anything is unpacked.
    """
    kind = _MARKITDOWN_FORMATS[suffix].upper()
    if suffix == ".pdf":
        with open(path, "rb") as fh:
            head = fh.read(1024)
        if b"%PDF-" not in head:
            raise ConversionError("cannot read PDF: not a PDF file (no %PDF header)")
    elif suffix in _OOXML_SUFFIXES:
        if reason := _limits.zip_reason(path, kind, limits):
            raise ConversionError(reason)
    elif suffix in (".html", ".htm"):
        if _limits.sniff_text(_limits.read_head(path)).binary:
            raise ConversionError(_BINARY)
        if reason := _limits.html_reason(path, limits):
            raise ConversionError(reason)


def _markitdown_cause(exc: Exception) -> str:
    """The underlying converter's error, as a short single line."""
    from markitdown import FileConversionException, MissingDependencyException

    if isinstance(exc, MissingDependencyException):
        return "a markitdown optional dependency is not installed"
    if isinstance(exc, FileConversionException) and exc.attempts:
        info = exc.attempts[0].exc_info
        if info is not None and isinstance(info[1], Exception):
            exc = info[1]
    if isinstance(exc, _OPAQUE_ERRORS):
        return f"damaged or unusual file ({type(exc).__name__})"
    return _one_line(str(exc)) or type(exc).__name__


def normalise_pdf_text(text: str) -> str:
    """Tidy pdfminer output: form feeds (page breaks) become blank lines, trailing
    whitespace is stripped, and more than two consecutive blank lines become two.
    Nothing else (e.g. hyphenation) is touched."""
    text = text.replace("\f", "\n\n")
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n\n", text)


# --------------------------------------------------------------------------- discovery


@dataclass(frozen=True)
class _Scope:
    roots: tuple[Path, ...]
    follow_outside: bool

    def outside(self, path: Path) -> bool:
        target = _identity(path)
        return not any(target == root or root in target.parents for root in self.roots)


def _expand(path: Path, scope: _Scope, explicit: bool) -> Iterator[Path | FileProblem]:
    if _INDEX_DIR_NAME in path.parts:
        yield FileProblem(str(path), "inside a .hierdoc index directory, not indexed")
        return
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        yield FileProblem(str(path), _unreachable_reason(path, exc))
        return
    link = path.is_symlink()
    if stat.S_ISDIR(mode):
        if link and not explicit:
            yield FileProblem(str(path), "symbolic link to a folder, not followed")
        else:
            yield from _walk(path, scope)
    elif reason := _limits.not_regular_reason(mode):
        yield FileProblem(str(path), reason)
    elif link and not explicit and not scope.follow_outside and scope.outside(path):
        yield FileProblem(
            str(path),
            "symbolic link to a file outside the ingested folders, not followed"
            " (follow_symlinks_outside is false)",
        )
    else:
        yield _classify(path)


def _unreachable_reason(path: Path, exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    if path.is_symlink():
        if isinstance(exc, (FileNotFoundError, NotADirectoryError)):
            return "broken symbolic link"
        return f"symbolic link cannot be followed: {_os_error_reason(exc)}"
    return _os_error_reason(exc)


def _walk(folder: Path, scope: _Scope) -> Iterator[Path | FileProblem]:
    try:
        entries = sorted(folder.iterdir())
    except OSError as exc:
        yield FileProblem(str(folder), f"cannot list folder: {_os_error_reason(exc)}")
        return
    for entry in entries:
        if not entry.name.startswith("."):
            yield from _expand(entry, scope, explicit=False)


def _classify(path: Path) -> Path | FileProblem:
    suffix = path.suffix.lower()
    if suffix in SUPPORTED_SUFFIXES:
        return path
    if not suffix:
        return FileProblem(str(path), "unsupported file type (no extension)")
    return FileProblem(str(path), f"unsupported file type '{suffix}'")


def _identity(path: Path) -> Path:
    """The real path; ``os.path.realpath`` never raises, not even on a symlink loop."""
    return Path(os.path.realpath(path))


def _identities() -> Callable[[Path], Path]:
    """:func:`_identity` for many files: a file that is not a symbolic link is its folder's
    real path joined with its name, so each folder is resolved once (resolving every file
    of a 4,000-file folder took a quarter of a second of each re-ingest)."""
    folders: dict[Path, Path] = {}

    def identity(path: Path) -> Path:
        if path.name in ("", ".", "..") or path.is_symlink():
            return _identity(path)
        parent = path.parent
        if parent not in folders:
            folders[parent] = _identity(parent)
        return folders[parent] / path.name

    return identity


# --------------------------------------------------------------------------- helpers


def _unsupported_reason(suffix: str) -> str:
    shown = f"'{suffix}'" if suffix else "(no extension)"
    return f"unsupported file type {shown}; supported: {', '.join(SUPPORTED_SUFFIXES)}"


def _os_error_reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file or directory"
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, IsADirectoryError):
        return "is a directory, not a file"
    if exc.errno == errno.ELOOP:
        return "symbolic link loop"
    return f"cannot read file: {_one_line(exc.strerror or str(exc)) or type(exc).__name__}"


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _one_line(message: str) -> str:
    line = " ".join(message.split())
    if len(line) > _MAX_CAUSE_CHARS:
        line = line[: _MAX_CAUSE_CHARS - 1].rstrip() + "…"
    return line


def _first_nonblank_line(text: str) -> str:
    for line in text.split("\n"):
        if line.strip():
            return line
    return ""


def _looks_like_title(line: str) -> bool:
    return (
        0 < len(line) <= _MAX_TITLE_CHARS
        and any(ch.isalpha() for ch in line)
        and not line.endswith((",", ";", ":"))
    )
