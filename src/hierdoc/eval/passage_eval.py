"""Span-level evaluation of passages: how much of what a method returns is the gold text.

A method returns, for each query, passages in rank order: character spans of documents.
Each is scored as LegalBench-RAG (Pipitone and Houir Alami, 2024) scores snippets, with k
counted in passages, and against a reading budget:

* ``P@1`` / ``R@8``: character precision of the first passage, recall of the first eight;
* ``R@500`` / ``R@2k`` / ``R@8k``: recall of the gold characters in the passages read in
  order until 500 / 2,000 / 8,000 characters are read (the last one cut at the budget);
* ``R@2k packed``: the same for 2,000 characters packed with whole passages, in order, a
  passage that would overflow the budget skipped (an agent that reads a passage whole or
  not at all);
* ``Hit``: in the first result whose chunk holds gold text, whether what the method returns
  of that result (its passage, its passages) overlaps the gold; over the questions with
  such a result among the first ten; only for methods that return parts of chunks;
* ``chars@1``: the length of the first passage.

Characters returned from another document than the gold's count as returned, never gold.
The methods (:mod:`.passage_methods`) run in the same run over the same questions.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .datasets import EvalQuery
from .metrics import Span, char_precision_at_k, char_recall_at_k, spans_overlap

BUDGETS = (500, 2000, 8000)
MEASURES = ("P@1", "R@8", "R@500", "R@2k", "R@8k", "R@2k packed", "Hit", "chars@1")
PACKED_BUDGET = 2000


@dataclass(frozen=True)
class Returned:
    """One passage a method returned: its document, its span there, and the result (chunk)
    it is part of, with that chunk's span (None when the passage is the whole result)."""

    source: str
    span: Span
    group: int
    chunk: Span | None = None


PassageRanker = Callable[[EvalQuery], list[Returned]]


def gold_source(query: EvalQuery) -> str:
    return query.source_filter or query.document or ""


def measure(query: EvalQuery, items: Sequence[Returned]) -> dict[str, float]:
    """Every measure of one query's returned passages (``Hit`` is NaN when no result of the
    first ten holds gold, or the method returns whole results)."""
    gold: list[Span] = query.relevant  # type: ignore[assignment]
    values = {
        "P@1": _precision(items[:1], query),
        "R@8": _recall(items[:8], query),
        "chars@1": float(sum(i.span[1] - i.span[0] for i in items[:1])),
        "Hit": first_hit(items, gold, gold_source(query)),
    }
    for budget, name in zip(BUDGETS, ("R@500", "R@2k", "R@8k"), strict=True):
        values[name] = _recall(within_budget(items, budget), query)
    values["R@2k packed"] = _recall(packed(items, PACKED_BUDGET), query)
    return values


def packed(items: Sequence[Returned], budget: int) -> list[Returned]:
    """The passages that fit ``budget`` whole, in order, each that would overflow it skipped."""
    kept, left = [], budget
    for item in items:
        length = item.span[1] - item.span[0]
        if length <= left:
            kept.append(item)
            left -= length
    return kept


def within_budget(items: Sequence[Returned], budget: int) -> list[Returned]:
    """The passages read in order until ``budget`` characters are read, the last one cut."""
    kept, left = [], budget
    for item in items:
        if left <= 0:
            break
        start, end = item.span
        kept.append(Returned(item.source, (start, min(end, start + left)), item.group, item.chunk))
        left -= end - start
    return kept


def first_hit(items: Sequence[Returned], gold: Sequence[Span], source: str) -> float:
    """1.0 when the first result (of ten) whose chunk overlaps ``gold`` has a returned passage
    that overlaps it, 0.0 when none does, NaN without such a result or chunk spans."""
    groups: dict[int, list[Returned]] = {}
    for item in items:
        if item.chunk is None:
            return math.nan
        groups.setdefault(item.group, []).append(item)
    for group in sorted(groups)[:10]:
        parts = groups[group]
        if parts[0].source != source or not _touches(parts[0].chunk, gold):
            continue
        return float(any(_touches(p.span, gold) for p in parts))
    return math.nan


def _touches(span: Span | None, gold: Sequence[Span]) -> bool:
    return span is not None and any(spans_overlap(span, g) for g in gold)


def _split(items: Sequence[Returned], query: EvalQuery) -> tuple[list[Span], int]:
    source = gold_source(query)
    own = [i.span for i in items if i.source == source]
    foreign = sum(i.span[1] - i.span[0] for i in items if i.source != source)
    return own, foreign


def _precision(items: Sequence[Returned], query: EvalQuery) -> float:
    own, foreign = _split(items, query)
    return char_precision_at_k(own, query.relevant, len(own), foreign)  # type: ignore[arg-type]


def _recall(items: Sequence[Returned], query: EvalQuery) -> float:
    own, _ = _split(items, query)
    return char_recall_at_k(own, query.relevant, len(own))  # type: ignore[arg-type]


def mean_measures(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """Each measure's mean over the queries that have it (NaN ones left out)."""
    means = {}
    for name in MEASURES:
        values = [r[name] for r in rows if not math.isnan(r[name])]
        means[name] = sum(values) / len(values) if values else math.nan
    return means
