"""PDF layout for :mod:`.convert_pdf`: segments into blocks, tables into rows, blocks in
reading order, and the text of a block.

Blocks are lines stacked closely, overlapping horizontally, in one font size and weight (a
paragraph, a table cell, a heading). Their reading order follows Breuel's layout analysis
(2003): a block comes before the blocks below it that it overlaps horizontally, and before
the blocks to its right unless a block spanning both lies between them, so columns are
read one after the other and a full-width title first.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..text.numbering import parse_heading

Gutters = Sequence[tuple[float, float]]
"""The (x0, x1) of each gutter between a page's columns of text."""

_LINE_GAP = 0.8
"""Lines of one block are at most this many line heights apart."""
_HEADING_SPACING = 0.4
"""A heading's lines are closer than this many line heights."""
_HEADING_SCALE = 1.15
_FOOTNOTE_SCALE = 0.9
_ORDER_MAX_BLOCKS = 150
_LABEL_CHARS = 25
_MIN_ITEM_LINES = 4
_CUT_REACH = 6
"""Characters either side of a line's estimated column edge to look for a capital."""
_COLUMN_LINES = 3
"""A text column: at least this many long lines start at its left edge ..."""
_LONG_LINE = 10
"""... each at least this many line heights long ..."""
_INDENT = 1.5
"""... and starting at most this many line heights right of the edge (a first line)."""
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


@dataclass
class Segment:
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
class Block:
    lines: list[Segment] = field(default_factory=list)
    heading_level: int = 0
    cells: list[Block] = field(default_factory=list)
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
class Page:
    segments: list[Segment]
    height: float
    blocks: list[Block] = field(default_factory=list)
    figures: list[tuple[float, float, float, float]] = field(default_factory=list)
    """Images as (x0, x1, top, bottom): no text, but they part the text around them."""
    gutters: list[tuple[float, float]] = field(default_factory=list)
    """The (x0, x1) of each gutter between columns of running text."""


def build_blocks(segments: list[Segment]) -> list[Block]:
    """Segments joined into blocks: each line continues the closest block just above it."""
    blocks: list[Block] = []
    for segment in sorted(segments, key=lambda s: (s.top, s.x0)):
        best: Block | None = None
        best_gap = math.inf
        for block in blocks:
            gap = _line_gap(block.lines[-1], segment)
            if gap is not None and gap < best_gap and not _next_heading(block.lines[-1], segment):
                best, best_gap = block, gap
        if best is None:
            blocks.append(Block([segment]))
        else:
            best.lines.append(segment)
    return blocks


def _next_heading(last: Segment, segment: Segment) -> bool:
    """Whether a bold line is the next heading below a heading with no text of its own
    ("7. Disclaimer of Warranty" then "8. Termination"): it opens with a heading's number
    and stands apart from the line above, where a heading's own lines follow each other
    closely ("§ 1011.30 Persons to whom" / "subpart B is inapplicable.")."""
    return (
        segment.bold
        and last.bold
        and segment.top - last.bottom > _HEADING_SPACING * min(last.height, segment.height)
        and parse_heading(segment.text) is not None
    )


def _line_gap(last: Segment, segment: Segment) -> float | None:
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


def join_drop_capitals(blocks: list[Block]) -> list[Block]:
    """A drop capital (one capital letter, at least twice the height of the text beside
    it) goes back onto the first line of the paragraph it opens ("T" + "he Licensor ..."):
    that line starts beside its top, within two of its heights to its right."""
    kept: list[Block] = []
    for block in blocks:
        line = block.lines[0]
        if len(block.lines) == 1 and len(line.text) == 1 and line.text.isupper():
            opened = _opened_by(line, blocks)
            if opened is not None:
                opened.text = line.text + opened.text
                opened.x0 = line.x0
                continue
        kept.append(block)
    return kept


def _opened_by(capital: Segment, blocks: list[Block]) -> Segment | None:
    for block in blocks:
        first = block.lines[0]
        if (
            first is not capital
            and first.text[:1].islower()
            and 2 * first.height <= capital.height
            and capital.top - first.height <= first.top <= capital.top + first.height
            and 0 <= first.x0 - capital.x1 <= 2 * capital.height
        ):
            return first
    return None


