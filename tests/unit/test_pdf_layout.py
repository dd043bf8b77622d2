"""Multi-column layout of the structured PDF converter (pdf_layout, pdf_headings).

Synthetic pages built from segments test one rule each; the Federal Register proposed
rule in tests/realdocs (FR Doc. 2020-17221, fifteen three-column pages) tests them on a
real document.
"""

from __future__ import annotations

import pytest

from hierdoc.pipeline.convert_pdf import convert_pdf
from hierdoc.pipeline.pdf_headings import mark_contents, mark_headings
from hierdoc.pipeline.pdf_layout import (
    Block,
    Page,
    Segment,
    block_text,
    build_blocks,
    definition_item,
    footnotes_last,
    glossary_rows,
    join_hyphens,
    reading_order,
    row_text,
    table_rows,
)
from tests.paths import TESTS

FEDERAL_REGISTER = TESTS / "realdocs" / "federal-register-2020-17221.pdf"
LINE = 10.0  # baseline to baseline
COLUMNS = ((45.0, 211.0), (222.0, 388.0), (399.0, 565.0))  # three columns of a page


def _lines(
    column: int, top: float, texts: list[str], size: float = 9.0, bold: bool = False
) -> list[Segment]:
    """Lines of one column from ``top`` down: full width but the last (a paragraph)."""
    x0, x1 = COLUMNS[column]
    return [
        Segment(
            text,
            x0,
            x1 if n < len(texts) - 1 else x0 + 6 * len(text.split()),
            top + n * LINE,
            top + n * LINE + size,
            0,
            0,
            size,
            bold,
        )
        for n, text in enumerate(texts)
    ]


def _paragraph(column: int, top: float, name: str, count: int, size: float = 9.0) -> list[Segment]:
    return _lines(column, top, [f"{name} line {n} goes on" for n in range(count)], size)


def _heading(column: int, top: float, text: str) -> list[Segment]:
    x0, _ = COLUMNS[column]
    return [Segment(text, x0, x0 + 5 * len(text), top, top + 9.0, 0, 0, 9.0, True)]


def _texts(blocks: list[Block]) -> list[str]:
    return [block_text(b, " ") for b in blocks]


def _three_columns_with_aligned_headings(
    middle: str = "(a) Comments Due Date", right: str = "(h) Airplane Flight Manual"
) -> list[Segment]:
    """Columns 2 and 3 each hold a heading and its paragraph at one height."""
    return [
        *_paragraph(0, 60, "left", 60),
        *_paragraph(1, 60, "middle", 40),
        *_heading(1, 480, middle),
        *_paragraph(1, 494, "due", 4),
        *_paragraph(2, 60, "right", 30),
        *_heading(2, 480, right),
        *_paragraph(2, 494, "manual", 6),
    ]


def test_headings_of_two_columns_at_one_height_are_not_a_table() -> None:
    blocks = reading_order(table_rows(build_blocks(_three_columns_with_aligned_headings())))
    assert not any(block.cells for block in blocks)
    texts = _texts(blocks)
    order = ["left line 0", "middle line 0", "(a) Comments", "due line 0", "right line 0"]
    order += ["(h) Airplane", "manual line 0"]
    positions = [next(i for i, t in enumerate(texts) if t.startswith(o)) for o in order]
    assert positions == sorted(positions)


def test_a_figure_across_the_columns_parts_the_text_above_it_from_the_text_below() -> None:
    """Three columns above a figure, two below it: the text under the figure is read after
    every column above it (the figure itself has no text)."""
    segments = [
        *_paragraph(0, 60, "first", 4),
        *_paragraph(1, 60, "second", 4),
        *_paragraph(2, 60, "third", 4),
        *_paragraph(0, 230, "below", 3),
        *_paragraph(1, 230, "after", 3),
    ]
    figure = (108.0, 504.0, 112.0, 211.0)
    texts = _texts(reading_order(build_blocks(segments), [figure]))
    assert [t.split()[0] for t in texts] == ["first", "second", "third", "below", "after"]


