"""Structured PDF conversion with pypdfium2: reading order, clean pages, headings, page starts.

markitdown reads PDFs with pdfminer, which is slow (~6.5 s per 100 pages here),
interleaves table cells line by line and keeps running headers and footers.
This converter reads characters and their boxes from PDFium (Apache-2.0/BSD, via
pypdfium2) and rebuilds the text itself:

1. characters to *segments*: runs on one baseline, split at gaps wider than a
   column gutter (a short run such as a bullet or "SEC. 2." keeps its text);
2. running headers and footers: a row at the top or bottom edge of a page whose
   text, digits aside, recurs on many pages, and bare page numbers, are dropped;
3. segments to *blocks*: lines stacked closely, overlapping horizontally, in
   the same font size and weight (a paragraph, a table cell, a heading);
4. blocks in reading order, as in Breuel's layout analysis (2003): a block
   comes before the blocks below it that it overlaps horizontally, and before
   the blocks to its right unless a block spanning both lies between them, so
   columns are read one after the other and a full-width title first;
5. a short block in a larger font, or wholly bold, becomes a Markdown heading
   (level by size); a numbered one ("SEC. 2.", "Article 4", "8.2.3") stays a
   plain line for the structure parser, which reads numbering itself;
6. a word hyphenated at a line end is joined when the next line goes on in
   lower case.

Each PDF line stays a line of text (numbered paragraphs must start lines for
the structure parser); blocks are separated by a blank line. ``page_starts``
records where each physical page's text starts.
"""

from __future__ import annotations

import ctypes
import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .numbering import HEADING_OUTLINE, parse_heading

_GUTTER = 0.9
"""A gap wider than this many line heights ends a segment (a column gutter, a table column)."""
_SHORT_GAP = 3.0
"""... unless the segment so far is a short label (bullet, "(a)", "SEC. 2."): then this many."""
_SHORT_CHARS = 5
_SPACE_GAP = 0.2
"""A gap of this many line heights between two characters is a space even if PDFium gave none."""
_LINE_GAP = 0.8
"""Lines of one block are at most this many line heights apart."""
_EDGE = 0.12
"""Running headers and footers sit in this fraction of the page at its top or bottom."""
_EDGE_ROWS = 2
_REPEAT_SHARE = 0.2
_REPEAT_MIN_PAGES = 3
_HEADING_SCALE = 1.15
_FOOTNOTE_SCALE = 0.9
_HEADING_MAX_CHARS = 150
_HEADING_MAX_LINES = 3
_MAX_LEVEL = 4
_CONTENTS_MIN_ENTRIES = 3
_LEADER = re.compile(r"(?:\s*[.·…_]{2,}\s*\d{0,4}|\s+\d{1,4})\s*$")
_ORDER_MAX_BLOCKS = 400
_ROTATED = 0.1
_BOLD_WEIGHT = 600
_BOLD_NAME = re.compile(r"bold|black|heavy|demi|semibold|-bd\b|,b\b", re.IGNORECASE)
_PAGE_NUMBER = re.compile(
    r"^(?:page\s*)?[-–—(\[]?\s*(?:#+|[ivxlc]+)\s*[-–—)\]]?(?:\s*(?:of|/)\s*#+)?$", re.IGNORECASE
)
_DIGITS = re.compile(r"\d+")
_ENUMERATOR = re.compile(r"^\s*(?:\([0-9A-Za-z]{1,5}\)|[0-9A-Za-z]{1,3}[.)])\s")
_LIGATURES = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
     "\ufffe": "-", "\u00ad": "-", "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " "}
)  # fmt: skip
_KEEP_HYPHEN = frozenset(
    [
        "self",
        "non",
        "co",
        "cross",
        "well",
        "multi",
        "sub",
        "pre",
        "post",
        "anti",
        "semi",
        "ex",
        "all",
        "high",
        "low",
        "long",
        "short",
        "third",
        "first",
        "real",
        "open",
        "end",
        "user",
        "machine",
        "human",
        "cyber",
    ]
)
_SENTENCE_END = (".", ":", ";", "!", "?", ")", '"', "”")


