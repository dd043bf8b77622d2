"""A reader while the writer holds documents in SQLite that its BM25 index on disk does not
have yet: keyword and exact search see what SQLite holds (added, replaced and deleted
documents alike), and the change notes are dropped once the BM25 index is committed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from hierdoc.models import Chunk, DocumentRecord, StoredChunk
from hierdoc.store.local.bm25_tail import TailedBm25
from hierdoc.store.local.store import LocalStore
from hierdoc.text.analyze import TEXT_ANALYZER

DIMENSION = 8


def _document(source: str, text: str) -> tuple[DocumentRecord, list, list[StoredChunk], list]:
    chunk = Chunk(
        chunk_id=f"{source}#{text.split()[1]}",
        source=source,
        title=source,
        section_id="s-1",
        heading="S 1",
        parent_chain=("S 1",),
        section_path=("s-1",),
        content=text,
        ordinal=0,
        token_count=len(text.split()),
    )
    vector = np.ones((1, DIMENSION), np.float32) / np.sqrt(DIMENSION)
    return (
        DocumentRecord(source, source, text, "md", len(text), 1),
        [],
        [StoredChunk(chunk, "")],
        [vector],
    )


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[LocalStore]:
    store = LocalStore(tmp_path / "index", DIMENSION, TEXT_ANALYZER, hold_writer=True)
    for source, text in (("a.md", "alpha fees apply"), ("b.md", "bravo notices given")):
        store.write_document(*_document(source, text))
    store.flush()
    yield store
    store.close()


def _found(reader: LocalStore, word: str) -> list[str]:
    keyword = reader.keyword_search(TEXT_ANALYZER.terms(word), 10, None)
    exact = reader.phrase_search(TEXT_ANALYZER.words(word), 10, None)
    assert [h.chunk_id for h in keyword] == [h.chunk_id for h in exact]
    return sorted(s.chunk.source for s in reader.get_chunks([h.chunk_id for h in keyword]).values())


def test_a_reader_sees_writes_the_bm25_index_on_disk_has_not_committed(
    writer: LocalStore,
) -> None:
    writer.write_document(*_document("c.md", "charlie fees apply"))
    writer.write_document(*_document("b.md", "bravo letters given"))
    writer.delete_documents(["a.md"])
    reader = LocalStore(writer.directory, DIMENSION, TEXT_ANALYZER, read_only=True)
    try:
        assert _found(reader, "fees") == ["c.md"]
        assert _found(reader, "letters") == ["b.md"]
        assert _found(reader, "notices") == [] and _found(reader, "alpha") == []
        assert isinstance(reader.bm25, TailedBm25)
        assert reader.doc_freq(["fee", "given", "alpha"]) == {"fee": 1, "given": 1, "alpha": 0}
        writer.flush()  # the BM25 index on disk has them all: the notes go
        assert writer.records.changed_since(writer.generation) == set()
        assert writer.records.changed_since(writer.generation - 1) is None
        assert _found(reader, "fees") == ["c.md"] and _found(reader, "letters") == ["b.md"]
    finally:
        reader.close()
