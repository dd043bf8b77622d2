"""PostgreSQL bulk load: the store contract on an index filled by one bulk load, BM25 exact
over postings built batch by batch, the HNSW index built once at the end, and readers that
see nothing of a load until it commits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import psycopg
import pytest

from hierdoc.errors import StoreError
from hierdoc.models import SearchFilter, StoredChunk
from hierdoc.store.base import Store
from hierdoc.store.postgres import postings
from hierdoc.store.postgres.writes import Written, text_array
from hierdoc.store.testing import (
    LexicalContract,
    LookupsContract,
    RecordsContract,
    VectorsContract,
    corpus_document,
)
from tests.contract.test_store_postgres import PostgresFixtures, open_pg
from tests.contract.test_store_postgres_keyword import (
    DOCUMENTS,
    FILTERS,
    QUERIES,
    assert_top,
    document,
)
from tests.contract.test_store_postgres_server import pg_options  # noqa: F401

pytestmark = pytest.mark.postgres


@pytest.fixture
def options(pg_options: dict[str, Any]) -> dict[str, Any]:  # noqa: F811
    return pg_options


class TestBulkLoadedPostgresStore(
    PostgresFixtures, RecordsContract, LexicalContract, VectorsContract, LookupsContract
):
    @pytest.fixture
    def filled(self, store: Store) -> Store:
        written = [Written(*corpus_document(source)) for source in ("a.md", "b.md")]
        report = store.bulk_load(written, batch_chunks=1)  # type: ignore[attr-defined]
        assert (report.documents, report.hnsw_rebuilt) == (2, True)
        return store


def keyword_documents(numbers: range, seed: int = 0) -> list[Written]:
    made = [document(n, seed) for n in numbers]
    return [Written(record, [], stored, []) for record, stored in made]


def by_id(documents: list[Written]) -> dict[str, StoredChunk]:
    return {s.chunk.chunk_id: s for d in documents for s in d.chunks}


def test_postings_built_batch_by_batch_score_bm25(options: dict[str, Any]) -> None:
    store = open_pg(options)
    try:
        documents = keyword_documents(range(DOCUMENTS))
        store.bulk_load(documents, batch_chunks=120)  # type: ignore[attr-defined]
        for query in QUERIES:
            for filt in FILTERS:
                assert_top(store, by_id(documents), query, 10, filt)
        with psycopg.connect(options["url"]) as conn:
            conn.execute(f'SET search_path TO "{options["schema"]}"')
            count, small, small_rows = conn.execute(
                "SELECT count(*), count(*) FILTER (WHERE p.n < %s), s.small_rows FROM "
                "term_stats s JOIN postings p USING (term_id) WHERE s.term = 'w0' "
                "GROUP BY s.small_rows",
                (postings.BLOCK,),
            ).fetchone()
        assert count < DOCUMENTS // 2  # a row per batch at most, merged past MERGE_AT
        assert small == small_rows <= postings.MERGE_AT
    finally:
        store.close()


def test_a_bulk_load_replaces_stored_documents_and_keeps_the_hnsw_index(
    options: dict[str, Any],
) -> None:
    store = open_pg({**options, "exact_below": 0})
    try:
        first = [Written(*corpus_document(source)) for source in ("a.md", "b.md")]
        assert store.bulk_load(first[:1]).hnsw_rebuilt  # type: ignore[attr-defined]
        again = [Written(*corpus_document(source, "h2")) for source in ("a.md", "b.md")]
        report = store.bulk_load(again)  # type: ignore[attr-defined]
        assert (report.documents, report.hnsw_rebuilt) == (2, False)
        assert store.document_hashes() == {"a.md": "h2", "b.md": "h2"}
        with psycopg.connect(options["url"]) as conn:
            indexes = conn.execute(
                "SELECT indexname FROM pg_indexes WHERE schemaname = %s AND tablename = "
                "'vectors'",
                (options["schema"],),
            ).fetchall()
        assert ("vectors_hnsw",) in indexes
        for written in again:  # through the graph, each chunk's own vector is nearest
            for stored, vectors in zip(written.chunks, written.vectors, strict=True):
                vector = np.atleast_2d(vectors)[0]
                best = store.vector_search(vector, 1, None)[0]
                assert best.score == pytest.approx(1.0, abs=1e-5)
                assert stored.chunk.chunk_id in {h.chunk_id for h in store.vector_search(
                    vector, 10, SearchFilter(sources=(written.record.source,)))}  # fmt: skip
    finally:
        store.close()


def test_readers_see_nothing_of_a_load_until_it_commits(options: dict[str, Any]) -> None:
    store = open_pg(options)
    reader = open_pg(options, read_only=True)
    seen: list[tuple[int, int]] = []

    def watched(documents: list[Written]) -> Iterator[Written]:
        for written in documents:
            hits = reader.keyword_search(["w0"], 5, None)
            seen.append((reader.document_count(), len(hits)))
            yield written

    try:
        store.bulk_load(keyword_documents(range(2)))  # type: ignore[attr-defined]
        generation = reader.generation
        store.bulk_load(watched(keyword_documents(range(2, 12))), batch_chunks=100)  # type: ignore[attr-defined]
        assert seen == [(2, 5)] * 10
        assert reader.document_count() == 12 and reader.generation == generation + 1
    finally:
        reader.close()
        store.close()


def test_a_failed_load_writes_nothing(options: dict[str, Any]) -> None:
    store = open_pg(options)
    try:
        store.bulk_load(keyword_documents(range(2)))  # type: ignore[attr-defined]
        twice = keyword_documents(range(5, 8)) + keyword_documents(range(6, 7))
        with pytest.raises(StoreError, match="doc6.md is twice in one bulk load"):
            store.bulk_load(twice, batch_chunks=50)  # type: ignore[attr-defined]
        assert sorted(store.document_hashes()) == ["doc0.md", "doc1.md"]
        assert store.keyword_search(["w0"], 200, SearchFilter(sources=("doc5.md",))) == []
        with pytest.raises(StoreError, match="batch_chunks must be at least 1"):
            store.bulk_load([], batch_chunks=0)  # type: ignore[attr-defined]
    finally:
        store.close()


ARRAYS = [
    [],
    ["plain", "words"],
    ['a "quoted" one', "back\\slash", "NULL", "{x,y}", "", "comma, then", 'end"'],
    ['x","y', "\\", '"'],
]


@pytest.mark.parametrize("values", ARRAYS, ids=str)
def test_text_array_literals_read_back_as_the_list(
    options: dict[str, Any], values: list[str]
) -> None:
    with psycopg.connect(options["url"]) as conn:
        literal = conn.execute("SELECT %s::text[]", (text_array(values),)).fetchone()[0]
        with conn.cursor() as cur:
            cur.execute("CREATE TEMP TABLE copied (a text[])")
            with cur.copy("COPY copied (a) FROM STDIN") as copy:
                copy.write_row((text_array(values),))
            copied = cur.execute("SELECT a FROM copied").fetchone()[0]
    assert literal == values and copied == values
