"""The ingest pipeline: files -> convert -> structure -> chunk -> extract -> contextualize
-> embed -> store.

Each document is one atomic write to the store, so an interrupted run leaves a
consistent index and the next run carries on with the documents not yet stored
(their hashes are missing). Unchanged files are recognised by content hash and
skipped before they are converted. One broken file is reported and skipped;
the rest of the folder is ingested. Chunks of several small documents are
embedded together, in batches, and each document is written once its vectors
are ready.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..models import (
    Chunk,
    ConvertedDocument,
    DocumentRecord,
    Extraction,
    FileProblem,
    IngestReport,
    Section,
    StoredChunk,
)
from ..providers.llm import ContextModel
from ..store.base import Store
from .chunk import ChunkingOptions, chunk_document, document_key
from .code_outline import chunk_scopes
from .context import structural_context
from .contextualize import (
    ContextCache,
    ContextJob,
    ContextProgress,
    ContextResult,
    ContextStats,
    contextualize_sync,
)
from .convert import ConversionError, choose_title, convert_file, discover_files, file_hash
from .embed import Embedder, EmbedInput
from .extract.document import extract_document
from .structure import PREAMBLE_ID, parse_sections
from .tokenizer import Tokenizer

FLUSH_EVERY = 25
EMBED_BATCH = 64
"""Chunks collected across documents before one call to the embedder."""


@dataclass(frozen=True)
class ProgressEvent:
    """``kind`` is one of skip, done, fail; ``position`` counts documents from 1 to ``total``."""

    kind: str
    source: str
    position: int
    total: int


ProgressFn = Callable[[ProgressEvent], None]


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
    chunking: ChunkingOptions
    contextual: bool = True
    force: bool = False
    definitions: bool = True
    cross_references: bool = True
    llm: LLMContexts | None = None


@dataclass(frozen=True)
class TextDocument:
    """A document given as text rather than as a file (benchmark corpora, other stores).

    With ``chunks``, the text is indexed exactly as those chunks (ids from
    ``chunk_ids`` when given), with no structure parsing or splitting. Without
    a ``title`` the title is chosen as for a file (``convert.choose_title``):
    a leading heading or title-like first line, else the source.
    """

    source: str
    text: str
    title: str = ""
    chunks: Sequence[str] | None = None
    chunk_ids: Sequence[str] | None = None

    @property
    def content_hash(self) -> str:
        digest = hashlib.sha256(self.title.encode() + b"\0" + self.text.encode())
        for chunk in self.chunks or ():
            digest.update(b"\0" + chunk.encode())
        return digest.hexdigest()


@dataclass
class _Prepared:
    """A document ready to embed: its record, sections, chunks, contexts and extraction."""

    record: DocumentRecord
    sections: list[Section]
    chunks: list[Chunk]
    contexts: list[str]
    extraction: Extraction
    position: int
    updating: bool
    text: str = ""


def _under(source: str, roots: list[Path]) -> bool:
    path = Path(source)
    return any(path == root or root in path.parents for root in roots)


@dataclass
class _Run:
    report: IngestReport
    notify: ProgressFn
    known: dict[str, str]
    total: int
    pending: list[_Prepared] = field(default_factory=list)
    since_flush: int = 0


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
        roots = [Path(p).resolve() for p in paths]
        files, problems = discover_files(roots)

        def each(run: _Run) -> None:
            for position, path in enumerate(files, start=1):
                self._file(run, path, position)
            present = {str(f) for f in files}
            stale = [s for s in run.known if _under(s, roots) and s not in present]
            self._store.delete_documents(stale)
            run.report.removed += stale

        report = self._session(len(files), progress, each)
        report.problems[:0] = problems
        return report

    def run_texts(
        self, documents: Sequence[TextDocument], progress: ProgressFn | None = None
    ) -> IngestReport:
        """Ingest documents given as text; unchanged ones (same hash) are skipped."""

        def each(run: _Run) -> None:
            for position, document in enumerate(documents, start=1):
                self._text(run, document, position)

        return self._session(len(documents), progress, each)

    def _session(
        self, total: int, progress: ProgressFn | None, body: Callable[[_Run], None]
    ) -> IngestReport:
        started = time.perf_counter()
        if self.options.force:
            self._store.clear()
        known = self._store.document_hashes()
        if self.options.llm and self.options.contextual:
            for source in self._store.sources_with_structural_contexts():
                known[source] = ""  # an LLM context failed last time: redo, the cache has the rest
        run = _Run(IngestReport(), progress or (lambda event: None), known, total)
        try:
            body(run)
            self._write_pending(run)
        finally:
            self._store.flush()
            run.report.seconds = time.perf_counter() - started
        return run.report

    def _file(self, run: _Run, path: Path, position: int) -> None:
        source = str(path)
        try:
            if run.known.get(source) == file_hash(path):
                self._skip(run, source, position)
                return
            document = convert_file(path, source)
            self._queue(run, self._prepare(document, None, position, source in run.known))
        except ConversionError as error:
            self._fail(run, source, error.reason, position)
        except Exception as error:  # one broken file never stops a folder
            self._fail(run, source, f"{type(error).__name__}: {error}", position)

    def _text(self, run: _Run, item: TextDocument, position: int) -> None:
        digest = item.content_hash
        if run.known.get(item.source) == digest:
            self._skip(run, item.source, position)
            return
        title = item.title or choose_title(item.text, None, item.source)
        document = ConvertedDocument(item.source, title, item.text, digest, "text")
        given = None
        if item.chunks is not None:
            given = (list(item.chunks), list(item.chunk_ids) if item.chunk_ids else None)
        try:
            self._queue(run, self._prepare(document, given, position, item.source in run.known))
        except Exception as error:
            self._fail(run, item.source, f"{type(error).__name__}: {error}", position)

    def _skip(self, run: _Run, source: str, position: int) -> None:
        run.report.unchanged.append(source)
        run.notify(ProgressEvent("skip", source, position, run.total))

    def _fail(self, run: _Run, source: str, reason: str, position: int) -> None:
        run.report.problems.append(FileProblem(source, reason))
        if source in run.known:
            self._store.delete_documents([source])
            run.report.removed.append(source)
        run.notify(ProgressEvent("fail", source, position, run.total))

    def _prepare(
        self,
        document: ConvertedDocument,
        given: tuple[list[str], list[str] | None] | None,
        position: int,
        updating: bool,
    ) -> _Prepared:
        if given is None:
            sections = parse_sections(document.text, document.title)
            chunks = chunk_document(document, sections, self._tokenizer, self.options.chunking)
            chunks, extraction = extract_document(sections, chunks)
        else:
            sections, chunks = self._given_chunks(document, *given)
            extraction = Extraction()
        if not self.options.definitions:
            extraction.definitions, extraction.acronyms, extraction.chunk_terms = [], [], []
        if not self.options.cross_references:
            extraction.references = []
        contexts = [structural_context(c) if self.options.contextual else "" for c in chunks]
        record = DocumentRecord(
            document.source,
            document.title,
            document.content_hash,
            document.format,
            len(document.text),
        )
        return _Prepared(
            record, sections, chunks, contexts, extraction, position, updating, document.text
        )

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

    def _queue(self, run: _Run, prepared: _Prepared) -> None:
        run.pending.append(prepared)
        if sum(len(p.chunks) for p in run.pending) >= EMBED_BATCH:
            self._write_pending(run)

    def _write_pending(self, run: _Run) -> None:
        """Situate and embed the chunks of every pending document, then write each document.

        A batch holds whole documents, so an LLM's prompt cache serves all the
        chunks of a document.
        """
        if not run.pending:
            return
        batch, run.pending = run.pending, []
        provenance = self._llm_contexts(batch)
        inputs = [
            EmbedInput(context, chunk.content)
            for p in batch
            for context, chunk in zip(p.contexts, p.chunks, strict=True)
        ]
        try:
            vectors = self._embedder().embed_documents(inputs) if inputs else []
        except Exception as error:  # the embedder failing fails these documents, not the run
            for prepared in batch:
                reason = f"embedding failed: {type(error).__name__}: {error}"
                self._fail(run, prepared.record.source, reason, prepared.position)
            return
        start = 0
        for prepared in batch:
            own = vectors[start : start + len(prepared.chunks)]
            start += len(prepared.chunks)
            self._write(run, prepared, own, provenance)

    def _llm_contexts(self, batch: list[_Prepared]) -> dict[str, ContextResult]:
        """Ask the LLM for each chunk's context (cached ones cost nothing); update ``contexts``."""
        llm = self.options.llm
        if llm is None or not self.options.contextual:
            return {}
        jobs = [
            ContextJob(
                p.record.source,
                p.record.content_hash,
                p.text,
                chunk.chunk_id,
                _sha256(chunk.content),
                chunk.content,
                structural,
            )
            for p in batch
            for chunk, structural in zip(p.chunks, p.contexts, strict=True)
        ]
        outcome = contextualize_sync(
            jobs,
            llm.model,
            llm.cache,
            llm.concurrency,
            llm.max_tokens,
            llm.progress,
            stats=llm.stats,
        )
        results = {r.chunk_id: r for r in outcome.results}
        for prepared in batch:
            prepared.contexts = [
                _with_llm(structural, results.get(chunk.chunk_id))
                for chunk, structural in zip(prepared.chunks, prepared.contexts, strict=True)
            ]
        return results

    def _write(
        self,
        run: _Run,
        prepared: _Prepared,
        vectors: list,
        provenance: dict[str, ContextResult],
    ) -> None:
        stored = [
            _stored(c, context, provenance.get(c.chunk_id), self.options.contextual)
            for c, context in zip(prepared.chunks, prepared.contexts, strict=True)
        ]
        self._store.write_document(
            prepared.record, prepared.sections, stored, vectors, prepared.extraction
        )
        source = prepared.record.source
        (run.report.updated if prepared.updating else run.report.added).append(source)
        run.report.chunks_written += len(stored)
        run.report.texts_embedded += sum(len(v) for v in vectors)
        run.notify(ProgressEvent("done", source, prepared.position, run.total))
        run.since_flush += 1
        if run.since_flush >= FLUSH_EVERY:
            self._store.flush()
            run.since_flush = 0


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _with_llm(structural: str, result: ContextResult | None) -> str:
    """The indexed context: the structural one, then the LLM's words when it answered."""
    if result is None or result.source != "llm" or not result.context.strip():
        return structural
    return f"{structural}\n{result.context.strip()}" if structural else result.context.strip()


def _stored(
    chunk: Chunk, context: str, result: ContextResult | None, contextual: bool
) -> StoredChunk:
    if not contextual:
        return StoredChunk(chunk, context, "none")
    if result is None or result.source != "llm":
        return StoredChunk(chunk, context, "structural", "", bool(result and result.truncated))
    return StoredChunk(chunk, context, "llm", result.context.strip(), result.truncated)
