"""Damage inside records.sqlite that SQLite's own integrity check does not see: a flipped
byte that makes a chunk's text invalid UTF-8. ``hierdoc check`` reports it (exit 1) and
says that ``--repair`` cannot fix it and what to do; a search that reads the chunk fails
with a project error that names the damage and quotes no stored text."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hierdoc.cli import main
from hierdoc.errors import StoreError
from hierdoc.store.local.store import RECORDS_FILE

from .harness import marker, open_index, write_corpus

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

SENTENCE = f"The {marker(2)} party pays fees v0."


def _damaged_index(tmp_path: Path) -> Path:
    write_corpus(tmp_path / "docs", 5)
    index = tmp_path / "index"
    with open_index(index) as writer:
        writer.ingest([tmp_path / "docs"])
    path = index / RECORDS_FILE
    data = bytearray(path.read_bytes())
    found = data.find(SENTENCE.encode())
    assert found > 0, "the chunk text is stored as it was written"
    while found > 0:
        data[found + SENTENCE.index("party") + 2] = 0xFF  # not UTF-8 anywhere
        found = data.find(SENTENCE.encode(), found + 1)
    path.write_bytes(bytes(data))
    with sqlite3.connect(path) as db:  # SQLite's check passes: it does not decode text
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    return index


def _check(index: Path, *options: str) -> int:
    """``hierdoc check`` on ``index``: its exit status."""
    try:
        main(["--index", str(index), "check", *options])
    except SystemExit as exit_:
        return int(exit_.code or 0)
    return 0


def test_check_reports_text_that_is_not_utf8_and_says_repair_cannot_fix_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = _damaged_index(tmp_path)
    for options in ((), ("--repair",)):
        code = _check(index, *options)
        out, err = capsys.readouterr()
        assert code == 1, (options, out, err)
        assert "chunks.content is not valid UTF-8: 1 row(s)" in out
        assert "ok:" not in out and "repaired" not in out
        assert "--repair cannot fix records.sqlite" in err and "ingest PATH --force" in err
        assert "party" not in out + err


def test_a_search_reading_the_damaged_text_names_the_damage_not_the_text(tmp_path: Path) -> None:
    index = _damaged_index(tmp_path)
    failed = []
    with open_index(index, "r") as reader:
        queries = (("exact", f'"{marker(2)}"'), ("keyword", marker(2)), ("hybrid", "fees"))
        for mode, query in queries:
            with pytest.raises(StoreError) as error:
                reader.search(query, mode=mode, top_k=10)
            failed.append(str(error.value))
    for message in failed:
        assert "not UTF-8 (column content)" in message and "hierdoc check" in message
        assert "party" not in message and "pays fees" not in message


@pytest.mark.parametrize(
    ("column", "value", "found"),
    [
        ("section_path", '["s-1"', "chunks.section_path is not valid JSON"),
        ("sentences", "[99999]", "chunks.sentences holds offsets outside the chunk's text"),
        ("overlap_chars", "-4", "chunks.overlap_chars is outside the chunk's text"),
    ],
)
def test_check_reports_fields_a_search_would_misread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], column: str, value: str, found: str
) -> None:
    write_corpus(tmp_path / "docs", 3)
    index = tmp_path / "index"
    with open_index(index) as writer:
        writer.ingest([tmp_path / "docs"])
    with sqlite3.connect(index / RECORDS_FILE) as db:
        db.execute(f"UPDATE chunks SET {column} = ? WHERE content LIKE ?", (value, "%pays fees%"))
    assert _check(index) == 1
    out, err = capsys.readouterr()
    assert f"records: {found}: 3 row(s)" in out and "--repair cannot fix" in err
    if column == "section_path":
        with open_index(index, "r") as reader, pytest.raises(StoreError, match="not JSON"):
            reader.search(marker(1), mode="keyword", top_k=10)


def test_check_says_what_to_do_with_a_records_file_that_is_not_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_corpus(tmp_path / "docs", 2)
    index = tmp_path / "index"
    with open_index(index) as writer:
        writer.ingest([tmp_path / "docs"])
    (index / RECORDS_FILE).write_bytes(bytes(range(256)) * 64)
    assert _check(index, "--repair") == 1
    out, err = capsys.readouterr()
    assert "records: records.sqlite is damaged (SQLite: file is not a database)" in out
    assert "--repair cannot fix records.sqlite" in err
