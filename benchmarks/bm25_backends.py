"""Compare BM25 backends on a synthetic corpus: build time, size, query latency.

Backends: (a) tantivy through hierdoc's ``Bm25Index`` (the Python analyzer is part
of both build and query time), (b) SQLite FTS5 (porter tokenizer, OR query,
``ORDER BY rank``), (c) rank_bm25 ``BM25Okapi`` over the same analysed tokens
(in memory, only up to ``--rank-bm25-max`` chunks), (d) bm25s if installed.

The corpus is deterministic (fixed seed): 600-word chunks drawn Zipf-like from a
generated vocabulary (with English stop words at the top ranks and
inflected forms, so stemming has work to do), with legal identifiers such as
``403(b)(2)``, ``§ 4.2.1`` and ``2016/679`` sprinkled in.  Queries have 2-8 words,
one in five with an identifier.

    python benchmarks/bm25_backends.py --sizes 10000 100000 --queries 200 --out bench.md
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hierdoc.search.searcher import keyword_terms
from hierdoc.store.local.bm25 import Bm25Entry, Bm25Index
from hierdoc.text.analyze import ANALYZER_VERSION, analyze, analyze_words

# fmt: off
STOP = ["the", "of", "and", "to", "in", "a", "is", "that", "for", "be", "by", "or", "as", "with",
        "on", "this", "shall", "any", "such", "it", "not"]
# fmt: on
SUFFIXES = ["", "", "", "s", "ed", "ing", "ion", "ions", "ity", "ies", "er", "ment"]
BATCH = 1000


# -- synthetic corpus ----------------------------------------------------------


@dataclass
class Corpus:
    vocab: np.ndarray  # object array of words, most frequent first
    cdf: np.ndarray
    idents: list[str]
    seed: int
    words: int

    def batches(self, n: int) -> Iterator[list[tuple[str, str]]]:
        """Deterministic (chunk_id, text) batches; batch b is the same on every call."""
        for b, start in enumerate(range(0, n, BATCH)):
            rng = np.random.default_rng([self.seed, b])
            size = min(BATCH, n - start)
            ranks = np.searchsorted(self.cdf, rng.random((size, self.words)))
            tokens = self.vocab[ranks]
            picks = rng.integers(0, len(self.idents), (size, 5))
            slots = rng.integers(0, self.words, (size, 5))
            batch = []
            for i in range(size):
                row = tokens[i].tolist()
                for slot, pick in zip(slots[i], picks[i], strict=True):
                    row[slot] = self.idents[pick]
                batch.append((f"c{start + i}", " ".join(row)))
            yield batch


def make_corpus(seed: int, vocab_size: int, words: int) -> Corpus:
    rng = np.random.default_rng(seed)
    consonants = list("bcdfghjklmnprstvwz") + ["ch", "st", "tr", "pl", "gr"]
    vowels = list("aeiou") + ["ea", "ou", "io"]
    seen: set[str] = set(STOP)
    vocab = list(STOP)
    while len(vocab) < vocab_size:
        stem = "".join(
            rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.integers(1, 4))
        )
        word = stem + SUFFIXES[rng.integers(len(SUFFIXES))]
        if word not in seen:
            seen.add(word)
            vocab.append(word)
    weights = 1.0 / (np.arange(len(vocab)) + 2.7) ** 1.07  # Zipf-Mandelbrot
    idents = []
    for i in range(3000):
        kind = i % 4
        n = int(rng.integers(100, 9999))
        if kind == 0:
            idents.append(f"{n}({'abcdefgh'[i % 8]})({i % 9 + 1})")
        elif kind == 1:
            idents.append(f"§ {i % 40 + 1}.{i % 7 + 1}.{i % 5 + 1}")
        elif kind == 2:
            idents.append(f"{2000 + i % 25}/{n}")
        else:
            idents.append(f"Article {i % 99 + 1}({i % 5 + 1})({'abcd'[i % 4]})")
    return Corpus(np.array(vocab, dtype=object), np.cumsum(weights / weights.sum()), idents,
                  seed, words)  # fmt: skip


def make_queries(corpus: Corpus, count: int) -> list[str]:
    rng = np.random.default_rng([corpus.seed, 999_999])
    queries = []
    for i in range(count):
        n = int(rng.integers(2, 9))
        ranks = rng.integers(len(STOP), min(len(corpus.vocab), 20_000), n)
        words = [str(corpus.vocab[r]) for r in ranks]
        if i % 5 == 0:
            words[0] = corpus.idents[int(rng.integers(len(corpus.idents)))]
        queries.append(" ".join(words))
    return queries


# -- backends ------------------------------------------------------------------


class Backend:
    name = "?"
    size_label = "disk"

    def build(self, batches: Iterator[list[tuple[str, str]]]) -> float:
        """Index every batch; return the seconds spent (generation excluded)."""
        raise NotImplementedError

    def size_bytes(self) -> int:
        raise NotImplementedError

    def query(self, text: str) -> list[str]:
        raise NotImplementedError

    def close(self) -> None:
        pass


class TantivyBackend(Backend):
    name = "tantivy (hierdoc Bm25Index)"

    def __init__(self, workdir: Path) -> None:
        self.path = workdir / "tantivy"
        self.index = Bm25Index(self.path, ANALYZER_VERSION)

    def build(self, batches: Iterator[list[tuple[str, str]]]) -> float:
        spent = 0.0
        for batch in batches:
            t0 = time.perf_counter()  # analysing the text is part of building, as before
            entries = [
                Bm25Entry(cid, "synthetic", analyze(text), analyze_words(text))
                for cid, text in batch
            ]
            self.index.add(entries)
            spent += time.perf_counter() - t0
        t0 = time.perf_counter()
        self.index.commit(1)
        self.index.close()  # waits for background merges: part of the build
        self.index = Bm25Index(self.path, ANALYZER_VERSION)
        return spent + time.perf_counter() - t0

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.path.rglob("*") if p.is_file())

    def query(self, text: str) -> list[str]:
        return [h.chunk_id for h in self.index.search(keyword_terms(self.index, text), 10)]

    def close(self) -> None:
        self.index.close()


class Fts5Backend(Backend):
    name = "SQLite FTS5 (porter)"
    _WORD = re.compile(r"\w+")

    def __init__(self, workdir: Path) -> None:
        self.path = workdir / "fts5.sqlite"
        self.db = sqlite3.connect(self.path, check_same_thread=False)
        self.db.execute(
            "CREATE VIRTUAL TABLE chunks USING fts5("
            "chunk_id UNINDEXED, body, tokenize='porter unicode61')"
        )

    def build(self, batches: Iterator[list[tuple[str, str]]]) -> float:
        spent = 0.0
        for batch in batches:
            t0 = time.perf_counter()
            with self.db:
                self.db.executemany("INSERT INTO chunks(chunk_id, body) VALUES (?, ?)", batch)
            spent += time.perf_counter() - t0
        return spent

    def size_bytes(self) -> int:
        return self.path.stat().st_size

    def query(self, text: str) -> list[str]:
        terms = self._WORD.findall(text)
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        rows = self.db.execute(
            "SELECT chunk_id FROM chunks WHERE chunks MATCH ? ORDER BY rank LIMIT 10", (match,)
        )
        return [r[0] for r in rows]

    def close(self) -> None:
        self.db.close()


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class RankBm25Backend(Backend):
    name = "rank_bm25 BM25Okapi"
    size_label = "RAM"

    def __init__(self, workdir: Path) -> None:
        from rank_bm25 import BM25Okapi

        self._cls = BM25Okapi
        self.ids: list[str] = []
        self.bytes = 0

    def build(self, batches: Iterator[list[tuple[str, str]]]) -> float:
        spent, tokens = 0.0, []
        gc.collect()
        before = _rss()
        for batch in batches:
            t0 = time.perf_counter()
            tokens += [analyze(text) for _, text in batch]
            self.ids += [cid for cid, _ in batch]
            spent += time.perf_counter() - t0
        t0 = time.perf_counter()
        self.model = self._cls(tokens, k1=1.2, b=0.75)
        spent += time.perf_counter() - t0
        del tokens
        gc.collect()
        self.bytes = max(0, _rss() - before)
        return spent

    def size_bytes(self) -> int:
        return self.bytes

    def query(self, text: str) -> list[str]:
        scores = self.model.get_scores(list(dict.fromkeys(analyze(text))))
        top = np.argsort(-scores)[:10]
        return [self.ids[i] for i in top if scores[i] > 0]


class Bm25sBackend(Backend):
    name = "bm25s"
    size_label = "RAM"

    def __init__(self, workdir: Path) -> None:
        import bm25s  # noqa: F401 - ImportError means "skip"

        self.ids: list[str] = []
        self.bytes = 0

    def build(self, batches: Iterator[list[tuple[str, str]]]) -> float:
        import bm25s

        texts: list[str] = []
        for batch in batches:
            texts += [text for _, text in batch]
            self.ids += [cid for cid, _ in batch]
        gc.collect()
        before = _rss()
        t0 = time.perf_counter()
        self.model = bm25s.BM25(k1=1.2, b=0.75)
        self.model.index(bm25s.tokenize(texts, stopwords="en", show_progress=False),
                         show_progress=False)  # fmt: skip
        spent = time.perf_counter() - t0
        del texts
        gc.collect()
        self.bytes = max(0, _rss() - before)
        return spent

    def size_bytes(self) -> int:
        return self.bytes

    def query(self, text: str) -> list[str]:
        import bm25s

        tokens = bm25s.tokenize([text], stopwords="en", show_progress=False)
        k = min(10, len(self.ids))
        docs, _ = self.model.retrieve(tokens, k=k, show_progress=False)
        return [self.ids[int(i)] for i in docs[0]]


# -- measurement ---------------------------------------------------------------


@dataclass
class Row:
    size: int
    backend: str
    build_s: float
    size_bytes: int
    size_label: str
    p50_ms: float
    p95_ms: float
    mean_ms: float
    results: list[list[str]]
    overlap: float | None = None  # mean top-10 overlap with tantivy's results
    note: str = ""


def measure(
    factory: Callable[[Path], Backend], corpus: Corpus, size: int, queries: list[str]
) -> Row:
    with tempfile.TemporaryDirectory(prefix="bm25bench-") as tmp:
        backend = factory(Path(tmp))
        try:
            build_s = backend.build(corpus.batches(size))
            size_bytes = backend.size_bytes()
            for q in queries[:5]:  # warm-up
                backend.query(q)
            latencies, results = [], []
            for q in queries:
                t0 = time.perf_counter()
                results.append(backend.query(q))
                latencies.append((time.perf_counter() - t0) * 1000)
        finally:
            backend.close()
            shutil.rmtree(tmp, ignore_errors=True)
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, int(round(0.95 * (len(latencies) - 1))))]
    return Row(size, backend.name, build_s, size_bytes, backend.size_label,
               statistics.median(latencies), p95, statistics.fmean(latencies),
               results)  # fmt: skip


def analyzer_throughput(corpus: Corpus, chunks: int = 2000) -> float:
    """Input words per second through ``analyze`` (warm stem cache)."""
    texts = [t for batch in corpus.batches(chunks) for _, t in batch]
    for t in texts[:200]:
        analyze(t)
    t0 = time.perf_counter()
    for t in texts:
        analyze(t)
    return len(texts) * corpus.words / (time.perf_counter() - t0)


def overlap(reference: list[list[str]], other: list[list[str]]) -> float:
    """Mean share of the reference's top-k results that ``other`` also returns."""
    shares = [len(set(a) & set(b)) / len(a) for a, b in zip(reference, other, strict=True) if a]
    return statistics.fmean(shares) if shares else 0.0


def ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}×" if base > 0 else "-"


def table(rows: list[Row]) -> str:
    lines = [
        "| chunks | backend | build s | vs tantivy | size MB | vs tantivy "
        "| p50 ms | vs tantivy | p95 ms | vs tantivy | mean ms | top-10 overlap |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    base: dict[int, Row] = {r.size: r for r in rows if r.backend.startswith("tantivy")}
    for r in rows:
        b = base.get(r.size)
        size = f"{r.size_bytes / 1e6:.1f}" + (" (RAM)" if r.size_label == "RAM" else "")
        cells = [
            f"{r.size:,}", r.backend + (f" ({r.note})" if r.note else ""),
            f"{r.build_s:.1f}", ratio(r.build_s, b.build_s) if b else "-",
            size, ratio(r.size_bytes, b.size_bytes) if b else "-",
            f"{r.p50_ms:.2f}", ratio(r.p50_ms, b.p50_ms) if b else "-",
            f"{r.p95_ms:.2f}", ratio(r.p95_ms, b.p95_ms) if b else "-",
            f"{r.mean_ms:.2f}", "-" if r.overlap is None else f"{r.overlap:.0%}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def machine() -> str:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if "model name" in line)
    except (OSError, StopIteration):
        pass
    import tantivy

    return (
        f"{os.cpu_count()} cores, {cpu}; Python {platform.python_version()}, "
        f"tantivy-py {getattr(tantivy, '__version__', '?')}, SQLite {sqlite3.sqlite_version}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--words", type=int, default=600, help="words per chunk")
    parser.add_argument("--vocab", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--rank-bm25-max", type=int, default=10_000,
                        help="largest size to run rank_bm25 on (slow, memory hungry)")  # fmt: skip
    parser.add_argument("--backends", nargs="+", default=["tantivy", "fts5", "rank_bm25", "bm25s"])
    parser.add_argument("--out", type=Path, help="also write the markdown report here")
    args = parser.parse_args(argv)

    corpus = make_corpus(args.seed, args.vocab, args.words)
    queries = make_queries(corpus, args.queries)
    factories: dict[str, Callable[[Path], Backend]] = {
        "tantivy": TantivyBackend,
        "fts5": Fts5Backend,
        "rank_bm25": RankBm25Backend,
        "bm25s": Bm25sBackend,
    }
    rows: list[Row] = []
    notes = []
    words_per_s = analyzer_throughput(corpus)
    notes.append(f"hierdoc analyzer: {words_per_s / 1e6:.2f} M input words/s (warm cache)")
    for size in args.sizes:
        for key in args.backends:
            if key == "rank_bm25" and size > args.rank_bm25_max:
                notes.append(f"rank_bm25 skipped at {size:,} chunks (--rank-bm25-max)")
                continue
            try:
                print(f"[{size:,}] {key} ...", file=sys.stderr, flush=True)
                row = measure(factories[key], corpus, size, queries)
            except ImportError as exc:
                notes.append(f"{key} skipped: not installed ({exc.name})")
                continue
            base = next((r for r in rows if r.size == size and r.backend.startswith("tantivy")),
                        None)  # fmt: skip
            if base is not None:
                row.overlap = overlap(base.results, row.results)
            rows.append(row)
            print(f"  build {row.build_s:.1f}s size {row.size_bytes / 1e6:.1f}MB "
                  f"p50 {row.p50_ms:.2f}ms p95 {row.p95_ms:.2f}ms",
                  file=sys.stderr, flush=True)  # fmt: skip
    report = "\n".join(
        [
            f"Machine: {machine()}",
            f"Corpus: {args.words}-word chunks, vocabulary {args.vocab:,} (Zipf), seed "
            f"{args.seed}; {args.queries} queries of 2-8 words, top 10.",
            "",
            table(rows),
            "",
            *[f"- {n}" for n in dict.fromkeys(notes)],
        ]
    )
    print(report)
    if args.out:
        args.out.write_text(report + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
