"""Lexical-side changes measured offline on every set of the retrieval table: each change
ranks the stored chunks and vectors of a cached evaluation index in numpy (no re-indexing)
and is fused with the dense side by hierdoc's own
:func:`~hierdoc.search.fuse.score_fusion`, so each row is one change against the same
baseline in the same run.

    python benchmarks/lexical_offline.py --sets obliqa,scifact,anthropic,contractnli

BM25 is :class:`obliqa_offline.Bm25` over hierdoc's analyzer (``analyze`` for a chunk's
context and text, the primary ``analyze_query`` terms for a query), the dense side the
stored windows (a chunk scores as its best window), 50 candidates a side, a query's
``source_filter`` applied to both. No exact modality, no pinned citations and no
named-document ranking, so the rows sit near, not at, ``hierdoc eval``'s figures. The
index read is the newest one of the set under ``--index-dir`` (its name is printed).

Changes (``--changes``): ``context 0.5`` / ``context 0`` (the context's term counts
weighted), ``k1 0.9`` / ``b 0.5`` / ``b 0.9``; ``pairs W`` (each chunk's adjacent term pairs
of context and text, :func:`~hierdoc.text.analyze.analyze_pairs`, indexed beside its
terms, and the query's pairs weighted W against 1 for a term: hierdoc's keyword ranking
is ``pairs 0.33``); ``rm3`` (the query's terms weighted 0.5 plus 0.5 spread over the 10
terms of the first 10 keyword results that weigh most, each result's term frequencies over
its length times its share of their BM25 scores); ``dense prf`` (the query vector plus 0.5
times the mean of the first 5 hybrid results' first windows, normalised; hybrid fused
again); ``headings`` / ``headings and parents`` (ObliQA: each passage's ancestors by its
PassageID added to its context, the short ones or all; other sets unchanged).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sparse

sys.path.insert(0, str(Path(__file__).resolve().parent))

from obliqa_offline import DEPTH, Bm25  # noqa: E402
from search_stage import FOLDERS  # noqa: E402

from hierdoc import Index, Settings  # noqa: E402
from hierdoc.eval.datasets import EvalCorpus, dataset_path, load_dataset  # noqa: E402
from hierdoc.eval.embed_cache import CachingEmbedder  # noqa: E402
from hierdoc.eval.judging import ChunkTable, judge  # noqa: E402
from hierdoc.eval.metrics import CUTOFFS  # noqa: E402
from hierdoc.models import Hit  # noqa: E402
from hierdoc.pipeline.embed import LocalEmbedder  # noqa: E402
from hierdoc.search.fuse import score_fusion  # noqa: E402
from hierdoc.text.analyze import analyze, analyze_pairs, analyze_query  # noqa: E402

CHANGES = (
    "context 0.5",
    "context 0",
    "k1 0.9",
    "b 0.5",
    "b 0.9",
    "headings",
    "headings and parents",
    "pairs 0.25",
    "pairs 0.33",
    "pairs 0.5",
    "pairs 1",
    "rm3",
    "dense prf",
)
SHOWN = {
    "obliqa": ("R@10", "MAP@10"),
    "scifact": ("nDCG@10",),
    "anthropic": ("Pass@10",),
    "contractnli": ("SpanR@1",),
}


def newest_index(root: Path, corpus: EvalCorpus) -> Path:
    """The most recently written index of ``corpus`` under ``root`` that holds all its
    documents (an interrupted build holds fewer)."""
    found = [p for p in root.iterdir() if p.is_dir() and p.name.rsplit("-", 1)[0] == corpus.name]
    for directory in sorted(found, key=lambda p: p.stat().st_mtime, reverse=True):
        with Index.open(directory, Settings(), mode="r") as index:
            if index.stats().documents == len(corpus.documents):
                return directory
    raise SystemExit(f"no whole {corpus.name} index under {root}: run search_stage.py first")


class SetData:
    """One set's corpus, chunk table, chunks' terms and windows, queries' terms and vectors."""

    def __init__(self, name: str, root: Path, directory: Path | None = None) -> None:
        self.corpus: EvalCorpus = load_dataset(name, dataset_path(name))
        folder = root / FOLDERS.get(name, name)
        self.directory = directory or newest_index(folder, self.corpus)
        folder = self.directory.parent
        with Index.open(self.directory, Settings(), mode="r") as index:
            stored = list(index.iter_chunks())
            vectors = dict(index.iter_vectors())
            self.table = ChunkTable.load(index, self.corpus)
        self.ids = [s.chunk.chunk_id for s in stored]
        self.context = [analyze(s.context or "") for s in stored]
        self.text = [analyze(s.chunk.content) for s in stored]
        self.contents = [s.chunk.content for s in stored]
        self.pairs = [analyze_pairs(f"{s.context or ''}\n{s.chunk.content}") for s in stored]
        blocks = [vectors[i] for i in self.ids]
        self.windows = np.vstack(blocks).astype(np.float32)
        self.starts = np.cumsum([0] + [len(b) for b in blocks[:-1]])
        sources = {s: n for n, s in enumerate(dict.fromkeys(s.chunk.source for s in stored))}
        self.source = np.array([sources[s.chunk.source] for s in stored])
        queries = self.corpus.queries
        self.filters = [
            sources.get(q.source_filter, -1) if q.source_filter else None for q in queries
        ]
        self.terms = [[t.term for t in analyze_query(q.text)] for q in queries]
        cached = CachingEmbedder(LocalEmbedder(), folder / "embeddings.sqlite")
        cached.embed_queries([q.text for q in queries])
        self.vectors = np.vstack([cached.embed_query(q.text) for q in queries]).astype(np.float32)
        cached.close()

    def top(self, scores: np.ndarray, positive: bool) -> list[list[Hit]]:
        """The first :data:`DEPTH` chunks of each row, within the query's filter."""
        ranked = []
        for row, wanted in enumerate(self.filters):
            values = scores[row].astype(np.float64)
            if wanted is not None:
                values = np.where(self.source == wanted, values, -np.inf)
            depth = min(DEPTH, len(values) - 1)
            chosen = np.argpartition(-values, depth)[:depth]
            order = chosen[np.argsort(-values[chosen], kind="stable")]
            floor = 0.0 if positive else -np.inf
            ranked.append([Hit(str(i), float(values[i])) for i in order if values[i] > floor])
        return ranked

    def dense(self, vectors: np.ndarray) -> list[list[Hit]]:
        scores = np.maximum.reduceat(self.windows @ vectors.T, self.starts, axis=0).T
        return self.top(scores, positive=False)

    def measure(self, ranked: list[list[str]]) -> dict[str, float]:
        totals: Counter[str] = Counter()
        for query, ids in zip(self.corpus.queries, ranked, strict=True):
            chunk_ids = [self.ids[int(i)] for i in ids][: max(CUTOFFS)]
            values = judge(self.corpus, query, dict.fromkeys(CUTOFFS, chunk_ids), self.table).values
            totals.update(values)
        return {name: value / len(ranked) for name, value in totals.items()}


