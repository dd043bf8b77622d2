"""Evaluation metrics and judging, computed by hand."""

from __future__ import annotations

import math

import pytest

from hierdoc.eval.datasets import EvalCorpus, EvalQuery
from hierdoc.eval.judging import ChunkTable, judge, locate
from hierdoc.eval.metrics import (
    mrr_at_k,
    ndcg_at_k,
    pass_at_k,
    recall_at_k,
    span_recall_at_k,
    spans_overlap,
)


def test_recall_counts_relevant_items_in_the_top_k() -> None:
    relevant = {"b": 1.0, "d": 2.0, "x": 1.0, "z": 0.0}  # grade 0 is not relevant
    assert recall_at_k(["a", "b", "c", "d"], relevant, 2) == pytest.approx(1 / 3)
    assert recall_at_k(["a", "b", "c", "d"], relevant, 4) == pytest.approx(2 / 3)
    assert recall_at_k(["z"], {"z": 0.0}, 1) == 0.0


def test_mrr_is_the_reciprocal_rank_of_the_first_relevant_item() -> None:
    assert mrr_at_k(["a", "b", "c"], {"b": 1.0, "c": 1.0}) == 0.5
    assert mrr_at_k(["a"] * 10 + ["b"], {"b": 1.0}, 10) == 0.0


def test_ndcg_graded_with_log2_discount() -> None:
    # DCG = 0/log2(2) + 1/log2(3) + 2/log2(4) = 1.6309; ideal = 2/log2(2) + 1/log2(3) = 2.6309
    value = ndcg_at_k(["a", "b", "c"], {"b": 1.0, "c": 2.0}, 10)
    assert value == pytest.approx(1.6309298 / 2.6309298, abs=1e-6)
    assert value == pytest.approx(0.619906, abs=1e-6)
    assert ndcg_at_k(["c", "b"], {"b": 1.0, "c": 2.0}) == pytest.approx(1.0)


def test_ndcg_counts_a_repeated_document_at_its_first_rank_only() -> None:
    # d1 twice (two chunks of one document): d2 is the second document
    assert ndcg_at_k(["d1", "d1", "d2"], {"d2": 1.0}) == pytest.approx(1 / math.log2(3))


def test_pass_at_k_as_the_cookbook_computes_it() -> None:
    golden = ["g1", "g2"]
    assert pass_at_k(["x", "g2", "y", "g1"], golden, 2) == 0.5
    assert pass_at_k(["x", "g2", "y", "g1"], golden, 4) == 1.0
    assert pass_at_k(["x"], golden, 5) == 0.0
    # two queries of 1/2 and 1/1 average to 75.0 once multiplied by 100
    assert 100 * (pass_at_k(["g1"], golden, 1) + pass_at_k(["g1"], ["g1"], 1)) / 2 == 75.0


def test_pass_at_k_matches_duplicate_contents_through_aliases() -> None:
    corpus = EvalCorpus(
        "t",
        [],
        [],
        "chunk",
        ("Pass@1", "Pass@5", "Pass@10", "Pass@20", "MRR@10", "nDCG@10"),
        "Pass@10",
        aliases={"doc:0": "doc:0", "other:3": "doc:0", "x:1": "x:1"},
    )
    query = EvalQuery("q", "licence", {"doc:0": 1.0})
    # the retrieved chunk has the golden chunk's content under another id: found
    rankings = dict.fromkeys((1, 5, 10, 20), ["x:1", "other:3"])
    judged = judge(corpus, query, rankings, ChunkTable({}, {}, {}))
    assert judged.values["Pass@1"] == 0.0
    assert judged.values["Pass@5"] == 100.0
    assert judged.values["MRR@10"] == 0.5
    assert judged.miss is None


def test_span_overlap_and_recall() -> None:
    assert spans_overlap((0, 10), (9, 20))
    assert not spans_overlap((0, 10), (10, 20))  # half-open
    gold = [(0, 10), (20, 30)]
    ranked = [(5, 15), (40, 50), (25, 26)]
    assert span_recall_at_k(ranked, gold, 1) == 0.5
    assert span_recall_at_k(ranked, gold, 2) == 0.5
    assert span_recall_at_k(ranked, gold, 3) == 1.0
    assert span_recall_at_k([None, (0, 1)], gold, 2) == 0.5


def test_locate_finds_chunks_in_reading_order_and_across_whitespace() -> None:
    text = "Term. Same words.\n\nSame words.\nNext  part\nhere."
    first = locate(text, "Same words.")
    assert first == (6, 17)
    assert locate(text, "Same words.", first[0] + 1) == (19, 30)
    start, end = locate(text, "Next part here.")
    assert text[start:end] == "Next  part\nhere."
    assert locate(text, "absent") is None


def test_document_unit_ranks_a_document_by_its_first_chunk() -> None:
    corpus = EvalCorpus("t", [], [], "document", ("nDCG@10", "R@1", "R@5", "MRR@10"), "nDCG@10")
    table = ChunkTable({"a:0": "A", "a:1": "A", "b:0": "B"}, {}, {})
    query = EvalQuery("q", "text", {"B": 1.0, "C": 1.0})
    rankings = dict.fromkeys((1, 5, 10, 20), ["a:0", "a:1", "b:0"])
    judged = judge(corpus, query, rankings, table)
    assert judged.values["R@1"] == 0.0
    assert judged.values["R@5"] == 0.5
    assert judged.values["MRR@10"] == 0.5  # B is the second document
    assert judged.miss["missed"] == [{"id": "C", "grade": 1.0, "rank": None}]


def test_map_at_k_sums_precision_at_each_relevant_rank_over_all_relevant() -> None:
    from hierdoc.eval.metrics import map_at_k

    # relevant at ranks 1 and 3 of 3 relevant: (1/1 + 2/3) / 3
    assert map_at_k(["a", "x", "b", "y"], {"a": 1.0, "b": 1.0, "c": 1.0}) == pytest.approx(5 / 9)
    assert map_at_k([str(n) for n in range(10)] + ["a"], {"a": 1.0}, 10) == 0.0
    assert map_at_k(["a", "a"], {"a": 1.0}) == 1.0


def test_containment_counts_every_gold_passage_a_chunk_holds() -> None:
    gold = {"rule one applies.": 1.0, "rule two applies.": 1.0, "never returned.": 1.0}
    corpus = EvalCorpus("c", [], [], "contains", ("R@1", "R@10", "MRR@10"), "R@10")
    table = ChunkTable({}, {}, {})
    table.content = {"c1": "intro", "c2": "x rule one applies. rule two applies. y"}
    judged = judge(corpus, EvalQuery("q", "?", gold), {1: ["c1"], 10: ["c1", "c2"]}, table)
    assert judged.values == {"R@1": 0.0, "R@10": pytest.approx(2 / 3), "MRR@10": 0.5}
    assert [m["passage"] for m in judged.miss["missed"]] == ["never returned."]
