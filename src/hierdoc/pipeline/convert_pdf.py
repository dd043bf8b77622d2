"""Structured PDF conversion with pypdfium2: reading order, clean pages, headings, page starts.

markitdown reads PDFs with pdfminer, which is slow (~6.5 s per 100 pages here),
interleaves table cells line by line and keeps running headers and footers.
This converter reads characters and their boxes from PDFium (Apache-2.0/BSD, via
pypdfium2) and rebuilds the text itself:

1. characters to *segments*: runs on one baseline, split at gaps wider than a
   column gutter (a short run such as a bullet or "SEC. 2." keeps its text);
   rotated text (margin stamps) is left out; a drop capital joins its word;
2. running headers and footers: a row at the top or bottom edge of a page whose
   text, digits and the order of its parts aside, recurs at the edges of many pages
   (or of three pages in a row, a chapter's head) more often than in the pages'
   body, and bare page numbers, are dropped; words split at an fi, fl or ff
   ligature are joined where the document spells them whole;
3. segments to blocks, tables to rows (cell by cell), blocks in reading order with
   footnotes after the columns (:mod:`.pdf_layout`);
4. headings from font size and weight, kept by their numbering for the structure
   parser ("SEC. 2." stays "SEC. 2." and becomes ``section-2``); bullet lines and lone
   letters are none; a table of contents stays out of the structure
   (:mod:`.pdf_headings`);
5. a word hyphenated at a line end is joined when the next line goes on in
   lower case.

Each PDF line stays a line of text (numbered paragraphs must start lines for
the structure parser); blocks are separated by a blank line. ``page_starts``
records where each physical page's text starts.
"""

from __future__ import annotations

import ctypes
import math
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .pdf_columns import gutters, join_in_columns, join_spread_lines, text_gutters
from .pdf_headings import body_size, mark_contents, mark_headings
from .pdf_layout import (
    Block,
    Page,
    Segment,
    block_text,
    build_blocks,
    definition_item,
    footnotes_last,
    join_drop_capitals,
    join_hyphens,
    reading_order,
    row_text,
    table_rows,
)
from .pdf_margins import title_margin_notes

_GUTTER = 0.9
"""A gap wider than this many line heights ends a segment (a column gutter, a table column)."""
_SHORT_GAP = 3.0
"""... unless the segment so far is a short label (bullet, "(a)", "SEC. 2."): then this many."""
_SHORT_CHARS = 5
_LABEL_RUN = re.compile(
    r"(?i:section|sec\.|article|art\.|clause|rule|§)\s*(?:\d+[A-Za-z]?(?:\.\d+)*|[IVXLC]+)[.:]?"
    r"(?:\s+[A-Z][^.:;!?]{0,80}[.:])?"
)
"""... or a clause's label, with its run-in title or not: "Section 2." set apart from its
title ("Number and Tenure of Office. The Board ..."), which goes on below from the margin,
and "Section 2. Restrictions on Activities." set apart from the text after it."""
_SPACE_GAP = 0.2
"""A gap of this many line heights between two characters is a space even if PDFium gave none."""
_EDGE = 0.12
"""Running headers and footers sit in this fraction of the page at its top or bottom."""
_EDGE_ROWS = 2
_REPEAT_SHARE = 0.2
_REPEAT_MIN_PAGES = 3
"""An edge row is running when its text is on this share of the pages (and this many), or
on this many pages in a row (a chapter's running head)."""
_ROTATED = 0.1
_BOLD_WEIGHT = 600
_BOLD_NAME = re.compile(r"bold|black|heavy|demi|semibold|-bd\b|,b\b", re.IGNORECASE)
_PAGE_NUMBER = re.compile(
    r"^(?:page\s*)?[-–—(\[]?\s*(?:#+|[ivxlc]+)\s*[-–—)\]]?(?:\s*(?:of|/)\s*#+)?$", re.IGNORECASE
)
_DIGITS = re.compile(r"\d+")
_LIGATURES = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
     "\ufffe": "-", "\u00ad": "-", "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " "}
)  # fmt: skip
_SPACING_ACCENTS = {
    "\u02c6": "\u0302", "\u02dc": "\u0303", "\u00b8": "\u0327", "\u00a8": "\u0308",
    "\u00b4": "\u0301", "\u02c7": "\u030c", "\u02da": "\u030a", "\u02d8": "\u0306",
}  # fmt: skip
_HYPHENATED = re.compile(r"[^\W\d_]-$")
"""A line ending in a hyphen after a letter goes on at the next ("Soekarno-" "Hatta")."""
_SENTENCE_END = (".", ":", ";", "!", "?", ")", '"', "”")


