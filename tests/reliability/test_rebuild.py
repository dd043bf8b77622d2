"""kill -9 during a rebuild (``ingest --force``), at named crash points and at random times.

Each trial rebuilds a copy of an index of 30 documents from their folder, rewritten with
33 others, and kills the rebuild. A reader then finds either the whole old index or the
whole new one (the new one only once the pointer names it), ``hierdoc check`` finds
nothing wrong, and the next ingest deletes what the killed rebuild left and ends with the
chunks of a clean ingest of the folder.
"""

from __future__ import annotations

import random
import shutil
import time
from pathlib import Path

import pytest

from hierdoc.faults import CRASH_EXIT_CODE, REBUILD_CRASH_POINTS
from hierdoc.store.local.builds import live_data

from .harness import (
    EXIT_OK,
    Figures,
    check_report,
    interrupted_ingest,
    reference_chunks,
    start_ingest,
    stored_chunks,
    write_corpus,
)

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

DOCUMENTS, REWRITTEN = 30, 33
NAMED = {
    "before-write": (1, 20, 33),
    "records-committed": (1, 26, 33),
    "bm25-committed": (1, 2),
    "vectors-saved": (1, 2),
    **{point: (1,) for point in REBUILD_CRASH_POINTS},
}
"""Crash points and how often each is passed before the crash, in a rebuild of 33
documents (the build is flushed after 25 and at the end)."""
RANDOM_KILLS = 12


class Rebuilds:
    """Killed rebuilds of copies of one index, and their verdicts."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.folder, self.base = root / "docs", root / "base-index"
        write_corpus(self.folder, DOCUMENTS)
        code, _ = start_ingest(self.base, [self.folder]).wait()
        assert code == EXIT_OK
        self.old = stored_chunks(self.base)
        shutil.rmtree(self.folder)
        write_corpus(self.folder, REWRITTEN, version=1)
        self.new = reference_chunks([self.folder], root)
        self.count = self.kills = 0
        self.failures: list[tuple] = []

    def run(self, label: tuple, env: dict[str, str], kill_after: float | None) -> str:
        """One killed rebuild and its recovery; which index a reader found after the kill."""
        index = self.root / "index"
        shutil.rmtree(index, ignore_errors=True)
        shutil.copytree(self.base, index)
        code = interrupted_ingest(index, [self.folder], env, kill_after, force=True)
        self.count += 1
        self.kills += code in (CRASH_EXIT_CODE, -9)
        found = stored_chunks(index)
        seen = "old" if found == self.old else "new" if found == self.new else "partial"
        problems = [] if seen != "partial" else [f"a reader found {len(found)} chunks"]
        problems += [f"after the kill: {p}" for p in check_report(index)]
        code, result = start_ingest(index, [self.folder]).wait()
        assert code == EXIT_OK, result
        problems += check_report(index)
        if stored_chunks(index) != self.new:
            problems.append("chunks lost or doubled after the next ingest")
        live = live_data(index)[0]
        if sorted(index.glob("build-*")) != ([live] if live != index else []):
            problems.append("a build directory was left")
        if problems:
            self.failures.append((*label, seen, problems))
        return seen


def test_kill_during_a_rebuild_keeps_one_whole_index(tmp_path: Path) -> None:
    rebuilds = Rebuilds(tmp_path)
    for point, occurrences in NAMED.items():
        for occurrence in occurrences:
            env = {"HIERDOC_CRASH_AT": f"{point}:{occurrence}"}
            seen = rebuilds.run((point, occurrence), env, None)
            expected = "new" if point == "rebuild-published" else "old"
            if seen != "partial" and seen != expected:  # a partial one is a failure already
                rebuilds.failures.append((point, occurrence, f"found the {seen} index"))
    started = time.monotonic()
    code, _ = start_ingest(tmp_path / "timing", [rebuilds.folder]).wait()
    seconds = time.monotonic() - started
    assert code == EXIT_OK
    rng = random.Random(27)
    for n in range(RANDOM_KILLS):
        after = rng.uniform(0.02, seconds)
        rebuilds.run((n, round(after, 3)), {}, after)
    figures = {"trials": rebuilds.count, "kills": rebuilds.kills}
    Figures("kill_rebuild", {**figures, "failures": len(rebuilds.failures)}).save()
    assert not rebuilds.failures, rebuilds.failures
    assert rebuilds.kills >= rebuilds.count - RANDOM_KILLS // 3  # the points were reached
