"""``hierdoc migrate --from A --to B``: copy an index between backends, without re-embedding.

A location is an index directory (the ``local`` backend) or a ``postgresql://`` URL
(the ``postgres`` backend, imported only then; ``--from-schema``/``--to-schema`` pick
the PostgreSQL schema). The source is opened read-only with the vector size it was
built with; every document's records (its sections in document order, its chunks,
vectors and extraction) are read through the :class:`~hierdoc.store.base.Store`
protocol and written to the target, which holds its writer lock throughout, followed
by the meta and the LLM context cache (:meth:`ContextCache.entries`). A PostgreSQL target
takes the documents in one bulk load (:mod:`hierdoc.store.postgres.bulk`: COPY, postings
built per batch, the HNSW index of an empty target built once at the end). The target must
be empty unless ``--force``: then the copy replaces what it holds as a rebuild does
(``Store.begin_rebuild``), and its readers see the old index until the copy is complete.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import StoreError
from .state import State, index_options, pass_state

if TYPE_CHECKING:
    from ..store import StoreRequest
    from ..store.base import Store

_URL_SCHEMES = ("postgresql://", "postgres://")
_PROBE_DIMENSION = 1
"""The vector size a source is first opened with; its own comes back in a DimensionError."""


def is_url(location: str) -> bool:
    return location.startswith(_URL_SCHEMES)


def _provider(location: str) -> str:
    return "postgres" if is_url(location) else "local"


def _request(location: str, schema: str, dimension: int, **flags: bool) -> StoreRequest:
    from ..store import StoreRequest
    from ..text.analyze import TEXT_ANALYZER

    options = {"url": location, "schema": schema} if is_url(location) else {}
    return StoreRequest(Path(location), dimension, TEXT_ANALYZER, options=options, **flags)


def open_source(location: str, schema: str) -> Store:
    """The source index opened read-only with the vector size it was built with (a
    :class:`~hierdoc.errors.NotFoundError` when there is none)."""
    from ..store import open_store
    from ..store.base import DimensionError

    provider = _provider(location)
    try:
        return open_store(provider, _request(location, schema, _PROBE_DIMENSION, read_only=True))
    except DimensionError as error:
        return open_store(provider, _request(location, schema, error.stored, read_only=True))


def open_target(location: str, schema: str, dimension: int, reset: bool = False) -> Store:
    """The target index, created if missing, holding its writer lock until closed."""
    from ..store import open_store

    request = _request(location, schema, dimension, reset=reset, hold_writer=True)
    return open_store(_provider(location), request)


def migrate(source_store: Store, target: Store) -> tuple[int, int, int]:
    """Copy everything; returns (documents, chunks, cached contexts) copied."""
    contexts = 0
    with target.lock_writer():
        documents, chunks = _copy_documents(source_store, target)
        target.write_meta(source_store.read_meta())
        for entry in source_store.context_cache.entries():
            target.context_cache.put(
                entry.model, entry.prompt_version, entry.document_hash, entry.chunk_hash,
                entry.context,
            )  # fmt: skip
            contexts += 1
        target.publish_rebuild()  # a target opened with reset (--force) swaps the copy in
        target.flush()
    return documents, chunks, contexts


def _copy_documents(source_store: Store, target: Store) -> tuple[int, int]:
    """Every document written to ``target``: in one bulk load where the target has one
    (PostgreSQL), else one by one; returns (documents, chunks)."""
    from ..pipeline.reembed import StoredDocuments, copy_document

    stored = StoredDocuments(source_store)
    sources = list(stored.records)
    bulk_load = getattr(target, "bulk_load", None)
    if bulk_load is not None:
        from ..store.postgres.writes import Written

        report = bulk_load(Written(*stored.parts(source)) for source in sources)
        return report.documents, report.chunks
    return len(sources), sum(copy_document(stored, target, source) for source in sources)


@click.command("migrate")
@index_options
@click.option(
    "--from", "source", help="Index directory or postgresql:// URL [default: the --index]."
)
@click.option("--to", "target", required=True, help="Index directory or postgresql:// URL.")
@click.option("--from-schema", default="public", show_default=True, help="PostgreSQL schema.")
@click.option("--to-schema", default="public", show_default=True, help="PostgreSQL schema.")
@click.option("--force", is_flag=True, help="Replace what the target holds.")
@pass_state
def migrate_command(
    state: State, source: str | None, target: str, from_schema: str, to_schema: str, force: bool
) -> None:
    """Copy an index to another backend (local <-> postgres) without re-embedding."""
    reads_no_config = "migrate copies the index as stored, with no settings"
    state.refuse("migrate", {"config": reads_no_config, "tool": reads_no_config})
    source = source or state.index_option
    if source is None:
        raise click.UsageError("give the index to copy: --from DIR|URL (or --index DIR)")
    from ..store.base import redact

    origin = open_source(source, from_schema)
    try:
        dimension = origin.read_meta().dimension or _PROBE_DIMENSION
        destination = open_target(target, to_schema, dimension, reset=force)
        try:
            if not force and destination.documents():
                raise StoreError(
                    f"{redact(target)} already holds documents: use --force to replace them"
                )
            documents, chunks, contexts = migrate(origin, destination)
        finally:
            destination.close()
    finally:
        origin.close()
    click.echo(
        f"copied {documents} documents ({chunks} chunks), the meta and {contexts} cached "
        f"contexts from {redact(source)} to {redact(target)}"
    )