def test_a_table_in_a_column_of_text_stays_a_table() -> None:
    """A term | definition table whose rows sit inside a page of text: read row by row."""
    segments = _paragraph(0, 60, "before", 8)
    for row, (term, meaning) in enumerate([("AD", "airworthiness"), ("AFM", "flight manual")]):
        top = 150 + row * 30
        segments.append(Segment(term, 45, 70, top, top + 9, 0, 0, 9.0))
        segments.append(Segment(meaning, 120, 200, top, top + 9, 0, 0, 9.0))
        segments.append(Segment("directive text", 120, 190, top + LINE, top + LINE + 9, 0, 0, 9.0))
    rows = [b for b in table_rows(build_blocks(segments)) if b.cells]
    assert [_texts(row.cells) for row in rows] == [
        ["AD", "airworthiness directive text"],
        ["AFM", "flight manual directive text"],
    ]


def test_a_column_set_line_by_line_is_cut_between_table_rows() -> None:
    """A cost table whose labor column is set line by line: its cell in the second row
    continues the block of the first row's cell, and is cut back into its own row."""
    segments = [
        Segment("Action", 45, 80, 80, 88, 0, 0, 7.5),
        Segment("Labor cost", 200, 240, 80, 88, 0, 0, 7.5),
        Segment("Parts cost", 300, 340, 80, 88, 0, 0, 7.5),
        Segment("Stabilizer wiring change ..........", 45, 180, 100, 108, 0, 0, 7.5),
        Segment("79 work-hours", 195, 280, 100, 108, 0, 0, 7.5),
        Segment("Up to $6,715.", 203, 252, 109, 117, 0, 0, 7.5),
        Segment("$3,790 ....", 300, 360, 100, 108, 0, 0, 7.5),
        Segment("AOA sensor system test ............", 45, 180, 118, 126, 0, 0, 7.5),
        Segment("40 work-hours", 195, 250, 118, 126, 0, 0, 7.5),
        Segment("$0 ....", 300, 360, 118, 126, 0, 0, 7.5),
    ]
    rows = [b for b in table_rows(build_blocks(segments)) if b.cells]
    assert [_texts(row.cells) for row in rows] == [
        ["Action", "Labor cost", "Parts cost"],
        ["Stabilizer wiring change ..........", "79 work-hours Up to $6,715.", "$3,790 ...."],
        ["AOA sensor system test ............", "40 work-hours", "$0 ...."],
    ]


def test_footnotes_under_one_column_go_after_the_columns() -> None:
    """Footnotes under the first column, while a paragraph of the third column starts
    below their top: the sentence broken at the first column's foot goes on first."""
    segments = [
        *_paragraph(0, 60, "left", 50),
        *_paragraph(0, 570, "note", 8, size=7.0),
        *_paragraph(1, 60, "middle", 66),
        *_paragraph(2, 60, "right", 50),
        *_paragraph(2, 600, "late", 10),
    ]
    blocks = footnotes_last(reading_order(build_blocks(segments)), 9.0)
    assert _texts(blocks)[-1].startswith("note line 0")


def test_a_word_in_capitals_keeps_its_hyphen_at_a_line_end() -> None:
    assert join_hyphens(["an existing FAA-", "approved MEL"]) == ["an existing FAA-approved", "MEL"]
    assert join_hyphens(["the regu-", "lation"]) == ["the regulation", ""]


def _headings(segments: list[Segment]) -> list[str]:
    page = Page(segments, 792.0)
    page.blocks = reading_order(table_rows(build_blocks(segments)))
    mark_headings([page], 9.0)
    return [block_text(b, " ") for b in page.blocks if b.heading_level]


def test_bold_headings_of_two_columns_at_one_height_are_both_headings() -> None:
    middle, right = "Proposed AD Requirements", "Explanation of Certain Provisions"
    assert _headings(_three_columns_with_aligned_headings(middle, right)) == [middle, right]


def test_a_section_number_beside_its_title_is_one_heading() -> None:
    segments = [
        *_paragraph(1, 60, "middle", 20),
        Segment("§ 39.13", 222, 248, 270, 279, 0, 0, 9.0, True),
        Segment("[Amended]", 256, 298, 270, 279, 0, 0, 9.0, True),
        *_paragraph(1, 284, "amends", 5),
    ]
    assert _headings(segments) == ["§ 39.13 [Amended]"]


@pytest.fixture(scope="module")
def register() -> str:
    return convert_pdf(FEDERAL_REGISTER).text