def fused(keyword: list[list[Hit]], semantic: list[list[Hit]]) -> list[list[str]]:
    weights = Settings().search_settings().weights
    return [
        [c for c, _ in score_fusion({"keyword": k, "semantic": s}, weights)]
        for k, s in zip(keyword, semantic, strict=True)
    ]


def weighted_scores(bm25: Bm25, queries: list[dict[str, float]]) -> np.ndarray:
    """BM25 scores of queries given as term -> weight (a term's idf times its weight)."""
    rows, cols, values = [], [], []
    for column, terms in enumerate(queries):
        for term, weight in terms.items():
            if term in bm25.vocab:
                rows.append(bm25.vocab[term])
                cols.append(column)
                values.append(bm25.idf[bm25.vocab[term]] * weight)
    shape = (len(bm25.vocab), len(queries))
    asked = sparse.csr_matrix((values, (rows, cols)), shape=shape)
    return (bm25.matrix @ asked).T.toarray()


def rm3(data: SetData, first: list[list[Hit]], docs: int = 10, terms: int = 10) -> list[dict]:
    """Each query's terms at weight 0.5 plus 0.5 spread over its feedback terms."""
    expanded = []
    for asked, hits in zip(data.terms, first, strict=True):
        top = hits[:docs]
        total = sum(h.score for h in top) or 1.0
        model: Counter[str] = Counter()
        for hit in top:
            words = data.context[int(hit.chunk_id)] + data.text[int(hit.chunk_id)]
            counts = Counter(words)
            for term, count in counts.items():
                model[term] += count / len(words) * hit.score / total
        best = model.most_common(terms)
        mass = sum(w for _, w in best) or 1.0
        query: Counter[str] = Counter({t: 0.5 / max(len(set(asked)), 1) for t in set(asked)})
        for term, weight in best:
            query[term] += 0.5 * weight / mass
        expanded.append(dict(query))
    return expanded


