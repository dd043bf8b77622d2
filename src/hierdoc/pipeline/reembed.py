"""Re-embedding a whole index with another model, resumably, switched in at once.

The new vectors are built aside, in a SQLite file of their own (:class:`VectorsAside`,
committed batch by batch): an interrupted run keeps what it embedded, and the next run
embeds only the chunks still missing (a chunk is known by its context and text, so one
that changed in between is embedded again). Readers go on searching the live index
meanwhile. When every chunk has its vectors, :func:`switch_in` copies each document's
records with its new vectors into a rebuild beside the live index (``Store.begin_rebuild``),
names the new model in the rebuild's meta and publishes it: readers see the old index,
then the new one whole.

:func:`copy_document` is also how ``hierdoc migrate`` copies an index between backends.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..errors import StoreError
from ..models import (
    Acronym,
    Definition,
    DocumentRecord,
    EmbedInput,
    Extraction,
    Section,
    SectionRecord,
    StoredChunk,
)
from ..store.base import IndexMeta, Records, Store
from .embed import Embedder

EMBED_BATCH = 64
"""Chunks embedded (and committed aside) at a time."""

ReembedProgress = Callable[[str, int, int], None]
"""Called with (stage, done, total): "embed" counts chunks, "switch" documents."""


def chunk_key(stored: StoredChunk) -> str:
    """What a chunk's vectors depend on: the context embedded before it and its text."""
    text = f"{stored.context}\0{stored.chunk.content}"
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


class VectorsAside:
    """Chunks' new vectors in a SQLite file beside the index, by chunk id and key."""

    def __init__(self, path: Path, dimension: int) -> None:
        self.path = path
        self.dimension = dimension
        self._db = sqlite3.connect(path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors "
            "(chunk_id TEXT PRIMARY KEY, key TEXT NOT NULL, windows INTEGER, data BLOB)"
        )
        self._db.commit()

    def keys(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT chunk_id, key FROM vectors"))

    def put(self, rows: list[tuple[str, str, np.ndarray]]) -> None:
        """Store (chunk id, key, windows x dimension vectors) rows, in one transaction."""
        self._db.executemany(
            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?, ?)",
            [(c, k, len(v), np.asarray(v, dtype="<f4").tobytes()) for c, k, v in rows],
        )
        self._db.commit()

    def vectors(self, chunk_ids: list[str]) -> dict[str, np.ndarray]:
        found = {}
        for start in range(0, len(chunk_ids), 500):
            part = chunk_ids[start : start + 500]
            marks = ",".join("?" * len(part))
            query = f"SELECT chunk_id, windows, data FROM vectors WHERE chunk_id IN ({marks})"
            for chunk_id, windows, data in self._db.execute(query, part):
                found[chunk_id] = np.frombuffer(data, dtype="<f4").reshape(windows, -1)
        return found

    def close(self) -> None:
        self._db.close()


def embed_aside(
    store: Records,
    embedder: Embedder,
    aside: VectorsAside,
    progress: ReembedProgress | None = None,
) -> tuple[int, int]:
    """Embed every chunk of the index that has no current vectors aside; returns (chunks
    embedded now, chunks in all)."""
    have = aside.keys()
    todo: list[StoredChunk] = []
    total = 0
    for document in store.documents():
        for stored in store.chunks_of_source(document.source):
            total += 1
            if have.get(stored.chunk.chunk_id) != chunk_key(stored):
                todo.append(stored)
    done = total - len(todo)
    if progress is not None:
        progress("embed", done, total)
    for start in range(0, len(todo), EMBED_BATCH):
        batch = todo[start : start + EMBED_BATCH]
        inputs = [EmbedInput(s.context, s.chunk.content) for s in batch]
        vectors = embedder.embed_documents(inputs)
        aside.put(
            [(s.chunk.chunk_id, chunk_key(s), v) for s, v in zip(batch, vectors, strict=True)]
        )
        done += len(batch)
        if progress is not None:
            progress("embed", done, total)
    return len(todo), total


def switch_in(
    live: Store,
    store: Store,
    aside: VectorsAside,
    meta: Callable[[IndexMeta], IndexMeta],
    progress: ReembedProgress | None = None,
) -> int:
    """Copy every document of ``live`` (a reader of the live index) with its vectors from
    ``aside`` into a rebuild of ``store`` (the writer, holding its lock), write the meta
    ``meta`` makes of the live one, and publish; returns the documents copied. A chunk
    without vectors aside, or a rebuild that cannot start, is a :class:`StoreError` and
    leaves the live index as it was."""
    documents = live.documents()
    if len(documents) != store.document_count():
        raise StoreError("the index changed while it was re-embedded: run the command again")
    if not store.begin_rebuild():
        raise StoreError("a rebuild is already under way in this index: close it and retry")
    stored = StoredDocuments(live)
    try:
        for done, document in enumerate(documents, 1):
            ids = [s.chunk.chunk_id for s in live.chunks_of_source(document.source)]
            vectors = aside.vectors(ids)
            missing = [chunk_id for chunk_id in ids if chunk_id not in vectors]
            if missing:
                raise StoreError(f"chunk {missing[0]!r} has no new vectors: run the command again")
            copy_document(stored, store, document.source, vectors)
            if progress is not None:
                progress("switch", done, len(documents))
        store.write_meta(meta(live.read_meta()))
    except BaseException:
        store.abandon_rebuild()
        raise
    store.publish_rebuild()
    return len(documents)


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


class StoredDocuments:
    """A store's documents, definitions and acronyms read once and kept by source, for
    copying its documents one after the other."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.records = {d.source: d for d in store.documents()}
        self.definitions: dict[str, list[Definition]] = {}
        for definition in store.all_definitions():
            self.definitions.setdefault(definition.source, []).append(definition)
        self.acronyms: dict[str, list[Acronym]] = {}
        for acronym in store.acronyms():
            self.acronyms.setdefault(acronym.source, []).append(acronym)

    def parts(
        self, source: str, vectors: Mapping[str, np.ndarray] | None = None
    ) -> tuple[DocumentRecord, list[Section], list[StoredChunk], list[np.ndarray], Extraction]:
        """What ``write_document`` takes to write ``source`` as the store holds it
        (``vectors`` by chunk id, else the stored ones)."""
        store = self.store
        chunks = store.chunks_of_source(source)
        records = store.sections_of_source(source)
        starts: dict[str, list[str]] = {}
        for record in records:
            if record.chunk_id:
                starts.setdefault(record.chunk_id, []).append(record.section_id)
        chunks = [
            replace(s, chunk=replace(s.chunk, sections=tuple(starts.get(s.chunk.chunk_id, ()))))
            for s in chunks
        ]
        ids = [s.chunk.chunk_id for s in chunks]
        if vectors is None:
            vectors = store.vectors_of(ids)
        terms = store.chunk_terms(ids)
        extraction = Extraction(
            definitions=self.definitions.get(source, []),
            acronyms=self.acronyms.get(source, []),
            references=store.references_from(ids),
            chunk_terms=[(c, t) for c in ids for t in terms.get(c, [])],
        )
        return (self.records[source], as_sections(records), chunks, [vectors[c] for c in ids],
                extraction)  # fmt: skip


def copy_document(
    stored: StoredDocuments,
    target: Store,
    source: str,
    vectors: Mapping[str, np.ndarray] | None = None,
) -> int:
    """One document with its sections, chunks, extraction and vectors (``vectors`` by chunk
    id, else the stored ones); returns its chunks."""
    parts = stored.parts(source, vectors)
    target.write_document(*parts)
    return len(parts[2])
