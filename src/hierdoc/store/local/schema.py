"""The SQLite schema of the record store, and how a chunk becomes a row and back."""

from __future__ import annotations

import json

from ...errors import StoreError
from ...models import Chunk, StoredChunk

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    source TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    format TEXT NOT NULL,
    chars INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    ingested_at TEXT NOT NULL DEFAULT (datetime('now'))
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
    PRIMARY KEY (source, section_id)
);
CREATE INDEX IF NOT EXISTS sections_by_id ON sections(section_id);
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
CREATE TABLE IF NOT EXISTS acronyms (
    source TEXT NOT NULL REFERENCES documents(source) ON DELETE CASCADE,
    acronym TEXT NOT NULL,
    long_form TEXT NOT NULL,
    chunk_id TEXT NOT NULL
);
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
    context_truncated INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_source ON chunks(source, ordinal);
CREATE INDEX IF NOT EXISTS chunks_by_section ON chunks(section_id);
CREATE TABLE IF NOT EXISTS vectors (
    chunk_id TEXT NOT NULL REFERENCES chunks(chunk_id) ON DELETE CASCADE,
    window INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (chunk_id, window)
);
"""


class SchemaError(StoreError):
    """The index was written by an incompatible version of hierdoc."""


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
    ) = row
    chunk = Chunk(
        chunk_id=chunk_id,
        source=source,
        title=title,
        section_id=section_id,
        heading=heading,
        parent_chain=tuple(json.loads(chain)),
        section_path=tuple(json.loads(path)),
        content=content,
        ordinal=ordinal,
        token_count=token_count,
        chunk_type=chunk_type,
        overlap_chars=overlap_chars,
    )
    return StoredChunk(chunk, context, context_source, llm_context, bool(truncated))
