"""``ingest --force`` rebuilds beside the live index and swaps it in: readers see the whole
old index until the new one is complete, then the whole new one; a rebuild that stops
leaves the old index as it was, and its leftovers are deleted by the next writer."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.cli.check import run_check
from hierdoc.store.base import DimensionError
from hierdoc.store.local.builds import POINTER, live_data
from hierdoc.store.local.check import DamagedIndexError
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS

OLD, NEW = 40, 48
"""Documents before the rebuild, and in the folder it reads."""


def _write_corpus(folder: Path, count: int, version: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("doc*.md"):
        old.unlink()
    for n in range(count):
        text = f"# Agreement {n}\n\n## Article 1\n\nLiability is capped at {n} euros ({version}).\n"
        (folder / f"doc{n:03d}.md").write_text(text)


class OtherModel(HashEmbedder):
    name, dimension = "test:other", 16


def _open(directory: Path, **options) -> Index:
    return Index.open(directory, Settings(), embedder=HashEmbedder(), **options)


def _hashes(index: Index) -> dict[str, str]:
    return {d.source: d.content_hash for d in index.store.documents()}


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """An index of OLD documents, and their folder rewritten with NEW others."""
    folder, directory = tmp_path / "docs", tmp_path / "index"
    _write_corpus(folder, OLD, "old")
    with _open(directory) as index:
        index.ingest([folder])
        old = _hashes(index)
    _write_corpus(folder, NEW, "new")
    return folder, directory, old


def _builds(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.glob("build-*"))


SLOW_WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    sys.path.insert(0, sys.argv[3])
    from hash_embedder import HashEmbedder
    from hierdoc import Index, Settings, TextDocument

    class SlowEmbedder(HashEmbedder):
        def embed_documents(self, inputs):
            time.sleep(0.4)
            return super().embed_documents(inputs)

    with Index.open(Path(sys.argv[1]), Settings(), embedder=SlowEmbedder(), rebuild=True) as index:
        index.ingest([Path(sys.argv[2])], force=True)
    """
)


def test_readers_see_the_old_index_whole_until_the_swap_then_the_new(built) -> None:
    folder, directory, old = built
    kept = _open(directory, mode="r")  # a long-lived reader (a server), and one that may write
    writable = _open(directory)
    writer = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITER, str(directory), str(folder), str(TESTS)]
    )
    seen: list[tuple[str, bool]] = []
    try:
        while writer.poll() is None:
            building = bool(_builds(directory)) and not (directory / POINTER).exists()
            for reader in (kept, writable):
                documents = _hashes(reader)
                stats = reader.stats().documents
                hits = reader.search("liability capped euros", mode="keyword", top_k=100)
                sources = {r.source for r in hits.results}
                state = "old" if documents == old else "new"
                assert state == "old" or len(documents) == NEW
                assert stats in (OLD, NEW) and len(sources) in (OLD, NEW)
                seen.append((state, building))
            with _open(directory, mode="r") as fresh:  # a new process: `hierdoc ls`
                assert len(fresh.store.documents()) in (OLD, NEW)
            time.sleep(0.02)
        assert writer.wait() == 0
        new = _hashes(kept)
        assert len(new) == NEW and not set(new.items()) & set(old.items())
        assert _hashes(writable) == new
        found = kept.search("liability capped euros", mode="keyword", top_k=100).results
        assert len(found) == NEW and all("(new)" in r.content for r in found)
    finally:
        writer.kill()
        kept.close()
        writable.close()
    states = [state for state, _ in seen]
    assert states == sorted(states, key=lambda s: s == "new")  # old, then new, never back
    assert ("old", True) in seen  # some reads were made while the rebuild was under way
    assert _builds(directory) == [live_data(directory)[0].name]
    assert not (directory / "records.sqlite").exists() and not (directory / "bm25").exists()
    assert run_check(directory, repair=False).ok


class _Interrupt(KeyboardInterrupt):
    pass


def _interrupt_after(documents: int):
    def progress(event) -> None:
        if event.kind == "done" and event.position >= documents:
            raise _Interrupt

    return progress