def table_rows(blocks: list[Block], gutters: Gutters = ()) -> list[Block]:
    """Blocks that form a table (two or more rows of side-by-side cells with aligned tops)
    become one block per row, so that a row is read cell by cell and rows stay apart;
    so do short labels beside the lines of a block (a contents page's "SECTION 1", an
    acronym list's "CIO"), but not across one of ``gutters`` (between the page's columns
    of text: a list in one column beside a paragraph of the other)."""
    blocks = _pair_labels(blocks, gutters)
    rows = _aligned_rows(blocks)
    merged: dict[int, Block] = {}
    cut_from: dict[int, Block] = {}
    run: list[list[Block]] = []
    for row in [*rows, []]:
        if len(row) > 1 and run and not _follows(run[-1], row):
            run[-1], row = _cut_tall_cell(run[-1], row, cut_from)
        if len(row) > 1 and (not run or _follows(run[-1], row)):
            run.append(row)
            continue
        if len(run) > 1 and not _text_columns(run, blocks):
            for cells in run:
                joined = Block(sorted((s for c in cells for s in c.lines), key=lambda s: s.top))
                joined.cells = sorted(cells, key=lambda c: c.x0)
                for cell in cells:
                    merged[id(cell)] = joined
                    if id(cell) in cut_from:
                        merged.setdefault(id(cut_from[id(cell)]), joined)
        run = [row] if len(row) > 1 else []
    result: list[Block] = []
    for block in blocks:
        target = merged.get(id(block), block)
        if not any(target is seen for seen in result):
            result.append(target)
    return result


def split_at_gutters(row: list[Block], gutters: Gutters) -> list[list[Block]]:
    """Side-by-side blocks (left to right) parted at ``gutters`` ((x0, x1) each): the
    blocks of one column stay together, those of different columns apart."""
    parts = [[row[0]]] if row else []
    for block in row[1:]:
        previous = parts[-1][-1]
        if any(previous.x1 <= left + 1 and right - 1 <= block.x0 for left, right in gutters):
            parts.append([block])
        else:
            parts[-1].append(block)
    return [part for part in parts if part]


def _cut_tall_cell(
    previous: list[Block], row: list[Block], cut_from: dict[int, Block]
) -> tuple[list[Block], list[Block]]:
    """A row that would follow ``previous`` but for one cell of it reaching down into the
    row (a column set line by line, whose cell in this row went on the block above, as in a
    Federal Register cost table): that cell is cut at its line level with the row's top and
    its rest joins the row. ``cut_from`` records the block each part was cut from; the
    rows are returned unchanged when no single such cell, or the cut, makes them follow.
    A row's first cell is never cut: a caption or row label beside several rows is one."""
    tolerance = 0.5 * row[0].lines[0].height
    top = min(block.top for block in row)
    reaching = [
        (cell, index)
        for cell in previous[1:]
        for index, line in enumerate(cell.lines)
        if index and abs(line.top - top) <= tolerance
    ]
    if len(reaching) != 1:
        return previous, row
    cell, index = reaching[0]
    upper, lower = Block(cell.lines[:index]), Block(cell.lines[index:])
    cut_previous = [upper if c is cell else c for c in previous]
    cut_row = sorted([*row, lower], key=lambda b: b.x0)
    disjoint = all(a.x1 <= b.x0 for a, b in zip(cut_row, cut_row[1:], strict=False))
    if not disjoint or not _follows(cut_previous, cut_row):
        return previous, row
    cut_from.update({id(upper): cell, id(lower): cell})
    return cut_previous, cut_row


def _text_columns(run: list[list[Block]], blocks: list[Block]) -> bool:
    """Whether side-by-side rows are the page's text columns, not a table (headings and
    paragraphs of two columns of a three-column page that happen to sit at one height):
    every cell lies within a column of long lines starting at its left edge, and in one
    row at least every cell fills half its column (a paragraph, where a table's first
    column holds short labels and its inner columns start where no long line does)."""
    lines = [line for block in blocks for line in block.lines]
    filled = [True] * len(run)
    for number, row in enumerate(run):
        for cell in row:
            right = _column_right(cell, lines)
            if right is None or cell.x1 > right + cell.lines[0].height / 2:
                return False
            filled[number] &= cell.x1 - cell.x0 >= (right - cell.x0) / 2
    return any(filled)


