"""The embedded default backend: SQLite records, a tantivy BM25 index, a numpy matrix.

SQLite is the source of truth. The BM25 index and the vector matrix each record
the store generation they reflect. Only the holder of the writer lock
(``writer.lock``, :mod:`.lock`) writes anything: when it takes the lock it first
rebuilds, on disk, a derived index that lags (an ingest was killed, a file was
lost), and when it lets go it flushes, so the three agree whenever nobody writes.
A store that finds derived indexes lagging and cannot write them (opened
read-only, or another process is writing) uses the disk copy while a live writer
will bring it up to date, and otherwise rebuilds its own copy in memory.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import numpy as np

from ...errors import NotFoundError, StoreError
from ...faults import crash_point
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
from ..base import (
    ContextCache,
    ContextEntry,
    DimensionError,
    IndexBusyError,
    IndexMeta,
    TextAnalyzer,
    locked_write,
)
from .bm25 import Bm25Entry, Bm25Index, Bm25IndexError
from .check import records_missing
from .lock import LOCK_FILE, WriterLock, holder_alive
from .records import RecordStore
from .vectors import VectorIndex

META_KEYS = ("embedding_model", "dimension", "fingerprint", "context_usage")
RECORDS_FILE = "records.sqlite"

_writes = locked_write


class LocalStore:
    """An index directory: ``records.sqlite``, ``bm25/``, ``vectors/`` and ``writer.lock``."""

    def __init__(
        self,
        directory: Path,
        dimension: int,
        analyzer: TextAnalyzer,
        reset: bool = False,
        *,
        read_only: bool = False,
        hold_writer: bool = False,
        wait: bool = False,
    ) -> None:
        """Open (or, unless ``read_only``, create) the index in ``directory``.

        ``reset`` empties it first and lets a different embedding model take over
        (``hierdoc ingest --force``); cached LLM contexts are kept. ``hold_writer``
        takes the writer lock before anything is written and keeps it until
        :meth:`close`; ``wait`` waits for another writer instead of failing.
        """
        self.directory = directory
        self.read_only = read_only
        self._analyzer = analyzer
        self._dimension = dimension
        self._wait = wait
        self._holding = False
        self._reset_pending = reset
        self._lock = WriterLock(directory / LOCK_FILE)
        self._pending_removed: set[str] = set()
        self._pending_added: list[tuple[str, np.ndarray]] = []
        self._refresh_lock = threading.Lock()
        self.bm25: Bm25Index | None = None
        self.vectors = VectorIndex(directory / "vectors", dimension)
        self.records = self._open_records()
        try:
            self._open(reset, hold_writer)
        except BaseException:
            self.close()
            raise

    def _open_records(self) -> RecordStore:
        path = self.directory / RECORDS_FILE
        damaged = None if self._reset_pending else records_missing(self.directory, RECORDS_FILE)
        if damaged is not None:
            raise damaged  # the derived indexes cannot give the records back: wipe nothing
        if not self.read_only:
            self.directory.mkdir(parents=True, exist_ok=True)
            if not os.access(self.directory, os.W_OK):  # a read-only mount refuses even root
                raise StoreError(
                    f"cannot write the index at {self.directory}: it is read-only; search it "
                    "(readers work on a read-only index), or ingest into a writable copy"
                )
            return RecordStore(path)
        records = RecordStore(path, read_only=True) if path.is_file() else None
        if records is None or not records.ready:
            if records is not None:
                records.close()
            raise NotFoundError(f"no index at {self.directory}: run `hierdoc ingest PATH`")
        return records

    def _open(self, reset: bool, hold_writer: bool) -> None:
        if hold_writer:
            self._lock.enter(self._wait, self._catch_up)
            self._holding = True
        setup = not self.read_only and (
            self._reset_pending
            or not self.records.ready
            or self.records.get_meta("dimension") is None
        )
        if setup:
            with self.lock_writer():
                pass  # taking the lock creates the schema and does the reset
        self._check_dimension(self._dimension)
        if self.bm25 is not None:
            return  # the writer lock was taken: derived indexes are current on disk
        generation = self.records.generation
        current = self._current_on_disk(generation) and self.records.current
        if current:
            return  # both derived indexes on disk are loaded and checked: nothing to follow
        if not self.read_only:
            try:
                with self.lock_writer(wait=False):
                    return  # taking the lock migrated the schema, rebuilt them on disk
            except IndexBusyError:
                pass  # another process writes: it will bring them up to date
        self._follow(generation)

    def _check_dimension(self, dimension: int) -> None:
        stored = self.records.get_meta("dimension")
        if stored is None:
            return
        if int(stored) != dimension:
            model = self.records.get_meta("embedding_model") or "another model"
            raise DimensionError(
                f"this index was built with {model} ({stored}-dimensional vectors) but the "
                f"embedder makes {dimension}: use the same model, or rebuild with: "
                "hierdoc ingest --force",
                int(stored),
            )

    # the writer lock

    @contextmanager
    def lock_writer(self, wait: bool | None = None) -> Iterator[None]:
        """Hold the writer lock (reentrant in this store); see :mod:`.lock`."""
        if self.read_only:
            raise StoreError(f"the index at {self.directory} is open for reading only")
        self._lock.enter(self._wait if wait is None else wait, self._catch_up)
        try:
            yield
        finally:
            self._lock.exit(self._let_go)

    def _catch_up(self) -> None:
        """On taking the lock: the schema and a pending reset, then derived indexes rebuilt
        on disk if they lag."""
        if not self.records.current:
            self.records.set_up()
        if self._reset_pending or self.records.get_meta("dimension") is None:
            if self._reset_pending:
                self.records.clear()
            self.records.set_meta("dimension", str(self._dimension))
            self._reset_pending = False
        generation = self.records.generation
        bm25 = self._disk_bm25()
        bm25.refresh()  # another process may have committed since this store read it
        if bm25.damage():
            bm25 = self._fresh_bm25(bm25)
        chunks = self._chunk_count()
        if bm25.generation != generation or bm25.count() != chunks:
            bm25.reset()
            bm25.add(self._bm25_entry(s) for s in self.records.iter_chunks())
            bm25.commit(generation)
        self.bm25 = bm25
        in_memory_current = self.vectors.saved and self.vectors.generation == generation
        if not in_memory_current and not self._vectors_current(generation, chunks):
            self.vectors.rebuild(self.iter_vectors(), generation)
        self.vectors.upgrade_legacy()

    def _let_go(self) -> None:
        """On releasing the lock: flush, and give tantivy's writer lock back."""
        try:
            self._flush()
        finally:
            if self.bm25 is not None:
                self.bm25.release_writer()

    def _disk_bm25(self) -> Bm25Index:
        """The BM25 index in ``bm25/``, opened for writing (an unreadable one is rebuilt)."""
        if self.bm25 is not None and self.bm25.writable:
            return self.bm25
        path = self.directory / "bm25"
        try:
            return Bm25Index(path, self._analyzer.version)
        except Exception:  # an unreadable derived index is rebuilt, never fatal
            shutil.rmtree(path, ignore_errors=True)
            return Bm25Index(path, self._analyzer.version)

    def _fresh_bm25(self, damaged: Bm25Index) -> Bm25Index:
        """An empty BM25 directory in place of a damaged one (files that fail their checksums)."""
        damaged.close()
        self.bm25 = None
        shutil.rmtree(self.directory / "bm25", ignore_errors=True)
        return Bm25Index(self.directory / "bm25", self._analyzer.version)

    def _current_on_disk(self, generation: int) -> bool:
        """Whether both derived indexes on disk reflect ``generation`` (loading them)."""
        self.bm25 = self._read_bm25()
        if self.bm25 is None:
            return False
        chunks = self._chunk_count()  # counted once: at 1M chunks a cold count reads 170 ms
        return self._bm25_current(self.bm25, generation, chunks) and self._vectors_current(
            generation, chunks
        )

    def _chunk_count(self) -> int:
        """The rows of the chunks table itself (what the derived indexes must each hold one
        entry for), without counting the other tables as ``counts`` does."""
        return self.records.chunk_rows()

    def _bm25_current(self, bm25: Bm25Index, generation: int, chunks: int) -> bool:
        """The BM25 index reflects ``generation``, passes its checksums and holds one
        document per chunk, ``chunks`` (a count caught an index stamped current that lost
        documents)."""
        return bm25.generation == generation and not bm25.damage() and bm25.count() == chunks

    def _vectors_current(self, generation: int, chunks: int) -> bool:
        """The vector cache on disk loads (checksums), reflects ``generation`` and holds
        every chunk."""
        loaded = self.vectors.load_cache()
        return loaded and self.vectors.generation == generation and len(self.vectors) == chunks

    def _read_bm25(self) -> Bm25Index | None:
        """The BM25 index on disk for reading, reloaded; None when it cannot be opened.
        Opened read-only: only the lock holder creates or writes it (:meth:`_disk_bm25`)."""
        current = self.bm25
        try:
            if current is not None and not current.in_memory:
                current.refresh()
                return current
            return Bm25Index(self.directory / "bm25", self._analyzer.version, read_only=True)
        except (Bm25IndexError, OSError, ValueError):
            return None

    def _follow(self, generation: int) -> None:
        """Catch up without writing: the disk copies when current (or a live writer is on it),
        else copies rebuilt in memory."""
        writer_live = holder_alive(self._lock.path)
        bm25 = self._read_bm25()
        chunks = self._chunk_count()
        usable = bm25 is not None and (writer_live or self._bm25_current(bm25, generation, chunks))
        if bm25 is None or not usable:
            bm25 = Bm25Index(None, self._analyzer.version)
            bm25.add(self._bm25_entry(s) for s in self.records.iter_chunks())
            bm25.commit(generation)
        self.bm25 = bm25
        if not self._vectors_current(generation, chunks):
            self.vectors.rebuild(self.iter_vectors(), generation, save=False)

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
        return _LockedCache(self)

    # meta

    def read_meta(self) -> IndexMeta:
        values = {key: self.records.get_meta(key) for key in META_KEYS}
        return IndexMeta.from_strings({k: v for k, v in values.items() if v is not None})

    @_writes
    def write_meta(self, meta: IndexMeta) -> None:
        for key, value in meta.to_strings().items():
            self.records.set_meta(key, value)

    # writes

    @_writes
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
        crash_point("records-committed")
        self.bm25.delete_source(document.source)
        self.bm25.add(self._bm25_entry(s) for s in chunks)
        crash_point("bm25-added")
        self._forget(old)
        self._pending_added += [
            (s.chunk.chunk_id, v) for s, v in zip(chunks, vectors, strict=False)
        ]

    def _forget(self, chunk_ids: set[str]) -> None:
        if not chunk_ids:  # a new document: nothing pending to drop (the list may be long)
            return
        self._pending_removed |= chunk_ids
        self._pending_added = [(c, v) for c, v in self._pending_added if c not in chunk_ids]

    @_writes
    def delete_documents(self, sources: Iterable[str]) -> None:
        sources = list(sources)
        if not sources:
            return
        for source in sources:
            self._forget({s.chunk.chunk_id for s in self.records.chunks_of_source(source)})
            self.bm25.delete_source(source)
        self.records.delete_documents(sources)

    @_writes
    def clear(self) -> None:
        self.records.clear()
        self.bm25.reset()
        self._pending_removed.clear()
        self._pending_added.clear()
        self.vectors.rebuild([], self.records.generation)
        self.bm25.commit(self.records.generation)

    @_writes
    def rebuild_derived(self) -> None:
        """Rebuild the BM25 index and the vector cache on disk from the records
        (``hierdoc check --repair``)."""
        generation = self.records.generation
        self.records.recount_chunks()
        self.bm25 = self._fresh_bm25(self.bm25) if self.bm25 is not None else self._disk_bm25()
        self.bm25.add(self._bm25_entry(s) for s in self.records.iter_chunks())
        self.bm25.commit(generation)
        self._pending_removed, self._pending_added = set(), []
        self.vectors.rebuild(self.iter_vectors(), generation)

    @_writes
    def flush(self) -> None:
        """Commit BM25 and save the vectors (as leaving the writer lock does)."""
        self._flush()

    def _flush(self) -> None:
        try:
            self._save_derived()
        except (OSError, ValueError) as error:  # tantivy reports I/O errors as ValueError
            raise StoreError(
                f"cannot save the search indexes in {self.directory} ({error}); the documents "
                "written so far are kept in records.sqlite and the next writer rebuilds the "
                "indexes: free some space and run the same command again"
            ) from error

    def _save_derived(self) -> None:
        generation = self.records.generation
        self.bm25.commit(generation)
        crash_point("bm25-committed")
        if self._pending_removed or self._pending_added or self.vectors.generation != generation:
            self.vectors.replace(self._pending_removed, self._pending_added, generation)
            crash_point("vectors-saved")
        self._pending_removed, self._pending_added = set(), []

    def refresh(self) -> None:
        """Catch up with writes made by another process since this store was opened.

        A long-running reader (the MCP server) keeps serving while ``hierdoc ingest``
        runs elsewhere; its derived indexes follow the record store's generation.
        A store holding the writer lock has its own state. Otherwise nothing is written
        here (see :meth:`_follow`); chunks the writer has deleted are dropped from
        results because their records are gone. Threads that search at once refresh
        one at a time; the vector matrix and the BM25 index are swapped whole.
        """
        if self._lock.held:
            return
        with self._refresh_lock:
            generation = self.records.generation
            bm25 = self.bm25
            if bm25 is not None and generation == bm25.generation == self.vectors.generation:
                return
            self._follow(generation)

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

    def section_starts(
        self, section_ids: Sequence[str], sources: Sequence[str] | None = None
    ) -> list[tuple[str, str, str]]:
        return self.records.section_starts(section_ids, sources)

    def section_holders(self, section_id: str, limit: int) -> list[str]:
        return self.records.section_holders(section_id, limit)

    def count_sections(self, section_ids: Sequence[str], limit: int) -> int:
        return self.records.count_sections(section_ids, limit)

    def chunks_under(self, section_id: str, filt: SearchFilter | None = None) -> list[StoredChunk]:
        found = self.records.chunks(self.chunk_ids_under(section_id, filt))
        return sorted(found.values(), key=lambda s: (s.chunk.source, s.chunk.ordinal))

    def chunk_ids_under(self, section_id: str, filt: SearchFilter | None = None) -> list[str]:
        """The filter's sources and types narrow the lookup of the subtree (a citation's
        subtree in one document reads that document's chunks, not every document's)."""
        within = SearchFilter(section_prefix=section_id)
        if filt is not None:
            within = replace(filt, section_prefix=section_id)
        ordered = self.records.chunk_ids_matching(within, ordered=True)
        if filt is not None and filt.section_prefix:
            kept = self.records.chunk_ids_matching(filt)
            ordered = [chunk_id for chunk_id in ordered if chunk_id in kept]
        return ordered

    def sources_with_context(self, context_source: str) -> set[str]:
        return self.records.sources_with_context(context_source)

    def iter_vectors(self) -> Iterator[tuple[str, np.ndarray]]:
        return _grouped(self.records.iter_vectors())

    def vectors_of(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        return dict(_grouped(self.records.vectors_of(chunk_ids)))

    def sections(self, section_id: str, source: str | None = None) -> list[SectionRecord]:
        return self.records.sections(section_id, source)

    def sections_of_source(self, source: str) -> list[SectionRecord]:
        return self.records.sections_of_source(source)

    def children(self, source: str, section_id: str) -> list[SectionRecord]:
        return self.records.children(source, section_id)

    def sections_in_chunks(self, chunks: Sequence[tuple[str, str]]) -> list[SectionRecord]:
        return self.records.sections_in_chunks(chunks)

    def sections_with_heading(self, heading: str) -> list[str]:
        return self.records.headings_matching(heading.strip().lower())

    def definitions(self, term_norms: Sequence[str]) -> list[Definition]:
        return self.records.definitions(term_norms)

    def all_definitions(self) -> list[Definition]:
        return self.records.all_definitions()

    def acronyms(self) -> list[Acronym]:
        return self.records.acronyms()

    def acronyms_matching(
        self, keys: Sequence[str], long_forms: Sequence[str]
    ) -> list[Acronym] | None:
        return self.records.acronyms_matching(keys, long_forms)

    def name_keys(self, kind: str, keys: Sequence[str]) -> list[tuple[str, str, str]] | None:
        return self.records.name_keys(kind, keys)

    def document_count(self) -> int:
        return self.records.document_count()

    def chunk_count(self) -> int:
        return self.records.chunk_count()

    def chunk_terms(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        return self.records.chunk_terms(chunk_ids)

    def references_from(self, chunk_ids: Sequence[str]) -> list[CrossRef]:
        return self.records.references_from(chunk_ids)

    def references_to(self, section_ids: Sequence[str], into: str | None = None) -> list[CrossRef]:
        return self.records.references_to(section_ids, into)

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
        """Release the writer lock if held since opening (flushing), then the files."""
        try:
            if self._holding:
                self._holding = False
                self._lock.exit(self._let_go)
        finally:
            if self.bm25 is not None:
                self.bm25.close()
            self.records.close()


class _LockedCache:
    """The record store's context cache, writing under the store's writer lock."""

    def __init__(self, store: LocalStore) -> None:
        self._store = store

    def get(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str
    ) -> str | None:
        return self._store.records.get(model, prompt_version, document_hash, chunk_hash)

    def put(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str, context: str
    ) -> None:
        with self._store.lock_writer():
            self._store.records.put(model, prompt_version, document_hash, chunk_hash, context)

    def entries(self) -> Iterator[ContextEntry]:
        return iter([ContextEntry(*row) for row in self._store.records.context_entries()])


def _grouped(rows: Iterable[tuple[str, bytes]]) -> Iterator[tuple[str, np.ndarray]]:
    """(chunk id, vector bytes) rows, a chunk's windows together, as (chunk id, matrix)."""
    for chunk_id, group in itertools.groupby(rows, key=lambda row: row[0]):
        yield chunk_id, np.vstack([np.frombuffer(blob, dtype=np.float32) for _, blob in group])
