"""Named fault points for fault-injection tests (tests/reliability).

``HIERDOC_CRASH_AT=NAME`` (or ``NAME:N``) makes the process exit at once, as ``kill -9``
would leave it, the first (or N-th) time it reaches :func:`crash_point` ``NAME``: no
cleanup, no flush, no lock release. ``HIERDOC_PAUSE_AT=NAME`` (or ``NAME:N``) stops the
process there instead (``SIGSTOP``, locks held) until it is sent ``SIGCONT``, so that a
test can look at the index from outside at that very moment. Unset, a point is one
dictionary lookup. The points sit between the steps of a write whose order the store
relies on.
"""

from __future__ import annotations

import os
import signal

CRASH_ENV = "HIERDOC_CRASH_AT"
PAUSE_ENV = "HIERDOC_PAUSE_AT"
CRASH_EXIT_CODE = 86
CRASH_POINTS = (
    "before-write",
    "records-committed",
    "bm25-added",
    "bm25-state-pending",
    "bm25-committed",
    "vectors-saved",
)
"""Where a crash (or a pause) may be asked for, in the order an ingest reaches them."""
REBUILD_CRASH_POINTS = ("rebuild-complete", "rebuild-published")
"""Where a crash may be asked for after the writes of a rebuild (``ingest --force``): its
index complete beside the live one, then named by the pointer."""

_reached: dict[tuple[str, str], int] = {}


def crash_point(name: str) -> None:
    """Exit now (status :data:`CRASH_EXIT_CODE`) if ``$HIERDOC_CRASH_AT`` names this point,
    or stop until ``SIGCONT`` if ``$HIERDOC_PAUSE_AT`` does."""
    if _due(CRASH_ENV, name):
        os._exit(CRASH_EXIT_CODE)
    if _due(PAUSE_ENV, name):
        os.kill(os.getpid(), signal.SIGSTOP)


def _due(env: str, name: str) -> bool:
    """Whether ``$env`` names point ``name`` and this is its N-th time (counted per variable)."""
    wanted = os.environ.get(env)
    if not wanted:
        return False
    point, _, count = wanted.partition(":")
    if point != name:
        return False
    key = (env, name)
    _reached[key] = _reached.get(key, 0) + 1
    return _reached[key] == int(count or 1)