def _column_right(cell: Block, lines: list[Segment]) -> float | None:
    """The right edge of the text column whose left edge is the cell's: the furthest end
    of the long lines (ten line heights or more) starting there or a paragraph's indent
    further, if there are several."""
    height = cell.lines[0].height
    ends = [
        line.x1
        for line in lines
        if -height / 2 <= line.x0 - cell.x0 <= _INDENT * height
        and line.x1 - line.x0 >= _LONG_LINE * height
    ]
    return max(ends) if len(ends) >= _COLUMN_LINES else None


def _pair_labels(blocks: list[Block], gutters: Gutters) -> list[Block]:
    """Columns of short labels on the left whose lines sit on the lines of a block to their
    right become rows ``label | ... | text`` (a line with no label goes on the row above):
    a contents page's "SECTION 1 | PURPOSE", an acronym list's "CIO | Chief Information
    Officer", a grid of short cells."""
    result = list(blocks)
    for right in sorted(blocks, key=lambda b: (-len(b.lines), -b.x0)):
        if len(right.lines) < 2 or not any(b is right for b in result):
            continue
        beside = [
            b
            for b in result
            if b is not right
            and _beside(b, right)
            and len(split_at_gutters([b, right], gutters)) == 1
        ]
        labels = [b for b in beside if len(b.lines) == 1 or _item_lines(b, len(right.lines))]
        columns = _label_columns(labels, right)
        matched = {index for column in columns for index in column}
        if 0 in matched and len(matched) >= 2 and 2 * len(matched) >= len(right.lines):
            rows = _label_rows(columns, right, matched)
        elif (glossary := _glossary(result, right, gutters)) is not None:
            labels, rows = glossary
        else:
            continue
        dropped = {id(b) for b in (right, *labels)}
        position = min(i for i, b in enumerate(result) if id(b) in dropped)
        kept = [b for b in result if id(b) not in dropped]
        result = kept[:position] + rows + kept[position:]
    return result


def _beside(block: Block, right: Block) -> bool:
    """A block of short lines on the left of ``right``, within its height."""
    return (
        not block.cells
        and block.x1 <= right.x0
        and block.top >= right.top - right.lines[0].height
        and block.bottom <= right.bottom + right.lines[0].height
        and all(len(line.text) <= _LABEL_CHARS for line in block.lines)
    )


def _glossary(
    blocks: list[Block], right: Block, gutters: Gutters
) -> tuple[list[Block], list[Block]] | None:
    """The blocks of terms beside ``right`` and the rows of the glossary they make with it
    (see :func:`glossary_rows`); a line that PDF text runs from a term into its definition
    ("Identify (function) Develop the ...") is cut where the definitions' column starts."""
    text, cut = split_merged_lines(right)
    beside = [
        b
        for b in blocks
        if b is not right and _beside(b, text) and len(split_at_gutters([b, text], gutters)) == 1
    ]
    rows = glossary_rows([*beside, *cut], text)
    return None if rows is None else (beside, rows)


def split_merged_lines(block: Block) -> tuple[Block, list[Block]]:
    """``block`` with each line that starts well left of where most of its lines start and
    runs past it cut there, at the nearest space: the text right of the cut stays, the
    part left of it is returned as a block of its own."""
    starts = Counter(round(line.x0) for line in block.lines)
    column = float(starts.most_common(1)[0][0])
    kept: list[Segment] = []
    cut: list[Block] = []
    for line in block.lines:
        parts = _cut_at(line, column) if line.x0 < column - line.height < line.x1 else None
        if parts is None:
            kept.append(line)
        else:
            cut.append(Block([parts[0]]))
            kept.append(parts[1])
    return (block, []) if not cut else (Block(kept), cut)


def _cut_at(line: Segment, x: float) -> tuple[Segment, Segment] | None:
    """``line`` parted at the space nearest ``x`` (characters taken as equally wide), one
    before a capital when one is near: the definition starts a sentence, and the term's
    bold letters are wider than the text's."""
    text = line.text
    at = round(len(text) * (x - line.x0) / max(line.x1 - line.x0, 1e-3))
    spaces = [i for i, char in enumerate(text[:-1]) if char == " "]
    capitals = [i for i in spaces if abs(i - at) <= _CUT_REACH and text[i + 1].isupper()]
    if not spaces:
        return None
    space = min(capitals or spaces, key=lambda i: abs(i - at))
    left, right = text[:space].strip(), text[space + 1 :].strip()
    if not left or not right:
        return None
    return replace(line, text=left, x1=x - 1), replace(line, text=right, x0=x)


