"""Lettered sections: terms of service number their parts "A.", "B." and the
clauses under each "1.", "2.", cited "Section K.3" and "Section P"; the structure gives
them those ids, the citation parser reads them, and a search finds them among documents."""

from __future__ import annotations

import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.numbering import find_citations
from tests.hash_embedder import HashEmbedder

TERMS = """# Example Terms of Service

## A. Definitions

1. "Account" means your account.

## K. Payment

### 1. Pricing

Our prices are on the website.

### 3. Billing Schedule; No Refunds

Payment is billed in advance and is not refundable.

## P. Release and Indemnification

You release us from claims.
"""

OTHER_TERMS = """# Example Corporate Terms

## K. Term and Termination

### 1. Term

The agreement runs for one year.

## O. Limitation of Liability

### 1. By the Provider

Neither party is liable for lost profits.
"""

CONTRACT = """# Supply Agreement

## 3. Fees

### 1. Invoices

Invoices are monthly.

## 4. Delivery

### 1. Place

Delivery is at the buyer's site.
"""


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("Section K.3", ["section-k-3", "section-k"]),
        ("see Section P of the terms", ["section-p"]),
        ("Sec. B applies", ["section-b"]),
        ("Clause C", ["clause-c"]),
        ("Requirement 8.2.3", ["requirement-8-2-3", "requirement-8-2", "requirement-8"]),
        ("Clause 14.2(b)", ["clause-14-2-b", "clause-14-2", "clause-14"]),
        ("Schedule 2", ["schedule-2"]),
        ("Annex III", ["annex-3"]),
        ("Appendix A", ["appendix-a"]),
    ],
)
def test_lettered_and_mixed_citations_parse(text: str, ids: list[str]) -> None:
    (citation,) = find_citations(text)
    assert citation.label.candidate_ids() == ids


@pytest.mark.parametrize(
    "text",
    [
        "as set out in this section. A person may object",
        "in section a of the form",
        "Section a",
        "Requirement Section Compliant",
        "This Act Section ISO/IEC Standard",
    ],
)
def test_a_letter_after_a_sentence_or_in_lower_case_is_no_citation(text: str) -> None:
    assert find_citations(text) == []


def test_clauses_under_lettered_and_numbered_headings_are_subsections() -> None:
    ids = {s.section_id for s in parse_sections(TERMS, "Terms")}
    assert {"section-a", "section-k", "section-k-1", "section-k-3", "section-p"} <= ids
    ids = {s.section_id for s in parse_sections(CONTRACT, "Supply")}
    assert {"section-3", "section-3-1", "section-4", "section-4-1"} <= ids


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    directory = tmp_path_factory.mktemp("lettered") / "index"
    documents = {"terms.md": TERMS, "corporate_terms.md": OTHER_TERMS, "supply.md": CONTRACT}
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as opened:
        opened.ingest_texts([TextDocument(name, text) for name, text in documents.items()])
        yield opened


@pytest.mark.parametrize(
    ("query", "source", "section_id"),
    [
        ("Section K.3", "terms.md", "section-k-3"),
        ("Section P", "terms.md", "section-p"),
        ("Section O.1", "corporate_terms.md", "section-o-1"),
        ("Section 4.1", "supply.md", "section-4-1"),
    ],
)
def test_a_lettered_citation_finds_the_document_that_has_it(
    index: Index, query: str, source: str, section_id: str
) -> None:
    first = index.search(query).results[0]
    assert (first.source, first.section_id, first.pinned) == (source, section_id, True)


def test_a_lettered_number_in_two_documents_gives_each(index: Index) -> None:
    pinned = {(r.source, r.section_id) for r in index.search("Section K.1").results if r.pinned}
    assert pinned == {("terms.md", "section-k-1"), ("corporate_terms.md", "section-k-1")}


def test_a_lettered_number_no_document_has_resolves_nowhere(index: Index) -> None:
    response = index.search("Section K.9")
    assert not any(r.pinned for r in response.results)
    assert response.citations[0]["resolved"] is False
