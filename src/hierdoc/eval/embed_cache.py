"""An embedding cache for evaluation runs: document and query vectors on disk.

A rerun of the benchmarks (or another index of the same texts) does not re-embed:
a vector is keyed by the embedder's code, model, context and text, a query's by the
embedder's code, model and text.
"""

from __future__ import annotations

import hashlib
import inspect
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..models import EmbedInput
from ..pipeline.embed import Embedder

QUERY_BATCH = 64
"""Queries embedded per call of the model by :meth:`CachingEmbedder.embed_queries`."""


class CachingEmbedder:
    """An embedder whose document vectors are cached on disk by (embedder code, model,
    context, text), query vectors by (embedder code, model, text). A chunk's windows
    depend only on its own input and the embedder's code (windowing), so a cached vector
    is the one the model would produce again; any edit to the embedder's module starts a
    new cache."""

    def __init__(self, inner: Embedder, path: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimension = inner.dimension
        self.computed = 0
        self._code = _code_digest(type(inner)) + getattr(inner, "precision", "")
        self._queries: dict[str, np.ndarray] = {}
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS v (key TEXT PRIMARY KEY, rows BLOB)")
        self._db.execute("CREATE TABLE IF NOT EXISTS q (key TEXT PRIMARY KEY, v BLOB)")

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

    def _query_key(self, text: str) -> str:
        return hashlib.sha1(f"{self._code}\0{self.name}\0{text}".encode()).hexdigest()

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self._queries:
            key = self._query_key(text)
            row = self._db.execute("SELECT v FROM q WHERE key = ?", (key,)).fetchone()
            if row:
                vector = np.frombuffer(row[0], dtype=np.float32)
            else:
                vector = np.asarray(self.inner.embed_query(text), dtype=np.float32)
                self._db.execute("INSERT OR REPLACE INTO q VALUES (?, ?)", (key, vector.tobytes()))
            self._queries[text] = vector
        return self._queries[text]

    def embed_queries(self, texts: Sequence[str]) -> None:
        """Embed the queries not cached yet in batches, as the model embeds documents (a
        query of one window with no context is the text the model embeds for it alone);
        a query longer than one window is embedded as a query."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._queries]
        found = self._lookup_queries(missing)
        fresh = [t for t in missing if t not in found]
        for start in range(0, len(fresh), QUERY_BATCH):
            part = fresh[start : start + QUERY_BATCH]
            windows = self.inner.embed_documents([EmbedInput("", t) for t in part])
            rows = []
            for text, vectors in zip(part, windows, strict=True):
                one = vectors[0] if len(vectors) == 1 else self.inner.embed_query(text)
                found[text] = np.asarray(one, dtype=np.float32)
                rows.append((self._query_key(text), found[text].tobytes()))
            self._db.executemany("INSERT OR REPLACE INTO q VALUES (?, ?)", rows)
        self._queries.update(found)

    def _lookup_queries(self, texts: list[str]) -> dict[str, np.ndarray]:
        keys = {self._query_key(t): t for t in texts}
        found = {}
        for start in range(0, len(texts), 500):
            part = list(keys)[start : start + 500]
            marks = ",".join("?" * len(part))
            for key, blob in self._db.execute(f"SELECT key, v FROM q WHERE key IN ({marks})", part):
                found[keys[key]] = np.frombuffer(blob, dtype=np.float32)
        return found

    def close(self) -> None:
        self._db.close()


def _code_digest(kind: type) -> str:
    """A digest of the source of the module defining ``kind`` (for LocalEmbedder, embed.py)."""
    try:
        source = inspect.getsource(sys.modules[kind.__module__])
    except (OSError, TypeError, KeyError):
        source = f"{kind.__module__}.{kind.__qualname__}"
    return hashlib.sha1(source.encode()).hexdigest()[:12]
