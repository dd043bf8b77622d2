"""Retrieval quality on benchmark corpora: loaders, metrics, variants, baselines, report.

A corpus (:class:`EvalCorpus`) is documents to index plus queries with relevance
judgements, in one of three units:

* ``document``: judgements name documents (BEIR, SciFact); a document's rank is
  the rank of its first chunk, later chunks of the same document are skipped;
* ``chunk``: judgements name chunks (the Anthropic codebase, pre-chunked);
* ``span``: judgements are character spans of one document (ContractNLI); a
  chunk is relevant when it overlaps a gold span, and the query is searched
  within its own document (a source filter).

:func:`run_eval` indexes the corpus with hierdoc once per distinct
ingest-affecting setting (chunk size, structural context, extraction), reuses
each index for every search-only variant (mode, weights, ``rrf_k``, candidate
depth), and scores baselines over the same chunks and vectors as the default
index, with the same embedder:

* ``dense``: brute-force cosine, a chunk scoring as its best window (as hierdoc);
* ``bm25``: rank_bm25 ``BM25Okapi`` over lower-cased whitespace tokens;
* ``seed``: the HoloDeck 0.7.1 design: cosine over one vector per chunk (its
  first window), rank_bm25 over ``[a-zA-Z0-9]+`` lower-cased tokens (k1=1.5,
  b=0.75), each side's top_k fused by RRF (k=60) with weights 0.5/0.3
  normalised to sum 1 (0.625/0.375). Its top_k candidates depend on top_k, so
  it is run once per cutoff k.

BM25 baselines index what hierdoc's BM25 indexes: the chunk's structural
context, a newline, the chunk text. Indexes live under ``index_dir`` keyed by
corpus and settings, and document embeddings are cached there by input text,
so a rerun (or another index with the same texts) does not re-embed.

The ``eval`` click command at the end is the CLI (``hierdoc eval``).
"""

from __future__ import annotations

import csv
import hashlib
import inspect
import json
import math
import os
import random
import re
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import click
import numpy as np

from ..api import Index
from ..config import Settings
from ..pipeline.embed import Embedder, EmbedInput
from ..pipeline.ingest import ProgressEvent, TextDocument

Unit = Literal["document", "chunk", "span"]
Span = tuple[int, int]
Log = Callable[[str], None]

CUTOFFS = (1, 5, 10, 20)
MAX_SEARCH_K = 100
INGEST_FIELDS = (
    "chunking_strategy",
    "max_chunk_tokens",
    "chunk_overlap",
    "contextual_embeddings",
    "extract_definitions",
    "extract_cross_references",
)
CHUNKING_FIELDS = ("chunking_strategy", "max_chunk_tokens", "chunk_overlap")
EXTRACTION_FIELDS = ("extract_definitions", "extract_cross_references")
NLI_CHOICES = ("Entailment", "Contradiction")
# Modules that only search or serve an index: a change to them reuses the cached
# indexes; a change to any other module of the package builds new ones.
SEARCH_MODULES = frozenset(
    {"agents", "cli", "evaluate", "fuse", "glossary", "mcp_server", "search"}
)


def _no_log(message: str) -> None:
    pass


# -- data ---------------------------------------------------------------------


@dataclass(frozen=True)
class EvalQuery:
    """A query and what is relevant to it.

    ``relevant`` is ``{document or chunk id: grade}`` (grade > 0 is relevant) for
    the document and chunk units, and a list of ``(start, end)`` character spans
    of the ``source_filter`` document for the span unit.
    """

    id: str
    text: str
    relevant: dict[str, float] | list[Span]
    source_filter: str | None = None


@dataclass
class EvalCorpus:
    """Documents, queries and how to score them (``metrics`` in table order)."""

    name: str
    documents: list[TextDocument]
    queries: list[EvalQuery]
    unit: Unit
    metrics: tuple[str, ...]
    main_metric: str
    aliases: dict[str, str] = field(default_factory=dict)
    """Chunk id -> the key it is judged by (the cookbook matches chunks by content)."""
    description: str = ""

    @property
    def prechunked(self) -> bool:
        return bool(self.documents) and all(d.chunks is not None for d in self.documents)

    def fingerprint(self) -> str:
        digest = hashlib.sha1(self.name.encode())
        for document in sorted(self.documents, key=lambda d: d.source):
            digest.update(f"\0{document.source}\0{document.content_hash}".encode())
        return digest.hexdigest()[:12]