def test_the_proposed_rule_reads_its_ad_paragraphs_in_order(register: str) -> None:
    """Paragraphs (a)-(q) of the proposed AD run down the columns of pages 6-15; (a) and
    (h) sit at one height in two columns of page 6, as do (l) and (n) on page 14."""
    labels = "abcdefghijklmnopq"
    positions = [register.index(f"\n({label}) ") for label in labels]
    assert positions == sorted(positions)
    assert " | (h) " not in register and " | (n) " not in register
    # The cost table's last row above them stays in the table, not in paragraph (b).
    assert register.index("$248,200.") < register.index("(a) Comments Due Date")
    assert "## § 39.13 [Amended]" in register
    # (h)(1) and (h)(2) sit above a figure on page 7, (h)(3) below it in two columns.
    second = register.index("(2) In the Operating Procedures chapter,")
    third = register.index("(3) In the Operating Procedures chapter,")
    assert second < third
    assert "Airspeed Unreliable\nparagraph with the information in figure 2" in register
    assert "## Proposed AD Requirements" in register


def test_the_proposed_rule_keeps_lines_whole(register: str) -> None:
    """A superscript footnote mark, a small-caps word or a bullet at the start of a line
    does not set the line's size; accents set after their letter are composed; a
    capitalised word's hyphen and a word hyphenated at a page's end are kept."""
    assert "AGENCY: Federal Aviation\nAdministration (FAA), DOT." in register
    assert "1 Preliminary KNKT.18.10.35.04 Aircraft\nAccident Investigation Report" in register
    assert "listed under the\nADDRESSES section." in register
    assert "Agência Nacional de\nAviação Civil (ANAC)" in register
    assert "existing FAA-approved\nMEL" in register
    assert "from Soekarno-\nHatta International Airport" in register


def _bold(text: str, top: float, x1: float = 200.0, size: float = 15.5) -> Segment:
    return Segment(text, 51.0, x1, top, top + size, 0, 0, size, True)


def test_a_heading_with_no_text_and_the_next_heading_are_two_blocks() -> None:
    """ "7. Disclaimer of Warranty" with no text of its own, "8. Termination" 11 points
    below it: two headings, where a heading's own lines follow each other closely."""
    segments = [_bold("7. Disclaimer of Warranty", 470.5, 245.6), _bold("8. Termination", 497.5)]
    segments += _lines(0, 524.0, ["8.1. This License and the rights", "granted hereunder"], 10.5)
    assert _texts(build_blocks(segments))[:2] == ["7. Disclaimer of Warranty", "8. Termination"]


def test_a_heading_wrapped_onto_a_line_that_starts_like_a_label_stays_one() -> None:
    segments = [
        _bold("§ 1011.30 Persons to whom", 100.0, 287.4),
        _bold("subpart B is inapplicable.", 115.7),
    ]
    assert _texts(build_blocks(segments)) == [
        "§ 1011.30 Persons to whom subpart B is inapplicable."
    ]


def test_numbered_headings_after_an_appendix_heading_are_its_peers() -> None:
    """ "Appendix A. Acknowledgements" then "4. ABNF Definition" in the same style: a
    labelled heading is no un-numbered parent of the numbered ones after it."""
    segments = [
        _bold("3. Operators", 60.0),
        *_lines(0, 80.0, ["text of three", "goes on"], 10.5),
        _bold("Appendix A. Acknowledgements", 120.0),
        *_lines(0, 140.0, ["thanks to", "many"], 10.5),
        _bold("4. ABNF Definition", 180.0),
        *_lines(0, 200.0, ["text of four", "goes on"], 10.5),
    ]
    page = Page(segments, 792.0)
    page.blocks = reading_order(table_rows(build_blocks(segments)))
    mark_headings([page], 10.5)
    levels = {block_text(b, " "): b.heading_level for b in page.blocks if b.heading_level}
    assert (
        levels["4. ABNF Definition"]
        == levels["Appendix A. Acknowledgements"]
        == levels["3. Operators"]
    )


def _line(text: str, x0: float, x1: float, top: float) -> Segment:
    return Segment(text, x0, x1, top, top + 12.0, 0, 0, 12.0)


