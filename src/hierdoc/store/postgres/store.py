"""``PostgresStore``: the :class:`~hierdoc.store.base.Store` protocol on one PostgreSQL schema.

Everything lives in the database (records, BM25 postings and statistics, vectors, meta,
the context cache); there is no second index beside it, so every hierdoc process
pointed at the same schema sees each committed write at once: :meth:`flush` and
:meth:`refresh` have nothing to do, and :attr:`generation` is a counter row bumped
by every write transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg
from psycopg_pool import ConnectionPool

from ...errors import StoreError
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
    IndexBusyError,
    IndexMeta,
    locked_write,
    require,
)
from . import bulk, keyword, lexical, names, records, vectors, writes
from .connection import transaction
from .lock import WriterLock
from .reindex import analyzer_current, ensure_analyzer
from .schema import dimension_to_set, set_dimension

META_KEYS = ("embedding_model", "dimension", "fingerprint", "context_usage")

_writes = locked_write


class PostgresContextCache:
    """LLM contexts in the ``contexts`` table; each put is committed at once, under the
    store's writer lock."""

    def __init__(self, store: PostgresStore) -> None:
        self._store = store

    def get(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str
    ) -> str | None:
        with self._store.pool.connection() as conn:
            row = conn.execute(
                "SELECT context FROM contexts WHERE model = %s AND prompt_version = %s "
                "AND document_hash = %s AND chunk_hash = %s",
                (model, prompt_version, document_hash, chunk_hash),
            ).fetchone()
        return row[0] if row else None

    def put(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str, context: str
    ) -> None:
        with self._store.lock_writer(), self._store.pool.connection() as conn:
            conn.execute(
                "INSERT INTO contexts (model, prompt_version, document_hash, chunk_hash, context) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (model, prompt_version, document_hash, "
                "chunk_hash) DO UPDATE SET context = excluded.context",
                (model, prompt_version, document_hash, chunk_hash, context),
            )

    def entries(self) -> Iterator[ContextEntry]:
        """Every cached context, oldest first."""
        with self._store.pool.connection() as conn:
            rows = conn.execute(
                "SELECT model, prompt_version, document_hash, chunk_hash, context FROM contexts "
                "ORDER BY created_at, model, prompt_version, document_hash, chunk_hash"
            ).fetchall()
        return iter([ContextEntry(*row) for row in rows])