@dataclass(frozen=True)
class PdfText:
    """A PDF's text in reading order and where each physical page starts in it."""

    text: str
    page_starts: tuple[int, ...]


def convert_pdf(path: Path) -> PdfText:
    """Read ``path`` into structured text; raise ConversionError when it cannot be read."""
    import pypdfium2

    from .convert import ConversionError

    try:
        document = pypdfium2.PdfDocument(str(path))
    except pypdfium2.PdfiumError as exc:
        raise ConversionError(_load_reason(exc)) from exc
    try:
        pages = [_read_page(document, number) for number in range(len(document))]
    except pypdfium2.PdfiumError as exc:
        raise ConversionError(f"cannot read PDF: damaged file ({exc})") from exc
    finally:
        document.close()
    _drop_running_lines(pages)
    for page in pages:
        _join_in_columns(page)
    repair_split_words(pages)
    body = body_size(pages)
    for page in pages:
        blocks = join_drop_capitals(build_blocks(page.segments))
        ordered = reading_order(table_rows(blocks, page.gutters), page.figures)
        page.blocks = footnotes_last(ordered, body)
    mark_headings(pages, body)
    title_margin_notes(pages, body)
    mark_contents(pages, body)
    text, starts = _assemble(pages)
    return PdfText(text, starts)


def _join_in_columns(page: Page) -> None:
    """Record the gutters between the page's columns of running text and join the
    justified lines spread across a column (:mod:`.pdf_columns`), once the running heads
    and feet are gone (their parts recur as they are). A table's gutters on a page of one
    column join nothing: its cells stay apart. On a page of one column and no table, a
    justified line spread beside a full line of its paragraph is joined."""
    rows = _rows(page.segments)
    found = gutters(rows)
    page.gutters = text_gutters(rows, found)
    if page.gutters:
        rows = join_in_columns(rows, page.gutters)
        page.segments = [segment for row in rows for segment in row]
    else:
        rows = join_spread_lines(rows, found)
        page.segments = [segment for row in rows for segment in row]


def _load_reason(exc: Exception) -> str:
    import pypdfium2.raw as pdfium_c

    code = getattr(exc, "err_code", None)
    if code == pdfium_c.FPDF_ERR_PASSWORD:
        return "cannot read PDF: encrypted (a password is needed to open it)"
    if code == pdfium_c.FPDF_ERR_SECURITY:
        return "cannot read PDF: unsupported security handler"
    if code == pdfium_c.FPDF_ERR_FORMAT:
        return "cannot read PDF: damaged or not a PDF (format error)"
    return f"cannot read PDF: {exc}"


def _read_page(document: object, number: int) -> Page:
    page = document[number]  # type: ignore[index]
    height = page.get_height()
    textpage = page.get_textpage()
    figures: list[tuple[float, float, float, float]] = []
    try:
        text = textpage.get_text_range()
        if page.get_rotation() % 360:
            segments = _plain_lines(text, height)
        else:
            segments = _segments(textpage.raw, text, height)
            figures = _figures(page, height)
    finally:
        textpage.close()
        page.close()
    return Page(segments, height, figures=figures)


def _figures(page: object, height: float) -> list[tuple[float, float, float, float]]:
    """The page's images (top-level objects) as (x0, x1, top, bottom), top-down like the
    text; read through PDFium's C calls, as wrapping every page object costs more."""
    import pypdfium2.raw as pdfium_c

    raw = page.raw  # type: ignore[attr-defined]
    edges = [ctypes.c_float() for _ in range(4)]
    boxes = []
    for index in range(pdfium_c.FPDFPage_CountObjects(raw)):
        item = pdfium_c.FPDFPage_GetObject(raw, index)
        if pdfium_c.FPDFPageObj_GetType(item) != pdfium_c.FPDF_PAGEOBJ_IMAGE:
            continue
        if pdfium_c.FPDFPageObj_GetBounds(item, *(ctypes.byref(e) for e in edges)):
            left, bottom, right, top = (e.value for e in edges)
            boxes.append((left, right, height - top, height - bottom))
    return boxes


