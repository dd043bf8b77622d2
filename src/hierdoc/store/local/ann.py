"""Approximate nearest neighbours for big vector segments: HNSW graphs from usearch.

Chosen by measurement (BENCHMARKS.md, "Scale"): usearch (Apache-2.0) stores a graph in
one file that is memory-mapped when read (``view``: opening costs nothing and only the
pages a search visits are read), keeps vectors in float16 (half the memory of the
matrix), and reached recall@10 1.0 at ``expansion_search`` 64 on clustered 384-d
vectors where faiss-cpu's HNSW was equal and hnswlib ships only as a source package.

A graph's keys are the row numbers of its segment. The graph proposes windows; the
segment rescores every window of each proposed chunk exactly (:mod:`.vectors`). Deleted
and filtered-out chunks are skipped by fetching more candidates (in proportion to the
share of chunks that may be returned); when few chunks may be returned their rows are
scored exactly instead, since a graph walk would mostly visit excluded ones.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .vectors import Segment

Graph = Any
"""A ``usearch.index.Index``."""

CONNECTIVITY = 16
EXPANSION_ADD = 128
MIN_EXPANSION_SEARCH = 64
EXACT_ROWS = 20_000
"""When at most this many rows belong to chunks that may be returned, score them exactly."""


def available() -> bool:
    return importlib.util.find_spec("usearch") is not None


def _index(dimension: int) -> Graph:
    from usearch.index import Index

    return Index(
        ndim=dimension,
        metric="ip",
        dtype="f16",
        connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD,
        expansion_search=MIN_EXPANSION_SEARCH,
    )


def build_graph(path: Path, matrix: np.ndarray) -> Graph:
    """Build and save the graph of a segment's rows (keys = row numbers); return it mapped."""
    graph = _index(matrix.shape[1])
    graph.add(np.arange(len(matrix), dtype=np.uint64), np.asarray(matrix), threads=0)
    temporary = path.with_suffix(".tmp")
    graph.save(str(temporary))
    temporary.replace(path)
    return open_graph(path, matrix.shape[1])


def open_graph(path: Path, dimension: int) -> Graph:
    graph = _index(dimension)
    graph.view(str(path))
    return graph


def candidates(
    segment: Segment,
    query: np.ndarray,
    k: int,
    allowed: set[str] | None,
    gone: frozenset[str],
) -> np.ndarray:
    """Positions (chunk numbers) of the segment to score exactly for the top ``k``."""
    chunks = len(segment.chunk_ids)
    if allowed is not None:
        inside = [p for p in (segment.position(c) for c in allowed) if p is not None]
        inside = [p for p in inside if segment.chunk_ids[p] not in gone]
        rows = int(sum(segment.starts[p + 1] - segment.starts[p] for p in inside))
        if rows <= EXACT_ROWS:
            return np.asarray(inside, dtype=np.int64)
        share = len(inside) / chunks
    else:
        share = (chunks - len(gone)) / chunks
    windows = segment.rows / chunks
    fetch = int(k * windows * 2 / max(share, 1e-3)) + 10
    while True:
        fetch = min(fetch, segment.rows)
        segment.graph.expansion_search = max(fetch, MIN_EXPANSION_SEARCH)
        keys = np.asarray(segment.graph.search(query, fetch).keys, dtype=np.int64)
        owners = np.unique(np.searchsorted(segment.starts, keys, side="right") - 1)
        usable = [
            int(p)
            for p in owners
            if segment.chunk_ids[p] not in gone
            and (allowed is None or segment.chunk_ids[p] in allowed)
        ]
        if len(usable) >= k or fetch >= segment.rows:
            return np.asarray(usable, dtype=np.int64)
        fetch *= 4
