"""Does embedding a long text in windows beat the model's own truncation? BEIR SciFact.

all-MiniLM-L6-v2 reads at most 254 word pieces (256 with the special tokens);
hierdoc's ``LocalEmbedder`` cuts longer texts into overlapping windows and the
vector index scores a text by its best window. This script compares, with the
same model on the same documents in one process:

- ``truncate``: one vector per document, the model truncating at 256 tokens;
- ``windows-max``: ``LocalEmbedder.embed_documents`` windows (overlap 32),
  scored by ``VectorIndex`` as the max cosine over a document's windows;
- ``windows-mean``: the same window vectors averaged and re-normalised,
  one vector per document.

Data: BEIR SciFact (corpus.jsonl, queries.jsonl, qrels/test.tsv). The corpus is
a subset: every document judged in the test qrels plus ``--distractors`` random
others (fixed seed); the queries are the test queries with judgements. A
document is embedded as ``EmbedInput(context=title, text=abstract)``, so every
window starts with the title; the truncated input is ``title + "\\n" + abstract``,
which is also the single window of a document that fits.

Metrics: nDCG@10 (graded by the qrels score, linear gain) and Recall@10, over
all queries and over the queries with at least one relevant document longer
than 254 tokens (where truncation can lose the relevant text); the difference
from ``truncate`` per query, with a 95% paired bootstrap interval over queries,
and win/tie/loss counts. Embedding cost: texts embedded and throughput.

    python benchmarks/embed_windows.py --scifact $HIERDOC_DATASETS/scifact
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import os
import platform
import random
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np

from hierdoc.eval.datasets import default_datasets
from hierdoc.models import EmbedInput
from hierdoc.pipeline.embed import LocalEmbedder
from hierdoc.store.local.vectors import VectorIndex

K = 10
OVERLAP = 32
Qrels = dict[str, dict[str, int]]
Run = dict[str, list[str]]
Scores = dict[str, tuple[float, float]]  # query id -> (nDCG@10, Recall@10)
BOOTSTRAP = 10_000
T = TypeVar("T")


@dataclass
class Data:
    doc_ids: list[str]
    titles: list[str]
    texts: list[str]
    queries: dict[str, str]
    qrels: Qrels


@dataclass
class Strategy:
    name: str
    vectors: list[np.ndarray]  # one (windows, dimension) array per document
    seconds: float
    texts_embedded: int
    note: str = ""


# -- data ---------------------------------------------------------------------


def default_scifact() -> Path:
    return (default_datasets() / "scifact").resolve()


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def read_qrels(path: Path) -> Qrels:
    qrels: Qrels = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = int(row["score"])
    return qrels


def load_subset(directory: Path, distractors: int, seed: int) -> Data:
    """Judged documents plus ``distractors`` random unjudged ones; judged test queries."""
    qrels = read_qrels(directory / "qrels" / "test.tsv")
    corpus = {d["_id"]: d for d in read_jsonl(directory / "corpus.jsonl")}
    judged = sorted({doc for rels in qrels.values() for doc in rels if doc in corpus})
    others = sorted(set(corpus) - set(judged))
    picked = random.Random(seed).sample(others, min(distractors, len(others)))
    doc_ids = judged + sorted(picked)
    queries = {q["_id"]: q["text"] for q in read_jsonl(directory / "queries.jsonl")}
    queries = {qid: text for qid, text in queries.items() if qid in qrels}
    return Data(
        doc_ids=doc_ids,
        titles=[corpus[d]["title"] for d in doc_ids],
        texts=[corpus[d]["text"] for d in doc_ids],
        queries=queries,
        qrels={qid: qrels[qid] for qid in queries},
    )


# -- strategies ---------------------------------------------------------------


def timed(function: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    result = function()
    return result, time.perf_counter() - start


def embed_truncated(embedder: LocalEmbedder, data: Data) -> Strategy:
    """One vector per document; sentence-transformers truncates at max_seq_length."""
    texts = [f"{title}\n{text}" for title, text in zip(data.titles, data.texts, strict=True)]
    # the embedder's own encode (same batch size, normalisation), without the windowing
    matrix, seconds = timed(lambda: embedder._encode(texts))
    return Strategy("truncate", [row[None, :] for row in matrix], seconds, len(texts))


def embed_windows(embedder: LocalEmbedder, data: Data) -> Strategy:
    """hierdoc's own path: ``LocalEmbedder.embed_documents`` on title-prefixed windows."""
    inputs = [EmbedInput(title, text) for title, text in zip(data.titles, data.texts, strict=True)]
    before = embedder.texts_embedded
    vectors, seconds = timed(lambda: embedder.embed_documents(inputs))
    return Strategy("windows-max", vectors, seconds, embedder.texts_embedded - before)


