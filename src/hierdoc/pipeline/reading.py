"""Reading ahead of the embedder: convert, parse, chunk, split sentences and extract on a
thread of its own while the main thread embeds and writes.

The model's forward pass releases the GIL, so the CPU work of the next documents runs on
the second core while the current ones embed (BENCHMARKS.md, "Ingest work besides embedding"). The
thread never touches the store, the report or the progress tracker: it posts one event per
step, in document order (:class:`Skipped`, :class:`Failed`, :class:`Staged`,
:class:`Ready`), and the main thread handles them as a sequential run did. Every write
stays on the main thread, one document at a time, so an interrupted ingest leaves the same
consistent, resumable index.

A document is ready to embed once it is chunked: what is embedded is its chunks' text and
structural context. Its sentence offsets, chunk types and extraction (:class:`Details`)
follow on the thread while its chunks embed, and the main thread waits for them only
before it writes the document, so one long PDF overlaps too.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType

from ..config import IngestSettings
from ..models import (
    Chunk,
    ConvertedDocument,
    DocumentRecord,
    Extraction,
    Section,
    TextDocument,
)
from ..text.invisible import clean_text
from ..text.sentences import sentence_cuts
from ..text.tokenizer import Tokenizer
from .chunk import chunk_document, document_key
from .code_outline import chunk_scopes
from .context import structural_context
from .convert import ConversionError, choose_title, convert_file, file_hash
from .extract.document import extract_document
from .failures import reason as _reason
from .limits import Limits, depth_reason
from .metadata import self_names
from .prepared import Prepared
from .progress import is_large
from .structure import PREAMBLE_ID, parse_sections

_log = logging.getLogger(__name__)

CHUNKS_AHEAD = 256
"""Chunks of documents read but not yet taken by the main thread before the reader waits
(a document larger than this still goes alone)."""
WAKE_EVERY = 64
"""Events without chunks handed over before the main thread is woken for them (it is woken
at once for a document to write, and when the reader ends)."""


@dataclass(frozen=True)
class Skipped:
    """The document is unchanged (same content hash)."""

    source: str
    position: int


@dataclass(frozen=True)
class Failed:
    """The document could not be read; ``reason`` is the report's line."""

    source: str
    reason: str
    position: int


@dataclass(frozen=True)
class Staged:
    """A large document reached a stage (a progress line)."""

    source: str
    position: int
    stage: str
    chunks: int = 0


@dataclass(frozen=True)
class Details:
    """What a document needs before it is written but not before it is embedded."""

    chunks: list[Chunk]
    """The same chunks with their sentence offsets and types."""
    extraction: Extraction


@dataclass(frozen=True)
class Ready:
    """A chunked document; ``details`` follows (it may hold the reader's exception)."""

    prepared: Prepared
    details: Future[Details]


Event = Skipped | Failed | Staged | Ready
Post = Callable[[Event], None]


