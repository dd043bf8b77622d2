"""Ranking metrics, each as its reference implementation computes it.

Recall@k, MRR@k and nDCG@k as BEIR reports them (pytrec_eval, from trec_eval),
Pass@k as the Anthropic contextual-retrieval cookbook computes it, and span
recall@k for judgements given as character spans.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

Span = tuple[int, int]

CUTOFFS = (1, 5, 10, 20)
"""The k of every @k metric; a method ranks max(CUTOFFS) deep at least."""


def dedupe(items: Iterable[str]) -> list[str]:
    """Items in order, each at its first position only."""
    return list(dict.fromkeys(items))


def recall_at_k(ranked: Sequence[str], relevant: Mapping[str, float], k: int) -> float:
    """Recall@k as BEIR reports it (pytrec_eval ``recall_k``, from trec_eval): the
    relevant items (grade > 0) in the top k, over all relevant items."""
    wanted = {item for item, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    return len(wanted & set(ranked[:k])) / len(wanted)


def mrr_at_k(ranked: Sequence[str], relevant: Mapping[str, float], k: int = 10) -> float:
    """Reciprocal rank of the first relevant item in the top k, 0 when none
    (Voorhees, TREC-8 QA track; BEIR's ``mrr_cut``)."""
    for rank, item in enumerate(ranked[:k], start=1):
        if relevant.get(item, 0) > 0:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, float], k: int = 10) -> float:
    """nDCG@k as BEIR computes it (pytrec_eval ``ndcg_cut``, Järvelin and Kekäläinen
    2002 as in trec_eval): DCG = sum over ranks i = 1..k of grade_i / log2(i + 1)
    (linear graded gain), over the DCG of the ideal order of all judged grades.
    An item repeated in ``ranked`` counts at its first position only."""
    gains = [relevant.get(item, 0.0) for item in dedupe(ranked)[:k]]
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    if best == 0:
        return 0.0
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains) if g > 0) / best


def pass_at_k(retrieved: Sequence[str], golden: Sequence[str], k: int) -> float:
    """One query's score in the Anthropic cookbook's Pass@k (``evaluate_retrieval`` in
    skills/contextual-embeddings/guide.ipynb): the golden chunks found among the first
    k retrieved, over the number of golden chunks. Chunks are compared by key (the
    cookbook compares stripped contents); a golden key listed twice counts twice.
    Pass@k is the mean of this over all queries, times 100."""
    if not golden:
        return 0.0
    top = set(retrieved[:k])
    return sum(1 for key in golden if key in top) / len(golden)


def spans_overlap(a: Span, b: Span) -> bool:
    """Half-open character ranges [start, end) share at least one character."""
    return a[0] < b[1] and b[0] < a[1]


def span_recall_at_k(ranked: Sequence[Span | None], gold: Sequence[Span], k: int) -> float:
    """The gold spans overlapped by at least one of the top k chunks (their character
    ranges in the document), over the gold spans."""
    if not gold:
        return 0.0
    top = [s for s in ranked[:k] if s is not None]
    return sum(1 for g in gold if any(spans_overlap(g, s) for s in top)) / len(gold)
