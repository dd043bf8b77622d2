"""Fusing the modalities' rankings: by their scores or by their ranks.

Score fusion (:func:`score_fusion`) puts each modality's scores on one scale over its own
candidates, as distribution-based score fusion (DBSF, as Qdrant names it) does:
``(score - (mean - 3 sd)) / (6 sd)``, about [0, 1] (an outlier goes beyond), so a modality
whose best candidate stands far above the rest counts more than one whose candidates score
alike. The exact
modality's hits all score 1.0 and count by rank instead: ``1 - (rank - 1) / n``. A chunk's
fused score is the weighted sum.

Score fusion also weighs keyword against semantic per query by each side's confidence
(:func:`confident_weights`): how far its best candidate's score falls to its last
candidate's, as a share of the best, ``(s_1 - s_n) / s_1``. A side whose scores drop
steeply has singled out a few chunks; one whose candidates score alike has not. The two
weights keep their sum and are re-split in proportion to weight times confidence. A query
that names a document (a ``named`` ranking with a weight) keeps its weights as set: the
ranking within the named document carries it, and the whole index's rankings are then
less sure a guide (ContractNLI searched over all NDAs: SpanR@1 0.691 with the re-split,
0.700 without).
Measured on the same candidate lists over the codebase, SciFact, ContractNLI and ObliQA
sets (``benchmarks/fusion.py``), this is the one rule of those tried that keeps hybrid at or
above the better of keyword and semantic on all four.

Weighted Reciprocal Rank Fusion (Cormack, Clarke and Büttcher, SIGIR 2009):
``score(d) = sum over modalities m of weight_m / (k + rank_m(d))`` with 1-based
ranks and k = 60 as in the paper. The weights are applied exactly as given: no
renormalisation. With equal weights a keyword-only first hit (1/61) outranks a
semantic-only second hit (1/62); a weight ratio below 61/62 reverses that, as
the user asked. Ties break by chunk id so the order is deterministic.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

from ..config import SearchSettings
from ..models import Hit

RRF_K: int = SearchSettings.model_fields["rrf_k"].default
"""The ``k`` of reciprocal rank fusion unless the settings give another (``rrf_k``)."""


def weighted_rrf(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float],
    k: int = RRF_K,
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


def best_possible(
    weights: Mapping[str, float], modalities: Sequence[str], k: int = RRF_K, rule: str = "rrf"
) -> float:
    """The score of a chunk ranked first by every modality that ran: the scale's top (for
    score fusion, of a chunk at the top of every modality's usual spread)."""
    total = sum(max(weights.get(m, 0.0), 0.0) for m in modalities)
    return total / (k + 1) if rule == "rrf" else total


def rrf_fusion(
    rankings: Mapping[str, Sequence[Hit]], weights: Mapping[str, float], k: int = RRF_K
) -> list[tuple[str, float]]:
    """:func:`weighted_rrf` of the modalities' hits."""
    return weighted_rrf({m: [h.chunk_id for h in hits] for m, hits in rankings.items()}, weights, k)


def score_fusion(
    rankings: Mapping[str, Sequence[Hit]], weights: Mapping[str, float], k: int = RRF_K
) -> list[tuple[str, float]]:
    """Each modality's scores normalised over its candidates (:func:`normalised`), weighted
    and summed; ties break by chunk id. ``k`` is not used (the same call as RRF's)."""
    scores: dict[str, float] = defaultdict(float)
    weights = confident_weights(rankings, weights)
    for modality, hits in rankings.items():
        weight = weights.get(modality, 0.0)
        if weight <= 0:
            continue
        for chunk_id, value in normalised(modality, hits).items():
            scores[chunk_id] += weight * value
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


NAMED = "named"
"""The ranking of the query within the documents it names (hybrid, keyword and semantic
modes)."""
CONFIDENT = ("keyword", "semantic")
"""The modalities whose weights :func:`confident_weights` re-splits by confidence."""


def confidence(hits: Sequence[Hit]) -> float:
    """How steeply a modality's scores fall from its best candidate to its last, as a share
    of the best, on [0, 1]: 1 for a lone hit (it singled out one chunk), 0 for none or a
    best score at or below 0."""
    if not hits or hits[0].score <= 0:
        return 0.0
    if len(hits) == 1:
        return 1.0
    return min(max((hits[0].score - hits[-1].score) / hits[0].score, 0.0), 1.0)


def confident_weights(
    rankings: Mapping[str, Sequence[Hit]], weights: Mapping[str, float]
) -> dict[str, float]:
    """``weights`` with keyword's and semantic's sum re-split in proportion to each one's
    weight times its :func:`confidence` in this query; unchanged unless both ran with a
    positive weight and at least one is confident, and when a named document's ranking
    counts (:data:`NAMED`)."""
    present = [m for m in CONFIDENT if rankings.get(m) and weights.get(m, 0.0) > 0]
    if len(present) < 2 or (rankings.get(NAMED) and weights.get(NAMED, 0.0) > 0):
        return dict(weights)
    shares = {m: weights[m] * confidence(rankings[m]) for m in present}
    total = math.fsum(shares.values())
    if total <= 0:
        return dict(weights)
    budget = math.fsum(weights[m] for m in present)
    return {**weights, **{m: budget * share / total for m, share in shares.items()}}


def normalised(modality: str, hits: Sequence[Hit]) -> dict[str, float]:
    """A modality's hits on about [0, 1]: ranks for the exact modality, else the score's
    place in the spread of the candidates' scores (mean ± 3 standard deviations, not
    clipped: a candidate far above the rest keeps its lead); a list whose scores are all
    equal scores 1.0 throughout."""
    if not hits:
        return {}
    if modality == "exact":
        return {h.chunk_id: 1.0 - rank / len(hits) for rank, h in enumerate(hits)}
    values = [h.score for h in hits]
    mean = math.fsum(values) / len(values)
    spread = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / len(values))
    if spread == 0:
        return dict.fromkeys((h.chunk_id for h in hits), 1.0)
    low = mean - 3 * spread
    return {h.chunk_id: (h.score - low) / (6 * spread) for h in hits}


RULES = {"rrf": rrf_fusion, "score": score_fusion}
"""The fusion rules by the name the ``fusion`` setting gives."""
