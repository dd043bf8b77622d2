"""Ingest and search speed on real documents, against rank_bm25 + numpy + RRF.

Two documents, each ingested into its own fresh temporary index with the real
local model (all-MiniLM-L6-v2 on the CPU): the GDPR as Markdown
(``gdpr/gdpr.md``) and the HR 8847 bill as a PDF
(``pdf/HR8847_CNIMDT_AIGCE_STD_Act.pdf``). The model is loaded once, before
any timing; its load time is reported on its own.

Ingest: wall time of ``Index.ingest`` (conversion, structure, chunking,
embedding, SQLite, tantivy, vectors), split into conversion and embedding;
pages, chunks, embedded windows, and the index size on disk.

Search: every query of a deterministic set built from the corpus itself is run
in every mode (hybrid, semantic, keyword, exact) through ``Index.search``
(top 10), in process, with the model warm; modes are interleaved query by
query so that background load hits them alike. The query set (``--queries``
per corpus, an equal share of each kind, shuffled with ``--seed``):

* citation: "Article N" (GDPR); "Section N" and "SEC. N" alternately (HR 8847),
  N taken from the headings hierdoc found (chunk headings and parent chains)
  plus any "SEC. N. TITLE." line in the chunk text (so the set does not depend
  on hierdoc recognising the PDF's headings);
* heading: the words of a section heading without its number, lower-cased;
* question: a short question made of those words ("What are the rules on ...?");
* phrase: 3-4 consecutive all-letter words from a chunk, in double quotes.

Baseline, in the same process over the same chunks and vectors: rank_bm25 +
numpy + RRF as HoloDeck 0.7.1 ships it (``holodeck.lib.keyword_search`` and
``hybrid_search``): rank_bm25 ``BM25Okapi`` (k1=1.5, b=0.75) over
``re.findall(r"[a-zA-Z0-9]+", text.lower())`` of each chunk's context + text,
brute-force numpy cosine over one vector per chunk (its first window, the
part a 256-word-piece model reads when a chunk is not windowed), and weighted
RRF (k=60, weights semantic 0.5 / keyword 0.3, normalised to sum 1) over the
top_k of each side. Query embedding is timed inside the baseline's hybrid and
semantic latency, as it is inside hierdoc's; it is also timed alone.

    python benchmarks/ingest_search.py --queries 120 --out ingest_search.md
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import random
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import numpy as np

import hierdoc.pipeline.reading
from hierdoc import Index
from hierdoc.config import Settings
from hierdoc.eval.datasets import default_datasets
from hierdoc.models import EmbedInput
from hierdoc.pipeline.embed import LocalEmbedder
from hierdoc.text.numbering import parse_heading

MODES = ("hybrid", "semantic", "keyword", "exact")
KINDS = ("citation", "heading", "question", "phrase")
CHARS_PER_PAGE = 3000
QUESTIONS = (
    "What are the rules on {}?",
    "What does the text say about {}?",
    "Who is responsible for {}?",
    "When do the requirements on {} apply?",
    "How is {} handled?",
)
_SEC_LINE = re.compile(r"^\s*SEC\.\s+(\d+[A-Za-z]?)\.\s+(\S.*?)\s*$", re.MULTILINE)
_LABEL_PREFIX = re.compile(
    r"^\s*(?:SEC\.|Section|Article|Chapter|Title|Part|§)\s*[0-9IVXLCDM]+[A-Za-z]?\.?\s*[-–—:.]?\s*",
    re.IGNORECASE,
)
_WORD = re.compile(r"^[A-Za-z]+$")
_SEED_TOKEN = re.compile(r"[a-zA-Z0-9]+")


@dataclass(frozen=True)
class Corpus:
    key: str
    label: str
    relpath: str
    citation_forms: tuple[str, ...]  # e.g. ("Article {}",) or ("Section {}", "SEC. {}")


CORPORA = (
    Corpus("gdpr", "GDPR (gdpr.md)", "gdpr/gdpr.md", ("Article {}",)),
    Corpus(
        "hr8847",
        "HR 8847 (PDF)",
        "pdf/HR8847_CNIMDT_AIGCE_STD_Act.pdf",
        ("Section {}", "SEC. {}"),
    ),
)


# -- timing helpers ------------------------------------------------------------


class TimedEmbedder:
    """Delegates to the real embedder and adds up the time spent embedding documents."""

    def __init__(self, inner: LocalEmbedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimension = inner.dimension
        self.document_seconds = 0.0
        self.query_seconds = 0.0

    def embed_documents(self, inputs: Sequence[EmbedInput]) -> list[np.ndarray]:
        t0 = time.perf_counter()
        try:
            return self.inner.embed_documents(inputs)
        finally:
            self.document_seconds += time.perf_counter() - t0

    def embed_query(self, text: str) -> np.ndarray:
        t0 = time.perf_counter()
        try:
            return self.inner.embed_query(text)
        finally:
            self.query_seconds += time.perf_counter() - t0


class TimedConvert:
    """Wraps ``hierdoc.pipeline.reading.convert_file`` (what ingest calls) with a timer."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0
        self._original = hierdoc.pipeline.reading.convert_file

    def __enter__(self) -> TimedConvert:
        original = self._original

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - t0
                self.calls += 1

        hierdoc.pipeline.reading.convert_file = timed
        return self

    def __exit__(self, *exc: object) -> None:
        hierdoc.pipeline.reading.convert_file = self._original


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def pdf_pages(path: Path) -> tuple[int | None, str]:
    """The real page count and the library that read it."""
    try:
        from pdfminer.pdfpage import PDFPage

        with open(path, "rb") as fh:
            return sum(1 for _ in PDFPage.get_pages(fh)), "pdfminer.six"
    except ImportError:
        pass
    try:
        import pypdfium2

        return len(pypdfium2.PdfDocument(str(path))), "pypdfium2"
    except ImportError:
        return None, "no PDF library"