def _plain_lines(text: str, height: float) -> list[Segment]:
    """A rotated page (a landscape table turned with /Rotate) in PDFium's own line order:
    its character boxes are not in reading direction, so no layout is rebuilt from them.
    The lines are stacked as one block in the middle of the page, away from the edges."""
    lines = [" ".join(line.split()) for line in text.translate(_LIGATURES).splitlines()]
    return [
        Segment(line, 0.0, 1.0, height / 2 + n, height / 2 + n + 0.9, 0, 0, 1.0)
        for n, line in enumerate(line for line in lines if line)
    ]


def _segments(textpage: object, text: str, height: float) -> list[Segment]:
    """The page's characters grouped into segments (PDFium's text order, rotated text dropped).

    The boxes are read in one pass; where a segment breaks is decided on arrays, comparing
    each character with the one before it: on the same line (half its height shared), not
    going back, and no gap wider than a gutter (wider than a label's gap after a short run).
    """
    import pypdfium2.raw as pdfium_c

    count = pdfium_c.FPDFText_CountChars(textpage)
    if len(text) != count:
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage, i) or 32) for i in range(count))
    text = text.translate(_LIGATURES)
    chars, accents = _attach_accents(text, [i for i in range(count) if not text[i].isspace()])
    if not chars:
        return []
    box = pdfium_c.FS_RECTF()
    box_ref = ctypes.byref(box)
    loose_box = pdfium_c.FPDFText_GetLooseCharBox
    flat: list[float] = []
    for index in chars:
        loose_box(textpage, index, box_ref)
        flat += (box.left, box.right, height - box.top, height - box.bottom)
    x0, x1, top, bottom = np.array(flat, dtype=np.float64).reshape(-1, 4).T
    share_ligature_boxes("".join(text[c] for c in chars), x0, x1)
    spaced = np.array([i > 0 and text[i - 1].isspace() for i in chars])
    gap_before = np.concatenate(([0.0], x0[1:] - x1[:-1]))
    spaced |= gap_before > _SPACE_GAP * np.maximum(np.roll(bottom - top, 1), 1e-3)
    _unspace_drop_capitals(spaced, text, chars, bottom - top)
    starts, wide = _breaks(x0, x1, top, bottom)
    heights = (bottom - top).tolist()
    angle_of = pdfium_c.FPDFText_GetCharAngle
    segments: list[Segment] = []
    pieces = [
        (" " if spaced[n] else "") + text[c] + accents.get(c, "") for n, c in enumerate(chars)
    ]
    bounds = [*starts, len(chars)]
    for begin, end in zip(bounds, bounds[1:], strict=False):
        if segments and wide[begin] and _short_label(segments[-1].text):
            _extend(segments[-1], pieces, x0, x1, top, bottom, begin, end, chars)
            continue
        if _ROTATED < angle_of(textpage, chars[begin]) < 2 * math.pi - _ROTATED:
            continue
        segments.append(
            Segment(
                unicodedata.normalize("NFC", "".join(pieces[begin:end]).lstrip()),
                float(x0[begin:end].min()),
                float(x1[begin:end].max()),
                float(top[begin:end].min()),
                float(bottom[begin:end].max()),
                chars[begin],
                chars[end - 1],
                _font_size(heights[begin:end]),
            )
        )
    _add_weights(textpage, segments)
    return _join_justified(segments)


LIGATURE_LETTERS = frozenset({"ff", "fi", "fl", "ffi", "ffl", "ft", "fj", "st"})
"""The letters one ligature glyph stands for."""


def share_ligature_boxes(letters: str, x0: np.ndarray, x1: np.ndarray) -> None:
    """Give the letters of one ligature glyph equal shares of its box, in place.

    PDFium reports each letter of an "fi" or "ffi" glyph with the glyph's whole box: the
    second letter starts where the first does, reads as going back, and would break the
    line there ("Qualif" and "ications" on two segments, set apart). ``letters`` holds one
    character per box."""
    same = ((x0[1:] == x0[:-1]) & (x1[1:] == x1[:-1]) & (x1[1:] > x0[1:])).tolist()
    start = 0
    while start < len(same):
        end = start
        while end < len(same) and same[end]:
            end += 1
        if end > start and letters[start : end + 1].lower() in LIGATURE_LETTERS:
            width = (x1[start] - x0[start]) / (end - start + 1)
            left = x0[start]
            for n in range(start, end + 1):
                x0[n] = left + width * (n - start)
                x1[n] = x0[n] + width
        start = end + 1