def _read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _read_qrels(path: Path) -> dict[str, dict[str, float]]:
    qrels: dict[str, dict[str, float]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = float(row["score"])
    return qrels


def _recall_names(prefix: str) -> tuple[str, ...]:
    return tuple(f"{prefix}@{k}" for k in CUTOFFS)


def load_beir(directory: str | Path, split: str = "test", name: str | None = None) -> EvalCorpus:
    """A BEIR dataset: ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl``,
    ``qrels/<split>.tsv``. Each document is a TextDocument (source = its id, title kept
    apart: hierdoc puts it in the structural context); queries are those with at least
    one positive judgement on a document of the corpus."""
    root = Path(directory)
    documents = [
        TextDocument(str(d["_id"]), d.get("text") or "", (d.get("title") or "").strip())
        for d in _read_jsonl(root / "corpus.jsonl")
    ]
    known = {d.source for d in documents}
    qrels = _read_qrels(root / "qrels" / f"{split}.tsv")
    queries = []
    for row in _read_jsonl(root / "queries.jsonl"):
        judged = {d: g for d, g in qrels.get(str(row["_id"]), {}).items() if d in known}
        if any(g > 0 for g in judged.values()):
            queries.append(EvalQuery(str(row["_id"]), row["text"], judged))
    return EvalCorpus(
        name or root.name,
        documents,
        queries,
        "document",
        ("nDCG@10", *_recall_names("R"), "MRR@10"),
        "nDCG@10",
        description=f"BEIR {root.name} ({split}): nDCG@10 by document",
    )


def load_scifact(directory: str | Path) -> EvalCorpus:
    """BEIR SciFact, test split (300 claims, 5,183 abstracts): nDCG@10 by document."""
    return load_beir(directory, "test", "scifact")


def load_anthropic_codebase(directory: str | Path) -> EvalCorpus:
    """The contextual-retrieval cookbook's codebase: 90 files in 737 given chunks.

    Each file is a TextDocument with its chunks as given (chunk id
    ``<doc uuid>:<original_index>``, so golden ``[doc_uuid, original_index]``
    pairs are chunk ids). The cookbook matches a retrieved chunk to a golden one
    by stripped content, so chunks with the same content (licence headers) count
    for each other: ``aliases`` maps every chunk id to the first id with its content.
    """
    root = Path(directory)
    files = json.loads((root / "codebase_chunks.json").read_text(encoding="utf-8"))
    documents, aliases, first_by_content = [], {}, {}
    for item in files:
        chunks = item["chunks"]
        ids = [f"{item['original_uuid']}:{c['original_index']}" for c in chunks]
        for chunk_id, chunk in zip(ids, chunks, strict=True):
            aliases[chunk_id] = first_by_content.setdefault(chunk["content"].strip(), chunk_id)
        texts = [c["content"] for c in chunks]
        documents.append(TextDocument(item["doc_id"], item["content"], "", texts, ids))
    queries = [
        EvalQuery(
            f"q{n}",
            row["query"],
            {f"{uuid}:{index}": 1.0 for uuid, index in row["golden_chunk_uuids"]},
        )
        for n, row in enumerate(_read_jsonl(root / "evaluation_set.jsonl"))
    ]
    return EvalCorpus(
        "anthropic-codebase",
        documents,
        queries,
        "chunk",
        ("Pass@10", "Pass@1", "Pass@5", "Pass@20", "MRR@10", "nDCG@10"),
        "Pass@10",
        aliases,
        "Anthropic cookbook codebase: Pass@k (golden chunks in the top k / golden chunks, x100)",
    )


def load_contractnli(path: str | Path) -> EvalCorpus:
    """ContractNLI (``test.json`` or ``dev.json``): each NDA one TextDocument chunked by
    hierdoc; one query per (NDA, hypothesis) whose choice is Entailment or
    Contradiction, searched within that NDA, relevant = its evidence spans."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    hypotheses = {key: label["hypothesis"] for key, label in data["labels"].items()}
    documents, queries = [], []
    for doc in data["documents"]:
        source = f"contractnli/{doc['id']}"
        documents.append(TextDocument(source, doc["text"], doc["file_name"].strip()))
        annotations = doc["annotation_sets"][0]["annotations"]
        for key in sorted(annotations):
            annotation = annotations[key]
            if annotation["choice"] not in NLI_CHOICES or not annotation["spans"]:
                continue
            spans = [tuple(doc["spans"][i]) for i in annotation["spans"]]
            queries.append(EvalQuery(f"{doc['id']}/{key}", hypotheses[key], spans, source))
    return EvalCorpus(
        f"contractnli-{Path(path).stem}",
        documents,
        queries,
        "span",
        ("SpanR@1", "SpanR@5", "SpanR@10", "SpanR@20", "MRR@10", "nDCG@10"),
        "SpanR@1",
        description="ContractNLI: span recall@k within the NDA (a chunk overlapping a gold span)",
    )


def slice_corpus(
    corpus: EvalCorpus, queries: int, distractors: int | None = None, seed: int = 13
) -> EvalCorpus:
    """The first ``queries`` queries; with ``distractors``, only the documents they
    judge (or are filtered to) plus that many random others (fixed seed)."""
    kept = corpus.queries[:queries]
    documents = corpus.documents
    if distractors is not None:
        needed = _needed_sources(corpus, kept)
        others = sorted(d.source for d in documents if d.source not in needed)
        picked = set(random.Random(seed).sample(others, min(distractors, len(others))))
        documents = [d for d in documents if d.source in needed or d.source in picked]
    name = f"{corpus.name}-q{len(kept)}" + ("" if distractors is None else f"-d{distractors}")
    return EvalCorpus(
        name,
        documents,
        kept,
        corpus.unit,
        corpus.metrics,
        corpus.main_metric,
        corpus.aliases,
        corpus.description,
    )


def _needed_sources(corpus: EvalCorpus, queries: Sequence[EvalQuery]) -> set[str]:
    if corpus.unit == "span":
        return {q.source_filter for q in queries if q.source_filter}
    if corpus.unit == "document":
        return {d for q in queries for d in q.relevant}  # type: ignore[union-attr]
    owner = {cid: d.source for d in corpus.documents for cid in d.chunk_ids or ()}
    return {owner[c] for q in queries for c in q.relevant if c in owner}  # type: ignore[union-attr]


# -- metrics ------------------------------------------------------------------


def dedupe(items: Iterable[str]) -> list[str]:
    """Items in order, each at its first position only."""
    return list(dict.fromkeys(items))


def recall_at_k(ranked: Sequence[str], relevant: Mapping[str, float], k: int) -> float:
    """Recall@k as BEIR reports it (pytrec_eval ``recall_k``, from trec_eval): the
    relevant items (grade > 0) in the top k, over all relevant items."""
    wanted = {item for item, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    return len(wanted & set(ranked[:k])) / len(wanted)


def mrr_at_k(ranked: Sequence[str], relevant: Mapping[str, float], k: int = 10) -> float:
    """Reciprocal rank of the first relevant item in the top k, 0 when none
    (Voorhees, TREC-8 QA track; BEIR's ``mrr_cut``)."""
    for rank, item in enumerate(ranked[:k], start=1):
        if relevant.get(item, 0) > 0:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, float], k: int = 10) -> float:
    """nDCG@k as BEIR computes it (pytrec_eval ``ndcg_cut``, Järvelin and Kekäläinen
    2002 as in trec_eval): DCG = sum over ranks i = 1..k of grade_i / log2(i + 1)
    (linear graded gain), over the DCG of the ideal order of all judged grades.
    An item repeated in ``ranked`` counts at its first position only."""
    gains = [relevant.get(item, 0.0) for item in dedupe(ranked)[:k]]
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    if best == 0:
        return 0.0
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains) if g > 0) / best


