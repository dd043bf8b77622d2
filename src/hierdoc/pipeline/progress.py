"""What an ingest tells its progress callback, and the counting behind it.

Events of kind ``skip``, ``done`` and ``fail`` count documents (``position`` of
``total``), as they always did. Two kinds were added, which a callback that only
counts documents must ignore:

- ``embed``: after each slice of chunks is embedded (or a batch's chunks are
  re-used), ``chunks_done`` of ``chunks_known`` (the chunks of the documents read
  so far), the embedding ``rate`` in chunks per second and an ``eta`` in seconds;
- ``stage``: a large document (see :data:`LARGE_DOCUMENT_BYTES` and
  :data:`LARGE_DOCUMENT_CHUNKS`) enters a stage: converting, structure, chunks,
  contexts, embedding; ``chunks`` and ``reused`` say how many once known.

Every event carries the counts, so a callback can draw one line from any of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

LARGE_DOCUMENT_BYTES = 1_000_000
"""A file or text this long gets a progress line per stage."""
LARGE_DOCUMENT_CHUNKS = 100
"""As does a document with more chunks than this."""

DOCUMENT_KINDS = ("skip", "done", "fail")
"""The kinds that count documents; ``embed`` and ``stage`` do not."""


@dataclass(frozen=True)
class ProgressEvent:
    """``kind`` is one of skip, done, fail (``position`` counts documents from 1 to
    ``total``), embed or stage; the other fields default so events stay easy to build."""

    kind: str
    source: str
    position: int
    total: int
    stage: str = ""
    chunks: int = 0
    reused: int = 0
    chunks_done: int = 0
    chunks_known: int = 0
    rate: float | None = None
    eta: float | None = None


ProgressFn = Callable[[ProgressEvent], None]


def is_large(size: int, chunks: int = 0) -> bool:
    """Whether a document gets a line per stage: by its bytes, or its chunks once known."""
    return size > LARGE_DOCUMENT_BYTES or chunks > LARGE_DOCUMENT_CHUNKS


class Tracker:
    """Counts documents and chunks for one run and sends the events."""

    def __init__(self, notify: ProgressFn, total: int) -> None:
        self.notify = notify
        self.total = total
        self.chunks_known = 0
        self.chunks_done = 0
        self.embedded = 0
        self.embed_seconds = 0.0

    def document(self, kind: str, source: str, position: int) -> None:
        self._send(kind, source, position)

    def stage(
        self, source: str, position: int, stage: str, chunks: int = 0, reused: int = 0
    ) -> None:
        self._send("stage", source, position, stage=stage, chunks=chunks, reused=reused)

    def read(self, chunks: int) -> None:
        """A document's chunks are known."""
        self.chunks_known += chunks

    def forget(self, chunks: int) -> None:
        """A read document failed: its chunks will not be done."""
        self.chunks_known = max(self.chunks_done, self.chunks_known - chunks)

    def reused(self, chunks: int, source: str, position: int) -> None:
        if chunks:
            self.chunks_done += chunks
            self._send("embed", source, position)

    def embedded_now(self, chunks: int, seconds: float, source: str, position: int) -> None:
        self.chunks_done += chunks
        self.embedded += chunks
        self.embed_seconds += seconds
        self._send("embed", source, position)

    def undo(self, chunks: int, seconds: float) -> None:
        """Chunks counted as embedded belong to a batch that failed."""
        self.chunks_done -= chunks
        self.embedded -= chunks
        self.embed_seconds -= seconds

    @property
    def rate(self) -> float | None:
        """Chunks embedded per second of embedding."""
        if self.embedded <= 0 or self.embed_seconds <= 0:
            return None
        return self.embedded / self.embed_seconds

    def _send(self, kind: str, source: str, position: int, **fields: object) -> None:
        rate = self.rate
        left = max(0, self.chunks_known - self.chunks_done)
        eta = left / rate if rate else None
        event = ProgressEvent(
            kind,
            source,
            position,
            self.total,
            chunks_done=self.chunks_done,
            chunks_known=self.chunks_known,
            rate=rate,
            eta=eta,
            **fields,  # type: ignore[arg-type]
        )
        self.notify(event)
