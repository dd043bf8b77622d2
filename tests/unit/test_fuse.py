import pytest

from hierdoc.search.fuse import best_possible, weighted_rrf


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = dict(weighted_rrf({"a": ["x", "y"], "b": ["y"]}, {"a": 1.0, "b": 1.0}, k=60))
    assert fused["x"] == pytest.approx(1 / 61)
    assert fused["y"] == pytest.approx(1 / 62 + 1 / 61)


def test_weights_apply_as_written_keyword_first_beats_semantic_second() -> None:
    rankings = {"semantic": ["s1", "s2"], "keyword": ["k1"]}
    fused = [c for c, _ in weighted_rrf(rankings, {"semantic": 1.0, "keyword": 1.0})]
    assert fused.index("k1") < fused.index("s2")


def test_weights_are_not_renormalised() -> None:
    rankings = {"semantic": ["s1"], "keyword": ["k1"]}
    fused = dict(weighted_rrf(rankings, {"semantic": 0.5, "keyword": 0.3}))
    assert fused["s1"] == pytest.approx(0.5 / 61)
    assert fused["k1"] == pytest.approx(0.3 / 61)


def test_heavier_keyword_weight_puts_keyword_hits_first() -> None:
    rankings = {"semantic": ["s1"], "keyword": ["k1"]}
    fused = weighted_rrf(rankings, {"semantic": 0.5, "keyword": 0.8})
    assert fused[0][0] == "k1"


def test_zero_weight_drops_a_modality_and_ties_break_by_id() -> None:
    fused = weighted_rrf({"a": ["b", "a"], "c": ["z"]}, {"a": 1.0, "c": 0.0})
    assert [c for c, _ in fused] == ["b", "a"]
    tied = weighted_rrf({"a": ["y"], "b": ["x"]}, {"a": 1.0, "b": 1.0})
    assert [c for c, _ in tied] == ["x", "y"]


def test_best_possible_is_the_top_of_the_scale() -> None:
    assert best_possible({"a": 1.0, "b": 0.5}, ["a", "b"]) == pytest.approx(1.5 / 61)
