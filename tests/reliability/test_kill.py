"""kill -9 during ingest, at named crash points and at random times.

Each trial interrupts an ingest (a first ingest of 30 documents, or an update that changes,
adds and deletes some), then checks the index as it was left (a reader finds every
document it holds, each exactly once) and after the next, uninterrupted ingest: the chunks
are exactly those of a clean ingest of the same folder (nothing lost, nothing doubled) and
``hierdoc check`` finds nothing wrong.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import time
from pathlib import Path

import pytest

from hierdoc.errors import NotFoundError
from hierdoc.faults import CRASH_EXIT_CODE, CRASH_POINTS

from .harness import (
    EXIT_OK,
    Figures,
    check_report,
    interrupted_ingest,
    marker,
    reference_chunks,
    search_problems,
    start_ingest,
    stored_chunks,
    write_corpus,
)

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

DOCUMENTS = 30
OCCURRENCES = {
    "before-write": ((1, 13, 30), (1, 4, 8)),
    "records-committed": ((1, 7, 26), (1, 3, 8)),
    "bm25-added": ((1, 25, 30), (1, 5, 8)),
    "bm25-state-pending": ((1, 2), (1,)),
    "bm25-committed": ((1, 2), (1,)),
    "vectors-saved": ((1, 2), (1,)),
}
"""How many times each point is passed before the crash: in a first ingest of 30
documents (a flush after 25 and at the end), and in an update of 8 of them."""
RANDOM_KILLS = 30


def _update(folder: Path, seed: int) -> None:
    """Change five documents, add three, delete two."""
    rng = random.Random(seed)
    for n in rng.sample(range(DOCUMENTS), 5):
        write_corpus(folder, 1, version=seed + 1, start=n)
    write_corpus(folder, 3, version=seed, start=DOCUMENTS)
    for n in rng.sample(range(DOCUMENTS), 2):
        (folder / f"doc{n:04d}.md").unlink(missing_ok=True)


def _markers(folder: Path, sample: int = 4) -> dict[str, str]:
    """Source -> marker for some of the folder's documents (the first, the last, a sample)."""
    paths = sorted(folder.glob("doc*.md"))
    picked = random.Random(len(paths)).sample(paths, min(sample, len(paths)))
    chosen = {paths[0], paths[-1], *picked}
    return {str(p): marker(int(p.stem[3:])) for p in chosen}


class Trials:
    """Interrupted ingests, one after another in one directory (so that a clean ingest of
    each folder state, the reference, is made once)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.references: dict[bool, dict] = {}
        self.count = self.kills = 0
        self.failures: list[tuple] = []

    def _prepare(self, updating: bool) -> tuple[Path, Path]:
        folder, index = self.root / "docs", self.root / "index"
        shutil.rmtree(folder, ignore_errors=True)
        shutil.rmtree(index, ignore_errors=True)
        write_corpus(folder, DOCUMENTS)
        if updating:
            base = self.root / "base-index"
            if not base.exists():
                code, _ = start_ingest(base, [folder]).wait()
                assert code == EXIT_OK
            shutil.copytree(base, index)
            _update(folder, 16)
        if updating not in self.references:
            self.references[updating] = reference_chunks([folder], self.root)
        return folder, index

    def run(
        self, label: tuple, updating: bool, env: dict[str, str], kill_after: float | None
    ) -> None:
        """One interrupted ingest and its recovery, recorded."""
        folder, index = self._prepare(updating)
        code = interrupted_ingest(index, [folder], env, kill_after)
        self.count += 1
        self.kills += code in (CRASH_EXIT_CODE, -9)
        problems = []
        with contextlib.suppress(NotFoundError):  # killed before the schema: "no index"
            problems += [f"after the kill: {p}" for p in search_problems(index, _markers(folder))]
        code, result = start_ingest(index, [folder]).wait()
        assert code == EXIT_OK, result
        problems += check_report(index) + search_problems(index, _markers(folder))
        if stored_chunks(index) != self.references[updating]:
            problems.append("chunks lost or doubled")
        if problems:
            self.failures.append((*label, updating, code, problems))


def test_kill_at_named_crash_points(tmp_path: Path) -> None:
    trials = Trials(tmp_path)
    for point in CRASH_POINTS:
        for updating in (False, True):
            for occurrence in OCCURRENCES[point][updating]:
                env = {"HIERDOC_CRASH_AT": f"{point}:{occurrence}"}
                trials.run((point, occurrence), updating, env, None)
    figures = {"trials": trials.count, "kills": trials.kills, "failures": len(trials.failures)}
    Figures("kill_named", figures).save()
    assert not trials.failures, trials.failures
    assert trials.kills == trials.count  # every point was reached


def _ingest_seconds(trials: Trials, updating: bool) -> float:
    """How long an uninterrupted ingest of this kind takes (a fresh one, or the update of an
    index: far shorter, since unchanged files are only hashed)."""
    folder, index = trials._prepare(updating)
    started = time.monotonic()
    code, _ = start_ingest(index, [folder]).wait()
    assert code == EXIT_OK
    return time.monotonic() - started


def test_kill_at_random_times(tmp_path: Path) -> None:
    rng = random.Random(16)
    folder = tmp_path / "timing"
    write_corpus(folder, DOCUMENTS)
    start_ingest(tmp_path / "warm-up-index", [folder]).wait()  # starts the fork server
    trials = Trials(tmp_path)
    seconds = {updating: _ingest_seconds(trials, updating) for updating in (False, True)}
    for n in range(RANDOM_KILLS):
        updating = n % 2 == 1
        after = rng.uniform(0.02, seconds[updating])
        trials.run((n, round(after, 3)), updating, {}, after)
    figures = {"trials": trials.count, "kills": trials.kills, "failures": len(trials.failures)}
    Figures("kill_random", figures).save()
    assert not trials.failures, trials.failures
    assert trials.kills >= RANDOM_KILLS * 2 // 3  # most kills land during the ingest
