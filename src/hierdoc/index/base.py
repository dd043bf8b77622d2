"""The one narrow interface between the pipeline and a storage backend.

The search stage asks a store for ranked candidates per modality (keyword,
phrase, vector, section lookup) and for chunk records; it never sees how they
are kept. The embedded default is :class:`hierdoc.index.local.LocalStore`
(SQLite + tantivy + numpy); server backends implement the same protocol.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np

from ..models import Hit, SearchFilter, Section
from .records import DocumentRecord, StoredChunk


class Store(Protocol):
    def document_hashes(self) -> dict[str, str]: ...

    def documents(self) -> list[DocumentRecord]: ...

    def write_document(
        self,
        document: DocumentRecord,
        sections: Sequence[Section],
        chunks: Sequence[StoredChunk],
        vectors: Sequence[np.ndarray],
    ) -> None:
        """Replace everything stored for ``document.source``, atomically."""
        ...

    def delete_documents(self, sources: Iterable[str]) -> None: ...

    def clear(self) -> None: ...

    def flush(self) -> None:
        """Make every write visible to searches and durable in derived indexes."""
        ...

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]: ...

    def chunks_of_source(self, source: str) -> list[StoredChunk]: ...

    def chunks_of_sections(self, section_ids: Sequence[str]) -> list[StoredChunk]: ...

    def sections_with_heading(self, heading: str) -> list[str]: ...

    def keyword_search(self, query: str, k: int, filt: SearchFilter | None) -> list[Hit]: ...

    def phrase_search(self, phrase: str, k: int, filt: SearchFilter | None) -> list[Hit]: ...

    def vector_search(self, vector: np.ndarray, k: int, filt: SearchFilter | None) -> list[Hit]: ...

    def stats(self) -> dict: ...

    def close(self) -> None: ...