def test_a_term_over_its_indented_description_is_a_definition_list_item() -> None:
    """'Header field name' then 'Content-Disposition' 30 points in: an HTML <dl>, also
    when the description is shorter than the term."""
    item = Block(
        [
            _line("Header field name", 68.2, 149.4, 121.5),
            _line("Content-Disposition", 98.2, 187.4, 134.2),
        ]
    )
    assert definition_item(item, (68.2, 543.5))
    short = Block(
        [_line("Applicable protocol", 68.2, 155.8, 157.5), _line("http", 98.2, 115.4, 170.2)]
    )
    assert definition_item(short, (68.2, 543.5))


def test_a_hanging_indent_or_a_numbered_item_is_no_definition_list_item() -> None:
    """The first line of a hanging indent runs to the column's edge; "(a)" numbers a point;
    a centred title and its citation are no term and description."""
    wrapped = Block(
        [
            _line("Authority. This part is issued by the Bureau under", 68.2, 540.0, 100.0),
            _line("section 1022 of the Act.", 98.2, 220.0, 112.6),
        ]
    )
    numbered = Block(
        [
            _line("(a)", 68.2, 85.0, 100.0),
            _line("The institution must keep records.", 98.2, 300.0, 112.6),
        ]
    )
    centred = Block(
        [
            _line("Special Publication 800-63B", 122.3, 491.5, 300.0),
            _line("Natl. Inst. Stand.", 150.7, 463.1, 312.6),
        ]
    )
    assert not definition_item(wrapped, (68.2, 543.5))
    assert not definition_item(centred, (72.0, 540.0))
    assert not definition_item(numbered, (68.2, 543.5))


def test_headings_repeated_by_a_second_notice_are_no_table_of_contents() -> None:
    """A file holding two notices with the same headings ("DEPARTMENT OF TRANSPORTATION",
    "Federal Aviation Administration", "Examining the AD Docket"): the first notice's
    headings, set as the second's are, stay headings."""
    names = [
        "DEPARTMENT OF TRANSPORTATION",
        "Federal Aviation Administration",
        "Examining the AD Docket",
    ]
    pages = []
    for _ in range(2):
        blocks = []
        for n, name in enumerate(names):
            heading = Block([Segment(name, 45, 200, 100 + 40 * n, 110 + 40 * n, 0, 0, 10.5, True)])
            heading.heading_level = 2
            body = Block(
                [Segment("text of the notice", 45, 200, 115 + 40 * n, 125 + 40 * n, 0, 0, 10.5)]
            )
            blocks += [heading, body]
        page = Page([s for b in blocks for s in b.lines], 792.0)
        page.blocks = blocks
        pages.append(page)
    mark_contents(pages, 10.5)
    assert [b.heading_level for b in pages[0].blocks if b.lines[0].bold] == [2, 2, 2]


def _glossary_line(text: str, x0: float, top: float, bold: bool = False) -> Segment:
    return Segment(text, x0, x0 + 5.0 * len(text), top, top + 16.0, 0, 0, 11.0, bold)


def test_a_glossary_set_as_a_table_without_rules_gives_one_row_per_term() -> None:
    """NIST's glossary tables: bold terms on the left (some on two lines), each beside the
    first lines of its definition; entries parted by more space than their lines; a term
    that PDF text runs into its definition is cut where the definitions start."""
    entries = [
        (["Buyer"], ["The people or organizations that consume a product."]),
        (["Critical", "Infrastructure"], ["Systems and assets so vital to the", "Nation."]),
        ([], ["Identify (function) Develop the understanding to manage", "cybersecurity risk."]),
        (["Taxonomy"], ["A scheme of classification."]),
    ]
    segments, top = [], 100.0
    for terms, lines in entries:
        for n, term in enumerate(terms):
            segments.append(_glossary_line(term, 78.0, top + 13.8 * n, bold=True))
        for n, line in enumerate(lines):
            x0 = 78.0 if line.startswith("Identify") else 186.0
            segments.append(_glossary_line(line, x0, top + 13.8 * n))
        top += 13.8 * max(len(terms), len(lines)) + 10.0
    rows = [b for b in table_rows(build_blocks(segments)) if b.cells]
    assert [row_text(row.cells) for row in rows] == [
        "Buyer | The people or organizations that consume a product.",
        "Critical Infrastructure | Systems and assets so vital to the Nation.",
        "Identify (function) | Develop the understanding to manage cybersecurity risk.",
        "Taxonomy | A scheme of classification.",
    ]


