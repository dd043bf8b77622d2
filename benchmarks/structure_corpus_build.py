"""Build ``benchmarks/structure_corpus.tar.xz`` from the structured sources of its documents.

    python benchmarks/structure_corpus_build.py --mirrors DIR --out DIR [--archive PATH] \
        [--subset DIR] [--pdf-archive PATH]

``--mirrors`` holds bare git copies of the source repositories, one folder per repository
named ``owner+name`` with the repository in ``repo/`` (what the ``fetch`` tool of the
project's helpers gives); each source file is read with ``git show`` at the commit named in
the manifest. For every document the structured source gives the gold (section tree,
titles, definitions, references) and this script renders the input hierdoc reads: plain
text, Markdown, HTML or DOCX, chosen in turn per source so that every source is seen in
several formats. The rendering follows the publisher's layout (an RFC's text has its table
of contents, numbered titles and three-space indents; a regulation's HTML its "§ 1002.4"
headings and "(a)" paragraphs) but it is this script's, not the publisher's: each
manifest entry says so in ``rendering``.

Sources: IETF RFCs (xml2rfc v2 and v3 XML, httpwg/http-core), CFPB regulations (RegML,
cfpb/regulations-xml) and US bills and public laws (USLM 2, usgpo/uslm).

With ``--pdf-archive PATH`` a few short documents per publisher are also printed to PDF
from their HTML rendering by headless Chromium (``apt-get install chromium``), with a
running head and foot and page numbers, in turn in one column or two justified columns;
these *PDF twins* (``<id>-pdf``, the gold of their original) go into ``OUT-pdf`` and a
separate archive, so that the main archive does not change with them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import tarfile
import textwrap
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

# the document model every source is read into


@dataclass
class Node:
    """A numbered part of a document: a heading ("3.1.  Title") or a run-in point ("(a) ...")."""

    id: str | None
    label: str
    heading: str | None
    cite: str | None = None
    point: bool = False
    block: str = ""  # a USLM block ("title", "subpart") whose id is given once the tree is read
    body: list = field(default_factory=list)  # text, (term, text), or a child where it stands
    children: list[Node] = field(default_factory=list)


@dataclass
class Source:
    """A document read from its structured source."""

    id: str
    title: str
    publisher: str
    source: str
    licence: str
    nodes: list[Node]
    definitions: list[tuple[str, str]] | None
    references: list[tuple[str, str]] | None
    front: list[str] = field(default_factory=list)
    contents: bool = False


def walk(nodes: list[Node], depth: int = 0) -> Iterator[tuple[Node, int]]:
    for node in nodes:
        yield node, depth
        yield from walk(node.children, depth + 1)


def flow(nodes: list[Node], depth: int = 0) -> Iterator[tuple[Node | None, int, list, Node]]:
    """The document in reading order: each node (None: text that follows a child) with the
    paragraphs printed before the next node opens, and the node that text belongs to."""
    for node in nodes:
        current: tuple[Node | None, int, list, Node] = (node, depth, [], node)
        inline = set()
        for item in node.body:
            if isinstance(item, Node):
                yield current
                yield from flow([item], depth + 1)
                inline.add(id(item))
                current = (None, depth, [], node)
            else:
                current[2].append(item)
        if current[0] is not None or current[2]:
            yield current
        yield from flow([c for c in node.children if id(c) not in inline], depth + 1)


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# renderings


def text_lines(source: Source) -> list[str]:
    lines = [source.title, "", *source.front]
    if source.contents:
        lines += ["", "Table of Contents", ""]
        headings = [(n, d) for n, d in walk(source.nodes) if not n.point]
        for position, (node, depth) in enumerate(headings):
            entry = f"{'   ' * (depth + 1)}{node.label}  {node.heading or ''}".rstrip()
            lines.append(f"{entry} {'. ' * max(2, (66 - len(entry)) // 2)}{2 + position // 3}")
    for node, depth, body, owner in flow(source.nodes):
        indent = "   " * (depth if owner.point else 1)
        paragraphs = [p if isinstance(p, str) else f"{p[0]}:  {p[1]}" for p in body]
        if node is None:
            pass
        elif node.point:
            first = " ".join(x for x in (node.label, node.heading, *paragraphs[:1]) if x)
            lines += ["", *wrapped(first, indent, indent + "    ")]
            paragraphs = paragraphs[1:]
        else:
            lines += ["", f"{node.label}  {node.heading or ''}".rstrip()]
        lines += [x for p in paragraphs for x in ("", *wrapped(p, indent, indent))]
    return lines


def wrapped(text: str, first: str, rest: str) -> list[str]:
    """A paragraph folded at 72 columns, as plain-text publications print it."""
    return textwrap.wrap(
        text, 72, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False
    ) or [first]


def render_txt(source: Source) -> bytes:
    return ("\n".join(text_lines(source)) + "\n").encode("utf-8")


def emphasised(text: str, source: Source, mark: tuple[str, str]) -> str:
    """A paragraph that opens with a defined term ("Account means ..."), the term marked as
    the publisher's pages mark it (italics): ``*Account* means ...``."""
    terms = sorted({term for term, _ in source.definitions or ()}, key=len, reverse=True)
    for term in terms:  # the longest first: "Credit card means", not "*Credit* card means"
        if text.startswith(term + " "):
            return f"{mark[0]}{term}{mark[1]}{text[len(term) :]}"
    return text


def render_md(source: Source) -> bytes:
    lines = [f"# {source.title}", "", *source.front]
    for node, depth, body, _ in flow(source.nodes):
        paragraphs = [
            emphasised(p, source, ("*", "*")) if isinstance(p, str) else f"{p[0]}\n: {p[1]}"
            for p in body
        ]
        if node is None:
            pass
        elif node.point:
            run_in = f"**{node.heading}** " if node.heading else ""
            lines += ["", f"{node.label} {run_in}{paragraphs[0] if paragraphs else ''}".rstrip()]
            paragraphs = paragraphs[1:]
        else:
            lines += ["", f"{'#' * min(depth + 2, 6)} {node.label} {node.heading or ''}".rstrip()]
        lines += [x for p in paragraphs for x in ("", p)]
    return ("\n".join(lines) + "\n").encode("utf-8")


def html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render_html(source: Source) -> bytes:
    out = [
        "<!DOCTYPE html>",
        "<html><head><meta charset='utf-8'>",
        f"<title>{html_escape(source.title)}</title></head><body>",
        f"<h1>{html_escape(source.title)}</h1>",
        *(f"<p>{html_escape(p)}</p>" for p in source.front),
    ]
    for node, depth, paragraphs, _ in flow(source.nodes):
        body = list(paragraphs)
        if node is None:
            pass
        elif node.point:
            run_in = f"<b>{html_escape(node.heading)}</b> " if node.heading else ""
            first = body.pop(0) if body and isinstance(body[0], str) else ""
            first = emphasised(html_escape(first), source, ("<i>", "</i>"))
            out.append(f"<p>{html_escape(node.label)} {run_in}{first}</p>")
        else:
            level = min(depth + 2, 6)
            out.append(
                f"<h{level}>{html_escape(node.label)} {html_escape(node.heading or '')}</h{level}>"
            )
        for paragraph in body:
            if isinstance(paragraph, str):
                out.append(f"<p>{emphasised(html_escape(paragraph), source, ('<i>', '</i>'))}</p>")
            else:
                term, text = (html_escape(x) for x in paragraph)
                out.append(f"<dl><dt>{term}</dt><dd>{text}</dd></dl>")
    out.append("</body></html>")
    return "\n".join(out).encode("utf-8")


def render_docx(source: Source) -> bytes:
    import io

    import docx

    document = docx.Document()
    document.add_heading(source.title, level=0)
    for paragraph in source.front:
        document.add_paragraph(paragraph)
    for node, depth, paragraphs, _ in flow(source.nodes):
        body = [p if isinstance(p, str) else f"{p[0]}: {p[1]}" for p in paragraphs]
        if node is None:
            pass
        elif node.point:
            first = " ".join(x for x in (node.label, node.heading, *body[:1]) if x)
            document.add_paragraph(first)
            body = body[1:]
        else:
            document.add_heading(
                f"{node.label} {node.heading or ''}".strip(), level=min(depth + 1, 9)
            )
        for paragraph in body:
            document.add_paragraph(paragraph)
    document.core_properties.created = document.core_properties.modified = FIXED_TIME
    buffer = io.BytesIO()
    document.save(buffer)
    return reproducible_zip(buffer.getvalue())


