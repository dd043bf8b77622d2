"""A view of an index that holds only some of its documents: what a scoped token sees.

A :class:`DocumentScope` says which documents a caller may see: those matching any of its
:class:`DocumentFilter` (named sources, or a ``where`` on metadata, or both). A
:class:`ScopedStore` wraps a store and answers every read as if the index held those
documents alone: searches run with the scope as their source filter, so that ranking,
counts, suggestions and the glossary are made from in-scope documents only; records,
definitions, acronyms, name keys and cross-references of other documents are left out,
and a reference from an in-scope document into another one loses its target (it reads
as a reference outside the corpus). :meth:`hierdoc.api.Index.scoped` opens the API over
such a store, so every tool and page built on the API is scoped without checks of its own.

The scope is worked out from the documents' sources and metadata once per index
generation: a document ingested later joins it when it matches. The view is read-only.

One statistic is not scoped: BM25's term weights (document frequencies, average length)
inside the keyword index are the whole index's, so a keyword score's value (never which
documents are ranked) reflects the other documents too. The document frequencies the
search stage reads itself (back-offs, passages) are counted within the scope.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..errors import StoreError
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
from ..store.base import Capability, ContextCache, IndexMeta, Store
from .sources import SourceNames
from .where import matching_sources

SMALL_SCOPE = 256
"""Up to this many documents, a section id is looked up in each in-scope document (a key
lookup each); above, every document's section of that id is read and the others dropped."""


MAX_COUNTED_TERMS = 100_000
"""The most terms whose in-scope counts a view keeps (then it starts again)."""


def _frozen_where(where: Mapping[str, str | Sequence[str]] | None) -> tuple:
    items = []
    for key, value in (where or {}).items():
        values = (value,) if isinstance(value, str) else tuple(value)
        items.append((key, values))
    return tuple(sorted(items))


@dataclass(frozen=True)
class DocumentFilter:
    """Documents named by ``sources`` (as for ``source=``: a file name, a path suffix or a
    stored source) and matching ``where`` (as for ``where=``); an empty part does not
    narrow. Hashable, so that a view is kept per scope."""

    sources: tuple[str, ...] = ()
    where: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @classmethod
    def of(
        cls,
        sources: Iterable[str] = (),
        where: Mapping[str, str | Sequence[str]] | None = None,
    ) -> DocumentFilter:
        return cls(tuple(sources), _frozen_where(where))

    def select(self, documents: Sequence[DocumentRecord], names: SourceNames) -> set[str]:
        """The sources of ``documents`` this filter keeps."""
        chosen = {d.source for d in documents}
        if self.sources:
            chosen &= {s for pattern in self.sources for s in names.matching(pattern)}
        if self.where:
            where = {key: list(values) for key, values in self.where}
            chosen &= set(matching_sources(documents, where))
        return chosen


@dataclass(frozen=True)
class DocumentScope:
    """The documents a caller may see: those any of ``filters`` keeps (none: no document)."""

    filters: tuple[DocumentFilter, ...] = field(default_factory=tuple)

    def allowed(self, documents: Sequence[DocumentRecord]) -> frozenset[str]:
        names = SourceNames.of(d.source for d in documents)
        found: set[str] = set()
        for item in self.filters:
            found |= item.select(documents, names)
        return frozenset(found)


