"""What ``hierdoc check`` reads in ``records.sqlite`` beyond ``PRAGMA integrity_check``,
which does not decode text: every value a search reads.

- Text decodes as UTF-8. Each table is read with SQLite's own decoding (in C, so a
  million chunks cost seconds); only a table where that fails is read again row by row,
  to count and place the damage.
- JSON fields parse, to the type a reader expects, and offsets lie within their chunk:
  sentence starts and the overlap within its text, a section's span within the text of
  the chunk it begins in. These are queries SQLite runs (``json_valid``, ``json_each``).

A problem names the table, the column and the rows (count and first rowid), never the
stored text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

#: The tables whose values a search or ``show`` reads (``vectors`` is checked against the
#: vector cache; ``contexts`` is read at ingest).
RECORD_TABLES = (
    "meta",
    "documents",
    "sections",
    "chunks",
    "chunk_sections",
    "chunk_terms",
    "definitions",
    "acronyms",
    "crossrefs",
    "document_names",
)


def _not_json(column: str, kind: str) -> str:
    return f"CASE WHEN json_valid({column}) THEN json_type({column}) != '{kind}' ELSE 1 END"


#: (table, column the check needs, problem, WHERE clause over that table's rows).
FIELD_CHECKS = (
    (
        "documents",
        "metadata",
        "documents.metadata is not valid JSON",
        _not_json("metadata", "object"),
    ),
    (
        "chunks",
        "parent_chain",
        "chunks.parent_chain is not valid JSON",
        _not_json("parent_chain", "array"),
    ),
    (
        "chunks",
        "section_path",
        "chunks.section_path is not valid JSON",
        _not_json("section_path", "array"),
    ),
    (
        "chunks",
        "sentences",
        "chunks.sentences is not valid JSON",
        f"sentences IS NOT NULL AND {_not_json('sentences', 'array')}",
    ),
    (
        "chunks",
        "sentences",
        "chunks.sentences holds offsets outside the chunk's text",
        "json_valid(sentences) AND json_type(sentences) = 'array' AND EXISTS (SELECT 1 FROM "
        "json_each(sentences) j WHERE j.type != 'integer' OR j.value < 0 "
        "OR j.value > length(content))",
    ),
    (
        "chunks",
        "overlap_chars",
        "chunks.overlap_chars is outside the chunk's text",
        "typeof(overlap_chars) != 'integer' OR overlap_chars < 0 "
        "OR overlap_chars > length(content)",
    ),
    (
        "sections",
        "text_start",
        "sections.text_start/text_end lie outside their chunk's text",
        "text_start IS NOT NULL AND (text_start < 0 OR text_end < text_start OR text_end > "
        "(SELECT length(c.content) FROM chunks c WHERE c.chunk_id = sections.chunk_id))",
    ),
)


def record_problems(db: sqlite3.Connection) -> list[str]:
    """What in the records a search would fail on or misread, one line per kind."""
    bad: dict[str, list[int | None]] = {}
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for table in RECORD_TABLES:
        if table in tables and not _decodes(db, table):
            for name, rowid in _undecodable(db, table):
                bad.setdefault(f"{table}.{name} is not valid UTF-8", []).append(rowid)
    if bad:
        return [f"{what}: {_rows(rows)}" for what, rows in bad.items()]
    for table, column, problem, where in FIELD_CHECKS:
        if table in tables and _has_column(db, table, column):
            rows = [row[0] for row in db.execute(f"SELECT rowid FROM {table} WHERE {where}")]
            if rows:
                bad[problem] = rows
    return [f"{what}: {_rows(rows)}" for what, rows in bad.items()]


def _rows(rowids: list[int | None]) -> str:
    first = f", first rowid {rowids[0]}" if rowids[0] is not None else ""
    return f"{len(rowids):,} row(s){first}"


def _decodes(db: sqlite3.Connection, table: str) -> bool:
    """Every text of ``table`` decodes (read by SQLite, a batch at a time)."""
    cursor = db.execute(f"SELECT * FROM {table}")
    try:
        while cursor.fetchmany(2_000):
            pass
    except sqlite3.OperationalError as error:
        if not str(error).startswith("Could not decode"):
            raise
        return False
    return True


def _undecodable(db: sqlite3.Connection, table: str) -> Iterator[tuple[str, int | None]]:
    """(column, rowid) of each value of ``table`` that is not UTF-8 (rowid None in a table
    WITHOUT ROWID)."""
    rowid = "NULL" if _without_rowid(db, table) else "rowid"
    db.text_factory = bytes
    try:
        cursor = db.execute(f"SELECT {rowid}, * FROM {table}")
        names = [column[0] for column in cursor.description][1:]
        for number, *values in cursor:
            for name, value in zip(names, values, strict=True):
                if isinstance(value, bytes) and not _is_utf8(value):
                    yield name, number
    finally:
        db.text_factory = str


def _is_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _without_rowid(db: sqlite3.Connection, table: str) -> bool:
    row = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    return "WITHOUT ROWID" in row[0].upper()


def _has_column(db: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in db.execute(f"PRAGMA table_info({table})"))
