"""The document name keys of a local index: what names each document, by the key a query
finds it by (:func:`hierdoc.text.names.name_keys`), in ``document_names``.

The keys are written with their document (:meth:`RecordStore.replace_document`) and go
with it (``ON DELETE CASCADE``). A file whose keys are missing or of another
:data:`~hierdoc.text.names.NAME_KEYS_VERSION` (``meta.name_keys_version``) is filled
once by the next writer (:func:`fill_names`, in :meth:`RecordStore.set_up`); until then a
reader gets None from :func:`lookup_names` and names documents from their records.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ...models import DocumentRecord
from ...text.names import NAME_KEYS_VERSION, name_keys
from .schema import SCHEMA_VERSION, document_columns, document_record

NAMES_STAMP = "name_keys_version"
_BATCH = 500


def name_rows(document: DocumentRecord) -> list[tuple[str, str, str, str]]:
    """The ``document_names`` rows of one document: (source, kind, key, value)."""
    return [(document.source, kind, key, value) for kind, key, value in name_keys(document)]


def insert_names(db: sqlite3.Connection, documents: Sequence[DocumentRecord]) -> None:
    db.executemany(
        "INSERT INTO document_names VALUES (?, ?, ?, ?)",
        [row for document in documents for row in name_rows(document)],
    )


def names_current(db: sqlite3.Connection) -> bool:
    """The file holds the name keys of every document, of this :data:`NAME_KEYS_VERSION`."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (NAMES_STAMP,)).fetchone()
    return row is not None and row[0] == str(NAME_KEYS_VERSION)


def fill_names(db: sqlite3.Connection) -> None:
    """Compute and store the name keys of every document, and stamp them current (in the
    caller's transaction, on a file at :data:`SCHEMA_VERSION`)."""
    db.execute("DELETE FROM document_names")
    rows = db.execute(f"SELECT {document_columns(SCHEMA_VERSION)} FROM documents").fetchall()
    insert_names(db, [document_record(row) for row in rows])
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (NAMES_STAMP, str(NAME_KEYS_VERSION)))


def lookup_names(
    db: sqlite3.Connection, kind: str, keys: Sequence[str]
) -> list[tuple[str, str, str]]:
    """(key, value, source) of the name keys of ``kind`` whose key is among ``keys``,
    through the table's primary key (kind, key, ...)."""
    found: list[tuple[str, str, str]] = []
    for start in range(0, len(keys), _BATCH):
        batch = list(keys[start : start + _BATCH])
        marks = ",".join("?" * len(batch))
        found += db.execute(
            f"SELECT key, value, source FROM document_names WHERE kind = ? AND key IN ({marks})",
            [kind, *batch],
        ).fetchall()
    return found