def mean_of_windows(windows: Strategy) -> Strategy:
    """The same window vectors, averaged per document and re-normalised."""
    vectors = []
    for block in windows.vectors:
        average = block.mean(axis=0)
        vectors.append((average / np.linalg.norm(average))[None, :].astype(np.float32))
    return Strategy(
        "windows-mean", vectors, windows.seconds, windows.texts_embedded, "same windows"
    )


def retrieve(strategy: Strategy, data: Data, queries: dict[str, np.ndarray]) -> Run:
    """Top-K document ids per query through hierdoc's ``VectorIndex`` (max over windows)."""
    with tempfile.TemporaryDirectory() as directory:
        index = VectorIndex(Path(directory), queries[next(iter(queries))].shape[0])
        index.replace(set(), list(zip(data.doc_ids, strategy.vectors, strict=True)), generation=0)
        return {qid: [hit.chunk_id for hit in index.search(v, K)] for qid, v in queries.items()}


# -- metrics ------------------------------------------------------------------


def ndcg_at_k(ranked: list[str], relevance: dict[str, int], k: int = K) -> float:
    """nDCG@k with linear gain: DCG = sum_{i=1..k} rel_i / log2(i + 1).

    ``rel_i`` is the qrels score of the document at rank ``i`` (0 when unjudged);
    IDCG is the DCG of the qrels' own scores sorted in decreasing order, cut at k.
    This is what BEIR reports (trec_eval ``ndcg_cut``), for a single query.
    """
    dcg = sum(relevance.get(doc, 0) / math.log2(i + 1) for i, doc in enumerate(ranked[:k], 1))
    ideal = sorted((r for r in relevance.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 1) for i, r in enumerate(ideal, 1))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: list[str], relevance: dict[str, int], k: int = K) -> float:
    """Share of the relevant (score > 0) documents found in the top k."""
    relevant = {doc for doc, r in relevance.items() if r > 0}
    return len(relevant.intersection(ranked[:k])) / len(relevant) if relevant else 0.0


def per_query(run: Run, qrels: Qrels) -> Scores:
    return {
        qid: (ndcg_at_k(run[qid], rels), recall_at_k(run[qid], rels)) for qid, rels in qrels.items()
    }


def mean(scores: Scores, qids: list[str], which: int) -> float:
    return float(np.mean([scores[q][which] for q in qids])) if qids else float("nan")


# -- report -------------------------------------------------------------------


def machine() -> str:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    python = sys.version.split()[0]
    return f"nproc {len(os.sched_getaffinity(0))}, {model}, {platform.platform()}, Python {python}"


def wins(scores: Scores, baseline: Scores, qids: list[str]) -> str:
    """Queries where nDCG@10 is higher / equal / lower than the baseline's."""
    better = sum(scores[q][0] > baseline[q][0] + 1e-9 for q in qids)
    worse = sum(scores[q][0] < baseline[q][0] - 1e-9 for q in qids)
    return f"{better}/{len(qids) - better - worse}/{worse}"