def run_set(data: SetData, changes: list[str]) -> dict[str, dict[str, float]]:
    rows: dict[str, dict[str, float]] = {}
    fields = [[c, t] for c, t in zip(data.context, data.text, strict=True)]
    semantic = data.dense(data.vectors)
    rows["semantic"] = data.measure([[h.chunk_id for h in hits] for hits in semantic])
    base = Bm25(fields, [1.0, 1.0])
    keyword = data.top(base.scores(data.terms), positive=True)
    rows["keyword"] = data.measure([[h.chunk_id for h in hits] for hits in keyword])
    hybrid = fused(keyword, semantic)
    rows["hybrid"] = data.measure(hybrid)
    pairs_index = None
    for change in changes:
        started = time.perf_counter()
        kw, sem = keyword, semantic
        if change.startswith("context "):
            bm25 = Bm25(fields, [float(change.split()[1]), 1.0])
            kw = data.top(bm25.scores(data.terms), positive=True)
        elif change.startswith(("k1 ", "b ")):
            name, value = change.split()
            bm25 = Bm25(fields, [1.0, 1.0], **{name: float(value)})
            kw = data.top(bm25.scores(data.terms), positive=True)
        elif change.startswith("pairs"):
            weight = float(change.split()[1])
            pairs_index = pairs_index or Bm25(
                [[c, t, p] for (c, t), p in zip(fields, data.pairs, strict=True)], [1.0, 1.0, 1.0]
            )
            asked = [
                {**dict.fromkeys(analyze_pairs(q.text), weight), **dict.fromkeys(t, 1.0)}
                for q, t in zip(data.corpus.queries, data.terms, strict=True)
            ]
            kw = data.top(weighted_scores(pairs_index, asked), positive=True)
        elif change.startswith("headings"):
            heads = passage_headings(data, whole=change == "headings and parents")
            bm25 = Bm25([[c + h, t] for (c, t), h in zip(fields, heads, strict=True)], [1.0, 1.0])
            kw = data.top(bm25.scores(data.terms), positive=True)
        elif change == "rm3":
            kw = data.top(weighted_scores(base, rm3(data, keyword)), positive=True)
        elif change == "dense prf":
            sem = data.dense(dense_prf(data, hybrid))
        else:
            raise SystemExit(f"unknown change {change!r}")
        rows[f"keyword, {change}"] = data.measure([[h.chunk_id for h in hits] for hits in kw])
        rows[f"hybrid, {change}"] = data.measure(fused(kw, sem))
        print(f"  {change}: {time.perf_counter() - started:.0f} s", flush=True)
    return rows


def passage_headings(data: SetData, whole: bool) -> list[list[str]]:
    """ObliQA: each passage's ancestors by its PassageID (``3.4.2`` under ``3.4`` and ``3``,
    ``13.3.2.Guidance.3.`` under ``13.3.2.Guidance``...), analysed: the short ones (headings,
    at most 12 words), or with ``whole`` every ancestor's text."""
    if data.corpus.name != "obliqa-passages":
        return [[] for _ in data.ids]
    key = {i: n for n, i in enumerate(data.ids)}
    found = []
    for chunk_id in data.ids:
        document, passage = chunk_id.split("~")[0].split(":", 1)
        parts = passage.rstrip(".").split(".")
        terms: list[str] = []
        for cut in range(1, len(parts)):
            prefix = ".".join(parts[:cut])
            for candidate in (f"{document}:{prefix}", f"{document}:{prefix}."):
                if candidate in key:
                    text = data.contents[key[candidate]]
                    if whole or len(text.split()) <= 12:
                        terms += data.text[key[candidate]]
        found.append(terms)
    return found


def dense_prf(data: SetData, hybrid: list[list[str]], first: int = 5, beta: float = 0.5):
    moved = data.vectors.copy()
    for row, ids in enumerate(hybrid):
        chosen = [data.starts[int(i)] for i in ids[:first]]
        if chosen:
            moved[row] += beta * data.windows[chosen].mean(axis=0)
    return moved / np.linalg.norm(moved, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", default="obliqa,scifact,anthropic,contractnli")
    parser.add_argument("--changes", default=",".join(CHANGES))
    parser.add_argument("--index-dir", type=Path, default=Path("/tmp/hierdoc-eval"))
    parser.add_argument(
        "--index",
        action="append",
        default=[],
        metavar="SET=DIR",
        help="the index to read for a set (its embedding cache beside it)",
    )
    args = parser.parse_args()
    changes = [c for c in args.changes.split(",") if c]
    chosen = {k: Path(v) for k, v in (item.split("=", 1) for item in args.index)}
    results: dict[str, Any] = {}
    for name in args.sets.split(","):
        started = time.perf_counter()
        data = SetData(name, args.index_dir, chosen.get(name))
        print(
            f"{name}: {data.directory.name}, {len(data.ids)} chunks, "
            f"{len(data.terms)} queries, loaded in {time.perf_counter() - started:.0f} s",
            flush=True,
        )
        results[name] = run_set(data, changes)
    names = list(dict.fromkeys(r for rows in results.values() for r in rows))
    heads = [f"{s} {m}" for s in results for m in SHOWN[s]]
    print("| method | " + " | ".join(heads) + " |\n|---|" + "---:|" * len(heads))
    for row in names:
        cells = [
            f"{results[s][row][m]:.4f}" if row in results[s] else "-"
            for s in results
            for m in SHOWN[s]
        ]
        print(f"| {row} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
