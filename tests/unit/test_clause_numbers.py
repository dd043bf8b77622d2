"""Clauses a PDF's text leaves unmarked: a number alone on its line, a run that starts late."""

from hierdoc.pipeline.structure import parse_sections


def _sections(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(s.section_id, s.path) for s in parse_sections(text, "Doc")[1:]]


def test_a_clause_number_alone_on_its_line_opens_the_clause_below() -> None:
    text = """# Specification

### 3.2 Competence

3.2.1
A documented list of roles exists.

3.2.2

The roles are filled by named people.

### 12.6 Server Protection

12.6.1

Verify that the server is configured with an allow list of resources.
"""
    found = parse_sections(text, "Doc")
    assert [(s.section_id, s.path) for s in found[1:]] == [
        ("section-3-2", ()),
        ("section-3-2-1", ("section-3-2",)),
        ("section-3-2-2", ("section-3-2",)),
        ("section-12-6", ()),
        ("section-12-6-1", ("section-12-6",)),
    ]
    clause = next(s for s in found if s.section_id == "section-12-6-1")
    assert clause.heading == "12.6.1"
    assert clause.body.strip().startswith("Verify that the server is configured")


def test_numbers_alone_that_are_not_clauses_stay_text() -> None:
    text = """# Release notes

### 2.1 Versions

Version

1.2.3

2.4.1
3.0.0

2.1.1

L1 L2 L3

7.4.1

see the table
"""
    assert _sections(text) == [("section-2-1", ())]


def test_a_run_of_clauses_under_its_heading_may_start_after_its_first() -> None:
    text = """# Specification

### 3.2 Competence

3.2.3 Verify that each role has a documented set of responsibilities.
3.2.4 Verify that the competence of each participant is assessed.

### 3.3 Awareness

3.3.1 Verify that participants are aware of the policy.
"""
    assert _sections(text) == [
        ("section-3-2", ()),
        ("section-3-2-3", ("section-3-2",)),
        ("section-3-2-4", ("section-3-2",)),
        ("section-3-3", ()),
        ("section-3-3-1", ("section-3-3",)),
    ]


def test_a_clause_numbered_outside_its_heading_and_not_first_stays_text() -> None:
    text = """# Specification

### 3.2 Competence

4.1.3 Verify that each role has a documented set of responsibilities.

### Awareness

3.3.2 Verify that participants are aware of the policy.
"""
    assert _sections(text) == [("section-3-2", ()), ("awareness", ())]


def test_a_titled_clause_heading_numbered_in_full_opens_under_an_unnumbered_heading() -> None:
    text = """# Guidance

## 3.1 Mandatory Attack Vectors

3.1.1 Attack Vector 1: External to Corporate

The attack vector requires a phishing test.

## Email Phish Campaign

A phishing test is coordinated between the parties.

3.1.2. Attack Vector 2: External to Target System

The attack vector simulates outside threats.

## Contents of the Report

3.1.3. Attack Vector 3: Tenant to Management
3.1.4. Attack Vector 4: Tenant to Tenant

4.2 Scoping Rules

The scope is agreed first.
"""
    assert _sections(text) == [
        ("section-3-1", ()),
        ("section-3-1-1", ("section-3-1",)),
        ("email-phish-campaign", ()),
        ("section-3-1-2", ("email-phish-campaign",)),
        ("contents-of-the-report", ()),
    ]


def test_a_clause_whose_number_opens_its_first_point_on_one_line() -> None:
    """A plain-text licence writes a clause with no text of its own, its point (a) after
    its number on one line ("3.  a. A Derived Work ..."): clause 3 holds points 3(a) and
    3(b), each with its own text."""
    text = (
        "CONDITIONS\n==========\n\n"
        "1.  You may copy the Work.\n\n"
        "2.  You may distribute the Work in another format.\n\n"
        "3.  a. A Derived Work may be distributed under a different license\n"
        "       that honors Clause 6.\n\n"
        "    b. A Derived Work under a different license must say so.\n\n"
        "4.  Nothing in this license limits fair use.\n"
    )
    sections = {s.section_id: s for s in parse_sections(text, "Licence")}
    assert sections["section-3"].body.strip() == "3."
    point = sections["section-3-a"]
    assert point.body.startswith("a. A Derived Work may be distributed")
    assert point.path[-1] == "section-3"
    assert sections["section-3-b"].body.strip().startswith("b. A Derived Work under")
    assert "section-4" in sections


def test_a_point_on_its_clause_line_under_title_lines() -> None:
    """A plain text headed by title lines, its numbered paragraphs under the last: a
    paragraph that opens with its point ("2. (a) For PCII ...") holds that point."""
    text = (
        "DEPARTMENT OF HOMELAND SECURITY\n"
        "NON-DISCLOSURE AGREEMENT\n"
        "I agree to the terms below in consideration of my being granted access.\n"
        "Initials:\n"
        "Protected Critical Infrastructure Information (PCII)\n"
        "I attest that I will comply with all requirements of the PCII program.\n"
        "Initials:\n"
        "Sensitive Security Information (SSI)\n"
        "I attest that I will comply with the standards for access to SSI.\n"
        "Initials:\n"
        "Other Sensitive but Unclassified (SBU)\n"
        "I attest that I will comply with the standards for access to SBU.\n"
        "I understand and agree to the following terms and conditions of my access.\n"
        "1. I hereby acknowledge that I have received a security briefing.\n"
        "2. (a) For PCII - Upon the completion of my engagement, I will return all copies.\n"
        "(b) For SSI and SBU - I will destroy all copies.\n"
        "3. I hereby agree that I will not alter or remove markings.\n"
    )
    sections = {s.section_id: s for s in parse_sections(text, "NDA")}
    point = next(s for i, s in sections.items() if i.endswith("2-a"))
    assert point.body.startswith("(a) For PCII")
    assert any(i.endswith("2-b") for i in sections) and any(i.endswith("-3") for i in sections)