class ScopedStore:
    """``store`` as if it held only the documents of ``scope`` (see the module's notes).

    Implements the :class:`~hierdoc.store.base.Store` protocol; every write is a
    :class:`StoreError`, and closing it leaves ``store`` open (its owner closes it).
    """

    def __init__(self, store: Store, scope: DocumentScope) -> None:
        self.inner = store
        self.scope = scope
        self._lock = threading.Lock()
        self._known: tuple[int, frozenset[str], bool] | None = None
        self._counts: tuple[int, dict[str, int]] = (-1, {})

    # the scope, per generation

    def _state(self) -> tuple[frozenset[str], bool]:
        generation = self.inner.generation
        with self._lock:
            if self._known is None or self._known[0] != generation:
                documents = self.inner.documents()
                allowed = self.scope.allowed(documents)
                self._known = (generation, allowed, len(allowed) == len(documents))
            return self._known[1], self._known[2]

    def allowed(self) -> frozenset[str]:
        """The sources in scope, at the index's current generation."""
        return self._state()[0]

    def _narrowed(self, filt: SearchFilter | None) -> tuple[SearchFilter | None, bool]:
        """``filt`` within the scope, and whether anything in scope can match it."""
        allowed, everything = self._state()
        if everything:
            return filt, True
        wanted = filt.sources if filt is not None and filt.sources else sorted(allowed)
        sources = tuple(s for s in wanted if s in allowed)
        if not sources:
            return None, False
        return replace(filt or SearchFilter(), sources=sources), True

    def _sections_with_id(self, section_id: str) -> list[SectionRecord]:
        allowed, everything = self._state()
        if everything:
            return self.inner.sections(section_id)
        if len(allowed) <= SMALL_SCOPE:
            return [r for s in sorted(allowed) for r in self.inner.sections(section_id, s)]
        return [r for r in self.inner.sections(section_id) if r.source in allowed]

    def _chunk_ids_in_scope(self, chunk_ids: Sequence[str]) -> list[str]:
        if self._state()[1]:
            return list(chunk_ids)
        return list(self.get_chunks(chunk_ids))

    # lifecycle: read-only

    @property
    def capabilities(self) -> frozenset[Capability]:
        return self.inner.capabilities

    @property
    def generation(self) -> int:
        return self.inner.generation

    @property
    def context_cache(self) -> ContextCache:
        raise _read_only()

    def lock_writer(self, wait: bool | None = None) -> AbstractContextManager[None]:
        raise _read_only()

    def read_meta(self) -> IndexMeta:
        return self.inner.read_meta()

    def write_meta(self, meta: IndexMeta) -> None:
        raise _read_only()

    def write_document(
        self,
        document: DocumentRecord,
        sections: Sequence[Section],
        chunks: Sequence[StoredChunk],
        vectors: Sequence[np.ndarray],
        extraction: Extraction | None = None,
    ) -> None:
        raise _read_only()

    def delete_documents(self, sources: Iterable[str]) -> None:
        raise _read_only()

    def clear(self) -> None:
        raise _read_only()

    def flush(self) -> None:
        raise _read_only()

    def begin_rebuild(self) -> bool:
        raise _read_only()

    def publish_rebuild(self) -> None:
        raise _read_only()

    def abandon_rebuild(self) -> None:
        raise _read_only()

    def refresh(self) -> None:
        self.inner.refresh()

    def close(self) -> None:
        """Nothing: the wrapped store belongs to its owner."""

    # records

    def documents(self) -> list[DocumentRecord]:
        allowed = self.allowed()
        return [d for d in self.inner.documents() if d.source in allowed]

    def document_hashes(self) -> dict[str, str]:
        allowed = self.allowed()
        return {s: h for s, h in self.inner.document_hashes().items() if s in allowed}

    def document_count(self) -> int:
        return len(self.allowed())

    def chunk_count(self) -> int:
        if self._state()[1]:
            return self.inner.chunk_count()
        return sum(d.chunk_count for d in self.documents())

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        allowed = self.allowed()
        found = self.inner.get_chunks(chunk_ids)
        return {i: c for i, c in found.items() if c.chunk.source in allowed}

    def chunks_of_source(self, source: str) -> list[StoredChunk]:
        return self.inner.chunks_of_source(source) if source in self.allowed() else []

    def chunks_of_sections(self, section_ids: Sequence[str]) -> list[StoredChunk]:
        allowed = self.allowed()
        return [c for c in self.inner.chunks_of_sections(section_ids) if c.chunk.source in allowed]

    def section_starts(
        self, section_ids: Sequence[str], sources: Sequence[str] | None = None
    ) -> list[tuple[str, str, str]]:
        allowed, everything = self._state()
        if sources is None and everything:
            return self.inner.section_starts(section_ids)
        within = [s for s in (sorted(allowed) if sources is None else sources) if s in allowed]
        return self.inner.section_starts(section_ids, within) if within else []

    def section_holders(
        self, section_id: str, limit: int, sources: Sequence[str] | None = None
    ) -> list[str]:
        return self.inner.section_holders(section_id, limit, self._within(sources))

    def count_sections(
        self, section_ids: Sequence[str], limit: int, sources: Sequence[str] | None = None
    ) -> int:
        return self.inner.count_sections(section_ids, limit, self._within(sources))

    def _within(self, sources: Sequence[str] | None) -> list[str] | None:
        """``sources`` (all when None) within the scope; None when that is every document."""
        allowed, everything = self._state()
        if sources is None:
            return None if everything else sorted(allowed)
        return [s for s in sources if s in allowed]

    def chunks_under(self, section_id: str, filt: SearchFilter | None = None) -> list[StoredChunk]:
        narrowed, possible = self._narrowed(filt)
        if not possible:
            return []
        return self.inner.chunks_under(section_id, narrowed)

    def chunk_ids_under(self, section_id: str, filt: SearchFilter | None = None) -> list[str]:
        narrowed, possible = self._narrowed(filt)
        if not possible:
            return []
        return self.inner.chunk_ids_under(section_id, narrowed)

    def sources_with_context(self, context_source: str) -> set[str]:
        return self.inner.sources_with_context(context_source) & self.allowed()

    def sections(self, section_id: str, source: str | None = None) -> list[SectionRecord]:
        if source is None:
            return self._sections_with_id(section_id)
        return self.inner.sections(section_id, source) if source in self.allowed() else []

    def sections_of_source(self, source: str) -> list[SectionRecord]:
        return self.inner.sections_of_source(source) if source in self.allowed() else []

    def children(self, source: str, section_id: str) -> list[SectionRecord]:
        return self.inner.children(source, section_id) if source in self.allowed() else []

    def sections_in_chunks(self, chunks: Sequence[tuple[str, str]]) -> list[SectionRecord]:
        allowed = self.allowed()
        within = [pair for pair in chunks if pair[0] in allowed]
        return self.inner.sections_in_chunks(within) if within else []

    def sections_with_heading(self, heading: str) -> list[str]:
        ids = self.inner.sections_with_heading(heading)
        if self._state()[1]:
            return ids
        wanted = heading.strip().lower()
        return [
            section_id
            for section_id in ids
            if any(r.heading.strip().lower() == wanted for r in self._sections_with_id(section_id))
        ]

    def definitions(self, term_norms: Sequence[str]) -> list[Definition]:
        allowed = self.allowed()
        return [d for d in self.inner.definitions(term_norms) if d.source in allowed]

    def all_definitions(self) -> list[Definition]:
        allowed = self.allowed()
        return [d for d in self.inner.all_definitions() if d.source in allowed]

    def acronyms(self) -> list[Acronym]:
        allowed = self.allowed()
        return [a for a in self.inner.acronyms() if a.source in allowed]

    def chunk_terms(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        within = self._chunk_ids_in_scope(chunk_ids)
        return self.inner.chunk_terms(within) if within else {}

    def references_from(self, chunk_ids: Sequence[str]) -> list[CrossRef]:
        allowed = self.allowed()
        found = self.inner.references_from(chunk_ids)
        return [_within(r, allowed) for r in found if r.source in allowed]

    def references_to(self, section_ids: Sequence[str], into: str | None = None) -> list[CrossRef]:
        allowed = self.allowed()
        if into is not None and into not in allowed:
            return []
        return [
            r
            for r in self.inner.references_to(section_ids, into)
            if r.source in allowed and (r.target_source or r.source) in allowed
        ]

    def stats(self) -> StoreStats:
        """Counts of the documents in scope (no size: that is the whole index's)."""
        meta = self.read_meta()
        documents = self.documents()
        chunk_ids = [c.chunk.chunk_id for d in documents for c in self.chunks_of_source(d.source)]
        return StoreStats(
            documents=len(documents),
            sections=sum(len(self.sections_of_source(d.source)) for d in documents),
            chunks=len(chunk_ids),
            vectors=sum(len(v) for v in self.vectors_of(chunk_ids).values()),
            definitions=len(self.all_definitions()),
            acronyms=len(self.acronyms()),
            crossrefs=len(self.references_from(chunk_ids)),
            generation=self.generation,
            embedding_model=meta.embedding_model,
            dimension=meta.dimension or 0,
        )

    # lexical and vector indexes: ranked within the scope

    def doc_freq(self, terms: Sequence[str], filt: SearchFilter | None = None) -> dict[str, int]:
        """How many in-scope chunks (that ``filt`` matches) hold each term."""
        if filt is not None and not filt.empty:
            narrowed, possible = self._narrowed(filt)
            if not possible:
                return {t: 0 for t in terms}
            return self.inner.doc_freq(terms, narrowed)
        return self._scope_doc_freq(terms)

    def _scope_doc_freq(self, terms: Sequence[str]) -> dict[str, int]:
        """Each term's count in the scope, kept per generation (a filtered count reads the
        term's postings; the terms of queries repeat)."""
        generation = self.inner.generation
        if self._counts[0] != generation:
            self._counts = (generation, {})
        known = self._counts[1]
        found = {t: known.get(t) for t in dict.fromkeys(terms)}  # .get: another thread may clear
        missing = [t for t, count in found.items() if count is None]
        if missing:
            narrowed, possible = self._narrowed(None)
            if not possible:
                counted = {t: 0 for t in missing}
            else:
                counted = self.inner.doc_freq(missing, narrowed)
            if len(known) + len(counted) > MAX_COUNTED_TERMS:
                known.clear()
            known.update(counted)
            found.update(counted)
        return {t: int(found[t] or 0) for t in terms}

    def keyword_search(self, terms: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        return self._ranked("keyword_search", terms, k, filt)

    def phrase_search(self, words: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        return self._ranked("phrase_search", words, k, filt)

    def vector_search(self, vector: np.ndarray, k: int, filt: SearchFilter | None) -> list[Hit]:
        return self._ranked("vector_search", vector, k, filt)

    def _ranked(self, method: str, query: Any, k: int, filt: SearchFilter | None) -> list[Hit]:
        narrowed, possible = self._narrowed(filt)
        if not possible:
            return []
        return getattr(self.inner, method)(query, k, narrowed)

    def iter_vectors(self) -> Iterator[tuple[str, np.ndarray]]:
        for document in self.documents():
            ids = [c.chunk.chunk_id for c in self.inner.chunks_of_source(document.source)]
            found = self.inner.vectors_of(ids)
            yield from ((i, found[i]) for i in ids if i in found)

    def vectors_of(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        within = self._chunk_ids_in_scope(chunk_ids)
        return self.inner.vectors_of(within) if within else {}

    # look-ups by key

    def acronyms_matching(self, keys: Sequence[str], long_forms: Sequence[str]) -> list[Acronym]:
        allowed = self.allowed()
        return [a for a in self.inner.acronyms_matching(keys, long_forms) if a.source in allowed]

    def name_keys(self, kind: str, keys: Sequence[str]) -> list[tuple[str, str, str]]:
        allowed = self.allowed()
        return [row for row in self.inner.name_keys(kind, keys) if row[2] in allowed]


def _within(reference: CrossRef, allowed: frozenset[str]) -> CrossRef:
    """``reference`` without its target when that lies in a document out of scope."""
    if reference.target_source is None or reference.target_source in allowed:
        return reference
    return replace(reference, target_source=None, target_section_id=None, external=True)


def _read_only() -> StoreError:
    return StoreError("this view of the index is scoped to some documents and read-only")
