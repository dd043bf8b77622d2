"""Approximate nearest neighbours for big vector segments: HNSW graphs from usearch.

Chosen by measurement: usearch (Apache-2.0) stores a graph in
one file that is memory-mapped when read (``view``: opening costs nothing and only the
pages a search visits are read), where faiss-cpu's HNSW was equal in recall and hnswlib
ships only as a source package.

A graph's keys are the row numbers of its segment. The graph proposes windows; the
segment rescores every window of each proposed chunk exactly (:mod:`.vectors`), so the
graph's own vectors only steer the walk and may be coarse. Deleted and filtered-out
chunks are skipped by fetching more candidates (in proportion to the share of chunks
that may be returned, and again if too few came back); when few chunks may be returned
their rows are scored exactly instead, since a graph walk would mostly visit excluded
ones.

The parameters below were chosen by measured recall@10 against brute force
(``benchmarks/ann_recall.py``, BENCHMARKS.md "Approximate nearest neighbours"): on
100,000 real all-MiniLM-L6-v2 vectors of SciFact text (0.9987 at the defaults) and on
1,000,000 synthetic vectors shaped like them (0.9993), unfiltered, filtered and with
tombstones.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .vectors import Segment

Graph = Any
"""A ``usearch.index.Index``."""

CONNECTIVITY = 16
"""Edges per node (HNSW's M)."""
EXPANSION_ADD = 128
"""Candidate list while building (efConstruction)."""
EXPANSION_SEARCH = 256
"""Smallest candidate list while searching (ef); a search that fetches more uses more."""
DTYPE = "i8"
"""How the graph stores its copy of the vectors (the segment's float32 rows rescore)."""
OVERFETCH = 2
"""Windows fetched per window wanted, before dividing by the share of chunks allowed."""
EXACT_ROWS = 20_000
"""When at most this many rows belong to chunks that may be returned, score them exactly."""
SHARE_SAMPLE = 2_000
"""Allowed chunks looked up to estimate what share of a segment a large filter allows."""
BUILD_THREADS = 0
"""Threads that insert into a graph (0: every core). Concurrent inserts make the graph,
and so an approximate search's misses, differ from one build to the next."""


def available() -> bool:
    return importlib.util.find_spec("usearch") is not None


def _index(dimension: int) -> Graph:
    from usearch.index import Index

    return Index(
        ndim=dimension,
        metric="ip",
        dtype=DTYPE,
        connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD,
        expansion_search=EXPANSION_SEARCH,
    )


def build_graph(path: Path, blocks: Iterable[np.ndarray], dimension: int) -> Graph:
    """Build and save the graph of a segment's rows, given as consecutive float32 blocks
    (keys = row numbers), and return it mapped. Only the graph is held in memory."""
    graph = _index(dimension)
    first = 0
    for block in blocks:
        keys = np.arange(first, first + len(block), dtype=np.uint64)
        graph.add(keys, np.ascontiguousarray(block, dtype=np.float32), threads=BUILD_THREADS)
        first += len(block)
    temporary = path.with_suffix(".tmp")
    graph.save(str(temporary))
    temporary.replace(path)
    del graph
    return open_graph(path)


def open_graph(path: Path) -> Graph:
    """The saved graph, memory-mapped, with the parameters it was built with."""
    from usearch.index import Index

    graph = Index.restore(str(path), view=True)
    if graph is None:
        raise ValueError(f"{path.name} is not a usearch graph")
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
    if allowed is None:
        share = (chunks - len(gone)) / chunks
    elif len(allowed) <= EXACT_ROWS:
        inside = [p for p in (segment.position(c) for c in allowed) if p is not None]
        inside = [p for p in inside if segment.chunk_ids[p] not in gone]
        positions = np.asarray(inside, dtype=np.int64)
        if int((segment.starts[positions + 1] - segment.starts[positions]).sum()) <= EXACT_ROWS:
            return positions
        share = len(inside) / chunks
    else:
        share = _sampled_share(segment, allowed)
    share = max(share, 1e-3)
    windows = segment.rows / chunks
    fetch = int(k * windows * OVERFETCH / share) + 10
    while True:
        fetch = min(fetch, segment.rows)
        # the allowed top k lie about 1/share deep in the graph's order: walk that much wider
        segment.graph.expansion_search = max(fetch, int(EXPANSION_SEARCH / share))
        keys = np.asarray(segment.graph.search(query, fetch).keys, dtype=np.int64)
        owners = np.unique(np.searchsorted(segment.starts, keys, side="right") - 1)
        usable = [
            int(p)
            for p in owners
            if segment.chunk_ids[p] not in gone
            and (allowed is None or segment.chunk_ids[p] in allowed)
        ]
        # stop with a margin of usable candidates: their order in the graph is approximate
        if len(usable) >= OVERFETCH * k or fetch >= segment.rows:
            return np.asarray(usable, dtype=np.int64)
        fetch *= 4


def _sampled_share(segment: Segment, allowed: set[str]) -> float:
    """The share of the segment's chunks in a large ``allowed`` set, estimated from a
    sample of it (looking each allowed chunk up would cost more than the search)."""
    sample = list(islice(allowed, SHARE_SAMPLE))
    present = sum(segment.position(c) is not None for c in sample)
    return min(1.0, present / len(sample) * len(allowed) / len(segment.chunk_ids))
