"""Running an evaluation: every variant and baseline over the same queries, scored.

:func:`run_eval` indexes the corpus with hierdoc once per distinct ingest setting
(chunk size, structural context, extraction), reuses each index for every
search-only variant (mode, weights, ``rrf_k``, candidate depth), and scores the
baselines over the same chunks and vectors as the default index, with the same
embedder. Query vectors are computed once before any method is timed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..config import Settings
from ..pipeline.embed import Embedder, LocalEmbedder
from .baselines import ChunkData, baseline_methods
from .datasets import EvalCorpus, EvalQuery
from .embed_cache import CachingEmbedder
from .indexes import Log, OpenIndex, open_index
from .judging import ChunkTable, judge
from .method import Method
from .metrics import CUTOFFS
from .report import EvalReport, MethodResult, format_metric
from .variants import Variant, hierdoc_method, inapplicable, ingest_key


def _no_log(message: str) -> None:
    pass


def score_method(
    corpus: EvalCorpus, method: Method, queries: Sequence[EvalQuery], table: ChunkTable
) -> tuple[dict[str, float], list[dict[str, Any]], float]:
    """Mean metrics over the queries, the per-query misses at 10, and the seconds spent."""
    totals = dict.fromkeys(corpus.metrics, 0.0)
    misses = []
    started = time.perf_counter()
    for query in queries:
        if method.per_cutoff:
            rankings = {k: method.rank(query, k) for k in CUTOFFS}
        else:
            full = method.rank(query, method.depth)
            rankings = {k: full for k in CUTOFFS}
        judged = judge(corpus, query, rankings, table)
        for name, value in judged.values.items():
            totals[name] += value
        if judged.miss:
            misses.append(judged.miss)
    seconds = time.perf_counter() - started
    count = max(len(queries), 1)
    return {name: total / count for name, total in totals.items()}, misses, seconds


def run_eval(
    corpus: EvalCorpus,
    variants: Sequence[Variant],
    baselines: Sequence[str],
    index_dir: str | Path,
    embedder: Embedder | None = None,
    limit: int | None = None,
    log: Log = _no_log,
) -> EvalReport:
    """Index the corpus (one index per ingest setting, cached under ``index_dir``), run
    every variant and baseline over the same queries, and score them."""
    root = Path(index_dir)
    root.mkdir(parents=True, exist_ok=True)
    cached = CachingEmbedder(embedder or LocalEmbedder(), root / "embeddings.sqlite")
    queries = corpus.queries[:limit] if limit else corpus.queries
    report = EvalReport(
        corpus.name,
        corpus.description,
        corpus.unit,
        corpus.metrics,
        corpus.main_metric,
        len(queries),
        len(corpus.documents),
    )
    indexes: dict[str, OpenIndex] = {}
    for query in queries:
        cached.embed_query(query.text)
    try:
        for method, opened in _methods(
            corpus, variants, baselines, root, cached, indexes, report, log
        ):
            metrics, misses, seconds = score_method(corpus, method, queries, opened.table)
            report.results.append(
                MethodResult(
                    method.name,
                    method.kind,
                    method.description,
                    method.settings,
                    metrics,
                    misses,
                    len(queries),
                    seconds,
                    opened.info.key,
                )
            )
            main = format_metric(corpus.main_metric, metrics[corpus.main_metric])
            log(f"[{corpus.name}] {method.name}: {corpus.main_metric} {main} ({seconds:.0f} s)")
    finally:
        for opened in indexes.values():
            opened.index.close()
        cached.close()
    report.indexes = [o.info for o in indexes.values()]
    report.notes += _index_notes(report, corpus)
    return report


def _methods(
    corpus: EvalCorpus,
    variants: Sequence[Variant],
    baselines: Sequence[str],
    root: Path,
    embedder: CachingEmbedder,
    indexes: dict[str, OpenIndex],
    report: EvalReport,
    log: Log,
) -> Iterable[tuple[Method, OpenIndex]]:
    """Each method with the index it runs on, opening indexes as they are first needed;
    inapplicable variants are noted in the report and skipped."""

    def opened(settings: Settings) -> OpenIndex:
        key = ingest_key(settings, corpus)
        name = json.dumps(key, sort_keys=True)
        if name not in indexes:
            indexes[name] = open_index(corpus, key, root, embedder, log)
        return indexes[name]

    for variant in variants:
        skipped = inapplicable(variant, corpus)
        if skipped:
            report.notes.append(skipped)
            continue
        current = opened(variant.settings())
        yield hierdoc_method(current.index, variant), current
    if baselines:
        default = opened(Settings())
        data = ChunkData.load(default.index)
        for method in baseline_methods(baselines, data, embedder.embed_query):
            yield method, default


def _index_notes(report: EvalReport, corpus: EvalCorpus) -> list[str]:
    notes = []
    for info in report.indexes:
        notes.append(
            f"index {info.key}: {info.documents} documents, {info.chunks} chunks, "
            f"{info.windows} embedded windows"
        )
        if info.unlocated_chunks:
            notes.append(f"{info.unlocated_chunks} chunks not located in their document text")
    if corpus.unit == "document":
        notes.append("document rank = rank of its first chunk (later chunks skipped)")
    return notes
