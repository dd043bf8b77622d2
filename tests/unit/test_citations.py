"""Citations across documents: a cited number is found in each document that
has it and never stands for a parent in another; named documents narrow the search;
missing citations and phrases are no_match with a note; scores never rise down the list."""

from __future__ import annotations

import json

import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.errors import NotFoundError
from hierdoc.models import SearchResponse
from tests.hash_embedder import HashEmbedder

CLOUD = """# Cloud Service Agreement

## 1. Definitions

"Service" means the hosted platform described in the Order Form.

## 8. Fees

### 8.1 Invoices

The Provider invoices the Customer monthly in arrears.

### 8.4 Late payment

Amounts not paid within thirty days bear interest at one percent per month.

## 10. Term

### 10.1 Renewal

The subscription renews for successive one-year terms.
"""

GPL = """# GNU General Public License

## 8. Termination

You may not propagate or modify a covered work except as expressly provided.

## 10. Automatic Licensing of Downstream Recipients

Each time you convey a covered work, the recipient automatically receives a license.
"""

TERMS = """# Terms of Service

## Section K.3 Lettered obligations

The member keeps the account credentials secret.

## Clause 14.2(b) Refunds

Refunds are paid to the original card.

## Schedule 2 Fees

The fee table.

## Annex III Data processing

The processor acts on instructions.

## Appendix A Contacts

Write to the support desk.
"""

STANDARD = """# Payment Card Standard

## Requirement 8: Identify and authenticate access

### 8.2.3 Passwords

Passwords must contain both numeric and alphabetic characters.
"""

