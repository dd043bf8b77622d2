"""Passage-level ranking: query term coverage in a unit's scope, passages that take in the
neighbours the query's evidence covers and the paragraph they lie in, a list item's lead-in
after it, and the results a passage-level search reads."""

from __future__ import annotations

import pytest

from hierdoc.config import DEFAULT_POLICY, SearchPolicy
from hierdoc.models import SearchResponse, SearchResult
from hierdoc.search.passage_ranking import (
    UnitEvidence,
    fused_scores,
    paragraph_widened,
    rank_units,
)
from hierdoc.search.passages import QueryEvidence, match_chunk, sentence_units, term_coverage
from hierdoc.search.searcher import results_read

LIST = (
    "The Receiving Party shall hold the information in confidence.\n\n"
    "The obligations of confidentiality shall not apply to any information that:\n\n"
    "(a) was public knowledge at the time of disclosure;\n\n"
    "(b) was independently developed by the Receiving Party."
)
FIXED = SearchPolicy(result_passage_min_chars=0, result_passage_scorer="fixed")
"""The four signals summed: the mechanisms below with scores easy to follow."""
CLAUSE = (
    "Fees are due within thirty days.\n\n"
    "Each party shall return the materials on request.\n\n"
    "The return includes every copy and summary.\n\n"
    "This Agreement is governed by the laws of England."
)


def _result(content: str, chunk_id: str = "a", score: float = 1.0) -> SearchResult:
    return SearchResult(chunk_id, "doc.md", "Doc", [], "s", "", "content", content, score, {}, {})


def _texts(response: SearchResponse) -> list[str]:
    return [r.passage.text for r in response.results]


def test_a_list_items_coverage_counts_its_lead_in_and_the_section_headings() -> None:
    idf = {"confidenti": 2.0, "independ": 3.0, "return": 5.0}
    match = match_chunk(LIST, QueryEvidence(idf, (), ()), budget=200)
    shares = term_coverage(LIST, match, idf, ["Return of information"])
    texts = [LIST[s:e] for s, e in match.units]
    item = texts.index("(b) was independently developed by the Receiving Party.")
    # its own "independently", its lead-in's "confidentiality", the heading's "return"
    assert shares[item] == pytest.approx(1.0)
    # the first sentence: "confidence" is not "confidentiality"; the heading's "return"
    assert shares[0] == pytest.approx(5.0 / 10.0)
    assert term_coverage(LIST, match, {}, ["Return"]) == ()


def test_coverage_lifts_the_unit_holding_more_of_the_query() -> None:
    units = sentence_units(CLAUSE)
    response = SearchResponse("q", "hybrid", False, [_result(CLAUSE)])
    lexical, even = (1.2, 1.0, 1.0, 1.0), (1.0, 1.0, 1.0, 1.0)
    evidence = {0: UnitEvidence(units, lexical, even, coverage=(0.0, 0.2, 0.9, 0.0))}
    policy = FIXED.model_copy(update={"result_passage_absorb": 0.0})
    assert _texts(rank_units(response, evidence, 1, policy)) == [
        "The return includes every copy and summary."
    ]
    blind = policy.model_copy(update={"result_passage_coverage": 0.0})
    assert _texts(rank_units(response, evidence, 1, blind)) == ["Fees are due within thirty days."]


def test_a_passage_takes_in_neighbours_scoring_near_it_and_stops_at_the_rest() -> None:
    units = sentence_units(CLAUSE)
    response = SearchResponse("q", "hybrid", False, [_result(CLAUSE)])
    lexical = (0.0, 5.0, 4.5, 0.0)
    evidence = {0: UnitEvidence(units, lexical, (0.1, 0.6, 0.5, 0.1))}
    policy = FIXED.model_copy(update={"result_passage_absorb": 1.0})
    first = _texts(rank_units(response, evidence, 1, policy))[0]
    assert first == (
        "Each party shall return the materials on request.\n\n"
        "The return includes every copy and summary."
    )
    alone = FIXED.model_copy(update={"result_passage_absorb": 0.0})
    assert _texts(rank_units(response, evidence, 1, alone)) == [
        "Each party shall return the materials on request."
    ]
    # the passage never grows past the budget
    short = rank_units(response, evidence, 1, policy, budget=60)
    assert _texts(short) == ["Each party shall return the materials on request."]


