"""A read-only index and a full disk: correct results or a clear error.

Both need mounts (a read-only bind mount, a small tmpfs), so they run as root where the
machine allows mounting, and are skipped otherwise, saying why. (chmod would not do:
root ignores file permissions.)
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hierdoc.errors import HierdocError

from .harness import (
    EXIT_BUG,
    EXIT_OK,
    Figures,
    marker,
    open_index,
    search_problems,
    start_ingest,
    write_corpus,
)

pytestmark = [pytest.mark.reliability, pytest.mark.slow]


def _mount(*args: str) -> None:
    done = subprocess.run(["mount", *args], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here ({' '.join(args)}): {done.stderr.strip()}")


@pytest.fixture()
def read_only_copy(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """An index built in a folder, then seen through a read-only bind mount."""
    source, view = tmp_path / "built", tmp_path / "read-only"
    folder = tmp_path / "docs"
    write_corpus(folder, 10)
    code, _ = start_ingest(source / "index", [folder]).wait()
    assert code == EXIT_OK
    view.mkdir()
    _mount("--bind", str(source), str(view))
    try:
        _mount("-o", "remount,ro,bind", str(view))
        markers = {str(p): marker(int(p.stem[3:])) for p in folder.glob("doc*.md")}
        yield view / "index", markers
    finally:
        subprocess.run(["umount", "-l", str(view)], check=False)


def test_a_read_only_index_is_searched_and_refuses_writes_clearly(
    read_only_copy: tuple[Path, dict[str, str]],
) -> None:
    index, markers = read_only_copy
    before = sorted(p.name for p in index.rglob("*"))
    problems = search_problems(index, markers)
    with pytest.raises(HierdocError) as refused, open_index(index) as writer:
        writer.ingest([])
    assert "\n" not in str(refused.value)
    assert sorted(p.name for p in index.rglob("*")) == before
    Figures("read_only", {"searches": 3 * len(markers), "failures": len(problems)}).save()
    assert not problems, problems


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    disk = tmp_path / "disk"
    disk.mkdir()
    _mount("-t", "tmpfs", "-o", "size=1m", "tmpfs", str(disk))
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_full_disk_gives_clear_errors_and_a_usable_index(
    tmp_path: Path, small_disk: Path
) -> None:
    folder = tmp_path / "docs"
    written = write_corpus(folder, 60)
    for path in written:  # about 40 KB each: the index cannot fit in 1 MB
        Path(path).write_text(Path(path).read_text() + "Filler clause text.\n\n" * 2000)
    code, result = start_ingest(small_disk / "index", [folder]).wait()
    assert code != EXIT_BUG, result
    reasons = {reason for _, reason in result.get("problems", [])} | {result.get("error", "")}
    assert all("Traceback" not in r for r in reasons), reasons
    problems: list[str] = []
    try:
        markers = {str(p): marker(int(p.stem[3:])) for p in folder.glob("doc*.md")}
        problems = search_problems(small_disk / "index", markers)
    except HierdocError as error:  # a clear error is acceptable, wrong results are not
        problems = [] if "\n" not in str(error) else [repr(error)]
    shutil.rmtree(small_disk / "index", ignore_errors=True)
    figures = {"exit": code, "failures": len(problems), "reasons": sorted(reasons)[:3]}
    Figures("full_disk", figures).save()
    assert not problems, problems
