"""Text columns of a PDF page, found from where its characters lie, for :mod:`.convert_pdf`.

A gutter is a band of the page that few rows of text cross while the text beside it, on
both sides, is crossed by many: the space between two text columns (or two table
columns). Inside a column, the parts of one row that a wide gap parts are one line spread
by justification when together they reach the column's right edge: a heading in a narrow
column ("§ 1009.3 ··· Disclosures ··· in") or a body line with one wide space. Gaps
wider than a column's gutter are common in such lines, so a gap's width alone cannot tell
a justified line from two columns.
"""

from __future__ import annotations

import math

import numpy as np

from .pdf_layout import Segment

_GUTTER_SHARE = 0.2
"""A gutter is crossed by at most this share of the lines that cross the column beside it
with the fewer (its busiest point) ..."""
_COLUMN_ROWS = 3
"""... which are at least this many ..."""
_GUTTER_WIDTH = 0.5
"""... and it is at least this many body line heights wide."""
_WIDE_SHARE = 0.6
"""A line wider than this share of the page's text crosses any gutter: it is not counted."""
_LONG_LINE = 10.0
_INDENT = 1.5
_NEAR_ROWS = 4
_JUSTIFIED_GAP = 6.0
_SPREAD_ROWS = 2
_SPREAD_REACH = 4.0
"""A spread line on a page of one column is joined with a full line of running text at
most this many rows and line heights away."""
"""A gap between words of a justified line is at most this many line heights."""


def join_in_columns(
    rows: list[list[Segment]], found: list[tuple[float, float]]
) -> list[list[Segment]]:
    """``rows`` (segments sharing a height, each row left to right) with the segments of a
    row that lie in one column between two of the page's gutters (``found``, by
    :func:`gutters`) and reach its right edge joined into one segment."""
    if not found:
        return rows
    edges = _column_edges(rows, found)
    return [
        _join_row(row, edges, _starts_near(rows, number)) if len(row) > 1 else row
        for number, row in enumerate(rows)
    ]


def _starts_near(rows: list[list[Segment]], number: int) -> list[float]:
    """Where the segments of the rows just above and below row ``number`` start (within
    two line heights: rows of the other column may lie between)."""
    row = rows[number]
    height = row[0].height
    return [
        segment.x0
        for near in rows[max(0, number - _NEAR_ROWS) : number + _NEAR_ROWS + 1]
        if near is not row and abs(near[0].top - row[0].top) <= 2 * height
        for segment in near
    ]


