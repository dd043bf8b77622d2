"""``hierdoc watch``: a real file watcher (watchfiles) on a temporary folder; the index
follows files created, modified and deleted. Every wait has a timeout, so nothing hangs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from hierdoc import Index, Settings
from hierdoc.cli.watch import DocumentFilter, Round, Watcher
from hierdoc.errors import ProviderError
from hierdoc.store.base import IndexBusyError
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS

TIMEOUT = 30.0


def _until(condition: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


class Running:
    """A Watcher on its own thread, with the rounds it has done."""

    def __init__(self, index: Index, paths: list[str]) -> None:
        self.rounds: list[Round] = []
        self.stop = threading.Event()
        self.errors: list[BaseException] = []
        self.watcher = Watcher(index, paths, self.rounds.append, debounce_ms=100)
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            self.watcher.run(self.stop)
        except BaseException as error:  # surfaced by the test
            self.errors.append(error)

    def wait_rounds(self, count: int) -> Round:
        _until(lambda: len(self.rounds) >= count or bool(self.errors), f"round {count}")
        assert not self.errors, self.errors
        return self.rounds[count - 1]


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Running, Path, Index]]:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fees.md").write_text("# Fees\n\nThe client pays the walnut invoice.\n")
    index = Index.open(tmp_path / "docs" / ".hierdoc", Settings(), embedder=HashEmbedder())
    running = Running(index, [str(docs)])
    running.thread.start()
    yield running, docs, index
    running.stop.set()
    running.thread.join(TIMEOUT)
    assert not running.thread.is_alive(), "the watcher did not stop"
    index.close()


def _sources(index: Index) -> dict[str, str]:
    return {Path(d.source).name: d.content_hash for d in index.documents()}


def test_the_index_follows_created_modified_and_deleted_files(watched) -> None:
    running, docs, index = watched
    first = running.wait_rounds(1)
    assert first.changed == [] and [Path(s).name for s in first.report.added] == ["fees.md"]

    (docs / "terms.md").write_text("# Terms\n\nThe supplier delivers the hazelnut.\n")
    created = running.wait_rounds(2)
    assert [Path(s).name for s in created.report.added] == ["terms.md"]
    assert [Path(s).name for s in created.report.unchanged] == ["fees.md"]
    assert index.search("hazelnut", mode="keyword").results

    before = _sources(index)["fees.md"]
    (docs / "fees.md").write_text("# Fees\n\nThe client pays the almond invoice.\n")
    modified = running.wait_rounds(3)
    assert [Path(s).name for s in modified.report.updated] == ["fees.md"]
    assert _sources(index)["fees.md"] != before
    assert index.search("almond", mode="keyword").results
    assert not index.search("walnut", mode="keyword").results

    (docs / "terms.md").unlink()
    deleted = running.wait_rounds(4)
    assert [Path(s).name for s in deleted.report.removed] == ["terms.md"]
    assert set(_sources(index)) == {"fees.md"}


def test_a_failed_round_is_reported_and_watching_goes_on(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    index = Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder())
    ingest, calls, errors = index.ingest, [], []

    def failing_once(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 2:
            raise ProviderError("the embedding API is down")
        return ingest(*args, **kwargs)

    index.ingest = failing_once  # type: ignore[method-assign]
    running = Running(index, [str(docs)])
    running.watcher.on_error = errors.append
    running.thread.start()
    try:
        running.wait_rounds(1)
        (docs / "a.md").write_text("# A\n\nThe walnut clause.\n")
        _until(lambda: bool(errors), "the failed round")
        (docs / "b.md").write_text("# B\n\nThe hazelnut clause.\n")
        second = running.wait_rounds(2)
        assert sorted(Path(s).name for s in second.report.added) == ["a.md", "b.md"]
    finally:
        running.stop.set()
        running.thread.join(TIMEOUT)
        index.close()
    assert "API is down" in str(errors[0])


def test_the_writer_lock_is_free_between_rounds(watched, tmp_path: Path) -> None:
    """Another writer can take the index while the watcher waits for changes."""
    running, docs, _ = watched
    running.wait_rounds(1)
    other = Index.open(docs / ".hierdoc", Settings(), embedder=HashEmbedder(), mode="w")
    other.close()


def test_the_index_directory_and_other_files_do_not_wake_it(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / ".hierdoc").mkdir(parents=True)
    selected = DocumentFilter([str(docs)], docs / ".hierdoc")
    from watchfiles import Change

    assert selected(Change.added, str(docs / "a.md"))
    assert selected(Change.deleted, str(docs / "sub"))  # a folder: its files may be gone
    assert not selected(Change.modified, str(docs / ".hierdoc" / "records.sqlite"))
    assert not selected(Change.added, str(docs / "a.md.swp"))
    assert not selected(Change.added, str(docs / "photo.jpg"))
    assert not selected(Change.added, str(tmp_path / "elsewhere.md"))


SCRIPT = textwrap.dedent(
    """
    import importlib
    import signal
    import sys
    # A shell without job control starts background jobs (a CI step, `make test &`) with
    # SIGINT ignored, which the child inherits; a terminal's Ctrl-C is what is tested here.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.path.insert(0, sys.argv[3])
    from hash_embedder import HashEmbedder
    from hierdoc.cli import main
    api = importlib.import_module("hierdoc.api")
    real_open = api.Index.open

    def open_with_hashes(path=None, settings=None, embedder=None, **options):
        return real_open(path, settings, HashEmbedder(), **options)

    api.Index.open = staticmethod(open_with_hashes)
    main(["--index", sys.argv[1], "watch", sys.argv[2], "--debounce", "50"])
    """
)


def test_ctrl_c_stops_cleanly_and_releases_the_index(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "fees.md").write_text("# Fees\n\nThe client pays the walnut invoice.\n")
    index_dir = tmp_path / "index"
    tests = str(TESTS)
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(index_dir), str(docs), tests],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    watchdog = threading.Timer(2 * TIMEOUT, process.kill)  # a blocked readline ends with it
    watchdog.start()
    try:
        assert process.stderr is not None
        line = "start"
        while line and "watching for changes" not in line:
            line = process.stderr.readline()
        assert "watching for changes" in line
        (docs / "more.md").write_text("# More\n\nA hazelnut clause.\n")
        assert process.stdout is not None
        printed = [process.stdout.readline(), process.stdout.readline()]  # first round, then ours
        assert "more.md changed: 1 added" in printed[1]
        os.kill(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=TIMEOUT)
    finally:
        watchdog.cancel()
        process.kill()
    assert process.returncode == 0, err
    assert "stopped watching" in err and "Traceback" not in err
    try:
        Index.open(index_dir, Settings(), embedder=HashEmbedder(), mode="w").close()
    except IndexBusyError as busy:  # pragma: no cover - the failure message
        raise AssertionError(f"the lock was not released: {busy}") from None
