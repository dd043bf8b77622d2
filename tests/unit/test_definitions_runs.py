"""Glossaries found by their shape: three or more entries written alike (term, separator,
text) define their terms wherever they stand; runs of the same shape that are clauses,
parties, addresses, change logs or lead-ins define nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from hierdoc import Index
from hierdoc.config import Settings
from hierdoc.pipeline.extract.definitions import find_definitions, is_definitions_heading
from tests.hash_embedder import HashEmbedder


def pairs(text: str) -> list[tuple[str, str]]:
    return [(d.term, d.definition) for d in find_definitions(text)]


BOLD_COLON = """We keep to the law on personal data.

- **Controller**: the person who decides why and how personal data is processed.
- **Processor**: a person who processes personal data on behalf of the controller.
- **Data Subject**: the individual whom the personal data is about.
"""

DASH_PARAGRAPHS = """Account – the record we keep of your use of the Service.

Content – any text, images or other material you upload.

Device – a computer, phone or tablet that can reach the Service.
"""

BOLD_LINE_BREAK = """**Database**
A collection of data arranged so that its contents can be read.

**Extraction**
The copying of all or part of the contents of a database.

**Licensor**
The party who offers the database under this licence.
"""

NUMBERED_REFERS = """(b) Categories of requesters.

(i) Commercial user refers to one who seeks information for a commercial purpose.

(ii) Educational institution refers to a school that operates a program of teaching.

(iii) Representative of the news media refers to any person who gathers news.
"""

FIELD_DESCRIPTIONS = """| Field | Description |
|---|---|
| Author | The list of persons who are credited with the work |
| Copyright holder | The legal entity holding the copyright |
| Contact | Contact points for information on the dataset |
"""

ITALIC_COLON_INSIDE = """- *Controller:* the person who decides why data is processed.
- *Processor:* a person who processes data for the controller.
- *Data Subject:* the individual whom the data is about.
"""

TWO_COLUMN_TABLE = """| Role | Responsibility |
|---|---|
| Owner | The person accountable for the asset and its protection. |
| Custodian | The team that keeps the asset day to day. |
| User | Anyone who reads or changes the asset. |
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            BOLD_COLON,
            [
                ("Controller", "the person who decides why and how personal data is processed"),
                ("Processor", "a person who processes personal data on behalf of the controller"),
                ("Data Subject", "the individual whom the personal data is about"),
            ],
        ),
        (
            DASH_PARAGRAPHS,
            [
                ("Account", "the record we keep of your use of the Service"),
                ("Content", "any text, images or other material you upload"),
                ("Device", "a computer, phone or tablet that can reach the Service"),
            ],
        ),
        (
            BOLD_LINE_BREAK,
            [
                ("Database", "A collection of data arranged so that its contents can be read"),
                ("Extraction", "The copying of all or part of the contents of a database"),
                ("Licensor", "The party who offers the database under this licence"),
            ],
        ),
        (
            NUMBERED_REFERS,
            [
                ("Commercial user", "one who seeks information for a commercial purpose"),
                ("Educational institution", "a school that operates a program of teaching"),
                ("Representative of the news media", "any person who gathers news"),
            ],
        ),
        (
            TWO_COLUMN_TABLE,
            [
                ("Owner", "The person accountable for the asset and its protection"),
                ("Custodian", "The team that keeps the asset day to day"),
                ("User", "Anyone who reads or changes the asset"),
            ],
        ),
        (
            FIELD_DESCRIPTIONS,
            [
                ("Author", "The list of persons who are credited with the work"),
                ("Copyright holder", "The legal entity holding the copyright"),
                ("Contact", "Contact points for information on the dataset"),
            ],
        ),
        (
            ITALIC_COLON_INSIDE,
            [
                ("Controller", "the person who decides why data is processed"),
                ("Processor", "a person who processes data for the controller"),
                ("Data Subject", "the individual whom the data is about"),
            ],
        ),
    ],
    ids=[
        "bold-colon",
        "dash-paragraphs",
        "bold-line-break",
        "numbered-refers-to",
        "table",
        "field-descriptions",
        "italic-colon-inside",
    ],
)
def test_a_run_of_like_entries_is_a_glossary(text: str, expected: list[tuple[str, str]]) -> None:
    assert pairs(text) == expected


