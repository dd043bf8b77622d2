"""Exact (brute-force) vector search in numpy.

All window vectors sit in one float32 matrix of unit rows, the windows of a
chunk in consecutive rows; a query is one matrix-vector product, and a chunk
with several windows scores as its best window (``np.maximum.reduceat``).
The matrix is derived from the record store and cached as ``.npy`` plus a JSON
list of row owners, tagged with the store generation it reflects and a checksum that
:meth:`VectorIndex.load_cache` verifies (:mod:`.check`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...models import Hit
from .check import matrix_checksum


@dataclass(frozen=True)
class _Matrix:
    """One consistent state of the index: searches read it whole, writers swap in a new one."""

    matrix: np.ndarray
    chunk_ids: list[str]
    owners: np.ndarray
    starts: np.ndarray
    generation: int | None

    @classmethod
    def build(
        cls, matrix: np.ndarray, chunk_ids: list[str], owners: np.ndarray, generation: int | None
    ) -> _Matrix:
        changes = np.flatnonzero(np.diff(owners)) + 1 if len(owners) else owners
        starts = np.concatenate(([0], changes)).astype(np.int64) if len(owners) else owners
        matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        return cls(matrix, list(chunk_ids), owners, starts, generation)


class VectorIndex:
    """The vector matrix of a store. Each change builds a new :class:`_Matrix` and replaces
    the old one in a single assignment, so a search running in another thread sees
    either the old state or the new one, never a mix."""

    def __init__(self, directory: Path, dimension: int) -> None:
        self._directory = directory
        self.dimension = dimension
        empty = np.zeros((0, dimension), dtype=np.float32)
        self._state = _Matrix.build(empty, [], np.zeros(0, dtype=np.int64), None)
        self.saved = False
        """The matrix in memory is the one in the cache files (loaded from or saved to them)."""

    @property
    def generation(self) -> int | None:
        return self._state.generation

    @property
    def _files(self) -> tuple[Path, Path]:
        return self._directory / "vectors.npy", self._directory / "vectors.json"

    def load_cache(self) -> bool:
        """Load the cached matrix; False when there is none or it is unreadable."""
        matrix_file, meta_file = self._files
        try:
            meta = json.loads(meta_file.read_text())
            matrix = np.load(matrix_file, allow_pickle=False)
        except (OSError, ValueError):
            return False
        if matrix.shape[1:] != (self.dimension,) or len(meta["owners"]) != len(matrix):
            return False
        owners = np.asarray(meta["owners"], dtype=np.int64)
        recorded = meta.get("checksum")  # absent in caches written before checksums
        if recorded is not None and recorded != matrix_checksum(matrix, meta["chunk_ids"], owners):
            return False  # damaged: rebuilt from the records
        self._state = _Matrix.build(matrix, meta["chunk_ids"], owners, int(meta["generation"]))
        self.saved = True
        return True

    def rebuild(
        self, rows: Iterable[tuple[str, np.ndarray]], generation: int, save: bool = True
    ) -> None:
        """Rebuild from (chunk_id, windows) rows in document order, then cache."""
        chunk_ids: list[str] = []
        owners: list[np.ndarray] = []
        blocks: list[np.ndarray] = []
        for chunk_id, windows in rows:
            owners.append(np.full(len(windows), len(chunk_ids), dtype=np.int64))
            chunk_ids.append(chunk_id)
            blocks.append(np.asarray(windows, dtype=np.float32).reshape(-1, self.dimension))
        matrix = np.vstack(blocks) if blocks else np.zeros((0, self.dimension), np.float32)
        owner_rows = np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64)
        self._state = _Matrix.build(matrix, chunk_ids, owner_rows, generation)
        self.saved = False
        if save:
            self._save()

    def replace(
        self, removed: set[str], added: list[tuple[str, np.ndarray]], generation: int
    ) -> None:
        """Drop the rows of ``removed`` chunks, append ``added`` (chunk id, windows) and cache."""
        old = self._state
        keep_chunks = [i for i, c in enumerate(old.chunk_ids) if c not in removed]
        keep_rows = np.isin(old.owners, keep_chunks)
        remap = np.full(max(len(old.chunk_ids), 1), -1, dtype=np.int64)
        remap[keep_chunks] = np.arange(len(keep_chunks))
        chunk_ids = [old.chunk_ids[i] for i in keep_chunks]
        blocks = [old.matrix[keep_rows]]
        owners = [remap[old.owners[keep_rows]]]
        for chunk_id, windows in added:
            owners.append(np.full(len(windows), len(chunk_ids), dtype=np.int64))
            chunk_ids.append(chunk_id)
            blocks.append(np.asarray(windows, dtype=np.float32).reshape(-1, self.dimension))
        self._state = _Matrix.build(
            np.vstack(blocks), chunk_ids, np.concatenate(owners), generation
        )
        self._save()

    def _save(self) -> None:
        state = self._state
        self._directory.mkdir(parents=True, exist_ok=True)
        matrix_file, meta_file = self._files
        tmp_matrix = matrix_file.with_suffix(".tmp.npy")
        np.save(tmp_matrix, state.matrix, allow_pickle=False)
        os.replace(tmp_matrix, matrix_file)
        meta = {
            "generation": state.generation,
            "chunk_ids": state.chunk_ids,
            "owners": state.owners.tolist(),
            "checksum": matrix_checksum(state.matrix, state.chunk_ids, state.owners),
        }
        tmp_meta = meta_file.with_suffix(".tmp")
        tmp_meta.write_text(json.dumps(meta))
        os.replace(tmp_meta, meta_file)
        self.saved = True

    def __len__(self) -> int:
        return len(self._state.chunk_ids)

    @property
    def nbytes(self) -> int:
        return int(self._state.matrix.nbytes)

    def search(self, query: np.ndarray, k: int, allowed: set[str] | None = None) -> list[Hit]:
        """Top ``k`` chunks by cosine similarity of their best window."""
        state = self._state
        if not state.chunk_ids or k <= 0:
            return []
        window_scores = state.matrix @ query.astype(np.float32)
        scores = np.maximum.reduceat(window_scores, state.starts)
        if allowed is not None:
            ids = state.chunk_ids
            mask = np.fromiter((c in allowed for c in ids), bool, len(ids))
            scores[~mask] = -np.inf
        k = min(k, int(np.isfinite(scores).sum()))
        if k == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]
        return [Hit(state.chunk_ids[i], float(scores[i])) for i in top]
