"""The SQLite schema of the record store, and how a chunk becomes a row and back.

Every lookup a search, ``show``, ``define`` or ``references`` makes goes through an
index (tests/test_query_plans.py checks each statement with ``EXPLAIN QUERY PLAN``),
so a query costs the same at any corpus size; each table a document's deletion
cascades to has an index on the column the cascade looks up.

Version 2 added ``chunk_sections`` and the indexes; version 3 the page span and the sentence
offsets (JSON, ``Chunk.sentences``) of each chunk, the page count and metadata (JSON) of
each document, and the lookup keys of each acronym and long form (so that the glossary
reads the entries a query names, not every entry); version 4 ``document_names``, the name
keys of each document (:mod:`.names`); version 5 a section's text as a span of the chunk it
begins in (``text_start``, ``text_end``; :mod:`.sections`). An older file is migrated in
place by the next writer (:func:`migrate`); until then readers use the old queries.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ...errors import StoreError
from ...models import Chunk, DocumentRecord, StoredChunk
from ...text.normalize import normalize_acronym, normalize_phrase
from .connection import stored_json
from .sections import store_spans

SCHEMA_VERSION = 5
#: The oldest version a writer migrates in place (and a reader reads as it is).
OLDEST_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    source TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    format TEXT NOT NULL,
    chars INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    ingested_at TEXT NOT NULL DEFAULT (datetime('now')),
    pages INTEGER,
    metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS sections (
    source TEXT NOT NULL REFERENCES documents(source) ON DELETE CASCADE,
    section_id TEXT NOT NULL,
    heading TEXT NOT NULL,
    level INTEGER NOT NULL,
    parent_id TEXT,
    ordinal INTEGER NOT NULL,
    kind TEXT NOT NULL,
    chunk_id TEXT,
    text TEXT NOT NULL,
    text_start INTEGER,
    text_end INTEGER,
    PRIMARY KEY (source, section_id)
);
CREATE INDEX IF NOT EXISTS sections_by_id ON sections(section_id);
CREATE INDEX IF NOT EXISTS sections_by_heading ON sections(lower(heading));
CREATE INDEX IF NOT EXISTS sections_by_parent ON sections(source, parent_id, ordinal);
-- the sections beginning in a chunk (where a search result's match sits, search.holders)
CREATE INDEX IF NOT EXISTS sections_by_chunk ON sections(source, chunk_id);
CREATE TABLE IF NOT EXISTS definitions (
    source TEXT NOT NULL REFERENCES documents(source) ON DELETE CASCADE,
    term TEXT NOT NULL,
    term_norm TEXT NOT NULL,
    definition TEXT NOT NULL,
    section_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    style TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS definitions_by_term ON definitions(term_norm);
CREATE INDEX IF NOT EXISTS definitions_by_source ON definitions(source);
CREATE TABLE IF NOT EXISTS acronyms (
    source TEXT NOT NULL REFERENCES documents(source) ON DELETE CASCADE,
    acronym TEXT NOT NULL,
    long_form TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    acronym_norm TEXT,
    long_form_norm TEXT
);
CREATE INDEX IF NOT EXISTS acronyms_by_source ON acronyms(source);
CREATE TABLE IF NOT EXISTS crossrefs (
    source TEXT NOT NULL REFERENCES documents(source) ON DELETE CASCADE,
    chunk_id TEXT NOT NULL,
    section_id TEXT NOT NULL,
    text TEXT NOT NULL,
    target_section_id TEXT,
    target_source TEXT,
    external INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS crossrefs_by_chunk ON crossrefs(chunk_id);
CREATE INDEX IF NOT EXISTS crossrefs_by_target ON crossrefs(target_section_id);
CREATE INDEX IF NOT EXISTS crossrefs_by_source ON crossrefs(source);
-- what names each document, by the key a query finds it by (text.names.name_keys);
-- kept in key order (WITHOUT ROWID), so that a key's rows are read together: a word
-- thousands of titles hold reads 6x faster than through an index into rowid order
CREATE TABLE IF NOT EXISTS document_names (
    source TEXT NOT NULL REFERENCES documents(source) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (kind, key, source, value)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS document_names_by_source ON document_names(source);
CREATE TABLE IF NOT EXISTS contexts (
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    document_hash TEXT NOT NULL,
    chunk_hash TEXT NOT NULL,
    context TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    PRIMARY KEY (model, prompt_version, document_hash, chunk_hash)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chunk_terms (
    chunk_id TEXT NOT NULL REFERENCES chunks(chunk_id) ON DELETE CASCADE,
    term_norm TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunk_terms_by_chunk ON chunk_terms(chunk_id);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY,
    source TEXT NOT NULL REFERENCES documents(source) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    section_id TEXT NOT NULL,
    heading TEXT NOT NULL,
    parent_chain TEXT NOT NULL,
    section_path TEXT NOT NULL,
    chunk_type TEXT NOT NULL,
    content TEXT NOT NULL,
    context TEXT NOT NULL,
    token_count INTEGER NOT NULL,
    overlap_chars INTEGER NOT NULL,
    context_source TEXT NOT NULL,
    llm_context TEXT NOT NULL,
    context_truncated INTEGER NOT NULL,
    page_start INTEGER,
    page_end INTEGER,
    sentences TEXT
);
CREATE INDEX IF NOT EXISTS chunks_by_source ON chunks(source, ordinal);
CREATE INDEX IF NOT EXISTS chunks_by_section ON chunks(section_id);
CREATE INDEX IF NOT EXISTS chunks_by_type ON chunks(chunk_type);
-- every element of each chunk's section path, for section filters (SearchFilter.matches)
CREATE TABLE IF NOT EXISTS chunk_sections (
    chunk_id TEXT NOT NULL REFERENCES chunks(chunk_id) ON DELETE CASCADE,
    section_id TEXT NOT NULL,
    PRIMARY KEY (chunk_id, section_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS chunk_sections_by_section ON chunk_sections(section_id, chunk_id);
CREATE TABLE IF NOT EXISTS vectors (
    chunk_id TEXT NOT NULL REFERENCES chunks(chunk_id) ON DELETE CASCADE,
    window INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (chunk_id, window)
);
-- the rows of chunks, kept by triggers (a cascade from documents fires them too): opening
-- an index compares each derived index with this instead of counting 1M rows from disk
CREATE TABLE IF NOT EXISTS chunk_total (rows INTEGER NOT NULL);
-- the documents each write changed, until the BM25 index on disk has them (changes.py)
CREATE TABLE IF NOT EXISTS changes (generation INTEGER NOT NULL, source TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS changes_by_generation ON changes(generation);
CREATE TRIGGER IF NOT EXISTS chunk_total_up AFTER INSERT ON chunks
BEGIN UPDATE chunk_total SET rows = rows + 1; END;
CREATE TRIGGER IF NOT EXISTS chunk_total_down AFTER DELETE ON chunks
BEGIN UPDATE chunk_total SET rows = rows - 1; END;
"""