def test_a_bold_term_on_a_paragraph_of_its_own() -> None:
    """ "**Term**", a blank line, then its text: the text is the term's, and the next bold
    paragraph continues the run."""
    spaced = BOLD_LINE_BREAK.replace("**\n", "**\n\n")
    assert [term for term, _ in pairs(spaced)] == ["Database", "Extraction", "Licensor"]


def test_an_entry_s_points_do_not_end_the_run() -> None:
    """Points under an entry (indented, or lettered under unnumbered entries) belong to it."""
    pointed = (
        "**Contents** – the contents of this Database, which include:\n\n(a) the data; and"
        "\n\n(b) the index.\n\n**Database** – a collection of material arranged in a "
        "systematic way.\n\n**Licensor** – the party that offers the Database.\n"
    )
    assert [term for term, _ in pairs(pointed)] == ["Contents", "Database", "Licensor"]


PDF_GLOSSARY = """Framework glossary
Buyer: The people or organizations that consume a given product or
service.
Category: The subdivision of a Function into groups of cybersecurity
outcomes.
Cybersecurity: The process of protecting information by preventing, detecting, and
responding to attacks.
"""


def test_entries_on_lines_of_their_own_without_blank_lines() -> None:
    """Text from a PDF: each entry opens a line after one ending a sentence (or a title);
    wrapped lines continue the entry above."""
    assert pairs(PDF_GLOSSARY) == [
        ("Buyer", "The people or organizations that consume a given product or service"),
        ("Category", "The subdivision of a Function into groups of cybersecurity outcomes"),
        (
            "Cybersecurity",
            "The process of protecting information by preventing, detecting, and responding"
            " to attacks",
        ),
    ]


def test_sentences_broken_at_a_colon_are_no_entries() -> None:
    """Lines of a paragraph whose opening words hold a pronoun are sentences."""
    prose = (
        "The parser reads the file. It stops at the end.\nThen it writes: the output to disk.\n"
        "Later it closes: the file and the stream.\nFinally it exits: with a status of zero.\n"
    )
    assert pairs(prose) == []


def test_bold_sub_headings_are_no_glossary() -> None:
    """Bold paragraphs heading a policy's parts ("**Scope**") are no terms."""
    headed = (
        "**Purpose**\n\nThe purpose of this policy is to protect data.\n\n"
        "**Scope**\n\nThe policy applies to all staff.\n\n"
        "**Enforcement**\n\nA breach of this policy leads to discipline.\n"
    )
    assert pairs(headed) == []


def test_an_entry_naming_two_terms_defines_both() -> None:
    text = NUMBERED_REFERS.replace("Commercial user refers", "Commercial user or User refers")
    assert [term for term, _ in pairs(text)][:2] == ["Commercial user", "User"]


def test_a_gloss_in_an_entry_does_not_take_its_term() -> None:
    """A bullet run whose entry holds a quoted gloss in parentheses, and an entry named by a
    word that also heads sections ("Contact"): all three entries are the glossary's."""
    roles = (
        "AIDA uses the following roles:\n\n"
        "● Author: The list of persons who are credited with the work.\n"
        '● Copyright holder: The legal entity holding the copyright ("upphovsrätt").\n'
        "● Contact: Contact points for information on the dataset.\n"
    )
    assert [term for term, _ in pairs(roles)][:3] == ["Author", "Copyright holder", "Contact"]


def test_two_entries_are_no_run() -> None:
    """Two "Term – text" paragraphs may be a coincidence; the third makes the style."""
    two = DASH_PARAGRAPHS.rsplit("\n\n", 1)[0] + "\n"
    assert pairs(two) == []


