"""Recall@10 of the local store's vector search (HNSW above its threshold) against brute force.

The search measured is ``VectorIndex.search``, the code path of the local store: one
segment of all the vectors, its HNSW graph (:mod:`hierdoc.store.local.ann`) proposing
candidates that are rescored exactly, tombstones and filters by over-fetching. Truth is a
brute-force product over every vector. Latency is per query, both ways (the exact way is
the same segment scanned without its graph, as below the threshold).

Two sets of vectors (one window per chunk, chunks grouped into documents for filters):

* ``real``: 100,000 all-MiniLM-L6-v2 vectors of SciFact text (the 5,183 titles, then the
  abstracts' sentences, then their 2- and 3-sentence windows, in that order up to 100k),
  embedded once into /tmp/hierdoc-ann; queries are SciFact's 300 claims.
* ``synthetic``: ``--size`` vectors made from the real ones (see :func:`synthetic`);
  queries are 300 more made the same way and kept out of the index, plus the 300 claims.

    python benchmarks/ann_recall.py embed          # once: the real vectors (about an hour here)
    python benchmarks/ann_recall.py real [--connectivity 16 32] [--expansion-search 64 128]
    python benchmarks/ann_recall.py synthetic --size 1000000
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import sqlite3
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from hierdoc.eval.datasets import default_datasets
from hierdoc.models import Hit
from hierdoc.store.local import ann, vectors
from hierdoc.store.local.vectors import VectorIndex

CACHE = Path("/tmp/hierdoc-ann")
SCIFACT = default_datasets() / "scifact"
REAL_ROWS = 100_000
K = 10
ASKED = (10, 50)
EXACT_TIMED = 50
"""Queries per case timed through the exact scan (a scan of 1M rows takes most of a second
here, and its answers are known)."""
"""Chunks asked of the search: recall@10 alone, and the search stage's candidate depth."""
SYNTHETIC_SOURCE_CHUNKS = 25
EVAL_CACHE = Path("/tmp/hierdoc-eval/scifact/embeddings.sqlite")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s*(?=[A-Z(\[])")


@dataclass
class Vectors:
    """Window vectors grouped into chunks (``starts``) and chunks into sources."""

    matrix: np.ndarray
    starts: np.ndarray
    sources: list[str]
    origin: str

    @property
    def chunks(self) -> int:
        return len(self.starts) - 1

    def rows(self) -> list[tuple[str, np.ndarray]]:
        return [
            (f"c{i}", self.matrix[self.starts[i] : self.starts[i + 1]]) for i in range(self.chunks)
        ]


def single_windows(matrix: np.ndarray, sources: list[str], origin: str) -> Vectors:
    return Vectors(matrix, np.arange(len(matrix) + 1), sources, origin)


def scifact_texts(limit: int = REAL_ROWS) -> tuple[list[str], list[str]]:
    """(texts, their document ids): titles, sentences, then 2- and 3-sentence windows of
    SciFact's abstracts, the first ``limit`` in that order."""
    rows: dict[int, list[tuple[str, str]]] = {0: [], 1: [], 2: [], 3: []}
    for line in (SCIFACT / "corpus.jsonl").open():
        document = json.loads(line)
        rows[0].append((document["title"], document["_id"]))
        sentences = [s.strip() for s in _SENTENCE_END.split(document["text"]) if len(s) > 20]
        for size in (1, 2, 3):
            rows[size].extend(
                (" ".join(sentences[i : i + size]), document["_id"])
                for i in range(len(sentences) - size + 1)
            )
    chosen = (rows[0] + rows[1] + rows[2] + rows[3])[:limit]
    return [t for t, _ in chosen], [s for _, s in chosen]


def scifact_queries() -> list[str]:
    return [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open()]


def embed_cached(name: str, texts: list[str], batch: int = 32) -> np.ndarray:
    """Unit MiniLM vectors of ``texts``, computed once into CACHE/<name>.npy (in parts of
    5,000, so that an interrupted run resumes). The model is the one the pipeline embeds
    with (sentence-transformers on the bundled all-MiniLM-L6-v2, normalized)."""
    target = CACHE / f"{name}.npy"
    if target.exists():
        return np.load(target)
    from sentence_transformers import SentenceTransformer

    from hierdoc.text.tokenizer import bundled_model_dir

    CACHE.mkdir(parents=True, exist_ok=True)
    model = SentenceTransformer(str(bundled_model_dir()), device="cpu")
    part_size, parts = 5_000, []
    for first in range(0, len(texts), part_size):
        part = CACHE / f"{name}.part{first // part_size:04d}.npy"
        if not part.exists():
            started = time.perf_counter()
            encoded = model.encode(
                texts[first : first + part_size],
                batch_size=batch,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
            np.save(part, np.asarray(encoded, dtype=np.float32))
            rate = min(part_size, len(texts) - first) / (time.perf_counter() - started)
            print(f"{name}: {first + part_size}/{len(texts)} ({rate:.0f} texts/s)", flush=True)
        parts.append(part)
    np.save(target, np.vstack([np.load(p) for p in parts]))
    for part in parts:
        part.unlink()
    return np.load(target)


def real_vectors(limit: int) -> Vectors:
    """Up to ``limit`` real vectors: the SciFact texts embedded here (every finished part
    of 5,000 when the run was cut short), then the evaluation's cached embeddings of
    SciFact chunks (real pipeline windows, several per chunk; their sources unknown, so
    runs of 20 chunks stand for one)."""
    texts, sources = scifact_texts()
    blocks, starts, chunk_sources = [], [0], []
    whole = CACHE / "scifact-100k.npy"
    parts = [whole] if whole.exists() else sorted(CACHE.glob("scifact-100k.part*.npy"))
    for path in parts:
        first = 0 if path == whole else int(path.stem.rsplit("part", 1)[1]) * 5_000
        block = np.load(path)
        blocks.append(block)
        chunk_sources += sources[first : first + len(block)]
        starts += list(range(starts[-1] + 1, starts[-1] + len(block) + 1))
    embedded = starts[-1]
    for number, windows in enumerate(eval_cache(EVAL_CACHE)):
        if starts[-1] + len(windows) > limit:
            break
        blocks.append(windows)
        chunk_sources.append(f"eval-{number // 20}")
        starts.append(starts[-1] + len(windows))
    matrix = np.vstack(blocks)[: starts[-1]]
    origin = (
        f"{embedded:,} SciFact sentences/windows embedded here + "
        f"{starts[-1] - embedded:,} cached SciFact chunk windows"
    )
    return Vectors(matrix, np.asarray(starts), chunk_sources, origin)


def eval_cache(path: Path) -> Iterator[np.ndarray]:
    """The windows of each chunk the evaluation embedded (``hierdoc eval``'s cache)."""
    if not path.exists():
        return
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        for (blob,) in db.execute("SELECT rows FROM v ORDER BY key"):
            yield np.frombuffer(blob, dtype=np.float32).reshape(-1, 384)


def query_vectors() -> np.ndarray:
    return embed_cached("scifact-queries", scifact_queries())


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def synthetic(base: np.ndarray, count: int, seed: int) -> np.ndarray:
    """``count`` unit vectors shaped like ``base`` (real MiniLM vectors), not uniform noise.

    Each is a real vector, pulled part of the way (a share drawn from U(0, 0.4)) towards
    another real vector, plus Gaussian noise with the real vectors' own covariance (so
    it spreads along the directions the model uses, not evenly over 384). The result keeps
    the real set's anisotropy and neighbourhood structure: many passages close to each
    other, as in a large corpus of similar documents, where uniform random vectors in 384
    dimensions have none (their nearest neighbour is at cosine ~0.2, the worst case for
    any graph index).
    """
    rng = np.random.default_rng(seed)
    scale, axes = _spread(base)
    out = np.empty((count, base.shape[1]), np.float32)
    for first in range(0, count, 100_000):
        size = min(100_000, count - first)
        own = base[rng.integers(0, len(base), size)]
        other = base[rng.integers(0, len(base), size)]
        pull = rng.uniform(0, 0.4, (size, 1)).astype(np.float32)
        noise = (rng.standard_normal((size, len(scale)), np.float32) * scale) @ axes
        out[first : first + size] = _unit(own + pull * (other - own) + NOISE * noise)
    return out


NOISE = 0.6
"""Scale of the covariance-shaped noise added to each synthetic vector."""
_SPREADS: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _spread(base: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Standard deviations along the principal axes of ``base`` (from a sample of 20k
    rows), and the axes; computed once per base."""
    if id(base) not in _SPREADS:
        sample = base[:: max(1, len(base) // 20_000)].astype(np.float64)
        centred = sample - sample.mean(axis=0)
        variances, axes = np.linalg.eigh(centred.T @ centred / len(centred))
        spread = np.sqrt(np.clip(variances, 0, None)).astype(np.float32)
        _SPREADS[id(base)] = (spread, axes.T.astype(np.float32))
    return _SPREADS[id(base)]


def exact_top(data: Vectors, queries: np.ndarray, mask: np.ndarray | None) -> list[Top]:
    """Each query's top K chunks by brute force over every window (a chunk scores as its
    best window; chunks outside ``mask`` excluded)."""
    result = []
    for first in range(0, len(queries), 50):
        scores = np.maximum.reduceat(data.matrix @ queries[first : first + 50].T, data.starts[:-1])
        if mask is not None:
            scores[~mask] = -np.inf
        top = np.argpartition(-scores, K, axis=0)[:K].T
        for column, chunks in enumerate(top):
            kept = [int(c) for c in chunks if np.isfinite(scores[c, column])]
            last = min((float(scores[c, column]) for c in kept), default=np.inf)
            result.append(Top({f"c{c}" for c in kept}, last))
    return result


@dataclass
class Top:
    """The exact top K of one query: chunk ids and the K-th best score."""

    ids: set[str]
    last: float

    def found(self, hits: list[Hit]) -> int:
        """How many of ``hits`` (the first K, scored exactly) belong to a true top K: the
        same chunks, or others tied with them (SciFact and the cached windows hold
        identical texts, so the exact top K is one of several)."""
        right = sum(h.chunk_id in self.ids or h.score >= self.last - TIE for h in hits)
        return min(right, len(self.ids))


TIE = 1e-6
COLUMNS = [
    "connectivity", "dtype", "expansion_add", "build s", "graph MB", "expansion_search",
    "queries", "k asked", "recall@10", "ANN p50 / p95 ms", "exact p50 / p95 ms",
]  # fmt: skip


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


@dataclass
class Case:
    """One set of queries against one filter, with its exact answers."""

    name: str
    queries: np.ndarray
    allowed: set[str] | None
    truth: list[Top]


def _first(case: Case, count: int) -> Case:
    return Case(case.name, case.queries[:count], case.allowed, case.truth[:count])


def measure(index: VectorIndex, case: Case, asked: int) -> tuple[float, float, float]:
    """(recall@10, p50 ms, p95 ms) of ``index.search`` asked for ``asked`` chunks (the
    search stage asks for its candidate depth, 50 by default), its first 10 against the
    exact top 10."""
    found, wanted, samples = 0, 0, []
    for query, truth in zip(case.queries, case.truth, strict=True):
        started = time.perf_counter()
        hits = index.search(query, asked, case.allowed)[:K]
        samples.append((time.perf_counter() - started) * 1000)
        found += truth.found(hits)
        wanted += len(truth.ids)
    p50, p95 = percentiles(samples)
    return found / wanted, p50, p95


def without_graph(index: VectorIndex) -> VectorIndex:
    """The same vectors searched exactly (the segment without its graph)."""
    state = index._state
    exact = VectorIndex(Path("/nonexistent"), index.dimension)
    exact._state = replace(state, segments=tuple(replace(s, graph=None) for s in state.segments))
    return exact


def cases(data: Vectors, query_sets: dict[str, np.ndarray], removed: set[int]) -> list[Case]:
    """Each query set unfiltered, then the first set filtered to its biggest source, to 10%
    and to 50% of the sources; deleted chunks excluded from every answer."""
    alive = np.ones(data.chunks, bool)
    alive[list(removed)] = False
    counts = Counter(data.sources)
    distinct = sorted(counts)
    rng = np.random.default_rng(11)
    result = []
    for name, queries in query_sets.items():
        result.append(Case(name, queries, None, exact_top(data, queries, alive)))
    name, queries = next(iter(query_sets.items()))
    for label, share in (("1 source", 0.0), ("10% of sources", 0.1), ("50% of sources", 0.5)):
        if share == 0:
            picked = {counts.most_common(1)[0][0]}
        else:
            picked = set(rng.choice(distinct, int(share * len(distinct)), replace=False))
        mask = alive & np.fromiter((s in picked for s in data.sources), bool, data.chunks)
        allowed = {f"c{i}" for i in np.flatnonzero(mask)}
        truth = exact_top(data, queries, mask)
        result.append(Case(f"{name}, {label}", queries, allowed, truth))
    return result


def neighbour_similarity(data: Vectors, queries: np.ndarray) -> tuple[float, float]:
    """Mean cosine of the best and the 10th best chunk for the queries."""
    firsts, tenths = [], []
    for top, query in zip(exact_top(data, queries, None), queries, strict=True):
        chunks = [int(c[1:]) for c in top.ids]
        scores = sorted(
            (
                float(np.max(data.matrix[data.starts[c] : data.starts[c + 1]] @ query))
                for c in chunks
            ),
            reverse=True,
        )
        firsts.append(scores[0])
        tenths.append(scores[-1])
    return float(np.mean(firsts)), float(np.mean(tenths))


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(
    data: Vectors,
    query_sets: dict[str, np.ndarray],
    settings: list[tuple[int, str, int]],
    expansions: list[int],
) -> None:
    """Build the index once per (connectivity, dtype), then measure every case at every
    minimum ``expansion_search``; print one table row per measurement."""
    rng = np.random.default_rng(5)
    removed = set(rng.choice(data.chunks, data.chunks // 10, replace=False).tolist())
    all_cases = cases(data, query_sets, removed)
    asked = ", ".join(f"{name}: {len(q)} queries" for name, q in query_sets.items())
    print(f"{len(data.matrix):,} vectors ({data.origin}) in {data.chunks:,} chunks; {asked}; ")
    print("10% of the chunks deleted (tombstones) before searching")
    print()
    print(f"| {' | '.join(COLUMNS)} |")
    print("|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    rows = data.rows()
    for connectivity, dtype, expansion_add in settings:
        ann.CONNECTIVITY, ann.DTYPE, ann.EXPANSION_ADD = connectivity, dtype, expansion_add
        with tempfile.TemporaryDirectory(dir=CACHE) as folder:
            index = VectorIndex(Path(folder), data.matrix.shape[1])
            started = time.perf_counter()
            index.rebuild(rows, generation=1)
            build = time.perf_counter() - started
            index.replace({f"c{i}" for i in removed}, [], generation=2)
            graph_mb = sum(p.stat().st_size for p in Path(folder).glob("*.usearch")) / 1e6
            exact = without_graph(index)
            exact_times = {c.name: measure(exact, _first(c, EXACT_TIMED), K)[1:] for c in all_cases}
            for expansion in expansions:
                ann.EXPANSION_SEARCH = expansion
                for case in all_cases:
                    e50, e95 = exact_times[case.name]
                    for asked in ASKED:
                        recall, p50, p95 = measure(index, case, asked)
                        cells = [connectivity, dtype, expansion_add, f"{build:.0f}"]
                        cells += [f"{graph_mb:.0f}", expansion, case.name, asked]
                        cells += [f"{recall:.4f}", f"{p50:.2f} / {p95:.2f}"]
                        cells += [f"{e50:.2f} / {e95:.2f}"]
                        print(f"| {' | '.join(str(c) for c in cells)} |", flush=True)
    print()
    print(f"peak RSS {peak_rss_mb():.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["embed", "real", "synthetic"])
    parser.add_argument("--size", type=int, default=1_000_000, help="synthetic vectors")
    parser.add_argument("--rows", type=int, default=REAL_ROWS, help="real vectors at most")
    parser.add_argument("--queries", type=int, default=300, help="held-out synthetic queries")
    parser.add_argument(
        "--claims", action="store_true", help="also query the synthetic set with the claims"
    )
    parser.add_argument("--connectivity", type=int, nargs="+", default=[ann.CONNECTIVITY])
    parser.add_argument("--dtype", nargs="+", default=[ann.DTYPE])
    parser.add_argument("--expansion-add", type=int, nargs="+", default=[ann.EXPANSION_ADD])
    parser.add_argument("--expansion-search", type=int, nargs="+", default=[ann.EXPANSION_SEARCH])
    args = parser.parse_args()
    claims = query_vectors()
    if args.mode == "embed":
        texts, _ = scifact_texts(args.rows)
        embed_cached("scifact-100k", texts)
        return
    vectors.ANN_ROWS = min(vectors.ANN_ROWS, args.rows // 2)
    settings = [
        (c, d, e) for c in args.connectivity for d in args.dtype for e in args.expansion_add
    ]
    real = real_vectors(args.rows)
    if args.mode == "real":
        first, tenth = neighbour_similarity(real, claims)
        print(f"real: the claims' best chunk at cosine {first:.3f}, 10th best {tenth:.3f}")
        run(real, {"SciFact claims": claims}, settings, args.expansion_search)
        return
    matrix = synthetic(real.matrix, args.size, seed=1)
    sources = [f"s{i // SYNTHETIC_SOURCE_CHUNKS}" for i in range(len(matrix))]
    data = single_windows(matrix, sources, f"synthetic from {len(real.matrix):,} real")
    held_out = synthetic(real.matrix, args.queries, seed=2)
    query_sets = {"held-out synthetic": held_out}
    if args.claims:
        query_sets["SciFact claims"] = claims
    for name, queries in query_sets.items():
        first, tenth = neighbour_similarity(data, queries)
        print(f"synthetic, {name}: best chunk at cosine {first:.3f}, 10th best {tenth:.3f}")
    run(data, query_sets, settings, args.expansion_search)


if __name__ == "__main__":
    main()
