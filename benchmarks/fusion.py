"""Fusion rules measured on the same candidate lists: each query is searched once in hybrid
mode over a cached evaluation index, the per-modality rankings the searcher fuses are kept,
and every fusion rule of :data:`RULES` orders them (cited sections first, as the searcher
does). Beside them: keyword and semantic alone, and how the hybrid search's ``no_match``
flag agrees with relevance (a query is "answered" when a relevant item is in its top 10).

    python benchmarks/fusion.py --dataset obliqa --rules rrf,default
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from search_stage import FOLDERS, QueryVectors  # noqa: E402

from hierdoc.config import Settings  # noqa: E402
from hierdoc.eval.datasets import DATASET_PATHS, EvalCorpus, default_datasets, load_dataset  # noqa: E402
from hierdoc.eval.embed_cache import CachingEmbedder  # noqa: E402
from hierdoc.eval.indexes import open_index  # noqa: E402
from hierdoc.eval.judging import ChunkTable, judge  # noqa: E402
from hierdoc.eval.metrics import CUTOFFS  # noqa: E402
from hierdoc.eval.variants import ingest_key  # noqa: E402
from hierdoc.models import Hit, SearchFilter  # noqa: E402
from hierdoc.pipeline.embed import LocalEmbedder  # noqa: E402
from hierdoc.search import fuse  # noqa: E402
from hierdoc.search.searcher import Searcher  # noqa: E402

Rankings = dict[str, list[Hit]]
RULES = dict(fuse.RULES)
if extra := os.environ.get("FUSION_CANDIDATES"):
    sys.path.insert(0, str(Path(extra).parent))
    RULES.update(__import__(Path(extra).stem).CANDIDATES)


class Recording(Searcher):
    """A searcher that keeps what it fuses: each modality's hits and the pinned chunks."""

    seen: tuple[Rankings, list[str]] | None = None

    def _order(self, rankings, pinned, settings):  # type: ignore[no-untyped-def]
        self.seen = ({m: list(h) for m, h in rankings.items()}, list(pinned))
        return super()._order(rankings, pinned, settings)


def capture(corpus: EvalCorpus, root: Path, limit: int | None) -> dict[str, Any]:
    """Per query: the rankings the hybrid search fused, the pinned chunks, ``no_match``."""
    cached = CachingEmbedder(LocalEmbedder(), root / "embeddings.sqlite")
    vectors = QueryVectors(cached, root / "query_vectors.sqlite")
    opened = open_index(corpus, ingest_key(Settings(), corpus), root, cached, print)
    queries = corpus.queries[:limit] if limit else corpus.queries
    searcher = Recording(opened.index.store, vectors, opened.index.glossary())
    settings = Settings(search_mode="hybrid").search_settings(top_k=max(CUTOFFS))
    captured: dict[str, Any] = {}
    for query in queries:
        filt = SearchFilter(sources=(query.source_filter,)) if query.source_filter else None
        searcher.seen = None
        response = searcher.search(query.text, settings, filt)
        rankings, pinned = searcher.seen or ({}, [])
        captured[query.id] = {
            "rankings": {m: [(h.chunk_id, h.score) for h in hits] for m, hits in rankings.items()},
            "pinned": pinned,
            "no_match": response.no_match,
            "hybrid": [r.chunk_id for r in response.results],
        }
    table = opened.table
    opened.index.close()
    return {"queries": captured, "table": table}


def ordering(rule: str, entry: dict[str, Any]) -> list[str]:
    rankings = {m: [Hit(c, s) for c, s in hits] for m, hits in entry["rankings"].items()}
    if rule in ("keyword", "semantic"):
        return [h.chunk_id for h in rankings.get(rule, [])]
    if rule == "searcher":
        return entry["hybrid"]
    fused = RULES[rule](rankings, Settings().search_settings().weights, 60)
    first = set(entry["pinned"])
    ids = [c for c, _ in fused]
    return [c for c in ids if c in first] + [c for c in ids if c not in first]


def score(corpus: EvalCorpus, table: ChunkTable, captured: dict, rule: str) -> dict[str, float]:
    totals: dict[str, float] = {}
    for query in corpus.queries:
        if query.id not in captured:
            continue
        ranked = ordering(rule, captured[query.id])[: max(CUTOFFS)]
        judged = judge(corpus, query, dict.fromkeys(CUTOFFS, ranked), table)
        for name, value in judged.values.items():
            totals[name] = totals.get(name, 0.0) + value
    return {name: total / len(captured) for name, total in totals.items()}


def no_match_agreement(corpus: EvalCorpus, table: ChunkTable, captured: dict) -> dict[str, float]:
    """Precision and recall of ``no_match`` as a detector of queries with nothing relevant in
    the top 10 of the hybrid results, and the flag's rate."""
    flagged = unanswered = both = 0
    for query in corpus.queries:
        entry = captured.get(query.id)
        if entry is None:
            continue
        ranked = entry["hybrid"][:10]
        judged = judge(corpus, query, dict.fromkeys(CUTOFFS, ranked), table)
        answered = judged.values.get("MRR@10", 0.0) > 0
        flagged += entry["no_match"]
        unanswered += not answered
        both += entry["no_match"] and not answered
    return {
        "flagged": flagged,
        "unanswered": unanswered,
        "precision": both / flagged if flagged else float("nan"),
        "recall": both / unanswered if unanswered else float("nan"),
        "queries": len(captured),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="obliqa")
    parser.add_argument("--rules", default=",".join(RULES))
    parser.add_argument("--index-dir", default="/tmp/hierdoc-eval")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--recapture", action="store_true", help="search again, not the file")
    args = parser.parse_args()
    corpus = load_dataset(args.dataset, default_datasets() / DATASET_PATHS[args.dataset])
    root = Path(args.index_dir) / FOLDERS.get(args.dataset, args.dataset)
    kept = root / f"fusion-capture-{args.dataset}-{args.limit or 'all'}.pickle"
    started = time.perf_counter()
    if kept.exists() and not args.recapture:
        data = pickle.loads(kept.read_bytes())
    else:
        data = capture(corpus, root, args.limit)
        kept.write_bytes(pickle.dumps(data))
    print(f"captured {len(data['queries'])} queries in {time.perf_counter() - started:.0f} s")
    metrics = [m for m in corpus.metrics if not m.startswith(("Char", "Psg", "Doc"))]
    print("| rule | " + " | ".join(metrics) + " |")
    print("|---|" + "---:|" * len(metrics))
    for rule in ["keyword", "semantic", "searcher", *args.rules.split(",")]:
        values = score(corpus, data["table"], data["queries"], rule)
        print(f"| {rule} | " + " | ".join(f"{values[m]:.4f}" for m in metrics) + " |", flush=True)
    agreement = no_match_agreement(corpus, data["table"], data["queries"])
    print("no_match:", json.dumps({k: round(v, 3) for k, v in agreement.items()}))


if __name__ == "__main__":
    main()
