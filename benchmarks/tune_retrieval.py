"""``hierdoc tune`` measured on a question set: retrieval before and after, training time.

    python benchmarks/tune_retrieval.py                      # ObliQA dev, its 40 documents
    python benchmarks/tune_retrieval.py --documents 4        # the first 4 and their questions
    python benchmarks/tune_retrieval.py --documents 4 --folds 2
    python benchmarks/tune_retrieval.py --documents 2 --max-pairs 400
    python benchmarks/tune_retrieval.py --form passages --folds 2 --fold 1 --no-mined-run \
        --bm25-negatives --keep DIR

The documents are indexed as ``hierdoc eval --dataset obliqa-documents`` indexes them (the
same cached index and embeddings under ``--index-dir``), copied, and the copy is tuned
on pairs mined from its structure alone (``Index.tune``, default options); the questions
are searched before and after (hybrid and semantic), judged by containment as the eval
judges them (a returned chunk holds the gold passage).

``--folds N`` adds cross-validation with the questions as user pairs: the questions are
split into N folds (seed 0); for each, a fresh copy is tuned on the mined pairs plus the
other folds' questions paired with their gold passages (``--pairs``), and measured on
the fold's questions only. The dev questions are never trained on otherwise.

``--form passages`` does the same on ObliQA's passage form (``hierdoc eval --dataset
obliqa``: the 13,012 passages as given chunks, judged by id with Recall@10 and MAP@10),
searching in hybrid, semantic and keyword mode; a question's pairs there hold its gold
passages' text as the index stores it. ``--bm25-negatives`` gives each question pair a hard
negative: the first keyword result of the base index that is not one of its gold passages.
``--fold K`` runs only fold K (1-based), ``--no-mined-run`` skips the tune on mined pairs
alone, ``--keep DIR`` keeps the tuned copies (``DIR/fold<K>``) and measures a copy found
there instead of tuning it again.
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
from hierdoc.eval.obliqa import load_obliqa_documents, load_obliqa_passages
from hierdoc.eval.runner import score_method
from hierdoc.eval.variants import hierdoc_method, ingest_key, resolve_variants
from hierdoc.pipeline.embed import LocalEmbedder

MODES = {"documents": ("hybrid", "semantic"), "passages": ("hybrid", "semantic", "keyword")}


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
    """Each mode's mean metrics over ``queries`` on the index at ``directory``."""
    form = "passages" if corpus.unit == "chunk" else "documents"
    with Index.open(directory, Settings(), mode="r") as index:
        table = ChunkTable.load(index, corpus)
        figures = {}
        for variant in resolve_variants(list(MODES[form])):
            metrics, _, _ = score_method(corpus, hierdoc_method(index, variant), queries, table)
            figures[variant.name] = {m: round(metrics[m], 4) for m in corpus.metrics}
        return figures


