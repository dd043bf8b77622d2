"""``hierdoc migrate --from A --to B``: copy an index between backends, without re-embedding.

A location is an index directory (the ``local`` backend) or a ``postgresql://`` URL
(the ``postgres`` backend, imported only then; ``--from-schema``/``--to-schema`` pick
the PostgreSQL schema). Every document's records are read through the source's
:class:`~hierdoc.store.base.Store` protocol and written to the target with the same
vectors, followed by the meta and the LLM context cache. The target must be empty
unless ``--force`` empties it first.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import click

from ..errors import ConfigError, StoreError
from ..models import Extraction, Section, SectionRecord
from ..search.analyze import TEXT_ANALYZER
from ..store import StoreRequest, open_store
from ..store.base import Store

_URL_SCHEMES = ("postgresql://", "postgres://")
ContextRow = tuple[str, str, str, str, str]


def is_url(location: str) -> bool:
    return location.startswith(_URL_SCHEMES)


def _provider(location: str) -> str:
    return "postgres" if is_url(location) else "local"


def stored_dimension(location: str, schema: str) -> int:
    """The vector size an existing index was built with; a :class:`ConfigError` if none."""
    if is_url(location):
        import psycopg
        from psycopg import sql

        with psycopg.connect(location) as conn:
            conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
            exists = conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()
            row = (
                exists
                and exists[0]
                and conn.execute("SELECT value FROM meta WHERE key = 'dimension'").fetchone()
            )
    else:
        path = Path(location) / "records.sqlite"
        row = None
        if path.exists():
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
                row = conn.execute("SELECT value FROM meta WHERE key = 'dimension'").fetchone()
    if not row:
        raise ConfigError(f"no hierdoc index at {_shown(location)}")
    return int(row[0])


def open_location(location: str, schema: str, dimension: int, reset: bool = False) -> Store:
    options = {"url": location, "schema": schema} if is_url(location) else {}
    request = StoreRequest(Path(location), dimension, TEXT_ANALYZER, reset=reset, options=options)
    return open_store(_provider(location), request)


def context_rows(store: Store, location: str) -> Iterator[ContextRow]:
    """Every cached LLM context of a store (the protocol only gets and puts one)."""
    rows_of = getattr(store, "context_rows", None)
    if rows_of is not None:
        yield from rows_of()
        return
    path = Path(location) / "records.sqlite"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        yield from conn.execute(
            "SELECT model, prompt_version, document_hash, chunk_hash, context FROM contexts"
        )


def document_sections(store: Store, location: str, source: str) -> list[SectionRecord]:
    """Every section of a document, in order (the protocol reads sections by id only)."""
    of_source = getattr(store, "sections_of_source", None)
    if of_source is not None:
        return of_source(source)
    path = Path(location) / "records.sqlite"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT source, section_id, heading, level, parent_id, ordinal, kind, chunk_id, text "
            "FROM sections WHERE source = ? ORDER BY ordinal",
            (source,),
        ).fetchall()
    return [SectionRecord(*row) for row in rows]


def as_sections(records: list[SectionRecord]) -> list[Section]:
    """Stored sections back as :class:`Section` (the text kept whole as the body)."""
    parents = {r.section_id: r.parent_id for r in records}

    def path(record: SectionRecord) -> tuple[str, ...]:
        chain: list[str] = []
        parent = record.parent_id
        while parent and parent not in chain:
            chain.insert(0, parent)
            parent = parents.get(parent)
        return tuple(chain)

    return [
        Section(r.section_id, r.heading, r.level, (), path(r), r.text, "", r.ordinal, r.kind)
        for r in records
    ]


def copy_document(source_store: Store, target: Store, location: str, source: str) -> int:
    """One document with its sections, chunks, vectors and extraction; returns its chunks."""
    document = next(d for d in source_store.documents() if d.source == source)
    chunks = source_store.chunks_of_source(source)
    records = document_sections(source_store, location, source)
    starts: dict[str, list[str]] = {}
    for record in records:
        if record.chunk_id:
            starts.setdefault(record.chunk_id, []).append(record.section_id)
    chunks = [
        replace(s, chunk=replace(s.chunk, sections=tuple(starts.get(s.chunk.chunk_id, ()))))
        for s in chunks
    ]
    ids = [s.chunk.chunk_id for s in chunks]
    vectors = source_store.vectors_of(ids)
    terms = source_store.chunk_terms(ids)
    extraction = Extraction(
        definitions=[d for d in source_store.all_definitions() if d.source == source],
        acronyms=[a for a in source_store.acronyms() if a.source == source],
        references=source_store.references_from(ids),
        chunk_terms=[(c, t) for c in ids for t in terms.get(c, [])],
    )
    target.write_document(
        document, as_sections(records), chunks, [vectors[c] for c in ids], extraction
    )
    return len(chunks)


def migrate(source_store: Store, target: Store, source_location: str) -> tuple[int, int, int]:
    """Copy everything; returns (documents, chunks, cached contexts) copied."""
    documents = chunks = contexts = 0
    for document in source_store.documents():
        chunks += copy_document(source_store, target, source_location, document.source)
        documents += 1
    target.write_meta(source_store.read_meta())
    for row in context_rows(source_store, source_location):
        target.context_cache.put(*row)
        contexts += 1
    target.flush()
    return documents, chunks, contexts


def _shown(location: str) -> str:
    if is_url(location):
        from ..store.postgres.connection import redact

        return redact(location)
    return location


@click.command("migrate")
@click.option("--from", "source", required=True, help="Index directory or postgresql:// URL.")
@click.option("--to", "target", required=True, help="Index directory or postgresql:// URL.")
@click.option("--from-schema", default="public", show_default=True, help="PostgreSQL schema.")
@click.option("--to-schema", default="public", show_default=True, help="PostgreSQL schema.")
@click.option("--force", is_flag=True, help="Empty the target first if it holds documents.")
def migrate_command(
    source: str, target: str, from_schema: str, to_schema: str, force: bool
) -> None:
    """Copy an index to another backend (local <-> postgres) without re-embedding."""
    dimension = stored_dimension(source, from_schema)
    origin = open_location(source, from_schema, dimension)
    try:
        destination = open_location(target, to_schema, dimension, reset=force)
        try:
            if destination.documents():
                raise StoreError(
                    f"{_shown(target)} already holds documents: use --force to replace them"
                )
            documents, chunks, contexts = migrate(origin, destination, source)
        finally:
            destination.close()
    finally:
        origin.close()
    click.echo(
        f"copied {documents} documents ({chunks} chunks), the meta and {contexts} cached "
        f"contexts from {_shown(source)} to {_shown(target)}"
    )
