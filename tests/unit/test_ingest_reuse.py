"""Re-ingesting a changed document re-uses the vectors and LLM contexts of unchanged chunks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from hierdoc import Index, Settings
from hierdoc.models import EmbedInput
from tests.fakeapi import FakeAPI
from tests.hash_embedder import HashEmbedder

TOPICS = ("payment", "warranty", "liability", "termination")
INSERTED = (
    "An inserted paragraph about courier deliveries to the warehouse dock, with pallets, "
    "forklifts and a signed receipt from the night shift supervisor on duty."
)
APPENDED = "Late fees accrue at the rate of one percent per month on overdue invoices."


class CountingEmbedder(HashEmbedder):
    """The hash embedder, remembering every input it was asked to embed."""

    def __init__(self) -> None:
        self.inputs: list[EmbedInput] = []

    def embed_documents(self, inputs: Sequence[EmbedInput]) -> list[np.ndarray]:
        self.inputs += inputs
        return super().embed_documents(inputs)


def _paragraph(topic: str, n: int) -> str:
    return (
        f"The {topic} clause {n} requires the parties to keep records of every {topic} "
        "decision for audit purposes, including dates, signatures and the names of the "
        "approving officers of each department."
    )


def _document(insert: bool = False, append: str = "", edit: bool = False) -> str:
    """Four sections of three paragraphs: with 64-token chunks, one chunk per paragraph."""
    parts = ["# Master Agreement", ""]
    for number, topic in enumerate(TOPICS, start=1):
        paragraphs = [_paragraph(topic, n) for n in range(1, 4)]
        if insert and topic == "warranty":
            paragraphs.insert(1, INSERTED)
        if edit and topic == "liability":
            paragraphs[1] = paragraphs[1].replace("audit purposes", "regulatory inspections")
        parts += [f"## Section {number} - {topic.title()}", "", *paragraphs]
    text = "\n\n".join(parts) + "\n"
    return text + (append + "\n" if append else "")


def _open(tmp_path: Path, embedder: HashEmbedder, **settings: object) -> Index:
    return Index.open(tmp_path / "index", Settings(max_chunk_tokens=64, **settings), embedder)


def _vectors_by_content(index: Index, source: str) -> dict[str, bytes]:
    chunks = index.store.chunks_of_source(source)
    vectors = index.store.vectors_of([c.chunk.chunk_id for c in chunks])
    return {c.chunk.content: vectors[c.chunk.chunk_id].tobytes() for c in chunks}


def _semantic(index: Index, query: str) -> dict[str, float]:
    """Every chunk's semantic score for ``query``, by content."""
    results = index.search(query, mode="semantic", top_k=50).results
    return {r.content: r.score for r in results}


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "agreement.md"
    path.write_text(_document())
    return path


def test_appending_a_line_embeds_only_the_changed_chunk(tmp_path, document) -> None:
    embedder = CountingEmbedder()
    with _open(tmp_path, embedder) as index:
        first = index.ingest([document])
        assert first.chunks_embedded == first.chunks_written == 12 and first.chunks_reused == 0
        before = _vectors_by_content(index, str(document))
        found_before = _semantic(index, "liability records audit")

        document.write_text(_document(append=APPENDED))
        embedder.inputs.clear()
        report = index.ingest([document])

        assert report.updated == [str(document)]
        assert (report.chunks_reused, report.chunks_embedded, report.chunks_written) == (11, 1, 12)
        assert report.texts_embedded == 1
        assert [APPENDED in i.text for i in embedder.inputs] == [True]
        after = _vectors_by_content(index, str(document))
        unchanged = set(before) & set(after)
        assert len(unchanged) == 11
        assert all(after[content] == before[content] for content in unchanged), "byte-identical"
        found_after = _semantic(index, "liability records audit")
        assert {c: found_after[c] for c in unchanged} == {c: found_before[c] for c in unchanged}
        assert APPENDED in index.search("late fees overdue invoices", top_k=1).results[0].content
        data = report.to_dict()
        assert data["chunks_reused"] == 11 and data["chunks_embedded"] == 1