def pass_at_k(retrieved: Sequence[str], golden: Sequence[str], k: int) -> float:
    """One query's score in the Anthropic cookbook's Pass@k (``evaluate_retrieval`` in
    skills/contextual-embeddings/guide.ipynb): the golden chunks found among the first
    k retrieved, over the number of golden chunks. Chunks are compared by key (the
    cookbook compares stripped contents); a golden key listed twice counts twice.
    Pass@k is the mean of this over all queries, times 100."""
    if not golden:
        return 0.0
    top = set(retrieved[:k])
    return sum(1 for key in golden if key in top) / len(golden)


def spans_overlap(a: Span, b: Span) -> bool:
    """Half-open character ranges [start, end) share at least one character."""
    return a[0] < b[1] and b[0] < a[1]


def span_recall_at_k(ranked: Sequence[Span | None], gold: Sequence[Span], k: int) -> float:
    """The gold spans overlapped by at least one of the top k chunks (their character
    ranges in the document), over the gold spans."""
    if not gold:
        return 0.0
    top = [s for s in ranked[:k] if s is not None]
    return sum(1 for g in gold if any(spans_overlap(g, s) for s in top)) / len(gold)


# -- embeddings ---------------------------------------------------------------


class CachingEmbedder:
    """An embedder whose document vectors are cached on disk by (embedder code, model,
    context, text), and query vectors in memory. A chunk's windows depend only on its
    own input and the embedder's code (windowing), so a cached vector is the one the
    model would produce again; any edit to the embedder's module starts a new cache."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimension = inner.dimension
        self.computed = 0
        self._code = _code_digest(type(inner))
        self._queries: dict[str, np.ndarray] = {}
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS v (key TEXT PRIMARY KEY, rows BLOB)")

    def _key(self, item: EmbedInput) -> str:
        text = f"{self._code}\0{self.name}\0{item.context}\0{item.text}"
        return hashlib.sha1(text.encode()).hexdigest()

    def embed_documents(self, inputs: Sequence[EmbedInput]) -> list[np.ndarray]:
        keys = [self._key(item) for item in inputs]
        found = self._lookup(keys)
        missing = [i for i, key in enumerate(keys) if key not in found]
        if missing:
            fresh = self.inner.embed_documents([inputs[i] for i in missing])
            self.computed += sum(len(v) for v in fresh)
            pairs = list(zip(missing, fresh, strict=True))
            rows = [(keys[i], v.astype(np.float32).tobytes()) for i, v in pairs]
            self._db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)", rows)
            found.update({keys[i]: v for i, v in pairs})
        return [found[key] for key in keys]

    def _lookup(self, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            for key, blob in self._db.execute(
                f"SELECT key, rows FROM v WHERE key IN ({marks})", part
            ):
                found[key] = np.frombuffer(blob, dtype=np.float32).reshape(-1, self.dimension)
        return found

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self._queries:
            self._queries[text] = self.inner.embed_query(text)
        return self._queries[text]

    def close(self) -> None:
        self._db.close()


def _code_digest(kind: type) -> str:
    """A digest of the source of the module defining ``kind`` (for LocalEmbedder, embed.py)."""
    try:
        source = inspect.getsource(sys.modules[kind.__module__])
    except (OSError, TypeError, KeyError):
        source = f"{kind.__module__}.{kind.__qualname__}"
    return hashlib.sha1(source.encode()).hexdigest()[:12]


# -- variants and methods -----------------------------------------------------


@dataclass(frozen=True)
class Variant:
    """A hierdoc pipeline variant: a search mode and Settings overrides."""

    name: str
    mode: str = "hybrid"
    overrides: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""

    def settings(self) -> Settings:
        return Settings(search_mode=self.mode, **dict(self.overrides))


def _v(name: str, mode: str, description: str, **overrides: Any) -> Variant:
    return Variant(name, mode, overrides, description)


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        _v("hybrid", "hybrid", "defaults"),
        _v("semantic", "semantic", "dense only, through hierdoc"),
        _v("keyword", "keyword", "BM25 only (tantivy, hierdoc's analyzer)"),
        _v("hybrid-noctx", "hybrid", "contextual_embeddings off", contextual_embeddings=False),
        _v("semantic-noctx", "semantic", "contextual_embeddings off", contextual_embeddings=False),
        _v("keyword-noctx", "keyword", "contextual_embeddings off", contextual_embeddings=False),
        _v("hybrid-depth100", "hybrid", "candidate_depth 100", candidate_depth=100),
        _v("hybrid-kw2", "hybrid", "keyword_weight 2, semantic_weight 1", keyword_weight=2.0),
        _v("hybrid-sem2", "hybrid", "semantic_weight 2, keyword_weight 1", semantic_weight=2.0),
        _v("hybrid-rrf20", "hybrid", "rrf_k 20", rrf_k=20),
        _v("hybrid-noexact", "hybrid", "exact_weight 0", exact_weight=0.0),
        _v("hybrid-nodefs", "hybrid", "extract_definitions off", extract_definitions=False),
        _v("hybrid-chunk256", "hybrid", "max_chunk_tokens 256", max_chunk_tokens=256),
        _v("semantic-chunk256", "semantic", "max_chunk_tokens 256", max_chunk_tokens=256),
    )
}
PRESETS: dict[str, tuple[str, ...]] = {
    "standard": tuple(VARIANTS),
    "quick": ("hybrid", "semantic", "keyword"),
    "none": (),
}
BASELINES: dict[str, str] = {
    "dense": "dense only, brute-force cosine, best window per chunk",
    "bm25": "rank_bm25 BM25Okapi, lower-cased whitespace tokens",
    "seed": "HoloDeck 0.7.1: first-window cosine + rank_bm25 [a-zA-Z0-9]+, RRF 0.625/0.375",
    "seed-semantic": "the seed's dense side alone (first window)",
    "seed-keyword": "the seed's BM25 side alone ([a-zA-Z0-9]+ tokens)",
}


def resolve_variants(spec: str | Sequence[str]) -> list[Variant]:
    """Variant presets by name: comma-separated names and/or groups (standard, quick)."""
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    chosen: list[str] = []
    for name in (n.strip() for n in names if n.strip()):
        if name in PRESETS:
            chosen += PRESETS[name]
        elif name in VARIANTS:
            chosen.append(name)
        else:
            known = ", ".join([*PRESETS, *VARIANTS])
            raise ValueError(f"unknown variant {name!r}; known: {known}")
    return [VARIANTS[n] for n in dedupe(chosen)]


@dataclass
class Method:
    """Something that ranks chunk ids for a query. ``rank(query, k)``; when
    ``per_cutoff`` is set the top k is not a prefix of a deeper top (the seed)."""

    name: str
    kind: str
    description: str
    rank: Callable[[EvalQuery, int], list[str]]
    depth: int = max(CUTOFFS)
    per_cutoff: bool = False
    settings: dict[str, Any] = field(default_factory=dict)


def _ingest_key(settings: Settings, corpus: EvalCorpus) -> dict[str, Any]:
    defaults = Settings()
    key = {f: getattr(settings, f) for f in INGEST_FIELDS}
    if corpus.prechunked:  # given chunks: no chunking, no extraction
        key.update({f: getattr(defaults, f) for f in (*CHUNKING_FIELDS, *EXTRACTION_FIELDS)})
    return key


def _inapplicable(variant: Variant, corpus: EvalCorpus) -> str | None:
    if corpus.prechunked:
        fields = set(variant.overrides) & {*CHUNKING_FIELDS, *EXTRACTION_FIELDS}
        if fields:
            return f"{variant.name} skipped: the chunks are given ({', '.join(sorted(fields))})"
    return None


def hierdoc_method(index: Index, variant: Variant) -> Method:
    """A hierdoc variant through ``Index.search`` (full pipeline, one call per query)."""
    settings = variant.settings()
    depth = min(MAX_SEARCH_K, max(max(CUTOFFS), settings.candidate_depth))

    def rank(query: EvalQuery, k: int) -> list[str]:
        index.settings = settings  # search-only fields; the index's ingest fields are equal
        response = index.search(query.text, top_k=k, mode=variant.mode, source=query.source_filter)
        return [r.chunk_id for r in response.results]

    overrides = {"mode": variant.mode, **dict(variant.overrides)}
    return Method(variant.name, "hierdoc", variant.description, rank, depth, settings=overrides)


# -- baselines ----------------------------------------------------------------


_SEED_TOKEN = re.compile(r"[a-zA-Z0-9]+")


def seed_tokens(text: str) -> list[str]:
    """HoloDeck's BM25 tokenizer: ``re.findall(r"[a-zA-Z0-9]+", text.lower())``."""
    return _SEED_TOKEN.findall(text.lower())


