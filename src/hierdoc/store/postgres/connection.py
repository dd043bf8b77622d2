"""Where the database is and how hierdoc talks to it: the URL, a connection pool, the schema.

The URL comes from ``database.url`` (or ``database.connection_string``) and otherwise
from ``HIERDOC_DATABASE_URL``; libpq reads the rest of the credentials from its usual
environment (``PGPASSWORD``, ``PGUSER``, ``~/.pgpass``...). A URL is only ever shown
with its password masked (:func:`redact`). Every connection of the pool works in one
PostgreSQL schema (``database.schema``, default ``public``), so several indexes can
share a database.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg_pool import ConnectionPool

from ...errors import ConfigError, StoreError
from ..base import redact

__all__ = ["database_url", "ensure_extension", "first_line", "open_pool", "redact"]

URL_VARIABLE = "HIERDOC_DATABASE_URL"
DEFAULT_POOL_SIZE = 4
WAIT_SECONDS = 10.0
"""How long a call waits for a connection (all in use, or the database away) before it
fails with a :class:`StoreError`, rather than keep its caller waiting."""
_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def database_url(options: dict[str, Any]) -> str:
    """The configured URL; a :class:`ConfigError` when there is none."""
    url = options.get("url") or options.get("connection_string") or os.environ.get(URL_VARIABLE)
    if not url:
        raise ConfigError(
            f"database.provider postgres needs a URL: set database.url or {URL_VARIABLE} "
            "(postgresql://user@host:5432/dbname; the password may come from PGPASSWORD)"
        )
    return str(url)


def schema_name(options: dict[str, Any]) -> str:
    name = str(options.get("schema") or "public")
    if not _SCHEMA_NAME.match(name):
        raise ConfigError(f"database.schema {name!r} is not a plain SQL identifier")
    return name


def ensure_extension(url: str, schema: str) -> None:
    """Create the pgvector extension and the schema if they are missing."""
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
    except psycopg.OperationalError as error:
        raise StoreError(f"cannot connect to {redact(url)}: {first_line(error)}") from None
    except psycopg.Error as error:
        raise StoreError(
            f"cannot prepare {redact(url)} (the vector extension needs a superuser once: "
            f"CREATE EXTENSION vector): {first_line(error)}"
        ) from None


class Pool(ConnectionPool):
    """A pool whose connections are checked when lent (one that the server or the network
    ended is replaced, not handed out), and whose failures are :class:`StoreError`: a
    lost or refused connection is one line that says so, never libpq's raw message."""

    @contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[psycopg.Connection]:
        try:
            with super().connection(timeout) as conn:
                yield conn
        except psycopg.OperationalError as error:
            raise StoreError(f"the database is unreachable: {first_line(error)}") from error


def open_pool(
    url: str, schema: str, size: int = DEFAULT_POOL_SIZE, read_only: bool = False
) -> ConnectionPool:
    """A pool of autocommit connections working in ``schema``, with the vector type known;
    ``read_only``: every transaction of theirs is read-only (the server refuses writes)."""

    def configure(conn: psycopg.Connection) -> None:
        conn.autocommit = True
        conn.execute(sql.SQL("SET search_path TO {}, public").format(sql.Identifier(schema)))
        if read_only:
            conn.execute("SET default_transaction_read_only TO on")
        register_vector(conn)

    pool = Pool(
        url,
        min_size=1,
        max_size=max(1, size),
        configure=configure,
        check=ConnectionPool.check_connection,
        timeout=WAIT_SECONDS,
        open=False,
        name="hierdoc",
    )
    try:
        pool.open(wait=True, timeout=30)
    except Exception as error:  # the pool reports a failed connection as a timeout
        pool.close()
        raise StoreError(f"cannot connect to {redact(url)}: {first_line(error)}") from None
    return pool


@contextmanager
def transaction(pool: ConnectionPool) -> Iterator[psycopg.Connection]:
    """One connection in one transaction: committed on success, rolled back on error."""
    with pool.connection() as conn, conn.transaction():
        yield conn


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return redact(text.splitlines()[0] if text else type(error).__name__)
