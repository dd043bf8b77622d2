"""Passage designs compared on every span set, from one search per question.

Each question of each set is searched once with hierdoc's defaults (``top_k`` 10, as the
passage evaluation of ``hierdoc eval --passages`` searches); the results' passages are then
recomputed for each design from the same results and query vector, and scored with the
measures of :mod:`hierdoc.eval.passage_eval` (``Hit``, ``P@1``, ``R@8``, ``R@2k``) for the
first passage of each result (``passage``) and all of them (``passages``). A design sets
constants of :mod:`hierdoc.search.passages` or :mod:`hierdoc.search.passage_sets`
(``NAME=value``, several joined by ``+``; ``defaults`` changes nothing); ``chars``
and ``set`` are the passage and passage-set budgets. Choose on the dev splits:

    python benchmarks/passages.py --sets contractnli:dev,obliqa-files:dev \\
        --designs defaults,SEMANTIC_WEIGHT=1.0,chars=400+set=1600
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np

from hierdoc.config import Settings
from hierdoc.eval.datasets import load_dataset
from hierdoc.eval.embed_cache import CachingEmbedder
from hierdoc.eval.indexes import open_index
from hierdoc.eval.passage_eval import mean_measures, measure
from hierdoc.eval.passage_methods import DEPTH, first_passage, hierdoc_items, result_items
from hierdoc.eval.report import markdown_table
from hierdoc.eval.variants import ingest_key
from hierdoc.models import SearchResponse
from hierdoc.pipeline.embed import LocalEmbedder
from hierdoc.search import passage_sets, passages
from hierdoc.search.passages import add_passages

READINGS = ("hierdoc passage", "hierdoc passages", "hierdoc passage results")
COLUMNS = ("Hit", "P@1", "R@8", "R@2k")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="contractnli:dev,obliqa-files:dev")
    parser.add_argument("--designs", default="defaults")
    parser.add_argument("--index-dir", default="/tmp/hierdoc-eval/passages")
    parser.add_argument("--limit", type=int, help="Only the first N questions of each set.")
    args = parser.parse_args()
    root = Path(args.index_dir)
    embedder = CachingEmbedder(LocalEmbedder(), root / "embeddings.sqlite")
    header = ["set", "design"] + [f"{c} {r[8:]}" for r in READINGS for c in COLUMNS]
    rows = []
    for spec in args.sets.split(","):
        name, _, split = spec.partition(":")
        rows += _set_rows(name, split or "dev", args, root, embedder)
    embedder.close()
    print(markdown_table([*header, "ms/query"], rows, numeric_from=2))


def _set_rows(
    name: str, split: str, args: argparse.Namespace, root: Path, embedder: CachingEmbedder
) -> list[list[str]]:
    corpus = load_dataset(name, None, split)
    queries = corpus.queries[: args.limit] if args.limit else corpus.queries
    opened = open_index(corpus, ingest_key(Settings(), corpus), root, embedder, log)
    index, table = opened.index, opened.table
    started = time.perf_counter()
    searched: list[tuple[SearchResponse, np.ndarray]] = []
    for query in queries:
        response = index.search(query.text, top_k=DEPTH, source=query.source_filter)
        searched.append((response, embedder.embed_query(query.text)))
    log(
        f"[{corpus.name}] searched {len(queries)} questions "
        f"in {time.perf_counter() - started:.0f} s"
    )
    rows = []
    for design in args.designs.split(","):
        budgets = _apply(design)
        measured: dict[str, list[dict[str, float]]] = {r: [] for r in READINGS}
        began = time.perf_counter()
        for query, (response, vector) in zip(queries, searched, strict=True):
            fresh = copy.deepcopy(response)
            add_passages(index.store, fresh, vector, budgets[0], index.model_name, None, budgets[1])
            items = hierdoc_items(fresh, table, query.id)
            ranked = add_passages(
                index.store, copy.deepcopy(response), vector, budgets[0], index.model_name,
                None, budgets[1], per_passage=DEPTH,
            )  # fmt: skip
            items["hierdoc passage results"] = result_items(ranked, table, first_passage)
            for reading in READINGS:
                measured[reading].append(measure(query, items[reading]))
        seconds = (time.perf_counter() - began) / max(len(queries), 1)
        _apply("defaults")
        means = {r: mean_measures(v) for r, v in measured.items()}
        cells = [f"{means[r][c]:.3f}" for r in READINGS for c in COLUMNS]
        rows.append([corpus.name, design, *cells, f"{1000 * seconds:.1f}"])
        log(f"[{corpus.name}] {design}: {' '.join(cells)}")
    index.close()
    return rows


_DEFAULTS = {
    module: {k: v for k, v in vars(module).items() if k.isupper() and isinstance(v, (int, float))}
    for module in (passages, passage_sets)
}


def _apply(design: str) -> tuple[int, int]:
    """Restore every constant, then set the design's; returns (passage, set) budgets."""
    for module, values in _DEFAULTS.items():
        for key, value in values.items():
            setattr(module, key, value)
    budgets = [passages.DEFAULT_PASSAGE_CHARS, passage_sets.DEFAULT_SET_CHARS]
    if design == "defaults":
        return budgets[0], budgets[1]
    for part in design.split("+"):
        key, _, value = part.partition("=")
        if key in ("chars", "set"):
            budgets[key == "set"] = int(value)
            continue
        owner = next((m for m, v in _DEFAULTS.items() if key in v), None)
        if owner is None:
            raise SystemExit(f"unknown constant {key!r}")
        setattr(owner, key, type(_DEFAULTS[owner][key])(float(value)))
    return budgets[0], budgets[1]


if __name__ == "__main__":
    main()
