"""A statute PDF whose section titles are notes in the margin beside "2. (1) ...": each note
becomes its section's heading, amendment notes in the margin title nothing."""

from __future__ import annotations

from hierdoc.pipeline.convert_pdf import convert_pdf
from hierdoc.pipeline.structure import parse_sections
from tests.unit.test_pdf_furniture import Item, write_pdf

_BODY = "Times-Roman"
_LINE = (
    "the Trust shall keep a register of every holder of a permit issued under this Act",
    "and the register shall be open to the public at every office of the Trust during",
    "its working hours on each day other than a public holiday, without any charge.",
)


def _text(first: str, top: float) -> list[Item]:
    lines = [first, *_LINE]
    return [(line, 150, top + 14 * n, 11, _BODY) for n, line in enumerate(lines)]


def _statute() -> list[Item]:
    return [
        ("PART I", 290, 60, 12, "Times-Bold"),
        ("PERMITS FOR FISHING VESSELS", 220, 90, 12, "Times-Bold"),
        ("Issue of permits.", 30, 127, 8, _BODY),
        *_text("4. (1) The Trust may issue a permit to the owner of a fishing vessel, and", 130),
        ("Register of", 30, 206, 8, _BODY),
        ("permits.", 30, 216, 8, _BODY),
        *_text("5. (1) Every permit issued under section 4 shall be entered in a register.", 210),
        ("[ § 3, 12 of 2001]", 30, 270, 7, _BODY),
        *_text("(2) The register shall be kept in the manner the Trust may determine, and", 270),
    ]


def test_margin_notes_become_the_headings_of_their_sections(tmp_path) -> None:
    text = convert_pdf(write_pdf(tmp_path / "act.pdf", [_statute()])).text
    assert "4. Issue of permits\n" in text
    assert "5. Register of permits\n" in text
    assert "(1) The Trust may issue a permit" in text
    assert "[ § 3, 12 of 2001]" in text
    sections = {s.section_id: s.heading for s in parse_sections(text, "Fishing Act")}
    assert sections["section-4"] == "4. Issue of permits"
    assert sections["section-5"] == "5. Register of permits"
    assert sections["part-1"] == "PART I PERMITS FOR FISHING VESSELS"


def test_a_margin_note_beside_no_numbered_line_stays_text(tmp_path) -> None:
    page = [
        ("Issue of permits.", 30, 127, 8, _BODY),
        *_text("The Trust may issue a permit to the owner of a fishing vessel, and", 130),
    ]
    text = convert_pdf(write_pdf(tmp_path / "act.pdf", [page])).text
    assert "#" not in text
    assert "Issue of permits." in text


def test_a_table_of_small_labels_beside_numbered_cells_stays_a_table(tmp_path) -> None:
    rows = [("Fee", "1. Twenty dollars for each permit issued"), ("Term", "2. One year from issue")]
    page = [(line, 72, 80 + 14 * n, 11, _BODY) for n, line in enumerate(_LINE)]
    for n, (label, cell) in enumerate(rows):
        page += [(label, 72, 160 + 20 * n, 8, _BODY), (cell, 200, 160 + 20 * n, 11, _BODY)]
    text = convert_pdf(write_pdf(tmp_path / "fees.pdf", [page])).text
    assert "#" not in text
    assert "Fee | 1. Twenty dollars for each permit issued" in text
