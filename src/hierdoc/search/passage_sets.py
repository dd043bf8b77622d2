"""Passage sets: every part of a result's chunk that the query's evidence supports.

One contiguous passage (:mod:`hierdoc.search.passages`) covers one clause; an answer often
sits in two clauses of the same chunk (ContractNLI's gold is two spans per hypothesis on
average). A result's ``passages`` are its best passage first, then further groups of whole
sentences, none overlapping or touching another, each grown around a sentence that scores
at least the search policy's ``extra_passage_share`` of the chunk's best, best first,
while the set's characters fit ``passage_set_chars``. The scores are those the best passage
was chosen by (sentence BM25 with the index's idf, plus the best embedding window's cosine,
rescaled in the chunk); a passage chosen by a cited section stands alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..config import DEFAULT_POLICY, SearchPolicy, SearchSettings
from ..models import Passage

if TYPE_CHECKING:
    from .passages import ChunkMatch

Span = tuple[int, int]

DEFAULT_SET_CHARS: int = SearchSettings.model_fields["passage_set_chars"].default
"""Characters of all of a result's passages together (the best one included)."""
_HEADING = re.compile(r"#{1,6}\s")


def passage_set(
    content: str,
    match: ChunkMatch,
    budget: int = DEFAULT_SET_CHARS,
    policy: SearchPolicy = DEFAULT_POLICY,
) -> list[Passage]:
    """``match.passage`` then the further passages of ``content`` its sentence scores
    support (seeds scoring at least the policy's ``extra_passage_share`` of the best, and
    the sentence introducing the best passage's list with ``passage_lead_ins``), in the
    order chosen (best first), all together at most ``budget`` characters (the best passage
    always kept)."""
    best, units, scores = match.passage, match.units, match.scores
    taken = [i for i, u in enumerate(units) if best.start <= u[0] and u[1] <= best.end]
    if not scores or not taken or budget <= len(best.text):
        return [best]
    blocked = set(range(taken[0] - 1, taken[-1] + 2))
    chosen = [best]
    left = budget - len(best.text)
    lead = next((match.lead_ins[i] for i in taken if match.lead_ins[i] is not None), None)
    if policy.passage_lead_ins and lead is not None and lead < taken[0]:
        start, end = units[lead]
        if end - start <= left:
            chosen.append(Passage(content[start:end], start, end))
            blocked.update(range(lead - 1, lead + 2))
            left -= end - start
    floor = policy.extra_passage_share * max(scores[i] for i in taken)
    for seed in sorted(range(len(units)), key=lambda i: (-scores[i], i)):
        if scores[seed] <= 0 or scores[seed] < floor:
            break
        if seed in blocked or units[seed][1] - units[seed][0] > left:
            continue
        first, last = _grow_free(content, units, scores, seed, left, blocked, policy)
        start, end = units[first][0], units[last][1]
        chosen.append(Passage(content[start:end], start, end))
        blocked.update(range(first - 1, last + 2))
        left -= end - start
    return chosen


def _grow_free(
    content: str,
    units: Sequence[Span],
    scores: Sequence[float],
    seed: int,
    budget: int,
    blocked: set[int],
    policy: SearchPolicy,
) -> Span:
    """Unit index range around ``seed`` that stays off ``blocked`` units (so no two passages
    touch), the better neighbour first, while it fits ``budget`` and the neighbour scores at
    least ``passage_grow_share`` of the seed (or the group is shorter than
    ``passage_min_chars``), as the best passage grows.
    A heading line is never taken in before the group, as the best passage's growth does."""
    first = last = seed
    floor = policy.passage_grow_share * scores[seed]
    while True:
        options = []
        before, after = first - 1, last + 1
        if before >= 0 and before not in blocked and not _HEADING.match(content, units[before][0]):
            options.append((scores[before], 0, before, last))
        if after < len(units) and after not in blocked:
            options.append((scores[after], 1, first, after))
        options = [o for o in options if units[o[3]][1] - units[o[2]][0] <= budget]
        if not options:
            return first, last
        score, _, new_first, new_last = max(options)
        short = units[last][1] - units[first][0] < policy.passage_min_chars
        if not short and (score <= 0 or score < floor):
            return first, last
        first, last = new_first, new_last
