"""Passages against whole chunks on ContractNLI: character precision@1 and recall@8.

Each hypothesis is searched with hierdoc's defaults (as ``hierdoc eval`` does: within its
NDA for ``contractnli``, over all NDAs for ``contractnli-wide``); the results' passages are
then recomputed for each design from the same results and query vector, and scored as
LegalBench-RAG scores snippets. ``CharP@1``/``CharR@8`` are over whole chunks;
``PsgP@1``/``PsgR@8`` over everything the top 1 / top 8 results return as passages (k
counted in results, as ``hierdoc eval`` counts it); ``1stP@1``/``R@8psg`` count k in
passages instead (the passages in rank order, each result's best first, as LegalBench-RAG
counts snippets: precision of the first passage, recall of the first eight). A design is
``passage_chars:passage_set_chars`` (``:0`` = one passage per result). ``chars@1`` is what
the first result returns as passages, ``chars@8`` what the top 8 return; ``ms/query`` is
``add_passages`` alone for one query's results (the first design also fills the caches).

    python benchmarks/passages.py --designs 300:0,600:0,1200:0,2000:0,600:1200,600:1800
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from hierdoc.config import SearchPolicy, Settings
from hierdoc.eval.datasets import EvalCorpus, EvalQuery, load_dataset
from hierdoc.eval.embed_cache import CachingEmbedder
from hierdoc.eval.indexes import open_index
from hierdoc.eval.judging import ChunkTable, judge
from hierdoc.eval.metrics import CUTOFFS, Span, char_precision_at_k, char_recall_at_k
from hierdoc.eval.report import markdown_table
from hierdoc.eval.variants import ingest_key, result_passages
from hierdoc.models import SearchFilter, SearchResponse
from hierdoc.pipeline.embed import LocalEmbedder
from hierdoc.search.passages import add_passages
from hierdoc.search.searcher import Execution, Searcher

METRICS = ("CharP@1", "CharR@8", "PsgP@1", "PsgR@8")
COLUMNS = (*METRICS, "1stP@1", "R@8psg", "chars@1", "chars@8")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="contractnli", help="contractnli(-wide)")
    parser.add_argument("--index-dir", default="/tmp/hierdoc-eval/contractnli")
    parser.add_argument("--designs", default="300:0,600:0,1200:0,2000:0,600:1200,600:1800")
    default_share = SearchPolicy().extra_passage_share
    parser.add_argument("--share", type=float, default=default_share)
    parser.add_argument("--limit", type=int, help="Only the first N hypotheses.")
    args = parser.parse_args()
    policy = SearchPolicy(extra_passage_share=args.share)
    designs = [tuple(int(n) for n in d.split(":")) for d in args.designs.split(",")]
    corpus = load_dataset(args.dataset)
    queries = corpus.queries[: args.limit] if args.limit else corpus.queries
    root = Path(args.index_dir)
    embedder = CachingEmbedder(LocalEmbedder(), root / "embeddings.sqlite")
    opened = open_index(corpus, ingest_key(Settings(), corpus), root, embedder, log)
    index = opened.index
    started = time.perf_counter()
    settings = index.settings.search_settings(top_k=max(CUTOFFS), policy=policy)
    searcher = Searcher(index.store, index.embed_query, index.glossary())
    searched: list[Execution] = []
    for query in queries:
        sources = index.resolve_sources(query.source_filter) if query.source_filter else []
        filt = SearchFilter(sources=tuple(sources))
        execution = searcher.run(query.text, settings, filt)
        searched.append(replace(execution, vector=embedder.embed_query(query.text)))
    log(f"searched {len(queries)} hypotheses in {time.perf_counter() - started:.0f} s")
    rows = []
    for budget, set_budget in designs:
        totals = dict.fromkeys(COLUMNS, 0.0)
        seconds = 0.0
        design = settings.search_settings(passage_chars=budget, passage_set_chars=set_budget)
        for query, execution in zip(queries, searched, strict=True):
            began = time.perf_counter()
            response = execution.response
            designed = replace(execution, plan=replace(execution.plan, settings=design))
            add_passages(index.store, designed, index.model_name)
            seconds += time.perf_counter() - began
            for name, value in scores(corpus, query, response, opened.table).items():
                totals[name] += value
        n = max(len(queries), 1)
        means = {name: total / n for name, total in totals.items()}
        rows.append(_row(f"{budget}:{set_budget}", means, seconds / n))
    index.close()
    embedder.close()
    header = ["design", *COLUMNS, "PsgP@1 / CharP@1", "PsgR@8 - CharR@8", "ms/query"]
    where = "each within its NDA" if args.dataset == "contractnli" else "over all NDAs"
    print(f"{args.dataset}, {len(queries)} hypotheses searched {where}, share {args.share}\n")
    print(markdown_table(header, rows, numeric_from=1))


def scores(
    corpus: EvalCorpus, query: EvalQuery, response: SearchResponse, table: ChunkTable
) -> dict[str, float]:
    """Every column of one query, both ways of counting k."""
    ranked = [r.chunk_id for r in response.results]
    passages = result_passages(response)
    values = judge(corpus, query, {k: ranked for k in CUTOFFS}, table, passages).values
    found = {name: values[name] for name in METRICS}
    flat = [(c, span) for c in ranked for span in passages.get(c, [])]
    found["1stP@1"] = _precision(flat[:1], query, table)
    found["R@8psg"] = _recall(flat[:8], query, table)
    found["chars@1"] = sum(e - s for s, e in passages.get(ranked[0], [])) if ranked else 0
    found["chars@8"] = sum(e - s for c in ranked[:8] for s, e in passages.get(c, []))
    return found


def _in_document(
    items: Sequence[tuple[str, Span]], query: EvalQuery, table: ChunkTable
) -> tuple[list[Span], int]:
    """The passages' spans in the query's document, and the characters from other ones."""
    source = query.source_filter or query.document or ""
    own, foreign = [], 0
    for chunk_id, (start, end) in items:
        chunk = table.span.get(chunk_id)
        if chunk is None:
            continue
        if table.source.get(chunk_id) == source:
            own.append((chunk[0] + start, min(chunk[1], chunk[0] + end)))
        else:
            foreign += end - start
    return own, foreign


def _precision(items: Sequence[tuple[str, Span]], query: EvalQuery, table: ChunkTable) -> float:
    own, foreign = _in_document(items, query, table)
    return char_precision_at_k(own, query.relevant, len(own), foreign)  # type: ignore[arg-type]


def _recall(items: Sequence[tuple[str, Span]], query: EvalQuery, table: ChunkTable) -> float:
    own, _ = _in_document(items, query, table)
    return char_recall_at_k(own, query.relevant, len(own))  # type: ignore[arg-type]


def _row(design: str, means: dict[str, float], seconds: float) -> list[str]:
    ratio = means["PsgP@1"] / means["CharP@1"] if means["CharP@1"] else 0.0
    return [
        design,
        *(f"{means[c]:.3f}" for c in COLUMNS if not c.startswith("chars")),
        f"{means['chars@1']:.0f}",
        f"{means['chars@8']:.0f}",
        f"{ratio:.2f}x",
        f"{means['PsgR@8'] - means['CharR@8']:+.3f}",
        f"{1000 * seconds:.1f}",
    ]


if __name__ == "__main__":
    main()
