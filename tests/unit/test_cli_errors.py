"""The CLI when there is nothing to read or ingest, and when another process writes:
a one-line reason, a non-zero exit, and nothing created."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.test_cli import run

HOLD = textwrap.dedent(
    """
    import sys
    from hierdoc import Index, Settings
    with Index.open(sys.argv[1], Settings(), mode="w"):
        print("holding", flush=True)
        sys.stdin.readline()
    """
)


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen]]:
    """A document to ingest, and a process holding the writer lock of ``tmp_path/index``."""
    (tmp_path / "doc.md").write_text("# Fees\n\nThe Client shall pay the fees.\n")
    holder = _holder(tmp_path / "index")
    yield tmp_path, holder
    _release(holder)
    holder.wait(timeout=60)


def _holder(directory: Path) -> subprocess.Popen:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(directory)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    return holder


def _release(holder: subprocess.Popen) -> None:
    assert holder.stdin is not None
    with contextlib.suppress(BrokenPipeError, ValueError):  # released already
        holder.stdin.write("\n")
        holder.stdin.flush()


@pytest.mark.parametrize(
    "command",
    [["search", "fees"], ["stats"], ["define", "fee"], ["refs", "section-1"], ["show", "x"]],
)
@pytest.mark.parametrize("existing", [True, False])
def test_reading_a_directory_without_an_index_fails_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str], existing: bool
) -> None:
    directory = tmp_path / "typo"
    if existing:
        directory.mkdir()
    code, out, err = run(capsys, "--index", str(directory), *command)
    assert code != 0 and out == ""
    assert f"no index at {directory}: run `hierdoc ingest PATH`" in err
    assert err.strip().count("\n") == 0
    assert (list(directory.iterdir()) == []) if existing else not directory.exists()


def test_serve_on_an_empty_directory_fails_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "--index", str(tmp_path), "serve")
    assert code != 0 and f"no index at {tmp_path}" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("layout", "reason"),
    [
        ({}, "no such file or directory"),
        ({"docs": None}, "no files in this folder"),
        ({"docs/notes.xyz": "x", "docs/data.bin": "y"}, "no supported files (2 skipped"),
    ],
)
def test_ingest_with_nothing_to_ingest_fails_naming_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], layout: dict, reason: str
) -> None:
    for name, text in layout.items():
        path = tmp_path / name
        if text is None:
            path.mkdir()
        else:
            path.parent.mkdir(exist_ok=True)
            path.write_text(text)
    index = tmp_path / "index"
    code, _, err = run(capsys, "--index", str(index), "ingest", str(tmp_path / "docs"))
    assert code != 0
    assert "nothing to ingest" in err and reason in err and "supported: " in err
    assert not index.exists()


def test_ingest_in_which_every_file_fails_exits_non_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "broken.pdf").write_bytes(b"not a pdf")
    index = str(tmp_path / "index")
    code, _, err = run(capsys, "--index", index, "ingest", str(tmp_path / "docs"), "--quiet")
    assert code != 0
    assert "skipped" in err and "broken.pdf" in err
    assert "nothing was ingested: all 1 files failed" in err


def test_a_second_ingest_fails_at_once_naming_the_writer(
    held: tuple[Path, subprocess.Popen], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, holder = held
    code, _, err = run(capsys, "--index", str(folder / "index"), "ingest", str(folder / "doc.md"))
    assert code != 0
    assert f"another hierdoc process is writing this index (pid {holder.pid} since" in err
    assert "wait for it or use --wait" in err


@pytest.mark.slow
def test_ingest_wait_waits_for_the_writer_then_ingests(
    held: tuple[Path, subprocess.Popen], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, holder = held
    threading.Timer(1.5, _release, [holder]).start()
    index, doc = str(folder / "index"), str(folder / "doc.md")
    code, out, err = run(capsys, "--index", index, "ingest", doc, "--wait", "--quiet")
    assert holder.wait(timeout=60) == 0
    assert code == 0, err
    assert f"waiting: another hierdoc process is writing this index (pid {holder.pid}" in err
    assert "1 added" in out


def test_ingest_of_a_symlink_loop_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    loop = tmp_path / "docs"
    loop.symlink_to(loop)
    index = tmp_path / "index"
    code, _, err = run(capsys, "--index", str(index), "ingest", str(loop))
    assert code != 0
    assert "nothing to ingest" in err and "symbolic link loop" in err
    assert "Traceback" not in err and not index.exists()
