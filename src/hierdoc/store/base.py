"""The one narrow interface between the pipeline and a storage backend.

The search stage asks a store for ranked candidates per modality (keyword,
phrase, vector, section lookup) and for chunk records; it never sees how they
are kept. The embedded default is :class:`hierdoc.index.local.LocalStore`
(SQLite + tantivy + numpy); server backends implement the same protocol.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

import numpy as np

from ..models import (
    Acronym,
    CrossRef,
    Definition,
    DocumentRecord,
    Extraction,
    Hit,
    SearchFilter,
    Section,
    SectionRecord,
    StoredChunk,
    StoreStats,
)


class Store(Protocol):
    @property
    def generation(self) -> int:
        """Grows with every write; derived state is current when it was built at this value."""
        ...

    def document_hashes(self) -> dict[str, str]: ...

    def documents(self) -> list[DocumentRecord]: ...

    def write_document(
        self,
        document: DocumentRecord,
        sections: Sequence[Section],
        chunks: Sequence[StoredChunk],
        vectors: Sequence[np.ndarray],
        extraction: Extraction | None = None,
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

    def chunks_under(self, section_id: str, filt: SearchFilter | None = None) -> list[StoredChunk]:
        """Chunks in the subtree of a section id, in document order."""
        ...

    def sections_with_heading(self, heading: str) -> list[str]: ...

    def sources_with_structural_contexts(self) -> set[str]: ...

    def sections(self, section_id: str) -> list[SectionRecord]: ...

    def children(self, source: str, section_id: str) -> list[SectionRecord]: ...

    def definitions(self, term_norms: Sequence[str]) -> list[Definition]: ...

    def all_definitions(self) -> list[Definition]: ...

    def acronyms(self) -> list[Acronym]: ...

    def chunk_terms(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]: ...

    def references_from(self, chunk_ids: Sequence[str]) -> list[CrossRef]: ...

    def references_to(self, section_ids: Sequence[str]) -> list[CrossRef]: ...

    def keyword_search(self, query: str, k: int, filt: SearchFilter | None) -> list[Hit]: ...

    def phrase_search(self, phrase: str, k: int, filt: SearchFilter | None) -> list[Hit]: ...

    def identifier_search(self, identifier: str, k: int, filt: SearchFilter | None) -> list[Hit]:
        """Chunks containing ``identifier`` whole (``getTarget`` also as ``self.getTarget()``)."""
        ...

    def vector_search(self, vector: np.ndarray, k: int, filt: SearchFilter | None) -> list[Hit]: ...

    def iter_vectors(self) -> Iterator[tuple[str, np.ndarray]]: ...

    def stats(self) -> StoreStats: ...

    def close(self) -> None: ...
