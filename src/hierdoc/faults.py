"""Named crash points for fault-injection tests (tests/reliability).

``HIERDOC_CRASH_AT=NAME`` (or ``NAME:N``) makes the process exit at once, as ``kill -9``
would leave it, the first (or N-th) time it reaches :func:`crash_point` ``NAME``: no
cleanup, no flush, no lock release. Unset, a crash point is one dictionary lookup.
The points sit between the steps of a write whose order the store relies on.
"""

from __future__ import annotations

import os

CRASH_ENV = "HIERDOC_CRASH_AT"
CRASH_EXIT_CODE = 86
CRASH_POINTS = (
    "before-write",
    "records-committed",
    "bm25-added",
    "bm25-state-pending",
    "bm25-committed",
    "vectors-saved",
)
"""Where a crash may be asked for, in the order an ingest reaches them."""
REBUILD_CRASH_POINTS = ("rebuild-complete", "rebuild-published")
"""Where a crash may be asked for after the writes of a rebuild (``ingest --force``): its
index complete beside the live one, then named by the pointer."""

_reached: dict[str, int] = {}


def crash_point(name: str) -> None:
    """Exit now (status :data:`CRASH_EXIT_CODE`) if ``$HIERDOC_CRASH_AT`` names this point."""
    wanted = os.environ.get(CRASH_ENV)
    if not wanted:
        return
    point, _, count = wanted.partition(":")
    if point != name:
        return
    _reached[name] = _reached.get(name, 0) + 1
    if _reached[name] >= int(count or 1):
        os._exit(CRASH_EXIT_CODE)
