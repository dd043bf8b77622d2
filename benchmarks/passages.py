"""Passage designs compared on every span set, from one search per question.

Each question of each set is searched once with hierdoc's defaults (``top_k`` 10, as the
passage evaluation of ``hierdoc eval --passages`` searches); the results' passages are then
recomputed for each design from the same results and query vector, and scored with the
measures of :mod:`hierdoc.eval.passage_eval` (``Hit``, ``P@1``, ``R@8``, ``R@2k``) for the
first passage of each result (``passage``) and all of them (``passages``), and for the
results ranked at the passage level (``passage_results``). A design sets fields of the
search policy (:class:`~hierdoc.config.SearchPolicy`, ``name=value``, several joined by
``+``; ``defaults`` changes nothing); ``chars`` and ``set`` are the passage and
passage-set budgets. Choose on the dev splits:

    python benchmarks/passages.py --sets contractnli:dev,obliqa-files:dev \\
        --designs defaults,passage_semantic_weight=1.0,chars=400+set=1600
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from dataclasses import replace
from pathlib import Path

from hierdoc.api import Index
from hierdoc.config import SearchPolicy, SearchSettings, Settings
from hierdoc.eval.datasets import load_dataset
from hierdoc.eval.embed_cache import CachingEmbedder
from hierdoc.eval.indexes import open_index
from hierdoc.eval.passage_eval import mean_measures, measure
from hierdoc.eval.passage_methods import DEPTH, first_passage, hierdoc_items, result_items
from hierdoc.eval.report import markdown_table
from hierdoc.eval.variants import ingest_key
from hierdoc.models import SearchFilter, SearchResponse
from hierdoc.pipeline.embed import LocalEmbedder
from hierdoc.search.passages import add_passages
from hierdoc.search.searcher import Execution, Searcher, results_read

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
    settings = index.settings.search_settings(top_k=DEPTH)
    searcher = Searcher(index.store, index.embed_query, index.glossary())
    deep = settings.search_settings(top_k=max(DEPTH, *_chunks_read(settings, args.designs)))
    searched: list[Execution] = []
    for query in queries:
        sources = index.resolve_sources(query.source_filter) if query.source_filter else []
        execution = searcher.run(query.text, deep, SearchFilter(sources=tuple(sources)))
        searched.append(replace(execution, vector=embedder.embed_query(query.text)))
    log(
        f"[{corpus.name}] searched {len(queries)} questions "
        f"in {time.perf_counter() - started:.0f} s"
    )
    rows = []
    for design in args.designs.split(","):
        designed = _design(settings, design)
        measured: dict[str, list[dict[str, float]]] = {r: [] for r in READINGS}
        began = time.perf_counter()
        for query, execution in zip(queries, searched, strict=True):
            items = hierdoc_items(_passages(index, execution, designed), table, query.id)
            ranked = designed.search_settings(passage_results=True)
            ranked_response = _passages(index, execution, ranked)
            items["hierdoc passage results"] = result_items(ranked_response, table, first_passage)
            for reading in READINGS:
                measured[reading].append(measure(query, items[reading]))
        seconds = (time.perf_counter() - began) / max(len(queries), 1)
        means = {r: mean_measures(v) for r, v in measured.items()}
        cells = [f"{means[r][c]:.3f}" for r in READINGS for c in COLUMNS]
        rows.append([corpus.name, design, *cells, f"{1000 * seconds:.1f}"])
        log(f"[{corpus.name}] {design}: {' '.join(cells)}")
    index.close()
    return rows


def _chunks_read(settings: SearchSettings, designs: str) -> list[int]:
    """The results each design's passage-level ranking reads."""
    return [
        results_read(DEPTH, True, _design(settings, design).policy) for design in designs.split(",")
    ]


def _passages(index: Index, execution: Execution, settings: SearchSettings) -> SearchResponse:
    """The passages of a copy of ``execution``'s first results (as many as a search with
    ``settings`` reads), chosen with ``settings``."""
    plan = replace(execution.plan, settings=settings)
    read = results_read(settings.top_k, settings.passage_results, settings.policy)
    response = copy.deepcopy(execution.response)
    response.results = response.results[:read]
    fresh = replace(execution, plan=plan, response=response)
    units = index.embed_units if settings.passage_results else None
    add_passages(index.store, fresh, index.model_name, units)
    return fresh.response


def _design(settings: SearchSettings, design: str) -> SearchSettings:
    """``settings`` with the design's budgets and search policy fields."""
    if design == "defaults":
        return settings
    budgets: dict[str, int] = {}
    policy: dict[str, str] = {}
    for part in design.split("+"):
        key, _, value = part.partition("=")
        if key in ("chars", "set"):
            budgets["passage_chars" if key == "chars" else "passage_set_chars"] = int(value)
        elif key in SearchPolicy.model_fields:
            policy[key] = value
        else:
            raise SystemExit(f"unknown design field {key!r}")
    chosen = settings.policy.model_dump() | policy
    return settings.search_settings(**budgets, policy=SearchPolicy.model_validate(chosen))


if __name__ == "__main__":
    main()
