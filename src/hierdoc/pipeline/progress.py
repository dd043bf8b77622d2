"""What an ingest tells its progress callback, and the counting behind it.

Events of kind ``skip``, ``done`` and ``fail`` count documents (``position`` of
``total``). Two other kinds do not, and a callback that only counts documents
ignores them:

- ``embed``: after each slice of chunks is embedded (or a batch's chunks are
  re-used), ``chunks_done`` of ``chunks_known`` (the chunks of the documents read
  so far) and of ``chunks_expected`` (those and the chunks expected from the sizes
  of the documents not read yet), the ``rate`` in chunks embedded per second and
  an ``eta`` in seconds (see :class:`Tracker`);
- ``stage``: a large document (see :data:`LARGE_DOCUMENT_BYTES` and
  :data:`LARGE_DOCUMENT_CHUNKS`) enters a stage: converting, structure, chunks,
  contexts, embedding; ``chunks`` and ``reused`` say how many once known.

Every event carries the counts, so a callback can draw one line from any of them.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

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
    chunks_expected: int | None = None
    rate: float | None = None
    eta: float | None = None


ProgressFn = Callable[[ProgressEvent], None]


def is_large(size: int, chunks: int = 0) -> bool:
    """Whether a document gets a line per stage: by its bytes, or its chunks once known."""
    return size > LARGE_DOCUMENT_BYTES or chunks > LARGE_DOCUMENT_CHUNKS


@dataclass(frozen=True)
class Work:
    """One document of a run as known before it is read: its kind (a file's suffix, or
    ``text``) and its size (bytes of a file, characters of a text)."""

    kind: str
    size: int

    @classmethod
    def of_file(cls, path: Path) -> Work:
        try:
            size = path.stat().st_size
        except OSError:  # reading it reports the problem
            size = 0
        return cls(path.suffix.lower(), size)


class Estimate:
    """The chunks a run will have, from the sizes of its documents known at the start.

    Each document read teaches how many chunks a byte of its kind makes (a PDF's bytes
    hold fewer chunks than a Markdown file's); the documents not read yet are counted at
    the rate of their kind, or of all kinds while none of theirs has been read."""

    def __init__(self, work: Sequence[Work]) -> None:
        self._work = list(work)
        self._settled: set[int] = set()
        self._unread: defaultdict[str, int] = defaultdict(int)
        for item in self._work:
            self._unread[item.kind] += item.size
        self._bytes: defaultdict[str, int] = defaultdict(int)
        self._chunks: defaultdict[str, int] = defaultdict(int)

    def settled(self, position: int, chunks: int | None = None) -> None:
        """The document at ``position`` (from 1) was read into ``chunks``, or skipped or
        failed (``None``): its size leaves the unread work, once."""
        if not 0 < position <= len(self._work) or position in self._settled:
            return
        self._settled.add(position)
        item = self._work[position - 1]
        self._unread[item.kind] -= item.size
        if chunks is not None:
            self._bytes[item.kind] += item.size
            self._chunks[item.kind] += chunks

    def unread_chunks(self) -> float | None:
        """The chunks expected from the documents not read yet; ``None`` before the first."""
        read_bytes = sum(self._bytes.values())
        if not read_bytes:
            return None if any(self._unread.values()) else 0.0
        overall = sum(self._chunks.values()) / read_bytes
        expected = 0.0
        for kind, size in self._unread.items():
            known = self._bytes[kind]
            expected += size * (self._chunks[kind] / known if known else overall)
        return expected


class Tracker:
    """Counts documents and chunks for one run and sends the events.

    The rate is chunks embedded (not re-used) per second since the run began, so it
    holds reading, conversion and writing as well as embedding; the ETA is the chunks
    still to embed at that rate: those read and not embedded yet, and those expected
    from the documents not read yet (:class:`Estimate`), less the share re-used so far
    (a re-ingest of changed documents embeds only what changed)."""

    def __init__(
        self,
        notify: ProgressFn,
        work: Sequence[Work],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.notify = notify
        self.total = len(work)
        self.estimate = Estimate(work)
        self.clock = clock
        self.started = clock()
        self.chunks_known = 0
        self.chunks_done = 0
        self.embedded = 0
        self.checked = 0
        """Chunks whose vectors were looked for among the stored ones."""
        self.reused_chunks = 0

    def document(self, kind: str, source: str, position: int) -> None:
        self.estimate.settled(position)  # skipped, failed, or done (read before)
        self._send(kind, source, position)

    def stage(
        self, source: str, position: int, stage: str, chunks: int = 0, reused: int = 0
    ) -> None:
        self._send("stage", source, position, stage=stage, chunks=chunks, reused=reused)

    def read(self, chunks: int, position: int = 0) -> None:
        """The document at ``position`` was read into ``chunks``."""
        self.chunks_known += chunks
        self.estimate.settled(position, chunks)

    def forget(self, chunks: int) -> None:
        """A read document failed: its chunks will not be done."""
        self.chunks_known = max(self.chunks_done, self.chunks_known - chunks)

    def reused(self, chunks: int, of: int, source: str, position: int) -> None:
        """``chunks`` of a batch's ``of`` chunks have stored vectors to re-use."""
        self.checked += of
        self.reused_chunks += chunks
        if chunks:
            self.chunks_done += chunks
            self._send("embed", source, position)

    def embedded_now(self, chunks: int, source: str, position: int) -> None:
        self.chunks_done += chunks
        self.embedded += chunks
        self._send("embed", source, position)

    def undo(self, chunks: int) -> None:
        """Chunks counted as embedded belong to a batch that failed."""
        self.chunks_done -= chunks
        self.embedded -= chunks

    @property
    def rate(self) -> float | None:
        """Chunks embedded (not re-used) per second since the run began."""
        seconds = self.clock() - self.started
        if self.embedded <= 0 or seconds <= 0:
            return None
        return self.embedded / seconds

    @property
    def fresh_share(self) -> float:
        """The share of chunks that need embedding: those not re-used, so far."""
        return 1.0 - self.reused_chunks / self.checked if self.checked else 1.0

    def chunks_expected(self) -> float | None:
        """All the chunks the run is expected to have; ``None`` before one document is read."""
        unread = self.estimate.unread_chunks()
        return None if unread is None else self.chunks_known + unread

    def chunks_to_embed(self) -> float | None:
        """The chunks still to embed: known fresh ones, and a share of the others."""
        unread = self.estimate.unread_chunks()
        if unread is None:
            return None
        fresh_known = max(0, self.checked - self.reused_chunks - self.embedded)
        unchecked = max(0, self.chunks_known - self.checked)
        return fresh_known + (unchecked + unread) * self.fresh_share

    def eta(self) -> float | None:
        """Seconds left at the current rate; ``None`` until something was embedded."""
        rate, left = self.rate, self.chunks_to_embed()
        return None if rate is None or left is None else left / rate

    def _send(self, kind: str, source: str, position: int, **fields: object) -> None:
        expected = self.chunks_expected()
        event = ProgressEvent(
            kind,
            source,
            position,
            self.total,
            chunks_done=self.chunks_done,
            chunks_known=self.chunks_known,
            chunks_expected=None if expected is None else round(expected),
            rate=self.rate,
            eta=self.eta(),
            **fields,  # type: ignore[arg-type]
        )
        self.notify(event)
