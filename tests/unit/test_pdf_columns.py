"""Text columns found from character positions (pdf_columns): the parts of a justified
line in a narrow column are one line, however wide its gaps; columns stay apart."""

from __future__ import annotations

from hierdoc.pipeline.pdf_columns import gutters, join_in_columns, text_gutters
from hierdoc.pipeline.pdf_headings import mark_headings
from hierdoc.pipeline.pdf_layout import (
    Page,
    Segment,
    block_text,
    build_blocks,
    reading_order,
    table_rows,
)

LEFT, RIGHT = (51.0, 287.4), (307.3, 543.7)
"""Two columns of a page, 20 points apart: narrower than a heading's widest spaces."""


def _segment(text: str, x0: float, x1: float, top: float, size: float = 10.5) -> Segment:
    return Segment(text, x0, x1, top, top + size, 0, 0, size)


def _column(column: tuple[float, float], top: float, count: int) -> list[list[Segment]]:
    return [[_segment(f"body line {n}", *column, top + 10.5 * n)] for n in range(count)]


def _rows(*parts: list[list[Segment]]) -> list[list[Segment]]:
    """Rows of both columns merged by height, each left to right."""
    by_top: dict[float, list[Segment]] = {}
    for part in parts:
        for row in part:
            by_top.setdefault(row[0].top, []).extend(row)
    return [sorted(by_top[top], key=lambda s: s.x0) for top in sorted(by_top)]


def _texts(rows: list[list[Segment]]) -> list[list[str]]:
    return [[s.text for s in row] for row in rows]


def test_the_gutter_between_two_columns_is_found() -> None:
    rows = _rows(_column(LEFT, 100, 20), _column(RIGHT, 100, 20))
    [(left, right)] = gutters(rows)
    assert LEFT[1] <= left + 1 and right <= RIGHT[0] + 1


def test_a_heading_spread_across_its_column_is_one_line() -> None:
    """ "§ 1009.3 · Disclosures · in": gaps of 25 points, wider than the gutter, each
    inside the left column, the last word on the column's right edge."""
    heading = [
        _segment("§ 1009.3", 51.0, 135.1, 300, 15.5),
        _segment("Disclosures", 160.6, 247.8, 300, 15.5),
        _segment("in", 273.2, 287.4, 300, 15.5),
        _segment("Exceptions.", 307.3, 390.0, 300, 15.5),
    ]
    rows = _rows(_column(LEFT, 100, 18), _column(RIGHT, 100, 30), [heading])
    joined = join_in_columns(rows, gutters(rows))
    assert ["§ 1009.3 Disclosures in", "Exceptions."] in _texts(joined)


def test_a_body_line_with_one_wide_space_is_one_line() -> None:
    spread = [
        _segment("This title may be cited as", 51.0, 197.9, 394.0),
        _segment("the", 207.5, 287.4, 394.0),
    ]
    rows = _rows(_column(LEFT, 100, 28), _column(RIGHT, 100, 30), [spread])
    assert ["This title may be cited as the", "body line 28"] in _texts(
        join_in_columns(rows, gutters(rows))
    )


def test_parts_that_stop_short_of_the_column_edge_stay_apart() -> None:
    """A label and a value inside a column, the value ending mid-column: a table row."""
    cells = [_segment("AD", 51.0, 70.0, 394.0), _segment("airworthiness", 120.0, 200.0, 394.0)]
    rows = _rows(_column(LEFT, 100, 28), _column(RIGHT, 100, 30), [cells])
    assert ["AD", "airworthiness", "body line 28"] in _texts(join_in_columns(rows, gutters(rows)))


def test_a_page_of_one_column_is_left_as_it_is() -> None:
    """No gutter: cells of a full-width table keep their gaps."""
    page = [[_segment(f"line {n}", 51.0, 543.7, 100 + 10.5 * n)] for n in range(20)]
    cells = [
        _segment("Header field name", 51.0, 200.0, 394.0),
        _segment("Status", 480.0, 543.7, 394.0),
    ]
    rows = [*page, cells]
    assert gutters(rows) == []
    assert _texts(join_in_columns(rows, gutters(rows)))[-1] == ["Header field name", "Status"]


def test_a_title_across_both_columns_does_not_hide_their_gutter() -> None:
    """Five title lines over the whole width, then a short left column: the gutter is
    still found (a line wider than most of the page is not counted)."""
    title = [[_segment(f"title line {n}", 51.0, 543.7, 60 + 21 * n, 21.0)] for n in range(5)]
    rows = _rows(title, _column(LEFT, 200, 6), _column(RIGHT, 200, 30))
    assert len(gutters(rows)) == 1


