"""Weighted Reciprocal Rank Fusion (Cormack, Clarke and Büttcher, SIGIR 2009).

``score(d) = sum over modalities m of weight_m / (k + rank_m(d))`` with 1-based
ranks and k = 60 as in the paper. The weights are applied exactly as given: no
renormalisation. With equal weights a keyword-only first hit (1/61) outranks a
semantic-only second hit (1/62); a weight ratio below 61/62 reverses that, as
the user asked. Ties break by chunk id so the order is deterministic.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from ..models import Hit


def weighted_rrf(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float],
    k: int = 60,
) -> list[tuple[str, float]]:
    """Fuse ranked id lists, one per modality, into one (id, score) list, best first."""
    if k < 0:
        raise ValueError("rrf_k must be >= 0")
    scores: dict[str, float] = defaultdict(float)
    for modality, ranking in rankings.items():
        weight = weights.get(modality, 0.0)
        if weight <= 0:
            continue
        for rank, chunk_id in enumerate(ranking, start=1):
            scores[chunk_id] += weight / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def best_possible(weights: Mapping[str, float], modalities: Sequence[str], k: int = 60) -> float:
    """The score of a chunk ranked first by every modality that ran: the scale's top."""
    return sum(max(weights.get(m, 0.0), 0.0) for m in modalities) / (k + 1)


def rrf_fusion(
    rankings: Mapping[str, Sequence[Hit]], weights: Mapping[str, float], k: int = 60
) -> list[tuple[str, float]]:
    """:func:`weighted_rrf` of the modalities' hits."""
    return weighted_rrf({m: [h.chunk_id for h in hits] for m, hits in rankings.items()}, weights, k)


RULES = {"rrf": rrf_fusion}
