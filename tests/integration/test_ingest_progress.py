"""Ingest progress: chunks embedded with a rate and an ETA, and stage lines for large files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hierdoc import Index, Settings
from hierdoc.cli.ingest_progress import progress_printer, status_line
from hierdoc.pipeline import ingest, progress
from hierdoc.pipeline.ingest import ProgressEvent
from hierdoc.pipeline.progress import CHARS_PER_UNIT, DOCX_XML, PDF_PAGES, Amount, Tracker, Work
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS
from tests.unit.test_ingest_reuse import APPENDED, _document


@pytest.fixture
def document(tmp_path: Path) -> Path:
    path = tmp_path / "docs" / "agreement.md"
    path.parent.mkdir()
    path.write_text(_document())
    return path


def _events(tmp_path: Path, document: Path) -> list[ProgressEvent]:
    events: list[ProgressEvent] = []
    settings = Settings(max_chunk_tokens=64)
    with Index.open(tmp_path / "index", settings, embedder=HashEmbedder()) as index:
        index.ingest([document], progress=events.append)
    return events


def test_embed_events_count_up_to_the_total(tmp_path, document, monkeypatch) -> None:
    monkeypatch.setattr(ingest, "EMBED_SLICE", 5)
    events = _events(tmp_path, document)
    embeds = [e for e in events if e.kind == "embed"]
    assert [e.chunks_done for e in embeds] == [5, 10, 12]
    assert all(e.chunks_known == 12 and e.rate and e.rate > 0 for e in embeds)
    assert embeds[-1].eta == 0
    assert [e.kind for e in events][-1] == "done"
    assert (events[-1].position, events[-1].total, events[-1].chunks_done) == (1, 1, 12)
    assert not [e for e in events if e.kind == "stage"], "a small file has no stage lines"


def test_stage_events_for_a_large_document(tmp_path, document, monkeypatch) -> None:
    monkeypatch.setattr(progress, "LARGE_DOCUMENT_BYTES", 100)
    events = _events(tmp_path, document)
    stages = [(e.stage, e.chunks) for e in events if e.kind == "stage"]
    assert stages == [("converting", 0), ("structure", 0), ("chunks", 12), ("embedding", 12)]


def test_re_used_chunks_count_as_done(tmp_path, document, monkeypatch) -> None:
    monkeypatch.setattr(progress, "LARGE_DOCUMENT_CHUNKS", 10)
    _events(tmp_path, document)
    document.write_text(_document(append=APPENDED))
    events = _events(tmp_path, document)
    embedding = [e for e in events if e.stage == "embedding"]
    assert [(e.chunks, e.reused) for e in embedding] == [(12, 11)]
    assert [e.chunks_done for e in events if e.kind == "embed"] == [11, 12]


def test_events_stay_compatible() -> None:
    event = ProgressEvent("done", "a.md", 1, 2)
    assert (event.kind, event.source, event.position, event.total) == ("done", "a.md", 1, 2)
    assert event.chunks_done == 0 and event.rate is None and event.eta is None


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _tracker(*work: Work) -> tuple[Tracker, Clock, list[ProgressEvent]]:
    clock, events = Clock(), []
    return Tracker(events.append, work, clock=clock), clock, events


def _chunks(count: int, chars: int = 100) -> Amount:
    return Amount(count, count * chars)


def _read_and_embed(
    tracker: Tracker,
    clock: Clock,
    seconds: float,
    position: int,
    chunks: int,
    reused: int = 0,
    chars: int = 100,
) -> None:
    """Read the document at ``position`` (``chunks`` of ``chars`` characters each); embed
    them (but ``reused``) in ``seconds``."""
    tracker.read(_chunks(chunks, chars), position)
    tracker.reused(_chunks(reused, chars), _chunks(chunks, chars), "a.md", position)
    clock.now += seconds
    tracker.embedded_now(_chunks(chunks - reused, chars), seconds, "a.md", position)
    tracker.document("done", "a.md", position)


def test_the_eta_counts_the_documents_not_read_yet_by_their_size() -> None:
    tracker, clock, events = _tracker(*[Work(".md", 1000)] * 4)
    assert tracker.eta() is None, "nothing embedded yet"
    _read_and_embed(tracker, clock, 5, 1, 10)
    assert tracker.rate == 2.0
    assert tracker.chunks_expected() == 40
    assert tracker.eta() == 15.0, "30 chunks expected from 3 unread files, at 2 a second"
    assert events[-1].chunks_expected == 40 and events[-1].eta == 15.0
    _read_and_embed(tracker, clock, 5, 2, 10)
    assert tracker.eta() == 10.0


def test_the_time_before_embedding_began_is_not_in_the_rate() -> None:
    tracker, clock, _ = _tracker(*[Work(".md", 1000)] * 2)
    clock.now += 60  # the first documents read, the model loaded
    _read_and_embed(tracker, clock, 5, 1, 10)
    assert tracker.rate == 2.0 and tracker.eta() == 5.0
    clock.now += 5  # reading the next document while nothing embeds counts
    assert tracker.rate == 1.0


def test_each_kind_of_file_has_its_own_chunks_per_byte() -> None:
    tracker, clock, _ = _tracker(Work(".md", 1000), Work(".pdf", 10_000), Work(".md", 3000))
    _read_and_embed(tracker, clock, 10, 1, 10)
    assert tracker.chunks_expected() == 10 + 100 + 30, "the PDF at the only rate known"
    _read_and_embed(tracker, clock, 10, 2, 20)
    assert tracker.chunks_expected() == 10 + 20 + 30
    assert tracker.eta() == 30 / 1.5


def test_a_pdf_is_sized_by_its_pages_and_weighed_against_bytes_until_one_is_read() -> None:
    pdfs = TESTS / "fixtures" / "pdf"
    assert Work.of_file(pdfs / "federal-register-2020-17221-p2-5.pdf") == Work(PDF_PAGES, 4)
    locked = Work.of_file(pdfs / "password-example.pdf")
    assert locked.kind == ".pdf" and locked.size > 0, "no pages read: its bytes"
    docx = Work.of_file(TESTS / "fixtures" / "docx" / "cloud_agreement.docx")
    assert docx.kind == DOCX_XML and 0 < docx.size < 10_000, "not its 37 kB of styles"
    tracker, clock, _ = _tracker(
        Work(".md", 2 * int(CHARS_PER_UNIT[PDF_PAGES])), Work(PDF_PAGES, 30)
    )
    _read_and_embed(tracker, clock, 10, 1, 4)
    assert tracker.chunks_expected() == 4 + 30 * 2, "two chunks a page, as a page of Markdown"


def test_re_used_chunks_are_not_counted_in_the_rate_or_the_work_left() -> None:
    tracker, clock, _ = _tracker(*[Work(".md", 1000)] * 4)
    _read_and_embed(tracker, clock, 2, 1, 10, reused=8)
    assert tracker.chunks_done == 10 and tracker.embedded.chunks == 2
    assert tracker.rate == 1.0, "2 chunks embedded in 2 seconds, not 10"
    assert tracker.eta() == pytest.approx(6.0), "a fifth of the 30 expected chunks to embed"


def test_skipped_and_failed_documents_leave_the_work() -> None:
    tracker, clock, _ = _tracker(*[Work(".md", 1000)] * 4)
    _read_and_embed(tracker, clock, 5, 1, 10)
    tracker.document("skip", "b.md", 2)
    tracker.document("fail", "c.md", 3)
    tracker.document("fail", "c.md", 3)
    assert tracker.chunks_expected() == 20
    assert tracker.eta() == 5.0


def test_chunks_read_and_not_embedded_are_left_to_do() -> None:
    tracker, clock, _ = _tracker(Work(".md", 1000), Work(".md", 1000))
    tracker.read(_chunks(10), 1)
    tracker.read(_chunks(30), 2)
    tracker.reused(_chunks(0), _chunks(10), "a.md", 1)
    clock.now += 4
    tracker.embedded_now(_chunks(8), 4.0, "a.md", 1)
    assert tracker.eta() == (2 + 30) / 2
    tracker.undo(_chunks(8))
    assert tracker.eta() is None


def test_the_eta_weighs_chunks_by_their_text() -> None:
    tracker, clock, _ = _tracker(Work(".md", 5000), Work(".md", 500))
    _read_and_embed(tracker, clock, 10, 1, 10, chars=500)
    tracker.read(_chunks(10, 50), 2)
    assert tracker.rate == 1.0
    assert tracker.eta() == 1.0, "500 characters left at 500 a second, not 10 chunks at 1"


def test_the_status_line_shows_the_expected_chunks_and_the_eta() -> None:
    tracker, clock, events = _tracker(*[Work(".pdf", 5000)] * 3)
    _read_and_embed(tracker, clock, 20, 1, 40)
    line = status_line(events[-1], 1)
    assert line == "Ingesting 1/3 files  chunks 40/~120  2.0/s  ETA 40s  a.md"


def _lines(err: str) -> list[str]:
    """The lines a terminal shows: what follows the last carriage return of each."""
    return [line.split("\r")[-1].rstrip() for line in err.split("\n")]


def test_the_printer_draws_counts_rate_eta_and_stage_lines(capsys) -> None:
    show = progress_printer(interactive=True)
    source = "/docs/big.pdf"
    show(ProgressEvent("stage", source, 1, 2, stage="chunks", chunks=300))
    show(ProgressEvent("stage", source, 1, 2, stage="embedding", chunks=300, reused=280))
    show(ProgressEvent("embed", source, 1, 2, chunks_done=290, chunks_known=300, rate=4, eta=2.5))
    show(ProgressEvent("done", source, 1, 2, chunks_done=300, chunks_known=300))
    show(ProgressEvent("skip", "/docs/small.md", 2, 2, chunks_done=300, chunks_known=300))
    err = capsys.readouterr().err
    lines = _lines(err)
    assert lines[0] == "big.pdf: 300 chunks"
    assert lines[1] == "big.pdf: embedding 20 chunks (280 re-used)"
    assert "Ingesting 0/2 files  chunks 290/300  4.0/s  ETA 2s  big.pdf" in err
    assert lines[2] == "Ingesting 2/2 files  chunks 300/300  small.md"
    assert err.endswith("\n")


def test_in_a_log_each_line_stands_alone_and_status_lines_are_spaced(capsys) -> None:
    show = progress_printer(interactive=False)
    source = "/docs/big.pdf"
    show(ProgressEvent("stage", source, 1, 2, stage="chunks", chunks=300))
    for done in (100, 200, 290):
        show(ProgressEvent("embed", source, 1, 2, chunks_done=done, chunks_known=300, rate=4))
    show(ProgressEvent("done", source, 1, 2, chunks_done=300, chunks_known=300))
    show(ProgressEvent("skip", "/docs/small.md", 2, 2, chunks_done=300, chunks_known=300))
    err = capsys.readouterr().err
    assert "\r" not in err
    assert err.splitlines() == [
        "big.pdf: 300 chunks",
        "Ingesting 0/2 files  big.pdf",
        "Ingesting 2/2 files  chunks 300/300  small.md",
    ]


@pytest.mark.slow
def test_cli_ingest_prints_stages_and_re_use(tmp_path, document, monkeypatch, capsys) -> None:
    from hierdoc.cli import main

    monkeypatch.setattr(progress, "LARGE_DOCUMENT_CHUNKS", 0)

    def run(*args: str) -> tuple[str, str]:
        try:
            main(["--index", str(tmp_path / "index"), "ingest", *args])
        except SystemExit as exit_info:
            assert not exit_info.code
        captured = capsys.readouterr()
        return captured.out, captured.err

    out, err = run(str(document.parent))
    lines = _lines(err)
    assert any(re.fullmatch(r"agreement\.md: \d+ chunks", line) for line in lines)
    assert any(line.startswith("agreement.md: embedding") for line in lines)
    assert lines[-2].startswith("Ingesting 1/1 files  chunks ")
    assert "chunks re-used" in out
    document.write_text(document.read_text() + "\n" + APPENDED + "\n")
    out, err = run(str(document.parent))
    assert "1 updated" in out and ", 1 embedded)" in out
    assert "re-used)" in err