def test_a_list_item_is_followed_by_its_lead_in() -> None:
    idf = {"independ": 3.0, "develop": 2.0}
    match = match_chunk(LIST, QueryEvidence(idf, (), ()), budget=200)
    response = SearchResponse("q", "hybrid", False, [_result(LIST)])
    semantic = tuple(0.1 for _ in match.units)
    evidence = {0: UnitEvidence(match.units, match.lexical, semantic, lead_ins=match.lead_ins)}
    policy = FIXED.model_copy(update={"result_passage_absorb": 0.0})
    assert _texts(rank_units(response, evidence, 2, policy)) == [
        "(b) was independently developed by the Receiving Party.",
        "The obligations of confidentiality shall not apply to any information that:",
    ]
    off = policy.model_copy(update={"result_passage_lead_ins": False})
    assert (
        _texts(rank_units(response, evidence, 2, off))[1]
        != _texts(rank_units(response, evidence, 2, policy))[1]
    )


RULES = (
    "9.3 Approval of an Offer document\n\n"
    "9.3.1 A Person applying for approval must pay a filing fee. "
    "The fee is $5,000. It is paid on filing.\n\n"
    "9.4 Withdrawal of an Offer document"
)


def test_a_passage_grows_to_the_paragraph_it_lies_in_when_that_fits_the_budget() -> None:
    units = sentence_units(RULES)
    assert len(units) == 5
    response = SearchResponse("q", "hybrid", False, [_result(RULES)])
    evidence = {0: UnitEvidence(units, (0.0, 0.0, 5.0, 0.0, 0.0), (0.1, 0.1, 0.9, 0.1, 0.1))}
    policy = FIXED.model_copy(update={"result_passage_absorb": 0.0})
    rule = "9.3.1 A Person applying for approval must pay a filing fee. The fee is $5,000. "
    assert _texts(rank_units(response, evidence, 1, policy)) == [rule + "It is paid on filing."]
    alone = policy.model_copy(update={"result_passage_paragraphs": False})
    assert _texts(rank_units(response, evidence, 1, alone)) == ["The fee is $5,000."]
    # a paragraph longer than the passage budget is not taken whole
    assert _texts(rank_units(response, evidence, 1, policy, budget=60)) == ["The fee is $5,000."]


def test_paragraph_widening_leaves_units_already_taken() -> None:
    units = sentence_units(RULES)
    assert paragraph_widened(RULES, units, (2, 2), set(), 1000) == (1, 3)
    assert paragraph_widened(RULES, units, (2, 2), {1}, 1000) == (2, 3)
    assert paragraph_widened(RULES, units, (0, 0), set(), 1000) == (0, 0)
    # a chunk without blank lines is one paragraph
    flat = RULES.replace("\n\n", "\n")
    assert paragraph_widened(flat, sentence_units(flat), (2, 2), set(), 1000) == (0, 4)
    assert paragraph_widened(flat, sentence_units(flat), (2, 2), set(), 100) == (2, 2)


def test_without_coverage_the_fused_score_is_the_three_signals() -> None:
    units = sentence_units(CLAUSE)
    results = [_result(CLAUSE)]
    plain = {0: UnitEvidence(units, (0.0, 2.0, 1.0, 0.0), (0.1, 0.4, 0.2, 0.1))}
    covered = {0: UnitEvidence(units, plain[0].lexical, plain[0].semantic, coverage=(0.5,) * 4)}
    candidates = [(0, i) for i in range(4)]
    assert fused_scores(results, plain, candidates) == fused_scores(results, covered, candidates)


def test_a_passage_level_search_reads_more_results_than_it_returns() -> None:
    wide = DEFAULT_POLICY.result_passage_chunks
    assert results_read(5, False, DEFAULT_POLICY) == 5
    assert results_read(5, True, DEFAULT_POLICY) == max(5, wide)
    assert results_read(wide + 10, True, DEFAULT_POLICY) == wide + 10
