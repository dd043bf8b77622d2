"""The learned scorer of passage-level results' units: the features each unit gets, the
shipped weights, and the order the weights give."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hierdoc.config import SearchPolicy
from hierdoc.models import SearchResponse, SearchResult
from hierdoc.search.passage_ranking import UnitEvidence, fused_scores, rank_units, unit_scores
from hierdoc.search.passages import QueryEvidence, match_chunk
from hierdoc.search.unit_scorer import (
    FEATURES,
    UnitWeights,
    default_weights,
    reciprocal_ranks,
    unit_features,
)

CHUNK = (
    "## Exceptions\n\n"
    "The obligations shall not apply to any information that:\n\n"
    "(a) was public knowledge at the time of disclosure;\n\n"
    "(b) was independently developed by the Receiving Party."
)
POLICY = SearchPolicy(result_passage_min_chars=0, result_passage_absorb=0.0)


def _result(content: str, chunk_id: str = "a", score: float = 1.0) -> SearchResult:
    return SearchResult(chunk_id, "doc.md", "Doc", [], "s", "", "content", content, score, {}, {})


def _evidence(lexical: tuple[float, ...], semantic: tuple[float, ...]) -> UnitEvidence:
    match = match_chunk(CHUNK, QueryEvidence({"independ": 3.0}, (), ()), budget=400)
    return UnitEvidence(match.units, lexical, semantic, lead_ins=match.lead_ins)


def _column(features: np.ndarray, name: str) -> list[float]:
    return [float(v) for v in features[:, FEATURES.index(name)]]


def _only(**weights: float) -> UnitWeights:
    return UnitWeights(tuple(weights.get(name, 0.0) for name in FEATURES))


def test_each_unit_gets_its_shape_neighbours_and_ranks() -> None:
    found = _evidence((0.0, 0.0, 1.0, 3.0), (0.1, 0.2, 0.7, 0.4))
    assert [CHUNK[s:e] for s, e in found.units][:2] == [
        "## Exceptions",
        "The obligations shall not apply to any information that:",
    ]
    features = unit_features([_result(CHUNK)], {0: found}, [(0, i) for i in range(4)])
    assert features.shape == (4, len(FEATURES))
    assert _column(features, "heading") == [1.0, 0.0, 0.0, 0.0]
    assert _column(features, "lead_in") == [0.0, 1.0, 0.0, 0.0]
    assert _column(features, "list_item") == [0.0, 0.0, 1.0, 1.0]
    assert _column(features, "position") == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])
    assert _column(features, "no_terms") == [1.0, 1.0, 0.0, 0.0]
    assert _column(features, "cosine") == pytest.approx([0.1, 0.2, 0.7, 0.4])
    assert _column(features, "semantic_rank") == pytest.approx([1 / 4, 1 / 3, 1.0, 1 / 2])
    assert _column(features, "best_semantic") == [0.0, 0.0, 1.0, 0.0]
    assert _column(features, "best_lexical") == [0.0, 0.0, 0.0, 1.0]
    semantic = _column(features, "semantic")
    # the better neighbour's standardised cosine; how far below the chunk's best
    assert _column(features, "neighbour_semantic") == pytest.approx(
        [semantic[1], semantic[2], semantic[3], semantic[2]]
    )
    assert _column(features, "below_best_semantic") == pytest.approx(
        [semantic[2] - v for v in semantic]
    )


def test_a_later_result_ranks_lower_and_its_chunk_score_is_standardised() -> None:
    found = _evidence((0.0, 0.0, 1.0, 3.0), (0.1, 0.2, 0.7, 0.4))
    results = [_result(CHUNK, "a", 0.9), _result(CHUNK, "b", 0.3)]
    candidates = [(p, i) for p in (0, 1) for i in range(4)]
    features = unit_features(results, {0: found, 1: found}, candidates)
    assert _column(features, "chunk_rank") == [1.0] * 4 + [0.5] * 4
    assert _column(features, "chunk") == pytest.approx([1.0] * 4 + [-1.0] * 4)


def test_reciprocal_ranks_break_ties_by_position() -> None:
    assert list(reciprocal_ranks(np.array([0.2, 0.9, 0.2]))) == pytest.approx([1 / 2, 1, 1 / 3])


def test_the_shipped_weights_weigh_every_feature_and_were_fitted_on_dev_splits() -> None:
    shipped = json.loads(
        (Path(__file__).parents[2] / "src/hierdoc/search/unit_weights.json").read_text()
    )
    assert set(shipped["weights"]) == set(FEATURES)
    assert "test" not in shipped["trained_on"]
    weights = default_weights()
    assert len(weights.weights) == len(FEATURES)
    assert weights.weights[FEATURES.index("semantic")] > 0
    assert weights.weights[FEATURES.index("chunk")] > 0


def test_a_weights_file_that_misses_a_feature_is_refused(tmp_path: Path) -> None:
    named = dict.fromkeys(FEATURES[1:], 1.0)
    path = tmp_path / "weights.json"
    path.write_text(json.dumps({"weights": named}))
    with pytest.raises(ValueError, match="does not weigh exactly the features"):
        UnitWeights.load(path)
    with pytest.raises(ValueError, match="unit weights for"):
        UnitWeights((1.0, 2.0))


def test_the_weights_decide_the_order() -> None:
    found = {0: _evidence((0.0, 0.0, 1.0, 3.0), (0.1, 0.2, 0.7, 0.4))}
    response = SearchResponse("q", "hybrid", False, [_result(CHUNK)])

    def first(weights: UnitWeights) -> str:
        return rank_units(response, found, 1, POLICY, weights=weights).results[0].passage.text

    assert first(_only(cosine=1.0)).startswith("(a) was public knowledge")
    assert first(_only(lexical=1.0)).startswith("(b) was independently")
    assert first(_only(lead_in=1.0)).startswith("The obligations shall not apply")
    # with the shipped weights the unit best by both BM25 and cosine of its chunk leads
    both = {0: _evidence((0.0, 0.0, 0.5, 3.0), (0.1, 0.2, 0.4, 0.8))}
    shipped = rank_units(response, both, 1, POLICY).results[0].passage.text
    assert shipped.startswith("(b) was independently")


def test_the_four_signals_weighed_one_each_are_the_fixed_scorer() -> None:
    found = {0: _evidence((0.0, 0.0, 1.0, 3.0), (0.1, 0.2, 0.7, 0.4))}
    results = [_result(CHUNK)]
    candidates = [(0, i) for i in range(4)]
    four = _only(lexical=1.0, semantic=1.0, chunk=1.0, coverage=1.0)
    assert unit_scores(results, found, candidates, POLICY, four) == pytest.approx(
        fused_scores(results, found, candidates, POLICY)
    )
    fixed = POLICY.model_copy(update={"result_passage_scorer": "fixed"})
    assert unit_scores(results, found, candidates, fixed, _only(cosine=1.0)) == pytest.approx(
        fused_scores(results, found, candidates, POLICY)
    )
