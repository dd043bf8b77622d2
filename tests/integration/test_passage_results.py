"""Passage units and passage-level results: a list item's lead-in, a term in every sentence
of the chunk, headings in scope, and search results ranked at the passage level (API, CLI,
MCP tool)."""

from __future__ import annotations

import pytest

from hierdoc.config import DEFAULT_POLICY, SearchPolicy
from hierdoc.models import Passage, SearchResponse, SearchResult
from hierdoc.search.passage_ranking import UnitEvidence, rank_units
from hierdoc.search.passage_sets import passage_set
from hierdoc.search.passages import QueryEvidence, match_chunk, sentence_units, unit_parents
from hierdoc.tools.logic import run_search
from tests.integration.test_passages import gdpr  # noqa: F401  (the module's GDPR index fixture)

LIST = (
    "The Receiving Party shall hold the information in confidence for five years.\n\n"
    "The obligations of confidentiality shall not apply to any information that:\n\n"
    "(a) was public knowledge at the time of disclosure;\n\n"
    "(b) was known to the Receiving Party before the disclosure;\n\n"
    "(c) was independently developed by the Receiving Party without use of the information."
)


def test_a_list_item_has_its_lead_in_and_brings_it_into_the_passages() -> None:
    units = sentence_units(LIST)
    lead_ins, _ = unit_parents(LIST, units)
    texts = [LIST[s:e] for s, e in units]
    lead = texts.index(
        "The obligations of confidentiality shall not apply to any information that:"
    )
    assert [lead_ins[i] for i in range(lead + 1, len(units))] == [lead, lead, lead]
    assert lead_ins[0] is None and lead_ins[lead] is None
    evidence = QueryEvidence({"independ": 6.0, "develop": 4.0}, (), ())
    match = match_chunk(LIST, evidence, budget=100)
    assert match.passage.text.startswith("(c) was independently developed")
    passages = passage_set(LIST, match, 1200)
    assert [p.text for p in passages[:2]] == [match.passage.text, texts[lead]]


def test_a_term_in_every_sentence_tells_them_apart_little() -> None:
    content = (
        "The Receiving Party shall notify the Receiving Party's auditors.\n\n"
        "The Receiving Party may keep one archival copy."
    )
    # "parti" has the higher corpus idf, but every sentence holds it; "copi" is in one
    evidence = QueryEvidence({"receiv": 3.0, "parti": 3.0, "copi": 2.0}, (), ())
    match = match_chunk(content, evidence, budget=60)
    assert match.passage.text == "The Receiving Party may keep one archival copy."


def test_a_heading_matching_the_query_lifts_the_sentences_under_it() -> None:
    content = (
        "## 4. Payment\n\nFees are due within thirty days of the invoice.\n\n"
        "## 5. Return of information\n\nOn request all materials are handed back within thirty "
        "days."
    )
    units = sentence_units(content)
    _, headings = unit_parents(content, units)
    assert headings[-1] == 4 and headings[2] == 1
    evidence = QueryEvidence({"return": 5.0, "day": 1.0}, (), ())
    match = match_chunk(content, evidence, budget=60)
    assert match.passage.text.startswith("On request all materials")


TWO = (
    "The term of this Agreement is two years.\n\n"
    "Each party bears its own costs under this Agreement."
)


def _result(chunk_id: str, score: float) -> SearchResult:
    passage = Passage(TWO[:40], 0, 40)
    return SearchResult(
        chunk_id, "doc.md", "Doc", [], "s", "", "content", TWO, score, {}, {},
        passage=passage, passages=[passage], highlights=[(0, 8), (56, 61)],
    )  # fmt: skip


def _evidence(lexical: tuple[float, float], semantic: tuple[float, float]) -> UnitEvidence:
    units = sentence_units(TWO)
    return UnitEvidence(units, lexical, semantic)


def test_passages_rank_by_their_own_evidence_across_results() -> None:
    response = SearchResponse("q", "hybrid", False, [_result("a", 1.0), _result("b", 0.9)])
    evidence = {
        0: _evidence((0.0, 1.0), (0.2, 0.3)),
        1: _evidence((6.0, 0.0), (0.6, 0.1)),
    }
    policy = SearchPolicy(result_passage_min_chars=0)
    ranked = rank_units(response, evidence, 3, policy)
    # the second result's first sentence holds the query's terms and is nearest in meaning
    assert [(r.chunk_id, r.passage.text) for r in ranked.results][0] == (
        "b",
        "The term of this Agreement is two years.",
    )
    assert [r.score for r in ranked.results] == sorted(
        (r.score for r in ranked.results), reverse=True
    )
    assert ranked.results[0].score == 1.0
    assert all(r.passages == [r.passage] for r in ranked.results)
    assert ranked.results[0].highlights == [(0, 8)]


