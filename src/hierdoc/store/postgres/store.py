"""``PostgresStore``: the :class:`~hierdoc.store.base.Store` protocol on one PostgreSQL schema.

Everything lives in the database (records, BM25 postings and statistics, vectors, meta,
the context cache); there is no second index beside it, so every hierdoc process
pointed at the same schema sees each committed write at once: :meth:`flush` and
:meth:`refresh` have nothing to do, and :attr:`generation` is a counter row bumped
by every write transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
from psycopg_pool import ConnectionPool

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
from . import lexical, records, vectors, writes
from .connection import transaction
from .reindex import ensure_analyzer

META_KEYS = ("embedding_model", "dimension", "fingerprint", "context_usage")


class PostgresContextCache:
    """LLM contexts in the ``contexts`` table; each put is committed at once."""

    def __init__(self, pool: ConnectionPool) -> None:
        self._pool = pool

    def get(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str
    ) -> str | None:
        with self._pool.connection() as conn:
            row = conn.execute(
                "SELECT context FROM contexts WHERE model = %s AND prompt_version = %s "
                "AND document_hash = %s AND chunk_hash = %s",
                (model, prompt_version, document_hash, chunk_hash),
            ).fetchone()
        return row[0] if row else None

    def put(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str, context: str
    ) -> None:
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO contexts (model, prompt_version, document_hash, chunk_hash, context) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (model, prompt_version, document_hash, "
                "chunk_hash) DO UPDATE SET context = excluded.context",
                (model, prompt_version, document_hash, chunk_hash, context),
            )

    def rows(self) -> list[tuple[str, str, str, str, str]]:
        """Every cached context as (model, prompt version, document hash, chunk hash, text)."""
        with self._pool.connection() as conn:
            return conn.execute(
                "SELECT model, prompt_version, document_hash, chunk_hash, context FROM contexts "
                "ORDER BY created_at"
            ).fetchall()


class PostgresStore:
    """An index in a PostgreSQL schema, shared by every process that opens it."""

    def __init__(
        self,
        pool: ConnectionPool,
        analyzer: TextAnalyzer,
        location: str,
        exact_below: int = vectors.EXACT_BELOW,
    ) -> None:
        self._pool = pool
        self._analyzer = analyzer
        self._cache = PostgresContextCache(pool)
        self._exact_below = exact_below
        self.location = location
        """The database URL (password masked) and schema, for messages and stats."""
        ensure_analyzer(pool, analyzer)

    def _read(self, function: Any, *args: Any) -> Any:
        with self._pool.connection() as conn:
            return function(conn, *args)

    @property
    def generation(self) -> int:
        row = self._read(lambda conn: conn.execute("SELECT generation FROM state").fetchone())
        return int(row[0])

    @property
    def context_cache(self) -> ContextCache:
        return self._cache

    def context_rows(self) -> list[tuple[str, str, str, str, str]]:
        """The whole context cache (for ``hierdoc migrate``)."""
        return self._cache.rows()

    # meta

    def read_meta(self) -> IndexMeta:
        rows = self._read(
            lambda conn: conn.execute(
                "SELECT key, value FROM meta WHERE key = ANY(%s)", (list(META_KEYS),)
            ).fetchall()
        )
        return IndexMeta.from_strings(dict(rows))

    def write_meta(self, meta: IndexMeta) -> None:
        values = meta.to_strings()
        with transaction(self._pool) as conn:
            conn.cursor().executemany(
                "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) "
                "DO UPDATE SET value = excluded.value",
                list(values.items()),
            )

    # writes

    def write_document(
        self,
        document: DocumentRecord,
        sections: Sequence[Section],
        chunks: Sequence[StoredChunk],
        vectors: Sequence[np.ndarray],
        extraction: Extraction | None = None,
    ) -> None:
        with transaction(self._pool) as conn:
            writes.replace_document(
                conn, self._analyzer, document, sections, chunks, vectors, extraction
            )

    def delete_documents(self, sources: Iterable[str]) -> None:
        sources = list(sources)
        if not sources:
            return
        with transaction(self._pool) as conn:
            writes.lock_writers(conn)
            writes.remove_sources(conn, sources)
            writes.bump(conn)

    def clear(self) -> None:
        with transaction(self._pool) as conn:
            writes.clear_all(conn)

    def flush(self) -> None:
        """Every write is committed when it returns: nothing is pending."""

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

    def chunks_under(self, section_id: str, filt: SearchFilter | None = None) -> list[StoredChunk]:
        return self._read(records.chunks_under, section_id, filt)

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

    def sections(self, section_id: str) -> list[SectionRecord]:
        return self._read(records.select, SectionRecord, "section_id = %s", (section_id,))

    def sections_of_source(self, source: str) -> list[SectionRecord]:
        """Every section of one document, in order (for ``hierdoc migrate``)."""
        return self._read(records.select, SectionRecord, "source = %s", (source,))

    def children(self, source: str, section_id: str) -> list[SectionRecord]:
        where = "source = %s AND parent_id = %s"
        return self._read(records.select, SectionRecord, where, (source, section_id))

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

    def chunk_terms(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        return self._read(records.chunk_terms, chunk_ids) if chunk_ids else {}

    def references_from(self, chunk_ids: Sequence[str]) -> list[CrossRef]:
        if not chunk_ids:
            return []
        return self._read(records.select_references, "chunk_id = ANY(%s)", (list(chunk_ids),))

    def references_to(self, section_ids: Sequence[str]) -> list[CrossRef]:
        if not section_ids:
            return []
        where = "target_section_id = ANY(%s)"
        return self._read(records.select_references, where, (list(section_ids),))

    # retrieval

    def doc_freq(self, terms: Sequence[str]) -> dict[str, int]:
        return self._read(lexical.doc_freq, terms) if terms else {}

    def keyword_search(self, terms: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        return self._read(lexical.keyword_search, terms, k, filt)

    def phrase_search(self, words: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        return self._read(lexical.phrase_search, words, k, filt)

    def vector_search(self, vector: np.ndarray, k: int, filt: SearchFilter | None) -> list[Hit]:
        with transaction(self._pool) as conn:
            return vectors.vector_search(conn, vector, k, filt, self._exact_below)

    def stats(self) -> StoreStats:
        with self._pool.connection() as conn:
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
        self._pool.close()
