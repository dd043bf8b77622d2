"""The embedded default backend: SQLite records, a tantivy BM25 index, a numpy matrix.

SQLite is the source of truth. The BM25 index and the vector matrix each record
the store generation they reflect; on open, one that lags (an ingest was
interrupted, a file was lost) is rebuilt from SQLite, so the three always agree.
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

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
from .bm25 import Bm25Entry, Bm25Index
from .records import RecordStore
from .vectors import VectorIndex


def bm25_entry(stored: StoredChunk) -> Bm25Entry:
    chunk = stored.chunk
    return Bm25Entry(
        chunk_id=chunk.chunk_id,
        source=chunk.source,
        text=f"{stored.context}\n{chunk.content}" if stored.context else chunk.content,
        phrase_text=chunk.content,
        chunk_type=chunk.chunk_type,
        section_path=chunk.section_path,
    )


class LocalStore:
    def __init__(self, directory: Path, dimension: int, reset: bool = False) -> None:
        """Open (or create) the index in ``directory``.

        ``reset`` empties it first and lets a different embedding model take over
        (``hierdoc ingest --force``); cached LLM contexts are kept.
        """
        self.directory = directory
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
        self._sync_derived()

    def _check_dimension(self, dimension: int) -> None:
        stored = self.records.get_meta("dimension")
        if stored is None:
            self.records.set_meta("dimension", str(dimension))
        elif int(stored) != dimension:
            model = self.records.get_meta("embedding_model") or "another model"
            raise ValueError(
                f"this index was built with {model} ({stored}-dimensional vectors) but the "
                f"embedder makes {dimension}: use the same model, or rebuild with: "
                "hierdoc ingest --force"
            )

    def _open_bm25(self) -> Bm25Index:
        path = self.directory / "bm25"
        try:
            return Bm25Index(path)
        except Exception:  # an unreadable derived index is rebuilt, never fatal
            shutil.rmtree(path, ignore_errors=True)
            return Bm25Index(path)

    def _sync_derived(self) -> None:
        generation = self.records.generation
        if self.bm25.generation != generation:
            self.bm25.reset()
            self.bm25.add(bm25_entry(s) for s in self.records.iter_chunks())
            self.bm25.commit(generation)
        if not self.vectors.load_cache() or self.vectors.generation != generation:
            self.vectors.rebuild(self.records.iter_vectors(), generation)

    @property
    def generation(self) -> int:
        return self.records.generation

    # writes

    def document_hashes(self) -> dict[str, str]:
        return self.records.document_hashes()

    def documents(self) -> list[DocumentRecord]:
        return self.records.documents()

    def write_document(
        self,
        document: DocumentRecord,
        sections: Sequence[Section],
        chunks: Sequence[StoredChunk],
        vectors: Sequence[np.ndarray],
        extraction: Extraction | None = None,
    ) -> None:
        old = {s.chunk.chunk_id for s in self.records.chunks_of_source(document.source)}
        self.records.replace_document(document, sections, chunks, vectors, extraction)
        self.bm25.delete_source(document.source)
        self.bm25.add(bm25_entry(s) for s in chunks)
        self._pending_removed |= old
        self._pending_added = [(c, v) for c, v in self._pending_added if c not in old]
        self._pending_added += [
            (s.chunk.chunk_id, v) for s, v in zip(chunks, vectors, strict=False)
        ]

    def delete_documents(self, sources: Iterable[str]) -> None:
        sources = list(sources)
        if not sources:
            return
        for source in sources:
            old = {s.chunk.chunk_id for s in self.records.chunks_of_source(source)}
            self._pending_removed |= old
            self._pending_added = [(c, v) for c, v in self._pending_added if c not in old]
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

    # reads

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        return self.records.chunks(chunk_ids)

    def chunks_of_source(self, source: str) -> list[StoredChunk]:
        return self.records.chunks_of_source(source)

    def chunks_of_sections(self, section_ids: Sequence[str]) -> list[StoredChunk]:
        return self.records.chunks_of_sections(section_ids)

    def chunks_under(self, section_id: str, filt: SearchFilter | None = None) -> list[StoredChunk]:
        """Chunks in the subtree of a section id, in document order."""
        under = self.records.chunk_ids_matching(SearchFilter(section_prefix=section_id))
        if filt is not None and not filt.empty:
            under &= self.records.chunk_ids_matching(filt)
        return sorted(
            self.records.chunks(sorted(under)).values(),
            key=lambda s: (s.chunk.source, s.chunk.ordinal),
        )

    def iter_vectors(self) -> Iterator[tuple[str, np.ndarray]]:
        """Each chunk's id with its windows' vectors, by document and reading order."""
        rows = self.records.iter_vectors()
        for chunk_id, group in itertools.groupby(rows, key=lambda row: row[0]):
            yield chunk_id, np.vstack([np.frombuffer(blob, dtype=np.float32) for _, blob in group])

    def sections(self, section_id: str) -> list[SectionRecord]:
        return self.records.sections(section_id)

    def children(self, source: str, section_id: str) -> list[SectionRecord]:
        return self.records.children(source, section_id)

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

    def sources_with_structural_contexts(self) -> set[str]:
        return self.records.sources_with_structural_contexts()

    def sections_with_heading(self, heading: str) -> list[str]:
        return self.records.headings_matching(heading.strip().lower())

    def refresh(self) -> None:
        """Catch up with writes made by another process since this store was opened.

        A long-running reader (the MCP server) keeps serving while ``hierdoc ingest``
        runs elsewhere; its derived indexes follow the record store's generation.
        Writes pending in this process are left to :meth:`flush`. A reader never
        writes derived indexes here (the writer may be mid-ingest): it reloads BM25
        and rebuilds its vector matrix in memory; chunks the writer has deleted are
        dropped from results because their records are gone.
        """
        if self._pending_added or self._pending_removed:
            return
        generation = self.records.generation
        if self.vectors.generation == generation and self.bm25.generation == generation:
            return
        self.bm25.refresh()
        if not self.vectors.load_cache() or self.vectors.generation != generation:
            self.vectors.rebuild(self.records.iter_vectors(), generation, save=False)

    def keyword_search(self, query: str, k: int, filt: SearchFilter | None) -> list[Hit]:
        self.refresh()
        return self.bm25.search(query, k, filt)

    def phrase_search(self, phrase: str, k: int, filt: SearchFilter | None) -> list[Hit]:
        self.refresh()
        return self.bm25.phrase_search(phrase, k, filt)

    def identifier_search(self, identifier: str, k: int, filt: SearchFilter | None) -> list[Hit]:
        self.refresh()
        return self.bm25.identifier_search(identifier, k, filt)

    def vector_search(self, vector: np.ndarray, k: int, filt: SearchFilter | None) -> list[Hit]:
        self.refresh()
        allowed = None if filt is None or filt.empty else self.records.chunk_ids_matching(filt)
        return self.vectors.search(vector, k, allowed)

    @property
    def context_cache(self) -> RecordStore:
        """The LLM context cache lives in the record store, and survives ``--force``."""
        return self.records

    def stats(self) -> StoreStats:
        size = sum(f.stat().st_size for f in self.directory.rglob("*") if f.is_file())
        return StoreStats(
            **self.records.counts(),
            index_bytes=size,
            generation=self.records.generation,
            embedding_model=self.records.get_meta("embedding_model"),
            dimension=int(self.records.get_meta("dimension") or 0),
            contexts={
                **self.records.context_counts(),
                **json.loads(self.records.get_meta("context_usage") or "{}"),
            },
        )

    def close(self) -> None:
        self.bm25.close()
        self.records.close()
