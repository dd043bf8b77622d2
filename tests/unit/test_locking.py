"""One writer per index, readers that never write: the writer lock, read-only opening,
and an index whose BM25 and vectors lag SQLite after a writer was killed."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from hierdoc import Index, Settings
from hierdoc.errors import InputError, NotFoundError
from hierdoc.pipeline.ingest import TextDocument
from hierdoc.store.base import IndexBusyError
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS

PRELUDE = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[2])
    from hash_embedder import HashEmbedder
    from hierdoc import Index, Settings
    from hierdoc.pipeline.ingest import TextDocument
    directory = Path(sys.argv[1])
    """
)
HOLD = PRELUDE + textwrap.dedent(
    """
    with Index.open(directory, Settings(), embedder=HashEmbedder(), mode="w"):
        print("holding", flush=True)
        sys.stdin.readline()
    """
)
KILLED_IN_FLUSH = PRELUDE + textwrap.dedent(
    """
    from hierdoc.store.local.store import LocalStore
    LocalStore._flush = lambda self: os.kill(os.getpid(), signal.SIGKILL)
    with Index.open(directory, Settings(), embedder=HashEmbedder(), mode="w") as index:
        text = "# Escrow\\n\\nThe escrow agent holds the walnut deposit."
        index.ingest_texts([TextDocument("first.md", text)])
    """
)
INGEST_MANY = PRELUDE + textwrap.dedent(
    """
    with Index.open(directory, Settings(), embedder=HashEmbedder(), mode="w") as index:
        for n in range(1, int(sys.argv[3])):
            text = f"# Clause {n}\\n\\nThe escrow agent holds deposit number{n}."
            index.ingest_texts([TextDocument(f"doc{n}.md", text)])
    """
)
INGEST_SECOND = PRELUDE + textwrap.dedent(
    """
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as index:
        text = "# Pledge\\n\\nThe pledgor grants a security interest in the cobalt shares."
        index.ingest_texts([TextDocument("second.md", text)])
    """
)


def _script(code: str, directory: Path, *args: str, **kwargs: object) -> subprocess.Popen:
    command = [sys.executable, "-c", code, str(directory), str(TESTS), *args]
    return subprocess.Popen(command, text=True, **kwargs)  # type: ignore[call-overload]


def _open(directory: Path, **kwargs: object) -> Index:
    return Index.open(directory, Settings(), embedder=HashEmbedder(), **kwargs)  # type: ignore[arg-type]


def _build(directory: Path, count: int = 2) -> None:
    with _open(directory) as index:
        index.ingest_texts(
            TextDocument(f"doc{n}.md", f"# Article {n}\n\nThe escrow agent holds deposit {n}.")
            for n in range(count)
        )


def _snapshot(directory: Path) -> dict[str, tuple[int, str]]:
    """Every file with its mtime and digest, leaving out SQLite's shared-memory side files."""
    return {
        str(path.relative_to(directory)): (
            path.stat().st_mtime_ns,
            hashlib.sha256(path.read_bytes()).hexdigest(),
        )
        for path in sorted(directory.rglob("*"))
        if path.is_file() and not path.name.endswith(("-wal", "-shm"))
    }


def _read_everything(index: Index) -> None:
    for mode in ("hybrid", "keyword", "semantic", "exact"):
        assert index.search('"escrow agent"', mode=mode).results
    index.stats()
    index.show("article-1")
    index.define("escrow")
    index.references("article-1")
    assert index.documents()


