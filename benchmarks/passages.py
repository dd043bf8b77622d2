"""Passages against whole chunks on ContractNLI: character precision@1 and recall@8.

Each hypothesis is searched within its NDA with hierdoc's defaults (as ``hierdoc eval``
does); the results' passages are then recomputed for each ``passage_chars`` budget from the
same results and query vector, and scored as LegalBench-RAG scores snippets: CharP@1 /
CharR@8 over the whole chunks, PsgP@1 / PsgR@8 over their passages. The index and the
embedding cache are those of ``hierdoc eval`` under ``--index-dir``. "passages ms/query" is
the time of ``add_passages`` alone for one query's results (the first budget's run also
fills the per-chunk caches).

    python benchmarks/passages.py --budgets 300,600,1200,2000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from hierdoc.config import Settings
from hierdoc.eval.datasets import load_dataset
from hierdoc.eval.embed_cache import CachingEmbedder
from hierdoc.eval.indexes import open_index
from hierdoc.eval.judging import judge
from hierdoc.eval.metrics import CUTOFFS
from hierdoc.eval.report import markdown_table
from hierdoc.eval.variants import ingest_key, passage_span
from hierdoc.models import SearchResponse
from hierdoc.pipeline.embed import LocalEmbedder
from hierdoc.search.passages import add_passages

METRICS = ("CharP@1", "CharR@8", "PsgP@1", "PsgR@8")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index-dir", default="/tmp/hierdoc-eval/contractnli")
    parser.add_argument("--budgets", default="300,600,1200,2000")
    parser.add_argument("--limit", type=int, help="Only the first N hypotheses.")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    corpus = load_dataset("contractnli")
    queries = corpus.queries[: args.limit] if args.limit else corpus.queries
    root = Path(args.index_dir)
    embedder = CachingEmbedder(LocalEmbedder(), root / "embeddings.sqlite")
    opened = open_index(corpus, ingest_key(Settings(), corpus), root, embedder, log)
    index, depth = opened.index, max(CUTOFFS)
    started = time.perf_counter()
    searched: list[tuple[SearchResponse, np.ndarray]] = []
    for query in queries:
        response = index.search(query.text, top_k=depth, source=query.source_filter)
        searched.append((response, embedder.embed_query(query.text)))
    took = time.perf_counter() - started
    log(f"searched {len(queries)} hypotheses in {took:.0f} s, passages included")
    rows = []
    for budget in budgets:
        totals = dict.fromkeys(METRICS, 0.0)
        chars, seconds = 0, 0.0
        for query, (response, vector) in zip(queries, searched, strict=True):
            began = time.perf_counter()
            add_passages(index.store, response, vector, budget, index.model_name)
            seconds += time.perf_counter() - began
            ranked = [r.chunk_id for r in response.results]
            passages = {
                r.chunk_id: passage_span(r.content, r.passage)
                for r in response.results
                if r.passage
            }
            values = judge(corpus, query, {k: ranked for k in CUTOFFS}, opened.table, passages)
            for name in METRICS:
                totals[name] += values.values[name]
            first = response.results[0].passage if response.results else None
            chars += len(first.text) if first else 0
        n = max(len(queries), 1)
        means = {name: total / n for name, total in totals.items()}
        rows.append(
            [
                str(budget),
                *(f"{means[m]:.3f}" for m in METRICS),
                f"{means['PsgP@1'] / means['CharP@1']:.2f}x" if means["CharP@1"] else "-",
                f"{means['PsgR@8'] - means['CharR@8']:+.3f}",
                f"{chars / n:.0f}",
                f"{1000 * seconds / n:.1f}",
            ]
        )
    index.close()
    embedder.close()
    header = [
        "passage_chars",
        *METRICS,
        "PsgP@1 / CharP@1",
        "PsgR@8 - CharR@8",
        "chars@1",
        "passages ms/query",
    ]
    print(f"ContractNLI test, {len(queries)} hypotheses, each searched within its NDA\n")
    print(markdown_table(header, rows, numeric_from=1))


if __name__ == "__main__":
    main()