def whitespace_tokens(text: str) -> list[str]:
    return text.lower().split()


@dataclass
class ChunkData:
    """An index's chunks and vectors as stored: what the baselines search."""

    ids: list[str]
    sources: list[str]
    texts: list[str]
    windows: np.ndarray
    starts: np.ndarray
    by_source: dict[str, np.ndarray]

    @classmethod
    def load(cls, index: Index) -> ChunkData:
        ids, sources, texts = [], [], []
        for stored in index.store.records.iter_chunks():
            chunk = stored.chunk
            ids.append(chunk.chunk_id)
            sources.append(chunk.source)
            texts.append(f"{stored.context}\n{chunk.content}" if stored.context else chunk.content)
        owners, rows = [], []
        for chunk_id, blob in index.store.records.iter_vectors():
            owners.append(chunk_id)
            rows.append(np.frombuffer(blob, dtype=np.float32))
        starts = [i for i, c in enumerate(owners) if i == 0 or owners[i - 1] != c]
        if [owners[i] for i in starts] != ids:
            raise RuntimeError("vectors and chunks of the index are not in the same order")
        by_source: dict[str, list[int]] = {}
        for i, source in enumerate(sources):
            by_source.setdefault(source, []).append(i)
        return cls(
            ids,
            sources,
            texts,
            np.vstack(rows),
            np.asarray(starts, dtype=np.int64),
            {s: np.asarray(v, dtype=np.int64) for s, v in by_source.items()},
        )

    def allowed(self, query: EvalQuery) -> np.ndarray | None:
        if query.source_filter is None:
            return None
        return self.by_source.get(query.source_filter, np.zeros(0, dtype=np.int64))