def delta_ci(scores: Scores, baseline: Scores, qids: list[str], seed: int) -> str:
    """Mean per-query nDCG@10 difference with a 95% paired bootstrap interval over queries."""
    diffs = np.array([scores[q][0] - baseline[q][0] for q in qids])
    if not len(diffs):
        return "n/a"
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), (BOOTSTRAP, len(diffs)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return f"{diffs.mean():+.4f} [{low:+.4f}, {high:+.4f}]"


def print_header(data: Data, windows: Strategy, lengths: list[int], limit: int) -> None:
    counts = [len(block) for block in windows.vectors]
    print(f"command: python {shlex.join(sys.argv)}")
    print(f"date: {dt.datetime.now().astimezone().isoformat(timespec='seconds')}")
    print(f"machine: {machine()}")
    print(
        f"corpus: {len(data.doc_ids)} docs; {np.mean([n > limit for n in lengths]):.1%} longer "
        f"than {limit} tokens (title + abstract; median {np.median(lengths):.0f}, "
        f"max {max(lengths)}); windows/doc mean {np.mean(counts):.2f}, max {max(counts)}"
    )


def print_quality(
    strategies: list[Strategy], scores: dict[str, Scores], groups: dict[str, list[str]], seed: int
) -> None:
    sizes = ", ".join(f"{name}: {len(qids)}" for name, qids in groups.items())
    print(f"queries ({sizes}); long = has a relevant doc the model would truncate\n")
    print(
        "| strategy | nDCG@10 all | R@10 all | nDCG@10 long | R@10 long | "
        "ΔnDCG@10 vs truncate all [95% CI] | Δ long [95% CI] | win/tie/loss all; long |"
    )
    print("|---|---|---|---|---|---|---|---|")
    base = scores["truncate"]
    for s in strategies:
        sc = scores[s.name]
        cells = [f"{mean(sc, qids, m):.4f}" for qids in groups.values() for m in (0, 1)]
        cells += [delta_ci(sc, base, qids, seed) for qids in groups.values()]
        cells.append("; ".join(wins(sc, base, qids) for qids in groups.values()))
        print(f"| {s.name} | " + " | ".join(cells) + " |")


def print_cost(strategies: list[Strategy], documents: int) -> None:
    print("\n| strategy | texts embedded | embed s | texts/s | docs/s |")
    print("|---|---|---|---|---|")
    for s in strategies:
        note = f" ({s.note})" if s.note else ""
        print(
            f"| {s.name}{note} | {s.texts_embedded} | {s.seconds:.1f} | "
            f"{s.texts_embedded / s.seconds:.1f} | {documents / s.seconds:.1f} |"
        )


# -- main ---------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scifact", type=Path, default=default_scifact(), help="BEIR SciFact dir")
    parser.add_argument("--distractors", type=int, default=1500, help="random unjudged docs")
    parser.add_argument("--seed", type=int, default=13, help="seed for the distractor sample")
    parser.add_argument("--batch-size", type=int, default=32)
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    data = load_subset(args.scifact, args.distractors, args.seed)
    embedder = LocalEmbedder(batch_size=args.batch_size, window_overlap=OVERLAP)
    limit = embedder.max_input_tokens
    tokenizer = embedder._tokenizer  # the one the windows are cut with
    lengths = tokenizer.count_batch(
        [f"{t}\n{x}" for t, x in zip(data.titles, data.texts, strict=True)]
    )
    long_ids = {d for d, n in zip(data.doc_ids, lengths, strict=True) if n > limit}
    long_qids = [q for q, rels in data.qrels.items() if long_ids.intersection(rels)]

    queries = {qid: embedder.embed_query(text) for qid, text in data.queries.items()}
    truncated = embed_truncated(embedder, data)
    windows = embed_windows(embedder, data)
    strategies = [truncated, windows, mean_of_windows(windows)]
    scores = {s.name: per_query(retrieve(s, data, queries), data.qrels) for s in strategies}
    print_header(data, windows, lengths, limit)
    print_quality(strategies, scores, {"all": list(data.qrels), "long": long_qids}, args.seed)
    print_cost(strategies, len(data.doc_ids))


if __name__ == "__main__":
    main()
