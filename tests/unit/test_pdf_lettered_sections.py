"""A guide PDF in Roman parts whose lettered sections restart in every part ("II. Rules",
"A. General", "B.1. Filing"), all set in one heading font: the sections nest under their
part, the "B.1." subsections under their section, whatever the letter."""

from __future__ import annotations

from hierdoc.pipeline.convert_pdf import convert_pdf
from hierdoc.pipeline.structure import parse_sections
from tests.unit.test_pdf_furniture import Item, write_pdf

_HEADINGS = (
    "I. Overview",
    "A. Background",
    "B. Relevant Terms",
    "II. Requirements",
    "A. General Rules",
    "B. Specific Acts",
    "B.1. Sale of Property",
    "C. Disqualified Persons",
    "III.Worksheets",
)
_TEXT = "(1) The foundation files its return every year and keeps its records for review."


def _guide() -> list[list[Item]]:
    pages: list[list[Item]] = []
    for start in range(0, len(_HEADINGS), 3):
        items: list[Item] = []
        top = 80.0
        for heading in _HEADINGS[start : start + 3]:
            items.append((heading, 72, top, 16, "Helvetica-Bold"))
            items += [(_TEXT, 72, top + 30 + 16 * n, 11, "Times-Roman") for n in range(4)]
            top += 130
        pages.append(items)
    return pages


def test_lettered_sections_nest_under_their_roman_part(tmp_path) -> None:
    text = convert_pdf(write_pdf(tmp_path / "guide.pdf", _guide())).text
    levels = {
        line.lstrip("#").strip(): len(line) - len(line.lstrip("#"))
        for line in text.splitlines()
        if line.startswith("#")
    }
    assert levels["I. Overview"] < levels["A. Background"] == levels["B. Relevant Terms"]
    assert levels["C. Disqualified Persons"] == levels["A. General Rules"]
    assert levels["B.1. Sale of Property"] == levels["B. Specific Acts"] + 1
    assert levels["III. Worksheets"] == levels["II. Requirements"] == levels["I. Overview"]
    chains = {s.heading: s.parent_chain for s in parse_sections(text, "Guide")}
    assert chains["B.1. Sale of Property"][:2] == ("II. Requirements", "B. Specific Acts")
    assert chains["C. Disqualified Persons"][0] == "II. Requirements"


def test_a_lettered_list_in_body_type_stays_text(tmp_path) -> None:
    items: list[Item] = [("I. Overview", 72, 80, 16, "Helvetica-Bold")]
    items += [
        (f"{letter}. {_TEXT}", 72, 110 + 16 * n, 11, "Times-Roman")
        for n, letter in enumerate("ABC")
    ]
    text = convert_pdf(write_pdf(tmp_path / "guide.pdf", [items])).text
    assert "# A." not in text
