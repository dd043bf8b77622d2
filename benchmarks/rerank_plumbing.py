"""Reranking plumbing: what a reranker costs per query and how it moves each
set's main metric, with every API provider answered by the loopback fake of its API.

The fake (tests/fakeapi.py) ranks by word overlap with the query: it is not a model, so
the metric columns show that the reranked order is really what gets returned, not what a
real reranker would gain (that needs Cohere, Voyage or Jina, out of reach here). The
latency column is hierdoc's side of a reranked search plus a loopback round trip.

    python benchmarks/rerank_plumbing.py [--datasets DIR] [--limit 100]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from hierdoc.eval.datasets import dataset_path, default_datasets, load_dataset
from hierdoc.eval.runner import run_eval
from hierdoc.eval.variants import Variant

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.fakeapi import FakeAPI  # noqa: E402

ROUTES = {"cohere": "", "voyage": "/voyage", "jina": "/jina"}


def variants(url: str) -> list[Variant]:
    found = [Variant("hybrid", "hybrid", {}, "no reranker")]
    for provider, route in ROUTES.items():
        reranker = {"provider": provider, "name": "fake", "base_url": url + route, "top_n": 50}
        found.append(Variant(f"hybrid+{provider}", "hybrid", {"reranker": reranker}, "fake"))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=default_datasets())
    parser.add_argument("--sets", default="anthropic,scifact,contractnli")
    parser.add_argument("--limit", type=int, default=100, help="queries per set")
    parser.add_argument("--index-dir", type=Path, default=Path("/tmp/hierdoc-eval"))
    args = parser.parse_args()
    for variable in ("COHERE_API_KEY", "VOYAGE_API_KEY", "JINA_API_KEY"):
        os.environ.setdefault(variable, "fake-key-for-the-loopback-server")
    print("| set | metric | variant | value | ms/query |")
    print("| --- | --- | --- | --- | --- |")
    with FakeAPI() as fake:
        for name in args.sets.split(","):
            corpus = load_dataset(name, dataset_path(name, root=args.datasets))
            report = run_eval(
                corpus, variants(fake.url), [], args.index_dir / name, limit=args.limit,
                log=lambda message: print(message, file=sys.stderr, flush=True),
            )  # fmt: skip
            for result in report.results:
                value = result.metrics[report.main_metric]
                ms = 1000 * result.seconds / max(result.queries, 1)
                print(
                    f"| {report.corpus} | {report.main_metric} | {result.name} | "
                    f"{value:.4f} | {ms:.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