# -- queries -------------------------------------------------------------------


@dataclass
class CorpusView:
    """What the query generator needs from an ingested corpus."""

    chunk_ids: list[str]
    texts: list[str]  # context + content, as hierdoc's BM25 indexes it
    contents: list[str]
    headings: list[str]  # every distinct heading, in document order


def corpus_view(index: Index) -> CorpusView:
    chunk_ids, texts, contents, headings = [], [], [], []
    for stored in index.iter_chunks():
        chunk = stored.chunk
        chunk_ids.append(chunk.chunk_id)
        contents.append(chunk.content)
        texts.append(f"{stored.context}\n{chunk.content}" if stored.context else chunk.content)
        headings += [*chunk.parent_chain, chunk.heading]
        headings += [m.group(0).strip() for m in _SEC_LINE.finditer(chunk.content)]
    return CorpusView(chunk_ids, texts, contents, list(dict.fromkeys(headings)))


def heading_words(heading: str) -> str:
    """The words of a heading without its number: "Article 17 - Right to erasure" -> ..."""
    title = _LABEL_PREFIX.sub("", heading, count=1)
    return " ".join(re.findall(r"[A-Za-z][A-Za-z'-]*", title)).lower()


def sample(rng: random.Random, items: list[str], n: int) -> list[str]:
    """``n`` items, distinct while they last, then repeated in the same order."""
    if not items:
        return []
    picked = rng.sample(items, min(n, len(items)))
    while len(picked) < n:
        picked += picked[: n - len(picked)]
    return picked


