"""The record store: one SQLite file, the source of truth of an index.

It holds documents with their content hashes, sections, chunks with the text
that was indexed, and the embedding vectors. Every other index (BM25, the
vector matrix) is derived from it and can be rebuilt from it. Each write bumps
a ``generation`` counter in the same transaction, so derived indexes can tell
whether they are current.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal, overload

import numpy as np

from ...errors import StoreError
from ...models import (
    Acronym,
    CrossRef,
    Definition,
    DocumentRecord,
    Extraction,
    SearchFilter,
    Section,
    SectionRecord,
    StoredChunk,
)
from ...text.normalize import normalize_term
from ..base import Capability
from ..section_spans import section_rows
from .changes import changed_since, changes_ready, forget_changes, record_changes, start_changes
from .connection import RecordConnection
from .contexts import ContextRows
from .names import fill_names, insert_names, lookup_names, names_current
from .schema import (
    OLDEST_VERSION,
    SCHEMA,
    SCHEMA_VERSION,
    SchemaError,
    acronym_keys,
    add_missing_columns,
    chunk_columns,
    chunk_row,
    chunk_section_rows,
    document_columns,
    document_record,
    fill_chunk_total,
    migrate,
    missing_columns,
    section_clause,
    stored_chunk,
    stored_chunk_total,
)
from .sections import INSERT_SECTION, SPANS_VERSION, select_sections

PAGE_SIZE = 8192
"""Bytes per page of a new file. A vector row (1.5 kB at 384 dimensions) or a chunk row
(1-2 kB) fits twice in a 4 kB page, which leaves ~0.9 kB empty; 8 kB pages hold five:
vectors 2,053 -> 1,641 and chunks 1,964 -> 1,369 bytes each at 10k synthetic acts
(benchmarks/sqlite_footprint.py). SQLite sets it before the first table is written."""


def _section_of_row(prefix: str) -> tuple[str, list[str]]:
    """:func:`~.schema.section_clause` looked up for each row (``chunks`` rows the other
    conditions found: a document's, by ``chunks_by_source``) instead of listing every
    chunk under the prefix in every document: a section every document has ("article-5")
    is then looked up in one document for the cost of its chunks."""
    return (
        "EXISTS (SELECT 1 FROM chunk_sections cs WHERE cs.chunk_id = chunks.chunk_id "
        "AND (cs.section_id = ? OR (cs.section_id >= ? AND cs.section_id < ?)))",
        [prefix, prefix + "-", prefix + "."],
    )


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot write: ``mode=ro``, or ``immutable=1`` when SQLite cannot
    open its WAL side files (a read-only mount, where nobody can write either)."""
    uri = path.resolve().as_uri()
    try:
        db = sqlite3.connect(
            f"{uri}?mode=ro", uri=True, check_same_thread=False, factory=RecordConnection
        )
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return db
    except sqlite3.OperationalError:
        return sqlite3.connect(
            f"{uri}?immutable=1", uri=True, check_same_thread=False, factory=RecordConnection
        )


def _copy_contexts(db: sqlite3.Connection) -> None:
    db.execute(
        "INSERT OR REPLACE INTO contexts SELECT model, prompt_version, document_hash, "
        "chunk_hash, context, created_at FROM other.contexts"
    )


class RecordStore(ContextRows):
    """``read_only`` opens an existing file without writing to it; otherwise the file is
    created, but the schema is written (or an older one migrated) only by :meth:`set_up`
    (under the writer lock)."""

    def __init__(self, path: Path, read_only: bool = False) -> None:
        if read_only:
            self._db = _connect_read_only(path)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, factory=RecordConnection)
        self._db.isolation_level = None
        self._lock = threading.RLock()
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._version = 0
        self._columns: set[tuple[str, str]] = set()
        self._names_ready = False
        if self.ready:
            self._check_schema()

    @property
    def ready(self) -> bool:
        """The schema is in place (an index was created here)."""
        with self._lock:
            found = self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
            ).fetchone()
        return found is not None and self.get_meta("schema_version") is not None

    @property
    def current(self) -> bool:
        """The schema is in place at :data:`SCHEMA_VERSION` (nothing for :meth:`set_up`), with
        every column (a file written at version 3 before ``sentences`` was added lacks it)."""
        version = int(self.get_meta("schema_version") or 0) if self.ready else 0
        with self._lock:
            columns = not missing_columns(self._db)
            return (
                version == SCHEMA_VERSION
                and columns
                and names_current(self._db)
                and stored_chunk_total(self._db) is not None
                and changes_ready(self._db)
            )

    def set_up(self) -> None:
        """Create the schema, or bring an older one up to date (a write: the caller holds the
        writer lock). Tables and indexes are created if missing; a version-1 file gets
        ``chunk_sections`` filled from ``chunks.section_path``, in one transaction."""
        if self.ready:
            self._check_schema()  # a newer file is left as it is
        with self._lock:
            self._db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # a new file's; others keep theirs
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(SCHEMA)
        version = self.get_meta("schema_version")
        if version is None:
            self.set_meta("schema_version", str(SCHEMA_VERSION))
        elif int(version) < SCHEMA_VERSION:
            with self.transaction() as db:
                migrate(db, int(version))
            if int(version) < SPANS_VERSION:
                self._compact()
        with self.transaction() as db:
            add_missing_columns(db)  # a version-3 file written before some of them
        with self.transaction() as db:
            if not names_current(db):
                fill_names(db)  # a file written before the name keys, or with others
        with self.transaction() as db:
            if stored_chunk_total(db) is None:
                fill_chunk_total(db)  # a file written before the triggers kept it
            if not changes_ready(db):
                start_changes(db)  # a new file, or one written before the changes were kept
        self._check_schema()

    def _compact(self) -> None:
        """Give back the pages that migrating to spans emptied: VACUUM rewrites the file in
        rowid order (open readers go on reading their snapshot), then the write-ahead log
        it filled is truncated (unless a reader still holds it)."""
        with self._lock:
            self._db.execute("VACUUM")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()

    def _check_schema(self) -> None:
        version = self.get_meta("schema_version")
        if version is not None and not OLDEST_VERSION <= int(version) <= SCHEMA_VERSION:
            raise SchemaError(
                f"index schema version {version} is not supported (expected {SCHEMA_VERSION}); "
                "rebuild it with: hierdoc ingest --force"
            )

    def _file_version(self) -> int:
        """The file's schema version: a reader of an older file looks again each time, and
        sees the new version once a writer has migrated the file."""
        if self._version < SCHEMA_VERSION:
            version = self.get_meta("schema_version")
            if version is None:
                return SCHEMA_VERSION
            self._version = int(version)
        return self._version

    def _has_sentences(self) -> bool:
        return self._has_column("chunks", "sentences")

    def _has_column(self, table: str, column: str) -> bool:
        """Whether the file has the column (looked for until it is there: a writer may add
        it while this reader is open)."""
        if (table, column) not in self._columns:
            with self._lock:
                rows = self._db.execute(f"PRAGMA table_info({table})").fetchall()
            if any(row[1] == column for row in rows):
                self._columns.add((table, column))
        return (table, column) in self._columns

    def _has_chunk_sections(self) -> bool:
        """Whether ``chunk_sections`` is filled (version 2 and later)."""
        return self._file_version() >= 2

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    @property
    def generation(self) -> int:
        return int(self.get_meta("generation") or 0)

    @staticmethod
    def _bump(db: sqlite3.Connection) -> None:
        db.execute(
            "INSERT INTO meta VALUES ('generation', '1') ON CONFLICT(key) "
            "DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Read in one transaction: every statement sees the same committed state."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield
            finally:
                self._db.execute("COMMIT")

    def changed_since(self, generation: int) -> set[str] | None:
        """The sources written or deleted after ``generation`` (see :mod:`.changes`); None
        when that is no longer known."""
        with self._lock:
            return changed_since(self._db, generation)

    def forget_changes(self, generation: int) -> None:
        """The BM25 index on disk holds everything up to ``generation`` (a writer)."""
        with self.transaction() as db:
            forget_changes(db, generation)

    def document_hashes(self) -> dict[str, str]:
        with self._lock:
            rows = self._db.execute("SELECT source, content_hash FROM documents").fetchall()
        return dict(rows)

    def documents(self) -> list[DocumentRecord]:
        with self._lock:
            columns = document_columns(self._file_version())
            rows = self._db.execute(f"SELECT {columns} FROM documents ORDER BY source").fetchall()
        return [document_record(row) for row in rows]

    def replace_document(
        self,
        document: DocumentRecord,
        sections: Sequence[Section],
        chunks: Sequence[StoredChunk],
        vectors: Sequence[np.ndarray],
        extraction: Extraction | None = None,
    ) -> None:
        """Atomically replace everything stored for ``document.source``."""
        extraction = extraction or Extraction()
        with self.transaction() as db:
            db.execute("DELETE FROM documents WHERE source = ?", (document.source,))
            db.execute(
                "INSERT INTO documents (source, title, content_hash, format, chars, chunk_count, "
                "pages, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    document.source,
                    document.title,
                    document.content_hash,
                    document.format,
                    document.chars,
                    len(chunks),
                    document.pages,
                    json.dumps(document.metadata, ensure_ascii=False, default=str),
                ),
            )
            db.executemany(INSERT_SECTION, section_rows(document.source, sections, chunks))
            db.executemany(
                "INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [chunk_row(stored) for stored in chunks],
            )
            db.executemany(
                "INSERT OR IGNORE INTO chunk_sections (chunk_id, section_id) VALUES (?, ?)",
                chunk_section_rows(chunks),
            )
            db.executemany(
                "INSERT INTO vectors VALUES (?, ?, ?)",
                [
                    (stored.chunk.chunk_id, window, row.astype(np.float32).tobytes())
                    for stored, matrix in zip(chunks, vectors, strict=False)
                    for window, row in enumerate(matrix)
                ],
            )
            self._write_extraction(db, extraction)
            insert_names(db, [document])
            self._bump(db)
            record_changes(db, [document.source])

    @staticmethod
    def _write_extraction(db: sqlite3.Connection, extraction: Extraction) -> None:
        db.executemany(
            "INSERT INTO definitions VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    d.source,
                    d.term,
                    normalize_term(d.term),
                    d.definition,
                    d.section_id,
                    d.chunk_id,
                    d.style,
                )
                for d in extraction.definitions
            ],
        )
        db.executemany(
            "INSERT INTO acronyms VALUES (?, ?, ?, ?, ?, ?)",
            [
                (a.source, a.acronym, a.long_form, a.chunk_id)
                + acronym_keys(a.acronym, a.long_form)
                for a in extraction.acronyms
            ],
        )
        db.executemany(
            "INSERT INTO crossrefs VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    r.source,
                    r.chunk_id,
                    r.section_id,
                    r.text,
                    r.target_section_id,
                    r.target_source,
                    int(r.external),
                )
                for r in extraction.references
            ],
        )
        db.executemany("INSERT INTO chunk_terms VALUES (?, ?)", extraction.chunk_terms)

    def delete_documents(self, sources: Iterable[str]) -> None:
        with self.transaction() as db:
            sources = list(sources)
            db.executemany("DELETE FROM documents WHERE source = ?", [(s,) for s in sources])
            self._bump(db)
            record_changes(db, sources)

    @contextmanager
    def _with(self, other: Path) -> Iterator[sqlite3.Connection]:
        """A transaction in which the record file at ``other`` is attached as ``other``."""
        with self._lock:
            self._db.execute("ATTACH DATABASE ? AS other", (str(other),))
            try:
                with self.transaction() as db:
                    yield db
            finally:
                self._db.execute("DETACH DATABASE other")

    def carry_over(self, previous: Path, keys: Sequence[str], generation: int) -> None:
        """Copy into this new file the context cache and the meta ``keys`` of the record file
        at ``previous``, and start its generation at ``generation`` (a rebuild beside it)."""
        with self._with(previous) as db:
            _copy_contexts(db)
            marks = ",".join("?" * len(keys))
            db.execute(
                "INSERT OR REPLACE INTO meta SELECT key, value FROM other.meta "
                f"WHERE key IN ({marks})",
                list(keys),
            )
            db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)", (str(generation),))

    def keep_contexts(self, build: Path) -> None:
        """Copy in the contexts cached in the record file at ``build``: a rebuild that was
        dropped keeps what its LLM calls paid for."""
        with self._with(build) as db:
            _copy_contexts(db)

    def advance_generation(self, past: int) -> None:
        """Move the generation beyond ``past`` when it is not already."""
        with self.transaction() as db:
            db.execute(
                "UPDATE meta SET value = ? WHERE key = 'generation' "
                "AND CAST(value AS INTEGER) <= ?",
                (str(past + 1), past),
            )

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the file and sync it (before the file goes live)."""
        with self._lock:
            self._db.execute("PRAGMA wal_checkpoint(FULL)").fetchone()

    def clear(self) -> None:
        with self.transaction() as db:
            db.execute("DELETE FROM documents")
            self._bump(db)
            start_changes(db)  # nothing is left for the changes to name

    def chunks(self, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        found: dict[str, StoredChunk] = {}
        for start in range(0, len(chunk_ids), 500):
            batch = list(chunk_ids[start : start + 500])
            marks = ",".join("?" * len(batch))
            found.update(self._select_chunks(f"WHERE c.chunk_id IN ({marks})", batch))
        return found

    def chunks_of_sections(self, section_ids: Sequence[str]) -> list[StoredChunk]:
        """The chunks in which the given sections begin, in document order."""
        if not section_ids:
            return []
        marks = ",".join("?" * len(section_ids))
        where = f"WHERE c.chunk_id IN (SELECT chunk_id FROM sections WHERE section_id IN ({marks}))"
        return list(self._select_chunks(where, list(section_ids)).values())

    def section_starts(
        self, section_ids: Sequence[str], sources: Sequence[str] | None = None
    ) -> list[tuple[str, str, str]]:
        """(source, chunk id, chunk's section id) of :meth:`chunks_of_sections`' chunks,
        only in ``sources`` when given."""
        if not section_ids or (sources is not None and not sources):
            return []
        marks = ",".join("?" * len(section_ids))
        within, params = "", list(section_ids)
        if sources is not None:
            within = f" AND source IN ({','.join('?' * len(sources))})"
            params += list(sources)
        with self._lock:
            rows = self._db.execute(
                "SELECT c.source, c.chunk_id, c.section_id FROM chunks c JOIN documents d "
                "USING (source) WHERE c.chunk_id IN "
                f"(SELECT chunk_id FROM sections WHERE section_id IN ({marks}){within}) "
                "ORDER BY c.source, c.ordinal",
                params,
            ).fetchall()
        return [(source, chunk_id, section_id) for source, chunk_id, section_id in rows]

    def section_holders(
        self, section_id: str, limit: int, sources: Sequence[str] | None = None
    ) -> list[str]:
        within, params = _within_sources(sources)
        with self._lock:
            rows = self._db.execute(
                "SELECT source FROM sections WHERE section_id = ? AND chunk_id IS NOT NULL"
                f"{within} ORDER BY source LIMIT ?",
                [section_id, *params, limit],
            ).fetchall()
        return [row[0] for row in rows]

    def count_sections(
        self, section_ids: Sequence[str], limit: int, sources: Sequence[str] | None = None
    ) -> int:
        if not section_ids:
            return 0
        marks = ",".join("?" * len(section_ids))
        within, params = _within_sources(sources)
        with self._lock:
            row = self._db.execute(
                "SELECT count(*) FROM (SELECT 1 FROM sections "
                f"WHERE section_id IN ({marks}){within} LIMIT ?)",
                [*section_ids, *params, limit],
            ).fetchone()
        return int(row[0])

    def sections(self, section_id: str, source: str | None = None) -> list[SectionRecord]:
        """Every section with this id (one per document that has it), or ``source``'s."""
        if source is not None:
            where = "WHERE s.source = ? AND s.section_id = ?"
            return self._select_sections(where, [source, section_id])
        return self._select_sections("WHERE s.section_id = ?", [section_id])

    def sections_of_source(self, source: str) -> list[SectionRecord]:
        return self._select_sections("WHERE s.source = ?", [source])

    def children(self, source: str, section_id: str) -> list[SectionRecord]:
        where = "WHERE s.source = ? AND s.parent_id = ?"
        return self._select_sections(where, [source, section_id])

    def sections_in_chunks(self, chunks: Sequence[tuple[str, str]]) -> list[SectionRecord]:
        """Through ``sections_by_chunk`` (a chunk id names one chunk of one source, so the
        two lists select the pairs); a file no writer has opened since that index was
        added scans the given documents' rows (``sections_by_parent``)."""
        if not chunks:
            return []
        sources = sorted({source for source, _ in chunks})
        ids = sorted({chunk_id for _, chunk_id in chunks})
        where = (
            f"WHERE s.source IN ({','.join('?' * len(sources))}) "
            f"AND s.chunk_id IN ({','.join('?' * len(ids))})"
        )
        return self._select_sections(where, [*sources, *ids])

    def _select_sections(self, where: str, params: list[str]) -> list[SectionRecord]:
        with self._lock:
            spans = self._has_column("sections", "text_start")
            found = select_sections(self._db, where, params, spans)
            return found if found is not None else select_sections(self._db, where, params, True)

    def definitions(self, term_norms: Sequence[str]) -> list[Definition]:
        if not term_norms:
            return []
        marks = ",".join("?" * len(term_norms))
        return self._select_definitions(f"WHERE term_norm IN ({marks})", list(term_norms))

    def all_definitions(self) -> list[Definition]:
        return self._select_definitions("", [])

    def _select_definitions(self, where: str, params: list[str]) -> list[Definition]:
        with self._lock:
            rows = self._db.execute(
                "SELECT term, definition, source, section_id, chunk_id, style FROM definitions "
                f"{where} ORDER BY source, rowid",
                params,
            ).fetchall()
        return [Definition(*row) for row in rows]

    def chunk_terms(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        with self._lock:
            rows = self._db.execute(
                f"SELECT chunk_id, term_norm FROM chunk_terms WHERE chunk_id IN ({marks}) "
                "ORDER BY rowid",
                list(chunk_ids),
            ).fetchall()
        found: dict[str, list[str]] = {}
        for chunk_id, term in rows:
            found.setdefault(chunk_id, []).append(term)
        return found

    def acronyms(self) -> list[Acronym]:
        with self._lock:
            rows = self._db.execute(
                "SELECT acronym, long_form, source, chunk_id FROM acronyms ORDER BY rowid"
            ).fetchall()
        return [Acronym(*row) for row in rows]

    @property
    def capabilities(self) -> frozenset[Capability]:
        """Records; the key look-ups when the file holds the keys (one written before them
        gains them when a writer fills them)."""
        lookups = {
            Capability.ACRONYM_KEYS: self.has_acronym_keys(),
            Capability.NAME_KEYS: self.has_name_keys(),
        }
        return frozenset({Capability.RECORDS, *(c for c, held in lookups.items() if held)})

    def has_acronym_keys(self) -> bool:
        """Whether the file stores the acronyms' keys (one written before them does not)."""
        return self._has_column("acronyms", "long_form_norm")

    def has_name_keys(self) -> bool:
        """Whether the file holds current name keys (:mod:`.names`)."""
        with self._lock:
            if not self._names_ready:
                self._names_ready = self._has_table("document_names") and names_current(self._db)
            return self._names_ready

    def acronyms_matching(self, keys: Sequence[str], long_forms: Sequence[str]) -> list[Acronym]:
        """The acronyms whose key (``normalize_acronym``) is among ``keys`` or whose long
        form's (``normalize_phrase``) is among ``long_forms``, in stored order; only on a
        file with the keys (:meth:`has_acronym_keys`)."""
        if not self.has_acronym_keys():
            raise StoreError("this index stores no acronym keys: read every acronym")
        found: dict[int, Acronym] = {}
        for column, values in (("acronym_norm", keys), ("long_form_norm", long_forms)):
            for start in range(0, len(values), 500):
                batch = list(values[start : start + 500])
                marks = ",".join("?" * len(batch))
                with self._lock:
                    rows = self._db.execute(
                        "SELECT rowid, acronym, long_form, source, chunk_id FROM acronyms "
                        f"WHERE {column} IN ({marks})",
                        batch,
                    ).fetchall()
                found.update((row[0], Acronym(*row[1:])) for row in rows)
        return [found[rowid] for rowid in sorted(found)]

    def name_keys(self, kind: str, keys: Sequence[str]) -> list[tuple[str, str, str]]:
        """(key, value, source) of the document name keys of ``kind`` whose key is among
        ``keys``; only on a file with current keys (:meth:`has_name_keys`)."""
        if not self.has_name_keys():
            raise StoreError("this index holds no current name keys: read every document")
        with self._lock:
            return lookup_names(self._db, kind, keys)

    def _has_table(self, name: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()
        return row is not None

    def document_count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM documents").fetchone()[0]

    def chunk_rows(self) -> int:
        """The rows of ``chunks``: as its triggers keep them, else counted (an older file)."""
        with self._lock:
            total = stored_chunk_total(self._db)
            if total is None:
                total = int(self._db.execute("SELECT count(*) FROM chunks").fetchone()[0])
            return total

    def recount_chunks(self) -> None:
        """Set the kept row count of ``chunks`` from a count (``hierdoc check --repair``)."""
        with self.transaction() as db:
            fill_chunk_total(db)

    def chunk_count(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT coalesce(sum(chunk_count), 0) FROM documents")
            return int(row.fetchone()[0])

    def references_from(self, chunk_ids: Sequence[str]) -> list[CrossRef]:
        return self._select_references("chunk_id", chunk_ids)

    def references_to(self, section_ids: Sequence[str], into: str | None = None) -> list[CrossRef]:
        return self._select_references("target_section_id", section_ids, into)

    def _select_references(
        self, column: str, values: Sequence[str], into: str | None = None
    ) -> list[CrossRef]:
        """The references whose ``column`` is among ``values`` (and that point ``into`` a
        document, when given), in (source, rowid) order; looked up 500 values at a time
        (SQLite caps the parameters of one statement)."""
        rows: list[tuple] = []
        values = list(dict.fromkeys(values))
        into_clause = "" if into is None else " AND coalesce(target_source, source) = ?"
        for start in range(0, len(values), 500):
            batch = values[start : start + 500]
            marks = ",".join("?" * len(batch))
            with self._lock:
                rows += self._db.execute(
                    "SELECT source, rowid, text, chunk_id, section_id, target_section_id, "
                    f"target_source, external FROM crossrefs WHERE {column} IN ({marks})"
                    + into_clause,
                    batch + ([] if into is None else [into]),
                ).fetchall()
        rows.sort(key=lambda row: (row[0], row[1]))
        return [CrossRef(r[2], r[0], *r[3:7], external=bool(r[7])) for r in rows]

    def chunks_of_source(self, source: str) -> list[StoredChunk]:
        return list(self._select_chunks("WHERE c.source = ?", [source]).values())

    @overload
    def chunk_ids_matching(
        self, filt: SearchFilter, ordered: Literal[False] = False
    ) -> set[str]: ...

    @overload
    def chunk_ids_matching(self, filt: SearchFilter, ordered: Literal[True]) -> list[str]: ...

    def chunk_ids_matching(self, filt: SearchFilter, ordered: bool = False) -> set[str] | list[str]:
        """Ids of the chunks a filter lets through (sources, types, section subtree); with
        ``ordered``, a list in (source, ordinal) order."""
        clauses, params = [], []
        if filt.sources:
            clauses.append(f"source IN ({','.join('?' * len(filt.sources))})")
            params += list(filt.sources)
        if filt.chunk_types:
            clauses.append(f"chunk_type IN ({','.join('?' * len(filt.chunk_types))})")
            params += list(filt.chunk_types)
        if filt.section_prefix:
            indexed = self._has_chunk_sections()
            if filt.sources and indexed:
                clause, values = _section_of_row(filt.section_prefix)
            else:
                clause, values = section_clause(filt.section_prefix, indexed)
            clauses.append(clause)
            params += values
        where = " AND ".join(clauses) or "1"
        order = " ORDER BY source, ordinal" if ordered else ""
        with self._lock:
            rows = self._db.execute(f"SELECT chunk_id FROM chunks WHERE {where}{order}", params)
            return [row[0] for row in rows] if ordered else {row[0] for row in rows}

    def iter_chunks(self) -> Iterator[StoredChunk]:
        yield from self._select_chunks("", []).values()

    def _select_chunks(self, where: str, params: list[str]) -> dict[str, StoredChunk]:
        sql = (
            f"SELECT {chunk_columns(self._file_version(), self._has_sentences())} "
            f"FROM chunks c JOIN documents d USING (source) {where} "
            "ORDER BY c.source, c.ordinal"
        )
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        return {row[0]: stored_chunk(row) for row in rows}

    def headings_matching(self, normalized_heading: str) -> list[str]:
        """Section ids whose heading equals the given text, case-insensitively, each once,
        in the order their first section was stored. The WHERE is the expression of the
        index ``sections_by_heading``, so it is a lookup, not a scan."""
        with self._lock:
            rows = self._db.execute(
                "SELECT section_id FROM sections WHERE lower(heading) = ? "
                "GROUP BY section_id ORDER BY min(rowid)",
                (normalized_heading,),
            ).fetchall()
        return [row[0] for row in rows]

    def iter_vectors(self) -> Iterator[tuple[str, bytes]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT v.chunk_id, v.vector FROM vectors v JOIN chunks c USING (chunk_id) "
                "ORDER BY c.source, c.ordinal, v.window"
            ).fetchall()
        yield from rows

    def vectors_of(self, chunk_ids: Sequence[str]) -> list[tuple[str, bytes]]:
        """(chunk id, vector) rows of the given chunks, each chunk's windows in order."""
        found: list[tuple[str, bytes]] = []
        for start in range(0, len(chunk_ids), 500):
            batch = list(chunk_ids[start : start + 500])
            marks = ",".join("?" * len(batch))
            with self._lock:
                found += self._db.execute(
                    f"SELECT chunk_id, vector FROM vectors WHERE chunk_id IN ({marks}) "
                    "ORDER BY chunk_id, window",
                    batch,
                ).fetchall()
        return found

    def sources_with_context(self, context_source: str) -> set[str]:
        """Documents with a chunk whose context came from ``context_source``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT source FROM chunks WHERE context_source = ?", (context_source,)
            ).fetchall()
        return {row[0] for row in rows}

    def context_counts(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute(
                "SELECT context_source, count(*), sum(context_truncated) FROM chunks "
                "GROUP BY context_source"
            ).fetchall()
            cached = self._db.execute("SELECT count(*) FROM contexts").fetchone()[0]
        counts = {f"chunks_{source}": n for source, n, _ in rows}
        counts["truncated_documents_chunks"] = sum(t or 0 for _, _, t in rows)
        counts["contexts_cached"] = cached
        return counts

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {
                table: self._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in (
                    "documents",
                    "sections",
                    "chunks",
                    "vectors",
                    "definitions",
                    "acronyms",
                    "crossrefs",
                )
            }


def _within_sources(sources: Sequence[str] | None) -> tuple[str, list[str]]:
    """A condition keeping the rows of ``sources`` (one JSON parameter, however many)."""
    if sources is None:
        return "", []
    return " AND source IN (SELECT value FROM json_each(?))", [json.dumps(list(sources))]