def glossary_rows(labels: list[Block], right: Block) -> list[Block] | None:
    """A glossary set as a table without rules: terms on the left ("Critical" /
    "Infrastructure" on two lines), each beside the first lines of its definition, the
    definitions parted by more space than their lines. One row ``term | definition`` per
    entry, or None unless two entries open with a term line and every term line lies on the
    first lines of an entry; a part with no term goes on the definition above it (or, at
    the top, stays a paragraph: a definition going on from the page before)."""
    lines = [line for label in labels for line in label.lines]
    if len(right.lines) < 2 or not labels or len(lines) < 2:
        return None
    if max(b.x0 for b in labels) - min(b.x0 for b in labels) > right.lines[0].height:
        return None
    if all(_list_label(line.text) for line in lines):
        return None  # "(1)", "(2)": a list's labels hung left of its items, no terms
    entries = _entries(right.lines)
    if len(entries) < 2:
        return None
    by_entry: list[list[Segment]] = [[] for _ in entries]
    for line in sorted(lines, key=lambda segment: segment.top):
        index = _line_on(line, right.lines)
        if index is None:  # a label beside no line of the right column: no glossary
            return None
        entry = next((n for n, (start, end) in enumerate(entries) if start <= index < end), None)
        if entry is None or index != entries[entry][0] + len(by_entry[entry]):
            return None
        by_entry[entry].append(line)
    if sum(1 for terms in by_entry if terms) < 2:
        return None
    first = next(n for n, terms in enumerate(by_entry) if terms)
    carried = right.lines[: entries[first][0]]  # a definition going on from the page before
    entries, by_entry = _paragraphs_joined(entries[first:], by_entry[first:])
    rows = [Block(carried)] if carried else []
    for (start, end), terms in zip(entries, by_entry, strict=True):
        term = replace(
            terms[0], text=" ".join(t.text.strip() for t in terms), bottom=terms[-1].bottom
        )
        cells = [Block([term]), Block(right.lines[start:end])]
        rows.append(Block([term, *right.lines[start:end]], cells=cells))
    return rows


def _list_label(text: str) -> bool:
    """Whether ``text`` is only a list item's label: "(1)", "2.", "a)", "iv.", a bullet."""
    text = text.strip()
    return bool(_ENUMERATED.fullmatch(text)) or (bool(text) and set(text) <= _BULLETS)


_BULLETS = frozenset("•◦▪▫‣⁃–—-*·o")


def _paragraphs_joined(
    entries: list[tuple[int, int]], by_entry: list[list[Segment]]
) -> tuple[list[tuple[int, int]], list[list[Segment]]]:
    """A part with no term beside it is a further paragraph of the definition above
    ("Also called “demagnetizing.”" under "Degauss"): it joins that entry."""
    joined: list[tuple[int, int]] = []
    terms: list[list[Segment]] = []
    for (start, end), found in zip(entries, by_entry, strict=True):
        if found or not joined:
            joined.append((start, end))
            terms.append(found)
        else:
            joined[-1] = (joined[-1][0], end)
    return joined, terms


def _line_on(line: Segment, lines: list[Segment]) -> int | None:
    """The index of the line of ``lines`` that ``line`` sits on (tops within a third)."""
    return next(
        (i for i, other in enumerate(lines) if abs(other.top - line.top) <= 0.3 * other.height),
        None,
    )


def _entries(lines: list[Segment]) -> list[tuple[int, int]]:
    """``lines`` parted where the space between two lines is wider than their usual
    spacing (by a third of a line or more): (start, end) line indexes of each part."""
    steps = [b.top - a.top for a, b in zip(lines, lines[1:], strict=False)]
    if not steps:
        return [(0, len(lines))]
    usual = min(steps)
    cuts = [n + 1 for n, step in enumerate(steps) if step - usual >= lines[n].height / 3]
    bounds = [0, *cuts, len(lines)]
    return list(zip(bounds, bounds[1:], strict=False))


