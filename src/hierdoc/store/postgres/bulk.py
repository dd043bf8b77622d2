"""Bulk load: many documents written in one transaction, batch by batch, with COPY.

What a document-by-document write does per document, a bulk load does once per batch of
about :data:`BATCH_CHUNKS` chunks: one COPY per table, the postings of the whole batch
built and written at once (a term gets a row per batch, not one per document, and its
rows are merged only past :data:`~.postings.MERGE_AT` batches), the BM25 statistics
counted once. Into an empty vectors table the HNSW index
is dropped first and built once at the end over every vector (with ``build_memory`` and
``build_workers`` for that build) instead of being kept up row by row; into an index
that already holds vectors it is kept up. ``ANALYZE`` ends the load.

The whole load is one transaction: readers see the index as it was until it commits,
then every document at once; never a part of the load or a half-built HNSW index. A load
into an empty vectors table drops its HNSW index first (``ACCESS EXCLUSIVE`` on that
table), so a vector search waits for the commit (keyword search and the records answer
from the empty index meanwhile).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import psycopg
from psycopg import sql

from ...errors import StoreError
from ...text.analyze import TextAnalyzer
from .schema import HNSW_INDEX
from .writes import Written, bump, write_batch

BATCH_CHUNKS = 50_000
"""Chunks per batch: their postings are built in memory at once."""
BUILD_MEMORY = "1GB"
"""``maintenance_work_mem`` for the HNSW build (pgvector builds fastest when the graph
fits: about 2.5 kB a 384-dimensional vector)."""
BUILD_WORKERS = 2
"""``max_parallel_maintenance_workers`` for the HNSW build."""
_ANALYZED = ("documents", "sections", "chunks", "term_stats", "postings", "forward", "vectors")


@dataclass(frozen=True)
class BulkReport:
    documents: int
    chunks: int
    hnsw_rebuilt: bool
    hnsw_seconds: float = 0.0
    """How long the HNSW build took (0 when the index was kept up)."""


def bulk_load(
    conn: psycopg.Connection,
    analyzer: TextAnalyzer,
    documents: Iterable[Written],
    *,
    batch_chunks: int = BATCH_CHUNKS,
    build_memory: str = BUILD_MEMORY,
    build_workers: int = BUILD_WORKERS,
) -> BulkReport:
    """Write ``documents`` (each replacing the stored one of its source); call inside a
    transaction, holding the writer lock."""
    if batch_chunks < 1:
        raise StoreError(f"batch_chunks must be at least 1, not {batch_chunks}")
    rebuild = conn.execute("SELECT NOT EXISTS (SELECT 1 FROM vectors)").fetchone()[0]
    if rebuild:
        conn.execute("DROP INDEX IF EXISTS vectors_hnsw")
    seen: set[str] = set()
    count = chunks = 0
    for batch in batches(documents, batch_chunks):
        _check_once(batch, seen)
        write_batch(conn, analyzer, batch)
        count += len(batch)
        chunks += sum(len(d.chunks) for d in batch)
    started = time.perf_counter()
    if rebuild:
        build_hnsw(conn, build_memory, build_workers)
    seconds = time.perf_counter() - started if rebuild else 0.0
    for table in _ANALYZED:
        conn.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(table)))
    bump(conn)
    return BulkReport(count, chunks, bool(rebuild), round(seconds, 1))


def build_hnsw(conn: psycopg.Connection, memory: str, workers: int) -> None:
    """The HNSW index over every vector, built at once (inside the load's transaction)."""
    conn.execute("SELECT set_config('maintenance_work_mem', %s, true)", (memory,))
    conn.execute(
        "SELECT set_config('max_parallel_maintenance_workers', %s, true)", (str(int(workers)),)
    )
    conn.execute(HNSW_INDEX)


def batches(documents: Iterable[Written], size: int) -> Iterator[list[Written]]:
    """Consecutive documents of about ``size`` chunks together (a bigger document alone)."""
    batch: list[Written] = []
    held = 0
    for document in documents:
        if batch and held + len(document.chunks) > size:
            yield batch
            batch, held = [], 0
        batch.append(document)
        held += len(document.chunks)
    if batch:
        yield batch


def _check_once(batch: Sequence[Written], seen: set[str]) -> None:
    for document in batch:
        if document.record.source in seen:
            raise StoreError(f"{document.record.source} is twice in one bulk load")
        seen.add(document.record.source)
