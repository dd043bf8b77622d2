"""Tables of contents in plain text stay out of the section tree: an RFC-style document's
contents lines ("3.1.2.  Title . . . 19", "Appendix A.  ... 33") name the sections the
body opens later, with their text."""

from __future__ import annotations

import json

from hierdoc.pipeline.contents import contents_lines
from hierdoc.pipeline.structure import parse_sections
from tests.paths import TESTS

FIXTURES = TESTS / "fixtures" / "rfc"
DRAFT = FIXTURES / "draft-ietf-httpbis-p1-messaging-18-outline.txt"


def test_an_rfc_outline_matches_its_xml_source_and_no_section_is_a_contents_line() -> None:
    text = DRAFT.read_text(encoding="utf-8")
    gold = json.loads(DRAFT.with_suffix(".gold.json").read_text(encoding="utf-8"))
    sections = {s.section_id: s for s in parse_sections(text, "draft")}
    for section_id, parent, heading in gold:
        section = sections[section_id]
        assert (section.path[-1] if section.path else None) == parent, section_id
        opening = next(line for line in (section.heading_line + section.body).splitlines() if line)
        assert heading.split()[0] in opening and ". . ." not in opening, (section_id, opening)
    numbered = [i for i in sections if i.startswith(("section-", "appendix-"))]
    assert sorted(numbered) == sorted(section_id for section_id, _, _ in gold)


def test_the_last_contents_entry_does_not_swallow_the_body() -> None:
    text = DRAFT.read_text(encoding="utf-8")
    sections = parse_sections(text, "draft")
    appendix_c = next(s for s in sections if s.section_id == "appendix-c")
    assert appendix_c.heading_line.startswith("Appendix C.")
    assert [s.section_id for s in sections].index("section-1") < [
        s.section_id for s in sections
    ].index("appendix-c")


def test_contents_lines_with_leaders_wrapped_entries_and_runs_without_page_numbers() -> None:
    lines = [
        "Contents",
        "",
        "   1.  Introduction . . . . . . . . 2",
        "   2.  A title long enough to wrap onto the next line and",
        "       keep its leader there . . . . . 3",
        "   3.  Security . . 9",
        "   4.  References . . . . . . . . 12",
        "",
        "1. Scope",
        "2. Terms",
        "3. Fees",
        "",
        "1. Scope",
        "",
        "The text of the scope.",
        "",
        "2. Terms",
        "",
        "3. Fees",
        "",
        "The price is 4.2 . . . per unit.",
    ]
    assert contents_lines(lines) == {2, 3, 4, 5, 6, 8, 9, 10}


def test_a_numbered_list_that_is_not_repeated_is_not_contents() -> None:
    lines = ["1. Pay the fee.", "2. File the form.", "3. Wait for the reply.", "", "Done."]
    assert contents_lines(lines) == set()


def test_the_same_list_repeated_under_two_subsections_is_not_contents() -> None:
    items = ["(1) in clause (ii), by striking and", "(2) in clause (iii) inserting and", "(3) new"]
    lines = ["(a) Funding for programs", "", *items, "", "(b) Funding for centers", "", *items]
    assert contents_lines(lines) == set()


MARKED_CONTENTS = """# Penetration Test Guidance

## TABLE OF CONTENTS

- 4.0. Scoping the Penetration Test

##### 5.0 Rules of Engagement

- 6.0. Reporting

### 4.0. Scoping the Penetration Test

The authorization boundaries are determined from the plan.

### 5.0 Rules of Engagement (ROE)

The penetration test plan must include a description of the approach.

### 6.0. Reporting

Results go into the report.
"""


def test_a_contents_entry_marked_as_a_heading_leaves_the_clause_its_id() -> None:
    """A PDF converter may mark one contents line as a heading: the clause it names later
    keeps the clause's id, and a citation of it reaches the clause, not the contents."""
    sections = {s.section_id: s for s in parse_sections(MARKED_CONTENTS, "Guidance")}
    assert sections["section-5-0"].heading == "5.0 Rules of Engagement (ROE)"
    assert "description of the approach" in sections["section-5-0"].body
    assert not [i for i in sections if i.startswith("table-of-contents-section")]
    assert "5.0 Rules of Engagement" in sections["table-of-contents"].body
