"""Rebuilding the lexical index when the text analyzer changes.

The database records the analyzer version its postings were made with
(``meta.analyzer_version``). A store opened with another version re-analyses every
stored chunk (context and content are kept on the chunk rows) and rewrites the
postings, term statistics, lengths and phrase words in one transaction, under the
writer lock; readers keep the old postings until it commits.
"""

from __future__ import annotations

import psycopg
from psycopg_pool import ConnectionPool

from ...text.analyze import TextAnalyzer
from .lexical import fieldnorm, lexical_row
from .records import select_chunks
from .writes import insert_postings

_ANALYZER_KEY = "analyzer_version"
BATCH = 20_000
"""Chunks whose postings are built and written together."""


def analyzer_current(pool: ConnectionPool, analyzer: TextAnalyzer) -> bool:
    """Whether the lexical index was built with ``analyzer``."""
    return _stored_version(pool) == analyzer.version


def ensure_analyzer(conn: psycopg.Connection, analyzer: TextAnalyzer) -> None:
    """Make the lexical index match ``analyzer`` (inside a transaction, under the writer
    lock); a no-op when it already does."""
    row = conn.execute("SELECT value FROM meta WHERE key = %s", (_ANALYZER_KEY,)).fetchone()
    if row is None or int(row[0]) != analyzer.version:
        _reanalyse(conn, analyzer)
        conn.execute(
            "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) "
            "DO UPDATE SET value = excluded.value",
            (_ANALYZER_KEY, str(analyzer.version)),
        )


def _stored_version(pool: ConnectionPool) -> int | None:
    with pool.connection() as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = %s", (_ANALYZER_KEY,)).fetchone()
    return int(row[0]) if row else None


def _reanalyse(conn: psycopg.Connection, analyzer: TextAnalyzer) -> None:
    stored = select_chunks(conn, "TRUE")
    numbers = dict(conn.execute("SELECT chunk_id, chunk_no FROM chunks").fetchall())
    for table in ("postings", "forward", "term_stats"):
        conn.execute(f"DELETE FROM {table}")
    conn.execute("UPDATE state SET chunks = 0, tokens = 0, words = 0")
    rows = [lexical_row(s, analyzer) for s in stored]
    conn.cursor().executemany(
        "UPDATE chunks SET length = %s, norm = %s, words = %s, words_norm = %s "
        "WHERE chunk_id = %s",
        [(r.length, fieldnorm(r.length), r.words, fieldnorm(len(r.words)), r.chunk_id)
         for r in rows],
    )  # fmt: skip
    for start in range(0, len(rows), BATCH):  # the postings arrays of a batch at a time
        batch = rows[start : start + BATCH]
        insert_postings(conn, batch, [numbers[r.chunk_id] for r in batch])