class Reader:
    """The reading side of an ingest: files or texts to :class:`Ready` documents.

    ``known`` maps each stored source to its content hash (unchanged ones are skipped)."""

    def __init__(
        self,
        tokenizer: Tokenizer,
        settings: IngestSettings,
        known: dict[str, str],
    ) -> None:
        self._tokenizer = tokenizer
        self._settings = settings
        self._known = known

    def files(self, files: Sequence[Path], post: Post) -> None:
        for position, path in enumerate(files, start=1):
            self._file(path, position, post)

    def texts(self, documents: Sequence[TextDocument], post: Post) -> None:
        for position, document in enumerate(documents, start=1):
            self._text(document, position, post)

    def _file(self, path: Path, position: int, post: Post) -> None:
        source = str(path)
        settings = self._settings
        try:
            limits = Limits.from_settings(settings)
            if self._known.get(source) == file_hash(path, limits):
                post(Skipped(source, position))
                return
            size = path.stat().st_size
            if is_large(size):
                post(Staged(source, position, "converting"))
            document = convert_file(
                path,
                source,
                limits,
                docx_converter=settings.docx_converter,
                pdf_converter=settings.pdf_converter,
            )
            prepared = self._chunked(document, None, position, post, size)
        except Exception as error:  # one broken file never stops a folder
            reason = error.reason if isinstance(error, ConversionError) else _reason("", error)
            post(Failed(source, reason, position))
            return
        self._hand_over(prepared, False, post)

    def _text(self, item: TextDocument, position: int, post: Post) -> None:
        digest = item.content_hash
        if self._known.get(item.source) == digest:
            post(Skipped(item.source, position))
            return
        # Given chunks are substrings of the text as given: it is cleaned only without them.
        text = item.text if item.chunks is not None else clean_text(item.text)
        title = item.title or choose_title(text, None, item.source)
        names = self_names(text) if item.chunks is None else []
        metadata = {"names": names} if names else {}
        document = ConvertedDocument(item.source, title, text, digest, "text", metadata=metadata)
        given = None
        if item.chunks is not None:
            given = (list(item.chunks), list(item.chunk_ids) if item.chunk_ids else None)
        try:
            prepared = self._chunked(document, given, position, post)
        except Exception as error:
            post(Failed(item.source, _reason("", error), position))
            return
        self._hand_over(prepared, given is not None, post)

    def _hand_over(self, prepared: Prepared, given: bool, post: Post) -> None:
        """Post the chunked document, then work out its details while it embeds."""
        details: Future[Details] = Future()
        post(Ready(prepared, details))
        try:
            details.set_result(self._details(prepared, given))
        except Exception as error:  # the main thread reports it when it would write
            details.set_exception(error)

    def _chunked(
        self,
        document: ConvertedDocument,
        given: tuple[list[str], list[str] | None] | None,
        position: int,
        post: Post,
        size: int = 0,
    ) -> Prepared:
        """The document parsed and chunked, with its structural contexts: what embedding
        needs. Sentence offsets and extraction come later (:meth:`_details`)."""
        source = document.source
        large = is_large(max(size, len(document.text)))
        if given is None:
            if large:
                post(Staged(source, position, "structure"))
            sections = parse_sections(document.text, document.title)
            depth = max(section.level for section in sections)
            if reason := depth_reason(depth, Limits.from_settings(self._settings)):
                raise ConversionError(reason)
            chunks = chunk_document(
                document, sections, self._tokenizer, self._settings, sentences=False
            )
        else:
            sections, chunks = self._given_chunks(document, *given)
        contextual = self._settings.contextual_embeddings
        contexts = [structural_context(c) if contextual else "" for c in chunks]
        large = large or is_large(0, len(chunks))
        if large:
            post(Staged(source, position, "chunks", len(chunks)))
        record = DocumentRecord(
            source,
            document.title,
            document.content_hash,
            document.format,
            len(document.text),
            pages=document.pages,
            metadata=dict(document.metadata),
        )
        updating = source in self._known
        return Prepared(
            record, sections, chunks, contexts, Extraction(), position, updating,
            document.text, large=large,
        )  # fmt: skip

    def _details(self, prepared: Prepared, given: bool) -> Details:
        chunks = [replace(c, sentences=sentence_cuts(c.content)) for c in prepared.chunks]
        extraction = Extraction()
        if not given:
            chunks, extraction = _extracted(prepared.sections, chunks)
        if not self._settings.extract_definitions:
            extraction.definitions, extraction.acronyms, extraction.chunk_terms = [], [], []
            for part in ("definitions", "acronyms"):
                extraction.problems.pop(part, None)
        if not self._settings.extract_cross_references:
            extraction.references = []
            extraction.problems.pop("cross-references", None)
        return Details(chunks, extraction)

    def _given_chunks(
        self, document: ConvertedDocument, texts: list[str], ids: list[str] | None
    ) -> tuple[list[Section], list[Chunk]]:
        title = document.title or document.source
        root = Section(PREAMBLE_ID, title, 0, (title,), (), document.text, "", 0, "preamble")
        key = document_key(document.source)
        scopes = chunk_scopes(document.text, texts)
        chunks = [
            Chunk(
                chunk_id=ids[n] if ids else f"{key}:{PREAMBLE_ID}:{n}",
                source=document.source,
                title=title,
                section_id=PREAMBLE_ID,
                heading=scopes[n][-1] if scopes[n] else title,
                parent_chain=(title, *scopes[n]),
                section_path=(PREAMBLE_ID,),
                content=text,
                ordinal=n,
                token_count=self._tokenizer.count(text),
                sections=(PREAMBLE_ID,) if n == 0 else (),
            )
            for n, text in enumerate(texts)
        ]
        return [root], chunks


