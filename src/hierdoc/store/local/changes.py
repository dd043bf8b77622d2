"""Which documents each write changed, kept in the record store until the BM25 index has
them: what a reader searches from SQLite while the BM25 index on disk lags behind it.

A write (:meth:`RecordStore.replace_document`, :meth:`~RecordStore.delete_documents`)
adds a ``changes`` row (generation, source) per document in its own transaction, so the
rows name every document changed after any generation from ``meta.changes_from`` on.
After the writer commits the BM25 index at generation ``g``, it deletes the rows up to
``g`` and moves ``changes_from`` to ``g`` in one transaction (:func:`forget_changes`); a
reader whose BM25 copy is older than ``changes_from`` cannot name its tail and falls back.
A file written before this table has no ``changes_from``; the next writer adds both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

CHANGES_FROM = "changes_from"


def changes_ready(db: sqlite3.Connection) -> bool:
    """The file keeps the ``changes`` rows (the table and its ``changes_from`` exist)."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (CHANGES_FROM,)).fetchone()
    return row is not None


def start_changes(db: sqlite3.Connection) -> None:
    """Start keeping changes from the file's current generation (in the caller's
    transaction, the table created by the schema)."""
    db.execute("DELETE FROM changes")
    db.execute(
        "INSERT OR REPLACE INTO meta SELECT ?, coalesce("
        "(SELECT value FROM meta WHERE key = 'generation'), '0')",
        (CHANGES_FROM,),
    )


def record_changes(db: sqlite3.Connection, sources: Iterable[str]) -> None:
    """Note ``sources`` as changed at the generation the caller's transaction has just
    bumped to."""
    db.executemany(
        "INSERT INTO changes SELECT CAST(value AS INTEGER), ? FROM meta WHERE key = 'generation'",
        [(source,) for source in sources],
    )


def changed_since(db: sqlite3.Connection, generation: int) -> set[str] | None:
    """The sources written or deleted after ``generation``; None when the rows no longer
    (or do not yet) reach back that far. Run in the caller's read transaction."""
    try:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (CHANGES_FROM,)).fetchone()
        if row is None or int(row[0]) > generation:
            return None
        rows = db.execute("SELECT source FROM changes WHERE generation > ?", (generation,))
        return {source for (source,) in rows}
    except sqlite3.OperationalError:  # a file written before the table (read-only reader)
        return None


def forget_changes(db: sqlite3.Connection, generation: int) -> None:
    """The BM25 index holds everything up to ``generation``: drop the rows it covers."""
    db.execute("DELETE FROM changes WHERE generation <= ?", (generation,))
    db.execute(
        "UPDATE meta SET value = ? WHERE key = ? AND CAST(value AS INTEGER) < ?",
        (str(generation), CHANGES_FROM, generation),
    )