def _top(scores: np.ndarray, allowed: np.ndarray | None, k: int) -> np.ndarray:
    """Indices of the k best scores (stable on ties), within ``allowed`` when given."""
    pool = np.arange(len(scores)) if allowed is None else allowed
    order = np.argsort(-scores[pool], kind="stable")[:k]
    return pool[order]


def dense_method(data: ChunkData, embed_query: Callable[[str], np.ndarray]) -> Method:
    """Baseline (a): brute force over every window, a chunk scoring as its best window."""

    def rank(query: EvalQuery, k: int) -> list[str]:
        scores = np.maximum.reduceat(data.windows @ embed_query(query.text), data.starts)
        return [data.ids[i] for i in _top(scores, data.allowed(query), k)]

    return Method("dense", "baseline", BASELINES["dense"], rank)


class _Bm25:
    def __init__(self, data: ChunkData, tokenize: Callable[[str], list[str]]) -> None:
        from rank_bm25 import BM25Okapi

        self.data = data
        self.tokenize = tokenize
        self.bm25 = BM25Okapi([tokenize(t) for t in data.texts], k1=1.5, b=0.75)

    def top(self, query: EvalQuery, k: int) -> list[str]:
        """The seeds' selection: top k by score, only chunks scoring above 0."""
        scores = self.bm25.get_scores(self.tokenize(query.text))
        allowed = self.data.allowed(query)
        pool = np.arange(len(scores)) if allowed is None else allowed
        top = pool[scores[pool].argsort()[-k:][::-1]] if len(pool) else pool
        return [self.data.ids[i] for i in top if scores[i] > 0]


def bm25_method(data: ChunkData) -> Method:
    """Baseline (b): rank_bm25 BM25Okapi (k1=1.5, b=0.75), whitespace tokens, lower-cased."""
    bm25 = _Bm25(data, whitespace_tokens)
    return Method("bm25", "baseline", BASELINES["bm25"], bm25.top)


class SeedBaseline:
    """Baseline (c): HoloDeck 0.7.1's fallback hybrid over the index's chunks."""

    def __init__(
        self,
        data: ChunkData,
        embed_query: Callable[[str], np.ndarray],
        weights: tuple[float, float] = (0.5, 0.3),
        rrf_k: int = 60,
    ) -> None:
        self.data = data
        self.first = np.ascontiguousarray(data.windows[data.starts])
        self.embed_query = embed_query
        self.bm25 = _Bm25(data, seed_tokens)
        total = sum(weights)
        self.weights = (weights[0] / total, weights[1] / total)
        self.rrf_k = rrf_k

    def semantic(self, query: EvalQuery, k: int) -> list[str]:
        scores = self.first @ self.embed_query(query.text)
        allowed = self.data.allowed(query)
        pool = np.arange(len(scores)) if allowed is None else allowed
        return [self.data.ids[i] for i in pool[scores[pool].argsort()[-k:][::-1]]]

    def keyword(self, query: EvalQuery, k: int) -> list[str]:
        return self.bm25.top(query, k)

    def hybrid(self, query: EvalQuery, k: int) -> list[str]:
        fused: dict[str, float] = {}
        sides = (self.semantic(query, k), self.keyword(query, k))
        for weight, ranked in zip(self.weights, sides, strict=True):
            for rank, chunk_id in enumerate(ranked, start=1):
                fused[chunk_id] = fused.get(chunk_id, 0.0) + weight / (self.rrf_k + rank)
        return [c for c, _ in sorted(fused.items(), key=lambda e: e[1], reverse=True)[:k]]


def baseline_methods(
    names: Sequence[str], data: ChunkData, embed_query: Callable[[str], np.ndarray]
) -> list[Method]:
    seed = SeedBaseline(data, embed_query) if any(n.startswith("seed") for n in names) else None
    built: dict[str, Callable[[], Method]] = {
        "dense": lambda: dense_method(data, embed_query),
        "bm25": lambda: bm25_method(data),
        "seed": lambda: Method("seed", "baseline", BASELINES["seed"], seed.hybrid, per_cutoff=True),
        "seed-semantic": lambda: Method(
            "seed-semantic", "baseline", BASELINES["seed-semantic"], seed.semantic
        ),
        "seed-keyword": lambda: Method(
            "seed-keyword", "baseline", BASELINES["seed-keyword"], seed.keyword
        ),
    }
    unknown = [n for n in names if n not in built]
    if unknown:
        raise ValueError(f"unknown baseline {unknown[0]!r}; known: {', '.join(built)}")
    return [built[n]() for n in names]


