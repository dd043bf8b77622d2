"""Two writers on one index, and readers while an ingest runs."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from hierdoc.store.base import IndexBusyError

from .harness import (
    EXIT_ERROR,
    EXIT_OK,
    Figures,
    check_report,
    marker,
    open_index,
    reference_chunks,
    search_problems,
    start_ingest,
    stored_chunks,
    write_corpus,
)

pytestmark = [pytest.mark.reliability, pytest.mark.slow]


def _markers(folder: Path) -> dict[str, str]:
    return {str(p): marker(int(p.stem[3:])) for p in folder.glob("doc*.md")}


def test_two_writers_one_after_the_other_lose_nothing(tmp_path: Path) -> None:
    first = tmp_path / "first"
    second = tmp_path / "second"
    write_corpus(first, 30)
    write_corpus(second, 30, start=100)
    index = tmp_path / "index"
    trials, failures = 0, []
    for round_ in range(3):
        children = [start_ingest(index, [f], wait=True) for f in (first, second)]
        codes = [child.wait()[0] for child in children]
        trials += 2
        failures += [(round_, code) for code in codes if code != EXIT_OK]
    busy = start_ingest(index, [first])  # without --wait: fails clearly while one writes
    with open_index(index, "w"):
        code, result = busy.wait()
    assert code == EXIT_ERROR and "another hierdoc process is writing" in result["error"]
    assert stored_chunks(index) == reference_chunks([first, second], tmp_path)
    problems = check_report(index) + search_problems(index, _markers(first) | _markers(second))
    Figures("two_writers", {"trials": trials, "failures": len(failures) + len(problems)}).save()
    assert not failures and not problems, (failures, problems)


def test_readers_during_an_ingest_never_fail_nor_write(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    write_corpus(folder, 120)
    index = tmp_path / "index"
    write_corpus(tmp_path / "seed", 1, start=500)
    start_ingest(index, [tmp_path / "seed"]).wait()
    child = start_ingest(index, [folder, tmp_path / "seed"])
    reads, errors = 0, []
    while child.process.is_alive():
        try:
            with open_index(index, "r") as reader:
                results = reader.search("fees notices liability", top_k=20).results
                known = {d.source for d in reader.documents()}  # read after: a superset
                for result in results:
                    reads += 1
                    if result.source not in known and not result.source.endswith("doc0500.md"):
                        errors.append(f"unknown source {result.source}")
        except (IndexBusyError, OSError, ValueError) as error:  # must not happen
            errors.append(repr(error))
        time.sleep(0.05)
    code, _ = child.wait()
    assert code == EXIT_OK
    Figures("readers_during_ingest", {"reads": reads, "errors": len(errors)}).save()
    assert not errors, errors
    assert reads > 0
    assert not check_report(index)
