"""A result's passage set (search/passage_sets.py): the best passage, then further whole-
sentence passages the query's evidence supports, none overlapping or touching, within the
set's budget; shown by the API, the MCP text and counted by the eval's passage metrics."""

from __future__ import annotations

import pytest

from hierdoc.eval.datasets import EvalCorpus, EvalQuery
from hierdoc.eval.judging import ChunkTable, judge
from hierdoc.search.passage_sets import passage_set
from hierdoc.search.passages import QueryEvidence, match_chunk, sentence_units
from tests.integration.test_passages import gdpr  # noqa: F401  (the module's GDPR index fixture)

FILLER = "The parties agree on the general terms set out in this agreement. " * 3
FIRST = (
    "Archival copies of Confidential Information may be kept by the Receiving Party in a "
    "secure archive, with access restricted to its legal and compliance staff."
)
SECOND = (
    "An archival copy kept under this clause is returned to the Disclosing Party on its "
    "written request, or destroyed, and the destruction is certified in writing."
)
CONTENT = f"{FILLER.strip()}\n\n{FIRST}\n\n{FILLER.strip()}\n\n{SECOND}\n\n{FILLER.strip()}"
EVIDENCE = QueryEvidence({"archiv": 5.0, "copi": 2.0}, (), ())


def _set(budget: int, content: str = CONTENT, evidence: QueryEvidence = EVIDENCE) -> list:
    match = match_chunk(content, evidence, budget=150)
    return passage_set(content, match, budget)


def test_a_second_matching_clause_becomes_a_second_passage() -> None:
    best, *more = _set(600)
    assert best.text == FIRST
    assert [p.text for p in more] == [SECOND]


def test_passages_are_whole_sentences_apart_and_within_the_budget() -> None:
    passages = _set(600)
    starts = {s for s, _ in sentence_units(CONTENT)}
    ends = {e for _, e in sentence_units(CONTENT)}
    for passage in passages:
        assert CONTENT[passage.start : passage.end] == passage.text
        assert passage.start in starts and passage.end in ends
    spans = sorted((p.start, p.end) for p in passages)
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        between = CONTENT[end:start]
        assert between.strip(), "two passages touch: they would be one"
    assert sum(len(p.text) for p in passages) <= 600


def test_a_budget_the_best_passage_fills_keeps_it_alone() -> None:
    assert [p.text for p in _set(len(FIRST) + 10)] == [FIRST]
    assert [p.text for p in _set(0)] == [FIRST]


def test_a_weakly_supported_sentence_is_left_out() -> None:
    content = CONTENT.replace(SECOND, "The archive is in Geneva.")
    evidence = QueryEvidence({"archiv": 1.0, "copi": 6.0, "confidenti": 6.0}, (), ())
    assert len(_set(2000, content, evidence)) == 1


def test_a_cited_section_passage_stands_alone(gdpr) -> None:  # noqa: F811
    first = gdpr.search("Art. 17(3)(b)", top_k=1).results[0]
    assert first.passage and first.passage.text.startswith("(b) for compliance")
    assert first.passages == [first.passage]


def test_search_results_carry_their_passages_best_first(gdpr) -> None:  # noqa: F811
    response = gdpr.search("right to erasure of personal data", top_k=10)
    several = 0
    for result in response.results:
        assert result.passages[0] == result.passage
        assert sum(len(p.text) for p in result.passages) <= max(1200, len(result.passage.text))
        several += len(result.passages) > 1
    assert several, "no result had a further passage"
    alone = gdpr.search("right to erasure of personal data", top_k=10, passage_set_chars=0)
    assert all(r.passages == [r.passage] for r in alone.results)
    data = response.to_dict()["results"][0]
    assert data["passages"][0] == data["passage"]


def test_mcp_text_shows_each_passage_in_reading_order(gdpr) -> None:  # noqa: F811
    from hierdoc.tools.catalogue import check_output
    from hierdoc.tools.render import render_search

    response = gdpr.search("right to erasure of personal data", top_k=10)
    data = check_output("search", response.to_dict())
    text = render_search(data, {})
    rank, result = next((i, r) for i, r in enumerate(response.results, 1) if len(r.passages) > 1)
    block = text.split(f"\n[{rank}] ", 1)[1].split("\n[", 1)[0]
    where = [block.index(p.text[:60]) for p in sorted(result.passages, key=lambda p: p.start)]
    assert where == sorted(where)
    assert f"({len(result.passages)} passages of {len(result.content):,} characters" in block
    assert f"get_section {result.chunk_id}" in block


def test_passage_metrics_count_every_passage_of_a_result() -> None:
    """PsgP@1 is over all the first result's passages; PsgR@8 over all the top 8 return."""
    table = ChunkTable({"a:0": "a"}, {"a:0": (1000, 2000)}, {"a": ["a:0"]})
    query = EvalQuery("q", "text", [(1100, 1200), (1500, 1600)], "a")
    metrics = ("CharP@1", "CharR@8", "PsgP@1", "PsgR@8")
    corpus = EvalCorpus("spans", [], [query], "span", metrics, "PsgR@8")
    rankings = {k: ["a:0"] for k in (1, 5, 10, 20)}
    one = judge(corpus, query, rankings, table, {"a:0": [(100, 200)]}).values
    two = judge(corpus, query, rankings, table, {"a:0": [(100, 200), (450, 650)]}).values
    assert one["PsgP@1"] == 1.0 and one["PsgR@8"] == 0.5
    assert two["PsgP@1"] == pytest.approx(200 / 300)
    assert two["PsgR@8"] == 1.0
    assert two["CharP@1"] == pytest.approx(200 / 1000)
