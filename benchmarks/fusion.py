"""Fusion rules measured on the same candidate lists: each query is searched once in hybrid
mode over a cached evaluation index, the per-modality rankings the searcher fuses are kept,
and every fusion rule of :data:`RULES` orders them (cited sections first, as the searcher
does). Beside them: keyword and semantic alone, and how the hybrid search's ``no_match``
flag agrees with relevance (a query is "answered" when a relevant item is in its top 10)
and, with ``--foreign``, how often it flags another set's (off-topic) questions.

    python benchmarks/fusion.py --dataset obliqa --documents 6 --rules rrf,score
    python benchmarks/fusion.py --dataset scifact --foreign anthropic

The capture is kept beside the index (``fusion-capture-*.pickle``; ``--recapture`` searches
again). More rules can be tried without editing hierdoc: ``FUSION_CANDIDATES=rules.py``
names a Python file whose ``CANDIDATES`` dict maps names to functions with the signature
of :func:`hierdoc.search.fuse.score_fusion`.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_stage import FOLDERS  # noqa: E402

from hierdoc.config import Settings  # noqa: E402
from hierdoc.eval.datasets import (  # noqa: E402
    EvalCorpus,
    EvalQuery,
    dataset_path,
    first_documents,
    load_dataset,
)
from hierdoc.eval.embed_cache import CachingEmbedder  # noqa: E402
from hierdoc.eval.indexes import open_index  # noqa: E402
from hierdoc.eval.judging import ChunkTable, judge  # noqa: E402
from hierdoc.eval.metrics import CUTOFFS  # noqa: E402
from hierdoc.eval.variants import ingest_key  # noqa: E402
from hierdoc.models import Hit, SearchFilter  # noqa: E402
from hierdoc.pipeline.embed import LocalEmbedder  # noqa: E402
from hierdoc.search import fuse  # noqa: E402
from hierdoc.search.searcher import NAMED, Searcher  # noqa: E402
from hierdoc.text.analyze import analyze  # noqa: E402

Rankings = dict[str, list[Hit]]
FOREIGN = 100
"""Off-topic queries searched per set (``--foreign``)."""
BOOTSTRAP = 10_000
"""Resamples of the queries for a paired interval."""
RULES = dict(fuse.RULES)
if extra := os.environ.get("FUSION_CANDIDATES"):
    sys.path.insert(0, str(Path(extra).parent))
    RULES.update(__import__(Path(extra).stem).CANDIDATES)


class Recording(Searcher):
    """A searcher that keeps what it fuses: each modality's hits and the pinned chunks."""

    seen: tuple[Rankings, list[str], float] | None = None

    def _order(self, rankings, pinned, settings, named_weight=0.0):  # type: ignore[no-untyped-def]
        self.seen = ({m: list(h) for m, h in rankings.items()}, list(pinned), named_weight)
        return super()._order(rankings, pinned, settings, named_weight)


def capture(
    corpus: EvalCorpus, root: Path, limit: int | None, foreign: list[EvalQuery]
) -> dict[str, Any]:
    """Per query: the rankings the hybrid search fused, the pinned chunks, ``no_match``;
    the same for ``foreign`` queries (of another set: nothing here answers them)."""
    cached = CachingEmbedder(LocalEmbedder(), root / "embeddings.sqlite")
    opened = open_index(corpus, ingest_key(Settings(), corpus), root, cached, print)
    queries = corpus.queries[:limit] if limit else corpus.queries
    cached.embed_queries([q.text for q in [*queries, *foreign]])
    searcher = Recording(opened.index.store, cached.embed_query, opened.index.glossary())
    data = {
        "queries": _searched(searcher, queries),
        "foreign": _searched(searcher, foreign),
        "table": opened.table,
    }
    opened.index.close()
    cached.close()
    return data


