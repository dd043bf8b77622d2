"""Reads of the stored records: documents, chunks, sections, extraction, vectors, counts.

Every function takes a connection (autocommit: each statement sees the latest commit)
and returns the typed records of :mod:`hierdoc.models`, in the order the local
backend returns them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg

from ...models import (
    Acronym,
    Chunk,
    CrossRef,
    Definition,
    DocumentRecord,
    SearchFilter,
    SectionRecord,
    StoredChunk,
)
from .filters import filter_sql
from .vectors import grouped

_CHUNK_SELECT = (
    "SELECT c.chunk_id, c.source, d.title, c.section_id, c.heading, c.parent_chain, "
    "c.section_path, c.content, c.ordinal, c.token_count, c.chunk_type, c.overlap_chars, "
    "c.context, c.context_source, c.llm_context, c.context_truncated, c.page_start, c.page_end, "
    "c.sentences "
    "FROM chunks c JOIN documents d USING (source) "
)
COUNTED = ("documents", "sections", "chunks", "vectors", "definitions", "acronyms", "crossrefs")


def _stored_chunk(row: tuple) -> StoredChunk:
    (chunk_id, source, title, section_id, heading, chain, path, content, ordinal, token_count,
     chunk_type, overlap_chars, context, context_source, llm_context, truncated, page_start,
     page_end, sentences) = row  # fmt: skip
    chunk = Chunk(
        chunk_id=chunk_id,
        source=source,
        title=title,
        section_id=section_id,
        heading=heading,
        parent_chain=tuple(chain),
        section_path=tuple(path),
        content=content,
        ordinal=ordinal,
        token_count=token_count,
        chunk_type=chunk_type,
        overlap_chars=overlap_chars,
        page_start=page_start,
        page_end=page_end,
        sentences=None if sentences is None else tuple(sentences),
    )
    return StoredChunk(chunk, context, context_source, llm_context, bool(truncated))


def select_chunks(conn: psycopg.Connection, where: str, params: Any = ()) -> list[StoredChunk]:
    rows = conn.execute(f"{_CHUNK_SELECT} WHERE {where} ORDER BY c.source, c.ordinal", params)
    return [_stored_chunk(row) for row in rows.fetchall()]


def chunks_by_id(conn: psycopg.Connection, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
    found = select_chunks(conn, "c.chunk_id = ANY(%s)", (list(chunk_ids),))
    return {s.chunk.chunk_id: s for s in found}


def chunks_of_sections(conn: psycopg.Connection, section_ids: Sequence[str]) -> list[StoredChunk]:
    if not section_ids:
        return []
    where = "c.chunk_id IN (SELECT chunk_id FROM sections WHERE section_id = ANY(%s))"
    return select_chunks(conn, where, (list(section_ids),))


def section_starts(
    conn: psycopg.Connection, section_ids: Sequence[str], sources: Sequence[str] | None = None
) -> list[tuple[str, str, str]]:
    """(source, chunk id, chunk's section id) of :func:`chunks_of_sections`' chunks, only
    in ``sources`` when given."""
    if not section_ids or (sources is not None and not sources):
        return []
    within = " AND source = ANY(%s)" if sources is not None else ""
    params: list = [list(section_ids)] + ([list(sources)] if sources is not None else [])
    rows = conn.execute(
        "SELECT c.source, c.chunk_id, c.section_id FROM chunks c WHERE c.chunk_id IN "
        f"(SELECT chunk_id FROM sections WHERE section_id = ANY(%s){within}) "
        "ORDER BY c.source, c.ordinal",
        params,
    ).fetchall()
    return [(source, chunk_id, section_id) for source, chunk_id, section_id in rows]


def section_holders(
    conn: psycopg.Connection, section_id: str, limit: int, sources: Sequence[str] | None = None
) -> list[str]:
    within = "" if sources is None else " AND source = ANY(%(sources)s)"
    return first_column(
        conn,
        "SELECT source FROM sections WHERE section_id = %(id)s AND chunk_id IS NOT NULL"
        f"{within} ORDER BY source LIMIT %(limit)s",
        {"id": section_id, "limit": limit, "sources": list(sources or ())},
    )


def first_column(conn: psycopg.Connection, sql: str, params: Any) -> list[Any]:
    """The first column of every row ``sql`` returns."""
    return [row[0] for row in conn.execute(sql, params).fetchall()]


def count_sections(
    conn: psycopg.Connection,
    section_ids: Sequence[str],
    limit: int,
    sources: Sequence[str] | None = None,
) -> int:
    if not section_ids:
        return 0
    within = "" if sources is None else " AND source = ANY(%(sources)s)"
    row = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM sections WHERE section_id = ANY(%(ids)s)"
        f"{within} LIMIT %(limit)s) s",
        {"ids": list(section_ids), "limit": limit, "sources": list(sources or ())},
    ).fetchone()
    return int(row[0]) if row else 0


def chunks_under(
    conn: psycopg.Connection, section_id: str, filt: SearchFilter | None
) -> list[StoredChunk]:
    where, params = _under_sql(section_id, filt)
    return select_chunks(conn, where, params)


def chunk_ids_under(
    conn: psycopg.Connection, section_id: str, filt: SearchFilter | None
) -> list[str]:
    where, params = _under_sql(section_id, filt)
    sql = f"SELECT c.chunk_id FROM chunks c WHERE {where} ORDER BY c.source, c.ordinal"
    return first_column(conn, sql, params)


def _under_sql(section_id: str, filt: SearchFilter | None) -> tuple[str, dict[str, Any]]:
    """The WHERE clause (alias ``c``) of a section's subtree that ``filt`` lets through."""
    under, params = filter_sql(SearchFilter(section_prefix=section_id), "c")
    extra, more = filter_sql(filt, "c")
    if "filter_prefix" in more:
        extra = extra.replace("filter_prefix", "filter_prefix_2")
        more["filter_prefix_2"] = more.pop("filter_prefix")
    return f"{under} AND {extra}", {**params, **more}


_SELECTS: dict[type, str] = {
    DocumentRecord: "SELECT source, title, content_hash, format, chars, chunk_count, "
    "to_char(ingested_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
    "pages, metadata "
    "FROM documents WHERE {where} ORDER BY source",
    # the text sliced out of its chunk (store.section_spans; substr counts characters)
    SectionRecord: "SELECT s.source, s.section_id, s.heading, s.level, s.parent_id, s.ordinal, "
    "s.kind, s.chunk_id, CASE WHEN s.text_start IS NULL THEN s.text ELSE coalesce(substr("
    "c.content, s.text_start + 1, s.text_end - s.text_start), '') || s.text END FROM sections s "
    "LEFT JOIN chunks c ON c.chunk_id = s.chunk_id WHERE {where} ORDER BY s.source, s.ordinal",
    Definition: "SELECT term, definition, source, section_id, chunk_id, style "
    "FROM definitions WHERE {where} ORDER BY source, id",
    Acronym: "SELECT acronym, long_form, source, chunk_id FROM acronyms WHERE {where} ORDER BY id",
}


def select(conn: psycopg.Connection, record: type, where: str = "TRUE", params: Any = ()) -> list:
    """Records of one type (documents, sections, definitions, acronyms) in stored order."""
    rows = conn.execute(_SELECTS[record].format(where=where), params).fetchall()
    if record is DocumentRecord:
        return [DocumentRecord(*row[:-2], pages=row[-2], metadata=row[-1]) for row in rows]
    return [record(*row) for row in rows]


def headings_matching(conn: psycopg.Connection, heading: str) -> list[str]:
    wanted = heading.strip().lower()
    return first_column(
        conn,
        "SELECT DISTINCT section_id FROM sections "
        "WHERE md5(lower(heading)) = md5(%s) AND lower(heading) = %s ORDER BY section_id",
        (wanted, wanted),
    )


def chunk_terms(conn: psycopg.Connection, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
    rows = conn.execute(
        "SELECT chunk_id, term_norm FROM chunk_terms WHERE chunk_id = ANY(%s) ORDER BY id",
        (list(chunk_ids),),
    ).fetchall()
    found: dict[str, list[str]] = {}
    for chunk_id, term in rows:
        found.setdefault(chunk_id, []).append(term)
    return found


def select_references(conn: psycopg.Connection, where: str, params: Any) -> list[CrossRef]:
    rows = conn.execute(
        "SELECT text, source, chunk_id, section_id, target_section_id, target_source, external "
        f"FROM crossrefs WHERE {where} ORDER BY source, id",
        params,
    ).fetchall()
    return [CrossRef(*row[:6], external=bool(row[6])) for row in rows]


def vectors(conn: psycopg.Connection, chunk_ids: Sequence[str] | None) -> list[tuple[str, Any]]:
    """(chunk id, matrix of windows) in document order; every chunk when ``chunk_ids`` is None."""
    where = "TRUE" if chunk_ids is None else "v.chunk_id = ANY(%s)"
    rows = conn.execute(
        "SELECT v.chunk_id, v.embedding FROM vectors v JOIN chunks c USING (chunk_id) "
        f"WHERE {where} ORDER BY c.source, c.ordinal, v.window_no",
        () if chunk_ids is None else (list(chunk_ids),),
    ).fetchall()
    return list(grouped([(chunk_id, v.to_numpy()) for chunk_id, v in rows]))


def counts(conn: psycopg.Connection) -> dict[str, int]:
    selects = " UNION ALL ".join(f"SELECT '{table}', count(*) FROM {table}" for table in COUNTED)
    return {table: int(n) for table, n in conn.execute(selects).fetchall()}


def context_counts(conn: psycopg.Connection) -> dict[str, int]:
    rows = conn.execute(
        "SELECT context_source, count(*), count(*) FILTER (WHERE context_truncated) "
        "FROM chunks GROUP BY context_source"
    ).fetchall()
    cached = conn.execute("SELECT count(*) FROM contexts").fetchone()
    found = {f"chunks_{source}": int(n) for source, n, _ in rows}
    found["truncated_documents_chunks"] = sum(int(t) for _, _, t in rows)
    found["contexts_cached"] = int(cached[0]) if cached else 0
    return found
