"""A store kept in Python dicts: a test double that shows the Store protocol is implementable
without SQLite, tantivy or files, and that passes the same contract as the real backends."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field

import numpy as np

from hierdoc.errors import StoreError
from hierdoc.models import (
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
from hierdoc.store.base import Capability, ContextEntry, IndexMeta
from hierdoc.text.analyze import TextAnalyzer
from hierdoc.text.names import name_keys
from hierdoc.text.normalize import normalize_acronym, normalize_phrase, normalize_term


@dataclass
class _Document:
    record: DocumentRecord
    sections: list[SectionRecord]
    chunks: list[StoredChunk]
    vectors: dict[str, np.ndarray]
    extraction: Extraction
    terms: dict[str, list[str]] = field(default_factory=dict)
    words: dict[str, list[str]] = field(default_factory=dict)


class _Cache:
    def __init__(self) -> None:
        self._contexts: dict[tuple[str, str, str, str], str] = {}

    def get(self, model: str, prompt_version: str, document_hash: str, chunk_hash: str):
        return self._contexts.get((model, prompt_version, document_hash, chunk_hash))

    def put(self, model, prompt_version, document_hash, chunk_hash, context) -> None:  # noqa: ANN001
        self._contexts[(model, prompt_version, document_hash, chunk_hash)] = context

    def entries(self) -> Iterator[ContextEntry]:
        return iter([ContextEntry(*key, context) for key, context in self._contexts.items()])


class MemoryStore:
    """Everything in memory; BM25 and cosine computed in Python, filters by the reference rule."""

    def __init__(self, dimension: int, analyzer: TextAnalyzer) -> None:
        self.dimension = dimension
        self._analyzer = analyzer
        self._documents: dict[str, _Document] = {}
        self._set_aside: dict[str, _Document] | None = None
        self._meta = IndexMeta(dimension=dimension)
        self._generation = 0
        self.context_cache = _Cache()

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def capabilities(self) -> frozenset[Capability]:
        return frozenset(Capability)

    def lock_writer(self, wait: bool | None = None) -> AbstractContextManager[None]:
        """One process owns the dicts: there is never another writer to exclude."""
        return nullcontext()

    def read_meta(self) -> IndexMeta:
        return self._meta

    def write_meta(self, meta: IndexMeta) -> None:
        self._meta = meta

    def write_document(
        self,
        document: DocumentRecord,
        sections: Sequence[Section],
        chunks: Sequence[StoredChunk],
        vectors: Sequence[np.ndarray],
        extraction: Extraction | None = None,
    ) -> None:
        taken = {
            s.chunk.chunk_id
            for source, d in self._documents.items()
            if source != document.source
            for s in d.chunks
        }
        if clash := taken & {s.chunk.chunk_id for s in chunks}:
            raise StoreError(f"chunk ids of another document: {sorted(clash)}")
        starts = {i: s.chunk.chunk_id for s in chunks for i in s.chunk.sections}
        records = [
            SectionRecord(
                document.source, s.section_id, s.heading, s.level, s.path[-1] if s.path else None,
                s.ordinal, s.kind, starts.get(s.section_id), s.heading_line + s.body,
            )
            for s in sections
        ]  # fmt: skip
        stored = _Document(
            DocumentRecord(
                document.source, document.title, document.content_hash, document.format,
                document.chars, len(chunks),
                time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                document.pages, dict(document.metadata),
            ),
            records,
            list(chunks),
            {c.chunk.chunk_id: np.asarray(v, np.float32)
             for c, v in zip(chunks, vectors, strict=True)},
            extraction or Extraction(),
        )  # fmt: skip
        for s in chunks:
            text = f"{s.context}\n{s.chunk.content}" if s.context else s.chunk.content
            stored.terms[s.chunk.chunk_id] = self._analyzer.terms(text)
            stored.words[s.chunk.chunk_id] = self._analyzer.words(s.chunk.content)
        self._documents[document.source] = stored
        self._generation += 1

    def delete_documents(self, sources: Iterable[str]) -> None:
        for source in sources:
            self._documents.pop(source, None)
        self._generation += 1

    def clear(self) -> None:
        self._documents.clear()
        self._generation += 1

    def begin_rebuild(self) -> bool:
        """The documents are set aside (nobody else reads them) until published or dropped."""
        if self._set_aside is not None or not self._documents:
            return False
        self._set_aside, self._documents = self._documents, {}
        self._generation += 1
        return True

    def publish_rebuild(self) -> None:
        self._set_aside = None

    def abandon_rebuild(self) -> None:
        if self._set_aside is not None:
            self._documents, self._set_aside = self._set_aside, None
            self._generation += 1

    def flush(self) -> None:
        return None

    def refresh(self) -> None:
        return None

    def _chunks(self) -> Iterator[StoredChunk]:
        for source in sorted(self._documents):
            yield from self._documents[source].chunks

    def _extractions(self) -> Iterator[Extraction]:
        for source in sorted(self._documents):
            yield self._documents[source].extraction

    def documents(self) -> list[DocumentRecord]:
        return [self._documents[s].record for s in sorted(self._documents)]

    def document_hashes(self) -> dict[str, str]:
        return {s: d.record.content_hash for s, d in self._documents.items()}

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        wanted = set(chunk_ids)
        return {s.chunk.chunk_id: s for s in self._chunks() if s.chunk.chunk_id in wanted}

    def chunks_of_source(self, source: str) -> list[StoredChunk]:
        document = self._documents.get(source)
        return list(document.chunks) if document else []

    def chunks_of_sections(self, section_ids: Sequence[str]) -> list[StoredChunk]:
        starting = {
            r.chunk_id
            for d in self._documents.values()
            for r in d.sections
            if r.section_id in section_ids
        }
        return [s for s in self._chunks() if s.chunk.chunk_id in starting]

    def section_starts(
        self, section_ids: Sequence[str], sources: Sequence[str] | None = None
    ) -> list[tuple[str, str, str]]:
        return [
            (s.chunk.source, s.chunk.chunk_id, s.chunk.section_id)
            for s in self.chunks_of_sections(section_ids)
            if sources is None or s.chunk.source in sources
        ]

    def section_holders(
        self, section_id: str, limit: int, sources: Sequence[str] | None = None
    ) -> list[str]:
        held = [
            d.source
            for d in self.documents()
            if any(r.section_id == section_id and r.chunk_id for r in self._sections(d.source))
            and (sources is None or d.source in sources)
        ]
        return held[:limit]

    def _sections(self, source: str) -> list[SectionRecord]:
        return self._documents[source].sections

    def count_sections(
        self, section_ids: Sequence[str], limit: int, sources: Sequence[str] | None = None
    ) -> int:
        held = sum(
            r.section_id in section_ids and (sources is None or r.source in sources)
            for d in self._documents.values()
            for r in d.sections
        )
        return min(held, limit)

    def chunks_under(self, section_id: str, filt: SearchFilter | None = None) -> list[StoredChunk]:
        under = SearchFilter(section_prefix=section_id)
        return [
            s
            for s in self._chunks()
            if under.matches(s.chunk) and (not filt or filt.matches(s.chunk))
        ]

    def chunk_ids_under(self, section_id: str, filt: SearchFilter | None = None) -> list[str]:
        return [s.chunk.chunk_id for s in self.chunks_under(section_id, filt)]

    def sources_with_context(self, context_source: str) -> set[str]:
        return {s.chunk.source for s in self._chunks() if s.context_source == context_source}

    def iter_vectors(self) -> Iterator[tuple[str, np.ndarray]]:
        for source in sorted(self._documents):
            yield from self._documents[source].vectors.items()

    def vectors_of(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        return {c: w for c, w in self.iter_vectors() if c in chunk_ids}

    def sections(self, section_id: str, source: str | None = None) -> list[SectionRecord]:
        return [r for d in self.documents() for r in self._documents[d.source].sections
                if r.section_id == section_id and source in (None, d.source)]  # fmt: skip

    def sections_of_source(self, source: str) -> list[SectionRecord]:
        document = self._documents.get(source)
        return sorted(document.sections, key=lambda r: r.ordinal) if document else []

    def children(self, source: str, section_id: str) -> list[SectionRecord]:
        document = self._documents.get(source)
        return [r for r in document.sections if r.parent_id == section_id] if document else []

    def sections_in_chunks(self, chunks: Sequence[tuple[str, str]]) -> list[SectionRecord]:
        wanted = set(chunks)
        return [r for d in self.documents() for r in self.sections_of_source(d.source)
                if (r.source, r.chunk_id) in wanted]  # fmt: skip

    def sections_with_heading(self, heading: str) -> list[str]:
        wanted = heading.strip().lower()
        return [r.section_id for d in self._documents.values() for r in d.sections
                if r.heading.strip().lower() == wanted]  # fmt: skip

    def definitions(self, term_norms: Sequence[str]) -> list[Definition]:
        return [d for d in self.all_definitions() if normalize_term(d.term) in term_norms]

    def all_definitions(self) -> list[Definition]:
        return [d for e in self._extractions() for d in e.definitions]

    def acronyms(self) -> list[Acronym]:
        return [a for e in self._extractions() for a in e.acronyms]

    def acronyms_matching(self, keys: Sequence[str], long_forms: Sequence[str]) -> list[Acronym]:
        return [
            a
            for a in self.acronyms()
            if normalize_acronym(a.acronym) in keys or normalize_phrase(a.long_form) in long_forms
        ]

    def name_keys(self, kind: str, keys: Sequence[str]) -> list[tuple[str, str, str]]:
        return [
            (key, value, source)
            for source in sorted(self._documents)
            for k, key, value in name_keys(self._documents[source].record)
            if k == kind and key in keys
        ]

    def document_count(self) -> int:
        return len(self._documents)

    def chunk_count(self) -> int:
        return sum(len(d.chunks) for d in self._documents.values())

    def chunk_terms(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for extraction in self._extractions():
            for chunk_id, term in extraction.chunk_terms:
                if chunk_id in chunk_ids:
                    found.setdefault(chunk_id, []).append(term)
        return found

    def references_from(self, chunk_ids: Sequence[str]) -> list[CrossRef]:
        return [r for e in self._extractions() for r in e.references if r.chunk_id in chunk_ids]

    def references_to(self, section_ids: Sequence[str], into: str | None = None) -> list[CrossRef]:
        return [r for e in self._extractions() for r in e.references
                if r.target_section_id in section_ids
                and into in (None, r.target_source or r.source)]  # fmt: skip

    def _terms(self) -> dict[str, list[str]]:
        return {c: t for d in self._documents.values() for c, t in d.terms.items()}

    def doc_freq(self, terms: Sequence[str], filt: SearchFilter | None = None) -> dict[str, int]:
        kept = {s.chunk.chunk_id for s in self._chunks() if filt is None or filt.matches(s.chunk)}
        indexed = [d for c, d in self._terms().items() if c in kept]
        return {t: sum(t in d for d in indexed) for t in terms}

    def keyword_search(self, terms: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        indexed = self._terms()
        if not indexed or not terms:
            return []
        average = sum(map(len, indexed.values())) / len(indexed)
        scores: dict[str, float] = {}
        for term in dict.fromkeys(terms):
            having = sum(term in d for d in indexed.values())
            idf = math.log(1 + (len(indexed) - having + 0.5) / (having + 0.5))
            for chunk_id, document in indexed.items():
                tf = document.count(term)
                if tf:
                    norm = 1.2 * (0.25 + 0.75 * len(document) / average)
                    scores[chunk_id] = scores.get(chunk_id, 0.0) + idf * tf * 2.2 / (tf + norm)
        return self._ranked(scores, k, filt)

    def phrase_search(self, words: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        n = len(words)
        scores = {
            chunk_id: 1.0
            for d in self._documents.values()
            for chunk_id, have in d.words.items()
            if n and any(have[i : i + n] == list(words) for i in range(len(have) - n + 1))
        }
        return self._ranked(scores, k, filt)

    def vector_search(self, vector: np.ndarray, k: int, filt: SearchFilter | None) -> list[Hit]:
        scores = {c: float(np.max(w @ vector)) for c, w in self.iter_vectors()}
        return self._ranked(scores, k, filt)

    def _ranked(self, scores: dict[str, float], k: int, filt: SearchFilter | None) -> list[Hit]:
        if filt is not None and not filt.empty:
            allowed = {s.chunk.chunk_id for s in self._chunks() if filt.matches(s.chunk)}
            scores = {c: v for c, v in scores.items() if c in allowed}
        ranked = sorted(scores.items(), key=lambda item: -item[1])[: max(k, 0)]
        return [Hit(chunk_id, score) for chunk_id, score in ranked]

    def stats(self) -> StoreStats:
        documents = self._documents.values()
        return StoreStats(
            documents=len(self._documents),
            sections=sum(len(d.sections) for d in documents),
            chunks=sum(len(d.chunks) for d in documents),
            vectors=sum(len(v) for d in documents for v in d.vectors.values()),
            definitions=len(self.all_definitions()),
            acronyms=len(self.acronyms()),
            crossrefs=sum(len(e.references) for e in self._extractions()),
            generation=self._generation,
            embedding_model=self._meta.embedding_model,
            dimension=self.dimension,
        )

    def close(self) -> None:
        self._documents.clear()
