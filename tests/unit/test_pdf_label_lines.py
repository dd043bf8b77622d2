"""A PDF that prints each section as a centred label line ("Section 1", "CHAPTER II") and,
on the next line, its title in the heading font: label and title are one heading at the
title's level, and every "Section N" is a sibling of the last, not a section of its own
under the previous section's title."""

from __future__ import annotations

from hierdoc.pipeline.convert_pdf import convert_pdf
from hierdoc.pipeline.structure import parse_sections
from tests.unit.test_pdf_furniture import Item, write_pdf

_TEXT = "The members of the club keep its rules and pay the yearly fee on time."
_PARTS = (
    ("Section 1", "Purpose of the Club", 11),
    ("Section 2", "Membership", 11),
    ("CHAPTER II", "Governance", 9.5),
    ("Section 3", "Meetings of Members", 11),
)


def _charter() -> list[Item]:
    items: list[Item] = [("Charter of the Rowing Club", 150, 60, 18, "Helvetica-Bold")]
    top = 110.0
    for label, title, size in _PARTS:
        items.append((label, 270, top, size, "Times-Roman"))
        items.append((title, 240, top + 16, 11, "Times-Bold"))
        items += [(_TEXT, 72, top + 40 + 14 * n, 11, "Times-Roman") for n in range(3)]
        top += 120
    return items


def test_a_label_line_and_its_title_line_are_one_heading(tmp_path) -> None:
    text = convert_pdf(write_pdf(tmp_path / "charter.pdf", [_charter()])).text
    headings = [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]
    assert headings[1:] == [f"{label} {title}" for label, title, _ in _PARTS]
    sections = {s.heading: s for s in parse_sections(text, "Charter")}
    chains = [sections[f"{label} {title}"].parent_chain for label, title, _ in _PARTS]
    assert chains[0][:-1] == chains[1][:-1]
    assert "Section 2 Membership" not in chains[2]


def test_a_title_that_is_a_label_stays_a_heading_of_its_own(tmp_path) -> None:
    items: list[Item] = [
        ("Section 1", 270, 110, 11, "Times-Roman"),
        ("Section 2 Membership", 240, 126, 11, "Times-Bold"),
    ]
    items += [(_TEXT, 72, 150 + 14 * n, 11, "Times-Roman") for n in range(3)]
    text = convert_pdf(write_pdf(tmp_path / "charter.pdf", [items])).text
    assert "# Section 2 Membership" in text
    assert "Section 1 Section 2" not in text


def test_a_label_heading_and_its_title_heading_in_one_style_are_one_section() -> None:
    text = "# Charter\n\n### Article 1\n\n### Purpose\n\nThe club rows.\n\n"
    text += "### Article 2\n\n### Members\n\nThe members row.\n"
    sections = parse_sections(text, "Charter")
    headings = [s.heading for s in sections if s.section_id != "preamble"]
    assert headings == ["Article 1 Purpose", "Article 2 Members"]
    assert [s.parent_chain for s in sections[1:]] == [(h,) for h in headings]