def test_inserting_a_paragraph_keeps_the_vectors_of_the_chunks_after_it(tmp_path, document):
    embedder = CountingEmbedder()
    with _open(tmp_path, embedder) as index:
        index.ingest([document])
        old = {c.chunk.content: c.chunk for c in index.store.chunks_of_source(str(document))}
        before = _vectors_by_content(index, str(document))

        document.write_text(_document(insert=True))
        embedder.inputs.clear()
        report = index.ingest([document])

        assert (report.chunks_reused, report.chunks_embedded) == (12, 1)
        assert [i.text for i in embedder.inputs] == [INSERTED]
        chunks = index.store.chunks_of_source(str(document))
        shifted = [c.chunk for c in chunks if c.chunk.content in old]
        moved = [c for c in shifted if c.chunk_id != old[c.content].chunk_id]
        assert moved, "the ids after the inserted paragraph shift"
        assert all(c.ordinal == old[c.content].ordinal + 1 for c in moved)
        after = _vectors_by_content(index, str(document))
        assert all(after[c.content] == before[c.content] for c in shifted)


def test_force_embeds_everything(tmp_path, document) -> None:
    embedder = CountingEmbedder()
    with _open(tmp_path, embedder) as index:
        index.ingest([document])
        document.write_text(_document(append=APPENDED))
        embedder.inputs.clear()
        report = index.ingest([document], force=True)
        assert (report.chunks_reused, report.chunks_embedded) == (0, 12)
        assert len(embedder.inputs) == 12


def test_a_changed_context_is_embedded_again(tmp_path, document) -> None:
    """Same content under a renamed heading: the context the embedder reads changed."""
    embedder = CountingEmbedder()
    with _open(tmp_path, embedder) as index:
        index.ingest([document])
        document.write_text(_document().replace("Section 4 - Termination", "Section 4 - Ending"))
        report = index.ingest([document])
        assert (report.chunks_reused, report.chunks_embedded) == (9, 3)


def test_text_documents_re_use_too(tmp_path) -> None:
    from hierdoc import TextDocument

    embedder = CountingEmbedder()
    texts = [_paragraph("payment", n) for n in range(1, 5)]
    with _open(tmp_path, embedder) as index:
        index.ingest_texts([TextDocument("notes", "\n\n".join(texts), chunks=texts)])
        changed = [*texts[:3], texts[3] + " Amended."]
        report = index.ingest_texts([TextDocument("notes", "\n\n".join(changed), chunks=changed)])
        assert (report.chunks_reused, report.chunks_embedded) == (3, 1)


@pytest.fixture
def llm_keys(monkeypatch) -> None:
    pytest.importorskip("anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-reuse-test-key")


def test_llm_contexts_of_unchanged_chunks_are_re_used(
    tmp_path, document, fake_api: FakeAPI, llm_keys
) -> None:
    model = {"provider": "anthropic", "name": "claude-haiku-4-5", "base_url": fake_api.url}
    embedder = CountingEmbedder()
    with _open(tmp_path, embedder, context_model=model) as index:
        index.ingest([document])
        assert len(fake_api.calls("/v1/messages")) == 12
        old = {c.chunk.content: c for c in index.store.chunks_of_source(str(document))}
        assert {c.context_source for c in old.values()} == {"llm"}

        document.write_text(_document(edit=True))
        fake_api.reset()
        embedder.inputs.clear()
        report = index.ingest([document])
        calls = fake_api.calls("/v1/messages")
        assert len(calls) == 1, "the LLM situates the edited chunk only"
        assert "regulatory inspections" in str(calls[0].body)
        assert (report.contexts_reused, report.chunks_reused, report.chunks_embedded) == (11, 11, 1)
        for stored in index.store.chunks_of_source(str(document)):
            assert stored.context_source == "llm"
            if stored.chunk.content in old:
                assert stored.context == old[stored.chunk.content].context

        fake_api.reset()
        forced = index.ingest([document], force=True)
        assert forced.contexts_reused == 0
        assert len(fake_api.calls("/v1/messages")) == 11, "--force situates afresh, cache aside"
