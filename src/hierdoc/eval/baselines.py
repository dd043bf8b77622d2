"""Baselines scored beside hierdoc, over the same chunks and vectors as its default index.

* ``dense``: brute-force cosine, a chunk scoring as its best window (as hierdoc);
* ``bm25``: rank_bm25 ``BM25Okapi`` over lower-cased whitespace tokens;
* ``bm25-numpy-rrf``: rank_bm25 + numpy + RRF, the hybrid search of HoloDeck 0.7.1: cosine
  over one vector per chunk (its first window), rank_bm25 over ``[a-zA-Z0-9]+`` lower-cased
  tokens (k1=1.5, b=0.75), each side's top_k fused by RRF (k=60) with weights 0.5/0.3
  normalised to sum 1 (0.625/0.375). Its top_k candidates depend on top_k, so it is run once
  per cutoff k; ``bm25-numpy-rrf-semantic`` and ``bm25-numpy-rrf-keyword`` are its two sides
  alone.

BM25 baselines index what hierdoc's BM25 indexes: the chunk's structural
context, a newline, the chunk text. Chunks and vectors are read through the
public ``Index.iter_chunks`` / ``Index.iter_vectors``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..search.fuse import weighted_rrf
from .datasets import EvalQuery
from .method import Method
from .metrics import dedupe

if TYPE_CHECKING:
    from ..api import Index

EmbedQuery = Callable[[str], np.ndarray]

BASELINES: dict[str, str] = {
    "dense": "dense only, brute-force cosine, best window per chunk",
    "bm25": "rank_bm25 BM25Okapi, lower-cased whitespace tokens",
    "bm25-numpy-rrf": "rank_bm25 [a-zA-Z0-9]+ + numpy first-window cosine, RRF 0.625/0.375",
    "bm25-numpy-rrf-semantic": "its numpy cosine side alone (first window)",
    "bm25-numpy-rrf-keyword": "its rank_bm25 side alone ([a-zA-Z0-9]+ tokens)",
}

_ALNUM_TOKEN = re.compile(r"[a-zA-Z0-9]+")


def alnum_tokens(text: str) -> list[str]:
    """HoloDeck's BM25 tokenizer: ``re.findall(r"[a-zA-Z0-9]+", text.lower())``."""
    return _ALNUM_TOKEN.findall(text.lower())


def whitespace_tokens(text: str) -> list[str]:
    return text.lower().split()


@dataclass
class ChunkData:
    """An index's chunks and vectors as stored: what the baselines search.

    ``windows`` holds every embedded window, chunk after chunk; ``starts[i]`` is the
    row of chunk ``i``'s first window.
    """

    ids: list[str]
    sources: list[str]
    texts: list[str]
    windows: np.ndarray
    starts: np.ndarray
    by_source: dict[str, np.ndarray]

    @classmethod
    def load(cls, index: Index) -> ChunkData:
        ids, sources, texts = [], [], []
        for stored in index.iter_chunks():
            chunk = stored.chunk
            ids.append(chunk.chunk_id)
            sources.append(chunk.source)
            texts.append(f"{stored.context}\n{chunk.content}" if stored.context else chunk.content)
        owners, blocks, starts = [], [], []
        row = 0
        for chunk_id, windows in index.iter_vectors():
            owners.append(chunk_id)
            blocks.append(windows)
            starts.append(row)
            row += len(windows)
        if owners != ids:
            raise RuntimeError("vectors and chunks of the index are not in the same order")
        by_source: dict[str, list[int]] = {}
        for i, source in enumerate(sources):
            by_source.setdefault(source, []).append(i)
        return cls(
            ids,
            sources,
            texts,
            np.vstack(blocks),
            np.asarray(starts, dtype=np.int64),
            {s: np.asarray(v, dtype=np.int64) for s, v in by_source.items()},
        )

    def allowed(self, query: EvalQuery) -> np.ndarray | None:
        if query.source_filter is None:
            return None
        return self.by_source.get(query.source_filter, np.zeros(0, dtype=np.int64))


def _top(scores: np.ndarray, allowed: np.ndarray | None, k: int) -> np.ndarray:
    """Indices of the k best scores (stable on ties), within ``allowed`` when given."""
    pool = np.arange(len(scores)) if allowed is None else allowed
    order = np.argsort(-scores[pool], kind="stable")[:k]
    return pool[order]


def dense_method(data: ChunkData, embed_query: EmbedQuery) -> Method:
    """Baseline (a): brute force over every window, a chunk scoring as its best window."""

    def rank(query: EvalQuery, k: int) -> list[str]:
        scores = np.maximum.reduceat(data.windows @ embed_query(query.text), data.starts)
        return [data.ids[i] for i in _top(scores, data.allowed(query), k)]

    return Method("dense", "baseline", BASELINES["dense"], rank)


