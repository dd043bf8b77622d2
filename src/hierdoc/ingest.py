"""The ingest pipeline: files -> convert -> structure -> chunk -> contextualize -> embed -> store.

Each file is one atomic write to the store, so an interrupted run leaves a
consistent index and the next run carries on with the files not yet stored
(their hashes are missing). Unchanged files are recognised by content hash and
skipped before they are converted. One broken file is reported and skipped;
the rest of the folder is ingested.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .chunk import ChunkingOptions, chunk_document
from .context import structural_context
from .convert import ConversionError, convert_file, discover_files, file_hash
from .embed import Embedder, EmbedInput
from .extract.document import extract_document
from .index.base import Store
from .index.records import DocumentRecord, StoredChunk
from .models import FileProblem, IngestReport
from .structure import parse_sections
from .tokenizer import Tokenizer

FLUSH_EVERY = 25


@dataclass(frozen=True)
class ProgressEvent:
    """``kind`` is one of skip, done, fail; ``position`` counts files from 1 to ``total``."""

    kind: str
    source: str
    position: int
    total: int


ProgressFn = Callable[[ProgressEvent], None]


@dataclass
class IngestOptions:
    chunking: ChunkingOptions
    contextual: bool = True
    force: bool = False
    definitions: bool = True
    cross_references: bool = True


def _under(source: str, roots: list[Path]) -> bool:
    path = Path(source)
    return any(path == root or root in path.parents for root in roots)


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
        self._options = options

    def run(self, paths: Iterable[str | Path], progress: ProgressFn | None = None) -> IngestReport:
        started = time.perf_counter()
        report = IngestReport()
        notify = progress or (lambda event: None)
        roots = [Path(p).resolve() for p in paths]
        files, problems = discover_files(roots)
        report.problems.extend(problems)
        if self._options.force:
            self._store.clear()
        known = self._store.document_hashes()
        try:
            self._ingest_files(files, known, report, notify)
            stale = [s for s in known if _under(s, roots) and s not in {str(f) for f in files}]
            self._store.delete_documents(stale)
            report.removed += stale
        finally:
            self._store.flush()
            report.seconds = time.perf_counter() - started
        return report

    def _ingest_files(
        self, files: list[Path], known: dict[str, str], report: IngestReport, notify: ProgressFn
    ) -> None:
        since_flush = 0
        total = len(files)
        for position, path in enumerate(files, start=1):
            source = str(path)
            try:
                digest = file_hash(path)
                if known.get(source) == digest:
                    report.unchanged.append(source)
                    notify(ProgressEvent("skip", source, position, total))
                    continue
                written, embedded = self._ingest_one(path, source)
            except ConversionError as error:
                self._fail(source, error.reason, known, report)
                notify(ProgressEvent("fail", source, position, total))
                continue
            except Exception as error:  # one broken file never stops a folder
                self._fail(source, f"{type(error).__name__}: {error}", known, report)
                notify(ProgressEvent("fail", source, position, total))
                continue
            (report.updated if source in known else report.added).append(source)
            report.chunks_written += written
            report.texts_embedded += embedded
            notify(ProgressEvent("done", source, position, total))
            since_flush += 1
            if since_flush >= FLUSH_EVERY:
                self._store.flush()
                since_flush = 0

    def _fail(self, source: str, reason: str, known: dict[str, str], report: IngestReport) -> None:
        report.problems.append(FileProblem(source, reason))
        if source in known:
            self._store.delete_documents([source])
            report.removed.append(source)

    def _ingest_one(self, path: Path, source: str) -> tuple[int, int]:
        document = convert_file(path, source)
        sections = parse_sections(document.text, document.title)
        chunks = chunk_document(document, sections, self._tokenizer, self._options.chunking)
        chunks, extraction = extract_document(sections, chunks)
        if not self._options.definitions:
            extraction.definitions, extraction.acronyms, extraction.chunk_terms = [], [], []
        if not self._options.cross_references:
            extraction.references = []
        contexts = [structural_context(c) if self._options.contextual else "" for c in chunks]
        embedder = self._embedder()
        vectors = embedder.embed_documents(
            [EmbedInput(context, c.content) for context, c in zip(contexts, chunks, strict=False)]
        )
        record = DocumentRecord(
            source, document.title, document.content_hash, document.format, len(document.text)
        )
        stored = [StoredChunk(c, context) for c, context in zip(chunks, contexts, strict=False)]
        self._store.write_document(record, sections, stored, vectors, extraction)
        return len(chunks), sum(len(v) for v in vectors)
