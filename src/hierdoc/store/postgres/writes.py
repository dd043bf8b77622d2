"""Writes: one document's replacement, deletions and clearing, each one transaction.

The caller holds the store's writer lock (:mod:`.lock`), so one process writes at a
time while readers go on reading the last committed state (MVCC). The BM25 statistics
(``term_stats``, the ``state`` totals) move with the chunks in the same transaction,
and the ``state.generation`` counter is bumped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import psycopg
from psycopg.types.json import Jsonb

from ...errors import StoreError
from ...models import DocumentRecord, Extraction, Section, StoredChunk, section_prefixes
from ...text.analyze import TextAnalyzer
from ...text.normalize import normalize_acronym, normalize_phrase, normalize_term
from ..section_spans import section_rows
from .lexical import LexicalRow, fieldnorm, lexical_row
from .names import insert_names

_CHUNK_COLUMNS = (
    "chunk_id, source, ordinal, section_id, heading, parent_chain, section_path, "
    "section_prefixes, chunk_type, content, context, token_count, overlap_chars, "
    "context_source, llm_context, context_truncated, length, norm, words, words_norm, "
    "page_start, page_end, sentences"
)


def replace_document(
    conn: psycopg.Connection,
    analyzer: TextAnalyzer,
    document: DocumentRecord,
    sections: Sequence[Section],
    chunks: Sequence[StoredChunk],
    vectors: Sequence[np.ndarray],
    extraction: Extraction | None,
) -> None:
    """Everything of ``document.source`` replaced; call inside a transaction."""
    remove_sources(conn, [document.source])
    conn.execute(
        "INSERT INTO documents (source, title, content_hash, format, chars, chunk_count, pages, "
        "metadata) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
        (document.source, document.title, document.content_hash, document.format,
         document.chars, len(chunks), document.pages, Jsonb(document.metadata)),
    )  # fmt: skip
    _insert_sections(conn, document.source, sections, chunks)
    rows = [lexical_row(stored, analyzer) for stored in chunks]
    try:
        _insert_chunks(conn, chunks, rows)
    except psycopg.errors.UniqueViolation as error:
        raise StoreError(f"cannot write {document.source}: {error.diag.message_detail}") from None
    insert_postings(conn, rows)
    _insert_vectors(conn, chunks, vectors)
    _insert_extraction(conn, extraction or Extraction())
    insert_names(conn, [document])
    bump(conn)


def remove_sources(conn: psycopg.Connection, sources: Sequence[str]) -> None:
    """Delete documents with everything they own, and take their chunks out of the stats."""
    lowered = conn.execute(
        "WITH gone AS (SELECT p.term, count(*) AS n FROM postings p JOIN chunks c "
        "USING (chunk_id) WHERE c.source = ANY(%s) GROUP BY p.term) "
        "UPDATE term_stats t SET df = t.df - gone.n FROM gone WHERE t.term = gone.term "
        "RETURNING t.term, t.df",
        (list(sources),),
    ).fetchall()
    emptied = [term for term, df in lowered if df <= 0]
    if emptied:
        conn.execute("DELETE FROM term_stats WHERE term = ANY(%s) AND df <= 0", (emptied,))
    conn.execute(
        "UPDATE state SET chunks = state.chunks - g.n, tokens = state.tokens - g.t, "
        "words = state.words - g.w FROM (SELECT count(*) AS n, coalesce(sum(length), 0) AS t, "
        "coalesce(sum(cardinality(words)), 0) AS w FROM chunks WHERE source = ANY(%s)) g",
        (list(sources),),
    )
    conn.execute("DELETE FROM documents WHERE source = ANY(%s)", (list(sources),))


def clear_all(conn: psycopg.Connection) -> None:
    """Every document gone (DELETE, not TRUNCATE: readers are not locked out)."""
    conn.execute("DELETE FROM documents")
    conn.execute("DELETE FROM term_stats")
    conn.execute("UPDATE state SET chunks = 0, tokens = 0, words = 0")
    bump(conn)


def bump(conn: psycopg.Connection) -> None:
    conn.execute("UPDATE state SET generation = generation + 1")


def _insert_sections(
    conn: psycopg.Connection,
    source: str,
    sections: Sequence[Section],
    chunks: Sequence[StoredChunk],
) -> None:
    with conn.cursor().copy(
        "COPY sections (source, section_id, heading, level, parent_id, ordinal, kind, "
        "chunk_id, text, text_start, text_end) FROM STDIN"
    ) as copy:
        for row in section_rows(source, sections, chunks):
            copy.write_row(row)


def _insert_chunks(
    conn: psycopg.Connection, chunks: Sequence[StoredChunk], rows: Sequence[LexicalRow]
) -> None:
    with conn.cursor().copy(f"COPY chunks ({_CHUNK_COLUMNS}) FROM STDIN") as copy:
        for stored, row in zip(chunks, rows, strict=True):
            c = stored.chunk
            copy.write_row(
                (c.chunk_id, c.source, c.ordinal, c.section_id, c.heading, list(c.parent_chain),
                 list(c.section_path), section_prefixes(c.section_path), c.chunk_type, c.content,
                 stored.context, c.token_count, c.overlap_chars, stored.context_source,
                 stored.llm_context, stored.context_truncated, row.length, fieldnorm(row.length),
                 row.words, fieldnorm(len(row.words)), c.page_start, c.page_end,
                 None if c.sentences is None else list(c.sentences))
            )  # fmt: skip


def insert_postings(conn: psycopg.Connection, rows: Sequence[LexicalRow]) -> None:
    with conn.cursor().copy("COPY postings (term, chunk_id, tf) FROM STDIN") as copy:
        for row in rows:
            for term, tf in row.terms.items():
                copy.write_row((term, row.chunk_id, tf))
    df = Counter(term for row in rows for term in row.terms)
    if df:
        conn.execute(
            "INSERT INTO term_stats SELECT * FROM unnest(%s::text[], %s::int[]) "
            "ON CONFLICT (term) DO UPDATE SET df = term_stats.df + excluded.df",
            (list(df), list(df.values())),
        )
    conn.execute(
        "UPDATE state SET chunks = chunks + %s, tokens = tokens + %s, words = words + %s",
        (len(rows), sum(r.length for r in rows), sum(len(r.words) for r in rows)),
    )


def _insert_vectors(
    conn: psycopg.Connection, chunks: Sequence[StoredChunk], vectors: Sequence[np.ndarray]
) -> None:
    with conn.cursor().copy(
        "COPY vectors (chunk_id, window_no, embedding) FROM STDIN WITH (FORMAT BINARY)"
    ) as copy:
        copy.set_types(["text", "int4", "vector"])
        for stored, matrix in zip(chunks, vectors, strict=False):
            for window, row in enumerate(np.atleast_2d(matrix)):
                copy.write_row((stored.chunk.chunk_id, window, row.astype(np.float32)))


def _insert_extraction(conn: psycopg.Connection, extraction: Extraction) -> None:
    cur = conn.cursor()
    cur.executemany(
        "INSERT INTO definitions (source, term, term_norm, definition, section_id, chunk_id, "
        "style) VALUES (%s, %s, %s, %s, %s, %s, %s)",
        [(d.source, d.term, normalize_term(d.term), d.definition, d.section_id, d.chunk_id,
          d.style) for d in extraction.definitions],
    )  # fmt: skip
    cur.executemany(
        "INSERT INTO acronyms (source, acronym, long_form, chunk_id, acronym_norm, "
        "long_form_norm) VALUES (%s, %s, %s, %s, %s, %s)",
        [
            (a.source, a.acronym, a.long_form, a.chunk_id)
            + (normalize_acronym(a.acronym), normalize_phrase(a.long_form))
            for a in extraction.acronyms
        ],
    )
    cur.executemany(
        "INSERT INTO crossrefs (source, chunk_id, section_id, text, target_section_id, "
        "target_source, external) VALUES (%s, %s, %s, %s, %s, %s, %s)",
        [(r.source, r.chunk_id, r.section_id, r.text, r.target_section_id, r.target_source,
          r.external) for r in extraction.references],
    )  # fmt: skip
    cur.executemany(
        "INSERT INTO chunk_terms (chunk_id, term_norm) VALUES (%s, %s)", extraction.chunk_terms
    )
