"""DOCX to Markdown that keeps the numbers Word shows.

Contracts number their clauses with Word's automatic numbering: the "8.4" of
"8.4 Limitation of Liability" is not in the text but in ``word/numbering.xml``,
so mammoth (markitdown) loses it and "Section 8.4" cannot be found. This
converter opens the package with python-docx and renders each paragraph's
number as Word does (:mod:`hierdoc.pipeline.docx_numbering`).

The Markdown it writes is what the structure stage reads: the Title style is
``#``, Word headings (style or outline level) and numbered clauses are
headings holding the number and a plain title, no markup
(``## 8.4 Limitation of Liability``); a clause's run-in title ("**Fees.** The
Customer shall ...") is its heading and the rest its body; points such as
"(a)" stay at the start of their paragraph, where the outline finds them, as
do the items of a plain numbered list ("1. Name"; a clause of such a list
opens with a bold or underlined title). Bold and italic are kept in body
text, tables become pipe tables, footnotes and endnotes follow the body under
"## Notes", and generated tables of contents are left out (their entries
would claim the ids of the clauses they list).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..text.numbering import HEADING_KIND, roman_to_int
from .docx_lines import PrintedLines
from .docx_numbering import W_NS, Numbering, Styles, on, val, w
from .docx_package import (
    ENDNOTES_REL,
    FOOTNOTES_REL,
    NUMBERING_REL,
    STYLES_REL,
    open_docx,
    related_root,
)
from .docx_typed import TypedOutline, typed_number
from .headings import plain_heading

_MAX_HEADING_LEVEL = 6
_MAX_TITLE_CHARS = 100
_MAX_TITLE_WORDS = 12
#: A heading style's whole text after a written number ("SEC. 2.") is its title up to here.
_MAX_WRITTEN_TITLE_CHARS = 250
_SMALL_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "as",
        "at",
        "by",
        "for",
        "from",
        "in",
        "into",
        "of",
        "on",
        "or",
        "the",
        "to",
        "with",
        "without",
        "under",
        "upon",
    ]
)
_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
# a template's heading style named for what it heads: "Heading Appendix", "Heading Annex"
_NAMED_HEADING_STYLE = re.compile(r"^heading\s+(?:annex|appendix|schedule|exhibit)\w*$", re.I)
_BLOCK_HEADING_LEVEL = 2
_BLOCK_TITLE = re.compile(
    r"^(?:Annex|Schedule|Exhibit|Appendix)\s+[A-Z0-9]{1,6}\b(?:\([A-Za-z0-9]{1,4}\))*", re.I
)
_TOC_STYLE = re.compile(r"^(?:toc\s*\d|toc heading|table of figures)$", re.IGNORECASE)
_SECTION_LABEL = re.compile(r"^(?:[A-Za-z]+\.?\s+)?(?:\d+(?:\.\d+)*|[IVXLCDM]+|[A-Z])\.?$")
_TYPED_PART = re.compile(
    r"(?P<number>[IVXLC]{1,6})\.\t\s*(?P<title>[A-Z][A-Z0-9 ,&'’/\-]{1,60})"
)
"""A part typed in a body paragraph: a Roman number, a tab and a title in capitals."""
#: A point's label typed before its text: "a. ", "(a) ", "b) ", "(iv) ".
_POINT_LABEL = re.compile(r"^\s*(?:[a-z]\.|\(?[a-z]{1,4}\)|\([A-Z0-9]{1,4}\))[ \t\u00a0]+(?=\S)")
_PLAIN_RUN_IN = re.compile(r"^(?P<title>[A-Z][^.:;!?]{0,99}?)[.:]\s+(?=\S)")
_TRAILING_PUNCTUATION = " \t.:;,—–-"


# --------------------------------------------------------------------------- runs


@dataclass(frozen=True)
class _Span:
    text: str
    bold: bool = False
    italic: bool = False
    underline: bool = False


_CONTAINERS = frozenset(
    w(tag)
    for tag in (
        "hyperlink",
        "ins",
        "smartTag",
        "sdt",
        "sdtContent",
        "fldSimple",
        "customXml",
        "moveTo",
        "dir",
        "bdo",
    )
)
_RUN_TEXT = {w("t"): None, w("tab"): "\t", w("br"): "\n", w("cr"): "\n", w("noBreakHyphen"): "-"}


class Notes:
    """Footnotes and endnotes: a reference becomes ``[^n]`` (numbered in reading order,
    as Word numbers them) and the notes are written after the body as ``[^n]: text``."""

    def __init__(self, footnotes: Any, endnotes: Any) -> None:
        self._parts = {w("footnoteReference"): footnotes, w("endnoteReference"): endnotes}
        self.referenced: list[Any] = []

    def mark(self, reference: Any) -> str:
        part = self._parts.get(reference.tag)
        note_id = reference.get(w("id"))
        found = [] if part is None else part.xpath("w:*[@w:id=$i]", namespaces=_NS, i=note_id)
        if not found:
            return ""
        self.referenced.append(found[0])
        return f"[^{len(self.referenced)}]"


_NS = {"w": W_NS}
_NOTE_REFERENCES = frozenset({w("footnoteReference"), w("endnoteReference")})


def _spans(
    paragraph: Any, styles: Styles, style_id: str | None, notes: Notes | None = None
) -> list[_Span]:
    """The visible text runs of a paragraph with their emphasis; deletions,
    hidden text, field codes and text boxes are left out."""
    spans: list[_Span] = []
    for run in _runs(paragraph):
        rpr = run.find(w("rPr"))
        if on(rpr, "vanish"):
            continue
        char_style = val(rpr, "rStyle")

        def emphasis(
            tag: str, attribute: str, rpr: Any = rpr, char_style: Any = char_style
        ) -> bool:
            direct = on(rpr, tag)
            if direct is not None:
                return direct
            inherited = styles.first(char_style, attribute)
            return bool(inherited if inherited is not None else styles.first(style_id, attribute))

        text = "".join(
            _run_text(child, notes)
            for child in run
            if child.tag in _RUN_TEXT or child.tag in _NOTE_REFERENCES
        )
        if text:
            underline = val(rpr, "u")
            spans.append(
                _Span(
                    text,
                    emphasis("b", "bold"),
                    emphasis("i", "italic"),
                    underline is not None and underline != "none",
                )
            )
    return spans


def _run_text(child: Any, notes: Notes | None) -> str:
    if child.tag in _NOTE_REFERENCES:
        return notes.mark(child) if notes is not None else ""
    shown = _RUN_TEXT[child.tag]
    return (child.text or "") if shown is None else shown


def _runs(element: Any) -> Iterator[Any]:
    for child in element:
        if child.tag == w("r"):
            yield child
        elif child.tag in _CONTAINERS:
            yield from _runs(child)


def _plain(spans: list[_Span]) -> str:
    return " ".join("".join(span.text for span in spans).split())


def _drop_chars(spans: list[_Span], count: int) -> list[_Span]:
    """``spans`` without their first ``count`` characters."""
    rest: list[_Span] = []
    for span in spans:
        if count >= len(span.text):
            count -= len(span.text)
            continue
        rest.append(replace(span, text=span.text[count:]))
        count = 0
    return rest


def _inline(spans: list[_Span]) -> str:
    """Markdown of a run of text: bold and italic kept, whitespace outside the markers."""
    merged: list[_Span] = []
    for span in spans:
        text = span.text.replace("\t", " ")
        if merged and (merged[-1].bold, merged[-1].italic) == (span.bold, span.italic):
            merged[-1] = replace(merged[-1], text=merged[-1].text + text)
        else:
            merged.append(replace(span, text=text))
    out = []
    for span in _whole_words(_label_unemphasised(merged)):
        core = span.text.strip()
        marker = ("**" if span.bold else "") + ("*" if span.italic else "")
        if not core or not marker:
            out.append(span.text)
            continue
        lead = span.text[: len(span.text) - len(span.text.lstrip())]
        tail = span.text[len(span.text.rstrip()) :]
        out.append(f"{lead}{marker}{core}{marker[::-1]}{tail}")
    text = "".join(out).strip()
    return "\\" + text if text.startswith("#") else text


def _label_unemphasised(spans: list[_Span]) -> list[_Span]:
    """A paragraph that opens with a point's label in the emphasis of its title ("**a.
    Copyright License.** You grant ...") keeps the label out of the markers, at the start
    of the line where points are read: "a. **Copyright License.** You grant ..."."""
    match = _POINT_LABEL.match(spans[0].text) if spans else None
    if match is None or not _emphasised(spans[0]):
        return spans
    label = _Span(match.group())
    return [label, replace(spans[0], text=spans[0].text[match.end() :]), *spans[1:]]


_WORD_END = re.compile(r"\w+$")
_WORD_START = re.compile(r"^\w+")


def _whole_words(spans: list[_Span]) -> list[_Span]:
    """Spans whose emphasis starts and ends at word bounds: a word Word formats in part
    (a bold run from its second letter, "S" + "**tandard Preferred Stock**") is given
    wholly to the emphasised run, so that no marker splits it ("S**tandard")."""
    out = list(spans)
    for i in range(len(out) - 1):
        left, right = out[i], out[i + 1]
        if _emphasised(left) == _emphasised(right):
            continue
        end, start = _WORD_END.search(left.text), _WORD_START.match(right.text)
        if not end or not start:
            continue
        if _emphasised(right):
            out[i] = replace(left, text=left.text[: end.start()])
            out[i + 1] = replace(right, text=end.group() + right.text)
        else:
            out[i] = replace(left, text=left.text + start.group())
            out[i + 1] = replace(right, text=right.text[start.end() :])
    return [span for span in out if span.text]


def _emphasised(span: _Span) -> bool:
    return span.bold or span.italic


# --------------------------------------------------------------------------- headings


def _title_like(text: str) -> bool:
    """A short title in title case: "Limitation of Liability", not "Each party shall"."""
    words = text.split()
    return (
        0 < len(words) <= _MAX_TITLE_WORDS
        and len(text) <= _MAX_TITLE_CHARS
        and words[0][0].isupper()
        and all(
            not word[0].isalpha() or word[0].isupper() or word in _SMALL_WORDS for word in words
        )
    )


def _starts_sentence(spans: list[_Span]) -> bool:
    text = "".join(span.text for span in spans).lstrip(" \t.:;—–-")
    return bool(text) and not text[0].islower()


def split_title(spans: list[_Span]) -> tuple[str, list[_Span]]:
    """A clause's title and the text after it.

    The title is a run-in lead in bold or underline ("**Fees.** Customer shall
    pay ..."), a short title-case lead ending in a full stop ("Limitation of
    Liability. Neither party ..."), or the whole paragraph when it is short and
    reads as a title. A bold lead followed by a lower-case word is a defined
    term ("**"Services"** means ..."), not a title. Otherwise the title is empty.
    """
    lead = _lead_count(spans)
    title = _plain(spans[:lead]).strip(_TRAILING_PUNCTUATION)
    rest = spans[lead:]
    if title and len(title) <= _MAX_TITLE_CHARS and _starts_sentence(rest):
        return title, _drop_chars(rest, _leading_punctuation(rest))
    plain = "".join(span.text for span in spans)
    match = _PLAIN_RUN_IN.match(plain.lstrip())
    if match and _title_like(match["title"]):
        skipped = len(plain) - len(plain.lstrip()) + match.end()
        return match["title"].strip(), _drop_chars(spans, skipped)
    whole = _plain(spans)
    if _title_like(whole.rstrip(".:")) or (
        len(whole) <= _MAX_TITLE_CHARS
        and whole
        and whole[-1] not in ".;,"
        and len(whole.split()) <= _MAX_TITLE_WORDS
    ):
        return whole.strip(_TRAILING_PUNCTUATION), []
    return "", spans


def is_empty_section_mark(paragraph: Any, ppr: Any) -> bool:
    """A paragraph with no text that carries a section break (``w:sectPr`` in its
    ``w:pPr``): Word shows it as the break, not as a paragraph, so a numbered heading
    style on it neither shows nor uses a number (templates leave a blank Heading 1 there)."""
    if ppr is None or ppr.find(w("sectPr")) is None:
        return False
    return not "".join(t.text or "" for t in paragraph.iter(w("t"))).strip()


def written_label(spans: list[_Span]) -> tuple[str, list[_Span]]:
    """The number a heading writes in its text and the text after it.

    "SEC. 2. REPORT ON ..." and "§ 1004.1 Authority, purpose, and scope." keep
    "SEC. 2." and "§ 1004.1" as their label, as a list number would be, so the
    title is what follows and not "SEC"; no written number gives ``("", spans)``.
    """
    plain = "".join(span.text for span in spans)
    match = HEADING_KIND.match(plain)
    if match is None:
        return "", spans
    end = match.end() + (plain[match.end() : match.end() + 1] == ".")
    label = " ".join(plain[:end].split())
    rest = _drop_chars(spans, end)
    return label, _drop_chars(rest, _leading_punctuation(rest))


def _short_run_in(spans: list[_Span]) -> tuple[str, list[_Span]]:
    """A run-in title of a few words in any case or language ("Schranken des
    Immaterialgüterrechts. Diese Lizenz ...") and the text after it, or ``("", spans)``."""
    raw = "".join(span.text for span in spans)
    match = _PLAIN_RUN_IN.match(raw)
    if match is None or len(match["title"].split()) > _MAX_TITLE_WORDS:
        return "", spans
    return match["title"].strip(), _drop_chars(spans, match.end())


def _lead_count(spans: list[_Span]) -> int:
    """How many spans open the paragraph in bold or underline."""
    lead = 0
    while lead < len(spans) and (
        spans[lead].bold or spans[lead].underline or not spans[lead].text.strip()
    ):
        lead += 1
    return lead


def emphasised_title(spans: list[_Span]) -> bool:
    """The paragraph opens with a title in bold or underline, alone or run in."""
    lead = _lead_count(spans)
    title, rest = _plain(spans[:lead]), spans[lead:]
    return (
        bool(title)
        and len(title) <= _MAX_TITLE_CHARS
        and (not _plain(rest) or _starts_sentence(rest))
    )


def _emphasised_lead(spans: list[_Span]) -> str:
    """The words that open the paragraph in bold, italics or underline, without the
    punctuation around them: "DEFINITIONS" of "**1 DEFINITIONS**."."""
    lead = 0
    while lead < len(spans) and (
        _emphasised(spans[lead])
        or spans[lead].underline
        or not spans[lead].text.strip(_TRAILING_PUNCTUATION)
    ):
        lead += 1
    return _plain(spans[:lead]).strip(_TRAILING_PUNCTUATION)


def _leading_punctuation(spans: list[_Span]) -> int:
    text = "".join(span.text for span in spans)
    return len(text) - len(text.lstrip(" \t.:;—–-"))


# --------------------------------------------------------------------------- document


class _Writer:
    """Markdown blocks of a document body, numbering counted in reading order."""

    def __init__(
        self,
        styles: Styles,
        numbering: Numbering,
        notes: Notes | None = None,
        lines: PrintedLines | None = None,
    ) -> None:
        self._styles = styles
        self._numbering = numbering
        self._notes = notes
        self._lines = lines or PrintedLines([])
        #: The clause numbers typed in the text so far ("## 1. Definitions", "2.1 ...").
        self._typed = TypedOutline()
        #: How many part headings typed with a Roman number ("I.<tab>DEFINITIONS") so far.
        self._parts = 0

    def notes(self) -> list[str]:
        """``[^n]: text`` for each note referenced so far, in order."""
        if self._notes is None:
            return []
        lines = []
        for number, note in enumerate(self._notes.referenced, start=1):
            paragraphs = (_spans(p, self._styles, val(p.find(w("pPr")), "pStyle")) for p in note)
            text = " ".join(" ".join(_inline(spans).split()) for spans in paragraphs if spans)
            lines.append(f"[^{number}]: {text}")
        return lines

    def blocks(self, container: Any) -> Iterator[str]:
        for child, *lines in self._lines.groups(list(container)):
            if child.tag == w("p"):
                yield from self.paragraph(child, lines)
            elif child.tag == w("tbl"):
                yield from self.table(child)
            elif child.tag in _CONTAINERS:
                yield from self.blocks(child)

    def paragraph(self, paragraph: Any, lines: list[Any] | None = None) -> list[str]:
        """Markdown blocks of a paragraph; ``lines`` are paragraphs that continue it
        (printed lines of one paragraph, :mod:`~hierdoc.pipeline.docx_lines`)."""
        ppr = paragraph.find(w("pPr"))
        style_id = val(ppr, "pStyle")
        name = self._styles.name(style_id)
        if _TOC_STYLE.match(name) or is_empty_section_mark(paragraph, ppr):
            return []
        numbered = self._numbering.label(ppr, style_id)
        spans = _spans(paragraph, self._styles, style_id, self._notes)
        for line in lines or []:
            line_style = val(line.find(w("pPr")), "pStyle")
            spans += [_Span(" "), *_spans(line, self._styles, line_style, self._notes)]
        if numbered is not None and numbered.level.fmt == "bullet":
            return [f"- {_inline(spans)}"] if _plain(spans) else []
        if name.casefold() == "title" and _plain(spans):
            return [f"# {_plain(spans)}"]
        label = " ".join(numbered.text.split()) if numbered else ""
        # The list level decides a numbered heading's depth: real documents style
        # "1.1" and "1.2" of one list level as Heading 2 and Heading 3.
        # An item of a plain numbered list ("%1." only) is a clause only with a title in
        # bold or underline: "1. Name" stays text; "1. **Fees.** Customer ..." is clause 1.
        depth = self._outline_level(ppr, style_id, name)
        clause = depth is not None or (numbered is not None and numbered.outline)
        if numbered is not None and _SECTION_LABEL.match(label):
            clause = clause or emphasised_title(spans)
            depth = min(numbered.ilvl + 2, _MAX_HEADING_LEVEL) if clause else depth
        if depth is not None:
            lines = self._heading(depth, label, spans)
            self._note_typed_number(depth, lines[0])
            return lines
        if numbered is None and (part := self._typed_part(spans)):
            return part
        if numbered is None and (clause := self._typed_clause(spans) or self._first_typed(spans)):
            return clause
        text = " ".join(part for part in (label, _inline(spans)) if part)
        return [text] if text else []

    def _note_typed_number(self, depth: int, line: str) -> None:
        """Remember the number a heading shows ("## 1. Definitions" -> 1 at depth 2)."""
        if line.startswith("#"):
            self._typed.note_heading(depth, line.lstrip("#"))

    def _typed_clause(self, spans: list[_Span]) -> list[str] | None:
        """A body paragraph that types the next number of the outline typed so far
        (:class:`~hierdoc.pipeline.docx_typed.TypedOutline`): "2. Fair Use Rights. ..."
        after "## 1. Definitions", "2.1<tab>During the Term ..." after "2. LICENSE",
        "3 CONFIDENTIALITY. The terms ..." after "2.7". A clause of one number needs a
        title (a run-in sentence of a few words will do); one of more numbers is a
        clause without one, as a Word-numbered "2.1" is. A number out of sequence
        stays text."""
        number = typed_number("".join(span.text for span in spans))
        depth = None if number is None else self._typed.depth_after(number.parts)
        if number is None or depth is None:
            return None
        rest = _drop_chars(spans, number.end)
        rest = _drop_chars(rest, _leading_punctuation(rest))  # "1.1 - Subject to ..."
        title, body = split_title(rest)
        if not title and len(number.parts) == 1:
            title, body = _short_run_in(rest)
            if not title:
                return None
        self._typed.take(depth, number.parts)
        heading = " ".join(part for part in ("#" * depth, number.written, title) if part)
        return [heading, _inline(body)] if _plain(body) else [heading]

    def _typed_part(self, spans: list[_Span]) -> list[str] | None:
        """A body paragraph that types a Roman number, a tab and a title in capitals
        ("I.<tab>DEFINITIONS", "II.<tab>TERMS" in the Normal style): a part heading, when
        its number comes next after the parts typed before it (I first)."""
        match = _TYPED_PART.fullmatch("".join(span.text for span in spans).strip())
        if match is None or roman_to_int(match["number"]) != self._parts + 1:
            return None
        self._parts += 1
        return [f"## {match['number']}. {' '.join(match['title'].split())}"]

    def _first_typed(self, spans: list[_Span]) -> list[str] | None:
        """A body paragraph of a typed "1" whose title is in bold, italics or underline
        ("**1.** ***Events***" in a SAFE, whose headings use no heading style; "**1
        DEFINITIONS**."; "**1. Fees.** The Customer ..."): clause 1, whose typed
        successors :meth:`_typed_clause` then finds."""
        number = typed_number("".join(span.text for span in spans))
        if self._typed.started or number is None or number.parts != (1,):
            return None
        rest = _drop_chars(spans, number.end)
        title, body = split_title(rest)
        if not title or len(title.split()) > _MAX_TITLE_WORDS or _emphasised_lead(rest) != title:
            return None
        self._typed.take(2, number.parts)
        heading = f"## {number.written} {title}"
        return [heading, _inline(body)] if _plain(body) else [heading]

    def _outline_level(self, ppr: Any, style_id: str | None, name: str) -> int | None:
        """Markdown level of a Word heading: Heading 1 (outline level 0) is ``##``; a
        template's own heading style for an appendix or annex ("Heading Appendix") with no
        outline level is a Heading 1 ("Appendix A – Acronyms")."""
        if match := _HEADING_STYLE.match(name):
            return min(int(match.group(1)) + 1, _MAX_HEADING_LEVEL)
        outline = val(ppr, "outlineLvl")
        level = int(outline) if outline and outline.isdigit() else None
        if level is None:
            level = self._styles.first(style_id, "outline")
        if level is None and _NAMED_HEADING_STYLE.match(name):
            return _BLOCK_HEADING_LEVEL
        return min(level + 2, _MAX_HEADING_LEVEL) if level is not None and level < 9 else None

    @staticmethod
    def _heading(depth: int, label: str, spans: list[_Span]) -> list[str]:
        if not label:
            written, after = written_label(spans)
            if written:
                return _Writer._written_heading(depth, written, after)
        title, rest = split_title(spans)
        if not title and not label:
            return [_inline(spans)]
        multi_level = bool(re.search(r"\d\.\d|^[A-Za-z]+\s", label))
        if not title and not multi_level:
            return [f"{label} {_inline(spans)}"]
        heading = " ".join(part for part in (label, title) if part)
        body = _inline(rest)
        return [f"{'#' * depth} {heading}", body] if body else [f"{'#' * depth} {heading}"]

    @staticmethod
    def _written_heading(depth: int, label: str, spans: list[_Span]) -> list[str]:
        """A Word heading that writes its number ("SEC. 2. REPORT ON ..."): a heading
        even without a run-in title; the whole text is its title when it is short."""
        title, rest = split_title(spans)
        whole = _plain(spans)
        if not title and len(whole) <= _MAX_WRITTEN_TITLE_CHARS:
            title, rest = whole.strip(_TRAILING_PUNCTUATION), []
        heading = " ".join(part for part in (label, title) if part)
        body = _inline(rest)
        return [f"{'#' * depth} {heading}", body] if body else [f"{'#' * depth} {heading}"]

    def table(self, table: Any) -> list[str]:
        """Pipe tables; a row holding only an annex or schedule title ("**Annex I(A)
        List of Parties**", the rest empty) is a heading that splits the table."""
        rows = [self._row(row) for row in table.iter(w("tr")) if _owner(row, "tbl") is table]
        rows = [row for row in rows if any(row)]
        width = max((len(row) for row in rows), default=0)
        blocks: list[str] = []
        part: list[list[str]] = []
        for row in rows:
            title = plain_heading(row[0]) if not any(row[1:]) else ""
            if _BLOCK_TITLE.match(title):
                blocks += [_pipe_table(part, width), f"## {title}"]
                part = []
            else:
                part.append(row)
        return [block for block in (*blocks, _pipe_table(part, width)) if block]

    def _row(self, row: Any) -> list[str]:
        cells: list[str] = []
        for cell in row.findall(w("tc")):
            tcpr = cell.find(w("tcPr"))
            merge = None if tcpr is None else tcpr.find(w("vMerge"))
            text = " ".join(
                re.sub(r"^#+\s+", "", block).replace("\n", " ")
                for block in self.blocks(cell)
                if block.strip()
            )
            if merge is not None and merge.get(w("val")) != "restart":
                text = ""
            span = val(tcpr, "gridSpan")
            cells.append(text.replace("|", "\\|"))
            cells += [""] * (int(span) - 1 if span and span.isdigit() else 0)
        return cells


def _owner(element: Any, tag: str) -> Any:
    """The nearest ancestor of ``element`` with ``tag``."""
    parent = element.getparent()
    while parent is not None and parent.tag != w(tag):
        parent = parent.getparent()
    return parent


def _pipe_table(rows: list[list[str]], width: int) -> str:
    if not rows:
        return ""
    rows = [row + [""] * (width - len(row)) for row in rows]
    lines = [_table_line(rows[0]), _table_line(["---"] * width)]
    return "\n".join(lines + [_table_line(row) for row in rows[1:]])


def _table_line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


# --------------------------------------------------------------------------- entry point


def docx_to_markdown(path: Path) -> str:
    """Markdown of a .docx file with Word's numbering rendered.

    Raises :class:`~hierdoc.pipeline.convert.ConversionError` naming why a file
    cannot be read (``OSError`` passes through for the caller to word).
    """
    document = open_docx(path)
    part = document.part
    styles = Styles(related_root(part, STYLES_REL))
    numbering = Numbering(related_root(part, NUMBERING_REL), styles)
    notes = Notes(related_root(part, FOOTNOTES_REL), related_root(part, ENDNOTES_REL))
    body = document.element.body
    writer = _Writer(styles, numbering, notes, PrintedLines(body.findall(w("p"))))
    blocks = [b for b in writer.blocks(body) if b.strip()]
    footnotes = "\n".join(writer.notes())
    blocks += ["## Notes", footnotes] if footnotes else []
    return "\n\n".join(blocks) + "\n" if blocks else ""