#: The time written into every DOCX, so that a rebuild gives the same bytes.
FIXED_TIME = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def reproducible_zip(data: bytes) -> bytes:
    """The same zip with every entry dated :data:`FIXED_TIME`."""
    import io

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            entry = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME.timetuple()[:6])
            entry.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(entry, source.read(info.filename))
    return out.getvalue()


#: Print settings of the PDF rendering, in turn per document: a running head (the
#: document's short title and its publisher) and a running foot with the page number on
#: every page, as printed publications carry them, so that a reader of the PDF meets page
#: furniture; one column of serif type, or two justified columns of sans-serif type
#: hyphenated at line ends with the page number in the head.
PRINT_STYLES = (
    """<style>
@page {{ size: Letter; margin: 20mm 22mm;
  @top-left {{ content: "{head}"; font-size: 9pt; color: #444 }}
  @top-right {{ content: "{publisher}"; font-size: 9pt; color: #444 }}
  @bottom-center {{ content: "Page " counter(page) " of " counter(pages); font-size: 9pt }} }}
body {{ font-family: "Liberation Serif", serif; font-size: 11pt }}
</style>""",
    """<style>
@page {{ size: A4; margin: 18mm 16mm;
  @top-left {{ content: "{publisher}"; font-size: 8pt }}
  @top-right {{ content: counter(page); font-size: 8pt }}
  @bottom-left {{ content: "{head}"; font-size: 8pt; font-style: italic }} }}
body {{ font-family: "DejaVu Sans", sans-serif; font-size: 9pt; column-count: 2;
  column-gap: 7mm; text-align: justify; hyphens: auto }}
h1 {{ column-span: all }}
</style>""",
)
_PDF_DATE = re.compile(rb"\(D:\d{14}")


def render_pdf(source: Source, layout: int = 0) -> bytes:
    """The HTML rendering printed to PDF by headless Chromium (``apt-get install chromium``)
    in the ``layout``-th of :data:`PRINT_STYLES`; its dates set to :data:`FIXED_TIME`
    (same length, so the cross-reference offsets hold), so that a rebuild gives the same
    bytes."""
    import shutil
    import tempfile

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("the PDF rendering needs Chromium: apt-get install chromium")
    head = source.title.split(":")[0][:60].replace('"', "'").replace("\\", "")
    style = PRINT_STYLES[layout].format(head=head, publisher=source.publisher)
    page = render_html(source).replace(b"</head>", style.encode("utf-8") + b"</head>", 1)
    page = page.replace(b"<html>", b"<html lang='en'>", 1)  # hyphenation needs a language
    with tempfile.TemporaryDirectory() as folder:
        html, pdf = Path(folder) / "page.html", Path(folder) / "page.pdf"
        html.write_bytes(page)
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
             f"--user-data-dir={folder}/profile", f"--print-to-pdf={pdf}", html.as_uri()],
            capture_output=True, check=True, timeout=300,
        )  # fmt: skip
        data = pdf.read_bytes()
    return _PDF_DATE.sub(b"(D:" + FIXED_TIME.strftime("%Y%m%d%H%M%S").encode(), data)


RENDERERS = {"txt": render_txt, "md": render_md, "html": render_html, "docx": render_docx}


# gold


