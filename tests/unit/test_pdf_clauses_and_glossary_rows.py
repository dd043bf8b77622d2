"""What a PDF's text gives without blank lines or with its tables as rows: clauses numbered on
after a heading ("# 5. Permitted Disclosures." then "6. Term and Termination. This NDA ...")
are siblings of it, and a glossary's table rows are its entries, an acronym's written as
an entry ("FIPS | Federal Information Processing Standard.") among them, while an acronym
list's long forms and a sentence cut into cells are no definitions."""

from __future__ import annotations

from hierdoc.pipeline.extract.definitions import find_definitions
from hierdoc.pipeline.structure import parse_sections

NDA = """\
1. Introduction. This NDA allows each party to disclose information.
2. Use. Recipient will use it only for the Purpose.

# 3. Permitted Disclosures.

a. Representatives. Recipient may disclose it to its employees
having a need to know.
b. Required by Law. Recipient may disclose it as the law requires,
with Discloser's help.
4. Term and Termination. This NDA starts on the Effective Date and
expires at the end of the Term.
5. General. Neither party must disclose anything. The parties
6. agree to nothing else.
"""


def test_clauses_numbered_on_after_a_heading_are_its_siblings() -> None:
    sections = {s.section_id: s for s in parse_sections(NDA, "NDA")}
    assert sections["section-4"].heading == "4. Term and Termination"
    assert sections["section-4"].path == ()
    assert sections["section-5"].heading == "5. General"
    assert "section-6" not in sections  # "6. agree to ..." is a line of clause 5


GLOSSARY = """\
#### Appendix B—Glossary

CE | See Cryptographic Erase.
Clear | A method of Sanitization by applying logical techniques to sanitize data.
FIPS | Federal Information Processing Standard.
CIO | Chief Information Officer
"""

ACRONYMS = """\
#### Appendix C—Acronyms and Abbreviations

Selected acronyms | and abbreviations used in this publication are defined below.
FIPS | Federal Information Processing Standard
MDM | Mobile Device Management
"""


def terms(text: str) -> dict[str, str]:
    return {d.term: d.definition for d in find_definitions(text, in_definitions_section=True)}


def test_a_glossary_s_entries_are_its_rows_written_as_entries() -> None:
    """A long form alone ("CIO | Chief Information Officer") is the acronym's, no entry."""
    assert terms(GLOSSARY) == {
        "CE": "See Cryptographic Erase",
        "Clear": "A method of Sanitization by applying logical techniques to sanitize data",
        "FIPS": "Federal Information Processing Standard",
    }


def test_an_acronym_list_defines_nothing() -> None:
    assert terms(ACRONYMS) == {}


GUIDE = """\
# Guide

## 3. Technologies

### 3.1 Components

### 3.2 Capabilities

## 3. User Authentication

## 4. Applications

## 4. Life Cycle

### 4.1 Initiation

### 4.2 Development
"""


def test_of_headings_sharing_a_number_the_one_numbering_within_it_keeps_it() -> None:
    """A list set as headings ("3. User Authentication", "4. Applications" inside 3.2) next
    to the chapters "3." and "4.": the chapter whose next section is "4.1" is section-4."""
    sections = {s.section_id: s for s in parse_sections(GUIDE, "Guide")}
    assert sections["section-3"].heading == "3. Technologies"
    assert sections["section-4"].heading == "4. Life Cycle"
    assert sections["section-4-1"].path[-1] == "section-4"
