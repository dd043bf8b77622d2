"""The embedded default backend: SQLite records, a tantivy BM25 index, a numpy vector matrix.

``local`` keeps the index in a directory; ``in-memory`` keeps the same index in a
temporary directory that is removed when the store is closed (nothing persists).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ...errors import NotFoundError
from .. import StoreRequest
from .store import LocalStore

__all__ = ["LocalStore", "open_in_memory", "open_local"]


def open_local(request: StoreRequest) -> LocalStore:
    return LocalStore(
        request.directory,
        request.dimension,
        request.analyzer,
        request.reset,
        read_only=request.read_only,
        hold_writer=request.hold_writer,
        wait=request.wait,
        create=request.create,
    )


class _TemporaryStore(LocalStore):
    """A local store in a directory of its own, deleted on close."""

    def close(self) -> None:
        super().close()
        shutil.rmtree(self.directory, ignore_errors=True)


def open_in_memory(request: StoreRequest) -> LocalStore:
    """A new, empty index; opening one for reading finds nothing to read."""
    if request.read_only:
        raise NotFoundError("an in-memory index is empty until written: open it for writing")
    directory = Path(tempfile.mkdtemp(prefix="hierdoc-memory-"))
    return _TemporaryStore(directory, request.dimension, request.analyzer, request.reset)
