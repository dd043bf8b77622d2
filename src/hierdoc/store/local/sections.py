"""The sections of a local index, each one's text kept as a span of the chunk it begins in
(:mod:`hierdoc.store.section_spans`): ``sections.text`` holds what the span leaves out,
``text_start`` and ``text_end`` the span (NULL: ``text`` is the whole text, as in a file
written before schema version 5 and not yet migrated, or a section found in no chunk).
"""

from __future__ import annotations

import sqlite3

from ...models import SectionRecord
from ..section_spans import text_span

SPANS_VERSION = 5
"""The schema version that stores spans (an older file is migrated, then VACUUMed)."""
INSERT_SECTION = (
    "INSERT INTO sections (source, section_id, heading, level, parent_id, ordinal, kind, "
    "chunk_id, text, text_start, text_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_BATCH = 1000


_FIELDS = ("source", "section_id", "heading", "level", "parent_id", "ordinal", "kind", "chunk_id")
#: The sections of a file with spans, each text sliced out of its chunk by SQLite (substr
#: counts characters, as Python does; a span is never stored over a NUL, see text_span).
_SPANNED = (
    f"SELECT {', '.join('s.' + name for name in _FIELDS)}, CASE WHEN s.text_start IS NULL "
    "THEN s.text ELSE coalesce(substr(c.content, s.text_start + 1, s.text_end - s.text_start), "
    "'') || s.text END FROM sections s LEFT JOIN chunks c ON c.chunk_id = s.chunk_id"
)


def select_sections(
    db: sqlite3.Connection, where: str, params: list[str], spans: bool
) -> list[SectionRecord] | None:
    """Sections (``where`` over the alias ``s``) in document order, with their text.
    ``spans``: the file is known to have the span columns (they never go away). Else
    ``s.*`` is read, so that one statement sees one schema: whole texts are returned as
    they are, and None when the columns are there (a writer migrated the file since)."""
    order = "ORDER BY s.source, s.ordinal"
    if spans:
        rows = db.execute(f"{_SPANNED} {where} {order}", params).fetchall()
        return [SectionRecord(*row) for row in rows]
    cursor = db.execute(f"SELECT s.* FROM sections s {where} {order}", params)
    rows = cursor.fetchall()
    names = [column[0] for column in cursor.description]
    if "text_start" in names:
        return None
    fields = [names.index(name) for name in (*_FIELDS, "text")]
    return [SectionRecord(*(row[i] for i in fields)) for row in rows]


def store_spans(db: sqlite3.Connection) -> None:
    """Replace each whole section text that its chunk holds by its span (the migration to
    schema version 5, in the caller's transaction, once the columns exist), a batch of
    rows at a time (a batch's chunk contents are in memory, not the whole file's)."""
    last = 0
    while True:
        rows = db.execute(
            "SELECT s.rowid, s.text, c.content FROM sections s JOIN chunks c "
            "ON c.chunk_id = s.chunk_id WHERE s.rowid > ? AND s.text_start IS NULL "
            "ORDER BY s.rowid LIMIT ?",
            (last, _BATCH),
        ).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        spans = [(text_span(content, text), rowid) for rowid, text, content in rows]
        db.executemany(
            "UPDATE sections SET text_start = ?, text_end = ?, text = ? WHERE rowid = ?",
            [(*span, rowid) for span, rowid in spans if span[0] is not None],
        )
