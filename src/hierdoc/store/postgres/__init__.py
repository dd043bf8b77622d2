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
from .lock import WriterLock
from .schema import check_readable, migrate
from .store import PostgresStore
from .vectors import EXACT_BELOW

__all__ = ["PostgresStore", "open_postgres"]


def open_postgres(request: StoreRequest) -> PostgresStore:
    """Connect, create or migrate the schema, and check the embedder's dimension.

    A read-only request (``request.read_only``) creates and migrates nothing: no index in
    the schema is a :class:`~hierdoc.errors.NotFoundError`, its connections' transactions
    are read-only, and every write is a :class:`~hierdoc.errors.StoreError`.
    """
    options = request.options
    url = database_url(options)
    schema = _schema_name(options)
    location = f"{redact(url)} ({schema})"
    if not request.read_only:
        ensure_extension(url, schema)
    size = int(options.get("pool_size", DEFAULT_POOL_SIZE))
    pool = open_pool(url, schema, size, read_only=request.read_only)
    try:
        if request.read_only:
            check_readable(pool, schema, location)
        else:
            migrate(pool, request.dimension)
    except BaseException:
        pool.close()
        raise
    lock = None if request.read_only else WriterLock(url, schema)
    exact_below = int(options.get("exact_below", EXACT_BELOW))
    store = PostgresStore(pool, request.analyzer, location, lock, exact_below, wait=request.wait)
    try:
        store.set_up(request.dimension, request.reset, request.hold_writer)
    except BaseException:
        store.close()
        raise
    return store
