"""The document name keys of a PostgreSQL index: what names each document, by the key a
query finds it by (:func:`hierdoc.text.names.name_keys`), in ``document_names``.

The keys are written with their document (:func:`.writes.replace_document`) and go with it
(``ON DELETE CASCADE``). A schema whose keys are missing or of another
:data:`~hierdoc.text.names.NAME_KEYS_VERSION` (``meta.name_keys_version``: a schema
migrated to version 3, whose documents were written before) is filled once by the next
writer (:func:`fill_names`, when a store is opened for writing); until then a reader gets
None from :func:`lookup_names` and names documents from their records.
"""

from __future__ import annotations

from collections.abc import Sequence

import psycopg

from ...models import DocumentRecord
from ...text.names import NAME_KEYS_VERSION, name_keys
from .records import select

NAMES_STAMP = "name_keys_version"


def insert_names(conn: psycopg.Connection, documents: Sequence[DocumentRecord]) -> None:
    """The name keys of ``documents`` (inside the transaction that writes them)."""
    rows = [(d.source, *key) for d in documents for key in name_keys(d)]
    with conn.cursor().copy("COPY document_names (source, kind, key, value) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def names_current(conn: psycopg.Connection) -> bool:
    """The schema holds the name keys of every document, of this :data:`NAME_KEYS_VERSION`."""
    row = conn.execute("SELECT value FROM meta WHERE key = %s", (NAMES_STAMP,)).fetchone()
    return row is not None and row[0] == str(NAME_KEYS_VERSION)


def fill_names(conn: psycopg.Connection) -> None:
    """Compute and store the name keys of every document and stamp them current, unless
    another writer did (inside a transaction, under the writer lock)."""
    if names_current(conn):
        return
    conn.execute("DELETE FROM document_names")
    insert_names(conn, select(conn, DocumentRecord))
    conn.execute(
        "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (NAMES_STAMP, str(NAME_KEYS_VERSION)),
    )


def lookup_names(
    conn: psycopg.Connection, kind: str, keys: Sequence[str]
) -> list[tuple[str, str, str]]:
    """(key, value, source) of the name keys of ``kind`` whose key is among ``keys``, through
    ``document_names_by_key`` (on the key's digest: a btree entry holds at most ~2.7 kB)."""
    if not keys:
        return []
    rows = conn.execute(
        "SELECT key, value, source FROM document_names WHERE kind = %s "
        "AND md5(key) = ANY(ARRAY(SELECT md5(k) FROM unnest(%s::text[]) AS k)) "
        "AND key = ANY(%s)",
        (kind, list(keys), list(keys)),
    ).fetchall()
    return [(key, value, source) for key, value, source in rows]