def test_a_short_unit_takes_in_a_neighbour_and_passages_never_overlap() -> None:
    response = SearchResponse("q", "hybrid", False, [_result("a", 1.0)])
    evidence = {0: _evidence((5.0, 1.0), (0.5, 0.4))}
    ranked = rank_units(response, evidence, 5, SearchPolicy(result_passage_min_chars=60))
    # the first sentence (40 characters) grows to both; nothing is left for a second passage
    assert [r.passage.text for r in ranked.results] == [TWO]


def test_a_cited_sections_passage_comes_first() -> None:
    response = SearchResponse("q", "hybrid", False, [_result("a", 1.0), _result("b", 0.9)])
    evidence = {0: _evidence((5.0, 1.0), (0.5, 0.4)), 1: UnitEvidence((), (), (), True)}
    ranked = rank_units(response, evidence, 2, SearchPolicy(result_passage_min_chars=0))
    assert [r.chunk_id for r in ranked.results] == ["b", "a"]
    assert ranked.results[0].passage == response.results[1].passage


def test_search_returns_passages_as_results(gdpr) -> None:  # noqa: F811
    query = "right to erasure of personal data"
    # the passages are chosen among the sentences of the policy's result_passage_chunks
    chunks = gdpr.search(query, top_k=DEFAULT_POLICY.result_passage_chunks)
    ranked = gdpr.search(query, top_k=5, passage_results=True)
    assert len(ranked.results) == 5
    scores = [r.score for r in ranked.results]
    assert scores == sorted(scores, reverse=True)
    chunk_ids = {r.chunk_id for r in chunks.results}
    for result in ranked.results:
        assert result.chunk_id in chunk_ids
        assert result.passages == [result.passage]
        assert result.content[result.passage.start : result.passage.end] == result.passage.text
        assert result.section_id in result.sections
    # a passage is whole sentences, none overlapping another of its chunk
    spans: dict[str, list[tuple[int, int]]] = {}
    for result in ranked.results:
        start, end = result.passage.start, result.passage.end
        assert all(end <= s or e <= start for s, e in spans.get(result.chunk_id, []))
        spans.setdefault(result.chunk_id, []).append((start, end))
    assert sum(len(r.passage.text) for r in ranked.results) < sum(
        len(r.content) for r in chunks.results
    )


def test_the_search_tool_returns_passages_as_results(gdpr) -> None:  # noqa: F811
    query = "right to erasure of personal data"
    tool = run_search(gdpr, query, top_k=3, passages=True)
    results = tool.structured["results"]
    assert len(results) == 3
    assert all(r["passages"] == [r["passage"]] for r in results)
    direct = gdpr.search(query, top_k=3, passage_results=True)
    assert [r["passage"]["start"] for r in results] == [r.passage.start for r in direct.results]


def test_each_unit_takes_its_own_texts_cosine_when_units_are_embedded() -> None:
    import numpy as np

    from hierdoc.search.passages import with_unit_vectors

    results = [_result("a", 1.0), _result("b", 0.9)]
    offered = {
        0: _evidence((0.0, 0.0), (0.5, 0.5)),
        1: UnitEvidence((), (), (), cited=True),
    }
    axes = {"The term of this Agreement is two years.": [1.0, 0.0]}

    def embed(texts):
        return np.asarray([axes.get(t, [0.0, 1.0]) for t in texts], dtype=np.float32)

    found = with_unit_vectors(results, offered, embed, np.asarray([0.6, 0.8], np.float32))
    assert found[0].semantic == pytest.approx((0.6, 0.8))
    assert found[1] is offered[1]
    response = SearchResponse("q", "hybrid", False, results[:1])
    fixed = SearchPolicy(result_passage_min_chars=0, result_passage_scorer="fixed")
    ranked = rank_units(response, found, 1, fixed)
    assert ranked.results[0].passage.text.startswith("Each party bears")


def test_passage_scores_fall_towards_the_weakest_candidate_not_the_last_returned() -> None:
    response = SearchResponse("q", "hybrid", False, [_result("a", 1.0), _result("b", 0.5)])
    evidence = {0: _evidence((5.0, 1.0), (0.5, 0.4)), 1: _evidence((0.0, 0.0), (0.1, 0.1))}
    ranked = rank_units(response, evidence, 2, SearchPolicy(result_passage_min_chars=0))
    assert [r.chunk_id for r in ranked.results] == ["a", "a"]
    assert ranked.results[0].score == 1.0 and 0.0 < ranked.results[1].score < 1.0