def _item_lines(block: Block, count: int) -> bool:
    """A block of one label per line (a list, not a cell whose text wraps): as many lines
    as the block beside it, several, none going on in lower case or in parentheses."""
    return len(block.lines) == count >= _MIN_ITEM_LINES and not any(
        line.text[:1].islower() or line.text[:1] == "(" for line in block.lines
    )


def _label_columns(labels: list[Block], right: Block) -> list[dict[int, Segment]]:
    """The labels as columns, left to right, each mapping the index of a line of ``right``
    to the label line on it; no columns when a label line sits on no line or shares one."""
    columns: list[tuple[float, dict[int, Segment]]] = []
    for label in sorted(labels, key=lambda b: b.x0):
        if not columns or label.x0 >= columns[-1][0]:
            columns.append((label.x1, {}))
        column = columns[-1][1]
        for line in label.lines:
            index = next(
                (
                    i
                    for i, other in enumerate(right.lines)
                    if abs(other.top - line.top) <= 0.3 * other.height
                ),
                None,
            )
            if index is None or index in column:
                return []
            column[index] = line
    return [column for _, column in columns]


def _label_rows(columns: list[dict[int, Segment]], right: Block, matched: set[int]) -> list[Block]:
    rows: list[Block] = []
    for index, line in enumerate(right.lines):
        if index in matched or not rows:
            cells = [Block([c[index]] if index in c else []) for c in columns]
            cells.append(Block([line]))
            rows.append(Block([s for cell in cells for s in cell.lines], cells=cells))
        else:
            rows[-1].lines.append(line)
            rows[-1].cells[-1].lines.append(line)
    return rows


def _aligned_rows(blocks: list[Block]) -> list[list[Block]]:
    """Blocks grouped by top edge (within a third of a line), top to bottom; a group whose
    blocks overlap horizontally is split back into single blocks."""
    groups: list[list[Block]] = []
    for block in sorted(blocks, key=lambda b: b.top):
        tolerance = 0.3 * block.lines[0].height
        if groups and abs(groups[-1][0].top - block.top) <= tolerance:
            groups[-1].append(block)
        else:
            groups.append([block])
    rows: list[list[Block]] = []
    for group in groups:
        ordered = sorted(group, key=lambda b: b.x0)
        disjoint = all(a.x1 <= b.x0 for a, b in zip(ordered, ordered[1:], strict=False))
        rows.extend([ordered] if disjoint else [[b] for b in ordered])
    return rows


def _follows(previous: list[Block], row: list[Block]) -> bool:
    """Whether ``row`` is the next row of the table whose last row is ``previous``."""
    tolerance = 0.5 * row[0].lines[0].height
    below = row[0].top >= max(b.bottom for b in previous) - tolerance
    aligned = sum(1 for cell in row if any(_aligned(cell, p, tolerance) for p in previous))
    return below and aligned >= 2


def _aligned(cell: Block, other: Block, tolerance: float) -> bool:
    """Cells of one table column: left, right or centre edges in line."""
    return (
        abs(cell.x0 - other.x0) <= tolerance
        or abs(cell.x1 - other.x1) <= tolerance
        or abs(cell.x0 + cell.x1 - other.x0 - other.x1) <= 2 * tolerance
    )


def reading_order(
    blocks: list[Block], figures: list[tuple[float, float, float, float]] | None = None
) -> list[Block]:
    """Blocks in reading order (topological sort of Breuel's 'comes before' relation).
    ``figures`` (x0, x1, top, bottom) take part as blocks without text and are left out
    of the result: a figure across the columns parts the columns above it from those
    below (the text under a Federal Register figure is read after the text above it in
    every column, not after the rest of its own column)."""
    placeholders = [Block([Segment("", *box[:2], *box[2:], 0, 0)]) for box in figures or []]
    every = blocks + placeholders
    count = len(every)
    if count < 2 or count > _ORDER_MAX_BLOCKS:
        ordered = sorted(every, key=lambda b: (b.top, b.x0))
    else:
        x0 = np.array([b.x0 for b in every])
        x1 = np.array([b.x1 for b in every])
        top = np.array([b.top for b in every])
        bottom = np.array([b.bottom for b in every])
        before = _precedence(x0, x1, top, bottom)
        ordered = [every[i] for i in _topological(before, top, x0)]
    figure_ids = {id(block) for block in placeholders}
    return [block for block in ordered if id(block) not in figure_ids]


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