def test_an_entry_of_another_shape_ends_the_run() -> None:
    """A colon entry between dash entries breaks the run: neither part has three."""
    mixed = DASH_PARAGRAPHS.replace("Content – any", "Content: any")
    assert pairs(mixed) == []


NUMBERED_CLAUSES = """1. Payment: Customer shall pay all fees within 30 days of the invoice date.
2. Term: This Agreement starts on the Effective Date and lasts for one year.
3. Termination: Either party may end this Agreement on 30 days notice.
"""

HEADED_SUBSECTIONS = """(a) In general.—The Secretary of State shall consult with the Committees.

(b) Report.—A report under this section is due each year.

(c) Implementation.—The Secretary shall issue rules to carry out this section.
"""

NUMBERED_HEADINGS_OF_CONTENT = """(1) Account number. The number of the account.

(2) Account balances. The balance in the account at the beginning of the period.

(3) Fees. The amount of any fee charged during the period.
"""

PARTIES = """- **Licensor**: Acme Corp, a Delaware corporation
- **Licensee**: Foo Ltd
- **Effective Date**: 1 January 2024
"""

ADDRESS = """Name: John Smith
Address: 123 Main Street
Phone: 555-1234
Email: john@example.com
"""

CHANGE_LOG = """- v1.2: Fixed the parser.
- v1.1: Added tables.
- v1.0: First release.
"""

LEAD_INS = """- **Account information**: When you create an account, we collect your name.
- **Usage data**: We record which pages you visit.
- **Cookies**: We use cookies to remember you.
"""

HEADER_EXAMPLES = """Content-Disposition: attachment; filename=example.html

Content-Disposition: inline; filename="an example.html"

Content-Disposition: attachment; filename="EURO rates"
"""

RANGES = """- The first 500 bytes: bytes 0-499/1234
- The second 500 bytes: bytes 500-999/1234
- The last 500 bytes: bytes 734-1233/1234
"""

PROSE = """An HTTP cache is a local store of response messages.

A response's age is the time that has passed since it was generated.

The Hypertext Transfer Protocol is a stateless request/response protocol.
"""

VALUES = """Extension data: x bytes

Application data: y bytes

Payload data: (x+y) bytes
"""

FRONT_MATTER = """**Reports on Computer Systems Technology**
The Laboratory develops tests, test methods and reference data.

**Abstract**
Media sanitization refers to a process that renders data unreadable.

**Keywords**
media sanitization; ensuring confidentiality; sanitization tools.
"""

NAMES = """- FedRAMP PMO: FedRAMP Director
- Agency: Authorizing Official (AO)
- JAB Team: Joint Authorization Board (JAB)
- Provider: the company that offers the cloud service
"""

FIELDS = """| Field | Value |
|---|---|
| Signature Algorithm | sha256WithRSAEncryption or ecdsa-with-SHA384 |
| ThisUpdate | The date and time when the list was issued |
| NextUpdate | Up to ThisUpdate plus one year |
| CRLnumber | The serial number of this list |
"""

CODES = """| PR.PT-3 | The principle of least functionality is incorporated in systems. |
| PR.PT-4 | Communications and control networks are protected. |
| PR.PT-5 | Mechanisms are implemented to achieve resilience requirements. |
"""


@pytest.mark.parametrize(
    "text",
    [
        NUMBERED_CLAUSES,
        HEADED_SUBSECTIONS,
        NUMBERED_HEADINGS_OF_CONTENT,
        PARTIES,
        ADDRESS,
        CHANGE_LOG,
        LEAD_INS,
        HEADER_EXAMPLES,
        RANGES,
        PROSE,
        CODES,
        VALUES,
        FRONT_MATTER,
        NAMES,
        FIELDS,
    ],
    ids=[
        "numbered-clauses",
        "headed-subsections",
        "numbered-headings",
        "parties",
        "address",
        "change-log",
        "lead-ins",
        "header-examples",
        "ranges",
        "prose",
        "codes",
        "values",
        "front-matter",
        "names",
        "fields",
    ],
)
def test_runs_of_the_same_shape_that_are_no_glossary(text: str) -> None:
    assert pairs(text) == []


