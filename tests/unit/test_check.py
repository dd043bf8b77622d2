"""Damage to the derived files is detected and repaired from SQLite, never served.

Each case damages a real index (flipped bytes, truncated or deleted files, zeroed rows),
then checks that searches give the results of the intact index (or a clear error), and what
``hierdoc check`` says.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from hierdoc import Index
from hierdoc.cli import main
from hierdoc.config import Settings
from hierdoc.store.local.check import DamagedIndexError
from tests.hash_embedder import HashEmbedder

DOCS = {
    "refunds.md": "# Refunds\n\nRefunds are issued within thirty days of a written request.\n",
    "privacy.md": "# Privacy\n\nPersonal data is erased without undue delay on request.\n",
    "fees.md": "# Fees\n\nLate payment interest accrues at two percent per month.\n",
    "notice.md": "# Notice\n\nNotices are given in writing to the registered address.\n",
}
QUERIES = ("refund request", "erasure of personal data", "late payment interest", "notice")


def _open(directory: Path, mode: str | None = None) -> Index:
    return Index.open(directory, Settings(), embedder=HashEmbedder(), mode=mode)  # type: ignore[arg-type]


def _answers(directory: Path) -> dict[tuple[str, str], list[str]]:
    with _open(directory, "r") as index:
        return {
            (mode, query): [r.chunk_id for r in index.search(query, mode=mode, top_k=4).results]
            for mode in ("semantic", "keyword")
            for query in QUERIES
        }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("check")
    (root / "docs").mkdir()
    for name, text in DOCS.items():
        (root / "docs" / name).write_text(text)
    with _open(root / "index") as index:
        index.ingest([root / "docs"])
    return root / "index", _answers(root / "index")


@pytest.fixture()
def index_copy(built: tuple[Path, dict], tmp_path: Path) -> tuple[Path, dict]:
    directory, answers = built
    copy = tmp_path / "index"
    shutil.copytree(directory, copy)
    return copy, answers


def _zero_vector_rows(directory: Path) -> None:
    for segment in (directory / "vectors").glob("seg-*.npy"):
        matrix = np.load(segment)
        matrix[::2] = 0
        np.save(segment, matrix)


def _reorder_vector_ids(directory: Path) -> None:
    for ids_file in (directory / "vectors").glob("seg-*.ids"):
        with open(ids_file, "r+b") as handle:
            ids = np.load(handle)
            handle.seek(0)
            np.save(handle, ids[::-1])


def _corrupt_bm25_store(directory: Path) -> None:
    """Garbage over the first compressed block of each doc store: tantivy still opens the
    index, and reading a document fails ("literal is out of bounds of the input")."""
    for store in (directory / "bm25").glob("*.store"):
        data = bytearray(store.read_bytes())
        data[:24] = b"\xff" * 24
        store.write_bytes(bytes(data))


DAMAGE = {
    "zeroed vector rows": _zero_vector_rows,
    "reordered vector ids": _reorder_vector_ids,
    "corrupted tantivy store": _corrupt_bm25_store,
}


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_reader_gives_the_intact_results(index_copy: tuple[Path, dict], damage: str) -> None:
    directory, answers = index_copy
    DAMAGE[damage](directory)
    assert _answers(directory) == answers


@pytest.mark.parametrize("damage", DAMAGE)
def test_the_writer_repairs_the_files_and_check_agrees(
    index_copy: tuple[Path, dict], damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    directory, answers = index_copy
    DAMAGE[damage](directory)
    with pytest.raises(SystemExit) as exit_info:
        main(["--index", str(directory), "check"])
    assert exit_info.value.code == 1
    assert ("vectors:" in capsys.readouterr().out) != (damage == "corrupted tantivy store")
    _open(directory, "w").close()
    main(["--index", str(directory), "check"])
    assert "ok: records, BM25 index and vectors agree" in capsys.readouterr().out
    assert _answers(directory) == answers


def test_check_repair_rebuilds_a_bm25_index_that_lost_documents(
    index_copy: tuple[Path, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    """BM25 stamped current while holding fewer documents than SQLite."""
    directory, answers = index_copy
    with _open(directory, "w") as index:
        index.store.bm25.delete_source(next(iter(index.store.document_hashes())))
        index.store.bm25.commit(index.store.generation)
    assert _answers(directory) == answers  # a reader counts, and rebuilds its own copy
    with pytest.raises(SystemExit):
        main(["--index", str(directory), "check"])
    assert "chunk(s) of the records missing" in capsys.readouterr().out
    main(["--index", str(directory), "check", "--repair"])
    out = capsys.readouterr().out
    assert "repaired: bm25" in out and "ok:" in out
    assert _answers(directory) == answers


def test_a_deleted_records_file_is_an_error_and_wipes_nothing(
    index_copy: tuple[Path, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    directory, _ = index_copy
    for path in directory.glob("records.sqlite*"):
        path.unlink()
    derived = sorted(p.name for p in directory.rglob("*") if p.is_file())
    for mode in ("r", "w", None):
        with pytest.raises(DamagedIndexError, match="records.sqlite is missing"):
            _open(directory, mode)
    assert sorted(p.name for p in directory.rglob("*") if p.is_file()) == derived
    with pytest.raises(SystemExit):
        main(["--index", str(directory), "search", "refund"])
    assert "records.sqlite is missing" in capsys.readouterr().err


def _kept_and_counted(directory: Path) -> tuple[int | None, int]:
    import sqlite3

    from hierdoc.store.local.schema import stored_chunk_total

    db = sqlite3.connect(directory / "records.sqlite")
    try:
        return stored_chunk_total(db), db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    finally:
        db.close()


def test_the_kept_chunk_total_follows_every_change(tmp_path: Path) -> None:
    """Opening compares the derived indexes with the row count the triggers keep; it
    follows additions, replacements, deletions (a cascade from documents) and a clear."""
    directory = tmp_path / "index"
    long_text = "# Long\n\n" + "\n\n".join(f"## Part {i}\n\nClause {i} text." for i in range(9))
    with _open(directory) as index:
        from hierdoc.models import TextDocument

        index.ingest_texts([TextDocument(n, t) for n, t in DOCS.items()])
        index.ingest_texts([TextDocument("long.md", long_text)])
        kept, counted = _kept_and_counted(directory)
        assert kept == counted > len(DOCS)
        index.ingest_texts([TextDocument("long.md", "# Long\n\nNow one clause.")])
        index.remove(["fees.md"])
        kept, counted = _kept_and_counted(directory)
        assert kept == counted == len(DOCS)
    with _open(directory, "r") as reader:
        assert reader.store.records.chunk_rows() == len(DOCS)


def test_check_finds_and_repairs_a_wrong_chunk_total(
    index_copy: tuple[Path, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    import sqlite3

    directory, answers = index_copy
    with sqlite3.connect(directory / "records.sqlite") as db:
        db.execute("UPDATE chunk_total SET rows = rows + 5")
    with pytest.raises(SystemExit):
        main(["--index", str(directory), "check"])
    assert f"chunk total: kept as {len(DOCS) + 5} rows" in capsys.readouterr().out
    main(["--index", str(directory), "check", "--repair"])
    assert "ok:" in capsys.readouterr().out
    assert _kept_and_counted(directory) == (len(DOCS), len(DOCS))
    assert _answers(directory) == answers


def test_a_file_without_the_kept_total_is_counted_then_given_one(
    index_copy: tuple[Path, dict],
) -> None:
    """A file written before ``chunk_total``: readers count the rows; the next writer to
    take the lock adds the table and its triggers, filled from a count."""
    import sqlite3

    directory, answers = index_copy
    with sqlite3.connect(directory / "records.sqlite") as db:
        db.execute("DROP TRIGGER chunk_total_up")
        db.execute("DROP TRIGGER chunk_total_down")
        db.execute("DROP TABLE chunk_total")
    assert _answers(directory) == answers
    with _open(directory, "r") as reader:
        assert reader.store.records.chunk_rows() == len(DOCS)
    with _open(directory) as writer, writer.store.lock_writer():
        pass
    assert _kept_and_counted(directory) == (len(DOCS), len(DOCS))
    assert _answers(directory) == answers
