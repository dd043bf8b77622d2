"""Bylaws set "Section 2." apart from its run-in title by a gutter-wide gap, the title's
sentence going on below from the margin: the label, title and text stay one line."""

from __future__ import annotations

from hierdoc.pipeline.convert_pdf import convert_pdf
from hierdoc.pipeline.structure import parse_sections
from tests.unit.test_pdf_furniture import Item, write_pdf


def _section(label: str, rest: list[tuple[str, float]], baseline: float) -> list[Item]:
    """A label at 144 points, its title and text at 216 (more after a gutter-wide gap), and
    the sentence's next line at the margin."""
    items: list[Item] = [(label, 144, baseline, 11, "Times-Roman")]
    items += [(part, x, baseline, 11, "Times-Roman") for part, x in rest]
    below = "than three nor more than nine Directors, as the Board decides."
    return [*items, (below, 72, baseline + 18, 11, "Times-Roman")]


def test_a_section_label_keeps_its_run_in_title_and_text(tmp_path) -> None:
    page = [
        ("Article III", 283, 60, 11, "Times-Roman"),
        *_section("Section 1.", [("Restrictions on Activities.", 216), ("The Board", 341)], 90),
        *_section("Section 2.", [("Number and Tenure of Office. The Board has no less", 216)], 140),
    ]
    text = convert_pdf(write_pdf(tmp_path / "bylaws.pdf", [page])).text
    assert "Section 1. Restrictions on Activities. The Board\n" in text
    assert "Section 2. Number and Tenure of Office. The Board has no less\n" in text
    headings = {s.section_id: s.heading for s in parse_sections(text, "Bylaws")}
    assert any(h.startswith("Section 2. Number and Tenure of Office") for h in headings.values())
