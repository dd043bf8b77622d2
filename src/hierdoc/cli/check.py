"""``hierdoc check [--repair]``: every part of a local index checked against its records.

It reads ``records.sqlite`` (``PRAGMA integrity_check``), every BM25 document and every
cached vector, and prints what it found (:func:`hierdoc.store.local.check.full_check`).
``--repair`` takes the writer lock and rebuilds the BM25 index and the vector cache from
the records; damaged records cannot be repaired, and it says so (restore them, or
``ingest --force``).
The exit status is 1 when a problem remains.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import ConfigError, NotFoundError, StoreError
from .state import State, index_options

if TYPE_CHECKING:
    from ..store.local.bm25 import Bm25Index
    from ..store.local.check import CheckReport

SWAPS_CHECKED = 3
"""Times ``check`` starts again when a rebuild is swapped in while it reads."""


def _read_bm25(directory: Path) -> Bm25Index:
    from ..store.local.bm25 import Bm25Index
    from ..text.analyze import TEXT_ANALYZER

    return Bm25Index(directory, TEXT_ANALYZER.version, read_only=True)


def run_check(directory: Path, repair: bool, wait: bool = False) -> CheckReport:
    """Check ``directory``; with ``repair``, rebuild damaged derived indexes and check again."""
    from ..store.local.builds import live_data
    from ..store.local.check import stored_dimension
    from ..store.local.store import RECORDS_FILE, LocalStore
    from ..text.analyze import TEXT_ANALYZER

    report = _check_live(directory)
    if not repair or report.ok or not all(f.repairable for f in report.findings):
        return report
    dimension = stored_dimension(live_data(directory)[0], RECORDS_FILE)
    store = LocalStore(directory, dimension, TEXT_ANALYZER, hold_writer=True, wait=wait)
    try:
        store.rebuild_derived()
    finally:
        store.close()
    after = _check_live(directory)
    after.repaired = sorted(report.parts())
    return after


def _check_live(directory: Path) -> CheckReport:
    """:func:`full_check` of the live data (in ``directory``, or the build it names), as
    the report of ``directory``; a rebuild under way is not looked at, and one swapped in
    during the check (its files deleted under it) is checked again."""
    from ..store.local.builds import POINTER, live_data, pointer_stamp
    from ..store.local.check import full_check
    from ..store.local.store import RECORDS_FILE

    pointer = str(directory / POINTER)
    for _ in range(SWAPS_CHECKED):
        data, stamp = live_data(directory)
        try:
            report = full_check(data, RECORDS_FILE, _read_bm25)
        except NotFoundError:
            if pointer_stamp(pointer) == stamp:
                raise
        else:
            if pointer_stamp(pointer) == stamp:
                report.directory = directory
                return report
    raise StoreError(
        f"the index at {directory} was rebuilt {SWAPS_CHECKED} times during the check: "
        "check it again"
    )


def format_report(report: CheckReport) -> list[str]:
    lines = [f"{report.directory}: {report.chunks} chunks"]
    lines += [f"repaired: {part} rebuilt from the records" for part in report.repaired]
    lines += [f"{f.part}: {f.problem}" for f in report.findings]
    if report.ok:
        lines.append("ok: records, BM25 index and vectors agree")
    return lines


@click.command("check")
@click.option("--repair", is_flag=True, help="Rebuild damaged BM25/vector indexes from SQLite.")
@click.option("--wait", is_flag=True, help="With --repair: wait for another writer.")
@index_options
@click.pass_obj
def check(state: State, repair: bool, wait: bool) -> None:
    """Check the index: SQLite integrity, and BM25 and vectors against the records."""
    settings = state.settings()
    if settings.database_provider != "local":
        raise ConfigError("hierdoc check works on local indexes (database.provider: local)")
    directory = settings.index_dir(state.index_option)
    report = run_check(directory, repair, wait)
    for line in format_report(report):
        click.echo(line)
    if not report.ok:
        click.echo(f"problems found{_what_to_do(report, repair)}", err=True)
        sys.exit(1)


def _what_to_do(report: CheckReport, repair: bool) -> str:
    if any(not finding.repairable for finding in report.findings):
        return (
            "; --repair cannot fix records.sqlite (the source of truth, from which the other "
            "files are rebuilt): restore it from a backup, or rebuild the index from the "
            "documents with: hierdoc ingest PATH --force"
        )
    return "" if repair else "; run hierdoc check --repair"