def progress_lines(wait_for: int | None) -> Any:
    """A tune progress callback printing every tenth step and chunk; when ``wait_for`` is
    a process id, re-embedding waits for that process to end (one embedding job at a time
    on a shared machine, while training may overlap)."""
    shown: dict[str, int] = {}

    def on_progress(stage: str, done: int, total: int) -> None:
        if stage == "embed" and wait_for and "waited" not in shown:
            while Path(f"/proc/{wait_for}").exists():
                time.sleep(10)
            shown["waited"] = 1
        if done == total or done >= shown.get(stage, 0) + max(1, total // 10):
            shown[stage] = done
            print(f"{time.strftime('%H:%M:%S')} {stage} {done}/{total}", flush=True)

    return on_progress


def tuned_copy(
    source: Path,
    target: Path,
    options: dict[str, Any],
    pairs: Path | None = None,
    wait_for: int | None = None,
) -> dict[str, Any]:
    """A copy of the index at ``source`` tuned with ``options`` (as for ``Index.tune``)."""
    shutil.copytree(source, target)
    started = time.perf_counter()
    with Index.open(target, Settings()) as index:
        report = index.tune(pairs, progress=progress_lines(wait_for), **options)
    data = report.to_dict()
    data["wall_seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(data), flush=True)
    return data


class PairWriter:
    """Writes a question's pairs: the question against each of its gold passages, as the
    corpus judges them (a passage's text for containment, the stored chunk's text for
    chunk ids), with a BM25 hard negative when ``negatives`` is set."""

    def __init__(
        self, base: Path, corpus: EvalCorpus, negatives: bool, wait_for: int | None = None
    ) -> None:
        self.base, self.corpus, self.negatives = base, corpus, negatives
        self.wait_for = wait_for
        """A process whose end the tune waits for before re-embedding (``--wait-for``)."""
        self.texts: dict[str, str] = {}
        if corpus.unit == "chunk":
            with Index.open(base, Settings(), mode="r") as index:
                self.texts = {s.chunk.chunk_id: s.chunk.content for s in index.iter_chunks()}

    def write(self, queries: list, path: Path) -> int:
        count = 0
        with Index.open(self.base, Settings(), mode="r") as index, path.open("w") as out:
            for query in queries:
                golds = [self.texts.get(g, g) for g in query.relevant]
                negative = self._negative(index, query.text, set(query.relevant), golds)
                for passage in golds:
                    record = {"query": query.text, "passage": passage}
                    if negative:
                        record["negative"] = negative
                    out.write(json.dumps(record) + "\n")
                    count += 1
        return count

    def _negative(self, index: Index, text: str, ids: set[str], golds: list[str]) -> str | None:
        """The first keyword result that is neither a gold chunk nor holds a gold passage."""
        if not self.negatives:
            return None
        for result in index.search(text, top_k=10, mode="keyword").results:
            content = result.content
            if result.chunk_id not in ids and not any(g in content for g in golds):
                return content
        return None


def load_corpus(args: argparse.Namespace) -> EvalCorpus:
    if args.form == "passages":
        corpus = load_obliqa_passages(dataset_path("obliqa"), "dev")
    else:
        corpus = load_obliqa_documents(dataset_path("obliqa-documents"), "dev")
    return first_documents(corpus, args.documents) if args.documents else corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--form", choices=sorted(MODES), default="documents")
    parser.add_argument("--documents", type=int, help="Only the first N documents.")
    parser.add_argument("--folds", type=int, default=0, help="Cross-validate on the questions.")
    parser.add_argument("--fold", type=int, help="Run only this fold (1-based).")
    parser.add_argument("--no-mined-run", action="store_true", help="No tune on mined pairs alone.")
    parser.add_argument("--bm25-negatives", action="store_true", help="Hard negatives by BM25.")
    parser.add_argument("--keep", type=Path, help="Keep (and re-use) the tuned copies here.")
    parser.add_argument("--wait-for", type=int, help="Re-embed once this process has ended.")
    parser.add_argument("--index-dir", type=Path, default=Path("/tmp/hierdoc-eval"))
    parser.add_argument("--max-pairs", type=int, default=4000, help="As for hierdoc tune.")
    parser.add_argument("--epochs", type=int, default=1, help="As for hierdoc tune.")
    parser.add_argument("--learning-rate", type=float, default=2e-5, help="As for hierdoc tune.")
    parser.add_argument("--no-hard-negatives", action="store_true", help="As for hierdoc tune.")
    parser.add_argument("--no-mined", action="store_true", help="As for hierdoc tune.")
    parser.add_argument("--base-weight", type=float, default=0.0, help="As for hierdoc tune.")
    args = parser.parse_args()
    options = {"max_pairs": args.max_pairs, "learning_rate": args.learning_rate}
    options.update(epochs=args.epochs, hard_negatives=not args.no_hard_negatives)
    options.update(mined=not args.no_mined, base_weight=args.base_weight)
    corpus = load_corpus(args)
    base = base_index(corpus, args.index_dir / "obliqa")
    queries = list(corpus.queries)
    print(f"{corpus.name}: {len(corpus.documents)} documents, {len(queries)} questions")
    result: dict[str, Any] = {"corpus": corpus.name, "questions": len(queries), "options": options}
    with tempfile.TemporaryDirectory(prefix="tune-bench-") as work:
        work_dir = args.keep or Path(work)
        work_dir.mkdir(parents=True, exist_ok=True)
        if not args.no_mined_run:
            result["before"] = measured(base, corpus, queries)
            print("before", json.dumps(result["before"]), flush=True)
            result["tune"] = tuned_copy(base, work_dir / "mined", options, None, args.wait_for)
            result["after"] = measured(work_dir / "mined", corpus, queries)
            print("after (mined pairs)", json.dumps(result["after"]), flush=True)
        if args.folds:
            writer = PairWriter(base, corpus, args.bm25_negatives, args.wait_for)
            chosen = [args.fold] if args.fold else list(range(1, args.folds + 1))
            result["folds"] = [
                one_fold(base, corpus, queries, (k, args.folds), work_dir, options, writer)
                for k in chosen
            ]
    print(json.dumps(result, indent=2))


def fold_split(queries: list, fold: int, folds: int) -> tuple[list, list]:
    """Fold ``fold`` (1-based) of ``folds``: its held-out questions and the rest (seed 0)."""
    order = list(range(len(queries)))
    random.Random(0).shuffle(order)
    chosen = set(order[fold - 1 :: folds])
    held = [q for n, q in enumerate(queries) if n in chosen]
    return held, [q for n, q in enumerate(queries) if n not in chosen]


def one_fold(
    base: Path,
    corpus: EvalCorpus,
    queries: list,
    fold: tuple[int, int],
    work: Path,
    options: dict[str, Any],
    writer: PairWriter,
) -> dict[str, Any]:
    """Tune a copy on the mined pairs plus the other folds' question pairs (unless a kept
    copy is there) and measure the fold's questions before and after."""
    held, trained = fold_split(queries, *fold)
    target = work / f"fold{fold[0]}"
    run: dict[str, Any] = {"kept": str(target)}
    if not target.exists():
        pairs = work / f"fold{fold[0]}.jsonl"
        run["given_pairs"] = writer.write(trained, pairs)
        run.update(tuned_copy(base, target, options, pairs, writer.wait_for))
    fold_before = measured(base, corpus, held)
    fold_after = measured(target, corpus, held)
    print(f"fold {fold[0]}", json.dumps({"before": fold_before, "after": fold_after}), flush=True)
    return {"questions": len(held), "before": fold_before, "after": fold_after, "tune": run}


if __name__ == "__main__":
    main()