VERSION_3_COLUMNS = (
    ("documents", "pages", "INTEGER"),
    ("documents", "metadata", "TEXT NOT NULL DEFAULT '{}'"),
    ("chunks", "page_start", "INTEGER"),
    ("chunks", "page_end", "INTEGER"),
    ("chunks", "sentences", "TEXT"),
    ("acronyms", "acronym_norm", "TEXT"),
    ("acronyms", "long_form_norm", "TEXT"),
)
VERSION_5_COLUMNS = (("sections", "text_start", "INTEGER"), ("sections", "text_end", "INTEGER"))
#: Indexes on columns of :data:`VERSION_3_COLUMNS`: created once the columns exist.
VERSION_3_INDEXES = """
CREATE INDEX IF NOT EXISTS acronyms_by_key ON acronyms(acronym_norm);
CREATE INDEX IF NOT EXISTS acronyms_by_long_form ON acronyms(long_form_norm);
"""


def chunk_columns(version: int, sentences: bool = True) -> str:
    """The chunk columns :func:`stored_chunk` reads, for a file at ``version`` (a reader of
    an older file, not yet migrated, reads no pages) with or without ``sentences``."""
    pages = "c.page_start, c.page_end" if version >= 3 else "NULL, NULL"
    offsets = "c.sentences" if version >= 3 and sentences else "NULL"
    return (
        "c.chunk_id, c.source, d.title, c.section_id, c.heading, c.parent_chain, "
        "c.section_path, c.content, c.ordinal, c.token_count, c.chunk_type, c.overlap_chars, "
        f"c.context, c.context_source, c.llm_context, c.context_truncated, {pages}, {offsets}"
    )


def document_columns(version: int) -> str:
    """The document columns :func:`document_record` reads, for a file at ``version``."""
    extra = "pages, metadata" if version >= 3 else "NULL, '{}'"
    return (
        "source, title, content_hash, format, chars, chunk_count, "
        f"replace(ingested_at, ' ', 'T') || 'Z', {extra}"
    )


def document_record(row: tuple) -> DocumentRecord:
    *fields, pages, metadata = row
    return DocumentRecord(
        *fields, pages=pages, metadata=stored_json(metadata, "document's metadata")
    )


