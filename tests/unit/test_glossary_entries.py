"""Glossary entries as standards and government guidance lay them out: numbered term
headings set off by a dash ("2.4 - Documented Evidence"), printed bullet glyphs before
"Term – definition" lines, and definitions clauses named by a list ("Terms, Definitions and
Examples")."""

from __future__ import annotations

from pathlib import Path

from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.convert import convert_file
from hierdoc.pipeline.extract.definitions import find_definitions
from hierdoc.pipeline.extract.document import extract_document
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer


def _pairs(text: str, in_section: bool = False) -> dict[str, str]:
    return {d.term: d.definition for d in find_definitions(text, in_section)}


BULLETED = """## Appendix B: Definitions

The following is a list of definitions for this document:

● Attack Vector – A prescribed attack scenario based on attack models and real-world threats.
● Cloud Service Provider (CSP) – The entity responsible for the deployment, maintenance, and
security of the authorized system.
▪ Tenant – A customer instance of a cloud service.
"""


def test_printed_bullet_glyphs_open_glossary_lines() -> None:
    pairs = _pairs(BULLETED, in_section=True)
    assert pairs["Attack Vector"].startswith("A prescribed attack scenario")
    assert pairs["Cloud Service Provider (CSP)"] == (
        "The entity responsible for the deployment, maintenance, and security of the "
        "authorized system"
    )
    assert pairs["Tenant"] == "A customer instance of a cloud service"


ENTRIES = """2. Terms and Definitions
2.3 Artificial Intelligence System Bill of Materials Compliance (AI SBOM
Compliance)
a compliance activity related to AI that uses a bill of materials
2.4 - compliance artifacts
a collection of artifacts that represent the output of a compliance program and
accompany the supplied software
2.5 - identified licenses
a set of licenses identified as a result of following an appropriate method
"""


def test_a_dash_may_set_an_entry_number_off_from_its_term() -> None:
    pairs = _pairs(ENTRIES, in_section=True)
    # a long term's short form in parentheses may wrap onto the next line
    assert pairs[
        "Artificial Intelligence System Bill of Materials Compliance (AI SBOM Compliance)"
    ] == ("a compliance activity related to AI that uses a bill of materials")
    assert pairs["compliance artifacts"].startswith("a collection of artifacts that represent")
    assert pairs["identified licenses"].startswith("a set of licenses identified")


SPECIFICATION = """# Reference Specification

## 2: Terms, Definitions and Examples

For the purposes of this document, the following terms and definitions apply.

### 2.1 - Component Records

A Component Record should consist of a Supplier Name, Component Name and Version.

### 2.4 - Documented Evidence

This is explicit stored information that outlines, explains or records information.

### 2.8 - Program

The set of policies, processes and personnel that comprise an organization's program.

## 3 - Requirements

### 3.1 - Policy

A written policy will be created that governs Security Assurance of Supplied Software.
"""


def test_numbered_term_headings_under_a_terms_clause_define_their_terms(tmp_path: Path) -> None:
    path = tmp_path / "specification.md"
    path.write_text(SPECIFICATION, encoding="utf-8")
    document = convert_file(path)
    sections = parse_sections(document.text, document.title)
    chunks = chunk_document(document, sections, default_tokenizer())
    _, extraction = extract_document(sections, chunks)
    pairs = {d.term: d.definition for d in extraction.definitions}
    assert pairs == {
        "Component Records": (
            "A Component Record should consist of a Supplier Name, Component Name and Version"
        ),
        "Documented Evidence": (
            "This is explicit stored information that outlines, explains or records information"
        ),
        "Program": (
            "The set of policies, processes and personnel that comprise an organization's program"
        ),
    }
    assert {"section-2", "section-3", "section-2-4", "section-3-1"} <= {
        s.section_id for s in sections
    }


FORM_FIELDS = """| SCR field | Included Information |
| --- | --- |
| **CSP Contact Information** | CSP Name, the authorized service being changed |
| **System Information** | Type of System (IaaS, PaaS, SaaS), description of service |
| **Type of Change** | Check all that apply |
| **Validation** | The assessment plan is included as an attachment |
"""

COVER_PAGE = """| **Governing Law** | The laws of the State of Delaware |
| --- | --- |
| **Effective Date** | The date the agreement starts |
| **Term** | One year |
| **Fees** | As set out in the order form |
"""


def test_bold_fields_under_named_columns_are_no_key_terms() -> None:
    assert _pairs(FORM_FIELDS) == {}
    assert list(_pairs(COVER_PAGE)) == ["Governing Law", "Effective Date", "Term", "Fees"]


KEYWORDS = """The key words "MUST", "MUST NOT", "REQUIRED", "SHALL", "SHALL NOT" and "MAY" in
this document are to be interpreted as:
"MUST" This word, or the terms "REQUIRED" or "SHALL", mean that the definition is
an absolute requirement of the specification.
"MUST NOT" This phrase, or the phrase "SHALL NOT", mean that the definition is an
absolute prohibition of the specification.

"MAY" This word, or the adjective "OPTIONAL", mean that an item is truly optional.
"""


def test_a_term_before_a_sentence_pointing_back_at_it_is_defined_by_it() -> None:
    pairs = _pairs(KEYWORDS, in_section=True)
    assert pairs["MUST"] == (
        'This word, or the terms "REQUIRED" or "SHALL", mean that the definition is an '
        "absolute requirement of the specification"
    )
    assert pairs["MUST NOT"].startswith('This phrase, or the phrase "SHALL NOT", mean that')
    assert pairs["MAY"].endswith("an item is truly optional")
    assert pairs["SHALL"] == "that the definition is an absolute requirement of the specification"
    assert "MUST" not in _pairs(KEYWORDS)  # outside a definitions section