def _extracted(sections: list[Section], chunks: list[Chunk]) -> tuple[list[Chunk], Extraction]:
    """:func:`extract_document`'s chunks and extraction; when it fails as a whole, the
    chunks as they are and nothing extracted, the failure named: the text is still indexed."""
    try:
        return extract_document(sections, chunks)
    except Exception as error:  # an extraction fault never keeps a document's text out
        _log.exception("nothing extracted from %s", chunks[0].source if chunks else "?")
        reason = f"{type(error).__name__}: {error}"
        parts = ("definitions", "acronyms", "cross-references")
        return chunks, Extraction(problems=dict.fromkeys(parts, reason))


class _Stopped(Exception):
    """The main thread left: the reader stops at its next post."""


class ReadAhead:
    """Runs ``produce(post)`` on a thread; iterating gives the events it posts, in order.

    The reader waits while ``chunks_ahead`` chunks of ready documents are not yet taken. An
    exception that escapes ``produce`` is raised in the main thread once the events posted
    before it are taken. Leaving the ``with`` block stops the reader at its next post; on
    an error the thread (a daemon, which never touches the store) is not waited for."""

    def __init__(self, produce: Callable[[Post], None], chunks_ahead: int = CHUNKS_AHEAD) -> None:
        self._events: deque[Event] = deque()
        self._changed = threading.Condition()
        self._ahead = 0
        self._limit = chunks_ahead
        self._done = False
        self._stopped = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(produce,), name="hierdoc-read-ahead", daemon=True
        )

    def __enter__(self) -> ReadAhead:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        with self._changed:
            self._stopped = True
            self._changed.notify_all()
        if kind is None:
            self._thread.join()

    def __iter__(self) -> Iterator[Event]:
        while True:
            with self._changed:
                while not self._events and not self._done:
                    self._changed.wait()
                if not self._events:
                    if self._error is not None:
                        raise self._error
                    return
                taken = list(self._events)
                self._events.clear()
                self._ahead -= sum(_chunks(event) for event in taken)
                self._changed.notify_all()
            yield from taken

    def _post(self, event: Event) -> None:
        """Hand an event over. Events without chunks (an unchanged file, a failure) wake the
        main thread only :data:`WAKE_EVERY` at a time: a re-ingest of thousands of unchanged
        files spent more time passing the lock back and forth than hashing them."""
        size = _chunks(event)
        with self._changed:
            while self._ahead and self._ahead + size > self._limit and not self._stopped:
                self._changed.wait()
            if self._stopped:
                raise _Stopped
            self._events.append(event)
            self._ahead += size
            if size or len(self._events) >= WAKE_EVERY:
                self._changed.notify_all()

    def _run(self, produce: Callable[[Post], None]) -> None:
        try:
            produce(self._post)
        except _Stopped:
            pass
        except BaseException as error:  # handed to the main thread
            self._error = error
        finally:
            with self._changed:
                self._done = True
                self._changed.notify_all()


def _chunks(event: Event) -> int:
    return len(event.prepared.chunks) if isinstance(event, Ready) else 0
