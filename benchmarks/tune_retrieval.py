"""``hierdoc tune`` measured on a question set: retrieval before and after, training time.

    python benchmarks/tune_retrieval.py                      # ObliQA dev, its 40 documents
    python benchmarks/tune_retrieval.py --documents 4        # the first 4 and their questions
    python benchmarks/tune_retrieval.py --documents 4 --folds 2
    python benchmarks/tune_retrieval.py --documents 2 --max-pairs 400

The documents are indexed as ``hierdoc eval --dataset obliqa-documents`` indexes them (the
same cached index and embeddings under ``--index-dir``), copied, and the copy is tuned
on pairs mined from its structure alone (``Index.tune``, default options); the questions
are searched before and after (hybrid and semantic), judged by containment as the eval
judges them (a returned chunk holds the gold passage).

``--folds N`` adds cross-validation with the questions as user pairs: the questions are
split into N folds (seed 0); for each, a fresh copy is tuned on the mined pairs plus the
other folds' questions paired with their gold passages (``--pairs``), and measured on
the fold's questions only. The dev questions are never trained on otherwise.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from hierdoc import Index, Settings
from hierdoc.eval.datasets import EvalCorpus, dataset_path, first_documents
from hierdoc.eval.embed_cache import CachingEmbedder
from hierdoc.eval.indexes import open_index
from hierdoc.eval.judging import ChunkTable
from hierdoc.eval.obliqa import load_obliqa_documents
from hierdoc.eval.runner import score_method
from hierdoc.eval.variants import hierdoc_method, ingest_key, resolve_variants
from hierdoc.pipeline.embed import LocalEmbedder

MODES = ("hybrid", "semantic")
METRICS = ("R@1", "R@10", "MRR@10")


def base_index(corpus: EvalCorpus, root: Path) -> Path:
    """The eval's index of ``corpus`` (built, or found cached under ``root``)."""
    embedder = CachingEmbedder(LocalEmbedder(), root / "embeddings.sqlite")
    try:
        opened = open_index(corpus, ingest_key(Settings(), corpus), root, embedder, print)
        opened.index.close()
    finally:
        embedder.close()
    return Path(opened.info.directory)


def measured(directory: Path, corpus: EvalCorpus, queries: list) -> dict[str, dict[str, float]]:
    with Index.open(directory, Settings(), mode="r") as index:
        table = ChunkTable.load(index, corpus)
        figures = {}
        for variant in resolve_variants(list(MODES)):
            metrics, _, _ = score_method(corpus, hierdoc_method(index, variant), queries, table)
            figures[variant.name] = {m: round(metrics[m], 4) for m in METRICS}
        return figures


def tuned_copy(
    source: Path, target: Path, options: dict[str, Any], pairs: Path | None = None
) -> dict[str, Any]:
    """A copy of the index at ``source`` tuned with ``options`` (as for ``Index.tune``)."""
    shutil.copytree(source, target)
    started = time.perf_counter()
    with Index.open(target, Settings()) as index:
        report = index.tune(pairs, **options)
    data = report.to_dict()
    data["wall_seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(data), flush=True)
    return data


def question_pairs(queries: list, path: Path) -> None:
    """Each question paired with each of its gold passages (the judged keys are the
    passages' text, whitespace normalised), as JSONL."""
    with path.open("w") as out:
        for query in queries:
            for passage in query.relevant:
                out.write(json.dumps({"query": query.text, "passage": passage}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, help="Only the first N documents.")
    parser.add_argument("--folds", type=int, default=0, help="Cross-validate on the questions.")
    parser.add_argument("--index-dir", type=Path, default=Path("/tmp/hierdoc-eval"))
    parser.add_argument("--max-pairs", type=int, default=4000, help="As for hierdoc tune.")
    parser.add_argument("--learning-rate", type=float, default=2e-5, help="As for hierdoc tune.")
    parser.add_argument("--no-hard-negatives", action="store_true", help="As for hierdoc tune.")
    args = parser.parse_args()
    options = {"max_pairs": args.max_pairs, "learning_rate": args.learning_rate}
    options["hard_negatives"] = not args.no_hard_negatives
    corpus = load_obliqa_documents(dataset_path("obliqa-documents"), "dev")
    if args.documents:
        corpus = first_documents(corpus, args.documents)
    root = args.index_dir / "obliqa"
    base = base_index(corpus, root)
    queries = list(corpus.queries)
    print(f"{corpus.name}: {len(corpus.documents)} documents, {len(queries)} questions")
    with tempfile.TemporaryDirectory(prefix="tune-bench-") as work:
        work_dir = Path(work)
        before = measured(base, corpus, queries)
        print("before", json.dumps(before), flush=True)
        run = tuned_copy(base, work_dir / "mined", options)
        after = measured(work_dir / "mined", corpus, queries)
        print("after (mined pairs)", json.dumps(after), flush=True)
        result = {"corpus": corpus.name, "questions": len(queries), "before": before}
        result.update({"after": after, "tune": run})
        if args.folds:
            folds = cross_validated(base, corpus, queries, args.folds, work_dir, options)
            result["folds"] = folds
    print(json.dumps(result, indent=2))


def cross_validated(
    base: Path, corpus: EvalCorpus, queries: list, folds: int, work: Path, options: dict[str, Any]
) -> list[dict[str, Any]]:
    order = list(range(len(queries)))
    random.Random(0).shuffle(order)
    results = []
    for fold in range(folds):
        chosen = set(order[fold::folds])
        held = [q for n, q in enumerate(queries) if n in chosen]
        pairs = work / f"fold{fold}.jsonl"
        question_pairs([q for n, q in enumerate(queries) if n not in chosen], pairs)
        run = tuned_copy(base, work / f"fold{fold}", options, pairs)
        fold_before = measured(base, corpus, held)
        fold_after = measured(work / f"fold{fold}", corpus, held)
        print(f"fold {fold}", json.dumps({"before": fold_before, "after": fold_after}), flush=True)
        results.append(
            {"questions": len(held), "before": fold_before, "after": fold_after, "tune": run}
        )
    return results


if __name__ == "__main__":
    main()
