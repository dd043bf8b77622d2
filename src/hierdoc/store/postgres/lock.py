"""The single writer of a PostgreSQL index: a session-level advisory lock.

The lock key is one ``bigint``: the writers' key (:data:`~.schema.WRITE_LOCK`) in its
high half and a CRC of the schema name in its low half, so indexes in different
schemas of one database do not exclude each other. The holder keeps a dedicated
connection (outside the pool) open for the lock's lifetime; the server releases the
lock when that connection ends, even when the process is killed.

One :class:`WriterLock` belongs to one store and is reentrant for that store (any of
its threads): the advisory lock is taken on the first :meth:`WriterLock.enter` and
released on the matching last :meth:`WriterLock.exit`. A second store, in this process
or another, gets an :class:`~hierdoc.store.base.IndexBusyError` naming the holder
(found through ``pg_locks`` and ``pg_stat_activity``) unless it waits.
"""

from __future__ import annotations

import os
import threading
import zlib

import psycopg

from ...errors import StoreError
from ..base import IndexBusyError, WriterLockLost
from .connection import first_line, redact
from .schema import WRITE_LOCK

APPLICATION = "hierdoc writer"

_HOLDER = """
SELECT a.pid, a.application_name, a.backend_start
FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.classid = %(high)s::oid AND l.objid = %(low)s::oid
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
LIMIT 1
"""


_HELD = """
SELECT EXISTS (
  SELECT 1 FROM pg_locks
  WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND pid = %(pid)s
    AND classid = %(high)s::oid AND objid = %(low)s::oid)
"""


def lock_key(schema: str) -> int:
    """The advisory lock key of the writers of ``schema`` (a positive ``bigint``)."""
    return (WRITE_LOCK << 32) | zlib.crc32(schema.encode())


class WriterLock:
    """A session advisory lock on a dedicated connection, reentrant for its owner."""

    def __init__(self, url: str, schema: str) -> None:
        self._url = url
        self.key = lock_key(schema)
        self._mutex = threading.Lock()
        self._depth = 0
        self._conn: psycopg.Connection | None = None
        self._backend = 0

    @property
    def held(self) -> bool:
        return self._depth > 0

    def enter(self, wait: bool) -> None:
        """Take the lock (``wait``: block until free, else :class:`IndexBusyError` at once)."""
        with self._mutex:
            if self._depth == 0:
                self._take(wait)
            self._depth += 1

    def exit(self) -> None:
        """Leave one level; the last one releases the lock and closes its connection."""
        with self._mutex:
            self._depth -= 1
            if self._depth == 0:
                self._release()

    def _take(self, wait: bool) -> None:
        try:
            conn = psycopg.connect(
                self._url,
                autocommit=True,
                application_name=f"{APPLICATION} (pid {os.getpid()})",
            )
        except psycopg.Error as error:
            shown = redact(self._url)
            raise StoreError(f"cannot connect to {shown}: {first_line(error)}") from None
        try:
            row = conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,)).fetchone()
            if not (row and row[0]):
                if not wait:
                    raise self._busy(conn)
                conn.execute("SELECT pg_advisory_lock(%s)", (self.key,))
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self._backend = conn.info.backend_pid

    def confirm(self, conn: psycopg.Connection) -> None:
        """Raise a :class:`StoreError` unless the lock is still held, checked on ``conn``
        inside the caller's write transaction: a database restart or a dropped connection
        releases the lock, and a writer that lost it must not write on beside another."""
        params = {"pid": self._backend, "high": self.key >> 32, "low": self.key & 0xFFFFFFFF}
        row = conn.execute(_HELD, params).fetchone()
        if not (self._conn is not None and row and row[0]):
            raise WriterLockLost(
                "the writer lock was lost (the database restarted or ended the writer's "
                "connection): nothing more is written; run the command again"
            )

    def _release(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.execute("SELECT pg_advisory_unlock(%s)", (self.key,))
        except psycopg.Error:
            pass  # closing the connection below releases the lock as well
        finally:
            conn.close()

    def _busy(self, conn: psycopg.Connection) -> IndexBusyError:
        """The error a second writer gets, naming the holder when the server says who."""
        params = {"high": self.key >> 32, "low": self.key & 0xFFFFFFFF}
        try:
            row = conn.execute(_HOLDER, params).fetchone()
        except psycopg.Error:
            row = None
        if row is None:
            return IndexBusyError(
                "another hierdoc process is writing this index: wait for it or use --wait"
            )
        pid, application, since = row
        parts = [f"backend pid {pid}"]
        if application:
            parts.append(str(application))
        if since is not None:
            parts.append(f"since {since:%Y-%m-%dT%H:%M:%S%z}")
        who = ", ".join(parts)
        return IndexBusyError(
            f"another hierdoc process is writing this index ({who}): wait for it or use --wait",
            who,
        )