DOCUMENTS = {
    "cloud_service_agreement.md": CLOUD,
    "gpl.md": GPL,
    "terms.md": TERMS,
    "pci_standard.md": STANDARD,
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    directory = tmp_path_factory.mktemp("citations") / "index"
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as opened:
        opened.ingest_texts([TextDocument(name, text) for name, text in DOCUMENTS.items()])
        yield opened


def section_start(index: Index, source: str, section_id: str) -> str:
    (start,) = [
        s.chunk.chunk_id
        for s in index.store.chunks_of_sections([section_id])
        if s.chunk.source == source
    ]
    return start


def assert_monotone(response: SearchResponse) -> None:
    scores = [r.score for r in response.results]
    assert scores == sorted(scores, reverse=True), scores
    for result in response.results:
        assert result.fusion_score is not None
        assert result.pinned == (result.pin is not None)


def test_a_cited_number_ranks_the_document_that_has_it_first(index: Index) -> None:
    response = index.search("Section 8.4")
    first = response.results[0]
    assert (first.source, first.section_id) == ("cloud_service_agreement.md", "section-8-4")
    assert first.pinned and first.pin == "cites Section 8.4" and first.score == 1.0
    assert not any(r.pinned for r in response.results[1:])
    assert any("not in" in n and "gpl.md" in n for n in response.notes), response.notes
    assert not response.no_match
    assert_monotone(response)


def test_a_number_no_document_has_never_falls_back_to_another_documents_parent(
    index: Index,
) -> None:
    response = index.search("Section 10.7")
    assert response.no_match
    assert response.results == []
    assert response.citations == [{"text": "Section 10.7", "section_id": None, "resolved": False}]
    assert any("no Section 10.7 in any of the 4 documents" in n for n in response.notes)


@pytest.mark.parametrize(
    "query", ["Section 10.7 of the cloud service agreement", "Section 10.7 in gpl.md"]
)
def test_a_named_document_narrows_and_may_show_its_parent_with_a_note(
    index: Index, query: str
) -> None:
    response = index.search(query)
    wanted = "gpl.md" if "gpl" in query else "cloud_service_agreement.md"
    assert {r.source for r in response.results} == {wanted}
    assert response.citations[0]["section_id"] == "section-10"
    assert response.results[0].chunk_id == section_start(index, wanted, "section-10")
    assert response.results[0].pin == "nearest section to Section 10.7"
    assert response.no_match
    assert any("searched only" in n for n in response.notes)
    assert any("nearest section that holds it" in n for n in response.notes)
    assert_monotone(response)


def test_a_source_filter_is_a_single_document_scope_too(index: Index) -> None:
    response = index.search("Section 10.7", source="cloud_service_agreement.md")
    start = section_start(index, "cloud_service_agreement.md", "section-10")
    assert response.results[0].chunk_id == start
    assert response.citations[0] == {
        "text": "Section 10.7",
        "section_id": "section-10",
        "resolved": False,
    }


def test_each_document_with_the_cited_section_gives_one_pinned_result(index: Index) -> None:
    response = index.search("Section 8", top_k=10)
    pinned = [r for r in response.results if r.pinned]
    assert sorted(r.source for r in pinned) == [
        "cloud_service_agreement.md",
        "gpl.md",
        "pci_standard.md",  # its "Requirement 8": clause kinds stand for each other
    ]
    assert len({r.chunk_id for r in pinned}) == 3
    assert response.results[: len(pinned)] == pinned
    assert_monotone(response)


@pytest.mark.parametrize(
    ("query", "source", "section_id"),
    [
        ("Section K.3", "terms.md", "section-k-3"),
        ("Clause 14.2(b)", "terms.md", "clause-14-2-b"),
        ("Schedule 2", "terms.md", "schedule-2"),
        ("Annex III", "terms.md", "annex-3"),
        ("Appendix A", "terms.md", "appendix-a"),
        ("Requirement 8.2.3", "pci_standard.md", "section-8-2-3"),
        ("Clause 8.4", "cloud_service_agreement.md", "section-8-4"),
    ],
)
def test_lettered_and_mixed_labels_resolve(
    index: Index, query: str, source: str, section_id: str
) -> None:
    first = index.search(query).results[0]
    assert (first.source, first.section_id, first.pinned) == (source, section_id, True)


def test_a_quoted_phrase_that_appears_nowhere_is_no_match(index: Index) -> None:
    response = index.search('"reasonable best efforts"')
    assert response.no_match and response.results == []
    assert response.notes == ['no text holds "reasonable best efforts" as written']
    found = index.search('"successive one-year terms"')
    assert not found.no_match and found.results[0].section_id == "section-10-1"


def test_scores_never_rise_down_the_list(index: Index) -> None:
    for query in ("Section 8.4 late payment interest", "Section 8 fees", "renewal terms"):
        assert_monotone(index.search(query, top_k=10))
    data = index.search("Section 8.4").to_dict()["results"][0]
    assert data["pinned"] is True and data["pin"] == "cites Section 8.4"
    assert 0 < data["fusion_score"] <= 1 and data["score"] == 1.0


def test_an_unknown_section_or_source_names_the_closest_that_exist(index: Index) -> None:
    with pytest.raises(NotFoundError) as error:
        index.search("fees", section="section-8-5")
    message = str(error.value)
    assert message.startswith("no section 'section-8-5' in the index; sections: section-8-")
    assert message.endswith(")") and "(the closest of" in message
    with pytest.raises(NotFoundError, match="matches source 'gpl.txt'; indexed: .*gpl.md"):
        index.search("fees", source="gpl.txt")


def test_the_pin_is_shown_in_the_cli_text_json_and_the_mcp_tool(index: Index) -> None:
    from hierdoc.cli import export
    from hierdoc.tools.logic import run_search

    response = index.search("Section 8.4")
    text = export.render(response, "text", {}, export.PLAIN_MARKS)
    assert "exact #1; pinned: cites Section 8.4, fusion 0." in text
    data = json.loads(export.render(response, "json", {}, export.PLAIN_MARKS))
    assert data["results"][0]["pinned"] and data["results"][0]["fusion_score"] > 0
    tool = run_search(index, "Section 8.4")
    assert tool.structured["results"][0]["pin"] == "cites Section 8.4"
    assert "score 1.000 · pinned: cites Section 8.4 (fusion 0." in tool.text


@pytest.mark.parametrize("mode", ["semantic", "keyword"])
def test_a_single_modality_still_says_what_is_not_there_and_pins_nothing(
    index: Index, mode: str
) -> None:
    missing = index.search("Section 10.7", mode=mode)
    assert missing.no_match and missing.results == []
    assert any("no Section 10.7 in any of the 4 documents" in n for n in missing.notes)
    absent = index.search('"reasonable best efforts"', mode=mode)
    assert absent.no_match
    assert absent.notes == ['no text holds "reasonable best efforts" as written']
    found = index.search("Section 8.4 liability", mode=mode)
    assert found.citations[0]["resolved"] and not any(r.pinned for r in found.results)
    assert any("not in" in n and "gpl.md" in n for n in found.notes), found.notes


def test_a_number_more_documents_have_than_widespread_is_pinned_where_the_query_ranks_first(
    index: Index,
) -> None:
    crowded = {"policy": {"crowded_citation": 2}}
    ranked_first = [("passwords numeric", "pci_standard.md"), ("convey a covered work", "gpl.md")]
    for words, first in ranked_first:
        response = index.search(f"Section 8 {words}", top_k=10, **crowded)
        pinned = [r for r in response.results if r.pinned]
        assert 1 <= len(pinned) <= 2 and pinned[0].source == first, pinned
        assert response.results[: len(pinned)] == pinned
        assert any("is in more than 2 documents" in n for n in response.notes), response.notes
    exact_only = index.search("Section 8 convey a covered work", mode="exact", top_k=10, **crowded)
    pinned = [r for r in exact_only.results if r.pinned]  # the query's keywords rank
    assert 1 <= len(pinned) <= 2 and pinned[0].source == "gpl.md", pinned
