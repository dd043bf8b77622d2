"""An Act's table of sections is a contents page, not the parent of the Act; a part's label
and its title set as two headings are one part."""

from hierdoc.pipeline.structure import parse_sections

_ACT = """# FISHERIES ACT

## ARRANGEMENT OF SECTIONS

- 1. Short title
- 2. Issue of permits

#### Fisheries Act No. 4 of 2001

#### 1. Short title

This Act may be cited as the Fisheries Act.

#### PART I

#### PERMITS FOR FISHING VESSELS

#### 2. Issue of permits

(1) The Trust may issue a permit.
"""


def _sections():
    return {s.section_id: s for s in parse_sections(_ACT, "Fisheries Act")}


def test_the_act_does_not_nest_under_its_table_of_sections():
    sections = _sections()
    act = sections["fisheries-act-no-4-of-2001"]
    assert act.parent_chain == ("Fisheries Act No. 4 of 2001",)
    assert all("ARRANGEMENT OF SECTIONS" not in s.parent_chain[1:] for s in sections.values())


def test_a_part_label_and_its_title_on_the_next_line_are_one_part():
    sections = _sections()
    assert sections["part-1"].heading == "PART I PERMITS FOR FISHING VESSELS"
    assert sections["section-2"].parent_chain[0] == "PART I PERMITS FOR FISHING VESSELS"
    assert not any(s.heading == "PERMITS FOR FISHING VESSELS" for s in sections.values())


def test_an_inserted_section_heading_takes_its_number():
    text = "# Act\n\n#### 13. Licences\n\nText.\n\n#### 13A. Mobile banking units\n\nText.\n"
    ids = {s.section_id: s.heading for s in parse_sections(text, "Act")}
    assert ids["section-13a"] == "13A. Mobile banking units"
