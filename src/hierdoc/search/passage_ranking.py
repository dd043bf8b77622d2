"""Passage-level results: the sentences of the corpus that best answer, not of one chunk.

With ``passage_results`` a search returns passages ranked across its results (at least
the policy's ``result_passage_chunks`` of them). Every sentence unit of every result's chunk
(a numbered clause, a list item, a sentence; see
:func:`~hierdoc.search.passages.sentence_units`) is a candidate. With the policy's
``result_passage_scorer`` ``learned`` (the default) its score is a linear model over its
features (:mod:`~hierdoc.search.unit_scorer`), the weights fitted on training questions;
with ``fixed``, the sum of four signals, each standardised over all the candidates of the
query (z-scores, so that no signal's scale decides):

* the unit's own BM25 against the query's terms, with the index's idf (comparable across
  chunks, unlike the in-chunk scores a result's ``passage`` is chosen by);
* the unit's own cosine to the query, its text embedded by the index's embedder (without
  one, the cosine of the best stored embedding window covering it, or of the chunk's best
  window when its windows cannot be placed);
* the score of the result the unit belongs to (the chunk's retrieval evidence);
* the share of the query's terms (weighted by idf) that the unit holds with its scope: its
  list's lead-in, its heading line and the headings of its chunk's section chain
  (``result_passage_coverage`` weighs it).

The learned model has these four among its features.

The best units become passages, each grown by its better-scoring neighbour (by the same
score) while it is shorter than ``result_passage_min_chars`` or the neighbour scores
within ``result_passage_absorb`` of the unit it grew from, so that a clause the query's
evidence covers sentence by sentence is one passage (at most ``passage_chars``); then, with
``result_passage_paragraphs``, to the whole paragraph it lies in (the text between blank
lines, the whole chunk when it has none) when that fits ``passage_chars``, so that a
numbered rule written as one paragraph, or a chunk that is one short section, is read
whole (on ObliQA's rulebooks, where the gold passage is such a rule, recall at eight
passages rises; ContractNLI's chunks have no blank lines, and few fit). A list
item's lead-in ("... shall not apply to any information that:") follows its item as the
next passage. A unit inside a passage already taken is skipped, so no two passages overlap.
A result whose passage a cited section chose keeps that passage, ranked where its result
ranks among the cited ones, before the others. Short, exact passages first: on ContractNLI
and ObliQA (BENCHMARKS.md, "Passages") the first passage's character precision rises
against ranking each result's passages by its chunk's score.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from ..config import DEFAULT_POLICY, SearchPolicy, SearchSettings
from ..models import Passage, SearchResponse, SearchResult
from .unit_scorer import UnitWeights, default_weights, standardised, unit_features

Span = tuple[int, int]
T = TypeVar("T")
DEFAULT_PASSAGE_CHARS: int = SearchSettings.model_fields["passage_chars"].default


@dataclass(frozen=True)
class UnitEvidence:
    """What one result offers to the passage-level ranking: its sentence units and their
    signals comparable across chunks (BM25 with the index's idf; cosine to the query; query
    term coverage in scope)."""

    units: tuple[Span, ...]
    lexical: tuple[float, ...]
    semantic: tuple[float, ...]
    cited: bool = False
    """The result's passage was chosen by a cited section: it stands as it is."""
    coverage: tuple[float, ...] = ()
    """Each unit's share of the query's terms in its scope (none: not a signal)."""
    lead_ins: tuple[int | None, ...] = ()
    """Each unit's lead-in, as a unit index (:func:`~hierdoc.search.passages.unit_parents`)."""
    own_coverage: tuple[float, ...] = ()
    """Each unit's share of the query's terms in its own text (none: not a signal)."""


def rank_units(
    response: SearchResponse,
    evidence: dict[int, UnitEvidence],
    top_k: int,
    policy: SearchPolicy = DEFAULT_POLICY,
    budget: int = DEFAULT_PASSAGE_CHARS,
    weights: UnitWeights | None = None,
) -> SearchResponse:
    """The response with one result per passage (``evidence`` by result position), the
    passages of cited sections first, then the best units as passages (see the module),
    at most ``top_k``, each at most ``budget`` characters unless one unit is longer; scores
    fall from 1.0 with the fused score. ``weights`` (else the shipped ones) weigh the
    units' features when the policy's ``result_passage_scorer`` is ``learned``."""
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
    fused = unit_scores(response.results, evidence, candidates, policy, weights)
    wanted = top_k - len(cited)
    chosen = _passages(response.results, evidence, candidates, fused, wanted, policy, budget)
    scores = _falling(len(cited), [fused[i] for i, _ in chosen], min(fused, default=0.0))
    results = [_one_passage(r, p, 1.0) for r, p in cited[:top_k]]
    results += [
        _one_passage(response.results[candidates[i][0]], passage, score)
        for (i, passage), score in zip(chosen, scores, strict=True)
    ]
    return replace(response, results=results[:top_k])


_NONE = UnitEvidence((), (), ())


