"""A deterministic bag-of-words embedder for tests about storage and concurrency, where
what matters is that writer and readers agree on vectors, not their quality."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from hierdoc import Index, Settings, TextDocument
from hierdoc.models import EmbedInput


class HashEmbedder:
    name = "test:hash-embedder"
    dimension = 32

    def _vector(self, text: str) -> np.ndarray:
        vector = np.full(self.dimension, 1e-3, dtype=np.float32)
        for word in re.findall(r"\w+", text.lower()):
            vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dimension] += 1.0
        return vector / np.linalg.norm(vector)

    def embed_documents(self, inputs: Sequence[EmbedInput]) -> list[np.ndarray]:
        return [self._vector(f"{i.context} {i.text}")[None, :] for i in inputs]

    def embed_query(self, text: str) -> np.ndarray:
        return self._vector(text)


@contextmanager
def hash_index(directory: Path, documents: dict[str, str]) -> Iterator[Index]:
    """An index of ``documents`` (name: text) embedded by :class:`HashEmbedder`, open for
    writing until the block ends."""
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as opened:
        opened.ingest_texts([TextDocument(name, text) for name, text in documents.items()])
        yield opened