def test_a_table_gutter_is_not_a_text_gutter() -> None:
    """Short terms beside long descriptions under a paragraph of the page's width: a
    gutter, but no column of text on its left."""
    paragraph = [[_segment(f"line {n}", 51.0, 543.7, 40 + 10.5 * n)] for n in range(5)]
    table = paragraph + [
        [
            _segment(f"term {n}", 51.0, 90.0, 100 + 10.5 * n),
            _segment("description", 150.0, 400.0, 100 + 10.5 * n),
        ]
        for n in range(20)
    ]
    assert len(gutters(table)) == 1
    assert text_gutters(table, gutters(table)) == []
    columns = _rows(_column(LEFT, 100, 20), _column(RIGHT, 100, 20))
    assert len(text_gutters(columns, gutters(columns))) == 1


def _page_of_two_columns(*headings: Segment) -> Page:
    segments = [s for row in _rows(_column(LEFT, 100, 30), _column(RIGHT, 100, 30)) for s in row]
    for heading in headings:
        segments = [
            s
            for s in segments
            if not (s.top < heading.bottom and s.bottom > heading.top and s.x0 == heading.x0)
        ]
    segments += headings
    page = Page(
        segments, 842.0, gutters=text_gutters(_rows_of(segments), gutters(_rows_of(segments)))
    )
    page.blocks = reading_order(table_rows(build_blocks(segments)))
    return page


def _rows_of(segments: list[Segment]) -> list[list[Segment]]:
    by_top: dict[float, list[Segment]] = {}
    for segment in segments:
        by_top.setdefault(segment.top, []).append(segment)
    return [sorted(by_top[top], key=lambda s: s.x0) for top in sorted(by_top)]


def _headings(page: Page) -> list[str]:
    mark_headings([page], 10.5)
    return [block_text(b, " ") for b in page.blocks if b.heading_level]


def test_headings_of_two_columns_side_by_side_are_neither_one_heading_nor_a_table() -> None:
    """ "3. OPERATORS" in the left column beside "3.4. Value Range" in the right: a short
    numbered heading beside another would read as a label and its title."""
    left = Segment("3. OPERATORS", 51.0, 161.4, 310.0, 325.7, 0, 0, 15.5, True)
    right = Segment("3.4. Value Range Alternatives", 307.3, 500.0, 310.0, 322.2, 0, 0, 12.0, True)
    assert _headings(_page_of_two_columns(left, right)) == [
        "3. OPERATORS",
        "3.4. Value Range Alternatives",
    ]


def test_a_long_numbered_heading_in_a_narrow_column_is_a_heading() -> None:
    """A numbered bold heading in a larger font that wraps to six lines of a column."""
    words = [
        "SEC. 6. REPORT ON",
        "INCREASED RISK OF",
        "TERRORIST ATTACKS TO",
        "UNITED STATES ARMED",
        "FORCES ABROAD, AND",
        "ALLIES",
    ]
    lines = [
        Segment(w, 51.0, 287.4, 400.0 + 15.7 * n, 415.7 + 15.7 * n, 0, 0, 15.5, True)
        for n, w in enumerate(words)
    ]
    assert _headings(_page_of_two_columns(*lines)) == [" ".join(words)]


def test_a_list_in_one_column_is_not_paired_with_the_lines_of_the_other() -> None:
    """Short lines of a list in the left column sit on lines of a paragraph in the right
    one: with the gutter known they are no labels of that paragraph's lines."""
    paragraph = [s for row in _column(RIGHT, 100 + 10.5 * 12, 10) for s in row]
    text = [s for row in _column(LEFT, 100, 10) for s in row]
    items = ["Strings, Names formation", "Comment", "Value range", "Repetition", "Grouping"]
    listed = [
        _segment(item, 51.0, 51.0 + 6 * len(item), 100 + 10.5 * (12 + 2 * n))
        for n, item in enumerate(items)
    ]
    segments = text + listed + paragraph
    found = text_gutters(_rows_of(segments), gutters(_rows_of(segments)))
    assert found
    assert any(block.cells for block in table_rows(build_blocks(segments)))
    assert not any(block.cells for block in table_rows(build_blocks(segments), found))


def test_a_table_row_label_is_not_joined_to_its_description() -> None:
    """A threats table in the right column: "Online Guessing" beside the line of its
    description that reaches the column's edge. No line above or below starts where the
    label does, so the row is a table's, not a justified line."""
    rows = _rows(_column(LEFT, 100, 30), _column(RIGHT, 100, 10))
    labels = ["Online Guessing", "Endpoint Compromise", "Social Engineering"]
    for n in range(10, 30):
        top = 100 + 10.5 * n
        line = [_segment(f"description {n}", 380.0, 543.7, top)]
        if n % 4 == 1:
            line.insert(0, _segment(labels[n // 4 % 3], 307.3, 370.0, top))
        rows[n] = rows[n] + line
    found = text_gutters(rows, gutters(rows))
    assert len(found) == 1  # the table's own gutter parts no running text
    joined = _texts(join_in_columns(rows, found))
    assert ["body line 13", "Online Guessing", "description 13"] in joined
