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
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
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
    """One document of a run as known before it is read: its kind and its size in the
    kind's unit (pages of a PDF, bytes of a DOCX's document part, bytes of another file,
    characters of a text)."""

    kind: str
    size: int

    @classmethod
    def of_file(cls, path: Path) -> Work:
        suffix = path.suffix.lower()
        if suffix == ".pdf" and (pages := pdf_pages(path)) is not None:
            return cls(PDF_PAGES, pages)
        if suffix == ".docx" and (part := docx_document_bytes(path)) is not None:
            return cls(DOCX_XML, part)
        try:
            size = path.stat().st_size
        except OSError:  # reading it reports the problem
            size = 0
        return cls(suffix, size)


def pdf_pages(path: Path) -> int | None:
    """The pages of a PDF, read from its page tree (a fraction of a millisecond); ``None``
    when it does not open (its conversion will say why)."""
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(str(path))
    except Exception:
        return None
    try:
        return len(document)
    finally:
        document.close()


def docx_document_bytes(path: Path) -> int | None:
    """The size of a DOCX's ``word/document.xml`` (its text, with the markup around it),
    from the zip's directory: styles, fonts and pictures, which make most of a short
    DOCX's bytes, left out. ``None`` when it is not there."""
    try:
        with zipfile.ZipFile(path) as package:
            return package.getinfo("word/document.xml").file_size
    except (OSError, KeyError, zipfile.BadZipFile):
        return None


PDF_PAGES = "pdf pages"
DOCX_XML = "docx document part"
CHARS_PER_UNIT = {PDF_PAGES: 3000.0, DOCX_XML: 0.15}
"""About the characters of text in a unit of these kinds (a page; a byte of a DOCX's
document part): to weigh them against the bytes of text files while none of their kind
has been read."""


@dataclass(frozen=True)
class Amount:
    """Chunks and the characters of their text: the progress line counts chunks, and the
    ETA characters, which embedding takes its time over (a chunk of 550 tokens takes
    seven times as long as one of 80)."""

    chunks: float = 0
    chars: float = 0

    @classmethod
    def of(cls, texts: Iterable[str]) -> Amount:
        texts = list(texts)
        return cls(len(texts), sum(map(len, texts)))

    def __add__(self, other: Amount) -> Amount:
        return Amount(self.chunks + other.chunks, self.chars + other.chars)

    def __sub__(self, other: Amount) -> Amount:
        return Amount(self.chunks - other.chunks, self.chars - other.chars)

    def __mul__(self, factor: float) -> Amount:
        return Amount(self.chunks * factor, self.chars * factor)

    def at_least_none(self) -> Amount:
        return Amount(max(0, self.chunks), max(0, self.chars))


class Estimate:
    """The chunks a run will have, from the sizes of its documents known at the start.

    Each document read teaches what a unit of its kind makes, in chunks and characters (a
    page of a PDF; a byte of a DOCX, which holds less text than a byte of Markdown); the
    documents not read yet are counted at the rate of their kind or, while none of their
    kind has been read, at the rate of all those read (weighed by :data:`CHARS_PER_UNIT`)."""

    def __init__(self, work: Sequence[Work]) -> None:
        self._work = list(work)
        self._settled: set[int] = set()
        self._unread: defaultdict[str, int] = defaultdict(int)
        for item in self._work:
            self._unread[item.kind] += item.size
        self._size_read: defaultdict[str, int] = defaultdict(int)
        self._made: defaultdict[str, Amount] = defaultdict(Amount)

    def settled(self, position: int, made: Amount | None = None) -> None:
        """The document at ``position`` (from 1) was read into ``made``, or skipped or
        failed (``None``): its size leaves the unread work, once."""
        if not 0 < position <= len(self._work) or position in self._settled:
            return
        self._settled.add(position)
        item = self._work[position - 1]
        self._unread[item.kind] -= item.size
        if made is not None:
            self._size_read[item.kind] += item.size
            self._made[item.kind] += made

    def unread(self) -> Amount | None:
        """What the documents not read yet are expected to make; ``None`` before the first."""
        read = sum(size * _weight(kind) for kind, size in self._size_read.items())
        if not read:
            return None if any(self._unread.values()) else Amount()
        overall = sum(self._made.values(), Amount()) * (1 / read)
        expected = Amount()
        for kind, size in self._unread.items():
            known = self._size_read[kind]
            per_unit = self._made[kind] * (1 / known) if known else overall * _weight(kind)
            expected += per_unit * size
        return expected