# -- judging ------------------------------------------------------------------


@dataclass
class ChunkTable:
    """Where each chunk of an index comes from: its source and character range."""

    source: dict[str, str]
    span: dict[str, Span | None]
    of_source: dict[str, list[str]]
    unlocated: int = 0

    @classmethod
    def load(cls, index: Index, corpus: EvalCorpus) -> ChunkTable:
        texts = {d.source: d.text for d in corpus.documents} if corpus.unit == "span" else {}
        table = cls({}, {}, {})
        cursor: dict[str, int] = {}
        for stored in index.store.records.iter_chunks():
            chunk = stored.chunk
            table.source[chunk.chunk_id] = chunk.source
            table.of_source.setdefault(chunk.source, []).append(chunk.chunk_id)
            if chunk.source in texts:
                found = locate(texts[chunk.source], chunk.content, cursor.get(chunk.source, 0))
                table.span[chunk.chunk_id] = found
                if found is None:
                    table.unlocated += 1
                else:
                    cursor[chunk.source] = found[0] + 1
        return table


def locate(text: str, content: str, start: int = 0) -> Span | None:
    """The character range of a chunk's content in its document: chunks are verbatim
    slices (stripped), searched from ``start`` (reading order), then anywhere, then
    with any run of whitespace matching any other."""
    content = content.strip()
    for begin in (start, 0):
        at = text.find(content, begin)
        if at >= 0:
            return at, at + len(content)
    words = content.split()
    if not words:
        return None
    match = re.compile(r"\s+".join(map(re.escape, words))).search(text)
    return (match.start(), match.end()) if match else None


@dataclass
class Judged:
    values: dict[str, float]
    miss: dict[str, Any] | None


def _cut(name: str) -> int:
    return int(name.rsplit("@", 1)[1])


def judge(
    corpus: EvalCorpus, query: EvalQuery, rankings: Mapping[int, list[str]], table: ChunkTable
) -> Judged:
    """Every metric of one query from its rankings (chunk ids per cutoff)."""
    if corpus.unit == "document":
        return _judge_documents(corpus, query, rankings, table)
    if corpus.unit == "chunk":
        return _judge_chunks(corpus, query, rankings)
    return _judge_spans(corpus, query, rankings, table)


def _ranks(units: Sequence[str]) -> dict[str, int]:
    ranks: dict[str, int] = {}
    for rank, unit in enumerate(units, start=1):
        ranks.setdefault(unit, rank)
    return ranks


def _judge_documents(
    corpus: EvalCorpus, query: EvalQuery, rankings: Mapping[int, list[str]], table: ChunkTable
) -> Judged:
    relevant: dict[str, float] = query.relevant  # type: ignore[assignment]
    units = {k: dedupe(table.source.get(c, c) for c in r) for k, r in rankings.items()}
    values = {}
    for name in corpus.metrics:
        k = _cut(name)
        if name.startswith("nDCG"):
            values[name] = ndcg_at_k(units[10], relevant, k)
        elif name.startswith("MRR"):
            values[name] = mrr_at_k(units[10], relevant, k)
        else:
            values[name] = recall_at_k(units[k], relevant, k)
    top = set(units[10][:10])
    deepest = _ranks(units[max(units)])
    missed = [
        {"id": d, "grade": g, "rank": deepest.get(d)}
        for d, g in relevant.items()
        if g > 0 and d not in top
    ]
    return Judged(values, _miss(query, missed, units[10][:3]))


def _judge_chunks(
    corpus: EvalCorpus, query: EvalQuery, rankings: Mapping[int, list[str]]
) -> Judged:
    alias = corpus.aliases
    golden = [alias.get(c, c) for c in query.relevant]  # type: ignore[union-attr]
    graded = {key: 1.0 for key in golden}
    keys = {k: [alias.get(c, c) for c in r] for k, r in rankings.items()}
    values = {}
    for name in corpus.metrics:
        k = _cut(name)
        if name.startswith("Pass"):
            values[name] = 100.0 * pass_at_k(keys[k], golden, k)
        elif name.startswith("nDCG"):
            values[name] = ndcg_at_k(keys[10], graded, k)
        elif name.startswith("MRR"):
            values[name] = mrr_at_k(keys[10], graded, k)
        else:
            values[name] = recall_at_k(keys[k], graded, k)
    top = set(keys[10][:10])
    deepest = _ranks(keys[max(keys)])
    missed = [
        {"id": c, "rank": deepest.get(alias.get(c, c))}
        for c in query.relevant
        if alias.get(c, c) not in top
    ]
    return Judged(values, _miss(query, missed, rankings[10][:3]))


