"""PostgreSQL keyword search over packed postings against BM25 computed here, on a corpus
large enough for terms to span several blocks and for their rows to be merged, with
filters, after deletions and replacements, and on an index upgraded from the schema
before packed postings."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

from hierdoc.models import Chunk, DocumentRecord, SearchFilter, StoredChunk
from hierdoc.store import StoreRequest, open_store
from hierdoc.store.base import Store
from hierdoc.store.postgres import keyword, postings, reindex
from hierdoc.store.postgres.lexical import fieldnorm
from hierdoc.store.postgres.schema import MIGRATIONS
from hierdoc.text import bm25
from hierdoc.text.analyze import TEXT_ANALYZER
from tests.contract.test_store_postgres_server import drop_schema, fresh_options

pytestmark = pytest.mark.postgres

VOCABULARY = [f"w{i}" for i in range(400)]
DOCUMENTS, CHUNKS = 36, 50
TYPES = ("content", "definition")


def document(number: int, seed: int = 0) -> tuple[DocumentRecord, list[StoredChunk]]:
    """Chunks of Zipf words (so common terms hold more than a block of postings), of
    varied lengths, types and sections."""
    rng = np.random.default_rng(number * 1000 + seed)
    weights = 1 / np.arange(1, len(VOCABULARY) + 1)
    source = f"doc{number}.md"
    stored = []
    for c in range(CHUNKS):
        words = rng.choice(len(VOCABULARY), int(rng.integers(5, 60)), p=weights / weights.sum())
        content = " ".join(VOCABULARY[w] for w in words)
        path = (f"part-{c % 3}", f"part-{c % 3}-{c % 5}")
        chunk = Chunk(f"{source}#{c}", source, f"Doc {number}", path[-1], "H", ("H",), path,
                      content, c, len(words), chunk_type=TYPES[c % 2])  # fmt: skip
        stored.append(StoredChunk(chunk, f"Doc {number}"))
    return DocumentRecord(source, f"Doc {number}", f"h{seed}", "md", 100, CHUNKS), stored


def write(store: Store, number: int, seed: int = 0) -> list[StoredChunk]:
    record, stored = document(number, seed)
    store.write_document(record, [], stored, [])
    return stored


def expected(
    chunks: dict[str, StoredChunk], query: list[str], filt: SearchFilter | None
) -> list[tuple[str, float]]:
    """Every matching chunk's BM25 score (idf over all chunks, tantivy's lengths), best first."""
    terms = {
        cid: TEXT_ANALYZER.terms(f"{s.context}\n{s.chunk.content}") for cid, s in chunks.items()
    }
    average = sum(len(t) for t in terms.values()) / len(terms)
    scores: Counter[str] = Counter()
    for term, times in Counter(query).items():
        having = [cid for cid, t in terms.items() if term in t]
        idf = times * bm25.idf(len(terms), len(having))
        for cid in having:
            tf = terms[cid].count(term)
            scores[cid] += idf * bm25.term_score(tf, fieldnorm(len(terms[cid])), average)
    kept = [
        (cid, s) for cid, s in scores.items() if filt is None or filt.matches(chunks[cid].chunk)
    ]
    return sorted(kept, key=lambda item: (-item[1], item[0]))


def assert_top(store: Store, chunks: dict[str, StoredChunk], query: list[str], k: int,
               filt: SearchFilter | None) -> None:  # fmt: skip
    want = expected(chunks, query, filt)
    got = store.keyword_search(query, k, filt)
    assert len(got) == min(k, len(want))
    by_id = dict(want)
    for hit, (_, score) in zip(got, want, strict=False):
        assert hit.score == pytest.approx(score, rel=1e-9)  # the k best scores, in order
        assert by_id[hit.chunk_id] == pytest.approx(hit.score, rel=1e-9)  # and their chunks


QUERIES = [
    ["w0", "w150"],
    ["w1", "w2", "w3"],
    ["w300", "w350", "w399"],
    ["w0", "w1", "w5", "w390"],
    ["w7", "w7", "w200"],
    ["w20"],
    ["w0"],
    ["w12", "nothing"],
]
FILTERS = [
    None,
    SearchFilter(sources=("doc3.md", "doc30.md")),
    SearchFilter(chunk_types=("definition",)),
    SearchFilter(section_prefix="part-1"),
    SearchFilter(sources=("doc5.md",), section_prefix="part-2-4"),
]


@pytest.fixture(scope="module")
def options() -> Iterator[dict[str, Any]]:
    options = fresh_options()
    yield options
    drop_schema(options)


def open_pg(options: dict[str, Any]) -> Store:
    request = StoreRequest(Path("unused"), 8, TEXT_ANALYZER, options=options)
    return open_store("postgres", request)


@pytest.fixture(scope="module")
def filled(options: dict[str, Any]) -> Iterator[tuple[Store, dict[str, StoredChunk]]]:
    store = open_pg(options)
    chunks = {s.chunk.chunk_id: s for n in range(DOCUMENTS) for s in write(store, n)}
    yield store, chunks
    store.close()


PRUNING = {
    "all read at once": {},
    "pruned, completed from forward rows": {"CHEAP": 0},
    "pruned, completed from postings": {"CHEAP": 0, "FORWARD_UP_TO": 0},
}


@pytest.fixture(params=list(PRUNING))
def pruning(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in PRUNING[request.param].items():
        monkeypatch.setattr(keyword, name, value)


@pytest.mark.parametrize("k", [1, 10, 60])
@pytest.mark.parametrize("filt", FILTERS, ids=str)
@pytest.mark.usefixtures("pruning")
def test_the_top_k_is_bm25s(filled: tuple[Store, dict[str, StoredChunk]], k: int,
                            filt: SearchFilter | None) -> None:  # fmt: skip
    store, chunks = filled
    for query in QUERIES:
        assert_top(store, chunks, query, k, filt)


def test_a_common_term_is_not_read_when_it_cannot_change_the_top(
    filled: tuple[Store, dict[str, StoredChunk]], monkeypatch: pytest.MonkeyPatch
) -> None:
    store, chunks = filled
    read: list[list[int]] = []
    reader = keyword.read_postings
    monkeypatch.setattr(keyword, "CHEAP", 0)
    monkeypatch.setattr(
        keyword, "read_postings", lambda conn, ids: read.append(ids) or reader(conn, ids)
    )
    assert_top(store, chunks, ["w0", "w399"], 1, None)
    assert len(read) == 1 and len(read[0]) == 1  # w399's postings only
    read.clear()
    assert_top(store, chunks, ["w0", "w399"], 1, SearchFilter(chunk_types=("definition",)))
    assert len(read) == 1 and len(read[0]) == 2  # a filter checked in SQL: every term read


def test_common_terms_span_merged_blocks(
    filled: tuple[Store, dict[str, StoredChunk]], options: dict[str, Any]
) -> None:
    _, chunks = filled
    with psycopg.connect(options["url"]) as conn:
        conn.execute(f'SET search_path TO "{options["schema"]}"')
        rows = conn.execute(
            "SELECT s.df, s.small_rows, count(*), count(*) FILTER (WHERE p.n < %s) FROM "
            "term_stats s JOIN postings p USING (term_id) WHERE s.term = 'w0' "
            "GROUP BY s.df, s.small_rows",
            (postings.BLOCK,),
        ).fetchone()
    df, small_rows, count, small = rows
    assert df > postings.BLOCK and count < DOCUMENTS  # merged: not a row per document
    assert small == small_rows <= postings.MERGE_AT
    assert df == sum("w0" in TEXT_ANALYZER.terms(s.chunk.content) for s in chunks.values())


def test_deleted_and_replaced_documents_leave_no_postings(options: dict[str, Any]) -> None:
    store = open_pg({**options, "schema": options["schema"] + "_d"})
    try:
        chunks = {s.chunk.chunk_id: s for n in range(24) for s in write(store, n)}
        store.delete_documents(["doc2.md", "doc11.md"])
        for number in (5, 20):  # a new version: other words
            chunks.update({s.chunk.chunk_id: s for s in write(store, number, seed=1)})
        chunks = {
            cid: s for cid, s in chunks.items() if s.chunk.source not in ("doc2.md", "doc11.md")
        }
        for query in QUERIES:
            for filt in FILTERS:
                assert_top(store, chunks, query, 10, filt)
        terms = [f"w{i}" for i in (0, 3, 77, 399)]
        filt = SearchFilter(chunk_types=("definition",), sources=("doc5.md", "doc7.md"))
        having = {
            t: [s for s in chunks.values() if t in TEXT_ANALYZER.terms(s.chunk.content)]
            for t in terms
        }
        assert store.doc_freq(terms) == {t: len(h) for t, h in having.items()}
        assert store.doc_freq(terms, filt) == {
            t: sum(filt.matches(s.chunk) for s in h) for t, h in having.items()
        }
    finally:
        store.close()
        drop_schema({**options, "schema": options["schema"] + "_d"})


def test_an_index_of_the_previous_schema_is_upgraded(
    options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks written at schema version 4 (postings of text terms, no chunk numbers) are
    numbered and their postings rebuilt (in batches) when the index is next opened for
    writing."""
    monkeypatch.setattr(reindex, "BATCH", 70)
    new, old = options["schema"] + "_n", options["schema"] + "_o"
    store = open_pg({**options, "schema": new})
    chunks = {s.chunk.chunk_id: s for n in range(6) for s in write(store, n)}
    store.close()
    try:
        with psycopg.connect(options["url"], autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{old}"; SET search_path TO "{old}", public')
            with conn.transaction():
                for statement in (s for m in MIGRATIONS[:4] for s in m):
                    conn.execute(statement.replace("{dimension}", "8"))
                for table in ("meta", "documents", "chunks", "state"):
                    columns = ", ".join(_columns(conn, old, table))
                    conn.execute(f'DELETE FROM {table}; INSERT INTO {table} ({columns}) '
                                 f'SELECT {columns} FROM "{new}".{table}')  # fmt: skip
                conn.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
        upgraded = open_pg({**options, "schema": old})
        try:
            for query in QUERIES:
                assert_top(upgraded, chunks, query, 10, None)
            more = write(upgraded, 7)
            chunks.update({s.chunk.chunk_id: s for s in more})
            assert_top(upgraded, chunks, ["w0", "w150"], 20, SearchFilter(sources=("doc7.md",)))
        finally:
            upgraded.close()
    finally:
        drop_schema({**options, "schema": new})
        drop_schema({**options, "schema": old})


def _columns(conn: psycopg.Connection, schema: str, table: str) -> list[str]:
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = %s "
        "AND table_name = %s ORDER BY ordinal_position",
        (schema, table),
    ).fetchall()
    return [r[0] for r in rows]
