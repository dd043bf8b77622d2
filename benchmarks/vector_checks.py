"""What checking the vector segments costs at open and on first reads, at 100k and 1M chunks.

One segment of N synthetic unit vectors (384 dimensions, one window per chunk) is written
by ``VectorIndex.rebuild``; then, in a fresh ``VectorIndex`` each time:

- open: ``load_cache`` (the manifest's checksums: whole files up to 64 MB, 64 samples of a
  bigger matrix), with the page cache warm;
- first search: the blocks a search reads are checked against ``<name>.crc`` (a segment
  under the HNSW size is scored whole, so every block is; over it, the candidates' blocks);
- every block: ``Segment.verify()`` of all its blocks, what an exact search or a merge of
  the segment checks once per process;
- full CRC: ``crc32_file`` of the whole matrix, what checking every row at open would cost.

``--no-graph`` writes the segment without its HNSW graph (a 1M-row graph takes many minutes
to build on a small machine): searches are then exact, so the first checks every block.

    python benchmarks/vector_checks.py [--sizes 100000,1000000] [--no-graph] [--work /tmp/dir]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from hierdoc.store.local import vectors
from hierdoc.store.local.check import crc32_file
from hierdoc.store.local.vectors import BLOCK_ROWS, VectorIndex

DIMENSION = 384


def rows(count: int) -> Iterator[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(3)
    for first in range(0, count, BLOCK_ROWS):
        block = rng.standard_normal((min(BLOCK_ROWS, count - first), DIMENSION), np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        for offset, vector in enumerate(block):
            yield f"c{first + offset}", vector[None, :]


def timed(run) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000


def measure(directory: Path, count: int) -> dict[str, float]:
    VectorIndex(directory, DIMENSION).rebuild(rows(count), generation=1)
    [matrix] = directory.glob("seg-*.npy")
    query = np.random.default_rng(9).standard_normal(DIMENSION).astype(np.float32)
    figures = {}
    for _ in range(2):  # the first run warms the page cache
        index = VectorIndex(directory, DIMENSION)
        figures["open ms"] = timed(lambda: index.load_cache())  # noqa: B023
        figures["first search ms"] = timed(lambda: index.search(query, 10))  # noqa: B023
        figures["next search ms"] = timed(lambda: index.search(query, 10))  # noqa: B023
        fresh = VectorIndex(directory, DIMENSION)
        fresh.load_cache()
        [segment] = fresh._state.segments
        figures["every block ms"] = timed(segment.verify)
        figures["full CRC ms"] = timed(lambda: crc32_file(matrix))
    figures["matrix MB"] = matrix.stat().st_size / 1e6
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--work", type=Path)
    parser.add_argument("--no-graph", action="store_true")
    args = parser.parse_args()
    if args.no_graph:
        vectors.ANN_ROWS = 1 << 62
    work = Path(tempfile.mkdtemp(dir=args.work))
    try:
        print("| chunks | matrix | open | first search | next search | every block | full CRC |")
        print("|---|---|---|---|---|---|---|")
        for count in map(int, args.sizes.split(",")):
            f = measure(work / str(count), count)
            print(
                f"| {count:,} | {f['matrix MB']:.0f} MB | {f['open ms']:.1f} ms | "
                f"{f['first search ms']:.0f} ms | {f['next search ms']:.0f} ms | "
                f"{f['every block ms']:.0f} ms | {f['full CRC ms']:.0f} ms |"
            )
            shutil.rmtree(work / str(count))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
