"""The ingest pipeline: files -> convert -> structure -> chunk -> extract -> contextualize
-> embed -> store.

Each document is one atomic write to the store, so an interrupted run leaves a
consistent index and the next run carries on with the documents not yet stored
(their hashes are missing). Unchanged files are recognised by content hash and
skipped before they are converted. Chunks of several small documents are
embedded together, in batches, and each document is written once its vectors
are ready. A document that fails (conversion, embedding, store) is reported
under its own source and the rest of its batch is written; a failure never
deletes, so a failed re-ingest keeps the previous version and hash (searchable,
retried next run). A model refusing for good (401, 403, 404) stops the run.

A changed document keeps what did not change: the vectors of chunks whose embedding
input is the same, and the LLM contexts of chunks with the same content and place
(``reuse.py``). Progress events count documents, chunks embedded (with a rate and an
ETA) and the stages of large documents (``progress.py``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..config import IngestSettings
from ..errors import FatalProviderError
from ..faults import crash_point
from ..models import Chunk, EmbedInput, FileProblem, IngestReport, TextDocument
from ..providers.llm import ContextModel
from ..providers.retry import describe
from ..store.base import ContextCache, Store, WriterLockLost
from ..text.tokenizer import Tokenizer
from .contextualize import (
    ContextProgress,
    ContextStats,
    contextualize_sync,
)
from .convert import discover_files
from .embed import Embedder
from .failures import cause as _cause
from .failures import isolable as _isolable
from .failures import reason as _reason
from .prepared import (
    Prepared,
    context_jobs,
    embed_inputs,
    fill,
    reused_contexts,
    stored_chunk,
    with_llm,
)
from .progress import Amount, ProgressFn, Tracker, Work
from .progress import ProgressEvent as ProgressEvent  # also importable from here
from .reading import Details, Failed, Post, ReadAhead, Reader, Ready, Skipped
from .reuse import Previous

FLUSH_EVERY = 25
EMBED_BATCH = 64
"""Chunks collected across documents before they are embedded."""
EMBED_SLICE = 64
"""Chunks per call to the embedder: a progress event follows each call."""


def _amount(chunks: Sequence[Chunk]) -> Amount:
    return Amount.of(c.content for c in chunks)


class IngestStopped(FatalProviderError):
    """A model refused for good and the run stopped; ``report`` says what was done before."""

    def __init__(self, message: str, report: IngestReport) -> None:
        super().__init__(message)
        self.report = report


_FIXES = {
    401: "the API key was rejected: set a valid key for this provider",
    403: "the key has no access to this model: check its permissions or choose another model",
    404: "the model or deployment was not found: check its name",
}


@dataclass
class LLMContexts:
    """How to have an LLM situate each chunk in its document (contextual retrieval)."""

    model: ContextModel
    cache: ContextCache
    concurrency: int = 10
    max_tokens: int = 100
    progress: Callable[[ContextProgress], None] | None = None
    stats: ContextStats = field(default_factory=ContextStats)


@dataclass
class IngestOptions:
    settings: IngestSettings
    force: bool = False
    """Read and write every document again, re-using nothing (the caller has the store
    write into an empty index: ``Store.begin_rebuild``)."""
    llm: LLMContexts | None = None

    @property
    def contextual(self) -> bool:
        return self.settings.contextual_embeddings


def is_under(source: str, roots: list[Path]) -> bool:
    """Whether ``source`` is one of ``roots`` or inside one of them (compared as strings:
    this runs once per stored document on every folder ingest)."""
    for root in map(str, roots):
        if source == root or source.startswith(root.rstrip(os.sep) + os.sep):
            return True
    return False


@dataclass
class _Run:
    report: IngestReport
    tracker: Tracker
    known: dict[str, str]
    pending: list[Prepared] = field(default_factory=list)
    since_flush: int = 0
    details: dict[int, Future[Details]] = field(default_factory=dict)
    """By document position: what the reading thread finds after a document is chunked."""


class Ingestor:
    def __init__(
        self,
        store: Store,
        embedder: Callable[[], Embedder],
        tokenizer: Tokenizer,
        options: IngestOptions,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._tokenizer = tokenizer
        self.options = options

    def run(self, paths: Iterable[str | Path], progress: ProgressFn | None = None) -> IngestReport:
        """Ingest files and folders; remove what was indexed under them and is gone."""
        roots = [Path(os.path.realpath(p)) for p in paths]  # never raises on a symlink loop
        files, problems = discover_files(roots, self.options.settings.follow_symlinks_outside)

        def each(run: _Run) -> None:
            self._read(run, lambda reader, post: reader.files(files, post))
            present = {str(f) for f in files}
            stale = [s for s in run.known if is_under(s, roots) and s not in present]
            self._store.delete_documents(stale)
            run.report.removed += stale

        report = self._session([Work.of_file(f) for f in files], progress, each)
        report.problems[:0] = problems
        return report

    def run_texts(
        self, documents: Sequence[TextDocument], progress: ProgressFn | None = None
    ) -> IngestReport:
        """Ingest documents given as text; unchanged ones (same hash) are skipped."""

        def each(run: _Run) -> None:
            self._read(run, lambda reader, post: reader.texts(documents, post))

        return self._session([Work("text", len(d.text)) for d in documents], progress, each)

    def _session(
        self, work: list[Work], progress: ProgressFn | None, body: Callable[[_Run], None]
    ) -> IngestReport:
        started = time.perf_counter()
        known = {} if self.options.force else self._known()
        run = _Run(IngestReport(), Tracker(progress or (lambda event: None), work), known)
        try:
            body(run)
            self._write_pending(run)
        finally:
            self._store.flush()
            run.report.seconds = time.perf_counter() - started
        return run.report

    def _known(self) -> dict[str, str]:
        """Source -> content hash of the stored documents (an unchanged file is skipped)."""
        known = self._store.document_hashes()
        if self.options.llm and self.options.contextual:
            for source in self._store.sources_with_context("structural"):
                known[source] = ""  # an LLM context failed last time: redo, the cache has the rest
        return known

    def _read(self, run: _Run, produce: Callable[[Reader, Post], None]) -> None:
        """Handle, in order, what a reading thread posts (see ``reading.py``)."""
        reader = Reader(self._tokenizer, self.options.settings, run.known)
        with ReadAhead(lambda post: produce(reader, post)) as events:
            for event in events:
                if isinstance(event, Ready):
                    self._ready(run, event)
                elif isinstance(event, Skipped):
                    self._skip(run, event.source, event.position)
                elif isinstance(event, Failed):
                    self._fail(run, event.source, event.reason, event.position)
                else:
                    run.tracker.stage(event.source, event.position, event.stage, event.chunks)

    def _ready(self, run: _Run, event: Ready) -> None:
        prepared = event.prepared
        if prepared.updating and not self.options.force:
            prepared.previous = Previous.load(self._store, prepared.record.source)
        run.details[prepared.position] = event.details
        self._queue(run, prepared)

    def _skip(self, run: _Run, source: str, position: int) -> None:
        run.report.unchanged.append(source)
        run.tracker.document("skip", source, position)

    def _fail(self, run: _Run, source: str, reason: str, position: int) -> None:
        """Report a document that was not written; a version stored before stays, hash and all."""
        if source in run.known:
            reason += "; the previous version stays indexed"
        run.report.problems.append(FileProblem(source, reason))
        run.tracker.document("fail", source, position)

    def _fail_all(self, run: _Run, batch: Sequence[Prepared], reason: str) -> None:
        for prepared in batch:
            run.tracker.forget(_amount(prepared.chunks))
            self._fail(run, prepared.record.source, reason, prepared.position)

    def _stop(
        self, run: _Run, rest: Sequence[Prepared], model: str, error: BaseException
    ) -> IngestStopped:
        """The error that ends the run after ``model`` refused for good; ``rest`` is unwritten."""
        failure, cause = _cause(error)
        answer = f"HTTP {failure.status}" if failure.status else "a refusal"
        self._fail_all(run, rest, f"not indexed: the run stopped when {model} answered {answer}")
        fix = _FIXES.get(failure.status or 0, "check its configuration")
        written = len(run.report.added) + len(run.report.updated)
        kept = f"{written} document(s) written before stay indexed; run again to go on"
        if self.options.force:
            kept = "the rebuild was dropped and the index keeps the documents it held"
        return IngestStopped(
            f"ingest stopped: {model} refused the request ({answer}): {fix}; {kept} "
            f"({describe(cause)})",
            run.report,
        )

    def _queue(self, run: _Run, prepared: Prepared) -> None:
        run.pending.append(prepared)
        run.tracker.read(_amount(prepared.chunks), prepared.position)
        if sum(len(p.chunks) for p in run.pending) >= EMBED_BATCH:
            self._write_pending(run)

    def _write_pending(self, run: _Run) -> None:
        """Situate and embed the chunks of every pending document, then write each document.

        A batch holds whole documents, so an LLM's prompt cache serves all the chunks of one;
        each document ends written or among the problems."""
        if not run.pending:
            return
        batch, run.pending = run.pending, []
        try:
            self._llm_contexts(run, batch)
        except FatalProviderError as error:
            name = self.options.llm.model.name if self.options.llm else ""
            raise self._stop(run, batch, f"the context model {name}", error) from error
        except Exception as error:  # contexts degrade per chunk; anything else fails the batch
            self._fail_all(run, batch, _reason("contexts failed: ", error))
            return
        self._reuse_vectors(run, batch)
        inputs = embed_inputs(batch)
        embedder = self._embedder() if inputs else None  # one that cannot load stops the run
        try:
            vectors = self._embed(run, embedder, inputs, batch[-1]) if embedder else []
        except Exception as error:
            assert embedder is not None
            self._embedding_failed(run, batch, embedder, error)
            return
        fill(batch, vectors)
        for prepared in batch:
            self._write(run, prepared)

    def _reuse_vectors(self, run: _Run, batch: list[Prepared]) -> None:
        """Give each chunk the stored vectors of the same embedding input, where there are."""
        for prepared in batch:
            prepared.vectors = prepared.previous.vectors_for(prepared.contexts, prepared.chunks)
            prepared.previous = Previous()  # read once: let it go
            prepared.reused = reused = sum(v is not None for v in prepared.vectors)
            if prepared.large:
                source, position = prepared.record.source, prepared.position
                run.tracker.stage(source, position, "embedding", len(prepared.chunks), reused)
        reused = Amount.of(
            c.content
            for p in batch
            for c, v in zip(p.chunks, p.vectors, strict=True)
            if v is not None
        )
        checked = _amount([c for p in batch for c in p.chunks])
        run.tracker.reused(reused, checked, batch[-1].record.source, batch[-1].position)

    def _embed(
        self, run: _Run, embedder: Embedder, inputs: list[EmbedInput], last: Prepared
    ) -> list[np.ndarray]:
        """Embed in slices, telling the tracker after each; a failure takes the counts back."""
        vectors: list[np.ndarray] = []
        try:
            for start in range(0, len(inputs), EMBED_SLICE):
                part = inputs[start : start + EMBED_SLICE]
                began = time.perf_counter()
                vectors += embedder.embed_documents(part)
                seconds = time.perf_counter() - began
                done = Amount.of(i.text for i in part)
                run.tracker.embedded_now(done, seconds, last.record.source, last.position)
        except Exception:
            run.tracker.undo(Amount.of(i.text for i in inputs[: len(vectors)]))
            raise
        return vectors

    def _embedding_failed(
        self, run: _Run, batch: list[Prepared], embedder: Embedder, error: Exception
    ) -> None:
        """Find the documents of a failed batch that the embedder refuses, by embedding each
        alone; not when it is down (retries spent) or refuses for good (the run stops)."""
        rest = batch
        if len(batch) > 1 and _isolable(error):
            rest = []
            for n, prepared in enumerate(batch):
                try:
                    inputs = embed_inputs([prepared])
                    vectors = self._embed(run, embedder, inputs, prepared) if inputs else []
                except Exception as own:
                    if not _isolable(own):
                        error, rest = own, batch[n:]
                        break
                    self._fail_all(run, [prepared], _reason("embedding failed: ", own))
                    continue
                fill([prepared], vectors)
                self._write(run, prepared)
        if rest and _cause(error)[0].kind == "fatal":
            raise self._stop(run, rest, f"the embedding model {embedder.name}", error) from error
        self._fail_all(run, rest, _reason("embedding failed: ", error))

    def _llm_contexts(self, run: _Run, batch: list[Prepared]) -> None:
        """Ask the LLM for each chunk's context (cached and re-used ones cost nothing); set
        ``contexts``."""
        llm = self.options.llm
        if llm is None or not self.options.contextual:
            return
        results = reused_contexts(batch)
        jobs = context_jobs(batch, skip=results)
        for prepared in batch:
            if prepared.large:
                reused = prepared.contexts_reused
                source, position = prepared.record.source, prepared.position
                run.tracker.stage(source, position, "contexts", len(prepared.chunks), reused)
        if jobs:
            outcome = contextualize_sync(
                jobs,
                llm.model,
                llm.cache,
                llm.concurrency,
                llm.max_tokens,
                llm.progress,
                stats=llm.stats,
            )
            results.update((r.chunk_id, r) for r in outcome.results)
        for prepared in batch:
            prepared.llm = results
            prepared.contexts = [
                with_llm(structural, results.get(chunk.chunk_id))
                for chunk, structural in zip(prepared.chunks, prepared.contexts, strict=True)
            ]

    def _detailed(self, run: _Run, prepared: Prepared) -> bool:
        """Give the document its sentence offsets, chunk types and extraction, waiting for
        the reading thread; a failure there fails the document (it is not written)."""
        details = run.details.pop(prepared.position, None)
        if details is None:
            return True
        try:
            found = details.result()
        except Exception as error:
            self._fail(run, prepared.record.source, _reason("", error), prepared.position)
            return False
        assert [c.chunk_id for c in found.chunks] == [c.chunk_id for c in prepared.chunks]
        prepared.chunks, prepared.extraction = found.chunks, found.extraction
        return True

    def _write(self, run: _Run, prepared: Prepared) -> None:
        if not self._detailed(run, prepared):
            return
        vectors = [v for v in prepared.vectors if v is not None]
        assert len(vectors) == len(prepared.chunks), "every chunk has its vectors"
        stored = [
            stored_chunk(c, context, prepared.llm.get(c.chunk_id), self.options.contextual)
            for c, context in zip(prepared.chunks, prepared.contexts, strict=True)
        ]
        source = prepared.record.source
        crash_point("before-write")
        try:
            self._store.write_document(
                prepared.record, prepared.sections, stored, vectors, prepared.extraction
            )
        except WriterLockLost:  # no document can be written: the run stops
            raise
        except Exception as error:  # the store rolled this document back; the others go on
            self._fail(run, source, _reason("not written: ", error), prepared.position)
            return
        (run.report.updated if prepared.updating else run.report.added).append(source)
        report = run.report
        report.warnings += [
            FileProblem(source, f"{part} not extracted ({why}); the rest is indexed")
            for part, why in prepared.extraction.problems.items()
        ]
        report.chunks_written += len(stored)
        report.chunks_reused += prepared.reused
        report.chunks_embedded += len(stored) - prepared.reused
        report.contexts_reused += prepared.contexts_reused
        report.texts_embedded += prepared.windows_embedded
        run.tracker.document("done", source, prepared.position)
        run.since_flush += 1
        if run.since_flush >= FLUSH_EVERY:
            self._store.flush()
            run.since_flush = 0
