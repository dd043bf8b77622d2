"""Ranking metrics, each as its reference implementation computes it.

Recall@k, MRR@k, MAP@k and nDCG@k as BEIR reports them (pytrec_eval, from trec_eval),
Pass@k as the Anthropic contextual-retrieval cookbook computes it, span recall@k for
judgements given as character spans, and character precision@k / recall@k over them as
LegalBench-RAG (Pipitone and Houir Alami, 2024) computes them.
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


def map_at_k(ranked: Sequence[str], relevant: Mapping[str, float], k: int = 10) -> float:
    """Average precision cut at k as pytrec_eval's ``map_cut_k`` computes it (the ObliQA
    shared task's MAP@10): the precision at each rank r <= k holding a relevant item (its
    first position only), summed, over the number of relevant items."""
    wanted = {item for item, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    found, total = 0, 0.0
    for rank, item in enumerate(dedupe(ranked)[:k], start=1):
        if item in wanted:
            found += 1
            total += found / rank
    return total / len(wanted)


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


CHAR_METRICS = ("CharP@1", "CharR@8", "PsgP@1", "PsgR@8")
"""Character-level precision@k and recall@k as LegalBench-RAG computes them, for the returned
chunks (Char) and for their passages (Psg); span corpora report them beside span recall."""
PASSAGE_METRICS = ("PsgP@1", "PsgR@8")
"""Only methods whose results carry passages (hierdoc's) have these."""


def char_precision_at_k(
    returned: Sequence[Span | None], gold: Sequence[Span], k: int, foreign: int = 0
) -> float:
    """LegalBench-RAG's precision (``QAResult.precision`` in zeroentropy-ai/legalbenchrag):
    the gold characters inside each of the top k returned spans, summed, over the characters
    returned, ``foreign`` of them from other documents than the gold's. Gold spans do not
    overlap; 0 when nothing was returned."""
    top = [s for s in returned[:k] if s is not None]
    total = sum(s[1] - s[0] for s in top) + foreign
    if total == 0:
        return 0.0
    covered = sum(_overlap(s, g) for s in top for g in gold)
    return covered / total


def char_recall_at_k(returned: Sequence[Span | None], gold: Sequence[Span], k: int) -> float:
    """LegalBench-RAG's recall (``QAResult.recall``): the gold characters covered by the top k
    returned spans, over the gold characters. The returned spans are merged first, so a
    character returned twice counts once (the reference assumes they do not overlap)."""
    total = sum(g[1] - g[0] for g in gold)
    if total == 0:
        return 0.0
    merged = merged_spans([s for s in returned[:k] if s is not None])
    return sum(_overlap(s, g) for s in merged for g in gold) / total


def _overlap(a: Span, b: Span) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def merged_spans(spans: Sequence[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged
