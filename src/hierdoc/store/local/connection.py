"""The record store's SQLite connection, whose read errors from a damaged file are
:class:`DamagedIndexError`: they say what is damaged and what to do, and never quote
stored text (SQLite's own message for text that is not UTF-8 quotes the text); and
:func:`stored_json`, the same for a JSON field that does not parse.
"""

from __future__ import annotations

import functools
import json
import re
import sqlite3
from collections.abc import Callable
from typing import Any

from ...errors import StoreError

_COLUMN = re.compile(r"column '([A-Za-z_][A-Za-z0-9_]*)'")


class DamagedIndexError(StoreError):
    """The index's records are damaged or missing and cannot be rebuilt from what is left."""


FIX = (
    "run `hierdoc check`; --repair cannot fix records.sqlite (the source of truth): restore "
    "it from a backup, or rebuild the index with: hierdoc ingest PATH --force"
)


def damage(error: sqlite3.Error) -> str | None:
    """What a failed read says of the file, without the stored text SQLite's message may
    quote; None for an error that is not damage."""
    message = str(error)
    if message.startswith("Could not decode to UTF-8"):
        found = _COLUMN.search(message)
        column = f" (column {found.group(1)})" if found else ""
        return f"records.sqlite holds text that is not UTF-8{column}"
    if "malformed" in message or "not a database" in message:
        return f"records.sqlite is damaged (SQLite: {message})"
    return None


def damaged(error: sqlite3.Error) -> DamagedIndexError | None:
    """The project error for a read that failed on a damaged file; None for other errors."""
    found = damage(error)
    return None if found is None else DamagedIndexError(f"{found}: {FIX}")


def _translated(read: Callable[..., Any]) -> Callable[..., Any]:
    """``read``, raising :func:`damaged` errors in place of SQLite's."""

    @functools.wraps(read)
    def translated(self: sqlite3.Cursor, *args: Any) -> Any:
        try:
            return read(self, *args)
        except sqlite3.DatabaseError as error:
            raise damaged(error) or error from None

    return translated


class RecordCursor(sqlite3.Cursor):
    """A cursor whose reads raise :func:`damaged` errors in place of SQLite's."""

    execute = _translated(sqlite3.Cursor.execute)
    fetchone = _translated(sqlite3.Cursor.fetchone)
    fetchmany = _translated(sqlite3.Cursor.fetchmany)
    fetchall = _translated(sqlite3.Cursor.fetchall)
    __next__ = _translated(sqlite3.Cursor.__next__)


def stored_json(value: str, column: str) -> Any:
    """The JSON ``value`` of ``column`` as read from the records."""
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        raise DamagedIndexError(
            f"records.sqlite holds a {column} that is not JSON: {FIX}"
        ) from None


class RecordConnection(sqlite3.Connection):
    """A connection whose ``execute`` gives :class:`RecordCursor` cursors."""

    def execute(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor:
        return self.cursor(RecordCursor).execute(sql, parameters)
