"""The sections of a local index, each one's text kept as a span of the chunk it begins in
(:mod:`hierdoc.store.section_spans`): ``sections.text`` holds what the span leaves out,
``text_start`` and ``text_end`` the span (NULL: ``text`` is the whole text, as in a file
written before schema version 5 and not yet migrated, or a section found in no chunk).
"""

from __future__ import annotations

import sqlite3

from ...models import SectionRecord
from ..section_spans import section_text, text_span

INSERT_SECTION = (
    "INSERT INTO sections (source, section_id, heading, level, parent_id, ordinal, kind, "
    "chunk_id, text, text_start, text_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_BATCH = 1000


def select_sections(db: sqlite3.Connection, where: str, params: list[str]) -> list[SectionRecord]:
    """Sections (``where`` over the alias ``s``) in document order, their text rebuilt.
    ``s.*`` is read, not named columns, so that one statement sees one schema: a reader
    of a file that a writer migrates meanwhile gets spans or whole texts, never a mix."""
    cursor = db.execute(
        "SELECT s.*, c.content FROM sections s LEFT JOIN chunks c ON c.chunk_id = s.chunk_id "
        f"{where} ORDER BY s.source, s.ordinal",
        params,
    )
    rows = cursor.fetchall()
    names = [column[0] for column in cursor.description]
    return [section_record(dict(zip(names, row, strict=True))) for row in rows]


def section_record(row: dict) -> SectionRecord:
    start, end = row.get("text_start"), row.get("text_end")
    return SectionRecord(
        row["source"],
        row["section_id"],
        row["heading"],
        row["level"],
        row["parent_id"],
        row["ordinal"],
        row["kind"],
        row["chunk_id"],
        section_text(row["content"], start, end, row["text"]),
    )


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