def footnotes_last(blocks: list[Block], body: float) -> list[Block]:
    """Blocks in a smaller font with no body text below them in their column (footnotes
    under a column) move to the end of the page, so that a sentence running on to the
    next column is not cut by them. Only the column counts: on a page of three columns
    the notes under the first sit above the foot of the other two."""
    small = [block_size(b) < _FOOTNOTE_SCALE * body for b in blocks]
    text = [b for b, s in zip(blocks, small, strict=True) if not s]
    notes = [
        b
        for b, s in zip(blocks, small, strict=True)
        if s and not any(t.top > b.top and _overlap_x(t, b) for t in text)
    ]
    if not notes:
        return blocks
    return [b for b in blocks if not any(b is n for n in notes)] + notes


def _overlap_x(one: Block, other: Block) -> bool:
    return min(one.x1, other.x1) > max(one.x0, other.x0)


def block_size(block: Block) -> float:
    return max(s.size for s in block.lines)


def row_text(cells: list[Block]) -> str:
    """A table row, cells joined by `` | ``; cells whose lines pair up one to one (rows set
    without space between them) give one row per line."""
    counts = {len(cell.lines) for cell in cells}
    if len(counts) == 1 and (count := counts.pop()) > 1 and _lines_paired(cells, count):
        return "\n".join(
            " | ".join(" ".join(cell.lines[i].text.split()) for cell in cells) for i in range(count)
        )
    return " | ".join(block_text(cell, " ") for cell in cells)


def _lines_paired(cells: list[Block], count: int) -> bool:
    return all(
        abs(cell.lines[i].top - cells[0].lines[i].top) <= 0.3 * cells[0].lines[i].height
        for cell in cells[1:]
        for i in range(count)
    )


def block_text(block: Block, separator: str) -> str:
    lines = [("- " if s.contents else "") + " ".join(s.text.split()) for s in block.lines]
    return separator.join(line for line in join_hyphens(lines) if line)


def _is_acronym(stem: str) -> bool:
    """A word in capitals ("FAA" in "FAA-approved") is not split by hyphenation."""
    letters = [ch for ch in stem if ch.isalpha()]
    return len(letters) >= 2 and all(ch.isupper() for ch in letters)


def join_hyphens(lines: list[str]) -> list[str]:
    """Move the rest of a word hyphenated at a line end back onto its line."""
    for index in range(len(lines) - 1):
        line, following = lines[index], lines[index + 1]
        if len(line) < 2 or line[-1] != "-" or not line[-2].isalpha():
            continue
        if not following[:1].islower():
            continue
        head, _, rest = following.partition(" ")
        stem = line[:-1].rsplit(" ", 1)[-1]
        compound = stem.lower() in _KEEP_HYPHEN or _is_acronym(stem)
        joined = line + head if compound else line[:-1] + head
        lines[index], lines[index + 1] = joined, rest
    return lines


_DT_INDENT = 2.0
"""A definition list's description is indented at least this many line heights."""
_DT_MAX_WORDS = 10
_ENUMERATED = re.compile(r"^\(?[0-9A-Za-z]{1,4}[.)](?:\s|$)")


def definition_item(block: Block, column: tuple[float, float]) -> bool:
    """Whether a block is a term and its description as a definition list sets them (an
    HTML ``<dl>``): a short line that ends where the text would have gone on (``column``,
    its left and right edges, had room for the next word), the lines under it, in its
    size, all indented. A paragraph with a hanging indent wraps its first line; a numbered
    item ("(a)", "1.") is none, nor are lines centred in the column (a cover's title)."""
    term, *description = block.lines
    if not description or not term.text[:1].isalpha() or _ENUMERATED.match(term.text):
        return False
    left, right = column
    centred = abs(term.x0 + term.x1 - left - right) <= 2 * term.height
    if centred or any(abs(line.size - term.size) > 0.5 for line in description):
        return False
    indent = min(line.x0 for line in description) - term.x0
    next_word = description[0].text.split(" ", 1)[0]
    word_width = (description[0].x1 - description[0].x0) * (len(next_word) + 1)
    word_width /= max(len(description[0].text), 1)
    return (
        indent >= _DT_INDENT * term.height
        and len(term.text.split()) <= _DT_MAX_WORDS
        and term.x1 + word_width < right - term.height
    )
