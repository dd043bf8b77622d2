"""The PostgreSQL backend (``database.provider: postgres``): records, BM25 postings and
pgvector vectors in one database that several hierdoc processes share.

Needs the ``postgres`` extra (psycopg 3, psycopg_pool, pgvector) and a server with the
pgvector extension. Options of the ``database`` block: ``url`` (or
``HIERDOC_DATABASE_URL``), ``schema`` (default ``public``), ``pool_size`` and
``exact_below`` (vector counts searched exactly rather than through HNSW).
"""

from __future__ import annotations

from .. import StoreRequest
from .connection import DEFAULT_POOL_SIZE, database_url, ensure_extension, open_pool, redact
from .connection import schema_name as _schema_name
from .schema import check_dimension, migrate
from .store import PostgresStore
from .vectors import EXACT_BELOW
from .writes import clear_all

__all__ = ["PostgresStore", "open_postgres"]


def open_postgres(request: StoreRequest) -> PostgresStore:
    """Connect, create or migrate the schema, and check the embedder's dimension."""
    options = request.options
    url = database_url(options)
    schema = _schema_name(options)
    ensure_extension(url, schema)
    pool = open_pool(url, schema, int(options.get("pool_size", DEFAULT_POOL_SIZE)))
    try:
        migrate(pool, request.dimension)
        if request.reset:
            with pool.connection() as conn, conn.transaction():
                clear_all(conn)
        check_dimension(pool, request.dimension, request.reset)
        exact_below = int(options.get("exact_below", EXACT_BELOW))
        return PostgresStore(pool, request.analyzer, f"{redact(url)} ({schema})", exact_below)
    except BaseException:
        pool.close()
        raise