class SchemaError(StoreError):
    """The index was written by an incompatible version of hierdoc."""


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Bring a file at ``version`` to :data:`SCHEMA_VERSION`, in the caller's transaction
    (the tables and indexes are already created by :data:`SCHEMA`)."""
    if version < 2:
        db.execute("DELETE FROM chunk_sections")
        db.execute(
            "INSERT OR IGNORE INTO chunk_sections (chunk_id, section_id) "
            "SELECT c.chunk_id, j.value FROM chunks c, json_each(c.section_path) j"
        )
    if version < 5:
        add_missing_columns(db)  # version 3's and 5's
        store_spans(db)
    db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))


def stored_chunk_total(db: sqlite3.Connection) -> int | None:
    """The row count ``chunk_total`` keeps; None in a file without it (written before it,
    and not yet opened by a writer)."""
    try:
        rows = db.execute("SELECT rows FROM chunk_total").fetchall()
    except sqlite3.OperationalError:
        return None
    return int(rows[0][0]) if len(rows) == 1 else None


def fill_chunk_total(db: sqlite3.Connection) -> None:
    """Count ``chunks`` into ``chunk_total`` (in the caller's transaction; the triggers keep
    it from then on)."""
    db.execute("DELETE FROM chunk_total")
    db.execute("INSERT INTO chunk_total SELECT count(*) FROM chunks")


def missing_columns(db: sqlite3.Connection) -> list[tuple[str, str, str]]:
    """The columns of :data:`VERSION_3_COLUMNS` and :data:`VERSION_5_COLUMNS` a file lacks
    (one written at version 3 before ``sentences`` was added has no such column)."""
    added = VERSION_3_COLUMNS + VERSION_5_COLUMNS
    present = {
        table: {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        for table in {table for table, _, _ in added}
    }
    return [entry for entry in added if entry[1] not in present[entry[0]]]


def add_missing_columns(db: sqlite3.Connection) -> None:
    """Add the columns a file lacks, fill the acronym keys and index them (in the caller's
    transaction)."""
    for table, column, declaration in missing_columns(db):
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
    rows = db.execute(
        "SELECT rowid, acronym, long_form FROM acronyms WHERE acronym_norm IS NULL"
    ).fetchall()
    db.executemany(
        "UPDATE acronyms SET acronym_norm = ?, long_form_norm = ? WHERE rowid = ?",
        [(*acronym_keys(acronym, long_form), rowid) for rowid, acronym, long_form in rows],
    )
    for statement in VERSION_3_INDEXES.split(";"):
        if statement.strip():
            db.execute(statement)


def acronym_keys(acronym: str, long_form: str) -> tuple[str, str]:
    """The keys the glossary looks an acronym and its long form up by."""
    return normalize_acronym(acronym), normalize_phrase(long_form)


def chunk_section_rows(chunks: Sequence[StoredChunk]) -> list[tuple[str, str]]:
    """(chunk id, section id) for every element of every chunk's section path."""
    return [(s.chunk.chunk_id, element) for s in chunks for element in s.chunk.section_path]


def section_clause(prefix: str, indexed: bool) -> tuple[str, list[str]]:
    """A WHERE clause over ``chunks`` for the rule of :meth:`SearchFilter.matches`: a path
    element equal to ``prefix`` or starting with ``prefix + "-"``. The indexed form reads
    ``chunk_sections``, the second case as a range ('.' follows '-' in ASCII, and SQLite
    compares text bytewise); the other scans ``section_path`` (a version-1 file)."""
    if indexed:
        return (
            "chunk_id IN (SELECT chunk_id FROM chunk_sections WHERE section_id = ? "
            "OR (section_id >= ? AND section_id < ?))",
            [prefix, prefix + "-", prefix + "."],
        )
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return (
        "(section_path LIKE ? ESCAPE '\\' OR section_path LIKE ? ESCAPE '\\')",
        [f'%"{escaped}"%', f'%"{escaped}-%'],
    )


def chunk_row(stored: StoredChunk) -> tuple:
    c = stored.chunk
    return (
        c.chunk_id,
        c.source,
        c.ordinal,
        c.section_id,
        c.heading,
        json.dumps(list(c.parent_chain), ensure_ascii=False),
        json.dumps(list(c.section_path), ensure_ascii=False),
        c.chunk_type,
        c.content,
        stored.context,
        c.token_count,
        c.overlap_chars,
        stored.context_source,
        stored.llm_context,
        int(stored.context_truncated),
        c.page_start,
        c.page_end,
        None if c.sentences is None else json.dumps(list(c.sentences)),
    )


def stored_chunk(row: tuple) -> StoredChunk:
    (
        chunk_id,
        source,
        title,
        section_id,
        heading,
        chain,
        path,
        content,
        ordinal,
        token_count,
        chunk_type,
        overlap_chars,
        context,
        context_source,
        llm_context,
        truncated,
        page_start,
        page_end,
        sentences,
    ) = row
    chunk = Chunk(
        chunk_id=chunk_id,
        source=source,
        title=title,
        section_id=section_id,
        heading=heading,
        parent_chain=tuple(stored_json(chain, "chunk's parent chain")),
        section_path=tuple(stored_json(path, "chunk's section path")),
        content=content,
        ordinal=ordinal,
        token_count=token_count,
        chunk_type=chunk_type,
        overlap_chars=overlap_chars,
        page_start=page_start,
        page_end=page_end,
        sentences=None if sentences is None else tuple(stored_json(sentences, "chunk's sentences")),
    )
    return StoredChunk(chunk, context, context_source, llm_context, bool(truncated))
