"""Reading ahead: the next documents are read while the current ones embed; what fails on
the reading thread fails its document only."""

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from hierdoc import Index, Settings
from hierdoc.models import EmbedInput
from hierdoc.pipeline import ingest, reading
from hierdoc.pipeline.reading import ReadAhead, Ready, Skipped
from tests.hash_embedder import HashEmbedder

ACT = "# Act {n}\n\n## Article 1 Scope\n\nThis Act applies to widgets of kind {n}.\n"


class WaitingEmbedder(HashEmbedder):
    """Embeds the first document only once the second has been chunked (or gives up)."""

    def __init__(self, chunked: threading.Event) -> None:
        self.chunked = chunked
        self.saw_overlap: list[bool] = []

    def embed_documents(self, inputs: Sequence[EmbedInput]) -> list[np.ndarray]:
        if not self.saw_overlap:
            self.saw_overlap.append(self.chunked.wait(timeout=20))
        return super().embed_documents(inputs)


def test_the_next_document_is_chunked_while_one_embeds(tmp_path, monkeypatch) -> None:
    folder = tmp_path / "acts"
    folder.mkdir()
    for n in range(2):
        (folder / f"act-{n}.md").write_text(ACT.format(n=n))
    second = threading.Event()
    chunk_document = reading.chunk_document

    def chunking(document, *args, **kwargs):  # type: ignore[no-untyped-def]
        chunks = chunk_document(document, *args, **kwargs)
        if document.source.endswith("act-1.md"):
            assert threading.current_thread().name == "hierdoc-read-ahead"
            second.set()
        return chunks

    monkeypatch.setattr(reading, "chunk_document", chunking)
    monkeypatch.setattr(ingest, "EMBED_BATCH", 1)
    embedder = WaitingEmbedder(second)
    with Index.open(tmp_path / "index", Settings(), embedder=embedder) as index:
        report = index.ingest([folder])
        assert embedder.saw_overlap == [True]
        assert len(report.added) == 2 and not report.problems
        hit = index.search("widgets of kind 1", mode="keyword", top_k=1).results[0]
        assert hit.source.endswith("act-1.md") and hit.chunk_type == "content"
    with sqlite3.connect(tmp_path / "index" / "records.sqlite") as db:
        stored = db.execute("SELECT sentences FROM chunks WHERE content LIKE '%kind 1.'")
        assert stored.fetchone()[0] is not None  # the offsets from the reading thread


def test_details_failing_fail_only_their_document(tmp_path, monkeypatch) -> None:
    """A fault while a document's details are worked out on the reading thread (its
    sentence offsets) fails that document only; the next run reads it again."""
    folder = tmp_path / "acts"
    folder.mkdir()
    for n in range(3):
        (folder / f"act-{n}.md").write_text(ACT.format(n=n))
    sentence_cuts = reading.sentence_cuts

    def cutting(text):  # type: ignore[no-untyped-def]
        if "kind 1." in text:
            raise ValueError("details broke")
        return sentence_cuts(text)

    monkeypatch.setattr(reading, "sentence_cuts", cutting)
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:
        report = index.ingest([folder])
        assert sorted(Path(s).name for s in report.added) == ["act-0.md", "act-2.md"]
        assert [Path(p.source).name for p in report.problems] == ["act-1.md"]
        assert "details broke" in report.problems[0].reason
        assert index.stats().documents == 2
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:
        monkeypatch.setattr(reading, "sentence_cuts", sentence_cuts)
        again = index.ingest([folder])  # resumable: the failed one is read again
        assert [Path(s).name for s in again.added] == ["act-1.md"]


def test_extraction_failing_keeps_its_document_and_warns(tmp_path, monkeypatch) -> None:
    folder = tmp_path / "acts"
    folder.mkdir()
    for n in range(3):
        (folder / f"act-{n}.md").write_text(ACT.format(n=n))
    extract_document = reading.extract_document

    def extracting(sections, chunks):  # type: ignore[no-untyped-def]
        if chunks[0].source.endswith("act-1.md"):
            raise ValueError("extraction broke")
        return extract_document(sections, chunks)

    monkeypatch.setattr(reading, "extract_document", extracting)
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:
        report = index.ingest([folder])
        assert len(report.added) == 3 and not report.problems
        assert {Path(w.source).name for w in report.warnings} == {"act-1.md"}
        assert all("(ValueError: extraction broke)" in w.reason for w in report.warnings)
        hit = index.search("widgets of kind 1", mode="keyword", top_k=1).results[0]
        assert hit.source.endswith("act-1.md")


def test_read_ahead_keeps_order_and_stops_when_left() -> None:
    posted: list[int] = []

    def produce(post) -> None:  # type: ignore[no-untyped-def]
        for n in range(1000):
            post(Skipped(str(n), n))
            posted.append(n)

    with ReadAhead(produce) as events:
        assert [e.position for e in events] == list(range(1000))
    gate = threading.Event()

    def endless(post) -> None:  # type: ignore[no-untyped-def]
        n = 0
        while True:
            post(Skipped(str(n), n))
            n += 1
            gate.set()

    with pytest.raises(KeyError), ReadAhead(endless, chunks_ahead=1) as events:
        for event in events:
            if event.position == 5:
                raise KeyError("the main thread failed")
    assert gate.is_set()


def test_a_reader_error_reaches_the_main_thread_after_its_events() -> None:
    def produce(post) -> None:  # type: ignore[no-untyped-def]
        post(Skipped("a", 1))
        raise MemoryError("reader died")

    seen = []
    with pytest.raises(MemoryError), ReadAhead(produce) as events:
        seen.extend(events)
    assert [e.source for e in seen if not isinstance(e, Ready)] == ["a"]