def _judge_spans(
    corpus: EvalCorpus, query: EvalQuery, rankings: Mapping[int, list[str]], table: ChunkTable
) -> Judged:
    gold: list[Span] = query.relevant  # type: ignore[assignment]
    source = query.source_filter or ""
    overlapping = {
        c: 1.0
        for c in table.of_source.get(source, [])
        if (s := table.span.get(c)) and any(spans_overlap(s, g) for g in gold)
    }
    values = {}
    for name in corpus.metrics:
        k = _cut(name)
        if name.startswith("nDCG"):
            values[name] = ndcg_at_k(rankings[10], overlapping, k)
        elif name.startswith("MRR"):
            values[name] = mrr_at_k(rankings[10], overlapping, k)
        else:
            spans = [table.span.get(c) for c in rankings[k]]
            values[name] = span_recall_at_k(spans, gold, k)
    return Judged(values, _span_miss(query, gold, rankings, table))


def _span_miss(
    query: EvalQuery, gold: list[Span], rankings: Mapping[int, list[str]], table: ChunkTable
) -> dict[str, Any] | None:
    top = [s for c in rankings[10][:10] if (s := table.span.get(c))]
    deepest = [table.span.get(c) for c in rankings[max(rankings)]]
    missed = []
    for g in gold:
        if any(spans_overlap(g, s) for s in top):
            continue
        rank = next((r for r, s in enumerate(deepest, 1) if s and spans_overlap(g, s)), None)
        missed.append({"span": list(g), "rank": rank})
    return _miss(query, missed, rankings[10][:3])


def _miss(query: EvalQuery, missed: list[dict], top: Sequence[str]) -> dict[str, Any] | None:
    if not missed:
        return None
    return {"query_id": query.id, "query": query.text, "missed": missed, "top3": list(top)}


# -- running ------------------------------------------------------------------


@dataclass
class MethodResult:
    name: str
    kind: str
    description: str
    settings: dict[str, Any]
    metrics: dict[str, float]
    misses: list[dict[str, Any]]
    queries: int
    seconds: float
    index: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "settings": self.settings,
            "index": self.index,
            "metrics": {k: round(v, 4) for k, v in self.metrics.items()},
            "queries": self.queries,
            "ms_per_query": round(1000 * self.seconds / max(self.queries, 1), 2),
            "queries_with_misses_at_10": len(self.misses),
            "misses": self.misses,
        }


@dataclass
class IndexInfo:
    key: str
    directory: str
    settings: dict[str, Any]
    documents: int
    chunks: int
    windows: int
    ingest_seconds: float
    windows_embedded: int
    unlocated_chunks: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class EvalReport:
    corpus: str
    description: str
    unit: str
    metrics: tuple[str, ...]
    main_metric: str
    queries: int
    documents: int
    results: list[MethodResult] = field(default_factory=list)
    indexes: list[IndexInfo] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def result(self, name: str) -> MethodResult | None:
        return next((r for r in self.results if r.name == name), None)

    def versus(self, name: str, reference: str = "dense") -> float | None:
        """Relative change of the main metric of ``name`` against ``reference``."""
        mine, ref = self.result(name), self.result(reference)
        if mine is None or ref is None or ref.metrics[self.main_metric] == 0:
            return None
        base = ref.metrics[self.main_metric]
        return (mine.metrics[self.main_metric] - base) / base

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus,
            "description": self.description,
            "unit": self.unit,
            "main_metric": self.main_metric,
            "metrics": list(self.metrics),
            "queries": self.queries,
            "documents": self.documents,
            "indexes": [i.to_dict() for i in self.indexes],
            "notes": self.notes,
            "results": [r.to_dict() for r in self.results],
        }

    def rows(self) -> list[list[str]]:
        """One table row per method: name, description, metrics (main first), vs dense."""
        order = [self.main_metric, *(m for m in self.metrics if m != self.main_metric)]
        rows = []
        for r in self.results:
            change = self.versus(r.name)
            rows.append(
                [
                    r.name,
                    r.kind,
                    r.description,
                    *(format_metric(m, r.metrics[m]) for m in order),
                    "" if change is None or r.name == "dense" else f"{100 * change:+.1f}%",
                    f"{1000 * r.seconds / max(r.queries, 1):.1f}",
                    str(len(r.misses)),
                ]
            )
        return rows

    def table(self) -> str:
        order = [self.main_metric, *(m for m in self.metrics if m != self.main_metric)]
        header = ["method", "kind", "what", *order, "main vs dense", "ms/query", "misses@10"]
        lines = [
            f"{self.description}: {self.queries} queries, {self.documents} documents",
            "",
            markdown_table(header, self.rows(), numeric_from=3),
        ]
        lines += [f"- {note}" for note in self.notes]
        return "\n".join(lines)


