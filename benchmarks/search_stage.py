"""The search stage alone: hierdoc's Searcher over a cached eval index,
without passages or reranking, beside the dense baseline, judged as ``hierdoc eval`` does.

Measures what the exact modality, citations and document naming change: run it with
the code to compare on ``PYTHONPATH`` (e.g. an older checkout's ``src``) against the same
index. Query vectors are kept in a file beside the index folder, so a second run (or
the other code) embeds nothing.

    python benchmarks/search_stage.py --dataset contractnli-wide --modes hybrid,semantic,keyword
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import time
from pathlib import Path

import numpy as np

from hierdoc.config import Settings
from hierdoc.eval.baselines import ChunkData, baseline_methods
from hierdoc.eval.datasets import EvalCorpus, EvalQuery, load_dataset
from hierdoc.eval.embed_cache import CachingEmbedder
from hierdoc.eval.indexes import open_index
from hierdoc.eval.method import Method
from hierdoc.eval.metrics import CUTOFFS
from hierdoc.eval.report import FlagAgreement, format_metric, markdown_table
from hierdoc.eval.runner import score_method
from hierdoc.eval.variants import ingest_key
from hierdoc.models import SearchFilter
from hierdoc.pipeline.embed import LocalEmbedder
from hierdoc.search.searcher import Searcher

FOLDERS = {"contractnli-wide": "contractnli"}


class QueryVectors:
    """Query vectors on disk, by the query's text (the model is loaded only on a miss)."""

    def __init__(self, embedder: CachingEmbedder, path: Path) -> None:
        self._embedder = embedder
        self._db = sqlite3.connect(path, isolation_level=None)
        self._db.execute("CREATE TABLE IF NOT EXISTS q (key TEXT PRIMARY KEY, v BLOB)")

    def __call__(self, text: str) -> np.ndarray:
        key = hashlib.sha1(f"{self._embedder.name}\0{text}".encode()).hexdigest()
        row = self._db.execute("SELECT v FROM q WHERE key = ?", (key,)).fetchone()
        if row:
            return np.frombuffer(row[0], dtype=np.float32)
        vector = np.asarray(self._embedder.embed_query(text), dtype=np.float32)
        self._db.execute("INSERT OR REPLACE INTO q VALUES (?, ?)", (key, vector.tobytes()))
        return vector


def searcher_method(searcher: Searcher, mode: str) -> Method:
    settings = Settings(search_mode=mode).search_settings(top_k=max(CUTOFFS))

    flags: dict[str, bool] = {}

    def rank(query: EvalQuery, k: int) -> list[str]:
        filt = SearchFilter(sources=(query.source_filter,)) if query.source_filter else None
        response = searcher.search(query.text, settings, filt)
        flags[query.id] = response.no_match
        return [r.chunk_id for r in response.results][:k]

    method = Method(mode, "hierdoc", f"Searcher, {mode}", rank)
    method.no_match = flags
    return method


def measure(corpus: EvalCorpus, modes: list[str], index_root: Path, limit: int | None) -> None:
    cached = CachingEmbedder(LocalEmbedder(), index_root / "embeddings.sqlite")
    vectors = QueryVectors(cached, index_root / "query_vectors.sqlite")
    opened = open_index(corpus, ingest_key(Settings(), corpus), index_root, cached, print)
    queries = corpus.queries[:limit] if limit else corpus.queries
    for query in queries:
        vectors(query.text)
    searcher = Searcher(opened.index.store, vectors, opened.index.glossary())
    methods = [searcher_method(searcher, mode) for mode in modes]
    methods += baseline_methods(["dense"], ChunkData.load(opened.index), vectors)
    metrics = [m for m in corpus.metrics if not m.startswith(("Char", "Psg"))]
    print("| method | " + " | ".join(metrics) + " | ms/query |")
    print("|---|" + "---:|" * (len(metrics) + 1))
    flags = []
    for method in methods:
        started = time.perf_counter()
        answered: dict[str, bool] = {}
        values, _, _ = score_method(corpus, method, queries, opened.table, None, answered)
        ms = 1000 * (time.perf_counter() - started) / max(len(queries), 1)
        cells = [format_metric(m, values[m]) for m in metrics]
        print(f"| {method.name} | " + " | ".join(cells) + f" | {ms:.1f} |", flush=True)
        if method.no_match is not None:
            flags.append(FlagAgreement.of(method.no_match, answered).row(method.name))
    header = ["no_match of", "queries", "flagged", "unanswered@10", "precision", "recall"]
    print("\n" + markdown_table(header, flags, numeric_from=1))
    opened.index.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="contractnli-wide")
    parser.add_argument("--modes", default="hybrid,semantic,keyword")
    parser.add_argument("--index-dir", default="/tmp/hierdoc-eval")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    from hierdoc.eval.datasets import dataset_path

    corpus = load_dataset(args.dataset, dataset_path(args.dataset))
    root = Path(args.index_dir) / FOLDERS.get(args.dataset, args.dataset)
    measure(corpus, args.modes.split(","), root, args.limit)


if __name__ == "__main__":
    main()
