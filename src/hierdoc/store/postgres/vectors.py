"""Vector search with pgvector: a chunk scores as the inner product of its best window.

Vectors are unit rows, so the inner product is the cosine the local backend computes.
Below :data:`EXACT_BELOW` windows (or when asked to), or when a source filter selects
no more chunks than that, the search is exact: every window is scored and grouped by
chunk. Otherwise the HNSW index answers, with ``hnsw.ef_search`` set for the transaction
from ``k`` (``max(2k, 40)``, more when a chunk has several windows) and pgvector's
iterative scan (relaxed order, re-sorted here), which walks on until enough windows pass
a filter, up to :data:`FILTERED_SCAN` of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import psycopg

from ...models import Hit, SearchFilter
from .filters import filter_sql

EXACT_BELOW = 20_000
"""Window counts at which exact search is still cheap (a scan of the vectors table);
a source filter of up to this many chunks is searched exactly too."""
FILTERED_SCAN = 100_000
"""The windows a filtered HNSW search may visit (``hnsw.max_scan_tuples``) while its
iterative scan looks for enough that pass the filter (pgvector's default is 20,000)."""

_EXACT = """
SELECT v.chunk_id, max(-(v.embedding <#> %(query)s)) AS score
FROM vectors v JOIN chunks c USING (chunk_id)
WHERE {where}
GROUP BY v.chunk_id, c.source, c.ordinal
ORDER BY score DESC, c.source, c.ordinal
LIMIT %(k)s
"""

_APPROXIMATE = """
WITH nearest AS (
    SELECT v.chunk_id, -(v.embedding <#> %(query)s) AS score
    FROM vectors v JOIN chunks c USING (chunk_id)
    WHERE {where}
    ORDER BY v.embedding <#> %(query)s
    LIMIT %(windows)s
)
SELECT n.chunk_id, max(n.score) AS score
FROM nearest n JOIN chunks c USING (chunk_id)
GROUP BY n.chunk_id, c.source, c.ordinal
ORDER BY score DESC, c.source, c.ordinal
LIMIT %(k)s
"""


def ef_search(k: int) -> int:
    return max(k * 2, 40)


def vector_search(
    conn: psycopg.Connection,
    vector: np.ndarray,
    k: int,
    filt: SearchFilter | None,
    exact_below: int = EXACT_BELOW,
) -> list[Hit]:
    """Top ``k`` chunks by their best window; ``conn`` must be inside a transaction."""
    if k <= 0:
        return []
    query = np.asarray(vector, dtype=np.float32)
    where, params = filter_sql(filt, "c")
    if _window_count(conn) <= exact_below or _narrow(conn, filt, exact_below):
        sql_text, values = _EXACT, {**params, "query": query, "k": k}
    else:
        fetch = k * 3
        conn.execute(f"SET LOCAL hnsw.ef_search = {ef_search(fetch)}")
        conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        if where != "TRUE":
            conn.execute(f"SET LOCAL hnsw.max_scan_tuples = {FILTERED_SCAN}")
        sql_text, values = _APPROXIMATE, {**params, "query": query, "k": k, "windows": fetch}
    rows = conn.execute(sql_text.format(where=where), values).fetchall()
    return [Hit(chunk_id, float(score)) for chunk_id, score in rows]


def _narrow(conn: psycopg.Connection, filt: SearchFilter | None, exact_below: int) -> bool:
    """Whether ``filt`` names sources of so few chunks that scoring them all is cheap
    (and exact, where a filtered graph walk may miss some)."""
    if filt is None or not filt.sources:
        return False
    row = conn.execute(
        "SELECT coalesce(sum(chunk_count), 0) FROM documents WHERE source = ANY(%s)",
        (list(filt.sources),),
    ).fetchone()
    return bool(row) and int(row[0]) <= exact_below


def _window_count(conn: psycopg.Connection) -> int:
    """The planner's estimate of the vectors table's rows (cheap; exact enough to choose)."""
    row = conn.execute(
        "SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'vectors'::regclass"
    ).fetchone()
    estimate = int(row[0]) if row else 0
    if estimate == 0:  # never analysed: count (small tables are the only ones not analysed)
        counted = conn.execute("SELECT count(*) FROM vectors").fetchone()
        return int(counted[0]) if counted else 0
    return estimate


def grouped(rows: Sequence[tuple[str, np.ndarray]]) -> Iterator[tuple[str, np.ndarray]]:
    """(chunk id, window vector) rows, a chunk's windows together, as (chunk id, matrix)."""
    current: str | None = None
    block: list[np.ndarray] = []
    for chunk_id, vector in rows:
        if chunk_id != current and block:
            yield current, np.vstack(block)  # type: ignore[misc]
            block = []
        current = chunk_id
        block.append(np.asarray(vector, dtype=np.float32))
    if block:
        yield current, np.vstack(block)  # type: ignore[misc]
