"""Scale: a corpus of synthetic formal documents at each size, indexed and searched by
the whole pipeline, with rank_bm25 + numpy + RRF (HoloDeck 0.7.1's hybrid) beside it.

Each act is Markdown: a title, a definitions article (quoted terms), articles with
numbered paragraphs and points, cross-references ("referred to in Article 7(2)"), words
drawn from a Zipf vocabulary. A stand-in embedder (384 dimensions, vectors drawn around
one of 256 centres picked by a hash of the text) replaces the model, so every other stage
runs for real; the time spent in it is measured and left out of "ingest chunks/s". Each
size runs in its own process, so its peak RSS is its own.

Reported per size: ingest chunks/s excluding embedding, index size, open time (a new
process opening the index), first query, p50/p95 per mode after a warm-up of as many
other queries (the stand-in's query embedding costs microseconds), changing one document,
re-ingesting the unchanged corpus, peak RSS; and at the sizes given by --baseline-sizes
the baseline's p50 per mode, and each modality's ranking alone beside the baseline's.

    python benchmarks/scale.py --sizes 10000,100000 [--queries 100] [--keep DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from hierdoc import Index, Settings
from hierdoc.models import EmbedInput

DIMENSION = 384
ARTICLES, PARAGRAPHS = 12, 3
VOCABULARY = [f"w{i}" for i in range(30_000)]
MODES = ("hybrid", "semantic", "keyword", "exact")
#: The warm-up's queries (as many as are measured, other ones of the same kinds) run before
#: any mode is timed, so that no mode pays for the process's first reads of the index.
WARMUP_SEED = 8


class StandInEmbedder:
    """Deterministic clustered vectors, timed: what the model would cost is not measured."""

    name = "bench:stand-in"
    dimension = DIMENSION

    def __init__(self) -> None:
        centres = np.random.default_rng(0).standard_normal((256, DIMENSION)).astype(np.float32)
        self.centres = centres / np.linalg.norm(centres, axis=1, keepdims=True)
        self.seconds = 0.0

    def _vector(self, text: str) -> np.ndarray:
        digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
        seed = int.from_bytes(digest, "little")
        noise = np.random.default_rng(seed).standard_normal(DIMENSION).astype(np.float32)
        vector = self.centres[seed % 256] + 0.05 * noise
        return vector / np.linalg.norm(vector)

    def embed_documents(self, inputs: Sequence[EmbedInput]) -> list[np.ndarray]:
        started = time.perf_counter()
        out = [self._vector(f"{i.context}\n{i.text}")[None, :] for i in inputs]
        self.seconds += time.perf_counter() - started
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)


def act(number: int, rng: np.random.Generator, cdf: np.ndarray) -> str:
    """One act; ``cdf`` is the cumulative Zipf distribution of :data:`VOCABULARY`."""

    def words(count: int) -> str:
        # what rng.choice(len(VOCABULARY), count, p=weights) draws, without its O(V) set-up
        return " ".join(VOCABULARY[i] for i in cdf.searchsorted(rng.random(count), side="right"))

    lines = [f"# Act {number} on {words(3)}", "", "## Article 1 Definitions", ""]
    for term in range(4):
        lines.append(f"({term + 1}) “Term {number}-{term}” means {words(25)};")
    for article in range(2, ARTICLES + 1):
        lines += ["", f"## Article {article} {words(3).title()}", ""]
        for paragraph in range(1, PARAGRAPHS + 1):
            target = rng.integers(1, ARTICLES + 1)
            lines.append(
                f"{paragraph}. {words(60)}, as referred to in Article {target}({paragraph}). "
                f"{words(40)}:"
            )
            lines += [f"(a) {words(20)};", f"(b) {words(20)}."]
    return "\n".join(lines) + "\n"


def write_corpus(folder: Path, acts: int) -> None:
    rng = np.random.default_rng(1)
    ranks = np.arange(1, len(VOCABULARY) + 1)
    weights = (1 / ranks) / (1 / ranks).sum()
    cdf = weights.cumsum()
    cdf /= cdf[-1]
    for number in range(acts):
        (folder / f"act-{number:06d}.md").write_text(act(number, rng, cdf))


def percentiles(run: Callable[[int], object], count: int) -> tuple[float, float]:
    times = []
    for i in range(count):
        started = time.perf_counter()
        run(i)
        times.append((time.perf_counter() - started) * 1000)
    return float(np.percentile(times, 50)), float(np.percentile(times, 95))


def queries(count: int, acts: int, seed: int = 7) -> list[str]:
    """The measured mix: cited articles, defined terms, word queries; another ``seed`` gives
    other queries of the same kinds (the warm-up)."""
    rng = np.random.default_rng(seed)
    found = []
    for i in range(count):
        kind = i % 4
        if kind == 0:
            found.append(f"Article {rng.integers(2, ARTICLES + 1)}({rng.integers(1, 4)})")
        elif kind == 1:
            found.append(f"what does Term {rng.integers(0, acts)}-{rng.integers(0, 4)} mean")
        else:
            found.append(" ".join(f"w{rng.integers(20, 3000)}" for _ in range(4)))
    return found


def folder_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def measure(size: int, count: int, baseline: bool, keep: Path | None = None) -> dict:
    """One size, in this process (run through a subprocess by :func:`main`). With ``keep``,
    the corpus and index are built in that folder and left there, or, when it already
    holds them, reused without ingesting (to iterate on search)."""
    acts = max(1, round(size / chunks_per_act()))
    work = keep or Path(tempfile.mkdtemp(prefix="hierdoc-scale-"))
    directory = work / "index"
    row: dict = {"acts": acts}
    if not (directory / "records.sqlite").is_file():
        row |= build(work, acts)
    row |= open_and_search(directory, count, acts)
    if baseline:
        row |= baseline_design(directory, count, acts)
    row["peak RSS MB"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    if keep is None:
        shutil.rmtree(work, ignore_errors=True)
    return row


def build(work: Path, acts: int) -> dict:
    """Write the corpus, ingest it, change one document (the folder ingested, then the file
    alone), re-ingest it unchanged."""
    corpus, directory = work / "corpus", work / "index"
    corpus.mkdir(parents=True, exist_ok=True)
    write_corpus(corpus, acts)
    embedder = StandInEmbedder()
    row: dict = {}
    with Index.open(directory, Settings(), embedder=embedder, mode="w") as index:  # type: ignore[arg-type]
        started = time.perf_counter()
        report = index.ingest(corpus)
        total = time.perf_counter() - started
        chunks = index.stats().chunks
        row |= {
            "chunks": chunks,
            "ingest s": round(total, 1),
            "embed s": round(embedder.seconds, 1),
        }
        row["chunks/s excl. embedding"] = round(chunks / max(total - embedder.seconds, 1e-9))
        assert not report.problems, report.problems[:3]
        edited = corpus / "act-000000.md"
        row["change one doc s (excl. embedding)"] = change_seconds(
            index, embedder, edited, corpus, "A closing sentence added to the act."
        )
        row["change one doc, that file ingested s (excl. embedding)"] = change_seconds(
            index, embedder, edited, edited, "Another sentence added to the act."
        )
        started = time.perf_counter()
        index.ingest(corpus)
        row["re-ingest unchanged s"] = round(time.perf_counter() - started, 2)
    row["index MB"] = round(folder_mb(directory))
    return row


def change_seconds(
    index: Index, embedder: StandInEmbedder, edited: Path, ingested: Path, sentence: str
) -> float:
    """Append ``sentence`` to ``edited``, ingest ``ingested`` (its folder or itself): seconds,
    the embedding left out."""
    edited.write_text(edited.read_text() + f"\n{sentence}\n")
    embedder.seconds = 0.0
    started = time.perf_counter()
    index.ingest(ingested)
    return round(time.perf_counter() - started - embedder.seconds, 2)


def chunks_per_act() -> int:
    """Measured: 770 acts make 17,710 chunks at the default settings (the definitions, each
    article's paragraphs and the title split at the 800-token budget)."""
    return 23


def open_and_search(directory: Path, count: int, acts: int) -> dict:
    embedder = StandInEmbedder()
    started = time.perf_counter()
    index = Index.open(directory, Settings(), embedder=embedder, mode="r")  # type: ignore[arg-type]
    opened = time.perf_counter() - started
    texts = queries(count, acts)
    started = time.perf_counter()
    index.search(texts[0])
    row = {
        "open ms": round(opened * 1000),
        "first query ms": round((time.perf_counter() - started) * 1000),
    }
    for i, text in enumerate(queries(count, acts, seed=WARMUP_SEED)):
        index.search(text, mode=MODES[i % len(MODES)])
    for mode in MODES:
        p50, p95 = percentiles(lambda i, m=mode: index.search(texts[i], mode=m), count)
        row[f"{mode} p50/p95 ms"] = f"{p50:.1f} / {p95:.1f}"
    index.close()
    return row


def baseline_design(directory: Path, count: int, acts: int) -> dict:
    """rank_bm25 + numpy + RRF's p50 per mode, then each modality's ranking alone beside it."""
    from hierdoc.eval.baselines import Bm25NumpyRrf, ChunkData
    from hierdoc.eval.datasets import EvalQuery

    embedder = StandInEmbedder()
    with Index.open(directory, Settings(), embedder=embedder, mode="r") as index:  # type: ignore[arg-type]
        started = time.perf_counter()
        baseline = Bm25NumpyRrf(ChunkData.load(index), embedder.embed_query)
        row = {"baseline: build s": round(time.perf_counter() - started, 1)}
        texts = [EvalQuery(str(i), q, {}) for i, q in enumerate(queries(count, acts))]
        for i, text in enumerate(queries(count, acts, seed=WARMUP_SEED)):
            getattr(baseline, MODES[i % 3])(EvalQuery("warm-up", text, {}), 10)
        for mode in ("hybrid", "semantic", "keyword"):
            run = getattr(baseline, mode)
            p50, p95 = percentiles(lambda i, r=run: r(texts[i], 10), count)
            row[f"baseline: {mode} p50/p95 ms"] = f"{p50:.1f} / {p95:.1f}"
        row |= rankings_alone(index, baseline, texts)
    return row


def rankings_alone(index: Index, baseline: object, texts: Sequence) -> dict:
    """What the baseline does per query, done by hierdoc's modalities: query text to
    the top 10 chunk ids, no results built (records, passages, definitions, notes). The
    baseline's functions and hierdoc's run in turn on each query (three rounds), so load
    falls on both alike."""
    from hierdoc.search.searcher import keyword_terms

    store, embed = index.store, index.embed_query
    ours = {
        "semantic": lambda text: store.vector_search(embed(text), 10, None),
        "keyword": lambda text: store.keyword_search(keyword_terms(store, text), 10, None),
    }
    row = {}
    for mode, run in ours.items():
        theirs = getattr(baseline, mode)
        times: dict[str, list[float]] = {"hierdoc": [], "baseline": []}
        for _ in range(3):
            for query in texts:
                times["hierdoc"].append(_timed(lambda r=run, q=query: r(q.text)))
                times["baseline"].append(_timed(lambda t=theirs, q=query: t(q, 10)))
        ours_p50, theirs_p50 = (float(np.percentile(times[k], 50)) for k in ("hierdoc", "baseline"))
        label = f"{mode} ranking alone p50 ms: hierdoc / baseline"
        row[label] = f"{ours_p50:.2f} / {theirs_p50:.2f}"
    return row


def _timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--baseline-sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--keep",
        type=Path,
        help="build each size's corpus and index in KEEP/<size> and keep them; reuse "
        "them (search only, no ingest figures) when they are there",
    )
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        baseline = str(args.one) in args.baseline_sizes.split(",")
        keep = args.keep / str(args.one) if args.keep else None
        print(json.dumps(measure(args.one, args.queries, baseline, keep)))
        return
    rows = []
    for size in args.sizes.split(","):
        command = [sys.executable, __file__, "--one", size, "--queries", str(args.queries),
                   "--baseline-sizes", args.baseline_sizes]  # fmt: skip
        command += ["--keep", str(args.keep)] if args.keep else []
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        rows.append({"target": int(size), **json.loads(done.stdout.strip().splitlines()[-1])})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    keys = list(dict.fromkeys(k for r in rows for k in r))
    print("| measure | " + " | ".join(f"{r['target']:,}" for r in rows) + " |")
    print("| --- |" + " --- |" * len(rows))
    for key in keys[1:]:
        print(f"| {key} | " + " | ".join(str(r.get(key, "")) for r in rows) + " |")


if __name__ == "__main__":
    main()
