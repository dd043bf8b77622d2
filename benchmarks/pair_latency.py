"""What a query's term pairs cost the keyword ranking: on one index, each query's keyword
ranking with its pairs (:func:`~hierdoc.search.searcher.keyword_ranking`) and BM25 over its
terms alone (``keyword_search`` of :func:`~hierdoc.search.searcher.keyword_terms`, the
ranking without pairs), timed
in turn, query by query, so that both see the same load.

    python benchmarks/pair_latency.py --dataset obliqa --index /tmp/hierdoc-eval/obliqa/DIR
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from hierdoc import Index, Settings
from hierdoc.eval.datasets import dataset_path, load_dataset
from hierdoc.search.searcher import keyword_ranking, keyword_terms

DEPTH = 50
"""Candidates asked of the keyword side, as hybrid search asks."""


def plain(store, text: str) -> list:  # type: ignore[no-untyped-def]
    return store.keyword_search(keyword_terms(store, text), DEPTH, None)


def timed(call) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    call()
    return 1000 * (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="obliqa")
    parser.add_argument("--index", type=Path, required=True, help="an index built with pairs")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    queries = [q.text for q in load_dataset(args.dataset, dataset_path(args.dataset)).queries]
    with Index.open(args.index, Settings(), mode="r") as index:
        store = index.store
        for text in queries[:50]:  # warm the page cache and the analyzer's
            keyword_ranking(store, text, DEPTH, None)
        pairs, terms = [], []
        for _ in range(args.rounds):
            for text in queries:
                pairs.append(timed(lambda t=text: keyword_ranking(store, t, DEPTH, None)))
                terms.append(timed(lambda t=text: plain(store, t)))
    with_pairs, alone = statistics.median(pairs), statistics.median(terms)
    print(f"{args.dataset}: {len(queries)} queries x {args.rounds}")
    print(f"keyword ranking with pairs p50 {with_pairs:.2f} ms, mean {statistics.fmean(pairs):.2f}")
    print(f"terms alone p50 {alone:.2f} ms, mean {statistics.fmean(terms):.2f}")
    ratio = statistics.fmean(pairs) / statistics.fmean(terms)
    print(f"ratio p50 {with_pairs / alone:.2f}, mean {ratio:.2f}")


if __name__ == "__main__":
    main()
