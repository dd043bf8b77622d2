"""A zeroed vector row in a large (memory-mapped) segment, where opening the index checks
only samples of the matrix: the row's block is checked before a search reads it, and the
chunk is still found, by its vectors as the records hold them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hierdoc.models import Chunk, DocumentRecord, StoredChunk
from hierdoc.store.local import ann
from hierdoc.store.local.check import FULL_CHECK_BYTES
from hierdoc.store.local.store import LocalStore
from hierdoc.store.local.vectors import ANN_ROWS, MAP_BYTES
from hierdoc.text.analyze import TEXT_ANALYZER

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

DIMENSION = 384
CHUNKS_EACH = 1_000


def _chunk(source: str, n: int) -> StoredChunk:
    chunk = Chunk(
        chunk_id=f"{source}#{n}",
        source=source,
        title=source,
        section_id=f"s-{n}",
        heading=f"S {n}",
        parent_chain=(f"S {n}",),
        section_path=(f"s-{n}",),
        content=f"w{n}",
        ordinal=n,
        token_count=1,
    )
    return StoredChunk(chunk, "")


def _fill(directory: Path, documents: int) -> np.ndarray:
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((documents * CHUNKS_EACH, DIMENSION)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store = LocalStore(directory, DIMENSION, TEXT_ANALYZER, hold_writer=True)
    try:
        for d in range(documents):
            source = f"doc{d}.md"
            chunks = [_chunk(source, c) for c in range(CHUNKS_EACH)]
            rows = vectors[d * CHUNKS_EACH : (d + 1) * CHUNKS_EACH]
            record = DocumentRecord(source, f"Doc {d}", f"h{d}", "md", 10, CHUNKS_EACH)
            store.write_document(record, [], chunks, [row[None, :] for row in rows])
        store.flush()
    finally:
        store.close()
    return vectors


def _unsampled_row(path: Path, rows: int) -> int:
    """A row in the middle of the matrix that none of the 64 blocks sampled on open touches."""
    size, piece = path.stat().st_size, 65_536
    sampled = [(b * (size - piece) // 63, b * (size - piece) // 63 + piece) for b in range(64)]
    data_start = size - rows * DIMENSION * 4
    for row in range(rows // 2, rows):
        start = data_start + row * DIMENSION * 4
        if all(start + DIMENSION * 4 <= lo or start >= hi for lo, hi in sampled):
            return row
    raise AssertionError("every row is sampled")


@pytest.mark.parametrize("documents", [45, 51], ids=["exact", "hnsw"])
def test_a_zeroed_row_in_a_large_segment_never_changes_results(
    tmp_path: Path, documents: int
) -> None:
    """45,000 rows (69 MB) are searched exactly; 51,000 through an HNSW graph whose
    candidates are rescored from the matrix. Either way the matrix is memory-mapped and
    only sampled on open."""
    directory = tmp_path / "index"
    vectors = _fill(directory, documents)
    [matrix_file] = (directory / "vectors").glob("seg-*.npy")
    assert matrix_file.stat().st_size > max(MAP_BYTES, FULL_CHECK_BYTES)
    graphs = list((directory / "vectors").glob("seg-*.usearch"))
    assert len(graphs) == (len(vectors) >= ANN_ROWS and ann.available())
    row = _unsampled_row(matrix_file, len(vectors))
    with open(matrix_file, "r+b") as handle:
        handle.seek(matrix_file.stat().st_size - (len(vectors) - row) * DIMENSION * 4)
        handle.write(bytes(DIMENSION * 4))
    chunk_id = f"doc{row // CHUNKS_EACH}.md#{row % CHUNKS_EACH}"
    for read_only in (True, False):  # a reader rebuilds in memory, a writer on disk
        store = LocalStore(directory, DIMENSION, TEXT_ANALYZER, read_only=read_only)
        try:
            hits = store.vector_search(vectors[row], 3, None)
            assert hits[0].chunk_id == chunk_id and hits[0].score == pytest.approx(1.0, abs=1e-5)
            other = store.vector_search(vectors[7], 3, None)  # an intact row, as before
            assert other[0].chunk_id == "doc0.md#7"
        finally:
            store.close()