def unit_scores(
    results: Sequence[SearchResult],
    evidence: dict[int, UnitEvidence],
    candidates: Sequence[tuple[int, int]],
    policy: SearchPolicy = DEFAULT_POLICY,
    weights: UnitWeights | None = None,
) -> list[float]:
    """Each candidate unit's score: by the learned ``weights`` (else the shipped ones) over
    its features (:mod:`~hierdoc.search.unit_scorer`), or with the policy's
    ``result_passage_scorer`` ``fixed`` by :func:`fused_scores`."""
    if policy.result_passage_scorer == "fixed":
        return fused_scores(results, evidence, candidates, policy)
    features = unit_features(results, evidence, candidates)
    return [float(v) for v in (weights or default_weights()).scores(features)]


def fused_scores(
    results: Sequence[SearchResult],
    evidence: dict[int, UnitEvidence],
    candidates: Sequence[tuple[int, int]],
    policy: SearchPolicy = DEFAULT_POLICY,
) -> list[float]:
    """Each candidate unit's (result position, unit index) sum of standardised BM25,
    cosine, result score and (times ``result_passage_coverage``) query term coverage."""
    if not candidates:
        return []
    lexical = [evidence[p].lexical[i] for p, i in candidates]
    semantic = [evidence[p].semantic[i] for p, i in candidates]
    chunk = [results[p].score for p, _ in candidates]
    coverage = [_at(evidence[p].coverage, i, 0.0) for p, i in candidates]
    total = standardised(lexical) + standardised(semantic) + standardised(chunk)
    total += policy.result_passage_coverage * standardised(coverage)
    return [float(value) for value in total]


def _at(values: Sequence[T], index: int, default: T) -> T:
    """``values[index]``, or ``default`` when ``values`` is empty (a signal not given)."""
    return values[index] if values else default


def _passages(
    results: Sequence[SearchResult],
    evidence: dict[int, UnitEvidence],
    candidates: Sequence[tuple[int, int]],
    fused: Sequence[float],
    wanted: int,
    policy: SearchPolicy,
    budget: int,
) -> list[tuple[int, Passage]]:
    """The best candidates (by index) grown into passages, each list item followed by its
    lead-in, none overlapping another."""
    scored = {candidate: fused[i] for i, candidate in enumerate(candidates)}
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
        own = [scored.get((position, u), -np.inf) for u in range(len(found.units))]
        first, last = _grown(found.units, own, unit, blocked, policy, budget)
        content = results[position].content
        if policy.result_passage_paragraphs:
            first, last = paragraph_widened(content, found.units, (first, last), blocked, budget)
        chosen.append((i, _passage(content, found.units, first, last)))
        blocked.update(range(first, last + 1))
        lead = _at(found.lead_ins, unit, None)
        free = lead is not None and lead not in blocked and len(chosen) < wanted
        if policy.result_passage_lead_ins and free:
            chosen.append((i, _passage(content, found.units, lead, lead)))
            blocked.add(lead)
    return chosen


def _passage(content: str, units: Sequence[Span], first: int, last: int) -> Passage:
    start, end = units[first][0], units[last][1]
    return Passage(content[start:end], start, end)


def _grown(
    units: Sequence[Span],
    scores: Sequence[float],
    unit: int,
    blocked: set[int],
    policy: SearchPolicy,
    budget: int,
) -> Span:
    """Unit index range around ``unit``, off ``blocked``, taking in the better-scoring free
    neighbour while the range fits ``budget`` and is shorter than the policy's
    ``result_passage_min_chars`` or the neighbour scores at least ``result_passage_absorb``
    less than ``unit``."""
    floor = scores[unit] - policy.result_passage_absorb
    first = last = unit
    while True:
        options = []
        if first > 0 and first - 1 not in blocked:
            options.append((scores[first - 1], 0, first - 1, last))
        if last + 1 < len(units) and last + 1 not in blocked:
            options.append((scores[last + 1], 1, first, last + 1))
        options = [o for o in options if units[o[3]][1] - units[o[2]][0] <= budget]
        if not options:
            return first, last
        score, _, new_first, new_last = max(options)
        short = units[last][1] - units[first][0] < policy.result_passage_min_chars
        if not short and score < floor:
            return first, last
        first, last = new_first, new_last


_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def paragraph_widened(
    content: str, units: Sequence[Span], chosen: Span, blocked: set[int], limit: int
) -> Span:
    """``chosen`` (a unit index range) widened to the free units of the paragraph holding it
    (``content`` between blank lines, or all of it), when that paragraph is at most
    ``limit`` characters."""
    first, last = chosen
    start, end = units[first][0], units[last][1]
    before = [m.end() for m in _BLANK_LINE.finditer(content, 0, start)]
    after = _BLANK_LINE.search(content, end)
    begin, finish = (before[-1] if before else 0), (after.start() if after else len(content))
    if finish - begin > limit:
        return chosen
    while first > 0 and units[first - 1][0] >= begin and first - 1 not in blocked:
        first -= 1
    while last + 1 < len(units) and units[last + 1][1] <= finish and last + 1 not in blocked:
        last += 1
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
