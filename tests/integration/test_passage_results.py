"""Passage units and passage-level results: a list item's lead-in, a term in every sentence
of the chunk, headings in scope, and search results ranked at the passage level (API, CLI,
MCP tool)."""

from __future__ import annotations

from hierdoc.models import Passage, SearchResponse, SearchResult
from hierdoc.search.passage_sets import passage_set, rank_passages
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


def _result(chunk_id: str, score: float, passages: list[Passage]) -> SearchResult:
    content = "x" * 400
    return SearchResult(
        chunk_id, "doc.md", "Doc", [], "s", "", "content", content, score, {}, {},
        passage=passages[0], passages=passages, highlights=[(0, 5), (200, 210)],
    )  # fmt: skip


def test_passages_rank_by_result_score_times_their_share() -> None:
    first = _result("a", 1.0, [Passage("x" * 50, 0, 50), Passage("x" * 50, 190, 240)])
    second = _result("b", 0.9, [Passage("x" * 50, 100, 150)])
    response = SearchResponse("q", "hybrid", False, [first, second])
    ranked = rank_passages(response, {0: [1.0, 0.8], 1: [1.0]}, 3)
    assert [(r.chunk_id, r.passage.start) for r in ranked.results] == [
        ("a", 0),
        ("b", 100),
        ("a", 190),
    ]
    assert [r.score for r in ranked.results] == [1.0, 0.9, 0.8]
    assert all(r.passages == [r.passage] for r in ranked.results)
    assert ranked.results[0].highlights == [(0, 5)]
    assert ranked.results[2].highlights == [(200, 210)]
    assert len(rank_passages(response, {0: [1.0, 0.8], 1: [1.0]}, 2).results) == 2


def test_search_returns_passages_as_results(gdpr) -> None:  # noqa: F811
    query = "right to erasure of personal data"
    chunks = gdpr.search(query, top_k=5)
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
    # the first passage is the first chunk's best one
    assert ranked.results[0].passage == chunks.results[0].passage
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