# --- asking for a glossary's term as a user would -------------------------------------------


@contextmanager
def ingested(tmp_path: Path, document: str) -> Iterator[Index]:
    """An index holding one Markdown document."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "document.md").write_text(document, encoding="utf-8")
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:  # type: ignore[arg-type]
        index.ingest([tmp_path / "docs"])
        yield index


def answers(tmp_path: Path, document: str, *asked: str) -> list[list[tuple[str, str]]]:
    """What ``Index.define`` answers for each question, over one ingested document."""
    with ingested(tmp_path, document) as index:
        return [[(d.term, d.definition) for d in index.define(a).definitions] for a in asked]


@pytest.mark.parametrize(
    "asked",
    ["Data Subject", "data subject", "the data subject", "DATA SUBJECTS", "data subjects"],
)
def test_define_answers_a_glossary_term_however_it_is_asked(tmp_path: Path, asked: str) -> None:
    """With or without an article, in either number, in any case; not a longer word."""
    policy = "# Privacy policy\n\n## Words we use\n\n" + BOLD_COLON + "\n## Rights\n\nAsk us.\n"
    found, other = answers(tmp_path, policy, asked, "data subjection")
    assert found == [("Data Subject", "the individual whom the personal data is about")]
    assert other == []


def test_define_prefers_the_form_asked(tmp_path: Path) -> None:
    """A document defining both "Party" and "Parties" answers each with its own."""
    deal = (
        "# Deal\n\n## 1. Definitions\n\n“Party” means either of the signatories.\n\n"
        "“Parties” means both signatories together.\n"
    )
    party, parties = answers(tmp_path, deal, "party", "the parties")
    assert party == [("Party", "either of the signatories")]
    assert parties == [("Parties", "both signatories together")]


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("3. Key Concepts", True),
        ("ROLES AND RESPONSIBILITIES", False),
        ("## Vocabulary", True),
        ("Nomenclature", True),
        ("Concepts of operation", False),
        ("Role of the Board", False),
    ],
)
def test_headings_that_name_a_definitions_section(heading: str, expected: bool) -> None:
    assert is_definitions_heading(heading) is expected


HEADED_GLOSSARY = """# Our service

## Words we use

### Account

The record we keep of your use of the service.

### Content

Any text, images or other material you upload.

### Device

A device is a computer, phone or tablet that can reach the service.

## Your rights

You may ask us for your data.
"""

HEADED_POLICY = """# Security policy

## Controls

### Encryption

All laptops are encrypted with full disk encryption.

### Access

The company restricts access to those who need it.

### Logging

The security team shall keep logs for a year.
"""


def stored(tmp_path: Path, document: str) -> list[tuple[str, str]]:
    with ingested(tmp_path, document) as index:
        return [(d.term, d.definition) for d in index.store.all_definitions()]


def test_sibling_sections_headed_by_terms_are_a_glossary(tmp_path: Path) -> None:
    """Three sections in a row, each a short term over a short text that opens as its
    definition, under a heading that does not say so ("Words we use")."""
    assert stored(tmp_path, HEADED_GLOSSARY) == [
        ("Account", "The record we keep of your use of the service"),
        ("Content", "Any text, images or other material you upload"),
        ("Device", "A device is a computer, phone or tablet that can reach the service"),
    ]


def test_sibling_sections_of_a_policy_are_no_glossary(tmp_path: Path) -> None:
    """Sections whose texts are statements ("All laptops are encrypted", "shall keep")."""
    assert stored(tmp_path, HEADED_POLICY) == []
