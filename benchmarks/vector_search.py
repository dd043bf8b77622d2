"""Exact vector search latency at scale, on synthetic unit vectors.

Embedding 100k real chunks takes hours on this machine, and brute-force search
costs the same whatever the vectors hold, so this uses random unit vectors of
the model's dimension (384). It measures hierdoc's ``VectorIndex.search`` (one
matrix-vector product, then the best window per chunk) against a plain numpy
baseline with one vector per chunk.

    python benchmarks/vector_search.py --sizes 10000 100000 --windows 1 3 --queries 200
"""

from __future__ import annotations

import argparse
import platform
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from hierdoc.store.local.vectors import VectorIndex

DIMENSION = 384


def unit_rows(count: int, rng: np.random.Generator) -> np.ndarray:
    rows = rng.standard_normal((count, DIMENSION), dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def time_queries(search, queries: np.ndarray) -> tuple[float, float]:
    samples = []
    for query in queries:
        start = time.perf_counter()
        search(query)
        samples.append((time.perf_counter() - start) * 1000)
    return percentiles(samples)


def run(chunks: int, windows: int, queries: np.ndarray, rng: np.random.Generator) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        index = VectorIndex(Path(folder), DIMENSION)
        matrix = unit_rows(chunks * windows, rng)
        added = [(f"c{i}", matrix[i * windows : (i + 1) * windows]) for i in range(chunks)]
        index.replace(set(), added, generation=1)
        p50, p95 = time_queries(lambda q: index.search(q, 50), queries)
    flat = unit_rows(chunks, rng)

    def baseline(query: np.ndarray) -> np.ndarray:
        scores = flat @ query
        return np.argsort(-scores)[:50]

    b50, b95 = time_queries(baseline, queries)
    return {
        "chunks": chunks,
        "windows": windows,
        "p50": p50,
        "p95": p95,
        "b50": b50,
        "b95": b95,
        "mb": index.nbytes / 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--windows", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    queries = unit_rows(args.queries, rng)
    print(f"Machine: {platform.machine()}, numpy {np.__version__}, {args.queries} queries, top 50")
    print()
    print(
        "| chunks | windows/chunk | matrix MB | hierdoc p50 ms | p95 ms | "
        "numpy argsort baseline p50 ms | p95 ms | p50 ratio |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in args.sizes:
        for windows in args.windows:
            r = run(size, windows, queries, rng)
            print(
                f"| {r['chunks']:,} | {r['windows']} | {r['mb']:.0f} | {r['p50']:.2f} | "
                f"{r['p95']:.2f} | {r['b50']:.2f} | {r['b95']:.2f} | {r['p50'] / r['b50']:.2f}× |"
            )


if __name__ == "__main__":
    main()