def gold_of(source: Source) -> dict:
    sections = []

    seen: set[str] = set()

    def add(nodes: list[Node], parent: str | None) -> None:
        for node in nodes:
            if node.id and node.id in seen:
                node.id = None  # a number given twice: the gold keeps the first
            if node.id:
                seen.add(node.id)
                number = node.label.strip().rstrip(".")
                sections.append(
                    {"id": node.id, "number": number, "heading": node.heading, "parent": parent}
                )
            add(node.children, node.id or parent)

    add(source.nodes, None)
    known = {s["id"] for s in sections}
    citable = [n for n, _ in walk(source.nodes) if n.id and n.cite and not n.point]
    citable = citable or [n for n, _ in walk(source.nodes) if n.id and n.cite]
    step = max(1, len(citable) // 6)
    return {
        "sections": sections,
        "definitions": None
        if source.definitions is None
        else [{"term": t, "text": x} for t, x in dict.fromkeys(source.definitions)],
        "references": None
        if source.references is None
        else [
            {"from": a, "to": b}
            for a, b in dict.fromkeys(source.references)
            if a in known and b in known
        ],
        "citations": [{"query": n.cite, "section": n.id} for n in citable[step // 2 :: step][:6]],
    }


# reading git mirrors


def git_show(mirrors: Path, repo: str, commit: str, path: str) -> bytes:
    folder = mirrors / repo.replace("/", "+") / "repo"
    return subprocess.run(
        ["git", "--git-dir", str(folder), "show", f"{commit}:{path}"],
        capture_output=True,
        check=True,
    ).stdout


def head_commit(mirrors: Path, repo: str) -> str:
    folder = mirrors / repo.replace("/", "+") / "repo"
    return subprocess.run(
        ["git", "--git-dir", str(folder), "rev-parse", "HEAD"],
        capture_output=True,
        check=True,
        text=True,
    ).stdout.strip()


def parse_xml(data: bytes) -> etree._Element:
    parser = etree.XMLParser(recover=True, resolve_entities=False, load_dtd=False, huge_tree=True)
    return etree.fromstring(data, parser)


def local(element: etree._Element) -> str:
    return etree.QName(element).localname if isinstance(element.tag, str) else ""


def text_of(element: etree._Element, skip: frozenset[str] = frozenset()) -> str:
    """The text of an element without the subtrees named in ``skip``."""
    parts = []

    def visit(e: etree._Element) -> None:
        if isinstance(e.tag, str) and local(e) in skip:
            if e.tail:
                parts.append(e.tail)
            return
        if e.text and isinstance(e.tag, str):
            parts.append(e.text)
        for child in e:
            visit(child)
        if e.tail and e is not element:
            parts.append(e.tail)

    visit(element)
    return clean("".join(parts))


# IETF RFCs (xml2rfc v2 and v3)

RFC_LICENCE = (
    "IETF Trust Legal Provisions: the RFC may be reproduced in full (trustee.ietf.org/license-info)"
)
_RFC_BLOCKS = frozenset(
    {
        "t",
        "ul",
        "ol",
        "dl",
        "list",
        "figure",
        "artwork",
        "sourcecode",
        "table",
        "texttable",
        "blockquote",
        "aside",
        "note",
    }
)


#: What follows a term its paragraph defines: 'A "proxy" is ...', 'The term "user agent"
#: refers to ...', 'The terms "sender" and "recipient" refer to ...'.
#: A scope between a term and its verb: '"MUST NOT store" in this context means ...'.
_RFC_SCOPE = r"(?:\s*,?\s+in\s+this\s+(?:context|document|specification)\s*,?)?"
_RFC_DEFINING = re.compile(
    r"[\"”]?(?:\s*,?\s*(?:and|or)?\s*[\"“][^\"”]{1,40}[\"”])*" + _RFC_SCOPE + r"\s*"
    r"(?:(?:is|are|means|mean|refers?\s+to|denotes?)\s+"
    # a description, not a definition: "is used to ...", "is assigned by ...", "are also ..."
    r"(?!(?:used|defined|referred|assigned|identical|primarily|also|not)\b)"
    # 'A response is "cacheable" if a cache is allowed to store ...': the condition defines
    r"|(?P<condition>if)\s)"
)


#: A quoted term the paragraph defines in prose without markup, in the forms RFC authors
#: use to introduce a term: '"inbound" means ...', 'The terms "client" and "server" refer
#: to ...', 'names prefixed with "obs-" denote ...' (a defining verb right after the quotes);
#: 'A "transparent proxy" is a proxy that ...' (an indefinite article before the quotes,
#: then is/are as in :data:`_RFC_DEFINING`).
_RFC_STATED = re.compile(
    r"(?P<article>\b[Aa]n?\s+)?[\"“](?P<term>[^\"”]{1,60})[\"”]"
    r"(?=(?P<verb>(?:\s*,?\s*(?:and|or)?\s*[\"“][^\"”]{1,40}[\"”])*" + _RFC_SCOPE + r"\s*"
    r"(?:means|mean|refers?\s+to|denotes?|is\s+defined\s+as)\s))?"
)
#: A quoted term named by what its sentence says before it: 'The target of an HTTP request
#: is called a "resource"' (the subject defines it; not a pronoun's: 'This is called ...'),
#: 'zero or more header fields (also known as "headers")' (the words before the parenthesis).
_RFC_CALLED = re.compile(
    r"(?:(?<=[.;:] )|^)(?!(?:This|These|That|Those|It|They|Such)\b)"
    r"(?P<subject>[A-Z][^.;:()]{2,200}?)\s+(?:is|are)\s+(?:also\s+)?"
    r"(?:called|known\s+as|referred\s+to\s+as)\s+(?:an?\s+|the\s+)?[\"“](?P<term>[^\"”]{1,60})[\"”]"
    r"|(?P<before>\b[\w-]+(?:\s+[\w-]+){0,5}?)\s+\(\s*(?:also\s+)?(?:called|known\s+as)\s+"
    r"(?:an?\s+|the\s+)?[\"“](?P<alias>[^\"”]{1,60})[\"”]\s*\)"
)
#: What stands before a term that opens its sentence: 'A "proxy" is', 'Here, a "non-error
#: response" is'.
_RFC_SENTENCE_START = re.compile(r"(?:^|[.;:]\s+|\bHere,\s+)$")
#: What opens the definition of a term the paragraph mentioned before: 'An HTTP server is a
#: program' (not 'Fields are sent and received').
_RFC_LATER = re.compile(r"(?:an?|the|one)\s")
#: What a quoted definition, not a term, follows: '"inbound" means "traveling toward ..."'.
_RFC_VERB_BEFORE = re.compile(
    r"\b(?:means|mean|refers?\s+to|denotes?|is|are|be|was|were|as|called)\s+(?:an?\s+)?$"
)


class RfcReader:
    """One RFC: numbered sections (appendices lettered), <xref> to sections, <dl> terms."""

    def __init__(self, root: etree._Element, cite_name: str) -> None:
        self.root = root
        self.cite_name = cite_name
        self.anchors: dict[str, Node] = {}
        self.references: list[tuple[str, str]] = []
        self.definitions: list[tuple[str, str]] = []
        self.pending: list[tuple[Node, etree._Element]] = []
        self.indexed: list[str] = []

    def sections(self) -> list[Node]:
        middle = self.root.find(".//middle")
        back = self.root.find(".//back")
        nodes = self.numbered([s for s in middle if local(s) == "section"], "section", "")
        if back is not None:
            nodes += self.numbered([s for s in back if local(s) == "section"], "appendix", "")
        for node, element in self.pending:
            for child in element:
                self.block(child, node.id, node)
        return nodes

    def numbered(self, elements: list, kind: str, prefix: str) -> list[Node]:
        nodes, count = [], 0
        for element in elements:
            name = element.findtext("name") if element.find("name") is not None else None
            heading = (
                clean(text_of(element.find("name")))
                if name is not None
                else element.get("title", "")
            )
            if element.get("numbered") == "false":
                node = Node(None, "", heading)
            else:
                count += 1
                value = chr(64 + count) if kind == "appendix" and not prefix else str(count)
                number = f"{prefix}.{value}" if prefix else value
                label = f"Appendix {number}." if kind == "appendix" and not prefix else f"{number}."
                word = "Appendix" if kind == "appendix" else "Section"
                cite = f"{word} {number} of {self.cite_name}"
                node = Node(f"{kind}-" + number.lower().replace(".", "-"), label, heading, cite)
            if element.get("anchor"):
                self.anchors[element.get("anchor")] = node
            subsections = [s for s in element if local(s) == "section"]
            number = node.label.removeprefix("Appendix ").rstrip(".")
            node.children = self.numbered(subsections, kind, number) if node.id else []
            self.pending.append((node, element))
            nodes.append(node)
        return nodes

    def inline(self, element: etree._Element, origin: str | None) -> str:
        parts = [element.text or ""]
        for child in element:
            name = local(child)
            if name in ("iref", "cref", "") or (name == "section"):
                pass
            elif name == "xref":
                target = self.anchors.get(child.get("target", ""))
                shown = self.inline(child, origin)
                if not shown and target is not None:
                    shown = target.cite.split(" of ")[0] if target.cite else target.heading or ""
                if target is not None and origin and cites(shown, target, child):
                    self.references.append((origin, target.id))
                parts.append(shown or f"[{child.get('target', '')}]")
            else:
                parts.append(self.inline(child, origin))
            parts.append(child.tail or "")
        return clean("".join(parts))

    def block(self, child: etree._Element, origin: str | None, node: Node) -> None:
        name = local(child)
        if name == "iref" and child.get("primary") == "true" and not child.get("subitem"):
            self.indexed.append(child.get("item") or "")  # the primary entry of the next <t>
        if name in ("t", "blockquote", "aside", "note") and child.find("list") is None:
            text = self.inline(child, origin)
            if text:
                node.body.append(text)
            if name == "t":
                self.prose_terms(child, text)
        elif name in ("ul", "ol", "list", "t", "figure", "table", "texttable"):
            hang = name == "list" and child.get("style", "").startswith("hanging")
            for item in child:
                if hang and local(item) == "t" and item.get("hangText"):
                    self.term(item.get("hangText"), self.inline(item, origin), node)
                elif local(item) in ("li", "t", "artwork", "sourcecode", "list", "figure"):
                    self.block(item, origin, node) if local(item) != "li" else self.list_item(
                        item, origin, node
                    )
        elif name == "li":
            self.list_item(child, origin, node)
        elif name == "dl":
            for term, value in zip(child.findall("dt"), child.findall("dd"), strict=False):
                self.term(self.inline(term, origin), " ".join(self.dd_text(value, origin)), node)
        elif name in ("artwork", "sourcecode"):
            text = (child.text or "").strip("\n")
            if text.strip():
                node.body.append(clean(text)[:2000])

    def list_item(self, item: etree._Element, origin: str | None, node: Node) -> None:
        if any(local(c) in _RFC_BLOCKS for c in item):
            for c in item:
                self.block(c, origin, node)
        else:
            text = self.inline(item, origin)
            if text:
                node.body.append("o  " + text)

    def dd_text(self, value: etree._Element, origin: str | None) -> list[str]:
        if any(local(c) in _RFC_BLOCKS for c in value):
            return [self.inline(c, origin) for c in value if local(c) == "t"]
        return [self.inline(value, origin)]

    def prose_terms(self, paragraph: etree._Element, text: str) -> None:
        """The terms a paragraph defines in prose, as the source marks them: a term in
        <x:dfn> ('An HTTP <x:dfn>cache</x:dfn> is a local store ...') or the item of a
        primary index entry before or in it that the paragraph quotes (<iref primary="true"
        item="proxy"/> then 'A "proxy" is a message-forwarding agent ...'), where the term
        is followed by "is", "are", "means" or "refers to" (not "is used to ..."); the
        definition is the text after that verb."""
        defined = [clean(text_of(d)) for d in paragraph.iter() if local(d) == "dfn"]
        indexed = self.indexed + [
            i.get("item") or ""
            for i in paragraph.iter()
            if local(i) == "iref" and i.get("primary") == "true" and not i.get("subitem")
        ]
        self.indexed = []
        # an index entry's term is one the paragraph introduces in quotes ('A "proxy" is')
        found = [(n, rf"(?<![\w-]){re.escape(n)}(?![\w-])") for n in defined if n]
        found += [(n, rf"[\"“]{re.escape(n)}(?=[\"”])") for n in indexed if n]
        stated = dict(found)
        for match in _RFC_STATED.finditer(text):
            copula = match["article"] and _RFC_DEFINING.match(text, match.end())
            # 'A "proxy" is a ...' opens its sentence; 'each part of a "multipart/byteranges" is
            # around 80 bytes' does not; 'change to a "conditional GET" if ...' may not
            opening = _RFC_SENTENCE_START.search(text, 0, match.start())
            marked = match["verb"] or (copula and (opening or copula["condition"]))
            # 'the Request-URI is an "absoluteURL"': a predicate, not a term introduced
            after_verb = _RFC_VERB_BEFORE.search(text, 0, match.start())
            if marked and not after_verb and match["term"] not in stated:
                stated[match["term"]] = rf"[\"“]{re.escape(match['term'])}(?=[\"”])"
        defining = {}
        for name, pattern in stated.items():
            found_at = defining_occurrence(text, pattern)
            if found_at:
                defining[name] = found_at
        starts = sorted(sentence_lead(text, at.start()) for at, _ in defining.values())
        for name, (_, verb) in defining.items():
            start = verb.start("condition") if verb["condition"] else verb.end()
            definition = prose_definition(text, start, starts)
            if (name, definition) not in self.definitions:
                self.definitions.append((name, definition))
        for match in _RFC_CALLED.finditer(text):
            term = match["term"] or match["alias"]
            # 'is called a "transforming proxy" if it is designed ...': the condition too
            condition = re.match(r"\s+if\s[^.;]+", text[match.end() :])
            definition = (match["subject"] or match["before"]) + (condition[0] if condition else "")
            if term not in stated:
                self.definitions.append((term, definition))

    def term(self, term: str, text: str, node: Node) -> None:
        term = clean(term).rstrip(":")
        if term and text and len(term) <= 60:
            node.body.append((term, text))
            # 'now' / 'The term "now" means the current value ...': the text after the verb
            named = re.match(rf'The\s+term\s+"{re.escape(term)}"\s+(?:means|denotes)\s+', text)
            self.definitions.append((term, text[named.end() :] if named else text))


def defining_occurrence(text: str, pattern: str) -> tuple[re.Match, re.Match] | None:
    """(term, verb) of the occurrence of a term that defines it: the first one a defining
    verb follows, or for a term marked without quotes a later one whose verb opens a
    definition ('to a server' comes before 'An HTTP server is a program')."""
    for number, at in enumerate(re.finditer(pattern, text, re.IGNORECASE)):
        verb = _RFC_DEFINING.match(text, at.end())
        quoted_term = pattern.startswith("[")
        if verb and (number == 0 or quoted_term or _RFC_LATER.match(text, verb.end())):
            return at, verb
    return None


def sentence_lead(text: str, at: int) -> int:
    """Where the sentence that defines a term at ``at`` starts, when only a few words
    stand before the term ("An HTTP server is ..."); else ``at`` itself."""
    opening = max(text.rfind(". ", 0, at) + 2, 0) if ". " in text[:at] else 0
    return opening if len(text[opening:at].split()) <= 2 else at


def prose_definition(text: str, start: int, term_starts: list[int]) -> str:
    """A prose definition's text: from ``start`` to the next term the paragraph defines
    ('"inbound" means toward the origin server and "outbound" means ...' gives "toward
    the origin server"), without the words that join the two."""
    end = next((s for s in term_starts if s > start), len(text))
    definition = text[start:end]
    if end < len(text):
        definition = re.sub(
            r"[\s,;]*(?:\b(?:and|or)\b)?\s*(?:\b(?:an?|the)\b)?\s*$", "", definition
        )
    return definition.strip()


def cites(shown: str, target: Node, xref: etree._Element) -> bool:
    """Whether an <xref> to a section of the same document is a reference the rendered
    text shows: its text names the section's number ("Section 3.1", the text xml2rfc
    generates for an empty <xref>). An <xref> written with words of its own ("<xref
    format="none">200 (OK)</xref>": RFC 7991 has xml2rfc generate no text for it) renders as
    those words alone: a link in the publisher's HTML, nothing in the text, and nothing in
    this script's renderings, which keep no links."""
    if not target.id or xref.get("section"):
        return False
    number = target.label.removeprefix("Appendix ").rstrip(".")
    return re.search(rf"(?<![\w.]){re.escape(number)}(?![\w]|\.\w)", shown) is not None


def read_rfc(data: bytes, document_id: str, source: str) -> Source:
    root = parse_xml(data)
    number = root.get("number")
    doc_name = re.sub(r"-&?[A-Za-z-]*;?$", "", root.get("docName") or document_id)
    cite_name = f"RFC {number}" if number else doc_name
    title = clean(text_of(root.find(".//front/title")))
    reader = RfcReader(root, cite_name)
    nodes = reader.sections()
    abstract = root.find(".//front/abstract")
    front = [reader.inline(t, None) for t in abstract.findall("t")] if abstract is not None else []
    heading = f"{cite_name}: {title}" if number else f"{doc_name}: {title}"
    return Source(
        document_id,
        heading,
        "IETF",
        source,
        RFC_LICENCE,
        nodes,
        reader.definitions,
        reader.references,
        front=["Abstract", *front],
        contents=True,
    )


# CFPB regulations (RegML)

CFPB_LICENCE = "Public domain (17 U.S.C. 105); repository CC0 1.0"
_E = "{eregs}"


def regml_paragraph(
    element: etree._Element, parent: Node, refs: list, defs: list, unnumbered: str = ""
) -> None:
    """A paragraph read into ``parent``: a numbered one as its point, an unnumbered one (no
    marker, or RegML's ``marker="none"``) as its text, with the points it holds. A point's
    label that goes through a ``marker="none"`` paragraph's ("1012-205-p1-a" under
    "1012-205-p1") is read without it, as printed and cited: § 1012.205(a)."""
    marker = element.get("marker") or ""
    marker = "" if marker == "none" else marker
    content = element.find(f"{_E}content")
    text = text_of(content) if content is not None else ""
    label = element.get("label") or ""
    if unnumbered and label.startswith(unnumbered + "-") and parent.id:
        label = parent.id.removeprefix("section-") + label[len(unnumbered) :]
    if not marker or not label:
        if text:
            parent.body.append(text)
        node = parent
    else:
        title = element.find(f"{_E}title")
        heading = clean(text_of(title)) if title is not None else None
        if heading and text.startswith(heading):
            text = text[len(heading) :].lstrip()  # some parts repeat the keyterm in the text
        node = Node("section-" + label.lower(), marker, heading, point=True)
        node.body = [text] if text else []
        parent.children.append(node)
        parent.body.append(node)  # printed where the source has it, among unnumbered text
    if content is not None:
        for ref in content.iter(f"{_E}ref"):
            if ref.get("reftype") == "internal" and node.id:
                refs.append((node.id, "section-" + ref.get("target", "").lower()))
        names = [clean(text_of(term)) for term in content.iter(f"{_E}def")]
        defs += marked_definitions(text, names, lambda: regml_following(element))
        marked = {n.casefold() for n in names}
        stated = [n for n in stated_terms(text) if n.strip("“”\"‘’' ").casefold() not in marked]
        defs += marked_definitions(text, stated, lambda: regml_following(element))
    skipped = label if element.get("marker") == "none" else unnumbered
    for child in element.findall(f"{_E}paragraph"):
        regml_paragraph(child, node, refs, defs, skipped)


def placed_by_label(node: Node, above: list[Node]) -> None:
    """Points moved to the paragraph their label extends, where the XML nests one a level
    too deep: 12 CFR 1016 writes '<paragraph label="1016-3-o-2" marker="(2)">' inside
    '1016-3-o-1' (its '(1)'), printed '(o)(2)' and cited so. A moved point follows the
    child it was inside, so the reading order stays."""
    for child in list(node.children):
        placed_by_label(child, [*above, node])
        parent_id = (child.id or "").rsplit("-", 1)[0]
        owner = next((a for a in above if a.id == parent_id), None)
        if owner is None or node.id == parent_id:
            continue
        holding = ([*above, node])[[*above, node].index(owner) + 1]
        node.children.remove(child)
        node.body = [x for x in node.body if x is not child]
        for items in (owner.children, owner.body):
            items.insert(items.index(holding) + 1, child)


def regml_following(element: etree._Element) -> str:
    """The text of a paragraph's points ("Error means:" then "(i) An unauthorized ..."),
    each with its marker, as printed."""
    return clean(" ".join(regml_printed(p) for p in element.findall(f"{_E}paragraph")))[:600]


def regml_printed(element: etree._Element) -> str:
    content = element.find(f"{_E}content")
    parts = [element.get("marker") or "", text_of(content) if content is not None else ""]
    parts += [regml_printed(p) for p in element.findall(f"{_E}paragraph")]
    return " ".join(parts)


def read_regml(data: bytes, document_id: str, source: str) -> Source:
    root = parse_xml(data)
    letter = root.findtext(f".//{_E}regLetter")
    subject = clean(root.findtext(f".//{_E}fdsys/{_E}title") or "").title()
    name = f"Regulation {letter}" if letter else subject
    title = (
        f"{name}: {subject} (12 CFR part {root.find(f'{_E}part').get('label')})"
        if letter
        else subject
    )
    refs: list[tuple[str, str]] = []
    defs: list[tuple[str, str]] = []
    nodes = []
    for section in root.find(f"{_E}part").iter(f"{_E}section"):
        subject = clean(section.findtext(f"{_E}subject") or "")
        match = re.match(r"^(§\s*[\d.]+)\s*(.*)$", subject)
        if not match or not section.get("label"):
            continue
        number = match[1].removeprefix("§").strip()
        node = Node(
            "section-" + section.get("label").lower(), match[1], match[2], f"§ {number} of {name}"
        )
        for paragraph in section.findall(f"{_E}paragraph"):
            regml_paragraph(paragraph, node, refs, defs)
        placed_by_label(node, [])
        nodes.append(node)
    return Source(document_id, title, "CFPB", source, CFPB_LICENCE, nodes, defs, refs)


# US bills and public laws (USLM 2)

USLM_LICENCE = "Public domain (17 U.S.C. 105), as the document's dc:rights states"
_LEVELS = (
    "section",
    "subsection",
    "paragraph",
    "subparagraph",
    "clause",
    "subclause",
    "item",
    "subitem",
)
_BLOCKS = (
    "title",
    "subtitle",
    "division",
    "subdivision",
    "part",
    "subpart",
    "chapter",
    "subchapter",
)
_TEXTS = ("chapeau", "content", "continuation", "text")
_SKIPPED = ("quotedContent", "toc", "quotedText", "note", "notes", "sidenote")


def uslm_children(
    element: etree._Element, parent: Node | None, out: list[Node], cite: str, defs: list
) -> None:
    for child in element:
        name = local(child)
        if name in _SKIPPED:
            continue
        if name in _LEVELS or name in _BLOCKS:
            out.append(uslm_level(child, parent, cite, defs))
        elif name not in _TEXTS and name not in ("num", "heading"):
            uslm_children(child, parent, out, cite, defs)


def uslm_number(value: str, label: str) -> str:
    """A section's number: its ``value``, or the number its printed label shows when that
    extends the value ("§ 45.45a" whose value says "45.45", as the CFR samples write the
    sections added between two others; their <ref>s cite "s45.45a")."""
    shown = re.sub(r"^(?:§+|sec(?:tion)?\.?)\s*", "", label, flags=re.IGNORECASE).rstrip(".—- ")
    if value and shown.lower().startswith(value.lower()) and re.fullmatch(r"[\w.\-]+", shown):
        return shown
    return value


def uslm_level(element: etree._Element, parent: Node | None, cite: str, defs: list) -> Node:
    name = local(element)
    num = element.find("{*}num")
    label = clean(text_of(num)) if num is not None else ""
    value = uslm_number((num.get("value") if num is not None else "") or "", label)
    heading_element = element.find("{*}heading")
    heading = (
        clean(text_of(heading_element)).rstrip("—-").rstrip(".")
        if heading_element is not None
        else None
    )
    if name == "section" and value:
        section_cite = f"§ {value}" if "." in value else f"Section {value}"
        node = Node(
            "section-" + value.lower().replace(".", "-"),
            label,
            heading or None,
            f"{section_cite} of {cite}",
        )
    elif name in _LEVELS and value and parent is not None and parent.id:
        node = Node(f"{parent.id}-{value.lower()}", label, heading or None, point=True)
    else:
        node = Node(None, label, heading or None, block=name if name in _BLOCKS and value else "")
        node.cite = value if node.block else None  # the block's number, until its id is given
    for position, child in enumerate(element):
        name = local(child)
        if name in _TEXTS:
            text = text_of(child, frozenset({"quotedContent"}))
            if text:
                node.body.append(text)
            uslm_terms(child, text, defs, lambda p=position: uslm_following(element, p))
        elif name in _LEVELS or name in _BLOCKS:
            node.children.append(uslm_level(child, node, cite, defs))
            node.body.append(node.children[-1])
        elif name not in _SKIPPED and name not in ("num", "heading"):
            uslm_children(child, node, node.children, cite, defs)
    return node


def block_ids(nodes: list[Node]) -> None:
    """Ids for the Titles, Subtitles, Parts and Subparts of a USLM document, which its
    renderings print as headings ("TITLE I—LOWERING PRICES", "Subpart A—Scope"): the kind
    and the number (``title-1``, ``subtitle-a``, ``part-1``), Roman numbers as integers
    unless the sequence is lettered (Subtitles A ... I ... O; a Division C or D alone); a
    number that several blocks of one kind share is qualified by the enclosing block
    (``title-1-subtitle-a``), as a citation must say which one it means. The points directly
    under a block ("(1)" of an appropriation paragraph) keep no id: numbered anew in every
    paragraph, they name no one place."""
    locals_: dict[int, str] = {}
    for siblings in [nodes, *(n.children for n, _ in walk(nodes))]:
        blocks = [n for n in siblings if n.block]
        for kind in {n.block for n in blocks}:
            values = [n.cite or "" for n in blocks if n.block == kind]
            roman = all(roman_value(v) for v in values) and any(v[0] in "IVX" for v in values)
            for node in (n for n in blocks if n.block == kind):
                number = str(roman_value(node.cite)) if roman else (node.cite or "").lower()
                locals_[id(node)] = f"{kind}-{number.replace('.', '-')}"
    counts: dict[str, int] = {}
    for value in locals_.values():
        counts[value] = counts.get(value, 0) + 1

    def name(siblings: list[Node], parent: str | None) -> None:
        for node in siblings:
            if node.block:
                own = locals_[id(node)]
                node.id = f"{parent}-{own}" if counts[own] > 1 and parent else own
                node.cite = None
            name(node.children, node.id if node.block else parent)

    name(nodes, None)


def roman_value(text: str) -> int | None:
    """The value of an upper-case Roman numeral ("XIV" is 14), else None."""
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
    if not text or any(c not in values for c in text):
        return None
    pairs = zip(text, [*text[1:], ""], strict=True)
    return sum(-values[a] if values[a] < values.get(b, 0) else values[a] for a, b in pairs)


#: What a marked term is defined by, after it in its sentence: 'The term “damages”
#: includes—', 'The terms “agency”, “individual”, and “record” have the meanings given ...'.
_TERM_VERB = re.compile(
    r"^(?P<between>[^.;:]{0,160}?)\b(?P<verb>means|mean|includes|include|refers?\s+to"
    r"|(?:has|have)(?=\s+the\s+(?:same\s+)?meanings?\b))\b[\s:—–-]*"
)
#: Words between a term and a verb that make the verb not the term's definition:
#: 'the term “X” does not include', 'the term “X” as it is used in ... means' (not
#: ', used with respect to work, means').
_NOT_DEFINING = re.compile(r"\b(?:not|does|do|is|are|shall|may|was|were)\b")
#: The quoted terms a definitions paragraph names without <term> markup: 'The terms
#: “agency”, “individual”, and “record” have the meanings ...'.
_NAMED_TERMS = re.compile(
    r"^\s*(?:In\s+this\s+[^,]{1,40},\s*)?(?:each\s+of\s+)?(?:The\s+)?terms?\s+"
    r"((?:[“\"‘'][^”\"’']{1,80}[”\"’'][,\s]*(?:and|or)?\s*)+)",
    re.IGNORECASE,
)

#: The statute's defining formula anywhere in a text, without <term> markup and outside a
#: definitions level: 'the term “CBA” means', 'the terms “enter” and “entry” mean'.
_STATUTE_TERMS = re.compile(
    r"\b[Tt]he\s+terms?\s+((?:[“\"‘'][^”\"’']{1,80}[”\"’'][,\s]*(?:and|or)?\s*)+)"
)

#: A quoted term its verb defines: '“dealer” means one who engages in ...'.
_QUOTED_MEANS = re.compile(r"[“\"]([^”\"]{1,80})[”\"]\s+(?=means\b|mean\b)")


def uslm_terms(element: etree._Element, text: str, defs: list, following) -> None:
    """The terms a text element defines: its <term> elements, or in a paragraph whose role
    is "definitions" the quoted terms after "The term(s)" (see :func:`marked_definitions`)."""
    names = [clean(text_of(term)) for term in element.iter("{*}term") if not quoted(term)]
    if not names and uslm_role(element) == "definitions":
        lead = _NAMED_TERMS.match(text)
        names = re.findall(r"[“\"‘']([^”\"’']{1,80})[”\"’']", lead.group(1)) if lead else []
    if not names:  # 'In this section, the terms “contribution” and “candidate” have the meaning'
        names = [
            name
            for lead in _STATUTE_TERMS.finditer(text)
            for name in re.findall(r"[“\"‘']([^”\"’']{1,80})[”\"’']", lead.group(1))
        ]
    defs += marked_definitions(text, names, following)


def stated_terms(text: str) -> list[str]:
    """The terms a regulation's text defines without <def> markup, in the defining
    formulas: 'The term “clear and conspicuous” means', '“dealer” means one who ...'."""
    found = [
        (lead.start(), name)
        for lead in _STATUTE_TERMS.finditer(text)
        for name in re.findall(r"[“\"‘'][^”\"’']{1,80}[”\"’']", lead.group(1))
    ]
    found += [(m.start(), text[m.start() : m.end(1) + 1]) for m in _QUOTED_MEANS.finditer(text)]
    # each with its quotes, so that :func:`marked_definitions` finds it where it is defined,
    # not inside another term ('“news” means', after '“representative of the news media”')
    return list(dict.fromkeys(name for _, name in sorted(found)))


def marked_definitions(text: str, names: list[str], following) -> list[tuple[str, str]]:
    """(term, text) of each term the source marks in ``text``, with the text after its verb
    ("means", "refers to", "includes", "has the meaning"), or, where that text is only a
    dash or a colon ("The term “damages” includes—", "Error means:"), the text of the
    points that follow (``following()``). A marked term no verb follows defines nothing."""
    found = []
    cursor = 0
    for name in names:
        at = text.find(name, cursor) if name else -1
        if at < 0:
            continue
        cursor = at + len(name)
        verb = _TERM_VERB.match(text[cursor:])
        if verb is None or _NOT_DEFINING.search(verb["between"]):
            continue
        # "has the meaning given ..." keeps "the meaning", as a pointer's text does
        pointer = verb["verb"].startswith("ha")
        after = text[cursor + (verb.end("verb") if pointer else verb.end()) :].strip()
        found.append((name.strip("“”\"‘’' ,;:"), after or following()))
    return found


def uslm_role(element: etree._Element) -> str | None:
    """The role of the level a text element belongs to ("definitions"), also where the
    level is headed "Definitions" ("(a) Definitions.—In this section, the terms ...")."""
    parent = element.getparent()
    if parent is None:
        return None
    heading = parent.find("{*}heading")
    titled = heading is not None and re.match(r"\s*Definitions?\b", text_of(heading))
    return "definitions" if titled else parent.get("role")


def uslm_following(element: etree._Element, position: int) -> str:
    """The text of the points after an element's child at ``position`` (its chapeau)."""
    later = [c for c in list(element)[position + 1 :] if local(c) in _LEVELS or local(c) in _TEXTS]
    return clean(" ".join(text_of(c, frozenset({"quotedContent"})) for c in later))[:600]


def quoted(element: etree._Element) -> bool:
    return any(local(a) in ("quotedContent", "quotedText") for a in element.iterancestors())


def first_version_only(main: etree._Element) -> None:
    """A reported bill prints the text a committee struck out and the text it put in its
    place (a <collection> of <component changed="deleted"> and <component changed="added">,
    BILLS-118s1325rs), or one whole text per committee that struck out all after the
    enacting clause (BILLS-116hr3rh: three added texts, Energy and Commerce, Ways and Means,
    Education and Labor), each numbered from Section 1: versions printed as one, in which
    "Section 101 of the Lower Drug Costs Now Act" names several places. The first text put
    in is kept, a bill as it would pass; struck text and later versions are left out."""
    for collection in list(main.iter("{*}collection")):
        components = collection.findall("{*}component")
        if not any(c.get("changed") for c in components):
            continue  # parts of one text (a Federal Register issue), not versions of it
        kept = [c for c in components if c.get("changed") != "deleted"][:1] or components[:1]
        for component in components:
            if component not in kept:
                collection.remove(component)


def read_uslm(data: bytes, document_id: str, source: str) -> Source:
    root = parse_xml(data)
    short = next((t for t in root.iter("{*}shortTitle") if not quoted(t)), None)
    kind = root.findtext(".//{*}preface/{http://purl.org/dc/elements/1.1/}type") or ""
    number = f"{clean(kind)} {root.findtext('.//{*}docNumber') or ''}".strip()
    cite = clean(text_of(short)).strip('\u201c\u201d"') if short is not None else number
    official = clean(root.findtext(".//{http://purl.org/dc/elements/1.1/}title") or number)
    title = f"{cite}: {official}" if cite != official else official
    defs: list[tuple[str, str]] = []
    nodes: list[Node] = []
    main = root.find(".//{*}main")
    first_version_only(main if main is not None else root)
    uslm_children(main if main is not None else root, None, nodes, cite, defs)
    block_ids(nodes)
    return Source(document_id, title[:300], "US Congress", source, USLM_LICENCE, nodes, defs, None)


def read_cfr_parts(data: bytes, document_id: str, source: str) -> list[Source]:
    """Each part of a CFR volume (USLM) as a document of its own; reserved parts left out."""
    root = parse_xml(data)
    sources = []
    for part in root.iter("{*}part"):
        if part.get("role") == "reserved" or part.find(".//{*}section") is None:
            continue
        number = part.find("{*}num").get("value")
        heading = (
            clean(text_of(part.find("{*}heading"))) if part.find("{*}heading") is not None else ""
        )
        name = heading.title() or f"Part {number}"
        defs: list[tuple[str, str]] = []
        nodes: list[Node] = []
        uslm_children(part, None, nodes, name, defs)
        block_ids(nodes)
        # a volume converted from SGML marks no term: its definitions are not measured
        marked = next(root.iter("{*}term"), None) is not None
        title = f"27 CFR Part {number}: {name}"
        sources.append(
            Source(
                f"{document_id}-part{number}",
                title,
                "OFR (CFR)",
                source,
                USLM_LICENCE,
                nodes,
                defs if marked else None,
                None,
            )
        )
    return sources


# licence texts (SPDX License List XML)

SPDX_LICENCE = (
    "SPDX License List data CC BY 3.0; the licence text under its own terms (verbatim copies)"
)
_S = "{http://www.spdx.org/license}"


def spdx_items(element: etree._Element, parent: Node | None, out: list[Node]) -> None:
    for child in element:
        name = local(child)
        if name == "item" and out and continues(child):
            spdx_items(child, out[-1], out[-1].children)
        elif name == "item":
            out.append(spdx_item(child, parent))
            if parent is not None:
                parent.body.append(out[-1])
        elif name in ("list", "optional", "alt") or (
            name == "p" and child.find(f"{_S}list") is not None
        ):
            spdx_items(child, parent, out)
        elif name == "p" and parent is not None:
            text = text_of(child)
            if text:
                parent.body.append(text)


def continues(item: etree._Element) -> bool:
    """An item with no bullet and no text of its own, only a list: the list of the item
    before it ("1." then such an item holding "1.1" ... "1.8", as APSL 1.0 writes it)."""
    return (
        item.find(f"{_S}bullet") is None
        and not (item.text or "").strip()
        and [local(c) for c in item] == ["list"]
    )


def spdx_item(item: etree._Element, parent: Node | None) -> Node:
    bullet = (
        clean(text_of(item.find(f"{_S}bullet"))) if item.find(f"{_S}bullet") is not None else ""
    )
    lead = clean("".join([(item.find(f"{_S}bullet").tail or "") if bullet else (item.text or "")]))
    number = bullet.strip("().")
    if re.fullmatch(r"\d+(?:\.\d+)*", number) and (
        parent is None or "." in number or not parent.id
    ):
        node_id = "section-" + number.replace(".", "-")
    elif re.fullmatch(r"[0-9a-z]{1,4}", number, re.IGNORECASE) and parent is not None and parent.id:
        node_id = f"{parent.id}-{number.lower()}"
    else:
        node_id = None
    titled = parent is None and 0 < len(lead) <= 80 and not re.search(r"[.;:,]\s+\S|[;:,]$", lead)
    node = Node(node_id, bullet, lead.rstrip(".") if titled else None, point=not titled)
    if lead and not titled:
        node.body.append(lead)
    spdx_items(item, node, node.children)
    return node


def decimal_number(node: Node) -> tuple[str, ...] | None:
    """A clause's number as parts, a point-zero heading's without its zero ("2.0" heads 2)."""
    number = node.label.strip().strip("().")
    if not node.id or not re.fullmatch(r"\d+(?:\.\d+)*", number):
        return None
    parts = tuple(number.split("."))
    return parts[:-1] if len(parts) > 1 and parts[-1] == "0" else parts


def holder(host: Node, number: tuple[str, ...]) -> Node | None:
    """The clause that a clause numbered ``number`` goes into: ``host``, or the last clause
    of its last clauses, whose number is ``number`` without its last part."""
    found = None
    while host is not None:
        if decimal_number(host) == number[:-1]:
            found = host
        host = host.children[-1] if host.children else None
    return found


def nested_by_number(nodes: list[Node]) -> list[Node]:
    """The items of a licence's list nested as their numbers say: "1.1" in "1", "2.1" in
    "2.0", "1.8.1" in "1.8", the items with no number between them ("A.", "B." after
    "1.11") in the clause before them. The SPDX XML nests its lists for matching licence
    texts, not as the clauses nest: SNIA puts "1.1" beside "1." in one list."""
    result: list[Node] = []
    between: list[Node] = []
    for node in nodes:
        node.children = nested_by_number(node.children)
        kept = {id(child) for child in node.children}
        node.body = [x for x in node.body if not isinstance(x, Node) or id(x) in kept]
        number = decimal_number(node)
        if number is None:
            between.append(node)
            continue
        target = holder(result[-1], number) if result and len(number) > 1 else None
        if target is None:
            result += [*between, node]
        else:
            last = result[-1]
            while last.children:
                last = last.children[-1]
            for item, into in [*((b, last) for b in between), (node, target)]:
                into.children.append(item)
                into.body.append(item)
        between = []
    return result + between


def read_spdx(data: bytes, document_id: str, source: str) -> Source:
    root = parse_xml(data)
    licence = root.find(f"{_S}license")
    name = licence.get("name")
    nodes: list[Node] = []
    spdx_items(licence.find(f"{_S}text"), None, nodes)
    nodes = nested_by_number(nodes)
    for node, _ in walk(nodes):
        if node.id and not node.point:
            node.cite = (
                f"Section {node.id.removeprefix('section-').replace('-', '.')} of the {name}"
            )
    return Source(document_id, name, "SPDX", source, SPDX_LICENCE, nodes, None, None)


# the corpus

READERS = {
    "rfc": read_rfc,
    "regml": read_regml,
    "uslm": read_uslm,
    "cfr": read_cfr_parts,
    "spdx": read_spdx,
}
FORMATS = {
    "rfc": ("txt", "html", "md"),
    "regml": ("html", "txt", "docx", "md"),
    "uslm": ("txt", "html", "docx", "md"),
    "cfr": ("html", "txt", "md", "docx"),
    "spdx": ("txt", "md", "html", "docx"),
}
#: The most documents taken from one kind of source.
MOST = {"spdx": 60}
RENDERING = "rendered from the structured source by benchmarks/structure_corpus_build.py ({})"


@dataclass(frozen=True)
class Spec:
    id: str
    kind: str
    repo: str
    path: str


def git_paths(mirrors: Path, repo: str) -> list[tuple[str, int]]:
    folder = mirrors / repo.replace("/", "+") / "repo"
    listing = subprocess.run(
        ["git", "--git-dir", str(folder), "ls-tree", "-r", "-l", "HEAD"],
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    rows = [line.split(None, 4) for line in listing.splitlines()]
    return [(row[4], int(row[3])) for row in rows if row[3].isdigit()]


def rfc_specs(mirrors: Path) -> list[Spec]:
    repo = "httpwg/http-core"
    paths = [p for p, _ in git_paths(mirrors, repo)]
    wanted = [
        p for p in paths if re.fullmatch(r"rfc\d+\.xml|archive/auth48-2014/rfc\d+-to-be\.xml", p)
    ]
    wanted += [p for p in paths if re.fullmatch(r"preRFC723x/orig/rfc\d+\.xml", p)]
    wanted += [
        p for p in paths if re.fullmatch(r"preRFC723x/(00|06|12|18|24)/draft-[a-z0-9-]+\.xml", p)
    ]
    return [Spec("ietf-" + Path(p).stem.removesuffix("-to-be"), "rfc", repo, p) for p in wanted]


def regml_specs(mirrors: Path) -> list[Spec]:
    repo = "cfpb/regulations-xml"
    newest: dict[str, str] = {}
    for path, _ in sorted(git_paths(mirrors, repo), key=lambda item: item[0].split("/")[-1][-13:]):
        if path.startswith("regulation/") and path.endswith(".xml"):
            newest[path.split("/")[1]] = path
    return [Spec(f"cfpb-12cfr{part}", "regml", repo, path) for part, path in sorted(newest.items())]


def uslm_specs(mirrors: Path, smallest: int = 6_000, largest: int = 1_200_000) -> list[Spec]:
    repo = "usgpo/uslm"
    specs, seen = [], set()
    for path, size in git_paths(mirrors, repo):
        name = Path(path).stem.lower().removesuffix("_good").removesuffix("-uslm")
        folder_ok = path.startswith(
            ("bill-version-samples-september-2024/", "previous/sample-files/")
        )
        if (
            folder_ok
            and path.lower().endswith(".xml")
            and smallest <= size <= largest
            and "cfr" not in name
            and name not in seen
            and not name.startswith("comps")
        ):
            seen.add(name)
            specs.append(Spec(f"uslm-{name}", "uslm", repo, path))
    return specs


def cfr_specs(mirrors: Path) -> list[Spec]:
    return [
        Spec(
            f"cfr-27-vol{v}",
            "cfr",
            "usgpo/uslm",
            f"previous/sample-files/CFR-2018-title27-vol{v}-uslm.xml",
        )
        for v in (2, 3)
    ]


def spdx_specs(mirrors: Path, smallest: int = 7_000) -> list[Spec]:
    repo = "spdx/license-list-XML"
    paths = sorted(
        p
        for p, size in git_paths(mirrors, repo)
        if re.fullmatch(r"src/[^/]+\.xml", p) and size >= smallest
    )
    paths = paths[:: max(1, len(paths) // 90)]  # spread over the alphabet
    return [Spec("spdx-" + Path(p).stem.lower(), "spdx", repo, p) for p in paths]


SPEC_LISTS = {
    "rfc": rfc_specs,
    "regml": regml_specs,
    "uslm": uslm_specs,
    "cfr": cfr_specs,
    "spdx": spdx_specs,
}


def read_sources(mirrors: Path, spec: Spec) -> list[Source]:
    commit = head_commit(mirrors, spec.repo)
    url = f"https://github.com/{spec.repo}/blob/{commit}/{spec.path}"
    read = READERS[spec.kind](git_show(mirrors, spec.repo, commit, spec.path), spec.id, url)
    return read if isinstance(read, list) else [read]


def write_document(out: Path, kind: str, made: int, source: Source, gold: dict) -> dict:
    fmt = FORMATS[kind][made % len(FORMATS[kind])]
    (out / "documents" / f"{source.id}.{fmt}").write_bytes(RENDERERS[fmt](source))
    (out / "gold" / f"{source.id}.json").write_text(
        json.dumps(gold, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    return {
        "id": source.id,
        "format": fmt,
        "publisher": source.publisher,
        "title": source.title,
        "source": source.source,
        "licence": source.licence,
        "rendering": RENDERING.format(f"{kind} to {fmt}"),
        "input": f"documents/{source.id}.{fmt}",
        "gold": f"gold/{source.id}.json",
    }


def build(
    mirrors: Path, out: Path, minimum_sections: int = 4, kept: dict | None = None
) -> list[dict]:
    """Every document of every source that has enough sections, once per title; ``kept``,
    when given, receives each document's ``(kind, Source)`` by id."""
    (out / "documents").mkdir(parents=True, exist_ok=True)
    (out / "gold").mkdir(parents=True, exist_ok=True)
    manifest, titles, texts = [], set(), set()
    for kind, specs_of in SPEC_LISTS.items():
        made = 0
        for spec in specs_of(mirrors):
            if made >= MOST.get(kind, 10_000):
                break
            try:
                sources = read_sources(mirrors, spec)
            except (etree.XMLSyntaxError, AttributeError, ValueError, TypeError) as error:
                print(f"skipped {spec.id}: {error!r}")
                continue
            for source in sources:
                gold = gold_of(source)
                text = render_txt(source).split(b"\n", 1)[1]
                if len(gold["sections"]) < minimum_sections or not gold["citations"]:
                    continue
                if source.title in titles or text in texts:
                    continue  # the same document under another name: citations would be ambiguous
                titles.add(source.title)
                texts.add(text)
                manifest.append(write_document(out, kind, made, source, gold))
                if kept is not None:
                    kept[source.id] = (kind, source)
                made += 1
    (out / "manifest.json").write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    return manifest


#: The documents printed to PDF: the test subset's two, then per publisher up to 8 of
#: those with at most 24,000 characters of text, spread from the shortest to the longest,
#: as first chosen; kept as a list, so that a rendering that grows or shrinks (a deeper
#: indent) does not swap a twin for another.
PDF_TWINS = (
    "cfpb-12cfr1014", "uslm-s2245_is",
    "ietf-rfc2145", "ietf-draft-ietf-httpbis-p7-auth-00", "ietf-rfc2818", "ietf-rfc4234",
    "ietf-rfc5234", "ietf-draft-ietf-httpbis-p7-auth-06", "ietf-rfc6266", "ietf-rfc2817",
    "cfpb-12cfr1004", "cfpb-12cfr1009", "cfpb-12cfr1006", "cfpb-12cfr1011", "cfpb-12cfr1012",
    "uslm-bills-114s32cds", "uslm-115hr609enr", "uslm-115hr321enr", "uslm-113hjres91enr",
    "uslm-hj1_pcs", "uslm-sj4_rs", "uslm-hj37_rfs", "uslm-114hr2028enr",
    "cfr-27-vol3-part646", "cfr-27-vol2-part73",
    "spdx-liliq-r-1.1", "spdx-cc-by-nd-1.0", "spdx-pddl-1.0", "spdx-cddl-1.0", "spdx-sgi-b-1.1",
    "spdx-cc-by-3.0-de", "spdx-rscpl", "spdx-cc-by-sa-3.0-de",
)  # fmt: skip


def pdf_choice(kept: dict) -> list[str]:
    """The documents of :data:`PDF_TWINS` the corpus holds."""
    return [i for i in PDF_TWINS if i in kept]


def build_pdfs(kept: dict, folder: Path, out: Path) -> list[dict]:
    """A PDF twin of each chosen document of the corpus in ``folder``, written with its gold
    into ``out`` under the id ``<id>-pdf`` (a twin shares its document's title, so the
    benchmark measures twins in an index of their own)."""
    (out / "documents").mkdir(parents=True, exist_ok=True)
    (out / "gold").mkdir(parents=True, exist_ok=True)
    entries = {e["id"]: e for e in json.loads((folder / "manifest.json").read_text("utf-8"))}
    manifest = []
    for position, document_id in enumerate(pdf_choice(kept)):
        kind, source = kept[document_id]
        twin = dict(entries[document_id], id=f"{document_id}-pdf", format="pdf")
        twin["rendering"] = RENDERING.format(f"{kind} to html, printed to pdf by Chromium")
        twin["input"] = f"documents/{twin['id']}.pdf"
        twin["gold"] = f"gold/{twin['id']}.json"
        layout = position % len(PRINT_STYLES)
        twin["rendering"] += ("", ", two columns")[layout]
        (out / twin["input"]).write_bytes(render_pdf(source, layout))
        (out / twin["gold"]).write_bytes((folder / entries[document_id]["gold"]).read_bytes())
        manifest.append(twin)
    (out / "manifest.json").write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    return manifest


def pack(folder: Path, archive: Path) -> None:
    with tarfile.open(archive, "w:xz", preset=9) as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                tar.add(path, arcname=str(path.relative_to(folder)), filter=reproducible_entry)


def reproducible_entry(info: tarfile.TarInfo) -> tarfile.TarInfo:
    """An archive entry without the builder's clock, owner or mode."""
    info.mtime = int(FIXED_TIME.timestamp())
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mode = 0o644
    return info


#: The documents of tests/structure_corpus: every format and publisher, all small.
SUBSET = (
    "ietf-rfc7233",
    "cfpb-12cfr1009",
    "cfpb-12cfr1014",
    "cfr-27-vol3-part646",
    "spdx-epl-2.0",
    "spdx-frameworx-1.0",
    "uslm-h1037_rfs",
    "uslm-s2245_is",
)
#: The documents of the subset that also go into it printed to PDF.
SUBSET_PDF = ("cfpb-12cfr1014", "uslm-s2245_is")


def write_subset(
    folders: list[Path], target: Path, ids: tuple[str, ...] = SUBSET + SUBSET_PDF
) -> None:
    """The documents ``ids`` (a PDF twin as ``<id>-pdf``) of built corpus folders, copied
    with their own manifest."""
    wanted = {*ids, *(f"{i}-pdf" for i in SUBSET_PDF)}
    chosen = []
    for folder in folders:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        for entry in manifest:
            if entry["id"] not in wanted or (entry["format"] != "pdf" and entry["id"] not in ids):
                continue
            for key in ("input", "gold"):
                (target / entry[key]).parent.mkdir(parents=True, exist_ok=True)
                (target / entry[key]).write_bytes((folder / entry[key]).read_bytes())
            chosen.append(entry)
    (target / "manifest.json").write_text(
        json.dumps(chosen, indent=1, ensure_ascii=False), encoding="utf-8"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--mirrors", type=Path, required=True, help="folder of owner+name/repo git copies"
    )
    parser.add_argument("--out", type=Path, required=True, help="folder to write the corpus into")
    parser.add_argument("--archive", type=Path, help="also pack the folder into this .tar.xz")
    parser.add_argument("--subset", type=Path, help="also copy the test subset into this folder")
    parser.add_argument(
        "--pdf-archive",
        type=Path,
        help="also print documents to PDF (needs Chromium) into OUT-pdf and pack it here",
    )
    args = parser.parse_args()
    kept: dict = {}
    manifest = build(args.mirrors, args.out, kept=kept)
    print(f"{len(manifest)} documents")
    folders = [args.out]
    if args.pdf_archive:
        folders.append(args.out.with_name(args.out.name + "-pdf"))
        print(f"{len(build_pdfs(kept, args.out, folders[-1]))} PDF documents")
        pack(folders[-1], args.pdf_archive)
    if args.archive:
        pack(args.out, args.archive)
    if args.subset:
        write_subset(folders, args.subset)


if __name__ == "__main__":
    main()
