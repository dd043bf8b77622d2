"""Running an evaluation: every variant and baseline over the same queries, scored.

:func:`run_eval` indexes the corpus with hierdoc once per distinct ingest setting
(chunk size, structural context, extraction), reuses each index for every
search-only variant (mode, weights, ``rrf_k``, candidate depth), and scores the
baselines over the same chunks and vectors as the default index, with the same
embedder. Query vectors are computed once before any method is timed.

With ``limit`` only the first queries are run, and only the documents they need are
indexed (:func:`limit_corpus`): their judged documents (or, for queries searched within
one document, that document), plus, when queries search the whole corpus,
:data:`DISTRACTORS_PER_QUERY` random others per query (fixed seed) so that retrieval
still has to find them among unrelated documents.
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
from .datasets import EvalCorpus, EvalQuery, slice_corpus
from .embed_cache import CachingEmbedder
from .indexes import Log, OpenIndex, open_index
from .judging import ChunkTable, judge
from .method import Method
from .metrics import CUTOFFS, PASSAGE_METRICS
from .obliqa_citations import cited_first
from .report import ANSWERED_BY, EvalReport, FlagAgreement, MethodResult, format_metric
from .variants import Variant, hierdoc_method, inapplicable, ingest_key

DISTRACTORS_PER_QUERY = 20
"""Random unjudged documents indexed per selected query under ``limit`` when queries search
the whole corpus: SciFact has 5,183 abstracts for 300 queries (17 per query), so a slice
keeps about the full set's ratio of documents to queries."""


def _no_log(message: str) -> None:
    pass


def searches_whole_corpus(corpus: EvalCorpus) -> bool:
    """Whether some query searches every document (no source filter): then unjudged
    documents compete with the judged ones, and a slice needs distractors."""
    return any(q.source_filter is None for q in corpus.queries)


def distractor_count(corpus: EvalCorpus, limit: int, distractors: int | None = None) -> int:
    """``distractors`` when given; else :data:`DISTRACTORS_PER_QUERY` per selected query when
    queries search the whole corpus, none when each searches only its own document."""
    if distractors is not None:
        return distractors
    whole = searches_whole_corpus(corpus)
    return DISTRACTORS_PER_QUERY * min(limit, len(corpus.queries)) if whole else 0


def limit_corpus(corpus: EvalCorpus, limit: int, distractors: int | None = None) -> EvalCorpus:
    """The first ``limit`` queries over only the documents they need: their judged (or
    filtered-to) documents plus :func:`distractor_count` random others (seed 13)."""
    return slice_corpus(corpus, limit, distractor_count(corpus, limit, distractors))


def score_method(
    corpus: EvalCorpus,
    method: Method,
    queries: Sequence[EvalQuery],
    table: ChunkTable,
    by_group: dict[str, dict[str, float]] | None = None,
    answered: dict[str, bool] | None = None,
) -> tuple[dict[str, float], list[dict[str, Any]], float]:
    """Mean metrics over the queries, the per-query misses at 10, and the seconds spent;
    ``by_group``, when given, is filled with the mean metrics of each query group, and
    ``answered`` with whether each query has something relevant in its top 10."""
    totals = dict.fromkeys((m for m in corpus.metrics if m not in PASSAGE_METRICS), 0.0)
    groups: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = {}
    misses = []
    started = time.perf_counter()
    for query in queries:
        if method.per_cutoff:
            rankings = {k: method.rank(query, k) for k in CUTOFFS}
        else:
            full = method.rank(query, method.depth)
            rankings = {k: full for k in CUTOFFS}
        passages = None if method.passages is None else method.passages.get(query.id, {})
        judged = judge(corpus, query, rankings, table, passages)
        if answered is not None:
            answered[query.id] = judged.values.get(ANSWERED_BY, 0.0) > 0
        group = groups.setdefault(query.group or "", {})
        counts[query.group or ""] = counts.get(query.group or "", 0) + 1
        for name, value in judged.values.items():
            totals[name] = totals.get(name, 0.0) + value
            group[name] = group.get(name, 0.0) + value
        if judged.miss:
            misses.append(judged.miss)
    seconds = time.perf_counter() - started
    count = max(len(queries), 1)
    if by_group is not None and any(groups):
        for name, sums in groups.items():
            label = f"{name} ({counts[name]})"
            by_group[label] = {m: total / counts[name] for m, total in sums.items()}
    return {name: total / count for name, total in totals.items()}, misses, seconds


def run_eval(
    corpus: EvalCorpus,
    variants: Sequence[Variant],
    baselines: Sequence[str],
    index_dir: str | Path,
    embedder: Embedder | None = None,
    limit: int | None = None,
    log: Log = _no_log,
    distractors: int | None = None,
) -> EvalReport:
    """Index the corpus (one index per ingest setting, cached under ``index_dir``), run
    every variant and baseline over the same queries, and score them. With ``limit``,
    only the first queries and the documents they need (:func:`limit_corpus`)."""
    sliced = ""
    if limit:
        count = distractor_count(corpus, limit, distractors)
        full, corpus = len(corpus.documents), limit_corpus(corpus, limit, count)
        sliced = _slice_note(corpus, full, count)
        log(f"[{corpus.name}] {sliced}")
    root = Path(index_dir)
    root.mkdir(parents=True, exist_ok=True)
    if embedder is None:
        log(f"[{corpus.name}] loading the embedding model")
        embedder = LocalEmbedder()
    cached = CachingEmbedder(embedder, root / "embeddings.sqlite")
    queries = corpus.queries
    report = EvalReport(
        corpus.name,
        corpus.description,
        corpus.unit,
        corpus.metrics,
        corpus.main_metric,
        len(queries),
        len(corpus.documents),
        published=corpus.published,
    )
    indexes: dict[str, OpenIndex] = {}
    log(f"[{corpus.name}] embedding {len(queries)} queries")
    cached.embed_queries([query.text for query in queries])
    try:
        for method, opened in _methods(
            corpus, variants, baselines, root, cached, indexes, report, log
        ):
            groups: dict[str, dict[str, float]] = {}
            answered: dict[str, bool] = {}
            metrics, misses, seconds = score_method(
                corpus, method, queries, opened.table, groups, answered
            )
            flags = method.no_match
            cited = None
            if corpus.citations and method.first is not None:
                cited = cited_first(method.first, corpus.citations)
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
                    groups,
                    FlagAgreement.of(flags, answered) if flags is not None else None,
                    cited,
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
    if sliced:
        report.notes.append(sliced)
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


def _slice_note(corpus: EvalCorpus, full: int, distractors: int) -> str:
    return (
        f"limited to {len(corpus.queries)} queries and {len(corpus.documents)} of {full} "
        "documents: those the queries judge or search within, plus "
        f"{distractors} random others (seed 13); not comparable with a full run"
    )


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
