"""The single writer lock of a local index: ``writer.lock`` in the index directory.

The lock is ``flock(2)`` on that file, so the kernel releases it when the holder
exits, even after ``kill -9``. While held, the file says who holds it (process id
and start time) for the message a second writer gets; it is emptied on release.

One :class:`WriterLock` belongs to one store and is reentrant for that store (any
of its threads): the file lock is taken on the first :meth:`enter` and released
on the matching last :meth:`exit`, with the store's hooks run at both ends. Two
stores, in two processes or in one, never hold it at once. Readers never take
it; :func:`holder_alive` only reads the file.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..base import IndexBusyError

LOCK_FILE = "writer.lock"


def _holder(path: Path) -> tuple[int, str] | None:
    """The process id and start time written by the current (or last crashed) holder."""
    try:
        pid, _, since = path.read_text(encoding="utf-8").strip().partition(" ")
        return int(pid), since
    except (OSError, ValueError):
        return None


def holder_alive(path: Path) -> bool:
    """Whether a live process says it holds the lock (read only; nothing is locked)."""
    holder = _holder(path)
    if holder is None:
        return False
    try:
        os.kill(holder[0], 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def busy_error(path: Path) -> IndexBusyError:
    holder = _holder(path)
    who = f"pid {holder[0]} since {holder[1]}" if holder else "pid unknown"
    return IndexBusyError(
        f"another hierdoc process is writing this index ({who}): wait for it or use --wait",
        who,
    )


class WriterLock:
    """``flock`` on one file, reentrant for its owner; see the module docstring."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._mutex = threading.Lock()
        self._depth = 0
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._depth > 0

    def enter(self, wait: bool, on_first: Callable[[], None]) -> None:
        """Take the lock (``wait``: block until free, else :class:`IndexBusyError` at once)."""
        with self._mutex:
            if self._depth == 0:
                self._take(wait)
                try:
                    on_first()
                except BaseException:
                    self._release()
                    raise
            self._depth += 1

    def exit(self, on_last: Callable[[], None]) -> None:
        """Leave one level; the last one runs ``on_last`` and then releases the file lock."""
        with self._mutex:
            self._depth -= 1
            if self._depth == 0:
                try:
                    on_last()
                finally:
                    self._release()

    def _take(self, wait: bool) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                os.close(fd)
                raise busy_error(self.path) from None
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        since = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {since}\n".encode(), 0)
        self._fd = fd

    def _release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            os.ftruncate(fd, 0)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
