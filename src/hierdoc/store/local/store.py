"""The embedded default backend: SQLite records, a tantivy BM25 index, a numpy matrix.

SQLite is the source of truth. The BM25 index and the vector matrix each record
the store generation they reflect; on open, one that lags (an ingest was
interrupted, a file was lost) is rebuilt from SQLite, so the three always agree.
"""

from __future__ import annotations

import itertools
import shutil
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from ...errors import ConfigError, StoreError
from ...models import (
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
from ..base import ContextCache, IndexMeta, TextAnalyzer
from .bm25 import Bm25Entry, Bm25Index
from .records import RecordStore
from .vectors import VectorIndex

META_KEYS = ("embedding_model", "dimension", "fingerprint", "context_usage")


class LocalStore:
    """An index directory: ``records.sqlite``, ``bm25/`` and ``vectors/``."""

    def __init__(
        self, directory: Path, dimension: int, analyzer: TextAnalyzer, reset: bool = False
    ) -> None:
        """Open (or create) the index in ``directory``.

        ``reset`` empties it first and lets a different embedding model take over
        (``hierdoc ingest --force``); cached LLM contexts are kept.
        """
        self.directory = directory
        self._analyzer = analyzer
        directory.mkdir(parents=True, exist_ok=True)
        self.records = RecordStore(directory / "records.sqlite")
        if reset:
            self.records.clear()
            self.records.set_meta("dimension", str(dimension))
        self._check_dimension(dimension)
        self.bm25 = self._open_bm25()
        self.vectors = VectorIndex(directory / "vectors", dimension)
        self._pending_removed: set[str] = set()
        self._pending_added: list[tuple[str, np.ndarray]] = []
        self._refresh_lock = threading.Lock()
        self._sync_derived()

    def _check_dimension(self, dimension: int) -> None:
        stored = self.records.get_meta("dimension")
        if stored is None:
            self.records.set_meta("dimension", str(dimension))
        elif int(stored) != dimension:
            model = self.records.get_meta("embedding_model") or "another model"
            raise ConfigError(
                f"this index was built with {model} ({stored}-dimensional vectors) but the "
                f"embedder makes {dimension}: use the same model, or rebuild with: "
                "hierdoc ingest --force"
            )

    def _open_bm25(self) -> Bm25Index:
        path = self.directory / "bm25"
        try:
            return Bm25Index(path, self._analyzer.version)
        except Exception:  # an unreadable derived index is rebuilt, never fatal
            shutil.rmtree(path, ignore_errors=True)
            return Bm25Index(path, self._analyzer.version)

    def _sync_derived(self) -> None:
        generation = self.records.generation
        if self.bm25.generation != generation:
            self.bm25.reset()
            self.bm25.add(self._bm25_entry(s) for s in self.records.iter_chunks())
            self.bm25.commit(generation)
        if not self.vectors.load_cache() or self.vectors.generation != generation:
            self.vectors.rebuild(self.iter_vectors(), generation)

    def _bm25_entry(self, stored: StoredChunk) -> Bm25Entry:
        chunk = stored.chunk
        text = f"{stored.context}\n{chunk.content}" if stored.context else chunk.content
        return Bm25Entry(
            chunk_id=chunk.chunk_id,
            source=chunk.source,
            terms=self._analyzer.terms(text),
            words=self._analyzer.words(chunk.content),
            chunk_type=chunk.chunk_type,
            section_path=chunk.section_path,
        )

    @property
    def generation(self) -> int:
        return self.records.generation

    @property
    def context_cache(self) -> ContextCache:
        """The LLM context cache lives in the record store, and survives ``--force``."""
        return self.records

    # meta

    def read_meta(self) -> IndexMeta:
        values = {key: self.records.get_meta(key) for key in META_KEYS}
        return IndexMeta.from_strings({k: v for k, v in values.items() if v is not None})

    def write_meta(self, meta: IndexMeta) -> None:
        for key, value in meta.to_strings().items():
            self.records.set_meta(key, value)

    # writes

    def write_document(
        self,
        document: DocumentRecord,
        sections: Sequence[Section],
        chunks: Sequence[StoredChunk],
        vectors: Sequence[np.ndarray],
        extraction: Extraction | None = None,
    ) -> None:
        old = {s.chunk.chunk_id for s in self.records.chunks_of_source(document.source)}
        try:
            self.records.replace_document(document, sections, chunks, vectors, extraction)
        except sqlite3.IntegrityError as error:
            raise StoreError(f"cannot write {document.source}: {error}") from error
        self.bm25.delete_source(document.source)
        self.bm25.add(self._bm25_entry(s) for s in chunks)
        self._forget(old)
        self._pending_added += [
            (s.chunk.chunk_id, v) for s, v in zip(chunks, vectors, strict=False)
        ]

    def _forget(self, chunk_ids: set[str]) -> None:
        self._pending_removed |= chunk_ids
        self._pending_added = [(c, v) for c, v in self._pending_added if c not in chunk_ids]

    def delete_documents(self, sources: Iterable[str]) -> None:
        sources = list(sources)
        if not sources:
            return
        for source in sources:
            self._forget({s.chunk.chunk_id for s in self.records.chunks_of_source(source)})
            self.bm25.delete_source(source)
        self.records.delete_documents(sources)

    def clear(self) -> None:
        self.records.clear()
        self.bm25.reset()
        self._pending_removed.clear()
        self._pending_added.clear()
        self.vectors.rebuild([], self.records.generation)
        self.bm25.commit(self.records.generation)

    def flush(self) -> None:
        generation = self.records.generation
        self.bm25.commit(generation)
        if self._pending_removed or self._pending_added or self.vectors.generation != generation:
            self.vectors.replace(self._pending_removed, self._pending_added, generation)
        self._pending_removed, self._pending_added = set(), []

    def refresh(self) -> None:
        """Catch up with writes made by another process since this store was opened.

        A long-running reader (the MCP server) keeps serving while ``hierdoc ingest``
        runs elsewhere; its derived indexes follow the record store's generation.
        Writes pending in this process are left to :meth:`flush`. A reader never
        writes derived indexes here (the writer may be mid-ingest): it reloads BM25
        and rebuilds its vector matrix in memory; chunks the writer has deleted are
        dropped from results because their records are gone. Threads that search at
        once refresh one at a time; the vector matrix is swapped whole.
        """
        if self._pending_added or self._pending_removed:
            return
        with self._refresh_lock:
            generation = self.records.generation
            if self.vectors.generation == generation and self.bm25.generation == generation:
                return
            self.bm25.refresh()
            if not self.vectors.load_cache() or self.vectors.generation != generation:
                self.vectors.rebuild(self.iter_vectors(), generation, save=False)

    # records

    def documents(self) -> list[DocumentRecord]:
        return self.records.documents()

    def document_hashes(self) -> dict[str, str]:
        return self.records.document_hashes()

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        return self.records.chunks(chunk_ids)

    def chunks_of_source(self, source: str) -> list[StoredChunk]:
        return self.records.chunks_of_source(source)

    def chunks_of_sections(self, section_ids: Sequence[str]) -> list[StoredChunk]:
        return self.records.chunks_of_sections(section_ids)

    def chunks_under(self, section_id: str, filt: SearchFilter | None = None) -> list[StoredChunk]:
        under = self.records.chunk_ids_matching(SearchFilter(section_prefix=section_id))
        if filt is not None and not filt.empty:
            under &= self.records.chunk_ids_matching(filt)
        return sorted(
            self.records.chunks(sorted(under)).values(),
            key=lambda s: (s.chunk.source, s.chunk.ordinal),
        )

    def sources_with_context(self, context_source: str) -> set[str]:
        return self.records.sources_with_context(context_source)

    def iter_vectors(self) -> Iterator[tuple[str, np.ndarray]]:
        return _grouped(self.records.iter_vectors())

    def vectors_of(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        return dict(_grouped(self.records.vectors_of(chunk_ids)))

    def sections(self, section_id: str) -> list[SectionRecord]:
        return self.records.sections(section_id)

    def children(self, source: str, section_id: str) -> list[SectionRecord]:
        return self.records.children(source, section_id)

    def sections_with_heading(self, heading: str) -> list[str]:
        return self.records.headings_matching(heading.strip().lower())

    def definitions(self, term_norms: Sequence[str]) -> list[Definition]:
        return self.records.definitions(term_norms)

    def all_definitions(self) -> list[Definition]:
        return self.records.all_definitions()

    def acronyms(self) -> list[Acronym]:
        return self.records.acronyms()

    def chunk_terms(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        return self.records.chunk_terms(chunk_ids)

    def references_from(self, chunk_ids: Sequence[str]) -> list[CrossRef]:
        return self.records.references_from(chunk_ids)

    def references_to(self, section_ids: Sequence[str]) -> list[CrossRef]:
        return self.records.references_to(section_ids)

    # retrieval

    def doc_freq(self, terms: Sequence[str]) -> dict[str, int]:
        self.refresh()
        return self.bm25.doc_freq(list(terms))

    def keyword_search(self, terms: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        self.refresh()
        return self.bm25.search(list(terms), k, filt)

    def phrase_search(self, words: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        self.refresh()
        return self.bm25.phrase_search(list(words), k, filt)

    def vector_search(self, vector: np.ndarray, k: int, filt: SearchFilter | None) -> list[Hit]:
        self.refresh()
        allowed = None if filt is None or filt.empty else self.records.chunk_ids_matching(filt)
        return self.vectors.search(vector, k, allowed)

    def stats(self) -> StoreStats:
        size = sum(f.stat().st_size for f in self.directory.rglob("*") if f.is_file())
        meta = self.read_meta()
        return StoreStats(
            **self.records.counts(),
            index_bytes=size,
            generation=self.records.generation,
            embedding_model=meta.embedding_model,
            dimension=meta.dimension or 0,
            contexts={**self.records.context_counts(), **meta.context_usage},
        )

    def close(self) -> None:
        self.bm25.close()
        self.records.close()


def _grouped(rows: Iterable[tuple[str, bytes]]) -> Iterator[tuple[str, np.ndarray]]:
    """(chunk id, vector bytes) rows, a chunk's windows together, as (chunk id, matrix)."""
    for chunk_id, group in itertools.groupby(rows, key=lambda row: row[0]):
        yield chunk_id, np.vstack([np.frombuffer(blob, dtype=np.float32) for _, blob in group])
