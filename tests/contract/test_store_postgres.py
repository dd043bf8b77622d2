"""The store contract on PostgreSQL (a real server, see ``test_store_postgres_server``),
and what only this backend does: a reader that creates and writes nothing, the writer lock
naming its holder."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from hierdoc.errors import NotFoundError, StoreError
from hierdoc.store import StoreRequest, open_store
from hierdoc.store.base import IndexBusyError, Store
from hierdoc.store.testing import DIMENSION, StoreContract, write_corpus
from hierdoc.text.analyze import TEXT_ANALYZER
from tests.contract.test_store_postgres_server import drop_schema, fresh_options

pytestmark = pytest.mark.postgres


def open_pg(options: dict[str, Any], dimension: int = DIMENSION, **kwargs: Any) -> Store:
    request = StoreRequest(Path("unused"), dimension, TEXT_ANALYZER, options=options, **kwargs)
    return open_store("postgres", request)


class PostgresFixtures:
    """A store on a schema of its own, and a second store on the same schema."""

    SHARES_WRITES = True

    @pytest.fixture
    def options(self) -> Iterator[dict[str, Any]]:
        options = fresh_options()
        yield options
        drop_schema(options)

    @pytest.fixture
    def store(self, options: dict[str, Any]) -> Iterator[Store]:
        store = open_pg(options)
        yield store
        store.close()

    @pytest.fixture
    def second_store(self, options: dict[str, Any], store: Store) -> Iterator[Store]:
        other = open_pg(options)
        yield other
        other.close()


class TestPostgresStore(PostgresFixtures, StoreContract):
    pass


def test_a_reader_creates_nothing_and_writes_nothing() -> None:
    options = fresh_options()
    try:
        with pytest.raises(NotFoundError, match="no index at"):
            open_pg(options, read_only=True)
        with psycopg.connect(options["url"]) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_namespace WHERE nspname = %s", (options["schema"],)
            ).fetchone()
        assert row == (0,)
        writer = open_pg(options)
        write_corpus(writer, "b.md")
        writer.close()
        reader = open_pg(options, read_only=True)
        try:
            assert reader.document_hashes() == {"b.md": "h1"}
            with pytest.raises(StoreError, match="reading only"):
                write_corpus(reader, "a.md")
            with pytest.raises(StoreError, match="reading only"):
                reader.context_cache.put("m", "p", "d", "c", "text")
            with pytest.raises(StoreError, match="reading only"), reader.lock_writer():
                pass  # pragma: no cover
        finally:
            reader.close()
    finally:
        drop_schema(options)


def test_a_held_writer_names_itself_to_the_next_one() -> None:
    options = fresh_options()
    try:
        holder = open_pg(options, hold_writer=True)
        try:
            other = open_pg(options)
            with pytest.raises(IndexBusyError, match="hierdoc writer") as busy:
                other.delete_documents(["a.md"])
            assert "backend pid" in busy.value.holder
        finally:
            holder.close()
        other.delete_documents(["a.md"])  # the lock went with the holder's close
        other.close()
    finally:
        drop_schema(options)


def test_a_waiting_writer_goes_on_when_the_holder_lets_go() -> None:
    options = fresh_options()
    try:
        holder = open_pg(options, hold_writer=True)
        waiter = open_pg(options)
        threading.Timer(0.5, holder.close).start()
        with waiter.lock_writer(wait=True):
            write_corpus(waiter, "b.md")
        assert waiter.document_hashes() == {"b.md": "h1"}
        waiter.close()
    finally:
        drop_schema(options)


def test_a_reset_writes_over_the_documents_of_the_same_vector_size() -> None:
    """Opening with ``reset`` (``ingest --force``) leaves readers every document until the
    rebuild is published; with another vector size the index is emptied at once."""
    options = fresh_options()
    try:
        writer = open_pg(options)
        write_corpus(writer, "a.md")
        write_corpus(writer, "b.md")
        writer.close()
        reader = open_pg(options, read_only=True)
        rebuilding = open_pg(options, reset=True, hold_writer=True)
        write_corpus(rebuilding, "b.md", "h2")
        assert reader.document_hashes() == {"a.md": "h1", "b.md": "h2"}
        rebuilding.publish_rebuild()
        assert reader.document_hashes() == {"b.md": "h2"}
        rebuilding.close()
        open_pg(options, dimension=DIMENSION + 1, reset=True, hold_writer=True).close()
        assert reader.document_hashes() == {}
        reader.close()
    finally:
        drop_schema(options)


def _end_connections(url: str, application: str) -> int:
    """Terminate the connections whose application name begins with ``application``."""
    query = (
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE pid <> pg_backend_pid() AND application_name LIKE %s"
    )
    with psycopg.connect(url, autocommit=True) as conn:
        return len(conn.execute(query, (f"{application}%",)).fetchall())


def _end_pooled_connection(store: Any) -> None:
    """Terminate the connection ``store``'s pool holds (it keeps one open when idle)."""
    with store.pool.connection() as conn:
        pid = conn.info.backend_pid
    with psycopg.connect(store.pool.conninfo, autocommit=True) as conn:
        assert conn.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)


def test_a_writer_that_lost_its_lock_writes_nothing_more() -> None:
    options = fresh_options()
    try:
        writer = open_pg(options)
        try:
            with writer.lock_writer():
                write_corpus(writer, "a.md")
                assert _end_connections(options["url"], "hierdoc writer") == 1
                with pytest.raises(StoreError, match="writer lock was lost"):
                    write_corpus(writer, "b.md")
            assert writer.document_hashes() == {"a.md": "h1"}
            write_corpus(writer, "b.md")  # the next write takes the lock again
            assert set(writer.document_hashes()) == {"a.md", "b.md"}
        finally:
            writer.close()
    finally:
        drop_schema(options)


def test_a_connection_the_server_ended_is_replaced_not_lent() -> None:
    options = fresh_options()
    try:
        writer = open_pg(options)
        write_corpus(writer, "a.md")
        writer.close()
        reader = open_pg(options, read_only=True)
        try:
            assert reader.document_hashes() == {"a.md": "h1"}
            _end_pooled_connection(reader)
            assert reader.document_hashes() == {"a.md": "h1"}
        finally:
            reader.close()
    finally:
        drop_schema(options)