class _Bm25:
    def __init__(self, data: ChunkData, tokenize: Callable[[str], list[str]]) -> None:
        from rank_bm25 import BM25Okapi

        self.data = data
        self.tokenize = tokenize
        self.bm25 = BM25Okapi([tokenize(t) for t in data.texts], k1=1.5, b=0.75)

    def top(self, query: EvalQuery, k: int) -> list[str]:
        """rank_bm25's top k by score, only chunks scoring above 0 (as HoloDeck selects them)."""
        scores = self.bm25.get_scores(self.tokenize(query.text))
        allowed = self.data.allowed(query)
        pool = np.arange(len(scores)) if allowed is None else allowed
        top = pool[scores[pool].argsort()[-k:][::-1]] if len(pool) else pool
        return [self.data.ids[i] for i in top if scores[i] > 0]


def bm25_method(data: ChunkData) -> Method:
    """Baseline (b): rank_bm25 BM25Okapi (k1=1.5, b=0.75), whitespace tokens, lower-cased."""
    bm25 = _Bm25(data, whitespace_tokens)
    return Method("bm25", "baseline", BASELINES["bm25"], bm25.top)


class Bm25NumpyRrf:
    """Baseline (c): rank_bm25 + numpy + RRF (HoloDeck 0.7.1's hybrid) over the index's chunks."""

    def __init__(
        self,
        data: ChunkData,
        embed_query: EmbedQuery,
        weights: tuple[float, float] = (0.5, 0.3),
        rrf_k: int = 60,
    ) -> None:
        self.data = data
        self.first = np.ascontiguousarray(data.windows[data.starts])
        self.embed_query = embed_query
        self.bm25 = _Bm25(data, alnum_tokens)
        total = sum(weights)
        self.weights = {"semantic": weights[0] / total, "keyword": weights[1] / total}
        self.rrf_k = rrf_k

    def semantic(self, query: EvalQuery, k: int) -> list[str]:
        scores = self.first @ self.embed_query(query.text)
        allowed = self.data.allowed(query)
        pool = np.arange(len(scores)) if allowed is None else allowed
        return [self.data.ids[i] for i in pool[scores[pool].argsort()[-k:][::-1]]]

    def keyword(self, query: EvalQuery, k: int) -> list[str]:
        return self.bm25.top(query, k)

    def hybrid(self, query: EvalQuery, k: int) -> list[str]:
        """Both sides' top k fused by :func:`~hierdoc.search.fuse.weighted_rrf` (the same sums,
        semantic side first), the top k of the fusion. Equal scores keep HoloDeck's order, by
        first appearance (semantic ranking, then keyword), not ``weighted_rrf``'s chunk id order.
        """
        sides = {"semantic": self.semantic(query, k), "keyword": self.keyword(query, k)}
        scores = dict(weighted_rrf(sides, self.weights, self.rrf_k))
        appearance = dedupe([*sides["semantic"], *sides["keyword"]])
        return sorted(appearance, key=lambda c: -scores.get(c, 0.0))[:k]


def baseline_methods(
    names: Sequence[str], data: ChunkData, embed_query: EmbedQuery
) -> list[Method]:
    """The named baselines over ``data``; an unknown name is a ValueError."""
    unknown = [n for n in names if n not in BASELINES]
    if unknown:
        raise ValueError(f"unknown baseline {unknown[0]!r}; known: {', '.join(BASELINES)}")
    wanted = any(n.startswith("bm25-numpy-rrf") for n in names)
    rrf = Bm25NumpyRrf(data, embed_query) if wanted else None
    built: dict[str, Callable[[], Method]] = {
        "dense": lambda: dense_method(data, embed_query),
        "bm25": lambda: bm25_method(data),
        "bm25-numpy-rrf": lambda: Method(
            "bm25-numpy-rrf", "baseline", BASELINES["bm25-numpy-rrf"], rrf.hybrid, per_cutoff=True
        ),
        "bm25-numpy-rrf-semantic": lambda: Method(
            "bm25-numpy-rrf-semantic",
            "baseline",
            BASELINES["bm25-numpy-rrf-semantic"],
            rrf.semantic,
        ),
        "bm25-numpy-rrf-keyword": lambda: Method(
            "bm25-numpy-rrf-keyword", "baseline", BASELINES["bm25-numpy-rrf-keyword"], rrf.keyword
        ),
    }
    return [built[n]() for n in names]
