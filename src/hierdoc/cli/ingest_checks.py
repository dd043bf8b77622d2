"""When ``hierdoc ingest`` has nothing to do: the reasons, said before anything is created.

Paths that hold no supported file (missing, an empty folder, only unsupported files)
are an error with the reason per path, unless the index holds documents under them
(then the ingest runs, to remove what is gone). A run in which every file failed is
an error too, after the problems are listed.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..api import Index
from ..errors import InputError, NotFoundError
from ..models import FileProblem, IngestReport
from ..pipeline.convert import SUPPORTED_SUFFIXES, discover_files
from ..pipeline.ingest import is_under
from .state import State


def _real(path: str) -> Path:
    """The path with links resolved; unlike Path.resolve, never raises on a symlink loop."""
    return Path(os.path.realpath(path))


def _path_reason(path: str, problems: list[FileProblem]) -> str:
    root = _real(path)
    own = [p for p in problems if is_under(p.source, [root])]
    if not own:
        return f"{path}: no files in this folder"
    if len(own) == 1 and Path(own[0].source) == root:
        return f"{path}: {own[0].reason}"
    first = own[0]
    return (
        f"{path}: no supported files ({len(own)} skipped, "
        f"e.g. {Path(first.source).name}: {first.reason})"
    )


def nothing_to_ingest(paths: list[str], follow_symlinks_outside: bool = False) -> str | None:
    """Why ``paths`` hold nothing to ingest; None when they hold a supported file."""
    files, problems = discover_files([_real(p) for p in paths], follow_symlinks_outside)
    if files:
        return None
    reasons = "; ".join(_path_reason(path, problems) for path in paths)
    return f"nothing to ingest: {reasons} (supported: {', '.join(SUPPORTED_SUFFIXES)})"


def _indexed_under(state: State, paths: list[str]) -> bool:
    """Whether an index exists and holds documents under ``paths`` (read only)."""
    roots = [_real(p) for p in paths]
    try:
        with Index.open(state.index_option, state.settings(), mode="r") as index:
            return any(is_under(d.source, roots) for d in index.documents())
    except NotFoundError:
        return False


def check_paths(state: State, paths: list[str]) -> None:
    """Raise :class:`InputError` naming why, when ``paths`` give an ingest nothing to do."""
    if not paths:
        return
    reason = nothing_to_ingest(paths, state.settings().follow_symlinks_outside)
    if reason and not _indexed_under(state, paths):
        raise InputError(reason)


def check_report(report: IngestReport) -> None:
    """Raise :class:`InputError` when a run ingested, kept or removed nothing at all."""
    if report.added or report.updated or report.unchanged or report.removed:
        return
    if report.problems:
        raise InputError(
            f"nothing was ingested: all {len(report.problems)} files failed (listed above)"
        )
    raise InputError("nothing was ingested: no supported files were found")