def format_metric(name: str, value: float) -> str:
    return f"{value:.2f}" if name.startswith("Pass") else f"{value:.3f}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int) -> str:
    align = ["---" if i < numeric_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


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


@dataclass
class _OpenIndex:
    index: Index
    info: IndexInfo
    table: ChunkTable


def pipeline_digest() -> str:
    """A digest of the ingest pipeline's source: a cached index built by other code is
    never reused, since the same corpus and settings would give another index."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha1()
    for file in sorted(package.rglob("*.py")):
        if file.parent == package and file.stem in SEARCH_MODULES:
            continue
        digest.update(file.relative_to(package).as_posix().encode() + b"\0")
        digest.update(file.read_bytes())
    return digest.hexdigest()[:12]


def _open_index(
    corpus: EvalCorpus, key: dict[str, Any], root: Path, embedder: CachingEmbedder, log: Log
) -> _OpenIndex:
    identity = [corpus.fingerprint(), key, pipeline_digest()]
    digest = hashlib.sha1(json.dumps(identity).encode()).hexdigest()[:10]
    directory = root / f"{corpus.name}-{digest}"
    index = Index.open(directory, Settings(**key), embedder=embedder)
    label = ", ".join(f"{k}={v}" for k, v in key.items() if getattr(Settings(), k) != v)
    label = label or "default ingest settings"
    before = embedder.computed
    report = index.ingest_texts(corpus.documents, progress=_ingest_progress(corpus.name, log))
    if report.problems:
        problems = "; ".join(f"{p.source}: {p.reason}" for p in report.problems[:3])
        raise RuntimeError(f"{len(report.problems)} documents failed to ingest: {problems}")
    index.glossary()  # built once per index, before any method is timed
    counts = index.store.records.counts()
    table = ChunkTable.load(index, corpus)
    info = IndexInfo(
        label,
        str(directory),
        key,
        counts["documents"],
        counts["chunks"],
        counts["vectors"],
        round(report.seconds, 1),
        embedder.computed - before,
        table.unlocated,
    )
    log(
        f"[{corpus.name}] index ({label}): {info.chunks} chunks, {info.windows} windows, "
        f"{info.windows_embedded} embedded now, {info.ingest_seconds:.0f} s"
    )
    return _OpenIndex(index, info, table)


def _ingest_progress(name: str, log: Log) -> Callable[[ProgressEvent], None]:
    step = 250

    def progress(event: ProgressEvent) -> None:
        if event.position % step == 0 or event.position == event.total:
            log(f"[{name}] ingest {event.position}/{event.total}")

    return progress


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
    from ..pipeline.embed import LocalEmbedder

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
    indexes: dict[str, _OpenIndex] = {}
    for query in queries:  # once, before any method is timed
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
    indexes: dict[str, _OpenIndex],
    report: EvalReport,
    log: Log,
) -> Iterable[tuple[Method, _OpenIndex]]:
    def opened(settings: Settings) -> _OpenIndex:
        key = _ingest_key(settings, corpus)
        name = json.dumps(key, sort_keys=True)
        if name not in indexes:
            indexes[name] = _open_index(corpus, key, root, embedder, log)
        return indexes[name]

    for variant in variants:
        skipped = _inapplicable(variant, corpus)
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


# -- command line -------------------------------------------------------------


def default_datasets() -> Path:
    return Path(os.environ.get("HIERDOC_DATASETS", "../shared/datasets"))


DATASET_PATHS = {
    "scifact": "scifact",
    "anthropic": "anthropic-codebase",
    "contractnli": "contractnli/test.json",
}


def load_dataset(dataset: str, path: str | Path | None = None, split: str = "test") -> EvalCorpus:
    """A corpus by dataset name (scifact, anthropic, contractnli, beir)."""
    if path is None:
        if dataset not in DATASET_PATHS:
            raise ValueError(f"--path is required for {dataset}")
        path = default_datasets() / DATASET_PATHS[dataset]
    loaders: dict[str, Callable[[], EvalCorpus]] = {
        "scifact": lambda: load_scifact(path),
        "anthropic": lambda: load_anthropic_codebase(path),
        "contractnli": lambda: load_contractnli(path),
        "beir": lambda: load_beir(path, split),
    }
    if dataset not in loaders:
        raise ValueError(f"unknown dataset {dataset!r}")
    return loaders[dataset]()


def default_index_dir() -> Path:
    return Path(tempfile.gettempdir()) / "hierdoc-eval"


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@click.command("eval")
@click.option(
    "--dataset",
    type=click.Choice(["scifact", "anthropic", "contractnli", "beir"]),
    required=True,
    help="Which loader to use.",
)
@click.option("--path", type=click.Path(exists=True), help="Dataset directory or file.")
@click.option("--split", default="test", show_default=True, help="BEIR qrels split.")
@click.option("--limit", type=int, help="Only the first N queries.")
@click.option(
    "--distractors",
    type=int,
    help="With --limit: index only the documents those queries judge plus N random others.",
)
@click.option(
    "--variants",
    default="standard",
    show_default=True,
    help=f"Comma-separated variants or groups ({', '.join([*PRESETS, *VARIANTS])}).",
)
@click.option(
    "--baselines",
    default="dense,bm25,seed",
    show_default=True,
    help=f"Comma-separated baselines ({', '.join(BASELINES)}), or 'none'.",
)
@click.option(
    "--index-dir",
    type=click.Path(file_okay=False),
    default=str(default_index_dir()),
    show_default=True,
    help="Where indexes and the embedding cache are kept between runs.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
def eval_command(
    dataset: str,
    path: str | None,
    split: str,
    limit: int | None,
    distractors: int | None,
    variants: str,
    baselines: str,
    index_dir: str,
    as_json: bool,
) -> None:
    """Measure retrieval quality on a benchmark: hierdoc variants beside baselines."""
    try:
        corpus = load_dataset(dataset, path, split)
        chosen = resolve_variants(variants)
    except (OSError, ValueError, KeyError) as error:
        raise click.ClickException(str(error)) from error
    if limit and distractors is not None:
        corpus = slice_corpus(corpus, limit, distractors)
    names = [] if baselines.strip() == "none" else [b.strip() for b in baselines.split(",")]
    report = run_eval(corpus, chosen, names, index_dir, limit=limit, log=_stderr)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(report.table())
