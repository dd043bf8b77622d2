"""The LLM context cache's rows in the record store (hierdoc.contextualize.ContextCache)."""

from __future__ import annotations

import sqlite3
import threading


class ContextRows:
    """The ``contexts`` table, a part of :class:`~.records.RecordStore`."""

    _db: sqlite3.Connection
    _lock: threading.RLock

    def get(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str
    ) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT context FROM contexts WHERE model = ? AND prompt_version = ? "
                "AND document_hash = ? AND chunk_hash = ?",
                (model, prompt_version, document_hash, chunk_hash),
            ).fetchone()
        return row[0] if row else None

    def put(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str, context: str
    ) -> None:
        """Each context is committed at once, so an interrupted run keeps what it paid for."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO contexts (model, prompt_version, document_hash, "
                "chunk_hash, context) VALUES (?, ?, ?, ?, ?)",
                (model, prompt_version, document_hash, chunk_hash, context),
            )

    def context_entries(self) -> list[tuple[str, str, str, str, str]]:
        """Every cached context as (model, prompt version, document hash, chunk hash, text)."""
        with self._lock:
            return self._db.execute(
                "SELECT model, prompt_version, document_hash, chunk_hash, context FROM contexts "
                "ORDER BY created_at, model, prompt_version, document_hash, chunk_hash"
            ).fetchall()