def test_a_second_writer_fails_at_once_naming_the_holder(tmp_path: Path) -> None:
    directory = tmp_path / "index"
    _build(directory)
    holder = _script(HOLD, directory, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(IndexBusyError) as busy:
            _open(directory, mode="w")
        message = str(busy.value)
        assert f"another hierdoc process is writing this index (pid {holder.pid} since" in message
        assert "use --wait" in message
        with _open(directory) as index:  # the default mode takes the lock to ingest
            with pytest.raises(IndexBusyError):
                index.ingest_texts([TextDocument("x.md", "# X\n\nText.")])
            assert len(index.search("escrow", mode="keyword").results) == 2  # reads go on
    finally:
        holder.communicate("\n", timeout=60)
    assert holder.returncode == 0
    with _open(directory, mode="w") as index:  # free again
        index.ingest_texts([TextDocument("x.md", "# X\n\nText.")])


def test_a_waiting_writer_goes_on_when_the_holder_finishes(tmp_path: Path) -> None:
    directory = tmp_path / "index"
    _build(directory)
    holder = _script(HOLD, directory, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert holder.stdout.readline().strip() == "holding"

    def release() -> None:
        holder.stdin.write("\n")
        holder.stdin.flush()

    threading.Timer(1.0, release).start()
    with _open(directory, mode="w", wait=True) as index:
        assert holder.poll() is not None or holder.wait(timeout=60) == 0
        index.ingest_texts([TextDocument("late.md", "# Late\n\nThe late escrow.")])
    holder.wait(timeout=60)
    with _open(directory, mode="r") as reader:
        assert {d.source for d in reader.documents()} == {"doc0.md", "doc1.md", "late.md"}


@pytest.mark.slow
def test_readers_search_while_a_writer_process_ingests(tmp_path: Path) -> None:
    directory = tmp_path / "index"
    _build(directory, count=1)
    reader = _open(directory, mode="r")
    writer = _script(INGEST_MANY, directory, "25")
    errors: list[BaseException] = []
    searches = 0
    while writer.poll() is None or searches < 5:
        try:
            mode = ("hybrid", "keyword", "semantic", "exact")[searches % 4]
            reader.search("escrow agent deposit", mode=mode, top_k=50)
            with _open(directory, mode="r") as fresh:  # a CLI search opened mid-ingest
                fresh.search("escrow agent deposit", mode=mode, top_k=50)
        except BaseException as error:  # noqa: BLE001 - asserted below
            errors.append(error)
            break
        searches += 1
    assert writer.wait(timeout=300) == 0
    assert not errors, errors
    found = {r.source for r in reader.search("deposit", mode="keyword", top_k=100).results}
    assert found == {"doc0.md"} | {f"doc{n}.md" for n in range(1, 25)}
    reader.close()


def test_reads_leave_the_index_directory_unchanged(tmp_path: Path) -> None:
    directory = tmp_path / "index"
    _build(directory)
    before = _snapshot(directory)
    with _open(directory, mode="r") as reader:
        _read_everything(reader)
        with pytest.raises(InputError, match="open for reading"):
            reader.ingest_texts([TextDocument("x.md", "# X\n\nText.")])
    assert _snapshot(directory) == before


def test_a_reader_of_a_lagging_index_rebuilds_in_memory_and_writes_nothing(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "index"
    _build(directory)
    (directory / "bm25" / "hierdoc-bm25.json").unlink()  # BM25 no longer known current
    (directory / "vectors" / "manifest.json").unlink()
    before = _snapshot(directory)
    with _open(directory, mode="r") as reader:
        _read_everything(reader)
        keyword = reader.search("deposit", mode="keyword").results
        assert {r.source for r in keyword} == {"doc0.md", "doc1.md"}
    assert _snapshot(directory) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="permissions do not stop root")
def test_search_works_on_a_read_only_directory(tmp_path: Path) -> None:
    directory = tmp_path / "index"
    _build(directory)
    paths = [directory, *directory.rglob("*")]
    for path in paths:
        path.chmod(path.stat().st_mode & ~0o222)
    try:
        with _open(directory, mode="r") as reader:
            _read_everything(reader)
    finally:
        for path in paths:
            path.chmod(path.stat().st_mode | 0o200)


def test_opening_no_index_for_reading_creates_nothing(tmp_path: Path) -> None:
    missing, empty = tmp_path / "missing", tmp_path / "empty"
    empty.mkdir()
    for directory in (missing, empty):
        with pytest.raises(NotFoundError, match=f"no index at {directory}: run `hierdoc ingest"):
            _open(directory, mode="r")
    assert not missing.exists() and not any(empty.iterdir())


def test_a_default_open_of_no_index_reads_nothing_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "mistyped"
    with _open(missing) as index:
        for read in (lambda: index.search("escrow"), index.stats, index.documents):
            with pytest.raises(NotFoundError, match=f"no index at {missing}: run `hierdoc ingest"):
                read()
        with pytest.raises(NotFoundError, match=f"no index at {missing}"):
            index.remove("first.md")
    assert not missing.exists()


def test_the_first_ingest_creates_the_index(tmp_path: Path) -> None:
    directory = tmp_path / "new" / "index"
    with _open(directory) as index:
        assert not directory.exists()
        text = "# Escrow\n\nThe escrow agent holds the walnut deposit."
        index.ingest_texts([TextDocument("first.md", text)])
        assert [r.source for r in index.search("walnut deposit").results] == ["first.md"]
    assert (directory / "records.sqlite").is_file()
    with _open(directory, mode="r") as reader:
        assert reader.stats().documents == 1


def test_killed_writer_then_reader_then_writer_leaves_every_index_complete(
    tmp_path: Path,
) -> None:
    """BM25 and vectors lag SQLite after a kill -9 in the flush; a long-lived reader
    opens; another process ingests; both documents must be found by every modality."""
    directory = tmp_path / "index"
    _open(directory).close()
    killed = _script(KILLED_IN_FLUSH, directory)
    assert killed.wait(timeout=120) == -9
    reader = _open(directory, mode="r")  # the MCP server's long-lived index
    assert [r.source for r in reader.search("walnut", mode="keyword").results] == ["first.md"]
    second = _script(INGEST_SECOND, directory)
    assert second.wait(timeout=120) == 0
    for index in (reader, _open(directory, mode="r")):
        keyword = {r.source for r in index.search("walnut cobalt", mode="keyword").results}
        semantic = {r.source for r in index.search("walnut cobalt", mode="semantic").results}
        assert keyword == semantic == {"first.md", "second.md"}
        index.close()
    with _open(directory) as index:
        store = index.store
        assert store.bm25.generation == store.generation  # type: ignore[attr-defined]
        assert store.bm25.count() == 2  # type: ignore[attr-defined]
        assert len(store.vectors) == 2  # type: ignore[attr-defined]
        assert not store.bm25.in_memory  # type: ignore[attr-defined]
