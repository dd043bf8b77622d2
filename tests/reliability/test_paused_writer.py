"""Readers while a writer is stopped between two steps of a write: keyword, exact,
semantic and hybrid search each see exactly the documents SQLite has committed."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from .harness import EXIT_OK, Child, marker, open_index, start_ingest, write_corpus

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

MODES = ("keyword", "exact", "semantic", "hybrid")


def _stopped(child: Child, timeout: float = 120) -> None:
    """Wait until the child has stopped itself at its pause point."""
    deadline = time.monotonic() + timeout
    stat = Path(f"/proc/{child.process.pid}/stat")
    while time.monotonic() < deadline:
        if stat.read_text().rsplit(")", 1)[1].split()[0] == "T":
            return
        assert child.process.is_alive(), "the writer ended before its pause point"
        time.sleep(0.02)
    raise AssertionError("the writer never reached its pause point")


def _sources_found(directory: Path, word: str, source: str) -> dict[str, list[str]]:
    """For each mode, the sources of the results for ``word`` (semantic within ``source``:
    the hash embedder ranks by shared words, so the document's vectors are what is tested)."""
    found = {}
    with open_index(directory, "r") as reader:
        for mode in MODES:
            query = f'"{word}"' if mode == "exact" else word
            within = source if mode == "semantic" else None
            results = reader.search(query, mode=mode, top_k=10, source=within).results
            found[mode] = sorted({r.source for r in results if word in r.content})
    return found


def _paused_ingest(directory: Path, folder: Path, point: str) -> Child:
    child = start_ingest(directory, [folder], env={"HIERDOC_PAUSE_AT": point})
    _stopped(child)
    return child


def _resume(child: Child) -> None:
    os.kill(child.process.pid, signal.SIGCONT)
    code, result = child.wait()
    assert code == EXIT_OK, result


@pytest.mark.parametrize("point", ["records-committed:1", "records-committed:3", "bm25-added:2"])
def test_a_paused_writers_committed_documents_are_found_in_every_mode(
    tmp_path: Path, point: str
) -> None:
    folder = tmp_path / "docs"
    corpus = write_corpus(folder, 5)
    index = tmp_path / "index"
    child = _paused_ingest(index, folder, point)
    try:
        with open_index(index, "r") as reader:
            committed = [d.source for d in reader.documents()]
        assert committed, "the writer paused after committing a document"
        for source in committed:
            word = marker(int(Path(source).stem[3:]))
            assert word in corpus[source]
            found = _sources_found(index, word, source)
            assert found == {mode: [source] for mode in MODES}, (source, found)
    finally:
        _resume(child)


def test_a_paused_update_shows_the_new_text_and_not_the_old(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    write_corpus(folder, 5)
    index = tmp_path / "index"
    _resume(start_ingest(index, [folder]))
    changed = folder / "doc0002.md"
    changed.write_text(changed.read_text().replace(marker(2), "zqrenamed"))
    child = _paused_ingest(index, folder, "records-committed:1")
    try:
        source = str(changed)
        assert _sources_found(index, "zqrenamed", source) == {mode: [source] for mode in MODES}
        gone = _sources_found(index, marker(2), source)
        assert gone == {mode: [] for mode in MODES}, gone
    finally:
        _resume(child)