def _short_label(text: str) -> bool:
    """A run kept with the text a gutter-wide gap after it: a bullet, "(a)", "SEC. 2.",
    "Section 2."."""
    return len(text) <= _SHORT_CHARS or _LABEL_RUN.fullmatch(text.strip()) is not None


def _unspace_drop_capitals(
    spaced: np.ndarray, text: str, chars: list[int], heights: np.ndarray
) -> None:
    """No space after a drop capital: a capital letter at least twice as tall as the
    lower-case letter after it that starts a word ("T" "he" is "The")."""
    for n in (np.flatnonzero(heights[:-1] >= 2 * heights[1:]) + 1).tolist():
        capital, after = text[chars[n - 1]], text[chars[n]]
        starts_word = chars[n - 1] == 0 or not text[chars[n - 1] - 1].isalpha()
        if capital.isupper() and after.islower() and starts_word:
            spaced[n] = False


def _attach_accents(text: str, chars: list[int]) -> tuple[list[int], dict[int, str]]:
    """Spacing accents set after their letter, as the Federal Register's typesetting
    gives them ("Aviac¸a˜o"), become combining marks on it ("Aviação"); their boxes,
    drawn back over the letter, would otherwise break the line. Returns the characters
    kept and the marks by the index of their letter."""
    kept: list[int] = []
    marks: dict[int, str] = {}
    if not any(accent in text for accent in _SPACING_ACCENTS):
        return chars, marks
    for index in chars:
        mark = _SPACING_ACCENTS.get(text[index])
        if mark and kept and kept[-1] == index - 1 and text[index - 1].isalpha():
            marks[index - 1] = marks.get(index - 1, "") + mark
        else:
            kept.append(index)
    return kept, marks


