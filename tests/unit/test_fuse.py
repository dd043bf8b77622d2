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


def _hits(pairs: list[tuple[str, float]]) -> list:
    from hierdoc.models import Hit

    return [Hit(c, s) for c, s in pairs]


def test_score_fusion_places_each_score_in_its_modalitys_spread() -> None:
    from hierdoc.search.fuse import normalised

    # mean 2, sd sqrt(2/3): low end = 2 - 3 sd, width = 6 sd
    values = normalised("keyword", _hits([("a", 3.0), ("b", 2.0), ("c", 1.0)]))
    sd = (2 / 3) ** 0.5
    assert values["a"] == pytest.approx((3.0 - (2 - 3 * sd)) / (6 * sd))
    assert values["b"] == pytest.approx(0.5)
    assert normalised("semantic", _hits([("a", 0.4), ("b", 0.4)])) == {"a": 1.0, "b": 1.0}
    assert normalised("exact", _hits([("x", 1.0), ("y", 1.0)])) == {"x": 1.0, "y": 0.5}


def test_score_fusion_follows_the_modality_whose_best_stands_out() -> None:
    from hierdoc.search.fuse import score_fusion

    # keyword's first hit stands far above its others; semantic's candidates score alike
    keyword = _hits([("k1", 30.0), ("s1", 5.0), ("k3", 4.8), ("k4", 4.7), ("k5", 4.6)])
    semantic = _hits([("s1", 0.52), ("s2", 0.51), ("k1", 0.50), ("s4", 0.50), ("s5", 0.49)])
    rankings = {"keyword": keyword, "semantic": semantic}
    fused = score_fusion(rankings, {"keyword": 1.0, "semantic": 1.0})
    assert fused[0][0] == "k1"
    reciprocal = weighted_rrf({m: [h.chunk_id for h in hs] for m, hs in rankings.items()}, {})
    assert reciprocal == []  # no weights, nothing fused
    ranked = weighted_rrf(
        {m: [h.chunk_id for h in hs] for m, hs in rankings.items()},
        {"keyword": 1.0, "semantic": 1.0},
    )
    assert ranked[0][0] == "s1"  # by ranks alone the weak modality's first hit wins
    assert score_fusion(rankings, {"keyword": 0.0, "semantic": 1.0})[0][0] == "s1"


def test_best_possible_of_score_fusion_is_the_sum_of_the_weights() -> None:
    assert best_possible({"a": 1.0, "b": 0.5}, ["a", "b"], rule="score") == pytest.approx(1.5)


def test_confidence_is_the_fall_from_best_to_last_as_a_share_of_the_best() -> None:
    from hierdoc.search.fuse import confidence

    assert confidence(_hits([("a", 10.0), ("b", 6.0), ("c", 4.0)])) == pytest.approx(0.6)
    assert confidence(_hits([("a", 0.8), ("b", 0.8)])) == 0.0
    assert confidence(_hits([("a", 0.8)])) == 1.0  # a lone hit: one chunk singled out
    assert confidence([]) == 0.0
    assert confidence(_hits([("a", -0.1), ("b", -0.3)])) == 0.0


def test_confident_weights_resplit_keyword_and_semantic_keeping_their_sum() -> None:
    from hierdoc.search.fuse import confident_weights

    rankings = {
        "keyword": _hits([("k1", 20.0), ("k2", 10.0)]),  # confidence 0.5
        "semantic": _hits([("s1", 0.8), ("s2", 0.6)]),  # confidence 0.25
        "exact": _hits([("x", 1.0)]),
    }
    weights = confident_weights(rankings, {"keyword": 1.0, "semantic": 1.0, "exact": 1.0})
    assert weights["keyword"] == pytest.approx(2 * 0.5 / 0.75)
    assert weights["semantic"] == pytest.approx(2 * 0.25 / 0.75)
    assert weights["exact"] == 1.0
    # the user's weights still count: semantic at 3 outweighs keyword's steeper fall
    uneven = confident_weights(rankings, {"keyword": 1.0, "semantic": 3.0})
    assert uneven["semantic"] > uneven["keyword"]
    assert uneven["keyword"] + uneven["semantic"] == pytest.approx(4.0)


def test_confident_weights_leave_a_lone_or_switched_off_modality_alone() -> None:
    from hierdoc.search.fuse import confident_weights

    keyword = _hits([("k1", 20.0), ("k2", 10.0)])
    semantic = _hits([("s1", 0.8), ("s2", 0.6)])
    alone = {"keyword": 1.0, "semantic": 1.0}
    assert confident_weights({"keyword": keyword}, alone) == alone
    off = {"keyword": 1.0, "semantic": 0.0}
    assert confident_weights({"keyword": keyword, "semantic": semantic}, off) == off
    flat = {"keyword": _hits([("k1", 5.0), ("k2", 5.0)]), "semantic": _hits([("s1", -0.1)])}
    assert confident_weights(flat, alone) == alone


def test_score_fusion_leans_on_the_modality_that_singles_out_its_first_hit() -> None:
    from hierdoc.search.fuse import score_fusion

    # Equal normalised tops; keyword's scores fall by 90% to its last, semantic's by 5%:
    # keyword's first hit wins, though by the spread alone the two tie.
    keyword = _hits([("k1", 10.0), ("k2", 5.5), ("k3", 1.0)])
    semantic = _hits([("s1", 0.60), ("s2", 0.585), ("s3", 0.57)])
    fused = score_fusion({"keyword": keyword, "semantic": semantic}, {"keyword": 1, "semantic": 1})
    assert fused[0][0] == "k1"
    assert fused[0][1] > fused[1][1]


def test_a_query_naming_a_document_keeps_its_weights() -> None:
    from hierdoc.search.fuse import NAMED, confident_weights

    rankings = {
        "keyword": _hits([("k1", 20.0), ("k2", 10.0)]),
        "semantic": _hits([("s1", 0.8), ("s2", 0.6)]),
        NAMED: _hits([("k1", 1.0), ("s1", 0.5)]),
    }
    weights = {"keyword": 1.0, "semantic": 1.0, NAMED: 3.0}
    assert confident_weights(rankings, weights) == weights
    unweighted = confident_weights(rankings, {**weights, NAMED: 0.0})
    assert unweighted["keyword"] > unweighted["semantic"]