def test_an_interrupted_forced_ingest_keeps_the_old_index(built) -> None:
    folder, directory, old = built
    with _open(directory) as index:
        seen = []

        def progress(event) -> None:
            seen.append(index.store.generation)
            _interrupt_after(10)(event)

        with pytest.raises(_Interrupt):
            index.ingest([folder], force=True, progress=progress)
        assert _hashes(index) == old  # the writer itself is back on the live index
        assert index.store.generation > max(seen)  # no generation of the build comes back
        assert len(index.search("liability", mode="keyword", top_k=100).results) == OLD
    assert _builds(directory) == [] and not (directory / POINTER).exists()
    with _open(directory, mode="r") as reader:
        assert _hashes(reader) == old
    assert run_check(directory, repair=False).ok


@pytest.mark.parametrize("model", [HashEmbedder, OtherModel])
def test_a_rebuild_opened_and_not_finished_keeps_the_old_index(built, model) -> None:
    """`ingest --force` interrupted (Ctrl-C), with the same model or another one."""
    folder, directory, old = built
    rebuilding = Index.open(directory, Settings(), embedder=model(), rebuild=True)
    with pytest.raises(_Interrupt), rebuilding as index:
        assert index.store.documents() == []  # the writer writes into the new index
        with _open(directory, mode="r") as reader:
            assert _hashes(reader) == old
        index.ingest([folder], force=True, progress=_interrupt_after(5))
    with _open(directory, mode="r") as reader:
        assert _hashes(reader) == old
        assert reader.stats().embedding_model == HashEmbedder.name
        assert len(reader.search("liability", mode="hybrid", top_k=100).results) == OLD
    assert _builds(directory) == [] and run_check(directory, repair=False).ok
    with Index.open(directory, Settings(), embedder=model(), rebuild=True) as index:
        index.ingest([folder])
    with Index.open(directory, Settings(), embedder=model(), mode="r") as reader:
        assert len(reader.store.documents()) == NEW
        assert reader.stats().embedding_model == model.name
    assert run_check(directory, repair=False).ok


def test_a_reader_of_another_model_is_told_when_the_index_is_rebuilt(built) -> None:
    folder, directory, _ = built
    with _open(directory, mode="r") as reader:
        assert len(reader.store.documents()) == OLD
        with Index.open(directory, Settings(), embedder=OtherModel(), rebuild=True) as index:
            index.ingest([folder])
        with pytest.raises(DimensionError, match="16-dimensional vectors"):
            reader.search("liability")


def test_each_rebuild_deletes_the_data_it_replaces_and_a_stopped_one(built, tmp_path) -> None:
    folder, directory, _ = built
    opened_before = _open(directory)  # writes, after the rebuilds, into the data now live
    for _ in range(2):
        with _open(directory) as index:
            index.ingest([folder], force=True)
        assert len(_builds(directory)) == 1 and live_data(directory)[0].is_dir()
    opened_before.ingest_texts([TextDocument("late.md", "# Late\n\nLiability is unlimited.")])
    opened_before.close()
    assert run_check(directory, repair=False).ok
    live = _builds(directory)
    stray = directory / "build-0123456789ab"  # as a rebuild killed before its swap leaves it
    (stray / "bm25").mkdir(parents=True)
    (stray / "records.sqlite").write_bytes(b"partial")
    with _open(directory, mode="r") as reader:  # readers ignore it
        assert len(reader.store.documents()) == NEW + 1
    with _open(directory) as index:
        index.ingest([folder])  # the next writer deletes it
    assert _builds(directory) == live
    assert run_check(directory, repair=False).ok


def test_a_forced_ingest_of_an_empty_index_writes_in_place(tmp_path: Path) -> None:
    folder, directory = tmp_path / "docs", tmp_path / "index"
    _write_corpus(folder, 3, "new")
    with _open(directory, rebuild=True) as index:
        index.ingest([folder], force=True)
    assert (directory / "records.sqlite").exists() and _builds(directory) == []


