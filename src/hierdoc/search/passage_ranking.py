"""Passage-level results: the sentences of the corpus that best answer, not of one chunk.

With ``passage_results`` a search returns passages ranked across its results. Every
sentence unit of every result's chunk (a numbered clause, a list item, a sentence; see
:func:`~hierdoc.search.passages.sentence_units`) is a candidate, scored by the sum of three
signals, each standardised over all the candidates of the query (z-scores, so that no
signal's scale decides):

* the unit's own BM25 against the query's terms, with the index's idf (comparable across
  chunks, unlike the in-chunk scores a result's ``passage`` is chosen by);
* the unit's own cosine to the query, its text embedded by the index's embedder (without
  one, the cosine of the best stored embedding window covering it, or of the chunk's best
  window when its windows cannot be placed);
* the score of the result the unit belongs to (the chunk's retrieval evidence).

The best units become passages, each grown by its better-scoring neighbour (by the in-chunk
scores) until it holds ``result_passage_min_chars``; a unit inside a passage already taken
is skipped, so no two passages overlap. A result whose passage a cited section chose keeps
that passage, ranked where its result ranks among the cited ones, before the others.
Short, exact passages first: on ContractNLI and ObliQA (BENCHMARKS.md, "Passages") the
first passage's character precision rises against ranking each result's passages by its
chunk's score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ..config import DEFAULT_POLICY, SearchPolicy
from ..models import Passage, SearchResponse, SearchResult

Span = tuple[int, int]


@dataclass(frozen=True)
class UnitEvidence:
    """What one result offers to the passage-level ranking: its sentence units, their
    in-chunk scores (which grow a passage) and the two cross-chunk signals per unit
    (BM25 with the index's idf; cosine to the query)."""

    units: tuple[Span, ...]
    scores: tuple[float, ...]
    lexical: tuple[float, ...]
    semantic: tuple[float, ...]
    cited: bool = False
    """The result's passage was chosen by a cited section: it stands as it is."""


def rank_units(
    response: SearchResponse,
    evidence: dict[int, UnitEvidence],
    top_k: int,
    policy: SearchPolicy = DEFAULT_POLICY,
) -> SearchResponse:
    """The response with one result per passage (``evidence`` by result position), the
    passages of cited sections first, then the best units as passages (see the module),
    at most ``top_k``; scores fall from 1.0 with the fused score."""
    cited = [
        (result, result.passage)
        for position, result in enumerate(response.results)
        if result.passage is not None and evidence.get(position, _NONE).cited
    ]
    candidates = [
        (position, index)
        for position, found in sorted(evidence.items())
        if not found.cited
        for index in range(len(found.units))
    ]
    fused = fused_scores(response.results, evidence, candidates)
    chosen = _passages(response.results, evidence, candidates, fused, top_k - len(cited), policy)
    scores = _falling(len(cited), [fused[i] for i, _ in chosen], min(fused, default=0.0))
    results = [_one_passage(r, p, 1.0) for r, p in cited[:top_k]]
    results += [
        _one_passage(response.results[candidates[i][0]], passage, score)
        for (i, passage), score in zip(chosen, scores, strict=True)
    ]
    return replace(response, results=results[:top_k])


_NONE = UnitEvidence((), (), (), ())


def fused_scores(
    results: Sequence[SearchResult],
    evidence: dict[int, UnitEvidence],
    candidates: Sequence[tuple[int, int]],
) -> list[float]:
    """Each candidate unit's (result position, unit index) sum of standardised BM25,
    window cosine and result score."""
    if not candidates:
        return []
    lexical = [evidence[p].lexical[i] for p, i in candidates]
    semantic = [evidence[p].semantic[i] for p, i in candidates]
    chunk = [results[p].score for p, _ in candidates]
    total = standardised(lexical) + standardised(semantic) + standardised(chunk)
    return [float(value) for value in total]


def standardised(values: Sequence[float]) -> np.ndarray:
    """``values`` as z-scores; all zeros when they do not vary."""
    array = np.asarray(values, dtype=np.float64)
    spread = array.std()
    return (array - array.mean()) / spread if spread > 0 else np.zeros_like(array)


def _passages(
    results: Sequence[SearchResult],
    evidence: dict[int, UnitEvidence],
    candidates: Sequence[tuple[int, int]],
    fused: Sequence[float],
    wanted: int,
    policy: SearchPolicy,
) -> list[tuple[int, Passage]]:
    """The best candidates (by index) grown into passages, none overlapping another."""
    taken: dict[int, set[int]] = {}
    chosen: list[tuple[int, Passage]] = []
    for i in sorted(range(len(candidates)), key=lambda i: (-fused[i], i)):
        if len(chosen) >= wanted:
            break
        position, unit = candidates[i]
        blocked = taken.setdefault(position, set())
        if unit in blocked:
            continue
        found = evidence[position]
        first, last = _grown(found, unit, blocked, policy.result_passage_min_chars)
        blocked.update(range(first, last + 1))
        start, end = found.units[first][0], found.units[last][1]
        content = results[position].content
        chosen.append((i, Passage(content[start:end], start, end)))
    return chosen


def _grown(found: UnitEvidence, unit: int, blocked: set[int], min_chars: int) -> Span:
    """Unit index range around ``unit``, off ``blocked``, taking in the better-scoring free
    neighbour while the range is shorter than ``min_chars``."""
    units, scores = found.units, found.scores
    first = last = unit
    while units[last][1] - units[first][0] < min_chars:
        options = []
        if first > 0 and first - 1 not in blocked:
            options.append((scores[first - 1] if scores else 0.0, 0, first - 1, last))
        if last + 1 < len(units) and last + 1 not in blocked:
            options.append((scores[last + 1] if scores else 0.0, 1, first, last + 1))
        if not options:
            break
        _, _, first, last = max(options)
    return first, last


def _falling(cited: int, fused: Sequence[float], low: float) -> list[float]:
    """Scores for the ranked units: 1.0 for the best (or just under the cited passages),
    falling with the fused score towards 0.0, the score of the query's lowest candidate."""
    if not fused:
        return []
    high = fused[0]
    top = 1.0 if not cited else 0.999
    if high <= low:
        return [top] * len(fused)
    return [top * (value - low) / (high - low) for value in fused]


def _one_passage(result: SearchResult, passage: Passage | None, score: float) -> SearchResult:
    if passage is None:
        return replace(result, score=score)
    inside = [h for h in result.highlights if passage.start <= h[0] and h[1] <= passage.end]
    return replace(result, score=score, passage=passage, passages=[passage], highlights=inside)
