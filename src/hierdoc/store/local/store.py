"""The embedded default backend: SQLite records, a tantivy BM25 index, a numpy matrix.

SQLite is the source of truth. The BM25 index and the vector matrix each record
the store generation they reflect. Only the holder of the writer lock
(``writer.lock``, :mod:`.lock`) writes anything: when it takes the lock it first
rebuilds, on disk, a derived index that lags (an ingest was killed, a file was
lost), and when it lets go it flushes, so the three agree whenever nobody writes.
A store that finds derived indexes lagging and cannot write them (opened
read-only, or another process is writing) uses the disk copy while a live writer
will bring it up to date, and otherwise rebuilds its own copy in memory.

A rebuild (``reset``, :meth:`LocalStore.begin_rebuild`) fills a new data directory
beside the live one and swaps it in when published (:mod:`.builds`); stores that do
not hold the writer lock follow the swap before their next read.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sqlite3
import stat
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

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
from ...text.analyze import TextAnalyzer
from ..base import (
    CORE_CAPABILITIES,
    Capability,
    ContextCache,
    ContextEntry,
    DimensionError,
    IndexBusyError,
    IndexMeta,
    locked_write,
)
from .bm25 import Bm25Entry, Bm25Index, Bm25IndexError
from .bm25_tail import TailedBm25
from .builds import (
    POINTER,
    live_data,
    new_build,
    point_to,
    pointer_stamp,
    remove_data,
    remove_leftovers,
    stopped_builds,
)
from .check import records_missing
from .connection import DamagedIndexError
from .lock import LOCK_FILE, WriterLock, holder_alive
from .records import RecordStore
from .vectors import VectorDamageError, VectorIndex

META_KEYS = ("embedding_model", "dimension", "fingerprint", "context_usage")
RECORDS_FILE = "records.sqlite"
OPEN_ATTEMPTS = 5
"""Times a store opens the live data again when a rebuild is swapped in while it opens."""
RETIRED_SECONDS = 60.0
"""How long a record store replaced by a swapped-in rebuild stays open for threads that
were reading it; its deleted files are given back when it is closed."""

_writes = locked_write


class LocalStore:
    """An index directory: ``writer.lock``, and the data (``records.sqlite``, ``bm25/``,
    ``vectors/``) in it or, once rebuilt, in the build directory ``current`` names."""

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
        create: bool = True,
    ) -> None:
        """Open (or, unless ``read_only`` or not ``create``, create) the index in ``directory``.

        ``reset`` starts a rebuild (:meth:`begin_rebuild`) that lets a different embedding
        model take over (``hierdoc ingest --force``); cached LLM contexts are kept; an
        empty index is emptied in place. ``hold_writer``
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
        self._create = create
        hold_writer = hold_writer or (reset and not read_only)  # a rebuild lasts until closed
        self._lock = WriterLock(directory / LOCK_FILE)
        self._pending_removed: set[str] = set()
        self._pending_added: list[tuple[str, np.ndarray]] = []
        self._refresh_lock = threading.RLock()
        self._build: _Live | None = None
        """The live data while a rebuild fills ``self.data`` beside it (not yet visible)."""
        self._retired: list[tuple[float, RecordStore]] = []
        self._highest = 0
        self.bm25: Bm25Index | TailedBm25 | None = None
        self._pointer = str(directory / POINTER)
        self.data, self._stamp = live_data(directory)
        self._records = self._open_records()
        self.vectors = VectorIndex(self.data / "vectors", dimension)
        try:
            self._open(reset, hold_writer)
        except BaseException:
            self.close()
            raise

    @property
    def records(self) -> RecordStore:
        """The live data's record store: a store that does not hold the writer lock follows
        a rebuild another store has swapped in (one ``stat`` of the pointer per read)."""
        if not self._lock.held and pointer_stamp(self._pointer) != self._stamp:
            self._follow_pointer()
        if self._retired:
            self._close_retired()
        return self._records

    def _open_records(self) -> RecordStore:
        """The record store of the live data, opened again when a rebuild is swapped in
        meanwhile (the data it replaced is being deleted)."""
        for _ in range(OPEN_ATTEMPTS):
            try:
                records = self._records_in(self.data)
            except Exception:
                if not self._moved():
                    raise
            else:
                if not self._moved():
                    return records
                records.close()
            self.data, self._stamp = live_data(self.directory)
        raise StoreError(
            f"the index at {self.directory} was rebuilt {OPEN_ATTEMPTS} times while it was "
            "being opened: open it again"
        )

    def _moved(self) -> bool:
        """Whether another store has swapped a rebuild in since this one found the data."""
        return pointer_stamp(self._pointer) != self._stamp

    def _records_in(self, data: Path) -> RecordStore:
        path = data / RECORDS_FILE
        damaged = None if self._reset_pending else records_missing(data, RECORDS_FILE)
        if damaged is not None:
            raise damaged  # the derived indexes cannot give the records back: wipe nothing
        if not self.read_only:
            if not self._create and not path.is_file():
                raise self._no_index()
            if data != self.directory and not data.is_dir():
                raise NotFoundError(f"the data of the index at {self.directory} is gone")
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
            raise self._no_index()
        return records

    def _no_index(self) -> NotFoundError:
        return NotFoundError(f"no index at {self.directory}: run `hierdoc ingest PATH`")

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

    def _check_dimension(self, dimension: int, records: RecordStore | None = None) -> None:
        records = records or self.records
        stored = records.get_meta("dimension")
        if stored is None:
            return
        if int(stored) != dimension:
            model = records.get_meta("embedding_model") or "another model"
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
        """On taking the lock: the live data (a rebuild may have been swapped in since this
        store opened) and nothing else (leftovers of rebuilds that stopped are deleted),
        the schema and a pending reset, then derived indexes rebuilt on disk if they lag."""
        if self._moved():
            self._follow_pointer()
        if not self._records.current:
            self._records.set_up()
        for build in stopped_builds(self.directory, self.data):
            self._keep_contexts(build)
        remove_leftovers(self.directory, self.data)
        if self._reset_pending:
            self._reset_pending = False
            if not self._start_build(reset=True):
                self._records.clear()  # nothing for readers to lose: emptied in place
                self._records.set_meta("dimension", str(self._dimension))
        if self._records.get_meta("dimension") is None:
            self._records.set_meta("dimension", str(self._dimension))
        self._catch_up_derived()

    def _keep_contexts(self, build: Path) -> None:
        """The LLM contexts a stopped rebuild cached, copied into the live records (a build
        killed before its records were set up has none to give)."""
        records = build / RECORDS_FILE
        if records.is_file():
            with suppress(sqlite3.Error, DamagedIndexError):  # a file never written whole
                self._records.keep_contexts(records)

    def _catch_up_derived(self) -> None:
        """The BM25 index and the vector cache of the data written here, rebuilt on disk
        from the records if they lag."""
        if self.vectors.directory != self.data / "vectors":  # a rebuild was swapped in
            self.vectors = VectorIndex(self.data / "vectors", self._dimension)
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
        """On releasing the lock: flush (a rebuild not published is dropped), and give
        tantivy's writer lock back."""
        try:
            if self._build is not None:
                self.abandon_rebuild()
            else:
                self._flush()
        finally:
            if self.bm25 is not None:
                self.bm25.release_writer()

    # rebuilds beside the live data

    @_writes
    def begin_rebuild(self) -> bool:
        """Go on writing into a new, empty index beside the live one (with its meta and the
        context cache): readers see the live index until :meth:`publish_rebuild`. False
        when one is under way already, or the live index is empty (nothing to keep)."""
        if self._build is not None:
            return False
        self._flush()
        if not self._start_build(reset=False):
            return False
        self._catch_up_derived()
        return True

    def _start_build(self, reset: bool) -> bool:
        """Switch writing to a new build directory; False (nothing done) when the live
        index holds no documents. ``reset``: the build takes this store's dimension."""
        live = self._records
        if not live.document_count():
            return False
        build = new_build(self.directory)
        records = RecordStore(build / RECORDS_FILE)
        try:
            records.set_up()
            self._highest = max(self._highest, live.generation) + 1
            records.carry_over(self.data / RECORDS_FILE, META_KEYS, self._highest)
            if reset:
                records.set_meta("dimension", str(self._dimension))
        except BaseException:
            records.close()
            remove_data(self.directory, build)
            raise
        if self.bm25 is not None:
            self.bm25.release_writer()
        self._build = _Live(self.data, live, self.bm25, self.vectors)
        self.data, self._records = build, records
        self.bm25, self.vectors = None, VectorIndex(build / "vectors", self._dimension)
        self._pending_removed, self._pending_added = set(), []
        return True

    @_writes
    def publish_rebuild(self) -> None:
        """Swap the rebuild in: flushed, synced, then named by the pointer in one rename;
        the data it replaces is deleted (readers holding it open read on until they follow).
        Nothing when no rebuild is under way."""
        live = self._build
        if live is None:
            return
        self._flush()
        self._records.checkpoint()
        crash_point("rebuild-complete")
        point_to(self.directory, self.data)
        self._stamp = pointer_stamp(self._pointer)
        self._build = None
        crash_point("rebuild-published")
        live.close()
        remove_data(self.directory, live.data)

    def abandon_rebuild(self) -> None:
        """Drop the rebuild under way (its directory is deleted; the LLM contexts it cached
        are kept) and write to the live data again; nothing when none is under way. The
        live generation moves past the build's, so that nothing keyed by a generation takes
        the live records for the build's (unless the build was for another vector size:
        then the live index is left untouched, for a store that can no longer use it)."""
        live, self._build = self._build, None
        if live is None:
            return
        build = self.data
        self._highest = max(self._highest, self._records.generation)
        if self.bm25 is not None:
            self.bm25.close()
        self._records.close()
        self.data, self._records, self.bm25, self.vectors = live
        self._keep_contexts(build)
        self._pending_removed, self._pending_added = set(), []
        remove_data(self.directory, build)
        if self._records.get_meta("dimension") == str(self._dimension):
            self._catch_up_derived()  # the file lock is held, even while it is let go
            self._records.advance_generation(self._highest)
            self._flush()  # BM25 and the vectors stamped with that generation

    def _follow_pointer(self) -> None:
        """Read from the data a rebuild has swapped in: the record store is replaced at once
        (the old one is closed later: threads may be reading it), the derived indexes by
        the next :meth:`refresh`, as the generation has moved past theirs."""
        with self._refresh_lock:
            if not self._moved():
                return
            kept = self.data, self._stamp
            self.data, self._stamp = live_data(self.directory)
            try:
                records = self._open_records()
            except BaseException:
                self.data, self._stamp = kept
                raise
            try:
                self._check_dimension(self._dimension, records)
            except DimensionError:
                records.close()
                self.data, self._stamp = kept
                raise
            self._retired.append((time.monotonic(), self._records))
            self._records = records
            self._pending_removed, self._pending_added = set(), []

    def _close_retired(self) -> None:
        """Close the record stores replaced more than :data:`RETIRED_SECONDS` ago."""
        if not self._refresh_lock.acquire(blocking=False):
            return
        try:
            old = time.monotonic() - RETIRED_SECONDS
            for retired in [r for r in self._retired if r[0] < old]:
                self._retired.remove(retired)
                retired[1].close()
        finally:
            self._refresh_lock.release()

    def _ours(self, bm25: Bm25Index | None) -> bool:
        """A BM25 index on disk in the data this store reads (not one a rebuild replaced)."""
        return bm25 is not None and bm25.directory == self.data / "bm25"

    def _disk_bm25(self) -> Bm25Index:
        """The BM25 index in ``bm25/``, opened for writing (an unreadable one is rebuilt)."""
        if self._ours(self.bm25) and self.bm25.writable:
            return self.bm25
        path = self.data / "bm25"
        try:
            return Bm25Index(path, self._analyzer.version)
        except Exception:  # an unreadable derived index is rebuilt, never fatal
            shutil.rmtree(path, ignore_errors=True)
            return Bm25Index(path, self._analyzer.version)

    def _fresh_bm25(self, damaged: Bm25Index) -> Bm25Index:
        """An empty BM25 directory in place of a damaged one (files that fail their checksums)."""
        damaged.close()
        self.bm25 = None
        shutil.rmtree(self.data / "bm25", ignore_errors=True)
        return Bm25Index(self.data / "bm25", self._analyzer.version)

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

    def _vectors_current(
        self, generation: int, chunks: int, vectors: VectorIndex | None = None
    ) -> bool:
        """The vector cache on disk (of ``vectors``, else this store's) loads (checksums),
        reflects ``generation`` and holds every chunk."""
        vectors = vectors or self.vectors
        loaded = vectors.load_cache()
        return loaded and vectors.generation == generation and len(vectors) == chunks

    def _read_bm25(self) -> Bm25Index | None:
        """The BM25 index on disk for reading, reloaded; None when it cannot be opened.
        Opened read-only: only the lock holder creates or writes it (:meth:`_disk_bm25`)."""
        current = self.bm25.base if isinstance(self.bm25, TailedBm25) else self.bm25
        try:
            if self._ours(current):
                current.refresh()
                return current
            return Bm25Index(self.data / "bm25", self._analyzer.version, read_only=True)
        except (Bm25IndexError, OSError, ValueError):
            return None

    def _follow(self, generation: int) -> None:
        """Catch up without writing: the disk copies when current, or while a live writer is
        on them (with the documents committed since, :mod:`.bm25_tail`), else copies rebuilt
        in memory."""
        writer_live = holder_alive(self._lock.path)
        bm25: Bm25Index | TailedBm25 | None = self._read_bm25()
        chunks = self._chunk_count()
        if bm25 is not None and writer_live:
            bm25 = self._with_tail(bm25)
        elif bm25 is None or not self._bm25_current(bm25, generation, chunks):
            bm25 = Bm25Index(None, self._analyzer.version)
            bm25.add(self._bm25_entry(s) for s in self.records.iter_chunks())
            bm25.commit(generation)
        vectors = self.vectors
        if vectors.directory != self.data / "vectors":  # a rebuild was swapped in
            vectors = VectorIndex(self.data / "vectors", self._dimension)
        if not self._vectors_current(generation, chunks, vectors):
            vectors.rebuild(self.iter_vectors(), generation, save=False)
        self.bm25, self.vectors = bm25, vectors

    def _with_tail(self, bm25: Bm25Index) -> Bm25Index | TailedBm25:
        """``bm25`` (on disk, a writer live) with the documents SQLite has committed since its
        generation, read from SQLite in one snapshot; ``bm25`` alone when it is current, or
        when the writer is rebuilding it (its generation is before the changes kept)."""
        for _ in range(2):  # the writer may forget the changes as this reads: read it again
            if bm25.generation is None:
                return bm25
            with self.records.snapshot():
                generation = self.records.generation
                changed = self.records.changed_since(bm25.generation)
                if bm25.generation == generation:
                    return bm25
                changed_chunks = [self.chunks_of_source(source) for source in sorted(changed or ())]
            if changed is not None:
                tail = Bm25Index(None, self._analyzer.version)
                tail.add(self._bm25_entry(s) for chunks in changed_chunks for s in chunks)
                tail.commit(generation)
                return TailedBm25(bm25, tail, changed, generation)
            bm25.refresh()
        return bm25

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
    def capabilities(self) -> frozenset[Capability]:
        """Lexical and vector search, and what the record file can do."""
        return CORE_CAPABILITIES | self.records.capabilities

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
        with suppress(sqlite3.OperationalError):  # a full disk: the rows are only read again
            self.records.forget_changes(generation)
        if self._pending_removed or self._pending_added or self.vectors.generation != generation:
            try:
                self.vectors.replace(self._pending_removed, self._pending_added, generation)
            except VectorDamageError:  # a segment to merge is damaged: the records have all
                self.vectors.rebuild(self.iter_vectors(), generation)
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

    def section_holders(
        self, section_id: str, limit: int, sources: Sequence[str] | None = None
    ) -> list[str]:
        return self.records.section_holders(section_id, limit, sources)

    def count_sections(
        self, section_ids: Sequence[str], limit: int, sources: Sequence[str] | None = None
    ) -> int:
        return self.records.count_sections(section_ids, limit, sources)

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

    def acronyms_matching(self, keys: Sequence[str], long_forms: Sequence[str]) -> list[Acronym]:
        return self.records.acronyms_matching(keys, long_forms)

    def name_keys(self, kind: str, keys: Sequence[str]) -> list[tuple[str, str, str]]:
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

    def doc_freq(self, terms: Sequence[str], filt: SearchFilter | None = None) -> dict[str, int]:
        self.refresh()
        return self.bm25.doc_freq(list(terms), filt=filt)

    def keyword_search(self, terms: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        self.refresh()
        return self.bm25.search(list(terms), k, filt)

    def phrase_search(self, words: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        self.refresh()
        return self.bm25.phrase_search(list(words), k, filt)

    def vector_search(self, vector: np.ndarray, k: int, filt: SearchFilter | None) -> list[Hit]:
        self.refresh()
        allowed = None if filt is None or filt.empty else self.records.chunk_ids_matching(filt)
        try:
            return self.vectors.search(vector, k, allowed)
        except VectorDamageError:
            self._rebuild_damaged_vectors()
            return self.vectors.search(vector, k, allowed)

    def _rebuild_damaged_vectors(self) -> None:
        """Vectors rebuilt from the records after a block failed its checksum on the way to a
        search: on disk by the writer (what it had pending is in the records), else in
        memory."""
        with self._refresh_lock:
            generation = self.records.generation
            if self._lock.held:
                self.vectors.rebuild(self.iter_vectors(), generation)
                self._pending_removed, self._pending_added = set(), []
            else:
                self.vectors.rebuild(self.iter_vectors(), generation, save=False)

    def stats(self) -> StoreStats:
        size = _bytes_under(self.data)
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
            self._records.close()
            for _, retired in self._retired:
                retired.close()
            self._retired.clear()


class _Live(NamedTuple):
    """The live data of a store while it writes a rebuild beside it."""

    data: Path
    records: RecordStore
    bm25: Bm25Index | None
    vectors: VectorIndex

    def close(self) -> None:
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


def _bytes_under(directory: Path) -> int:
    """The size of the files under ``directory``; a file a writer deletes meanwhile (a merged
    vector segment, the data a rebuild replaced) counts for nothing."""
    size = 0
    for folder, _, files in os.walk(directory):  # a folder gone meanwhile is passed over
        for name in files:
            with suppress(FileNotFoundError):
                found = os.stat(os.path.join(folder, name), follow_symlinks=False)
                size += found.st_size if stat.S_ISREG(found.st_mode) else 0
    return size


def _grouped(rows: Iterable[tuple[str, bytes]]) -> Iterator[tuple[str, np.ndarray]]:
    """(chunk id, vector bytes) rows, a chunk's windows together, as (chunk id, matrix)."""
    for chunk_id, group in itertools.groupby(rows, key=lambda row: row[0]):
        yield chunk_id, np.vstack([np.frombuffer(blob, dtype=np.float32) for _, blob in group])
