"""Definitions outside the "X means" sentence: definition lists, key-terms tables, text
tables under a Term/Definition header, grouping parentheses, prose in definitions sections."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.convert import convert_file
from hierdoc.pipeline.extract.definitions import find_definitions, is_definitions_heading
from hierdoc.pipeline.extract.document import extract_document
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer
from tests.paths import REPOSITORY
from tests.realdocs.gold import GoldDefinition
from tests.realdocs.harness import defines

GOLD = REPOSITORY / "benchmarks" / "definitions_gold"


def _pairs(text: str, in_section: bool = False) -> dict[str, str]:
    return {d.term: d.definition for d in find_definitions(text, in_section)}


# --- HTML definition lists, as markdownify writes them ---------------------------------------

DEFINITION_LIST = """## Terminology

amplification attack
:   A class of attack where the attacker attempts to exhaust a target system's
    resources by providing small, valid inputs.

decentralized identifier (DID)
:   A globally unique persistent identifier that does not require a
    [registration authority](#authority).

    A second paragraph of the same description.

Source Distribution (or "sdist")[¶](#term-sdist "Link to this term")
:   A distribution format that is not built.

License Expression[¶](#term-License-Expression "Link to this term")

SPDX Expression[¶](#term-SPDX-Expression "Link to this term")
:   A string with valid SPDX license expression syntax.
"""


def test_each_term_of_a_definition_list_is_defined_by_its_description() -> None:
    found = _pairs(DEFINITION_LIST)
    assert found["amplification attack"].startswith("A class of attack where the attacker")
    # the abbreviation is the acronyms' to link; a link reads as its text
    assert found["decentralized identifier"].startswith(
        "A globally unique persistent identifier that does not require a registration authority."
    )
    assert "A second paragraph" in found["decentralized identifier"]
    assert found["Source Distribution"] == "A distribution format that is not built"
    assert found["sdist"]  # "(or "sdist")" names it too
    # Sphinx's terms sharing one description, each with its own link
    assert found["License Expression"] == found["SPDX Expression"]


def test_a_question_or_an_api_signature_in_a_definition_list_is_no_term() -> None:
    text = (
        "How do I reset my password?\n:   Use the link on the sign-in page.\n\n"
        "Index.search(query, limit=10)\n:   Search the index and return results.\n"
    )
    assert _pairs(text) == {}


def test_html_definition_list_reaches_the_extractor(tmp_path: Path) -> None:
    page = tmp_path / "glossary.html"
    page.write_text(
        "<html><body><h2>Terms</h2><dl><dt><dfn>binding</dfn></dt><dd>A concrete mechanism "
        "used by a caller to invoke a resolver.</dd></dl></body></html>",
        encoding="utf-8",
    )
    text = convert_file(page).text
    assert _pairs(text) == {"binding": "A concrete mechanism used by a caller to invoke a resolver"}


# --- a cover page's key terms ----------------------------------------------------------------

KEY_TERMS = """| **Purpose** **How Confidential Information may be used** | {purpose} |
| --- | --- |
| **Effective Date** | {effective_date} |
| **Governing Law** | The laws of the State of {governing_law}. |
| **Jurisdiction** | The state and federal courts located in {jurisdiction}. |
| **Order Form** The key terms of this Agreement are as follows: |  |

|  | **PARTY 1** |  | **PARTY 2** |
| --- | --- | --- | --- |
| **Signature** |  |  |  |
| **Print Name** | {party_1_name} |  | {party_2_name} |
| **Title** | {party_1_title} |  | {party_2_title} |
"""


def test_a_key_terms_table_defines_each_bold_name_by_its_value() -> None:
    found = _pairs(KEY_TERMS)
    assert found == {
        "Purpose": "How Confidential Information may be used: {purpose}",
        "Governing Law": "The laws of the State of {governing_law}",
        "Jurisdiction": "The state and federal courts located in {jurisdiction}",
    }


OFFER_TERMS = """| **Employer** | [Legal name of the employer] |
| --- | --- |
| **Employment Type** | [Employment basis] |
| **Term** | [ # ] {term_length_unit} |
| **Pilot Period** | {pilot_period} |
| **Fees** | [Drafting note: If there are fees, list them here.] |
| **Governing Law** | California |
"""


def test_a_value_that_is_only_a_blank_to_fill_in_defines_nothing() -> None:
    # the blanks still make the table a key-terms table: its one real value is read
    assert _pairs(OFFER_TERMS) == {"Governing Law": "California"}


def test_a_spacer_column_empty_in_every_row_does_not_count() -> None:
    spaced = (
        KEY_TERMS.split("\n\n")[0]
        .replace(" |\n", " |  |\n")
        .replace("| --- | --- |  |", "| --- | --- | --- |")
    )
    assert _pairs(spaced) == _pairs(KEY_TERMS)


def test_a_plain_two_column_table_defines_nothing() -> None:
    table = (
        "| Country | Capital |\n| --- | --- |\n| France | Paris |\n| Spain | Madrid |\n"
        "| Italy | Rome |\n| Portugal | Lisbon |\n"
    )
    assert _pairs(table) == {}
    bold_sentences = (
        "| **Note** | a |\n| --- | --- |\n| **The fees are due monthly.** | b |\n"
        "| **Call us now** | c |\n| **Read this first:** | d |\n"
    )
    assert _pairs(bold_sentences) == {}


# --- Term<TAB>Definition tables in plain text -------------------------------------------------

COLUMNS = """1.2.1 In the Rulebooks the following terms have the meanings below.

Defined Terms\tDefinitions
1P\tMeans the low estimate scenario of Petroleum Reserves.
Accepted Spot Commodity\tHas the meaning given in section 258 of FSMR.
Accounting Records\tMeans records and underlying documents such as:
(a)\tcheques;

(b)\tinvoices.
Payment Service Provider
\tHas the meaning given in section 258 of FSMR.
Relevant Provisions\tMeans, in relation to COBS, "relevant provisions" means any rules.

1.2.2 This Rule applies to every Person.
"""


def test_rows_under_a_term_definition_header_are_definitions() -> None:
    found = {d.term: d for d in find_definitions(COLUMNS)}
    assert found["1P"].definition == "the low estimate scenario of Petroleum Reserves"
    assert found["Accepted Spot Commodity"].style == "pointer"
    assert found["Accepted Spot Commodity"].definition == "the meaning given in section 258 of FSMR"
    # the points, across a blank line, belong to the row above
    assert found["Accounting Records"].definition.endswith("(a) cheques; (b) invoices")
    assert found["Payment Service Provider"].style == "pointer"
    assert found["Relevant Provisions"].definition.startswith("in relation to COBS")
    assert not any(term.startswith("(") or term == "1.2.2" for term in found)


def _document_definitions(path: Path) -> list:
    document = convert_file(path)
    sections = parse_sections(document.text, document.title)
    chunks = chunk_document(document, sections, default_tokenizer())
    return extract_document(sections, chunks)[1].definitions


def test_a_table_the_outline_cuts_into_sections_is_read_whole(tmp_path: Path) -> None:
    # "2U<TAB>Means ..." reads as a numbered rule and "(a)" as its point: the outline cuts
    # the table into sections, yet every row is one definition, its points its text
    text = (
        "1.\tINTRODUCTION\n1.1\tDefined Terms\n1.1.1\tIn the Rulebooks words have the "
        "meanings below.\n\nDefined Terms\tDefinitions\n"
        "2P\tMeans the best estimate scenario of Petroleum Reserves.\n"
        "2U\tMeans the best estimate of the quantity that will be recovered.\n"
        "Accounting Records\tMeans records and underlying documents such as:\n"
        "(a)\tcheques;\n(b)\tinvoices.\n"
        'Close Links\tA Person ("Person A") has Close Links with another Person if:\n'
        "(a)\tit is a Subsidiary of Person A.\n"
        "Payment Service Provider\n\tHas the meaning given in section 258 of FSMR.\n"
    )
    path = tmp_path / "glossary.txt"
    path.write_text(text, encoding="utf-8")
    sections = parse_sections(convert_file(path).text, "Glossary")
    assert len({s.section_id for s in sections}) > 4  # the outline did cut the table
    found = {d.term: d.definition for d in _document_definitions(path)}
    assert found == {
        "2P": "the best estimate scenario of Petroleum Reserves",
        "2U": "the best estimate of the quantity that will be recovered",
        "Accounting Records": "records and underlying documents such as: (a) cheques; (b) invoices",
        "Close Links": 'A Person ("Person A") has Close Links with another Person if: '
        "(a) it is a Subsidiary of Person A.",
        "Payment Service Provider": "the meaning given in section 258 of FSMR",
    }


SPACED_LIST = """5.4.1.  Internet Media Type multipart/byteranges

   Type name:  multipart

   Subtype name:  byteranges

   Encoding considerations:  only "7bit", "8bit", or "binary" are
   permitted

   The comparison is defined as follows:  two entity tags match.

   Note:  the boundary parameter is required.
"""


def test_an_rfcs_plain_text_definition_list_is_read_anywhere() -> None:
    assert _pairs(SPACED_LIST) == {
        "Type name": "multipart",
        "Subtype name": "byteranges",
        "Encoding considerations": 'only "7bit", "8bit", or "binary" are permitted',
    }
    # one entry alone is a sentence set off by a colon, not a list
    assert _pairs("   Strong comparison:  two entity tags are equivalent.\n") == {}


def test_a_definition_ending_in_a_colon_takes_the_points_split_off_after_it(
    tmp_path: Path,
) -> None:
    text = (
        "Regulation G\n\n\u00a7 1007.102 Definitions\n\n   For purposes of this part:\n\n"
        "   Mortgage loan originator means:\n\n   (1) An individual who:\n\n"
        "      (i) Takes a residential mortgage loan application; and\n\n"
        "      (ii) Offers terms of a loan for compensation.\n\n"
        "\u00a7 1007.103 Registration\n\n   Each originator registers.\n"
    )
    path = tmp_path / "regulation.txt"
    path.write_text(text, encoding="utf-8")
    found = {d.term: d.definition for d in _document_definitions(path)}
    assert found == {
        "Mortgage loan originator": "(1) An individual who: (i) Takes a residential mortgage "
        "loan application; and (ii) Offers terms of a loan for compensation"
    }


def test_a_definition_lists_long_terms_and_descriptions_opening_with_this() -> None:
    text = (
        "Published specification\n: This specification (see Appendix A).\n\n"
        "Person and email address to contact for further information\n: See Authors Section.\n"
    )
    assert _pairs(text) == {
        "Published specification": "This specification (see Appendix A)",
        "Person and email address to contact for further information": "See Authors Section",
    }


def test_tab_lines_without_a_header_define_nothing() -> None:
    text = "Zone\tTime band\nZone 1\tover 1 year\nZone 2\tunder 1 year\n"
    assert _pairs(text) == {}


# --- grouping parentheses and prose in a definitions section ---------------------------------


def test_a_group_named_with_its_kin_is_named_whole() -> None:
    text = (
        "This Agreement is entered into by and between Media News Group, Inc. and its "
        "subsidiaries and affiliates (collectively, the “Disclosing Party”) and Reader LLC. "
        "Information of CEDC or any of its Subsidiaries (defined below) (together, the "
        "“CEDC Group”) is confidential."
    )
    found = _pairs(text)
    assert found["Disclosing Party"] == "Media News Group, Inc. and its subsidiaries and affiliates"
    assert found["CEDC Group"] == "CEDC or any of its Subsidiaries"


@pytest.mark.parametrize(
    ("text", "term", "named"),
    [
        (
            'The Company and its Affiliates (together, the "Company Group") agree.',
            "Company Group",
            "The Company and its Affiliates",
        ),
        (
            'The shares, options and warrants (together, "Securities") are held.',
            "Securities",
            "The shares, options and warrants",
        ),
        (
            'Acme Inc. and Beta LLC (collectively, the "Parties") agree.',
            "Parties",
            "Acme Inc. and Beta LLC",
        ),
        ('Acme Inc. and Beta LLC (each, a "Party") agree.', "Party", "Acme Inc. and Beta LLC"),
        (
            "We may offer all of the contributions you make, including text and recordings "
            "(the “Contributions”) to the public.",
            "Contributions",
            "all of the contributions you make, including text and recordings",
        ),
    ],
)
def test_a_parenthesis_names_the_group_before_it(text: str, term: str, named: str) -> None:
    assert _pairs(text)[term] == named


PROSE = """## Definitions

The following terms are used in this document.

Authenticator is a means used to confirm the identity of a user.

Relying parties are entities that rely on the subscriber's authenticator.

Verifier: an entity that verifies the claimant's identity.

A specific kind of: distribution that holds compiled extensions.

This section is informative.
"""


def test_prose_in_a_definitions_section_defines_its_subjects() -> None:
    assert _pairs(PROSE) == {
        "Authenticator": "a means used to confirm the identity of a user",
        "Relying parties": "entities that rely on the subscriber's authenticator",
        "Verifier": "an entity that verifies the claimant's identity",
    }
    # the same prose outside a definitions section is an ordinary paragraph
    outside = _pairs(PROSE.replace("## Definitions", "## Overview"))
    assert "Authenticator" not in outside and "Relying parties" not in outside


def test_a_lettered_appendix_section_is_a_definitions_heading() -> None:
    assert is_definitions_heading("A.1 Definitions")
    assert is_definitions_heading("Appendix A.2 Glossary")
    assert not is_definitions_heading("A.1 Scope")


# --- the committed gold documents, end to end -------------------------------------------------


@pytest.mark.parametrize(
    "gold_file",
    sorted(p.name for p in GOLD.glob("*.gold.yaml") if (GOLD / "docs").exists()),
)
def test_committed_gold_documents(gold_file: str) -> None:
    data = yaml.safe_load((GOLD / gold_file).read_text(encoding="utf-8"))
    path = GOLD / data["document"]
    if not path.exists():
        pytest.skip(f"{data['document']} is a dataset document")
    gold = [
        GoldDefinition(str(d["term"]), str(d["starts"]), bool(d.get("optional")))
        for d in data["definitions"]
    ]
    document = convert_file(path)
    sections = parse_sections(document.text, document.title)
    chunks = chunk_document(document, sections, default_tokenizer())
    found = [(d.term, d.definition) for d in extract_document(sections, chunks)[1].definitions]
    right = [(t, d) for t, d in found if any(defines(g, t, d) for g in gold)]
    required = [g for g in gold if not g.optional]
    hits = [g for g in required if any(defines(g, t, d) for t, d in right)]
    assert len(right) / len(found) >= 0.95
    assert len(hits) / len(required) >= 0.9


# --- a standard's numbered terms and definitions ---------------------------------------------

ENTRIES = """## 3 Terms and definitions

For the purposes of this document, the following terms and definitions apply.

3.1
access control
means to ensure that access to assets is authorized

3.2 attack
attempt to destroy, expose or alter an asset

3.3 Fees
The fees are set out in Schedule 2.

3.4 Definitions
In this Agreement:
"""


def test_numbered_entries_of_a_terms_and_definitions_clause() -> None:
    assert _pairs(ENTRIES) == {
        "access control": "means to ensure that access to assets is authorized",
        "attack": "attempt to destroy, expose or alter an asset",
    }
    headed = "### 3.2 attack\nattempt to destroy, expose or alter an asset\n"
    assert _pairs(headed, in_section=True) == {
        "attack": "attempt to destroy, expose or alter an asset"
    }
    # a numbered sub-heading whose paragraph is a sentence is a clause, not an entry
    assert _pairs("### 3.3 Fees\nThe fees are set out in Schedule 2.\n", in_section=True) == {}


RFC_TERMINOLOGY = """1.3 Terminology

   This specification uses a number of terms to refer to the roles
   played by participants in the HTTP communication.

   connection
      A transport layer virtual circuit established between two programs
      for the purpose of communication.

   request
      An HTTP request message, as defined in section 5.
"""


def test_terms_with_indented_definitions_in_a_terminology_section() -> None:
    assert _pairs(RFC_TERMINOLOGY) == {
        "connection": "A transport layer virtual circuit established between two programs "
        "for the purpose of communication",
        "request": "An HTTP request message, as defined in section 5",
    }
    # the same layout outside a definitions section defines nothing
    assert _pairs(RFC_TERMINOLOGY.replace("Terminology", "Architecture")) == {}


def test_a_heading_then_its_indented_text_is_no_term() -> None:
    text = "Overall Operation\n\n   This section gives an overview of the protocol.\n"
    assert _pairs(text, in_section=True) == {}


def test_a_plural_verb_defines_both_unquoted_terms() -> None:
    text = (
        "## § 1030.2 Definitions.\n\n(j) Depository institution and institution mean an "
        "institution defined in section 19(b)(1)(A) of the Federal Reserve Act.\n\n"
        "(k) Terms and conditions means the rules of the account.\n"
    )
    found = _pairs(text)
    assert found["Depository institution"] == found["institution"]
    assert found["institution"].startswith("an institution defined in section 19(b)(1)(A)")
    assert found["Terms and conditions"] == "the rules of the account"


def test_terms_sharing_a_description_without_permalinks() -> None:
    """markdownify writes consecutive <dt> a blank line apart; with the permalink marks
    removed from the HTML, the terms are still one description's."""
    text = (
        "Wheel Format\n:   The binary distribution format.\n\n"
        "License Expression\n\nSPDX Expression\n:   A string with valid SPDX syntax.\n"
    )
    found = _pairs(text)
    assert (
        found["License Expression"]
        == found["SPDX Expression"]
        == ("A string with valid SPDX syntax")
    )
    # a paragraph before the list is no term
    assert "Introduction text" not in _pairs("Introduction text\n\nWheel\n:   A format.\n")


def test_template_control_tags_around_key_terms_are_no_part_of_them() -> None:
    """A cover page template wraps optional rows in "{IF ...}" / "{END-IF}": the rows are
    key terms all the same, and most rows still are, so the table defines its terms."""
    table = (
        "| **Key Terms** The key legal terms are as follows: |  |\n| --- | --- |\n"
        "| **Governing Law** | The laws of {governing_law} |\n"
        "| {IF has_covered_claims}**Covered Claims** **Claims covered by indemnity** |"
        " {covered_claims_display} {END-IF} |\n"
        "| {IF has_dpa}**DPA** **Data Processing Agreement** | {dpa_reference}{END-IF} |\n"
        "| {IF has_security}**Security Policy** | {security_policy} {END-IF} |\n"
        "| {IF has_cap}**Increased Cap** {cap_description} | {END-IF} |\n"
    )
    found = _pairs(table)
    assert found["Governing Law"] == "The laws of {governing_law}"
    assert found["Covered Claims"] == "Claims covered by indemnity: {covered_claims_display}"
    assert found["DPA"] == "Data Processing Agreement: {dpa_reference}"
    assert "Increased Cap" not in found


TITLED_GLOSSARY = """# Glossary

## base date

The date to which the text had been revised.

## extent

The geographical area within the UK to which legislation applies.

Each extent is one of, or a combination of, England and Wales.
"""


def test_a_document_titled_glossary_defines_each_heading_by_its_paragraph(tmp_path: Path) -> None:
    # the title heading is no section of its own: the terms' headings are the top level
    path = tmp_path / "glossary.md"
    path.write_text(TITLED_GLOSSARY, encoding="utf-8")
    found = {d.term: d.definition for d in _document_definitions(path)}
    assert found == {
        "base date": "The date to which the text had been revised",
        "extent": "The geographical area within the UK to which legislation applies",
    }


NUMBERED_PARAGRAPH_LICENCE = """                      SAMPLE PUBLIC LICENCE v. 2.0

This Sample Public Licence (the 'SPL') applies to the Work (as defined below).

1. Definitions

In this Licence, the following terms have the following meaning:

- 'The Original Work': the software distributed by the Licensor under this
  Licence, as Source Code or otherwise.

- 'The Licensor': the natural or legal person that distributes the Work
  under the Licence.

2. Obligations of the Licensee

Attribution right: The Licensee shall keep intact all copyright notices.

Notice clause: The Licensee must include a copy of the Licence.
"""


def test_a_definitions_paragraph_of_a_numbered_paragraph_licence_is_read_as_one(
    tmp_path: Path,
) -> None:
    # every clause is a numbered paragraph, none a heading: "1. Definitions" is still the
    # definitions section, and only it ("Attribution right: ..." in clause 2 is a duty)
    path = tmp_path / "licence.txt"
    path.write_text(NUMBERED_PARAGRAPH_LICENCE, encoding="utf-8")
    found = {d.term: (d.section_id, d.definition) for d in _document_definitions(path)}
    assert found["The Original Work"] == (
        "section-1",
        "the software distributed by the Licensor under this Licence, as Source Code or otherwise",
    )
    assert found["The Licensor"][0] == "section-1"
    assert found["The Licensor"][1].startswith("the natural or legal person that distributes")
    assert "Attribution right" not in found and "Notice clause" not in found


def test_bold_terms_with_a_colon_in_a_definition_list() -> None:
    text = (
        "PEP:\n:   609\n\nStatus:\n:   Active\n\n"
        "Relevant terms used in this PEP:\n\n"
        "**PyPA members**:\n:   Anyone with the commit bit on at least one project in\n"
        "    the [PyPA organization](https://github.com/pypa).\n\n"
        "**PyPA community**:\n:   Anyone who is interested in PyPA activity.\n"
    )
    found = [(item.term, item.definition) for item in find_definitions(text)]
    assert found == [
        (
            "PyPA members",
            "Anyone with the commit bit on at least one project in the PyPA organization",
        ),
        ("PyPA community", "Anyone who is interested in PyPA activity"),
    ]


def test_registration_template_records_are_not_a_glossary() -> None:
    records = "".join(
        f"   Header field name:  {name}\n   Applicable protocol:  Mail\n"
        "   Status:  standard\n   Author/Change controller:  IETF\n\n"
        for name in ("Date", "From", "Sender")
    )
    glossary = (
        "   Strong comparison:  two entity tags are equivalent if both are not weak.\n\n"
        "   Weak comparison:  two entity tags are equivalent if their opaque-tags match.\n"
    )
    found = [(item.term, item.definition) for item in find_definitions(records + glossary)]
    assert found == [
        ("Strong comparison", "two entity tags are equivalent if both are not weak"),
        ("Weak comparison", "two entity tags are equivalent if their opaque-tags match"),
    ]
    # two records of a media type registration still define their fields
    two = "".join(
        f"   Type name:  {name}\n\n   Subtype name:  http\n\n"
        for name in ("message", "application")
    )
    assert {item.term for item in find_definitions(two)} == {"Type name", "Subtype name"}


def test_a_term_colon_means_entry_is_a_definition_whatever_word_opens_it() -> None:
    """A French licence's "Agreement: means this license agreement": "means" says it is a
    definition, though "this" opens its text (as "We use ..." opens no definition)."""
    text = (
        "Agreement: means this license agreement, and its possible subsequent\n"
        "versions and annexes.\n\n"
        "Software: means the software in its Object Code and/or Source Code form.\n"
    )
    pairs = _pairs(text, in_section=True)
    assert pairs["Agreement"].startswith("this license agreement, and its possible")
    assert "Software" in pairs
