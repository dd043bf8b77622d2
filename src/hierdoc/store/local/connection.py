"""The record store's SQLite connection, whose read errors from a damaged file are
:class:`~.check.DamagedIndexError`: they say what is damaged and what to do, and never
quote stored text (SQLite's own message for text that is not UTF-8 quotes the text).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from .check import DamagedIndexError

_COLUMN = re.compile(r"column '([A-Za-z_][A-Za-z0-9_]*)'")
FIX = (
    "run `hierdoc check`; --repair cannot fix records.sqlite (the source of truth): restore "
    "it from a backup, or rebuild the index with: hierdoc ingest PATH --force"
)


def damaged(error: sqlite3.Error) -> DamagedIndexError | None:
    """The project error for a read that failed on a damaged file; None for other errors."""
    message = str(error)
    if message.startswith("Could not decode to UTF-8"):
        found = _COLUMN.search(message)
        column = f" (column {found.group(1)})" if found else ""
        return DamagedIndexError(f"records.sqlite holds text that is not UTF-8{column}: {FIX}")
    if "malformed" in message or "not a database" in message:
        return DamagedIndexError(f"records.sqlite is damaged (SQLite: {message}): {FIX}")
    return None


class RecordCursor(sqlite3.Cursor):
    """A cursor whose reads raise :func:`damaged` errors in place of SQLite's."""

    def execute(self, sql: str, parameters: Any = ()) -> RecordCursor:
        try:
            return super().execute(sql, parameters)
        except sqlite3.DatabaseError as error:
            raise damaged(error) or error from None

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.DatabaseError as error:
            raise damaged(error) or error from None

    def fetchmany(self, size: int | None = None) -> list[Any]:
        try:
            return super().fetchmany(self.arraysize if size is None else size)
        except sqlite3.DatabaseError as error:
            raise damaged(error) or error from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.DatabaseError as error:
            raise damaged(error) or error from None

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.DatabaseError as error:
            raise damaged(error) or error from None


class RecordConnection(sqlite3.Connection):
    """A connection whose ``execute`` gives :class:`RecordCursor` cursors."""

    def execute(self, sql: str, parameters: Any = ()) -> RecordCursor:
        return self.cursor(RecordCursor).execute(sql, parameters)