def _searched(searcher: Recording, queries: list[EvalQuery]) -> dict[str, Any]:
    settings = Settings(search_mode="hybrid").search_settings(top_k=max(CUTOFFS))
    captured: dict[str, Any] = {}
    for query in queries:
        filt = SearchFilter(sources=(query.source_filter,)) if query.source_filter else None
        searcher.seen = None
        response = searcher.search(query.text, settings, filt)
        rankings, pinned, named_weight = searcher.seen or ({}, [], 0.0)
        captured[query.id] = {
            "rankings": {m: [(h.chunk_id, h.score) for h in hits] for m, hits in rankings.items()},
            "pinned": pinned,
            "named_weight": named_weight,
            "no_match": response.no_match,
            "hybrid": [r.chunk_id for r in response.results],
            "coverage": _coverage(query.text, [r.content for r in response.results[:3]]),
        }
    return captured


def _coverage(text: str, contents: list[str]) -> float:
    """The largest share of the query's keyword terms one of ``contents`` holds."""
    terms = set(analyze(text))
    if not terms or not contents:
        return 0.0
    return max(len(terms & set(analyze(c))) for c in contents) / len(terms)


def ordering(rule: str, entry: dict[str, Any]) -> list[str]:
    rankings = {m: [Hit(c, s) for c, s in hits] for m, hits in entry["rankings"].items()}
    if rule in ("keyword", "semantic"):
        return [h.chunk_id for h in rankings.get(rule, [])]
    if rule == "searcher":
        return entry["hybrid"]
    weights = {**Settings().search_settings().weights, NAMED: entry.get("named_weight", 0.0)}
    fused = RULES[rule](rankings, weights, 60)
    first = set(entry["pinned"])
    ids = [c for c, _ in fused]
    return [c for c in ids if c in first] + [c for c in ids if c not in first]


def per_query(
    corpus: EvalCorpus, table: ChunkTable, captured: dict, rule: str
) -> dict[str, dict[str, float]]:
    """Each captured query's measures under ``rule``, by query id."""
    values: dict[str, dict[str, float]] = {}
    for query in corpus.queries:
        if query.id not in captured:
            continue
        ranked = ordering(rule, captured[query.id])[: max(CUTOFFS)]
        values[query.id] = judge(corpus, query, dict.fromkeys(CUTOFFS, ranked), table).values
    return values


def score(corpus: EvalCorpus, table: ChunkTable, captured: dict, rule: str) -> dict[str, float]:
    values = per_query(corpus, table, captured, rule)
    names = {name for judged in values.values() for name in judged}
    return {n: sum(v.get(n, 0.0) for v in values.values()) / len(captured) for n in names}


def paired_interval(
    values: dict[str, dict[str, float]], baseline: dict[str, dict[str, float]], metric: str
) -> tuple[float, float, float]:
    """The mean per-query difference in ``metric`` with its 95% paired bootstrap interval
    (:data:`BOOTSTRAP` resamples of the queries, a fixed seed)."""
    ids = sorted(values)
    diffs = np.array([values[q].get(metric, 0.0) - baseline[q].get(metric, 0.0) for q in ids])
    means = diffs[np.random.default_rng(0).integers(0, len(diffs), (BOOTSTRAP, len(diffs)))]
    low, high = np.percentile(means.mean(axis=1), [2.5, 97.5])
    return float(diffs.mean()), float(low), float(high)


def _below(threshold: float, coverage: float | None = None) -> Callable[[dict], bool]:
    def flag(entry: dict[str, Any]) -> bool:
        low = _semantic_top(entry) < threshold
        return low and (coverage is None or entry.get("coverage", 0.0) < coverage)

    return flag


FLAGS: dict[str, Callable[[dict], bool]] = {
    "searcher": lambda e: e["no_match"],
    **{f"semantic<{t}": _below(t) for t in (0.2, 0.25, 0.3, 0.35, 0.4)},
    **{f"semantic<{t} & coverage<{c}": _below(t, c) for t in (0.3, 0.35, 0.4) for c in (0.3, 0.5)},
}
"""Candidate ``no_match`` rules over what a capture holds: the flag the searcher set, the
best semantic similarity, the best share of query terms in a top-3 result."""


def _semantic_top(entry: dict[str, Any]) -> float:
    hits = entry["rankings"].get("semantic") or [("", 0.0)]
    return float(hits[0][1])


