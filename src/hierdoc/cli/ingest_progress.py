"""What ``hierdoc ingest`` prints on stderr while it runs.

One status line, redrawn in place: documents done of all, then chunks done of those
expected (from the sizes of all the documents, known at the start) with the rate and
an ETA once embedding has started (it is what takes the time; a large PDF is one
document for minutes). A large document also
gets a line per stage (converting, structure, chunks, contexts, embedding), printed
above the status line, so the first minutes of a long run are not silent.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from ..pipeline.progress import DOCUMENT_KINDS, ProgressEvent, ProgressFn


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}m{seconds:02d}s" if minutes < 60 else f"{minutes // 60}h{minutes % 60:02d}m"


def _chunks_of(event: ProgressEvent) -> str:
    """The chunks of the run: those known, or ``~`` those expected while documents are unread."""
    expected = event.chunks_expected
    if expected is not None and expected > event.chunks_known:
        return f"~{expected}"
    return str(event.chunks_known)


def status_line(event: ProgressEvent, documents: int) -> str:
    """``Ingesting 2/5 files  chunks 340/~1200  25.1/s  ETA 47s  gdpr.md``."""
    parts = [f"Ingesting {documents}/{event.total} files"]
    if event.chunks_done:
        parts.append(f"chunks {event.chunks_done}/{_chunks_of(event)}")
    if event.rate:
        parts.append(f"{event.rate:.1f}/s")
    if event.eta is not None and documents < event.total:
        parts.append(f"ETA {_duration(event.eta)}")
    if event.source:
        parts.append(Path(event.source).name)
    return "  ".join(parts)


def stage_line(event: ProgressEvent) -> str:
    """``gdpr.md: embedding 12 chunks (143 re-used)``."""
    fresh = event.chunks - event.reused
    reused = f" ({event.reused} re-used)" if event.reused else ""
    text = {
        "converting": "converting",
        "structure": "reading its structure",
        "chunks": f"{event.chunks} chunks",
        "contexts": f"contexts for {fresh} chunks{reused}",
        "embedding": f"embedding {fresh} chunks{reused}",
    }.get(event.stage, event.stage)
    return f"{Path(event.source).name}: {text}"


LOG_EVERY = 10.0
"""Seconds between status lines when stderr is a log file rather than a terminal."""


def progress_printer(interactive: bool | None = None) -> ProgressFn:
    """A progress callback for stderr: on a terminal (``interactive``, by default when
    stderr is one) the status line is redrawn in place under the stage lines; in a log
    each line stands on its own, the status at most every :data:`LOG_EVERY` seconds and
    at the end."""
    interactive = sys.stderr.isatty() if interactive is None else interactive
    state = {"documents": 0, "width": 0, "logged": -LOG_EVERY}

    def draw(line: str, end: bool = False) -> None:
        padding = " " * max(0, state["width"] - len(line))
        click.echo(f"\r{line}{padding}", err=True, nl=end)
        state["width"] = 0 if end else len(line)

    def log(line: str, last: bool) -> None:
        if last or time.monotonic() - state["logged"] >= LOG_EVERY:
            click.echo(line, err=True)
            state["logged"] = time.monotonic()

    def on_event(event: ProgressEvent) -> None:
        if event.kind in DOCUMENT_KINDS:
            state["documents"] += 1
        last = state["documents"] == event.total
        line = status_line(event, state["documents"])
        if interactive:
            if event.kind == "stage":
                draw(stage_line(event), end=True)
            draw(line, end=last)
            return
        if event.kind == "stage":
            click.echo(stage_line(event), err=True)
        log(line, last)

    return on_event


class SavedCounter:
    """A progress callback that counts what an ingest has saved (passing each event on),
    so an interrupted run can say what is in the index: each document is written in one
    transaction, so those counted ``done`` are complete and the next run skips them."""

    def __init__(self, inner: ProgressFn | None = None) -> None:
        self.inner = inner
        self.written = 0
        self.unchanged = 0
        self.total = 0

    def __call__(self, event: ProgressEvent) -> None:
        self.total = event.total
        if event.kind == "done":
            self.written += 1
        elif event.kind == "skip":
            self.unchanged += 1
        if self.inner is not None:
            self.inner(event)

    def interrupted(self, rebuilding: bool = False) -> str:
        """``interrupted: 2 documents written ...; run the same command to resume ...``; for
        a rebuild (``--force``), that the index was left as it was."""
        of = f" of {self.total}" if self.total else ""
        if rebuilding:
            return (
                f"interrupted: the rebuild was dropped after {self.written} documents{of}; "
                "the index is as it was before. Run the same command to rebuild it"
            )
        unchanged = f", {self.unchanged} unchanged" if self.unchanged else ""
        return (
            f"interrupted: {self.written} documents written to the index{of}{unchanged}; "
            "each is complete and searchable. Run the same command to resume: "
            "documents already written are skipped"
        )
