"""The learned scorer of the units of passage-level results.

Each candidate unit (a sentence, a list item, a numbered clause of one of the results) is
described by :data:`FEATURES`, computed over the query's candidates by
:func:`unit_features`; its score is their weighted sum, the weights
(``unit_weights.json`` beside this module) fitted by ``benchmarks/unit_scorer.py`` on
training questions only (ContractNLI ``dev.json`` and the ObliQA dev half): a listwise
softmax over each question's units, the target each unit's share of gold characters.

The features, per candidate:

* ``lexical``, ``semantic``, ``chunk``, ``coverage``, ``own_coverage``: the unit's BM25,
  its cosine to the query, its result's score, its share of the query's terms in its
  scope and in itself (see :class:`~hierdoc.search.passage_ranking.UnitEvidence`), each
  standardised over the query's candidates;
* ``cosine``: the cosine itself (comparable across queries);
* ``chunk_rank``: 1 / (1 + the result's position);
* ``length``: log10 of the unit's characters; ``position``: where in its chunk it is (0
  first, 1 last);
* ``list_item``, ``heading``, ``lead_in``: whether it is an item of a list, a heading
  line, a sentence introducing a list (ending with a colon);
* ``neighbour_lexical``, ``neighbour_semantic``: the better standardised BM25 and cosine
  of the units before and after it in its chunk;
* ``below_best_lexical``, ``below_best_semantic``: how far its standardised BM25 and cosine
  fall below its chunk's best;
* ``no_terms``: whether it holds none of the query's terms;
* ``lexical_rank``, ``semantic_rank``, ``coverage_rank``, ``own_coverage_rank``: 1 / (1 +
  its rank by that signal among the query's candidates);
* ``best_lexical``, ``best_semantic``: whether it is its chunk's best by BM25, by cosine.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..models import SearchResult
    from .passage_ranking import UnitEvidence

FEATURES: tuple[str, ...] = (
    "lexical",
    "semantic",
    "chunk",
    "coverage",
    "own_coverage",
    "cosine",
    "chunk_rank",
    "length",
    "position",
    "list_item",
    "heading",
    "lead_in",
    "neighbour_lexical",
    "neighbour_semantic",
    "below_best_lexical",
    "below_best_semantic",
    "no_terms",
    "lexical_rank",
    "semantic_rank",
    "coverage_rank",
    "own_coverage_rank",
    "best_lexical",
    "best_semantic",
)
WEIGHTS_FILE = Path(__file__).with_name("unit_weights.json")
_HEADING_LINE = re.compile(r"#{1,6}\s")


@dataclass(frozen=True)
class UnitWeights:
    """One weight per feature of :data:`FEATURES`, in that order."""

    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.weights) != len(FEATURES):
            raise ValueError(f"{len(self.weights)} unit weights for {len(FEATURES)} features")

    @classmethod
    def load(cls, path: Path = WEIGHTS_FILE) -> UnitWeights:
        """The weights of a file written by ``benchmarks/unit_scorer.py fit``: a JSON object
        whose ``weights`` names each feature's weight."""
        named = json.loads(path.read_text(encoding="utf-8")).get("weights")
        if not isinstance(named, dict) or set(named) != set(FEATURES):
            raise ValueError(f"{path} does not weigh exactly the features {', '.join(FEATURES)}")
        return cls(tuple(float(named[name]) for name in FEATURES))

    def scores(self, features: np.ndarray) -> np.ndarray:
        """Each row's (candidate's) score."""
        return features @ np.asarray(self.weights, dtype=np.float64)


@lru_cache(maxsize=1)
def default_weights() -> UnitWeights:
    """The weights shipped with hierdoc (``unit_weights.json``)."""
    return UnitWeights.load()


def unit_features(
    results: Sequence[SearchResult],
    evidence: dict[int, UnitEvidence],
    candidates: Sequence[tuple[int, int]],
) -> np.ndarray:
    """One row of :data:`FEATURES` per candidate (result position, unit index)."""
    if not candidates:
        return np.zeros((0, len(FEATURES)))
    lexical = standardised([evidence[p].lexical[i] for p, i in candidates])
    semantic = standardised([evidence[p].semantic[i] for p, i in candidates])
    at = {candidate: row for row, candidate in enumerate(candidates)}
    columns = {
        "lexical": lexical,
        "semantic": semantic,
        "chunk": standardised([results[p].score for p, _ in candidates]),
        "coverage": standardised([_at(evidence[p].coverage, i) for p, i in candidates]),
        "own_coverage": standardised([_at(evidence[p].own_coverage, i) for p, i in candidates]),
        "cosine": np.array([evidence[p].semantic[i] for p, i in candidates]),
        "chunk_rank": np.array([1.0 / (1 + p) for p, _ in candidates]),
    }
    shape = [_shape(results[p].content, evidence[p], i) for p, i in candidates]
    for column, name in enumerate(("length", "position", "list_item", "heading", "lead_in")):
        columns[name] = np.array([row[column] for row in shape])
    for name, signal in (("lexical", lexical), ("semantic", semantic)):
        near, best = _around(candidates, at, signal)
        columns[f"neighbour_{name}"] = near
        columns[f"below_best_{name}"] = best - signal
    columns["no_terms"] = np.array([float(evidence[p].lexical[i] <= 0) for p, i in candidates])
    for name in ("lexical", "semantic", "coverage", "own_coverage"):
        columns[f"{name}_rank"] = reciprocal_ranks(columns[name])
    for name in ("lexical", "semantic"):
        columns[f"best_{name}"] = (columns[f"below_best_{name}"] <= 0).astype(np.float64)
    return np.column_stack([columns[name] for name in FEATURES])


def _at(values: Sequence[float], index: int) -> float:
    return values[index] if values else 0.0


def _shape(content: str, found: UnitEvidence, index: int) -> tuple[float, ...]:
    """(length, position, list item, heading, lead-in) of one unit."""
    start, end = found.units[index]
    text = content[start:end].rstrip()
    line = content.rfind("\n", 0, start) + 1
    return (
        math.log10(max(1, end - start)),
        index / max(1, len(found.units) - 1),
        float(_at(found.lead_ins, index) is not None) if found.lead_ins else 0.0,
        float(bool(_HEADING_LINE.match(content, line))),
        float(text.endswith((":", ":-", "\u2014"))),
    )


def _around(
    candidates: Sequence[tuple[int, int]], at: dict[tuple[int, int], int], signal: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's best neighbour's ``signal`` (the lowest when it has none) and its
    chunk's best."""
    floor = float(signal.min())
    best: dict[int, float] = {}
    for (position, _), value in zip(candidates, signal, strict=True):
        best[position] = max(best.get(position, floor), float(value))
    near = [
        max(
            (signal[at[(p, i + step)]] for step in (-1, 1) if (p, i + step) in at),
            default=floor,
        )
        for p, i in candidates
    ]
    return np.array(near, dtype=np.float64), np.array([best[p] for p, _ in candidates])


def reciprocal_ranks(values: np.ndarray) -> np.ndarray:
    """1 / (1 + each value's rank among ``values``, the highest 0; ties by position)."""
    order = np.argsort(-values, kind="stable")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values))
    return 1.0 / (1.0 + ranks)


def standardised(values: Sequence[float]) -> np.ndarray:
    """``values`` as z-scores; all zeros when they do not vary."""
    array = np.asarray(values, dtype=np.float64)
    spread = array.std()
    return (array - array.mean()) / spread if spread > 0 else np.zeros_like(array)