def _font_size(heights: list[float]) -> float:
    """A segment's font size: the middle height of its loose character boxes, to half a
    point, so that a superscript footnote mark, a bullet or a small-caps word at the start
    of a line does not give the whole line its size."""
    return round(sorted(heights)[len(heights) // 2] * 2) / 2


def _breaks(
    x0: np.ndarray, x1: np.ndarray, top: np.ndarray, bottom: np.ndarray
) -> tuple[list[int], np.ndarray]:
    """Where segments start, and which of those starts is only a gutter-wide gap (kept
    together with a short run before it, such as a bullet or "SEC. 2.")."""
    height = np.maximum(bottom - top, 1e-3)
    previous_height = np.concatenate(([1.0], height[:-1]))
    overlap = np.minimum(bottom[1:], bottom[:-1]) - np.maximum(top[1:], top[:-1])
    same_line = overlap >= 0.5 * np.minimum(height[1:], height[:-1])
    gap = x0[1:] - x1[:-1]
    near = (gap >= -0.5 * previous_height[1:]) & (gap <= _SHORT_GAP * previous_height[1:])
    gutter = gap > _GUTTER * previous_height[1:]
    hard = ~(same_line & near)
    wide = np.concatenate(([False], ~hard & gutter))
    starts = np.flatnonzero(np.concatenate(([True], hard | gutter)))
    return starts.tolist(), wide


def _extend(
    segment: Segment,
    pieces: list[str],
    x0: np.ndarray,
    x1: np.ndarray,
    top: np.ndarray,
    bottom: np.ndarray,
    begin: int,
    end: int,
    chars: list[int],
) -> None:
    """Append characters ``begin:end`` to ``segment`` after a space."""
    segment.text += " " + unicodedata.normalize("NFC", "".join(pieces[begin:end]).lstrip())
    segment.x1 = max(segment.x1, float(x1[begin:end].max()))
    segment.top = min(segment.top, float(top[begin:end].min()))
    segment.bottom = max(segment.bottom, float(bottom[begin:end].max()))
    segment.last = chars[end - 1]


def _add_weights(textpage: object, segments: list[Segment]) -> None:
    """Whether each segment is bold, sampled at its first and last character."""
    import pypdfium2.raw as pdfium_c

    buffer = ctypes.create_string_buffer(256)
    flags = ctypes.c_int()

    def bold(index: int) -> bool:
        if pdfium_c.FPDFText_GetFontWeight(textpage, index) >= _BOLD_WEIGHT:
            return True
        size = pdfium_c.FPDFText_GetFontInfo(textpage, index, buffer, 256, ctypes.byref(flags))
        return 0 < size <= 256 and bool(_BOLD_NAME.search(buffer.value.decode("latin-1")))

    for segment in segments:
        segment.bold = bold(segment.first) and bold(segment.last)


_JUSTIFIED_GAP = 6.0
"""A gap between words of a justified line is at most this many line heights."""


def _join_justified(segments: list[Segment]) -> list[Segment]:
    """Segments of one line parted by gaps wider than a gutter are one line spread by
    justification ("records,      a written") when a line just above or below starts and
    ends where they start and end and runs on across every gap: two columns, table cells
    or a heading beside a paragraph have no such neighbour."""
    rows = _rows(segments)
    joined: list[Segment] = []
    for number, row in enumerate(rows):
        if len(row) == 1:
            joined += row
            continue
        near = [
            other
            for rows_near in rows[max(0, number - 1) : number + 2]
            if rows_near is not row and abs(rows_near[0].top - row[0].top) <= 2 * row[0].height
            for other in rows_near
        ]
        for chain in _spread_chains(sorted(row, key=lambda s: s.x0)):
            joined += _join_chain(chain, near)
    return joined


def _join_chain(chain: list[Segment], near: list[Segment]) -> list[Segment]:
    """The chain with each longest run that a neighbour justifies made one segment."""
    result: list[Segment] = []
    start = 0
    while start < len(chain):
        end = next(
            (
                end
                for end in range(len(chain), start + 1, -1)
                if any(_justified_by(other, chain[start:end]) for other in near)
            ),
            start + 1,
        )
        for segment in chain[start + 1 : end]:
            _append(chain[start], segment)
        result.append(chain[start])
        start = end
    return result


def _spread_chains(line: list[Segment]) -> list[list[Segment]]:
    """The line's segments in runs whose gaps are each at most a justified line's widest."""
    chains = [[line[0]]]
    for segment in line[1:]:
        last = chains[-1][-1]
        gap = segment.x0 - last.x1
        same_size = abs(last.size - segment.size) <= 0.5
        if same_size and gap <= _JUSTIFIED_GAP * min(last.height, segment.height):
            chains[-1].append(segment)
        else:
            chains.append([segment])
    return chains


def _justified_by(other: Segment, chain: list[Segment]) -> bool:
    margin = chain[0].height
    return (
        abs(other.x0 - chain[0].x0) <= margin
        and abs(other.x1 - chain[-1].x1) <= margin
        and all(other.x0 < s.x0 - margin and other.x1 > s.x0 + margin for s in chain[1:])
    )


def _append(segment: Segment, following: Segment) -> None:
    segment.text += " " + following.text
    segment.x1, segment.last = following.x1, following.last
    segment.top, segment.bottom = (
        min(segment.top, following.top),
        max(segment.bottom, following.bottom),
    )


def _rows(segments: list[Segment]) -> list[list[Segment]]:
    """Segments grouped into rows (vertically overlapping), top to bottom."""
    rows: list[list[Segment]] = []
    for segment in sorted(segments, key=lambda s: (s.top, s.x0)):
        middle = (segment.top + segment.bottom) / 2
        if rows and rows[-1][0].top <= middle <= rows[-1][0].bottom:
            rows[-1].append(segment)
        else:
            rows.append([segment])
    return rows


def _row_key(row: list[Segment]) -> str:
    """The row's text without case, digits or the order of its parts: a running head whose
    page number moves from right to left on even pages has one key."""
    parts = (" ".join(_DIGITS.sub("#", s.text.lower()).split()) for s in row)
    return " | ".join(sorted(parts))


def _edge_rows(page: Page) -> tuple[list[list[Segment]], list[list[Segment]]]:
    """The rows at most ``_EDGE_ROWS`` from the top or bottom, inside the edge bands, and
    the other rows of the page."""
    rows = _rows(page.segments)
    top = [r for r in rows[:_EDGE_ROWS] if r[0].bottom <= page.height * _EDGE]
    bottom = [r for r in rows[-_EDGE_ROWS:] if r[0].top >= page.height * (1 - _EDGE)]
    edges = top + [r for r in bottom if not any(r is t for t in top)]
    return edges, [r for r in rows if not any(r is e for e in edges)]


def _drop_running_lines(pages: list[Page]) -> None:
    """Remove running headers/footers and page numbers: edge rows whose text recurs at the
    edges of many pages and more often there than in the body of the pages (a list of
    "§ 1012.109 [Reserved]" headings, numbers aside, is body text that some pages happen to
    start with)."""
    split = [_edge_rows(page) for page in pages]
    edges = [[(row, _row_key(row)) for row in page_edges] for page_edges, _ in split]
    counts = Counter(key for page_edges in edges for key in {k for _, k in page_edges})
    needed = max(_REPEAT_MIN_PAGES, math.ceil(_REPEAT_SHARE * len(pages)))
    running = {key for key, count in counts.items() if count >= needed} | _in_a_row(edges)
    in_body = _body_counts(running, [row for p in edges for row, k in p if k in running], split)
    for page, page_edges in zip(pages, edges, strict=True):
        dropped = {
            id(segment)
            for row, key in page_edges
            if (key in running and counts[key] > in_body[key]) or _PAGE_NUMBER.match(key)
            for segment in row
        }
        page.segments = [s for s in page.segments if id(s) not in dropped]


def _in_a_row(edges: list[list[tuple[list[Segment], str]]]) -> set[str]:
    """The edge texts found on ``_REPEAT_MIN_PAGES`` pages in a row or more."""
    run: Counter[str] = Counter()
    found: set[str] = set()
    for page_edges in edges:
        keys = {key for _, key in page_edges}
        run = Counter({key: run[key] + 1 for key in keys})
        found |= {key for key, length in run.items() if length >= _REPEAT_MIN_PAGES}
    return found


def _body_counts(
    keys: set[str],
    edge_rows: list[list[Segment]],
    split: list[tuple[list[list[Segment]], list[list[Segment]]]],
) -> Counter[str]:
    """How often each of ``keys`` is the key of a row off the page edges. Only rows about
    as long as one of ``edge_rows`` are keyed (the key costs more than the length)."""
    found: Counter[str] = Counter()
    if not keys:
        return found
    lengths = {sum(len(s.text) for s in row) for row in edge_rows}
    near = {length + shift for length in lengths for shift in range(-3, 4)}
    for _, body in split:
        for row in body:
            if sum(len(s.text) for s in row) in near and (key := _row_key(row)) in keys:
                found[key] += 1
    return found


_LIGATURE_BREAK = re.compile(
    r"\b([^\W\d_]*f(?= [ifl])|[^\W\d_]*f[fil]|[^\W\d_]+(?= f[fil])) (?=([^\W\d_]+)\b)",
    re.IGNORECASE,
)
"""A word break on an fi, fl or ff: "Unif ied", "Unifi ed", "of fice" (the right word is
looked ahead, so that every pair of neighbours is seen)."""
_WORDS = re.compile(r"[^\W\d_]+")
_JUNCTION = re.compile(r"f[fil]? (?=[^\W\d_])| (?=f[fil])")
"""Where a word break may fall on a ligature (in lower-case text)."""


def repair_split_words(pages: list[Page]) -> None:
    """Words split at a ligature ("Unif ied", "of fice": an "fi", "fl" or "ff" glyph whose
    box or spacing the PDF gives wrongly) are joined where the whole word occurs elsewhere
    in the document and the split-off part occurs nowhere but in such splits."""
    segments = [segment for page in pages for segment in page.segments if " " in segment.text]
    lower = "\n".join(segment.text for segment in segments).lower()
    breaks = [(left, right) for left, right in _ligature_breaks(lower) if left + right in lower]
    if not breaks:  # no whole word anywhere in the text: nothing to repair
        return
    vocabulary = Counter(_WORDS.findall(lower))
    splits = Counter(right for left, right in breaks if left + right in vocabulary)

    def join(match: re.Match[str]) -> str:
        right = match.group(2).lower()
        split = splits[right] and vocabulary[right] <= splits[right]
        return match.group(1) if split else match.group(0)

    if splits:
        for segment in segments:
            segment.text = _LIGATURE_BREAK.sub(join, segment.text)


def _ligature_breaks(text: str) -> list[tuple[str, str]]:
    """The word pairs of ``text`` (lower case) parted by a space on an fi, fl or ff, found
    from the letters at the break with the words read outwards from it (quicker than
    :data:`_LIGATURE_BREAK`, tried at every word)."""
    pairs = []
    for match in _JUNCTION.finditer(text):
        space = match.end() - 1
        start = space
        while start and text[start - 1].isalpha():
            start -= 1
        right = _WORDS.match(text, space + 1)
        if start < space and right is not None and _at_ligature(text[start:space], right[0]):
            pairs.append((text[start:space], right[0]))
    return pairs


def _at_ligature(left: str, right: str) -> bool:
    """Whether a word break between ``left`` and ``right`` falls on an fi, fl or ff."""
    return (
        (left.endswith("f") and right[:1] in ("i", "l", "f"))
        or left.endswith(("fi", "fl", "ff"))
        or right.startswith(("fi", "fl", "ff"))
    )


def _assemble(pages: list[Page]) -> tuple[str, tuple[int, ...]]:
    """The document text and the offset where each page's text starts. A sentence that
    runs on from one page to the next is not cut by a blank line."""
    out: list[str] = []
    length = 0
    starts: list[int] = []
    previous = ""
    for page in pages:
        page_text = _page_text(page)
        if out:
            separator = "\n" if page_text and _runs_on(previous, page_text) else "\n\n"
            out.append(separator)
            length += len(separator)
        starts.append(length)
        out.append(page_text)
        length += len(page_text)
        previous = page_text or previous
    text = "".join(out).rstrip() + "\n"
    return text, tuple(min(start, len(text)) for start in starts)


def _page_text(page: Page) -> str:
    parts: list[str] = []
    previous: Block | None = None
    text_edges = (
        min((block.x0 for block in page.blocks), default=0.0),
        max((block.x1 for block in page.blocks), default=0.0),
    )
    for block in page.blocks:
        text = _block_markdown(block, _column(block, page.gutters, text_edges))
        if not text:
            continue
        if parts:
            same_table = bool(block.cells and previous is not None and previous.cells)
            if _runs_on(parts[-1], text):
                parts[-1], text = _rejoin(parts[-1], text)
            if text:
                runs_on = same_table or _runs_on(parts[-1], text)
                parts.append("\n" if runs_on else "\n\n")
        if text:
            parts.append(text)
        previous = block
    return "".join(parts)


def _rejoin(previous: str, text: str) -> tuple[str, str]:
    """A word hyphenated at the foot of a column, rejoined with its end at the next one's head."""
    head, newline, last = previous.rpartition("\n")
    first, break_, rest = text.partition("\n")
    last, first = join_hyphens([last, first])
    return head + newline + last, (first + break_ + rest if first else rest)


def _runs_on(previous: str, text: str) -> bool:
    """A block that goes on a sentence broken at a column's or page's end, not a new
    paragraph: the text before ends a line that is no heading, without a full stop, and
    this one starts in lower case or that line ends in a word's hyphen."""
    last_line = previous.rstrip().rpartition("\n")[2]
    return (
        bool(last_line)
        and not last_line.startswith("#")
        and not last_line.endswith(_SENTENCE_END)
        and (text[:1].islower() or _HYPHENATED.search(last_line) is not None)
    )


def _column(
    block: Block, gutters: list[tuple[float, float]], text_edges: tuple[float, float]
) -> tuple[float, float]:
    """The left and right edges of the text column holding ``block``: the gutters beside
    it, or the edges of the page's text."""
    left = max((end for _, end in gutters if end <= block.x0), default=text_edges[0])
    right = min((start for start, _ in gutters if start >= block.x0), default=text_edges[1])
    return left, right


def _block_markdown(block: Block, column: tuple[float, float]) -> str:
    if block.heading_level:
        return "#" * block.heading_level + " " + block_text(block, " ")
    return _LINE_HASH.sub(r"\\", _body_markdown(block, column))


_LINE_HASH = re.compile(r"(?m)^(?=#)")
"""A line of text or a table row opening with "#" (a requirement table's column headed
"#": "# Description | L1 L2 L3") is escaped: only the headings found are Markdown's."""


def _body_markdown(block: Block, column: tuple[float, float]) -> str:
    if block.cells:
        return row_text(block.cells)
    if definition_item(block, column):
        term, definition = Block(block.lines[:1]), Block(block.lines[1:])
        return block_text(term, " ") + "\n:   " + block_text(definition, "\n")
    return block_text(block, "\n")