class PostgresStore:
    """An index in a PostgreSQL schema, shared by every process that opens it."""

    def __init__(
        self,
        pool: ConnectionPool,
        analyzer: TextAnalyzer,
        location: str,
        lock: WriterLock | None,
        exact_below: int = vectors.EXACT_BELOW,
        *,
        wait: bool = False,
    ) -> None:
        """A store on ``pool``; ``lock`` is None for a read-only store (nothing is written,
        and the pool's transactions are read-only)."""
        self.pool = pool
        self._analyzer = analyzer
        self._cache = PostgresContextCache(self)
        self._exact_below = exact_below
        self._lock = lock
        self._wait = wait
        self._holding = False
        self._names_ready = False
        self._rewritten: set[str] | None = None
        """The sources written since :meth:`begin_rebuild`, while a rebuild is under way."""
        self.location = location
        """The database URL (password masked) and schema, for messages and stats."""

    @property
    def read_only(self) -> bool:
        return self._lock is None

    def set_up(self, dimension: int, reset: bool = False, hold_writer: bool = False) -> None:
        """What opening does after the schema is there: take the writer lock to hold it
        (``hold_writer``), start a rebuild (``reset``: see :meth:`_reset`), switch the
        vectors to ``dimension`` when reset, and re-analyse the lexical index when the
        analyzer changed. A read-only
        store only checks (another embedder's dimension is a ConfigError, a lexical index
        of another analyzer a StoreError)."""
        if hold_writer:
            self._enter(self._wait)
            self._holding = True
        if reset:
            self._reset(dimension)
        if dimension_to_set(self.pool, dimension, reset):
            with self.lock_writer(), transaction(self.pool) as conn:
                set_dimension(conn, dimension)
        if not self.read_only and not self._read(names.names_current):
            self._fill_names()
        if analyzer_current(self.pool, self._analyzer):
            return
        if self.read_only:
            raise StoreError(
                f"the lexical index at {self.location} was built with another text analyzer: "
                "open it for writing once (hierdoc ingest) to rebuild it"
            )
        with self.lock_writer(), transaction(self.pool) as conn:
            ensure_analyzer(conn, self._analyzer)

    def _reset(self, dimension: int) -> None:
        """A rebuild over the live documents when the vectors keep their size; with another
        size the vectors column changes type, and the index is emptied first."""
        if dimension_to_set(self.pool, dimension, reset=True):
            self.clear()
        else:
            self.begin_rebuild()

    def _fill_names(self) -> None:
        """Store the name keys of every document (an index migrated to them), unless another
        process writes: readers name documents from the records until a writer fills them."""
        try:
            with self.lock_writer(wait=False), transaction(self.pool) as conn:
                names.fill_names(conn)
        except IndexBusyError:
            pass

    def _read(self, function: Any, *args: Any) -> Any:
        with self.pool.connection() as conn:
            return function(conn, *args)

    @property
    def generation(self) -> int:
        row = self._read(lambda conn: conn.execute("SELECT generation FROM state").fetchone())
        return int(row[0])

    @property
    def capabilities(self) -> frozenset[Capability]:
        """Records, lexical and vector search, the acronym keys (every schema has them) and
        the name keys once they are current (a writer fills them)."""
        if not self._names_ready:
            self._names_ready = self._read(names.names_current)
        lookups = {Capability.ACRONYM_KEYS} | (
            {Capability.NAME_KEYS} if self._names_ready else set()
        )
        return CORE_CAPABILITIES | lookups

    @property
    def context_cache(self) -> ContextCache:
        return self._cache

    # the writer lock

    @contextmanager
    def lock_writer(self, wait: bool | None = None) -> Iterator[None]:
        """Hold the writer lock (reentrant in this store); see :mod:`.lock`. Every write
        commits when it returns, so there is nothing to bring up to date or flush."""
        self._enter(self._wait if wait is None else wait)
        try:
            yield
        finally:
            self._exit()

    @contextmanager
    def _writing(self) -> Iterator[psycopg.Connection]:
        """A write transaction that commits only while this store holds the writer lock."""
        with transaction(self.pool) as conn:
            if self._lock is not None:
                self._lock.confirm(conn)
            yield conn

    def _enter(self, wait: bool) -> None:
        if self._lock is None:
            raise StoreError(f"the index at {self.location} is open for reading only")
        self._lock.enter(wait)

    def _exit(self) -> None:
        if self._lock is not None:
            self._lock.exit()

    # meta

    def read_meta(self) -> IndexMeta:
        rows = self._read(
            lambda conn: conn.execute(
                "SELECT key, value FROM meta WHERE key = ANY(%s)", (list(META_KEYS),)
            ).fetchall()
        )
        return IndexMeta.from_strings(dict(rows))

    @_writes
    def write_meta(self, meta: IndexMeta) -> None:
        values = meta.to_strings()
        with self._writing() as conn:
            conn.cursor().executemany(
                "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) "
                "DO UPDATE SET value = excluded.value",
                list(values.items()),
            )

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
        with self._writing() as conn:
            writes.replace_document(
                conn, self._analyzer, document, sections, chunks, vectors, extraction
            )
        if self._rewritten is not None:
            self._rewritten.add(document.source)

    @_writes
    def bulk_load(
        self,
        documents: Iterable[writes.Written],
        *,
        batch_chunks: int = bulk.BATCH_CHUNKS,
        build_memory: str = bulk.BUILD_MEMORY,
        build_workers: int = bulk.BUILD_WORKERS,
    ) -> bulk.BulkReport:
        """Write many documents in one transaction, batch by batch (see :mod:`.bulk`):
        what ``write_document`` does for each, far faster; readers see all or none."""
        written: list[str] = []
        with self._writing() as conn:
            report = bulk.bulk_load(
                conn, self._analyzer, _noting(documents, written), batch_chunks=batch_chunks,
                build_memory=build_memory, build_workers=build_workers,
            )  # fmt: skip
        if self._rewritten is not None:
            self._rewritten.update(written)
        return report

    @_writes
    def delete_documents(self, sources: Iterable[str]) -> None:
        sources = list(sources)
        if not sources:
            return
        with self._writing() as conn:
            writes.remove_sources(conn, sources)
            writes.bump(conn)

    @_writes
    def clear(self) -> None:
        with self._writing() as conn:
            writes.clear_all(conn)

    def flush(self) -> None:
        """Every write is committed when it returns: nothing is pending."""

    # a rebuild writes over the live documents (there is no second index to fill beside)

    @_writes
    def begin_rebuild(self) -> bool:
        """Each document is written again over its old version, one transaction each:
        readers see every document of the old index, old or new, until
        :meth:`publish_rebuild` deletes those not written again (never an empty index;
        for a while a mix of versions). False when a rebuild is under way, or the index
        is empty."""
        if self._rewritten is not None or not self.document_count():
            return False
        self._rewritten = set()
        return True

    @_writes
    def publish_rebuild(self) -> None:
        """Delete, in one transaction, the documents the rebuild did not write again."""
        rewritten, self._rewritten = self._rewritten, None
        if rewritten is not None:
            self.delete_documents([s for s in self.document_hashes() if s not in rewritten])

    def abandon_rebuild(self) -> None:
        """Stop tracking the rebuild: the documents written again keep their new version,
        the others their old one (closing does this to a rebuild not published)."""
        self._rewritten = None

    def refresh(self) -> None:
        """Each query reads the latest commit: nothing to catch up with."""

    # records

    def documents(self) -> list[DocumentRecord]:
        return self._read(records.select, DocumentRecord)

    def document_hashes(self) -> dict[str, str]:
        return {d.source: d.content_hash for d in self.documents()}

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        return self._read(records.chunks_by_id, chunk_ids)

    def chunks_of_source(self, source: str) -> list[StoredChunk]:
        return self._read(records.select_chunks, "c.source = %s", (source,))

    def chunks_of_sections(self, section_ids: Sequence[str]) -> list[StoredChunk]:
        return self._read(records.chunks_of_sections, section_ids)

    def section_starts(
        self, section_ids: Sequence[str], sources: Sequence[str] | None = None
    ) -> list[tuple[str, str, str]]:
        return self._read(records.section_starts, section_ids, sources)

    def section_holders(
        self, section_id: str, limit: int, sources: Sequence[str] | None = None
    ) -> list[str]:
        return self._read(records.section_holders, section_id, limit, sources)

    def count_sections(
        self, section_ids: Sequence[str], limit: int, sources: Sequence[str] | None = None
    ) -> int:
        return self._read(records.count_sections, section_ids, limit, sources)

    def chunks_under(self, section_id: str, filt: SearchFilter | None = None) -> list[StoredChunk]:
        return self._read(records.chunks_under, section_id, filt)

    def chunk_ids_under(self, section_id: str, filt: SearchFilter | None = None) -> list[str]:
        return self._read(records.chunk_ids_under, section_id, filt)

    def sources_with_context(self, context_source: str) -> set[str]:
        rows = self._read(
            lambda conn: conn.execute(
                "SELECT DISTINCT source FROM chunks WHERE context_source = %s", (context_source,)
            ).fetchall()
        )
        return {row[0] for row in rows}

    def iter_vectors(self) -> Iterator[tuple[str, np.ndarray]]:
        return iter(self._read(records.vectors, None))

    def vectors_of(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        return dict(self._read(records.vectors, list(chunk_ids)))

    def sections(self, section_id: str, source: str | None = None) -> list[SectionRecord]:
        if source is not None:
            where = "s.source = %s AND s.section_id = %s"
            return self._read(records.select, SectionRecord, where, (source, section_id))
        return self._read(records.select, SectionRecord, "s.section_id = %s", (section_id,))

    def sections_of_source(self, source: str) -> list[SectionRecord]:
        return self._read(records.select, SectionRecord, "s.source = %s", (source,))

    def children(self, source: str, section_id: str) -> list[SectionRecord]:
        where = "s.source = %s AND s.parent_id = %s"
        return self._read(records.select, SectionRecord, where, (source, section_id))

    def sections_in_chunks(self, chunks: Sequence[tuple[str, str]]) -> list[SectionRecord]:
        if not chunks:
            return []
        sources = sorted({source for source, _ in chunks})
        ids = sorted({chunk_id for _, chunk_id in chunks})
        where = "s.source = ANY(%s) AND s.chunk_id = ANY(%s)"
        return self._read(records.select, SectionRecord, where, (sources, ids))

    def sections_with_heading(self, heading: str) -> list[str]:
        return self._read(records.headings_matching, heading)

    def definitions(self, term_norms: Sequence[str]) -> list[Definition]:
        if not term_norms:
            return []
        where = "term_norm = ANY(%s)"
        return self._read(records.select, Definition, where, (list(term_norms),))

    def all_definitions(self) -> list[Definition]:
        return self._read(records.select, Definition)

    def acronyms(self) -> list[Acronym]:
        return self._read(records.select, Acronym)

    def acronyms_matching(self, keys: Sequence[str], long_forms: Sequence[str]) -> list[Acronym]:
        where = "acronym_norm = ANY(%s) OR long_form_norm = ANY(%s)"
        return self._read(records.select, Acronym, where, (list(keys), list(long_forms)))

    def name_keys(self, kind: str, keys: Sequence[str]) -> list[tuple[str, str, str]]:
        require(self, Capability.NAME_KEYS)
        return self._read(names.lookup_names, kind, keys)

    def document_count(self) -> int:
        row = self._read(lambda conn: conn.execute("SELECT count(*) FROM documents").fetchone())
        return int(row[0])

    def chunk_count(self) -> int:
        sql = "SELECT coalesce(sum(chunk_count), 0) FROM documents"
        row = self._read(lambda conn: conn.execute(sql).fetchone())
        return int(row[0])

    def chunk_terms(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        return self._read(records.chunk_terms, chunk_ids) if chunk_ids else {}

    def references_from(self, chunk_ids: Sequence[str]) -> list[CrossRef]:
        if not chunk_ids:
            return []
        return self._read(records.select_references, "chunk_id = ANY(%s)", (list(chunk_ids),))

    def references_to(self, section_ids: Sequence[str], into: str | None = None) -> list[CrossRef]:
        if not section_ids:
            return []
        if into is None:
            where, params = "target_section_id = ANY(%s)", (list(section_ids),)
        else:
            where = "target_section_id = ANY(%s) AND coalesce(target_source, source) = %s"
            params = (list(section_ids), into)
        return self._read(records.select_references, where, params)

    # retrieval

    def doc_freq(self, terms: Sequence[str], filt: SearchFilter | None = None) -> dict[str, int]:
        return self._read(keyword.doc_freq, terms, filt) if terms else {}

    def keyword_search(self, terms: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        return self._read(keyword.keyword_search, terms, k, filt)

    def phrase_search(self, words: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        return self._read(lexical.phrase_search, words, k, filt)

    def vector_search(self, vector: np.ndarray, k: int, filt: SearchFilter | None) -> list[Hit]:
        with transaction(self.pool) as conn:
            return vectors.vector_search(conn, vector, k, filt, self._exact_below)

    def stats(self) -> StoreStats:
        with self.pool.connection() as conn:
            counted = records.counts(conn)
            contexts = records.context_counts(conn)
            size = conn.execute(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = current_schema() AND c.relkind = 'r'"
            ).fetchone()
        meta = self.read_meta()
        return StoreStats(
            **counted,
            index_bytes=int(size[0]) if size else 0,
            generation=self.generation,
            embedding_model=meta.embedding_model,
            dimension=meta.dimension or 0,
            contexts={**contexts, **meta.context_usage},
        )

    def close(self) -> None:
        """Release the writer lock if held since opening, then the connections."""
        try:
            if self._holding:
                self._holding = False
                self._exit()
        finally:
            self.pool.close()


def _noting(documents: Iterable[writes.Written], sources: list[str]) -> Iterator[writes.Written]:
    """``documents``, each one's source appended to ``sources`` as it goes by."""
    for document in documents:
        sources.append(document.record.source)
        yield document
