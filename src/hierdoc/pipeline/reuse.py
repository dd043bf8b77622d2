"""Re-use what the store holds of a document's previous version when it is re-ingested.

Editing one paragraph of a long document changes its hash, so the whole document
is read again, but most of its chunks come out the same. Two things are re-used:

- **Vectors.** A chunk whose embedding input (the context in front of it and its
  content, exactly) equals that of a chunk of the previous version takes that
  chunk's stored vectors, byte for byte. The key is the input itself, not the
  chunk id, which shifts when a paragraph is inserted before it. The index records
  one embedding model and refuses another; a model or settings change rebuilds it.
- **LLM contexts.** The context cache is keyed by the document's hash, so an
  edited document misses it for every chunk. A new chunk takes the LLM context
  of a previous chunk with the same content *and* the same structural context
  (title and parent chain): the chunk and its place are unchanged, only text
  elsewhere changed. Such a context may still mention that other text, so it is
  not written to the cache under the new hash, and ``--force`` (which rebuilds
  the index) situates every chunk of an edited document afresh.

``--force`` re-uses nothing: every document is read and written again, into a new index
(``Store.begin_rebuild``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..models import Chunk, StoredChunk
from ..store.base import Store
from .context import structural_context


def embed_key(context: str, content: str) -> str:
    """A digest of exactly what the embedder reads for a chunk (unambiguous: length-prefixed)."""
    text = f"{len(context)}:{context}\n{content}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _context_key(chunk: Chunk) -> tuple[str, str]:
    return chunk.content, structural_context(chunk)


@dataclass
class Previous:
    """The re-usable parts of a document's stored version: vectors by embedding input,
    LLM-situated chunks by (content, structural context)."""

    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    situated: dict[tuple[str, str], StoredChunk] = field(default_factory=dict)

    @classmethod
    def load(cls, store: Store, source: str) -> Previous:
        """What ``store`` holds for ``source`` (nothing when it holds no version)."""
        chunks = store.chunks_of_source(source)
        if not chunks:
            return cls()
        stored = store.vectors_of([c.chunk.chunk_id for c in chunks])
        previous = cls()
        for old in chunks:
            vectors = stored.get(old.chunk.chunk_id)
            if vectors is not None and len(vectors):
                previous.vectors.setdefault(embed_key(old.context, old.chunk.content), vectors)
            if old.context_source == "llm" and old.llm_context.strip():
                previous.situated.setdefault(_context_key(old.chunk), old)
        return previous

    def llm_context(self, chunk: Chunk) -> StoredChunk | None:
        """The previous chunk with this content and structural context, if an LLM situated it."""
        return self.situated.get(_context_key(chunk))

    def vectors_for(
        self, contexts: Sequence[str], chunks: Sequence[Chunk]
    ) -> list[np.ndarray | None]:
        """Each chunk's previous vectors for the same input, or None where it must be embedded."""
        return [
            self.vectors.get(embed_key(context, chunk.content))
            for context, chunk in zip(contexts, chunks, strict=True)
        ]