@dataclass(frozen=True)
class PdfText:
    """A PDF's text in reading order and where each physical page starts in it."""

    text: str
    page_starts: tuple[int, ...]


@dataclass
class _Segment:
    """Characters on one baseline without a wide gap, in top-down page coordinates."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    first: int
    last: int
    size: float = 0.0
    bold: bool = False
    contents: bool = False
    """A table-of-contents entry: the text of a heading that comes on a later page."""

    @property
    def height(self) -> float:
        return max(self.bottom - self.top, 1e-3)


@dataclass
class _Block:
    lines: list[_Segment] = field(default_factory=list)
    heading_level: int = 0
    cells: list[_Block] = field(default_factory=list)
    """For a table row: its cells, left to right."""

    @property
    def x0(self) -> float:
        return min(s.x0 for s in self.lines)

    @property
    def x1(self) -> float:
        return max(s.x1 for s in self.lines)

    @property
    def top(self) -> float:
        return min(s.top for s in self.lines)

    @property
    def bottom(self) -> float:
        return max(s.bottom for s in self.lines)


@dataclass
class _Page:
    segments: list[_Segment]
    height: float
    blocks: list[_Block] = field(default_factory=list)


# --------------------------------------------------------------------------- public API


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
    body = _body_size(pages)
    for page in pages:
        ordered = _reading_order(_table_rows(_blocks(page.segments)))
        page.blocks = _footnotes_last(ordered, body)
    _mark_headings(pages, body)
    _mark_contents(pages, body)
    text, starts = _assemble(pages)
    return PdfText(text, starts)


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


# --------------------------------------------------------------------------- characters


def _read_page(document: object, number: int) -> _Page:
    page = document[number]  # type: ignore[index]
    height = page.get_height()
    textpage = page.get_textpage()
    try:
        segments = _segments(textpage.raw, textpage.get_text_range(), height)
    finally:
        textpage.close()
        page.close()
    return _Page(segments, height)


def _segments(textpage: object, text: str, height: float) -> list[_Segment]:
    """The page's characters grouped into segments (PDFium's text order, rotated text dropped)."""
    import pypdfium2.raw as pdfium_c

    count = pdfium_c.FPDFText_CountChars(textpage)
    if len(text) != count:
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage, i) or 32) for i in range(count))
    text = text.translate(_LIGATURES) if len(text) == count else text
    box = pdfium_c.FS_RECTF()
    box_ref = ctypes.byref(box)
    loose_box = pdfium_c.FPDFText_GetLooseCharBox
    angle_of = pdfium_c.FPDFText_GetCharAngle
    segments: list[_Segment] = []
    current: _Segment | None = None
    parts: list[str] = []
    space = False
    rotated = False
    for index in range(count):
        char = text[index]
        if char.isspace():
            space = True
            continue
        loose_box(textpage, index, box_ref)
        x0, x1, top, bottom = box.left, box.right, height - box.top, height - box.bottom
        if current is not None and not rotated and _continues(current, parts, x0, top, bottom):
            if space or x0 - current.x1 > _SPACE_GAP * current.height:
                parts.append(" ")
            parts.append(char)
            current.x1 = max(current.x1, x1)
            current.top = min(current.top, top)
            current.bottom = max(current.bottom, bottom)
            current.last = index
            space = False
            continue
        angle = angle_of(textpage, index)
        rotated = _ROTATED < angle < 2 * math.pi - _ROTATED
        if rotated:
            continue
        _close(current, parts, segments)
        size = round((bottom - top) * 2) / 2  # the loose box's height: the font's size in use
        current = _Segment("", x0, x1, top, bottom, index, index, size)
        parts, space = [char], False
    _close(current, parts, segments)
    _add_weights(textpage, segments)
    return segments


def _continues(current: _Segment, parts: list[str], x0: float, top: float, bottom: float) -> bool:
    """Whether a character at this box goes on the segment: same line, no wide gap."""
    overlap = min(bottom, current.bottom) - max(top, current.top)
    if overlap < 0.5 * min(bottom - top, current.height):
        return False
    gap = x0 - current.x1
    limit = _SHORT_GAP if len(parts) <= _SHORT_CHARS else _GUTTER
    return -0.5 * current.height <= gap <= limit * current.height


def _close(segment: _Segment | None, parts: list[str], segments: list[_Segment]) -> None:
    if segment is not None:
        segment.text = "".join(parts)
        segments.append(segment)


def _add_weights(textpage: object, segments: list[_Segment]) -> None:
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


# --------------------------------------------------------------------------- headers/footers


def _rows(segments: list[_Segment]) -> list[list[_Segment]]:
    """Segments grouped into rows (vertically overlapping), top to bottom."""
    rows: list[list[_Segment]] = []
    for segment in sorted(segments, key=lambda s: (s.top, s.x0)):
        middle = (segment.top + segment.bottom) / 2
        if rows and rows[-1][0].top <= middle <= rows[-1][0].bottom:
            rows[-1].append(segment)
        else:
            rows.append([segment])
    return rows


def _row_key(row: list[_Segment]) -> str:
    """The row's text without case, digits or the order of its parts: a running head whose
    page number moves from right to left on even pages has one key."""
    parts = (" ".join(_DIGITS.sub("#", s.text.lower()).split()) for s in row)
    return " | ".join(sorted(parts))


def _edge_rows(page: _Page) -> list[list[_Segment]]:
    """The rows at most ``_EDGE_ROWS`` from the top or bottom, inside the edge bands."""
    rows = _rows(page.segments)
    top = [r for r in rows[:_EDGE_ROWS] if r[0].bottom <= page.height * _EDGE]
    bottom = [r for r in rows[-_EDGE_ROWS:] if r[0].top >= page.height * (1 - _EDGE)]
    return top + [r for r in bottom if r not in top]


def _drop_running_lines(pages: list[_Page]) -> None:
    """Remove running headers/footers (edge rows recurring on many pages) and page numbers."""
    edges = [[(row, _row_key(row)) for row in _edge_rows(page)] for page in pages]
    counts = Counter(key for page_edges in edges for key in {k for _, k in page_edges})
    needed = max(_REPEAT_MIN_PAGES, math.ceil(_REPEAT_SHARE * len(pages)))
    for page, page_edges in zip(pages, edges, strict=True):
        dropped = {
            id(segment)
            for row, key in page_edges
            if counts[key] >= needed or _PAGE_NUMBER.match(key)
            for segment in row
        }
        page.segments = [s for s in page.segments if id(s) not in dropped]


# --------------------------------------------------------------------------- blocks


def _blocks(segments: list[_Segment]) -> list[_Block]:
    """Segments joined into blocks: each line continues the closest block just above it."""
    blocks: list[_Block] = []
    for segment in sorted(segments, key=lambda s: (s.top, s.x0)):
        best: _Block | None = None
        best_gap = math.inf
        for block in blocks:
            gap = _line_gap(block.lines[-1], segment)
            if gap is not None and gap < best_gap:
                best, best_gap = block, gap
        if best is None:
            blocks.append(_Block([segment]))
        else:
            best.lines.append(segment)
    return blocks


def _line_gap(last: _Segment, segment: _Segment) -> float | None:
    """The vertical gap from ``last`` down to ``segment`` if it is the next line of its block."""
    gap = segment.top - last.bottom
    height = min(last.height, segment.height)
    if not -0.3 * height <= gap <= _LINE_GAP * height:
        return None
    if segment.top < (last.top + last.bottom) / 2:  # the same row
        return None
    if min(segment.x1, last.x1) - max(segment.x0, last.x0) <= 0:
        return None
    small, large = sorted((segment.size or 1.0, last.size or 1.0))
    if large > small * _HEADING_SCALE or segment.bold != last.bold:
        return None
    return gap


def _table_rows(blocks: list[_Block]) -> list[_Block]:
    """Blocks that form a table (two or more rows of side-by-side cells with aligned tops)
    become one block per row, so that a row is read cell by cell and rows stay apart."""
    rows = _aligned_rows(blocks)
    merged: dict[int, _Block] = {}
    run: list[list[_Block]] = []
    for row in [*rows, []]:
        if len(row) > 1 and (not run or _follows(run[-1], row)):
            run.append(row)
            continue
        if len(run) > 1:
            for cells in run:
                joined = _Block(sorted((s for c in cells for s in c.lines), key=lambda s: s.top))
                joined.cells = sorted(cells, key=lambda c: c.x0)
                merged.update({id(cell): joined for cell in cells})
        run = [row] if len(row) > 1 else []
    result: list[_Block] = []
    for block in blocks:
        target = merged.get(id(block), block)
        if not any(target is seen for seen in result):
            result.append(target)
    return result


def _aligned_rows(blocks: list[_Block]) -> list[list[_Block]]:
    """Blocks grouped by top edge (within a third of a line), top to bottom; a group whose
    blocks overlap horizontally is split back into single blocks."""
    groups: list[list[_Block]] = []
    for block in sorted(blocks, key=lambda b: b.top):
        tolerance = 0.3 * block.lines[0].height
        if groups and abs(groups[-1][0].top - block.top) <= tolerance:
            groups[-1].append(block)
        else:
            groups.append([block])
    rows: list[list[_Block]] = []
    for group in groups:
        ordered = sorted(group, key=lambda b: b.x0)
        disjoint = all(a.x1 <= b.x0 for a, b in zip(ordered, ordered[1:], strict=False))
        rows.extend([ordered] if disjoint else [[b] for b in ordered])
    return rows


def _follows(previous: list[_Block], row: list[_Block]) -> bool:
    """Whether ``row`` is the next row of the table whose last row is ``previous``."""
    tolerance = 0.5 * row[0].lines[0].height
    below = row[0].top >= max(b.bottom for b in previous) - tolerance
    aligned = sum(1 for cell in row if any(_aligned(cell, p, tolerance) for p in previous))
    return below and aligned >= 2


def _aligned(cell: _Block, other: _Block, tolerance: float) -> bool:
    """Cells of one table column: left, right or centre edges in line."""
    return (
        abs(cell.x0 - other.x0) <= tolerance
        or abs(cell.x1 - other.x1) <= tolerance
        or abs(cell.x0 + cell.x1 - other.x0 - other.x1) <= 2 * tolerance
    )


def _reading_order(blocks: list[_Block]) -> list[_Block]:
    """Blocks in reading order (topological sort of Breuel's 'comes before' relation)."""
    count = len(blocks)
    if count < 2 or count > _ORDER_MAX_BLOCKS:
        return sorted(blocks, key=lambda b: (b.top, b.x0))
    x0 = np.array([b.x0 for b in blocks])
    x1 = np.array([b.x1 for b in blocks])
    top = np.array([b.top for b in blocks])
    bottom = np.array([b.bottom for b in blocks])
    before = _precedence(x0, x1, top, bottom)
    return [blocks[i] for i in _topological(before, top, x0)]


def _precedence(x0: np.ndarray, x1: np.ndarray, top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
    """``before[a, b]``: block a is read before block b."""
    slack = 1.0
    overlap_x = (x0[:, None] < x1[None, :] - slack) & (x0[None, :] < x1[:, None] - slack)
    above = (top[:, None] + bottom[:, None]) / 2 < (top[None, :] + bottom[None, :]) / 2
    left = x1[:, None] <= x0[None, :] + slack
    # c separates a (left) and b if it lies vertically between them and spans both.
    upper_bottom = np.minimum(bottom[:, None], bottom[None, :])
    lower_top = np.maximum(top[:, None], top[None, :])
    spans = (x0[None, None, :] < x1[:, None, None]) & (x1[None, None, :] > x0[None, :, None])
    between = (top[None, None, :] >= upper_bottom[:, :, None] - slack) & (
        bottom[None, None, :] <= lower_top[:, :, None] + slack
    )
    separated = (spans & between).any(axis=2)
    before = (overlap_x & above) | (left & ~separated)
    np.fill_diagonal(before, False)
    return before


def _topological(before: np.ndarray, top: np.ndarray, x0: np.ndarray) -> list[int]:
    """Kahn's sort, taking the topmost-leftmost ready block; a cycle is broken the same way."""
    remaining = set(range(len(top)))
    waiting = before.sum(axis=0)
    order: list[int] = []
    while remaining:
        ready = [i for i in remaining if waiting[i] == 0] or list(remaining)
        chosen = min(ready, key=lambda i: (top[i], x0[i]))
        order.append(chosen)
        remaining.discard(chosen)
        waiting = waiting - before[chosen]
        before[chosen, :] = False
    return order


# --------------------------------------------------------------------------- headings


def _body_size(pages: list[_Page]) -> float:
    """The font size of most of the text."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for segment in page.segments:
            sizes[segment.size] += len(segment.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _footnotes_last(blocks: list[_Block], body: float) -> list[_Block]:
    """Blocks in a smaller font with no body text below them (footnotes under a column)
    move to the end of the page, so that a sentence running on to the next column is
    not cut by them."""
    small = [_block_size(b) < _FOOTNOTE_SCALE * body for b in blocks]
    lowest_body = max((b.top for b, s in zip(blocks, small, strict=True) if not s), default=0.0)
    notes = [b for b, s in zip(blocks, small, strict=True) if s and b.top > lowest_body]
    if not notes:
        return blocks
    return [b for b in blocks if not any(b is n for n in notes)] + notes


def _mark_headings(pages: list[_Page], body: float) -> None:
    """Give short blocks in a larger font, or wholly bold at body size, a heading level."""
    if not body:
        return
    any_bold_body = _mostly_bold(pages, body)
    candidates = [block for page in pages for block in _page_headings(page, body, any_bold_body)]
    larger = sorted({_block_size(b) for b in candidates if _block_size(b) > body}, reverse=True)
    levels = {size: min(rank + 1, _MAX_LEVEL) for rank, size in enumerate(larger)}
    for block in candidates:
        level = levels.get(_block_size(block), min(len(larger) + 1, _MAX_LEVEL))
        block.heading_level = min(level + _decimal_depth(_block_text(block, " ")), 6)
    _title_first(pages[0].blocks, candidates)


def _title_first(first_page: list[_Block], candidates: list[_Block]) -> None:
    """A single level-1 heading on the first page is the title: smaller headings above it
    (a masthead such as "118th CONGRESS") stay text, so that the title opens the document."""
    top = [b for b in candidates if b.heading_level == 1]
    if len(top) != 1 or not any(top[0] is b for b in first_page):
        return
    for block in first_page:
        if block is top[0]:
            return
        block.heading_level = 0


def _page_headings(page: _Page, body: float, bold_body: bool) -> list[_Block]:
    """Heading-like blocks of a page; two side by side (table header cells) are not headings."""
    found = [b for b in page.blocks if not b.cells and _heading_like(b, body, bold_body)]
    return [
        block
        for block in found
        if not any(
            other is not block and min(other.bottom, block.bottom) > max(other.top, block.top)
            for other in found
        )
    ]


def _decimal_depth(text: str) -> int:
    """How much deeper than its first level a decimal heading sits: 1 for "4.1", 2 for "4.1.1".
    Standards often set every numbered heading in one font, so only the number tells."""
    match = HEADING_OUTLINE.match(text)
    number = match.group("num") if match else None
    return number.rstrip(".").count(".") if number else 0


def _mostly_bold(pages: list[_Page], body: float) -> bool:
    bold = total = 0
    for page in pages:
        for segment in page.segments:
            if segment.size == body:
                total += len(segment.text)
                bold += len(segment.text) if segment.bold else 0
    return total > 0 and bold > total / 2


def _block_size(block: _Block) -> float:
    return max(s.size for s in block.lines)


def _heading_like(block: _Block, body: float, bold_body: bool) -> bool:
    text = _block_text(block, " ")
    if len(block.lines) > _HEADING_MAX_LINES or len(text) > _HEADING_MAX_CHARS:
        return False
    if not any(ch.isalpha() for ch in text) or text.endswith((",", ";")):
        return False
    if _ENUMERATOR.match(text) and not (parse_heading(text) or HEADING_OUTLINE.match(text)):
        return False
    larger = _block_size(block) >= body * _HEADING_SCALE
    bold = all(s.bold for s in block.lines) and not bold_body
    return larger or bold


def _heading_key(text: str) -> str:
    return " ".join(text.lower().split())


def _contents_key(text: str) -> str:
    """A contents line as the heading it names: no dot leaders, no trailing page number."""
    return _heading_key(_LEADER.sub("", text))


def _mark_contents(pages: list[_Page], body: float) -> None:
    """Lines of a page that name three or more headings of later pages are a table of
    contents: they are neither headings nor, for the structure parser, numbered sections."""
    last_page: dict[str, int] = {}
    for number, page in enumerate(pages):
        for block in page.blocks:
            if block.heading_level:
                last_page[_heading_key(_block_text(block, " ").lstrip("#"))] = number
    for number, page in enumerate(pages):
        entries = [
            (block, line)
            for block in page.blocks
            for line in block.lines
            if line.size <= body * _HEADING_SCALE
            and last_page.get(_contents_key(line.text), -1) > number
        ]
        if len(entries) < _CONTENTS_MIN_ENTRIES:
            continue
        for block, line in entries:
            line.contents = True
            block.heading_level = 0


# --------------------------------------------------------------------------- text


def _assemble(pages: list[_Page]) -> tuple[str, tuple[int, ...]]:
    """The document text and the offset where each page's text starts."""
    out: list[str] = []
    length = 0
    starts: list[int] = []
    for page in pages:
        if out:
            out.append("\n\n")
            length += 2
        starts.append(length)
        page_text = _page_text(page.blocks)
        out.append(page_text)
        length += len(page_text)
    text = "".join(out).rstrip() + "\n"
    return text, tuple(min(start, len(text)) for start in starts)


def _page_text(blocks: Iterable[_Block]) -> str:
    parts: list[str] = []
    previous: _Block | None = None
    previous_text = ""
    for block in blocks:
        text = _block_markdown(block)
        if not text:
            continue
        if parts:
            same_table = bool(block.cells and previous is not None and previous.cells)
            parts.append("\n" if same_table or _runs_on(previous_text, text) else "\n\n")
        parts.append(text)
        previous, previous_text = block, text
    return "".join(parts)


def _runs_on(previous: str, text: str) -> bool:
    """A block that goes on a sentence broken at a column's end, not a new paragraph."""
    return (
        not previous.startswith("#")
        and not previous.rstrip().endswith(_SENTENCE_END)
        and text[:1].islower()
    )


def _block_markdown(block: _Block) -> str:
    if block.cells:
        return _row_text(block.cells)
    if block.heading_level:
        return "#" * block.heading_level + " " + _block_text(block, " ")
    return _block_text(block, "\n")


def _row_text(cells: list[_Block]) -> str:
    """A table row, cells joined by `` | ``; cells whose lines pair up one to one (rows set
    without space between them) give one row per line."""
    counts = {len(cell.lines) for cell in cells}
    if len(counts) == 1 and (count := counts.pop()) > 1 and _lines_paired(cells, count):
        return "\n".join(
            " | ".join(" ".join(cell.lines[i].text.split()) for cell in cells) for i in range(count)
        )
    return " | ".join(_block_text(cell, " ") for cell in cells)


def _lines_paired(cells: list[_Block], count: int) -> bool:
    return all(
        abs(cell.lines[i].top - cells[0].lines[i].top) <= 0.3 * cells[0].lines[i].height
        for cell in cells[1:]
        for i in range(count)
    )


def _block_text(block: _Block, separator: str) -> str:
    lines = [("- " if s.contents else "") + " ".join(s.text.split()) for s in block.lines]
    return separator.join(line for line in _join_hyphens(lines) if line)


def _join_hyphens(lines: list[str]) -> list[str]:
    """Move the rest of a word hyphenated at a line end back onto its line."""
    for index in range(len(lines) - 1):
        line, following = lines[index], lines[index + 1]
        if len(line) < 2 or line[-1] != "-" or not line[-2].isalpha():
            continue
        if not following[:1].islower():
            continue
        head, _, rest = following.partition(" ")
        stem = line[:-1].rsplit(" ", 1)[-1].lower()
        joined = line + head if stem in _KEEP_HYPHEN else line[:-1] + head
        lines[index], lines[index + 1] = joined, rest
    return lines
