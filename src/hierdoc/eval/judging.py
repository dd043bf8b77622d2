"""Judging one query: its rankings (chunk ids per cutoff) turned into every metric.

Chunk ids are mapped to what the corpus judges: documents (a document ranked
where its first chunk is), chunks (through the cookbook's content aliases) or
character spans (each chunk located in its document's text). A query with a
relevant item outside the top 10 is reported as a miss, with where it ranked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .datasets import EvalCorpus, EvalQuery
from .metrics import (
    Span,
    char_precision_at_k,
    char_recall_at_k,
    dedupe,
    map_at_k,
    mrr_at_k,
    ndcg_at_k,
    pass_at_k,
    recall_at_k,
    span_recall_at_k,
    spans_overlap,
)

if TYPE_CHECKING:
    from ..api import Index

_SPACE = re.compile(r"\s+")


@dataclass
class ChunkTable:
    """Where each chunk of an index comes from: its source and character range."""

    source: dict[str, str]
    span: dict[str, Span | None]
    of_source: dict[str, list[str]]
    unlocated: int = 0
    content: dict[str, str] = field(default_factory=dict)
    """Each chunk's text, whitespace normalised (only for a corpus judged by containment)."""

    @classmethod
    def load(cls, index: Index, corpus: EvalCorpus) -> ChunkTable:
        texts = {d.source: d.text for d in corpus.documents} if corpus.unit == "span" else {}
        table = cls({}, {}, {})
        cursor: dict[str, int] = {}
        for stored in index.iter_chunks():
            chunk = stored.chunk
            table.source[chunk.chunk_id] = chunk.source
            table.of_source.setdefault(chunk.source, []).append(chunk.chunk_id)
            if corpus.unit == "contains":
                table.content[chunk.chunk_id] = _SPACE.sub(" ", chunk.content).strip()
            if chunk.source in texts:
                found = locate(texts[chunk.source], chunk.content, cursor.get(chunk.source, 0))
                table.span[chunk.chunk_id] = found
                if found is None:
                    table.unlocated += 1
                else:
                    cursor[chunk.source] = found[0] + 1
        return table

    def within(self, source: str) -> ChunkTable:
        """The table with character spans only for ``source``'s chunks: a chunk of another
        document covers none of its characters."""
        own = self.of_source.get(source, [])
        return ChunkTable(self.source, {c: self.span.get(c) for c in own}, self.of_source)


def locate(text: str, content: str, start: int = 0) -> Span | None:
    """The character range of a chunk's content in its document: chunks are verbatim
    slices (stripped), searched from ``start`` (reading order), then anywhere, then
    with any run of whitespace matching any other."""
    content = content.strip()
    for begin in (start, 0):
        at = text.find(content, begin)
        if at >= 0:
            return at, at + len(content)
    words = content.split()
    if not words:
        return None
    match = re.compile(r"\s+".join(map(re.escape, words))).search(text)
    return (match.start(), match.end()) if match else None


@dataclass
class Judged:
    """One query's metric values, and its miss at 10 (None when nothing relevant was missed)."""

    values: dict[str, float]
    miss: dict[str, Any] | None


def _cut(name: str) -> int:
    return int(name.rsplit("@", 1)[1])


def judge(
    corpus: EvalCorpus,
    query: EvalQuery,
    rankings: Mapping[int, list[str]],
    table: ChunkTable,
    passages: Mapping[str, Sequence[Span]] | None = None,
) -> Judged:
    """Every metric of one query from its rankings (chunk ids per cutoff); ``passages`` (chunk
    id -> the result's passage spans in the chunk) gives the passage metrics of a span
    corpus."""
    if corpus.unit == "document":
        return _judge_documents(corpus, query, rankings, table)
    if corpus.unit == "chunk":
        return _judge_chunks(corpus, query, rankings)
    if corpus.unit == "contains":
        return _judge_contained(corpus, query, rankings, table)
    return _judge_spans(corpus, query, rankings, table, passages)