def no_match_agreement(
    corpus: EvalCorpus, table: ChunkTable, captured: dict, flag: str = "searcher"
) -> dict[str, float]:
    """Precision and recall of a ``no_match`` rule as a detector of queries with nothing
    relevant in the top 10 of the hybrid results, and how many it flags."""
    flagged = unanswered = both = 0
    for query in corpus.queries:
        entry = captured.get(query.id)
        if entry is None:
            continue
        ranked = entry["hybrid"][:10]
        judged = judge(corpus, query, dict.fromkeys(CUTOFFS, ranked), table)
        answered = judged.values.get("MRR@10", 0.0) > 0
        raised = bool(FLAGS[flag](entry))
        flagged += raised
        unanswered += not answered
        both += raised and not answered
    return {
        "flagged": flagged,
        "unanswered": unanswered,
        "precision": both / flagged if flagged else float("nan"),
        "recall": both / unanswered if unanswered else float("nan"),
        "queries": len(captured),
    }


def print_intervals(
    corpus: EvalCorpus, data: dict[str, Any], rules: list[str], metrics: list[str]
) -> None:
    """Each rule minus the better of keyword and semantic on the corpus' main metric, per
    metric, with 95% paired bootstrap intervals."""
    table, captured = data["table"], data["queries"]
    parts = {p: per_query(corpus, table, captured, p) for p in ("keyword", "semantic")}
    main_metric = corpus.main_metric
    better = max(parts, key=lambda p: sum(v.get(main_metric, 0.0) for v in parts[p].values()))
    print(f"minus {better} (mean difference [95% paired bootstrap interval]):")
    for rule in rules:
        if rule == better:
            continue
        values = per_query(corpus, table, captured, rule)
        cells = [
            f"{m} %+.4f [%+.4f, %+.4f]" % paired_interval(values, parts[better], m)
            for m in metrics[:2]
        ]
        print(f"  {rule}: " + "; ".join(cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="obliqa")
    parser.add_argument("--rules", default=",".join(RULES))
    parser.add_argument("--index-dir", default="/tmp/hierdoc-eval")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--documents", type=int, help="only the first N documents")
    parser.add_argument("--foreign", help="a dataset whose first queries are off-topic here")
    parser.add_argument("--recapture", action="store_true", help="search again, not the file")
    args = parser.parse_args()
    corpus = load_dataset(args.dataset, dataset_path(args.dataset))
    if args.documents:
        corpus = first_documents(corpus, args.documents)
    root = Path(args.index_dir) / FOLDERS.get(args.dataset, args.dataset)
    kept = root / f"fusion-capture-{corpus.name}-{args.limit or 'all'}.pickle"
    started = time.perf_counter()
    if kept.exists() and not args.recapture:
        data = pickle.loads(kept.read_bytes())
    else:
        foreign = load_dataset(args.foreign).queries[:FOREIGN] if args.foreign else []
        data = capture(corpus, root, args.limit, foreign)
        kept.write_bytes(pickle.dumps(data))
    print(f"captured {len(data['queries'])} queries in {time.perf_counter() - started:.0f} s")
    metrics = [m for m in corpus.metrics if not m.startswith(("Char", "Psg", "Doc"))]
    print("| rule | " + " | ".join(metrics) + " |")
    print("|---|" + "---:|" * len(metrics))
    rules = ["keyword", "semantic", "searcher", *args.rules.split(",")]
    for rule in rules:
        values = score(corpus, data["table"], data["queries"], rule)
        print(f"| {rule} | " + " | ".join(f"{values[m]:.4f}" for m in metrics) + " |", flush=True)
    print_intervals(corpus, data, rules, metrics)
    for flag in FLAGS:
        agreement = no_match_agreement(corpus, data["table"], data["queries"], flag)
        foreign = data.get("foreign") or {}
        agreement["foreign_flagged"] = sum(FLAGS[flag](e) for e in foreign.values())
        agreement["foreign"] = len(foreign)
        print(f"no_match {flag}:", json.dumps({k: round(v, 3) for k, v in agreement.items()}))


if __name__ == "__main__":
    main()