def gutters(rows: list[list[Segment]]) -> list[tuple[float, float]]:
    """The page's gutters as (left, right) x positions, left to right. Lines wider than
    most of the page (a title across the columns, a page of one column) are not counted."""
    segments = [segment for row in rows for segment in row]
    if len(rows) < 2 * _COLUMN_ROWS:
        return []
    origin = math.floor(min(s.x0 for s in segments))
    width = max(s.x1 for s in segments) - origin
    narrow = [s for s in segments if s.x1 - s.x0 <= _WIDE_SHARE * width]
    if not narrow:
        return []
    cover = _coverage(narrow, origin)
    height = sorted(s.height for s in segments)[len(segments) // 2]
    beside = np.minimum(np.maximum.accumulate(cover), np.maximum.accumulate(cover[::-1])[::-1])
    low = (cover <= _GUTTER_SHARE * beside) & (beside >= _COLUMN_ROWS)
    return [
        (float(origin + start), float(origin + end))
        for start, end in _runs(low)
        if end - start >= _GUTTER_WIDTH * height
    ]


def text_gutters(
    rows: list[list[Segment]], found: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Those of the page's gutters (``found``) that part columns of running text: on each
    side, several long lines (ten line heights or more) end at the gutter or start at it
    (a paragraph's indent further), where a table's gutters have short cells on one side."""
    if not found:
        return []
    lines = [s for row in rows for s in row if s.x1 - s.x0 >= _LONG_LINE * s.height]

    def beside(left: float, right: float) -> bool:
        ending = sum(1 for s in lines if -s.height <= left - s.x1 <= s.height)
        starting = sum(1 for s in lines if -s.height <= s.x0 - right <= _INDENT * s.height)
        return min(ending, starting) >= _COLUMN_ROWS

    return [(left, right) for left, right in found if beside(left, right)]


def _coverage(segments: list[Segment], origin: int) -> np.ndarray:
    """How many segments cross each point (one point apart) from ``origin`` rightwards."""
    width = math.ceil(max(s.x1 for s in segments)) - origin + 2
    starts = np.bincount([math.floor(s.x0) - origin for s in segments], minlength=width + 1)
    ends = np.bincount([math.ceil(s.x1) - origin for s in segments], minlength=width + 1)
    return np.cumsum(starts - ends)[:width]


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """The (start, end) of each run of True in ``flags``, leaving out runs at either end."""
    padded = np.concatenate(([False], flags, [False])).astype(np.int8)
    bounds = np.flatnonzero(np.diff(padded))
    return [
        (int(start), int(end))
        for start, end in zip(bounds[::2], bounds[1::2], strict=True)
        if start > 0 and end < len(flags)
    ]


def _column_edges(
    rows: list[list[Segment]], found: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Each column's (left, right) edges between the gutters: where the lines within it
    start furthest left and end furthest right (the third furthest, so that a page number
    beside a running head does not count)."""
    bounds = [-math.inf, *(x for gutter in found for x in gutter), math.inf]
    edges = []
    for left, right in zip(bounds[::2], bounds[1::2], strict=True):
        inside = [s for row in rows for s in row if s.x0 >= left - 1 and s.x1 <= right + 1]
        if len(inside) < _COLUMN_ROWS:
            edges.append((left, right))
            continue
        starts = sorted(s.x0 for s in inside)
        ends = sorted(s.x1 for s in inside)
        edges.append((starts[_COLUMN_ROWS - 1], ends[-_COLUMN_ROWS]))
    return edges


def _join_row(
    row: list[Segment], edges: list[tuple[float, float]], starts: list[float]
) -> list[Segment]:
    """The row with each column's part joined where it is spread; a segment across a
    gutter (a title over both columns) is kept as it is."""
    by_column: list[list[Segment]] = [[] for _ in edges]
    across: list[Segment] = []
    for segment in row:
        middle = (segment.x0 + segment.x1) / 2
        column = next(
            (n for n, (left, right) in enumerate(edges) if left - 1 <= middle <= right + 1), None
        )
        (across if column is None else by_column[column]).append(segment)
    joined = [
        segment
        for edge, part in zip(edges, by_column, strict=True)
        for segment in _join_spread(part, edge, starts)
    ]
    return sorted(joined + across, key=lambda s: s.x0)


def _join_spread(
    segments: list[Segment], edge: tuple[float, float], starts: list[float]
) -> list[Segment]:
    """The segments of one row in one column, those from the first whose chain ends on
    the column's right edge, inside the column, made one: a chain of justified gaps, or
    any gaps when it starts on the column's left edge too (a line of two words spread
    across the column, "Appendix ··· A."), and a line just above or below starting where
    it starts (a paragraph's or heading's next line). A table's cells cross a gutter, run
    past the edge or have no line under them starting where the row does."""
    if len(segments) < 2:
        return segments
    left, right = edge
    for start in range(len(segments) - 1):
        chain = segments[start:]
        height = min(s.height for s in chain)
        full = abs(chain[0].x0 - left) <= height
        inside = chain[0].x0 >= left - height / 2 and chain[-1].x1 <= right + height / 2
        aligned = any(abs(x0 - chain[0].x0) <= height for x0 in starts)
        if inside and aligned and chain[-1].x1 >= right - height / 2 and _spread(chain, full):
            head = chain[0]
            for following in chain[1:]:
                _append(head, following)
            return [*segments[:start], head]
    return segments


def _spread(chain: list[Segment], full: bool) -> bool:
    widest = math.inf if full else _JUSTIFIED_GAP
    return all(
        abs(a.size - b.size) <= 0.5 and 0 <= b.x0 - a.x1 <= widest * min(a.height, b.height)
        for a, b in zip(chain, chain[1:], strict=False)
    )


def _append(segment: Segment, following: Segment) -> None:
    segment.text += " " + following.text
    segment.x1, segment.last = following.x1, following.last
    segment.top = min(segment.top, following.top)
    segment.bottom = max(segment.bottom, following.bottom)
    segment.bold = segment.bold and following.bold


def join_spread_lines(
    rows: list[list[Segment]], found: list[tuple[float, float]]
) -> list[list[Segment]]:
    """On a page of one column with no gutter inside it (``found``: a table's), a line of
    running text that justification spread into parts at wide gaps ("(3) The ···
    provisions ··· of Part V of this Act ...") is one line again when it reaches the
    column's right edge and a line of running text near it (two rows up or down) runs to
    that edge too. Notes in the margin beside it (past a gutter) are no part of it."""
    lines = [s for row in rows for s in row if _long(s)]
    if not lines:
        return rows
    column = (min(s.x0 for s in lines), max(s.x1 for s in lines))
    if any(column[0] < right and left < column[1] for left, right in found):
        return rows
    joined = []
    for number, row in enumerate(rows):
        row = sorted(row, key=lambda s: s.x0)
        near = rows[max(0, number - _SPREAD_ROWS) : number + _SPREAD_ROWS + 1]
        if len(row) > 1 and _spread_in_paragraph(row, near, column):
            row = _joined_inside(row, column)
        joined.append(row)
    return joined


def _joined_inside(row: list[Segment], column: tuple[float, float]) -> list[Segment]:
    """The row's parts inside ``column`` made one segment; those outside (a margin note)
    kept beside it."""
    inside = [s for s in row if _inside(s, column)]
    head = inside[0]
    for following in inside[1:]:
        _append(head, following)
    return sorted([s for s in row if not _inside(s, column)] + [head], key=lambda s: s.x0)


def _inside(segment: Segment, column: tuple[float, float]) -> bool:
    return column[0] - 1 <= (segment.x0 + segment.x1) / 2 <= column[1] + 1


def _long(segment: Segment) -> bool:
    return segment.x1 - segment.x0 >= _LONG_LINE * segment.height


def _spread_in_paragraph(
    row: list[Segment], near: list[list[Segment]], column: tuple[float, float]
) -> bool:
    right = column[1]
    inside = [s for s in row if _inside(s, column)]
    if len(inside) < 2 or not _spread(inside, full=False):
        return False
    if inside[0].text.rstrip().endswith(":"):
        return False  # a label beside its text ("Purge: | See Destroy. ..."): a table's row
    height = inside[0].height
    if inside[-1].x1 < right - height:
        return False
    full_lines = (
        line[0]
        for other in near
        if len(line := [s for s in other if _inside(s, column)]) == 1 and line[0] not in inside
    )
    return any(
        _long(line)
        and abs(line.x1 - right) <= height
        and abs(line.size - inside[0].size) <= 0.5
        and abs(line.top - inside[0].top) <= _SPREAD_REACH * height
        for line in full_lines
    )