def _ranks(units: Sequence[str]) -> dict[str, int]:
    ranks: dict[str, int] = {}
    for rank, unit in enumerate(units, start=1):
        ranks.setdefault(unit, rank)
    return ranks


def _ranked_values(
    metrics: Sequence[str],
    ranked: Mapping[int, Sequence[str]],
    graded: Mapping[str, float],
    golden: Sequence[str] = (),
) -> dict[str, float]:
    """Metrics of rankings of judged keys (per cutoff): nDCG and MRR over the ranking cut at
    10, Pass@k against the ``golden`` keys (x100), recall@k over the ``graded`` ones."""
    values = {}
    for name in metrics:
        k = _cut(name)
        if name.startswith("Pass"):
            values[name] = 100.0 * pass_at_k(ranked[k], golden, k)
        elif name.startswith("nDCG"):
            values[name] = ndcg_at_k(ranked[10], graded, k)
        elif name.startswith("MRR"):
            values[name] = mrr_at_k(ranked[10], graded, k)
        elif name.startswith("MAP"):
            values[name] = map_at_k(ranked[10], graded, k)
        else:
            values[name] = recall_at_k(ranked[k], graded, k)
    return values


def _judge_documents(
    corpus: EvalCorpus, query: EvalQuery, rankings: Mapping[int, list[str]], table: ChunkTable
) -> Judged:
    relevant: dict[str, float] = query.relevant  # type: ignore[assignment]
    units = {k: dedupe(table.source.get(c, c) for c in r) for k, r in rankings.items()}
    values = _ranked_values(corpus.metrics, units, relevant)
    top = set(units[10][:10])
    deepest = _ranks(units[max(units)])
    missed = [
        {"id": d, "grade": g, "rank": deepest.get(d)}
        for d, g in relevant.items()
        if g > 0 and d not in top
    ]
    return Judged(values, _miss(query, missed, units[10][:3]))


def _judge_chunks(
    corpus: EvalCorpus, query: EvalQuery, rankings: Mapping[int, list[str]]
) -> Judged:
    alias = corpus.aliases
    golden = [alias.get(c, c) for c in query.relevant]  # type: ignore[union-attr]
    graded = {key: 1.0 for key in golden}
    keys = {k: [alias.get(c, c) for c in r] for k, r in rankings.items()}
    values = _ranked_values(corpus.metrics, keys, graded, golden)
    top = set(keys[10][:10])
    deepest = _ranks(keys[max(keys)])
    missed = [
        {"id": c, "rank": deepest.get(alias.get(c, c))}
        for c in query.relevant
        if alias.get(c, c) not in top
    ]
    return Judged(values, _miss(query, missed, rankings[10][:3]))


def _judge_contained(
    corpus: EvalCorpus, query: EvalQuery, rankings: Mapping[int, list[str]], table: ChunkTable
) -> Judged:
    """Rankings judged by containment: Recall@k is the gold passages held whole by some
    chunk of the top k, over the gold passages; MRR@k the first chunk holding any."""
    gold = [p for p, g in query.relevant.items() if g > 0]  # type: ignore[union-attr]
    held = {
        k: [[p for p in gold if p in table.content.get(c, "")] for c in r]
        for k, r in rankings.items()
    }
    values = {}
    for name in corpus.metrics:
        k = _cut(name)
        if name.startswith("MRR"):
            first = next((r for r, h in enumerate(held[10][:k], 1) if h), None)
            values[name] = 1.0 / first if first else 0.0
        else:
            found = {p for h in held[k][:k] for p in h}
            values[name] = len(found) / len(gold) if gold else 0.0
    top = {p for h in held[10][:10] for p in h}
    deepest = held[max(held)]
    missed = [
        {"passage": p[:120], "rank": next((r for r, h in enumerate(deepest, 1) if p in h), None)}
        for p in gold
        if p not in top
    ]
    return Judged(values, _miss(query, missed, rankings[10][:3]))


