"""Exact (brute-force) vector search in numpy.

All window vectors sit in one float32 matrix of unit rows, the windows of a
chunk in consecutive rows; a query is one matrix-vector product, and a chunk
with several windows scores as its best window (``np.maximum.reduceat``).
The matrix is derived from the record store and cached as ``.npy`` plus a JSON
list of row owners, tagged with the store generation it reflects.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from ...models import Hit


class VectorIndex:
    def __init__(self, directory: Path, dimension: int) -> None:
        self._directory = directory
        self.dimension = dimension
        self._matrix = np.zeros((0, dimension), dtype=np.float32)
        self._owners = np.zeros(0, dtype=np.int64)
        self._starts = np.zeros(0, dtype=np.int64)
        self._chunk_ids: list[str] = []
        self.generation: int | None = None

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
        self._set(matrix, meta["chunk_ids"], np.asarray(meta["owners"], dtype=np.int64))
        self.generation = int(meta["generation"])
        return True

    def rebuild(
        self, rows: Iterable[tuple[str, bytes]], generation: int, save: bool = True
    ) -> None:
        """Rebuild from (chunk_id, vector bytes) rows, grouped by chunk, then cache."""
        chunk_ids: list[str] = []
        owners: list[int] = []
        vectors: list[np.ndarray] = []
        for chunk_id, blob in rows:
            if not chunk_ids or chunk_ids[-1] != chunk_id:
                chunk_ids.append(chunk_id)
            owners.append(len(chunk_ids) - 1)
            vectors.append(np.frombuffer(blob, dtype=np.float32))
        matrix = np.vstack(vectors) if vectors else np.zeros((0, self.dimension), np.float32)
        self._set(matrix, chunk_ids, np.asarray(owners, dtype=np.int64))
        self.generation = generation
        if save:
            self._save()

    def replace(
        self, removed: set[str], added: list[tuple[str, np.ndarray]], generation: int
    ) -> None:
        """Drop the rows of ``removed`` chunks, append ``added`` (chunk id, windows) and cache."""
        keep_chunks = [i for i, c in enumerate(self._chunk_ids) if c not in removed]
        keep_rows = np.isin(self._owners, keep_chunks)
        remap = np.full(max(len(self._chunk_ids), 1), -1, dtype=np.int64)
        remap[keep_chunks] = np.arange(len(keep_chunks))
        chunk_ids = [self._chunk_ids[i] for i in keep_chunks]
        blocks = [self._matrix[keep_rows]]
        owners = [remap[self._owners[keep_rows]]]
        for chunk_id, windows in added:
            owners.append(np.full(len(windows), len(chunk_ids), dtype=np.int64))
            chunk_ids.append(chunk_id)
            blocks.append(np.asarray(windows, dtype=np.float32).reshape(-1, self.dimension))
        self._set(np.vstack(blocks), chunk_ids, np.concatenate(owners))
        self.generation = generation
        self._save()

    def _set(self, matrix: np.ndarray, chunk_ids: list[str], owners: np.ndarray) -> None:
        self._matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self._chunk_ids = list(chunk_ids)
        self._owners = owners
        changes = np.flatnonzero(np.diff(owners)) + 1 if len(owners) else owners
        self._starts = np.concatenate(([0], changes)).astype(np.int64) if len(owners) else owners

    def _save(self) -> None:
        self._directory.mkdir(parents=True, exist_ok=True)
        matrix_file, meta_file = self._files
        tmp_matrix = matrix_file.with_suffix(".tmp.npy")
        np.save(tmp_matrix, self._matrix, allow_pickle=False)
        os.replace(tmp_matrix, matrix_file)
        meta = {
            "generation": self.generation,
            "chunk_ids": self._chunk_ids,
            "owners": self._owners.tolist(),
        }
        tmp_meta = meta_file.with_suffix(".tmp")
        tmp_meta.write_text(json.dumps(meta))
        os.replace(tmp_meta, meta_file)

    def __len__(self) -> int:
        return len(self._chunk_ids)

    @property
    def nbytes(self) -> int:
        return int(self._matrix.nbytes)

    def search(self, query: np.ndarray, k: int, allowed: set[str] | None = None) -> list[Hit]:
        """Top ``k`` chunks by cosine similarity of their best window."""
        if not self._chunk_ids or k <= 0:
            return []
        window_scores = self._matrix @ query.astype(np.float32)
        scores = np.maximum.reduceat(window_scores, self._starts)
        if allowed is not None:
            mask = np.fromiter((c in allowed for c in self._chunk_ids), bool, len(self._chunk_ids))
            scores[~mask] = -np.inf
        k = min(k, int(np.isfinite(scores).sum()))
        if k == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]
        return [Hit(self._chunk_ids[i], float(scores[i])) for i in top]
