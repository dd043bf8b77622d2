"""``hierdoc watch PATH...``: keep an index in step with files as they change.

The paths are ingested once, then watched with watchfiles (the operating system's
file events: inotify, FSEvents, ReadDirectoryChangesW). A burst of changes (an
editor's save, a folder copied in) is gathered for ``--debounce`` milliseconds, then
the paths are ingested again with the rules of ``hierdoc ingest``: unchanged files
are skipped by their hash, changed ones replaced (unchanged chunks keep their
vectors), deleted ones removed. The writer lock is taken for each of those ingests
only, so searches, and another writer between rounds, are never kept out for long.

Events inside the index directory, and for files of unsupported types, are ignored,
so an index kept inside a watched folder does not wake the watcher with its own writes.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import HierdocError, InputError
from ..models import IngestReport
from .ingest_progress import SavedCounter, progress_printer
from .state import State, index_options

if TYPE_CHECKING:
    from watchfiles import Change

    from ..api import Index

DEFAULT_DEBOUNCE_MS = 500
RUST_TIMEOUT_MS = 200
"""How long the watcher waits for events before it looks at its stop event again."""


def _real(path: str | Path) -> Path:
    return Path(os.path.realpath(path))


class DocumentFilter:
    """Which file events matter: those of supported files (or of folders, which have no
    suffix: a folder moved away takes its files with it) under a watched folder or for a
    watched file, outside the index directory and outside the folders watchfiles ignores
    (.git, node_modules, ...)."""

    def __init__(self, paths: Sequence[str | Path], index_dir: Path) -> None:
        from watchfiles import DefaultFilter

        real = [_real(p) for p in paths]
        self.folders = [p for p in real if p.is_dir()]
        self.files = {p for p in real if not p.is_dir()}
        self.index_dir = _real(index_dir)
        self.default = DefaultFilter()

    def targets(self) -> list[Path]:
        """What to watch: the folders, and each file's folder (an editor that saves by
        writing a new file and renaming it replaces the file a watch would follow)."""
        return sorted({*self.folders, *(f.parent for f in self.files)})

    def __call__(self, change: Change, path: str) -> bool:
        from ..pipeline.convert import SUPPORTED_SUFFIXES
        from ..pipeline.ingest import is_under

        real = _real(path)
        if is_under(str(real), [self.index_dir]) or not self.default(change, path):
            return False
        if real.suffix and real.suffix.lower() not in SUPPORTED_SUFFIXES:
            return False
        return real in self.files or is_under(str(real), self.folders)


@dataclass
class Round:
    """One ingest of the watched paths: the files whose events started it (none for the
    first) and what the ingest did."""

    changed: list[str]
    report: IngestReport
    started: float = field(default_factory=time.time)

    @property
    def did_something(self) -> bool:
        return bool(self.report.added or self.report.updated or self.report.removed)


class Watcher:
    """Ingests ``paths`` into ``index``, then again after every debounced burst of changes,
    until ``stop`` is set (or Ctrl-C). ``index`` must not be open in mode "w": each ingest
    takes the writer lock for itself and gives it back."""

    def __init__(
        self,
        index: Index,
        paths: Sequence[str],
        on_round: Callable[[Round], None],
        debounce_ms: int = DEFAULT_DEBOUNCE_MS,
        first_progress: Callable[..., None] | None = None,
        on_error: Callable[[HierdocError], None] | None = None,
    ) -> None:
        self.index = index
        self.on_error = on_error
        self.paths = list(paths)
        self.on_round = on_round
        self.debounce_ms = debounce_ms
        self.first_progress = first_progress
        self.saved: SavedCounter | None = None
        """What the ingest under way has saved (None between ingests)."""

    def run(self, stop: threading.Event | None = None) -> None:
        from watchfiles import watch

        selected = DocumentFilter(self.paths, self.index.directory)
        events = watch(
            *selected.targets(),
            watch_filter=selected,
            debounce=self.debounce_ms,
            stop_event=stop,
            rust_timeout=RUST_TIMEOUT_MS,
            yield_on_timeout=True,
        )
        first = True
        for changes in events:  # the watcher runs from the first yield on: nothing is missed
            if first:
                self._ingest([], self.first_progress)  # the first round covers any changes
                first = False
            elif changes:
                self._ingest(sorted({path for _, path in changes}), None)

    def _ingest(self, changed: list[str], progress: Callable[..., None] | None) -> None:
        self.saved = SavedCounter(progress)
        try:
            report = self.index.ingest(self.paths, progress=self.saved)
        except HierdocError as error:  # a round that failed (a model API down...): go on
            if self.on_error is None:
                raise
            self.saved = None
            self.on_error(error)
            return
        self.saved = None  # kept when interrupted, to say what was saved
        self.on_round(Round(changed, report))


def _names(paths: Iterable[str]) -> str:
    names = [Path(p).name for p in paths]
    shown = ", ".join(names[:5])
    return shown + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def round_line(done: Round) -> str:
    """``12:00:03  a.md changed: 0 added, 1 updated, 4 unchanged, 0 removed (3 chunks
    embedded, 9 re-used)``."""
    report = done.report
    when = time.strftime("%H:%M:%S", time.localtime(done.started))
    what = f"{_names(done.changed)} changed" if done.changed else "indexed"
    return (
        f"{when}  {what}: {len(report.added)} added, {len(report.updated)} updated, "
        f"{len(report.unchanged)} unchanged, {len(report.removed)} removed "
        f"({report.chunks_embedded} chunks embedded, {report.chunks_reused} re-used)"
    )


def _printer(quiet: bool) -> Callable[[Round], None]:
    def on_round(done: Round) -> None:
        if done.changed and not done.did_something:
            return  # touched or re-saved with the same content
        if not quiet or done.did_something:
            click.echo(round_line(done))
        for problem in done.report.problems:
            if problem.source not in done.report.removed:
                click.echo(f"skipped {problem.source}: {problem.reason}", err=True)
        for warning in done.report.warnings:
            click.echo(f"warning {warning.source}: {warning.reason}", err=True)
        if not done.changed:
            click.echo("watching for changes (Ctrl-C to stop)", err=True)

    return on_round


def _error_line(error: HierdocError) -> None:
    click.echo(f"error: {error} (still watching; the next change tries again)", err=True)


@click.command()
@index_options
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option(
    "--debounce",
    type=click.IntRange(min=10, max=60_000),
    default=DEFAULT_DEBOUNCE_MS,
    show_default=True,
    help="Milliseconds to gather a burst of changes before re-indexing.",
)
@click.option(
    "--quiet", is_flag=True, help="No progress; print only rounds that changed the index."
)
@click.pass_obj
def watch(state: State, paths: tuple[str, ...], debounce: int, quiet: bool) -> None:
    """Index PATHS, then re-index them whenever a file under them changes.

    The same rules as ingest: unchanged files skipped, changed ones replaced, deleted
    ones removed. The writer lock is held only while writing; Ctrl-C stops.
    """
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        raise InputError(f"cannot watch {', '.join(missing)}: no such file or directory")
    from ..api import Index

    index = Index.open(state.index_option, state.settings(), wait=True)
    progress = None if quiet else progress_printer()
    watcher = Watcher(index, list(paths), _printer(quiet), debounce, progress, _error_line)
    try:
        watcher.run()
    except KeyboardInterrupt:
        saved = watcher.saved
        if saved is not None:
            click.echo(f"\n{saved.interrupted()}", err=True)
            raise SystemExit(130) from None
        click.echo("\nstopped watching; the index is up to date", err=True)
    finally:
        index.close()