def _judge_spans(
    corpus: EvalCorpus,
    query: EvalQuery,
    rankings: Mapping[int, list[str]],
    table: ChunkTable,
    passages: Mapping[str, Sequence[Span]] | None = None,
) -> Judged:
    gold: list[Span] = query.relevant  # type: ignore[assignment]
    source = query.source_filter or query.document or ""
    every = table
    if query.document:
        table = table.within(source)
    overlapping = {
        c: 1.0
        for c in table.of_source.get(source, [])
        if (s := table.span.get(c)) and any(spans_overlap(s, g) for g in gold)
    }
    values = {}
    for name in corpus.metrics:
        k = _cut(name)
        if name.startswith("nDCG"):
            values[name] = ndcg_at_k(rankings[10], overlapping, k)
        elif name.startswith("MRR"):
            values[name] = mrr_at_k(rankings[10], overlapping, k)
        elif name.startswith("Doc"):
            first = _top(rankings, k)[:1]
            values[name] = float(bool(first) and table.source.get(first[0]) == source)
        elif name.startswith(("Char", "Psg")):
            if name.startswith("Char") or passages is not None:
                top = _top(rankings, k)
                values[name] = _char_metric(name, top, every, source, gold, passages)
        else:
            spans = [table.span.get(c) for c in rankings[k]]
            values[name] = span_recall_at_k(spans, gold, k)
    return Judged(values, _span_miss(query, gold, rankings, table))


def _top(rankings: Mapping[int, list[str]], k: int) -> list[str]:
    """The top k: the ranking asked at k, else the next deeper one cut to k."""
    if k in rankings:
        return rankings[k][:k]
    deeper = [cut for cut in rankings if cut >= k] or [max(rankings)]
    return rankings[min(deeper)][:k]


def _char_metric(
    name: str,
    ranked: Sequence[str],
    table: ChunkTable,
    source: str,
    gold: Sequence[Span],
    passages: Mapping[str, Sequence[Span]] | None,
) -> float:
    """``CharP@k``/``CharR@k`` over whole chunks, ``PsgP@k``/``PsgR@k`` over everything the
    top k results return as passages (a result without any counts whole), LegalBench-RAG's
    character precision and recall; characters returned from another document than
    ``source`` are returned, never gold."""
    own: list[Span | None] = []
    foreign = 0
    for chunk_id in ranked:
        chunk = table.span.get(chunk_id)
        parts = passages.get(chunk_id) if name.startswith("Psg") and passages else None
        for span in [_within(chunk, p) for p in parts] if parts else [chunk]:
            if table.source.get(chunk_id) == source:
                own.append(span)
            elif span is not None:
                foreign += span[1] - span[0]
    if name.split("@")[0].endswith("P"):
        return char_precision_at_k(own, gold, len(own), foreign)
    return char_recall_at_k(own, gold, len(own))


def _within(chunk: Span | None, passage: Span | None) -> Span | None:
    """A passage's span in the document, from its chunk's span there."""
    if chunk is None or passage is None:
        return chunk
    return chunk[0] + passage[0], min(chunk[1], chunk[0] + passage[1])


def _span_miss(
    query: EvalQuery, gold: list[Span], rankings: Mapping[int, list[str]], table: ChunkTable
) -> dict[str, Any] | None:
    top = [s for c in rankings[10][:10] if (s := table.span.get(c))]
    deepest = [table.span.get(c) for c in rankings[max(rankings)]]
    missed = []
    for g in gold:
        if any(spans_overlap(g, s) for s in top):
            continue
        rank = next((r for r, s in enumerate(deepest, 1) if s and spans_overlap(g, s)), None)
        missed.append({"span": list(g), "rank": rank})
    return _miss(query, missed, rankings[10][:3])


def _miss(query: EvalQuery, missed: list[dict], top: Sequence[str]) -> dict[str, Any] | None:
    if not missed:
        return None
    return {"query_id": query.id, "query": query.text, "missed": missed, "top3": list(top)}