def test_threads_of_one_reader_follow_the_swap(built) -> None:
    folder, directory, old = built
    reader = _open(directory, mode="r")
    errors: list[BaseException] = []
    done = threading.Event()

    def search() -> None:
        while not done.is_set():
            try:
                found = reader.search("liability capped", mode="hybrid", top_k=100).results
                assert len({r.source for r in found}) in (OLD, NEW)
            except BaseException as error:  # noqa: BLE001 - asserted below
                errors.append(error)
                return

    threads = [threading.Thread(target=search) for _ in range(3)]
    for thread in threads:
        thread.start()
    try:
        with _open(directory) as index:
            index.ingest([folder], force=True)
        time.sleep(0.3)
    finally:
        done.set()
        for thread in threads:
            thread.join()
    assert not errors, errors[0]
    assert len(reader.store.documents()) == NEW
    reader.close()


@pytest.mark.slow
def test_cli_readers_during_ingest_force_see_every_document(tmp_path: Path, capsys) -> None:
    """`hierdoc ingest --force` of a small real corpus (real model) in another process while
    `hierdoc ls`, `search` and `stats` run: each shows the old documents or the new ones."""
    from hierdoc.cli import main

    fixtures = TESTS / "fixtures"
    corpus, index = tmp_path / "docs", str(tmp_path / "index")
    corpus.mkdir()
    for path in [*fixtures.glob("acronyms/*.md"), *fixtures.glob("docx/*.docx")]:
        (corpus / path.name).write_bytes(path.read_bytes())

    def cli(*args: str) -> str:
        try:
            main(["--index", index, *args])
        except SystemExit as stop:
            assert not stop.code, capsys.readouterr().err
        return capsys.readouterr().out

    def listing() -> dict[str, tuple]:
        listed = json.loads(cli("ls", "--json"))
        return {d["source"]: (d["chars"], d["ingested_at"]) for d in listed}

    cli("ingest", str(corpus), "--quiet")

    old = listing()
    time.sleep(1.1)  # ingested_at, to the second, tells the new documents from the old
    (corpus / "automatic_enrollment.md").write_text("# Automatic enrollment\n\nRevised.\n")
    (corpus / "escrow.md").write_bytes((fixtures / "definitions/escrow_agreement.md").read_bytes())
    command = "from hierdoc.cli import main; main()"
    writer = subprocess.Popen(
        [sys.executable, "-c", command, "--index", index, "ingest", str(corpus), "--force"],
        stderr=subprocess.DEVNULL,
    )
    states = []
    try:
        while writer.poll() is None:
            listed = listing()
            stats = json.loads(cli("stats", "--json"))["documents"]
            found = json.loads(cli("search", "notice deadline", "--json"))["results"]
            new = len(listed) == len(old) + 1 and not set(listed.items()) & set(old.items())
            assert listed == old or new
            assert stats in (len(old), len(old) + 1) and found
            states.append("old" if listed == old else "new")
    finally:
        writer.wait()
    assert writer.returncode == 0
    assert len(listing()) == len(old) + 1
    assert states == sorted(states, key=lambda s: s == "new") and "old" in states


def test_contexts_an_llm_wrote_for_a_stopped_rebuild_are_kept(built) -> None:
    _, directory, _ = built
    with _open(directory) as index:
        store = index.store
        with store.lock_writer():
            assert store.begin_rebuild()
            store.context_cache.put("m", "p1", "doc", "dropped", "paid for")
            store.context_cache.put("m", "p1", "doc", "killed", "paid for too")
            killed = directory / "build-0123456789ab"  # the files a kill -9 leaves
            shutil.copytree(store.data, killed)  # type: ignore[attr-defined]
            store.context_cache.put("m", "p1", "doc", "killed", "")
            store.abandon_rebuild()
        assert store.context_cache.get("m", "p1", "doc", "dropped") == "paid for"
    with _open(directory, mode="w") as index:  # the next writer keeps them, deletes the rest
        assert index.store.context_cache.get("m", "p1", "doc", "killed") == "paid for too"
    assert _builds(directory) == []


def test_a_pointer_that_names_no_build_is_a_clear_error(built) -> None:
    _, directory, _ = built
    (directory / POINTER).write_text("../elsewhere\n")
    with pytest.raises(DamagedIndexError, match="not a build directory"):
        _open(directory, mode="r")
    with pytest.raises(DamagedIndexError):
        _open(directory)
