"""What naming a document in a query costs in search latency.

A query that names a document ("Consider <NDA title>; <hypothesis>") is searched over
the whole index and ranked again within the named document, without the words of its
name (one more embedding of the query's own words, one more run of each modality).
This benchmark times that against the same hypothesis asked without the name, and
asked without the name but narrowed to the document by a filter, over ContractNLI's
NDAs (the ``contractnli-wide`` set's index, built once and cached like ``hierdoc
eval``'s). The three forms of each query run one after the other, their order rotated
query by query, so background load hits them alike. Query embedding is timed inside
each search (the real local model, warm, nothing cached).

    python benchmarks/named_latency.py --queries 200
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from hierdoc.config import Settings
from hierdoc.eval.datasets import EvalQuery, dataset_path, load_dataset
from hierdoc.eval.embed_cache import CachingEmbedder
from hierdoc.eval.indexes import open_index
from hierdoc.eval.variants import ingest_key
from hierdoc.models import SearchFilter
from hierdoc.pipeline.embed import LocalEmbedder
from hierdoc.search.searcher import Searcher

FORMS = ("named", "plain", "filtered")


def _asked(query: EvalQuery, form: str) -> tuple[str, SearchFilter | None]:
    """The query text and filter of one form: ``query.text`` names the NDA."""
    hypothesis = query.text.split("; ", 1)[1]
    if form == "named":
        return query.text, None
    if form == "plain":
        return hypothesis, None
    return hypothesis, SearchFilter(sources=(query.source_filter or "",))


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def measure(queries: list[EvalQuery], searcher: Searcher, mode: str) -> dict[str, list[float]]:
    """Milliseconds per search of each form, and how many named queries named a document."""
    settings = Settings(search_mode=mode).search_settings(top_k=10)
    times: dict[str, list[float]] = {form: [] for form in FORMS}
    named = 0
    for position, query in enumerate(queries):
        for form in FORMS[position % 3 :] + FORMS[: position % 3]:
            text, filt = _asked(query, form)
            started = time.perf_counter()
            execution = searcher.run(text, settings, filt)
            times[form].append(1000 * (time.perf_counter() - started))
            named += form == "named" and bool(execution.plan.named)
    print(f"{mode}: {named} of {len(queries)} named queries named their NDA")
    return times


def report(mode: str, times: dict[str, list[float]]) -> None:
    base = statistics.median(times["plain"])
    print(f"\n| {mode} | p50 ms | p95 ms | p50 / plain |")
    print("|---|---:|---:|---:|")
    for form in FORMS:
        p50 = statistics.median(times[form])
        p95 = _percentile(times[form], 0.95)
        print(f"| {form} | {p50:.1f} | {p95:.1f} | {p50 / base:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--modes", default="hybrid,keyword")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--index-dir", default="/tmp/hierdoc-eval")
    args = parser.parse_args()
    corpus = load_dataset("contractnli-wide", dataset_path("contractnli-wide"))
    root = Path(args.index_dir) / "contractnli"
    cached = CachingEmbedder(LocalEmbedder(), root / "embeddings.sqlite")
    opened = open_index(corpus, ingest_key(Settings(), corpus), root, cached, print)
    query_model = LocalEmbedder()
    query_model.embed_query("warm up")
    searcher = Searcher(opened.index.store, query_model.embed_query, opened.index.glossary())
    queries = random.Random(args.seed).sample(
        corpus.queries, min(args.queries, len(corpus.queries))
    )
    for query in queries[:5]:
        searcher.search(query.text, Settings().search_settings(top_k=10))
    for mode in args.modes.split(","):
        report(mode, measure(queries, searcher, mode))
    opened.index.close()


if __name__ == "__main__":
    main()