def _weight(kind: str) -> float:
    """About the characters of text in a unit of ``kind``."""
    return CHARS_PER_UNIT.get(kind, 1.0)


class Tracker:
    """Counts documents and chunks for one run and sends the events.

    The rate is of chunks (for the line) and characters (for the ETA) embedded, not
    re-used, per second since embedding began (after the first documents are read and
    the model loaded), so it holds the reading, conversion and writing done meanwhile as
    well as embedding. The ETA is the characters still to embed at that rate: those of the
    chunks read and not embedded yet, and those expected from the documents not read yet
    (:class:`Estimate`), less the share re-used so far (a re-ingest of changed documents
    embeds only what changed)."""

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
        self.embedding_since: float | None = None
        self.known = Amount()
        self.done = Amount()
        """Embedded or re-used."""
        self.embedded = Amount()
        self.checked = Amount()
        """Whose vectors were looked for among the stored ones."""
        self.reused_here = Amount()

    @property
    def chunks_known(self) -> int:
        return round(self.known.chunks)

    @property
    def chunks_done(self) -> int:
        return round(self.done.chunks)

    def document(self, kind: str, source: str, position: int) -> None:
        self.estimate.settled(position)  # skipped, failed, or done (read before)
        self._send(kind, source, position)

    def stage(
        self, source: str, position: int, stage: str, chunks: int = 0, reused: int = 0
    ) -> None:
        self._send("stage", source, position, stage=stage, chunks=chunks, reused=reused)

    def read(self, made: Amount, position: int = 0) -> None:
        """The document at ``position`` was read into ``made``."""
        self.known += made
        self.estimate.settled(position, made)

    def forget(self, chunks: Amount) -> None:
        """A read document failed: its chunks will not be done."""
        self.known = Amount(
            max(self.done.chunks, self.known.chunks - chunks.chunks),
            max(self.done.chars, self.known.chars - chunks.chars),
        )

    def reused(self, reused: Amount, of: Amount, source: str, position: int) -> None:
        """``reused`` of a batch's chunks (``of``) have stored vectors to re-use."""
        self.checked += of
        self.reused_here += reused
        if reused.chunks:
            self.done += reused
            self._send("embed", source, position)

    def embedded_now(self, chunks: Amount, seconds: float, source: str, position: int) -> None:
        """``chunks`` were embedded in the last ``seconds``."""
        if self.embedding_since is None:
            self.embedding_since = self.clock() - seconds
        self.done += chunks
        self.embedded += chunks
        self._send("embed", source, position)

    def undo(self, chunks: Amount) -> None:
        """Chunks counted as embedded belong to a batch that failed."""
        self.done -= chunks
        self.embedded -= chunks

    def _per_second(self) -> Amount | None:
        """Embedded (not re-used) per second since embedding began."""
        if self.embedding_since is None:
            return None
        seconds = self.clock() - self.embedding_since
        if self.embedded.chars <= 0 or seconds <= 0:
            return None
        return self.embedded * (1 / seconds)

    @property
    def rate(self) -> float | None:
        """Chunks embedded (not re-used) per second since embedding began."""
        per_second = self._per_second()
        return None if per_second is None else per_second.chunks

    @property
    def fresh_share(self) -> float:
        """The share of the text that needs embedding (not re-used), so far."""
        return 1.0 - self.reused_here.chars / self.checked.chars if self.checked.chars else 1.0

    def chunks_expected(self) -> float | None:
        """All the chunks the run is expected to have; ``None`` before one document is read."""
        unread = self.estimate.unread()
        return None if unread is None else self.known.chunks + unread.chunks

    def to_embed(self) -> Amount | None:
        """What is still to embed: the known chunks that are not re-used, and a share of
        those not checked yet or not read yet."""
        unread = self.estimate.unread()
        if unread is None:
            return None
        fresh_known = (self.checked - self.reused_here - self.embedded).at_least_none()
        unchecked = (self.known - self.checked).at_least_none()
        return fresh_known + (unchecked + unread) * self.fresh_share

    def eta(self) -> float | None:
        """Seconds left at the current rate; ``None`` until something was embedded."""
        per_second, left = self._per_second(), self.to_embed()
        if per_second is None or left is None:
            return None
        return left.chars / per_second.chars

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