def make_queries(view: CorpusView, corpus: Corpus, count: int, seed: int) -> list[tuple[str, str]]:
    """(kind, query) pairs: an equal share of each kind, shuffled, deterministic."""
    rng = random.Random(f"{seed}:{corpus.key}")
    share = [count // len(KINDS) + (i < count % len(KINDS)) for i in range(len(KINDS))]
    numbers: list[str] = []
    titles: list[str] = []
    for heading in view.headings:
        label = parse_heading(heading)
        if label is None or label.kind not in ("article", "section"):
            continue
        if label.kind == "section" and not heading.lstrip().startswith("SEC."):
            continue  # GDPR's "Section 1 - ..." groups articles; cite its articles instead
        numbers.append(label.parts[0])
        if words := heading_words(heading):
            titles.append(words)
    numbers = list(dict.fromkeys(numbers))
    titles = list(dict.fromkeys(titles))
    citations = [
        corpus.citation_forms[i % len(corpus.citation_forms)].format(n)
        for i, n in enumerate(numbers)
    ]
    phrases = []
    for _ in range(share[3] * 20):
        if len(phrases) >= share[3]:
            break
        content = view.contents[rng.randrange(len(view.contents))]
        tokens = [
            t for line in content.splitlines() if not line.startswith("#") for t in line.split()
        ]
        size = rng.choice((3, 4))
        if len(tokens) < size:
            continue
        start = rng.randrange(len(tokens) - size + 1)
        window = tokens[start : start + size]
        if all(_WORD.match(t) for t in window):
            phrases.append(f'"{" ".join(window)}"')
    questions = [
        QUESTIONS[i % len(QUESTIONS)].format(t) for i, t in enumerate(sample(rng, titles, share[2]))
    ]
    queries = (
        [("citation", q) for q in sample(rng, citations, share[0])]
        + [("heading", q) for q in sample(rng, titles, share[1])]
        + [("question", q) for q in questions]
        + [("phrase", q) for q in sample(rng, list(dict.fromkeys(phrases)), share[3])]
    )
    rng.shuffle(queries)
    return queries


# -- baseline ------------------------------------------------------------------


class Bm25NumpyRrf:
    """HoloDeck's hybrid search: rank_bm25 + numpy cosine + weighted, normalised RRF."""

    def __init__(
        self,
        view: CorpusView,
        vectors: np.ndarray,
        embed_query: Callable[[str], np.ndarray],
        semantic_weight: float = 0.5,
        keyword_weight: float = 0.3,
        rrf_k: int = 60,
    ) -> None:
        from rank_bm25 import BM25Okapi

        t0 = time.perf_counter()
        self.ids = view.chunk_ids
        self.contents = view.contents
        self.bm25 = BM25Okapi([self.tokenize(t) for t in view.texts], k1=1.5, b=0.75)
        self.build_s = time.perf_counter() - t0
        self.matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        self.embed_query = embed_query
        total = semantic_weight + keyword_weight
        self.weights = (semantic_weight / total, keyword_weight / total)
        self.rrf_k = rrf_k

    @staticmethod
    def tokenize(text: str) -> list[str]:
        return _SEED_TOKEN.findall(text.lower())

    def keyword(self, query: str, k: int) -> list[tuple[str, float]]:
        scores = self.bm25.get_scores(self.tokenize(query))
        top = scores.argsort()[-k:][::-1]
        return [(self.ids[i], float(scores[i])) for i in top if scores[i] > 0]

    def semantic(self, query: str, k: int) -> list[tuple[str, float]]:
        scores = self.matrix @ self.embed_query(query)
        top = scores.argsort()[-k:][::-1]
        return [(self.ids[i], float(scores[i])) for i in top]

    def hybrid(self, query: str, k: int) -> list[tuple[str, float, str]]:
        lists = (self.semantic(query, k), self.keyword(query, k))
        fused: dict[str, float] = {}
        for weight, ranked in zip(self.weights, lists, strict=True):
            for rank, (chunk_id, _) in enumerate(ranked, start=1):
                fused[chunk_id] = fused.get(chunk_id, 0.0) + weight / (self.rrf_k + rank)
        best = sum(w / (self.rrf_k + 1) for w in self.weights)
        ordered = sorted(fused.items(), key=lambda e: e[1], reverse=True)[:k]
        position = {c: i for i, c in enumerate(self.ids)}
        return [(c, s / best, self.contents[position[c]]) for c, s in ordered]


def first_window_vectors(index: Index, chunk_ids: list[str]) -> np.ndarray:
    """One vector per chunk: the first window of each, as the index stores them."""
    first = {chunk_id: windows[0] for chunk_id, windows in index.iter_vectors()}
    return np.vstack([first[c] for c in chunk_ids])


# -- measurement ---------------------------------------------------------------


@dataclass
class IngestRow:
    label: str
    pages: float
    pages_note: str
    ingest_s: float
    convert_s: float
    embed_s: float
    chunks: int
    sections: int
    windows: int
    size_bytes: int
    problems: list[str]


@dataclass
class SearchRow:
    label: str
    queries: int
    latencies: dict[str, list[float]] = field(default_factory=dict)  # method -> ms per query
    without_model: dict[str, list[float]] = field(default_factory=dict)  # minus embed_query
    kinds: list[str] = field(default_factory=list)
    answered: dict[str, list[bool]] = field(default_factory=dict)  # method -> had results
    notes: list[str] = field(default_factory=list)


def ingest(
    corpus: Corpus, path: Path, workdir: Path, embedder: TimedEmbedder
) -> tuple[Index, IngestRow]:
    index_dir = workdir / corpus.key
    index = Index.open(index_dir, Settings(), embedder=embedder)
    embedder.document_seconds = 0.0
    with TimedConvert() as convert:
        t0 = time.perf_counter()
        report = index.ingest([path])
        ingest_s = time.perf_counter() - t0
    index.close()  # checkpoints the SQLite WAL: the size below is the index as it stays
    size = dir_bytes(index_dir)
    index = Index.open(index_dir, Settings(), embedder=embedder)
    if path.suffix.lower() == ".pdf":
        pages, source = pdf_pages(path)
        pages_value = float(pages) if pages is not None else float("nan")
        note = f"real page count ({source})"
    else:
        chars = sum(d.chars for d in index.documents())
        pages_value = chars / CHARS_PER_PAGE
        note = f"{chars:,} chars / {CHARS_PER_PAGE}"
    stats = index.stats()
    row = IngestRow(
        corpus.label,
        pages_value,
        note,
        ingest_s,
        convert.seconds if convert.calls else float("nan"),  # NaN: the hook was not reached
        embedder.document_seconds,
        report.chunks_written,
        stats.sections,
        report.texts_embedded,
        size,
        [f"{p.source}: {p.reason}" for p in report.problems],
    )
    return index, row


def run_search(
    index: Index,
    baseline: Bm25NumpyRrf,
    embedder: TimedEmbedder,
    queries: list[tuple[str, str]],
    top_k: int,
    warmup: int,
    label: str,
) -> SearchRow:
    methods: dict[str, Callable[[str], int]] = {
        mode: (lambda q, m=mode: len(index.search(q, top_k=top_k, mode=m).results))
        for mode in MODES
    }
    methods["baseline hybrid"] = lambda q: len(baseline.hybrid(q, top_k))
    methods["baseline semantic"] = lambda q: len(baseline.semantic(q, top_k))
    methods["baseline keyword"] = lambda q: len(baseline.keyword(q, top_k))
    methods["query embedding"] = lambda q: int(embedder.inner.embed_query(q).shape[0] > 0)
    for _, q in queries[:warmup]:
        for method in methods.values():
            method(q)
    row = SearchRow(label, len(queries), kinds=[k for k, _ in queries])
    names = list(methods)
    for i, (_, q) in enumerate(queries):
        shift = i % len(names)  # rotate the order so no method always runs first
        for name in names[shift:] + names[:shift]:
            in_model = embedder.query_seconds
            t0 = time.perf_counter()
            found = methods[name](q)
            spent = time.perf_counter() - t0
            in_model = embedder.query_seconds - in_model
            row.latencies.setdefault(name, []).append(spent * 1000)
            if in_model:
                row.without_model.setdefault(name, []).append((spent - in_model) * 1000)
            row.answered.setdefault(name, []).append(found > 0)
    return row


def profile_modes(index: Index, queries: list[tuple[str, str]], top_k: int, lines: int) -> str:
    out = io.StringIO()
    for mode in MODES:
        profiler = cProfile.Profile()
        profiler.enable()
        for _, q in queries:
            index.search(q, top_k=top_k, mode=mode)
        profiler.disable()
        out.write(f"\n=== profile: mode {mode}, {len(queries)} queries ===\n")
        stats = pstats.Stats(profiler, stream=out)
        stats.sort_stats("tottime").print_stats(lines)
    return out.getvalue()


# -- report --------------------------------------------------------------------


def fmt(value: float, digits: int = 1) -> str:
    return "-" if value != value else f"{value:,.{digits}f}"  # NaN -> "-"


def ingest_table(rows: list[IngestRow]) -> str:
    lines = [
        "| document | pages | ingest s | pages/s | chunks | chunks/s | sections "
        "| embedded windows | windows/s (embed only) | convert s | embed s | other s "
        "| index MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        mark = "¹" if "chars" in r.pages_note else "²"
        cells = [
            r.label, f"{fmt(r.pages)}{mark}", f"{r.ingest_s:.1f}",
            fmt(r.pages / r.ingest_s, 2), f"{r.chunks:,}", f"{r.chunks / r.ingest_s:.1f}",
            f"{r.sections:,}", f"{r.windows:,}",
            f"{r.windows / r.embed_s:.1f}" if r.embed_s else "-",
            fmt(r.convert_s), f"{r.embed_s:.1f}",
            fmt(r.ingest_s - r.convert_s - r.embed_s), f"{r.size_bytes / 1e6:.2f}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def search_table(rows: list[SearchRow]) -> str:
    lines = [
        "| corpus | method | p50 ms | p95 ms | mean ms | p50 vs baseline | p95 vs baseline "
        "| p50 ms without query embedding | vs baseline | queries with results |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        for name, values in r.latencies.items():
            theirs = r.latencies.get(f"baseline {name}")
            p50, p95 = statistics.median(values), percentile(values, 0.95)
            vs50 = vs95 = "-"
            if theirs:
                vs50 = f"{p50 / statistics.median(theirs):.2f}×"
                vs95 = f"{p95 / percentile(theirs, 0.95):.2f}×"
            method = f"hierdoc {name}" if name in MODES else name
            bare, theirs_bare = r.without_model.get(name), r.without_model.get(f"baseline {name}")
            bare50 = f"{statistics.median(bare):.2f}" if bare else "-"
            bare_vs = "-"
            if bare and theirs_bare:
                bare_vs = f"{statistics.median(bare) / statistics.median(theirs_bare):.2f}×"
            cells = [
                r.label, method, f"{p50:.2f}", f"{p95:.2f}", f"{statistics.fmean(values):.2f}",
                vs50, vs95, bare50, bare_vs, f"{sum(r.answered.get(name, []))}/{r.queries}",
            ]  # fmt: skip
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def kind_table(rows: list[SearchRow]) -> str:
    names = [*MODES, "baseline hybrid", "query embedding"]
    lines = [
        "| corpus | query kind | n | hybrid: with results | "
        + " | ".join(f"{n} p50" for n in names)
        + " |",
        "|---|---|---:|---:|" + "---:|" * len(names),
    ]
    for r in rows:
        for kind in KINDS:
            picks = [i for i, k in enumerate(r.kinds) if k == kind]
            if not picks:
                continue
            answered = sum(r.answered["hybrid"][i] for i in picks) if "hybrid" in r.answered else 0
            cells = [r.label, kind, str(len(picks)), str(answered)]
            for name in names:
                values = r.latencies.get(name, [])
                cells.append(f"{statistics.median([values[i] for i in picks]):.2f}")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine() -> str:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if "model name" in line)
    except (OSError, StopIteration):
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    import torch

    return (
        f"nproc {os.cpu_count()} ({usable} usable), {cpu}, torch threads {torch.get_num_threads()}"
    )


def load_average() -> str:
    """The 1/5/15-minute load averages: other processes share these cores."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=default_datasets(),
                        help="folder with gdpr/ and pdf/ (default: $HIERDOC_DATASETS, "
                        "here %(default)s)")  # fmt: skip
    parser.add_argument("--queries", type=int, default=120, help="queries per corpus")
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=5, help="warm-up queries per method")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--corpora", nargs="+", choices=[c.key for c in CORPORA],
                        default=[c.key for c in CORPORA])  # fmt: skip
    parser.add_argument("--profile", action="store_true",
                        help="also cProfile every mode over the query set (to stderr)")  # fmt: skip
    parser.add_argument("--torch-threads", type=int,
                        help="torch.set_num_threads(N) before loading the model "
                        "(default: torch's own choice, one per core)")  # fmt: skip
    parser.add_argument("--show-queries", action="store_true", help="list the queries (stderr)")
    parser.add_argument("--out", type=Path, help="also write the markdown report here")
    args = parser.parse_args(argv)
    command = "python " + shlex.join(sys.argv if argv is None else [sys.argv[0], *argv])
    started = datetime.now(timezone.utc).astimezone()

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    paths = {c.key: args.datasets / c.relpath for c in CORPORA if c.key in args.corpora}
    missing = [str(p) for p in paths.values() if not p.exists()]
    if missing:
        parser.error(f"dataset not found: {', '.join(missing)} (use --datasets)")

    if args.torch_threads:
        import torch

        torch.set_num_threads(args.torch_threads)
    host = machine()
    load_start = load_average()
    t0 = time.perf_counter()
    model = LocalEmbedder()
    model.embed_query("warm up")
    load_s = time.perf_counter() - t0
    embedder = TimedEmbedder(model)
    log(f"model loaded in {load_s:.1f}s")

    ingest_rows: list[IngestRow] = []
    search_rows: list[SearchRow] = []
    notes: list[str] = []
    profiles: list[str] = []
    workdir = Path(tempfile.mkdtemp(prefix="hierdoc-bench-"))
    try:
        for corpus in CORPORA:
            if corpus.key not in paths:
                continue
            log(f"[{corpus.key}] ingesting {paths[corpus.key]} ...")
            index, irow = ingest(corpus, paths[corpus.key].resolve(), workdir, embedder)
            ingest_rows.append(irow)
            notes += [f"{corpus.label}: ingest problem: {p}" for p in irow.problems]
            log(f"  {irow.ingest_s:.1f}s, {irow.chunks} chunks, {irow.windows} windows")
            try:
                view = corpus_view(index)
                queries = make_queries(view, corpus, args.queries, args.seed)
                counts = {k: sum(1 for kind, _ in queries if kind == k) for k in KINDS}
                notes.append(
                    f"{corpus.label}: {len(queries)} queries ("
                    + ", ".join(f"{n} {k}" for k, n in counts.items())
                    + f"); {len(view.headings)} distinct headings found"
                )
                if args.show_queries:
                    log("\n".join(f"  {k:9} {q}" for k, q in queries))
                vectors = first_window_vectors(index, view.chunk_ids)
                baseline = Bm25NumpyRrf(view, vectors, embedder.embed_query)
                notes.append(
                    f"{corpus.label}: baseline BM25Okapi built in {baseline.build_s * 1000:.0f} ms "
                    f"over {len(view.chunk_ids)} chunks"
                )
                log(f"  searching: {len(queries)} queries × {len(MODES) + 4} methods ...")
                search_rows.append(
                    run_search(
                        index, baseline, embedder, queries, args.top_k, args.warmup, corpus.label
                    )
                )
                if args.profile:
                    profiles.append(profile_modes(index, queries, args.top_k, 25))
            finally:
                index.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    counted = "; ".join(
        f"{r.label}: {r.pages_note}" for r in ingest_rows if "chars" in r.pages_note
    )
    real = "; ".join(
        f"{r.label}: {r.pages_note}" for r in ingest_rows if "chars" not in r.pages_note
    )
    report = "\n".join(
        [
            f"Date: {started.isoformat(timespec='seconds')}",
            f"Machine: {host}; load average (1/5/15 min) at start {load_start}, "
            f"at end {load_average()}",
            f"Versions: Python {platform.python_version()}, tantivy-py {version('tantivy')}, "
            f"torch {version('torch')}, sentence-transformers "
            f"{version('sentence-transformers')}, rank-bm25 {version('rank-bm25')}, "
            f"hierdoc {version('hierdoc')}",
            f"Command: `{command}`",
            f"Model: {model.name}, loaded in {load_s:.1f} s (excluded from ingest times)",
            "",
            "### Ingest (fresh index per document)",
            "",
            ingest_table(ingest_rows),
            "",
            *(
                [
                    f"¹ Not a real page count: a Markdown file has no pages; pages = "
                    f"characters / {CHARS_PER_PAGE} ({counted})."
                ]
                if counted
                else []
            ),
            *([f"² {real}."] if real else []),
            "ingest s = wall time of `Index.ingest` (conversion, structure, chunking, embedding, "
            "SQLite, tantivy, vector cache); convert s and embed s are its parts spent in "
            "`convert_file` and `embed_documents`; other s is the rest. index MB = the index "
            "directory after close (SQLite, tantivy, vectors.npy/json).",
            "",
            f"### Search latency (top {args.top_k}, warm model, {args.warmup} warm-up queries "
            "per method)",
            "",
            search_table(search_rows),
            "",
            "hierdoc modes run through `Index.search` (full pipeline: query parsing, exact "
            "lookups, tantivy BM25, numpy cosine over all windows, RRF, results built from "
            "SQLite). `baseline *` is rank_bm25 + numpy + RRF over the same chunks: BM25Okapi "
            "(k1=1.5, b=0.75) over `[a-zA-Z0-9]+` lower-cased tokens of context + chunk, "
            "cosine over the first window vector of each chunk, RRF k=60 with weights "
            "0.5/0.3 normalised to 0.625/0.375, top_k candidates per side. 'vs baseline' is "
            "hierdoc / baseline for the matching method (hierdoc exact has none). "
            "hybrid and semantic include the query embedding; `query embedding` is "
            "`embed_query` alone; 'without query embedding' subtracts, query by query, the "
            "time spent inside `embed_query` during that search.",
            "",
            "### p50 ms by query kind",
            "",
            kind_table(search_rows),
            "",
            *[f"- {n}" for n in notes],
        ]
    )
    print(report)
    if args.out:
        args.out.write_text(report + "\n", encoding="utf-8")
    for text in profiles:
        log(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