def test_a_label_beside_no_line_of_the_right_column_is_no_glossary() -> None:
    """A left-hand line set in the space between two parts of the right column (a page's
    marginal note, a label between paragraphs) lies on none of its lines: no rows."""
    right = Block(
        [
            _glossary_line("The first part of the text on the right.", 186.0, 100.0),
            _glossary_line("It goes on for a second line.", 186.0, 113.8),
            _glossary_line("The second part of the text on the right.", 186.0, 137.6),
            _glossary_line("It goes on for a second line too.", 186.0, 151.4),
        ]
    )
    labels = [
        Block([_glossary_line("Note", 78.0, 125.7)]),
        Block([_glossary_line("Term", 78.0, 100.0)]),
    ]
    assert glossary_rows(labels, right) is None


def test_a_list_with_its_labels_hung_left_is_no_glossary() -> None:
    """A bill's findings: "(1)", "(2)", "(3)" set left of their items' lines, the items
    parted by more space than their lines, as a glossary's entries are. The labels are no
    terms: no rows."""
    segments, top = [_glossary_line("Congress finds the following:", 100.0, 80.0)], 100.0
    for number in (1, 2, 3):
        segments.append(_glossary_line(f"({number})", 80.0, top))
        words = ("finding", "of", "the", "Congress", "on", "technology")
        for n in range(4):
            segments.append(_glossary_line(" ".join(words * 2), 100.0, top + 13.8 * n))
        top += 13.8 * 4 + 10.0
    assert not [b for b in table_rows(build_blocks(segments)) if b.cells]


def test_a_clause_number_a_tab_before_its_bold_title_is_one_heading() -> None:
    """NIST sets "3.2.1", a tab, then "Chief Information Officer", both bold: one heading.
    A bold number alone (a figure in a table) is none."""
    x0, _ = COLUMNS[1]
    segments = [
        *_paragraph(1, 60, "staff", 6),
        Segment("3.2.1", x0, x0 + 24, 130, 139, 0, 0, 9.0, True),
        Segment("Chief Information Officer", x0 + 36, x0 + 150, 130, 139, 0, 0, 9.0, True),
        *_paragraph(1, 144, "officer", 5),
        Segment("2019", x0, x0 + 20, 200, 209, 0, 0, 9.0, True),
        *_paragraph(1, 214, "figures", 4),
    ]
    assert _headings(segments) == ["3.2.1 Chief Information Officer"]


def test_contents_entries_with_part_page_numbers_are_no_headings() -> None:
    """NIST numbers pages by part ("1-1", "ES-1", "A-1"): a bold contents line ending in a
    leader and such a number is a contents entry, not a heading."""
    x0, x1 = COLUMNS[0][0], COLUMNS[2][1]
    segments = [
        Segment(text, x0, x1, 100 + 14 * n, 109 + 14 * n, 0, 0, 9.0, True)
        for n, text in enumerate(
            [
                "Executive Summary....................ES-1",
                "1. Introduction ......................1-1",
                "Appendix A— Glossary ................ A-1",
            ]
        )
    ]
    assert _headings([*segments, *_paragraph(0, 200, "body", 6)]) == []


def test_a_glossary_page_may_open_mid_definition_and_hold_further_paragraphs() -> None:
    """A glossary page of NIST SP 800-88 opens with the end of the last definition of the
    page before, and "Degauss" has a second paragraph set apart ("Also called ...")."""
    parts = [
        ([], ["and not written to."]),
        (["Degauss"], ["To reduce the magnetic flux to virtual zero."]),
        ([], ["Also called demagnetizing."]),
        (["Destroy"], ["A method of Sanitization that renders recovery", "infeasible."]),
    ]
    segments, top = [], 100.0
    for terms, lines in parts:
        for n, term in enumerate(terms):
            segments.append(_glossary_line(term, 78.0, top + 13.8 * n, bold=True))
        segments += [_glossary_line(line, 186.0, top + 13.8 * n) for n, line in enumerate(lines)]
        top += 13.8 * len(lines) + 10.0
    blocks = table_rows(build_blocks(segments))
    assert [row_text(b.cells) if b.cells else block_text(b, " ") for b in blocks] == [
        "and not written to.",
        "Degauss | To reduce the magnetic flux to virtual zero. Also called demagnetizing.",
        "Destroy | A method of Sanitization that renders recovery infeasible.",
    ]
