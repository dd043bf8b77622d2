"""Cached evaluation indexes: one per corpus, ingest settings and version of the ingest code.

An index lives under the run's ``index_dir`` in a folder named by a digest of
the corpus fingerprint, the ingest settings (:func:`~.variants.ingest_key`) and
:func:`pipeline_digest`. Reopening it re-ingests nothing when nothing changed;
the embedding cache serves any window already embedded.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .. import config, models, pipeline, store, text
from ..api import Index
from ..config import Settings
from ..pipeline.progress import DOCUMENT_KINDS, ProgressEvent
from .datasets import EvalCorpus
from .embed_cache import CachingEmbedder
from .judging import ChunkTable
from .report import IndexInfo

Log = Callable[[str], None]

INGEST_SIDE: tuple[ModuleType, ...] = (pipeline, store, text, models, config)
"""The code that decides what an ingest writes: every module of the ``pipeline``, ``store``
and ``text`` packages (however deep; ``text`` holds the analyzer that turns chunk text into
BM25 terms, the tokenizer, the normalisers and the name keys), the record types and the
settings."""

_PACKAGE_ROOT = Path(models.__file__).resolve().parent


def ingest_side_files() -> list[Path]:
    """The source files of :data:`INGEST_SIDE`: a package's ``*.py`` files at any depth, a
    module's own file; sorted by their path in the ``hierdoc`` package."""
    files: set[Path] = set()
    for module in INGEST_SIDE:
        path = Path(module.__file__ or "").resolve()
        files.update(path.parent.rglob("*.py") if path.name == "__init__.py" else [path])
    return sorted(files, key=lambda f: f.relative_to(_PACKAGE_ROOT).as_posix())


def pipeline_digest() -> str:
    """A digest of the ingest side's source (:func:`ingest_side_files`, each file's path in the
    package and its bytes), so that a cached index built by other ingest code is never reused.

    The rule is by module, not by file name: a module added to or moved within the
    ``pipeline``, ``store`` or ``text`` packages is covered with no edit here, and a module of
    :data:`INGEST_SIDE` that moves is found at its new place through its import. Modules
    that only search, serve or evaluate (``search``, ``api``, ``cli``,
    ``mcp``, ``tools``, ``eval``) are left out: a change to them reuses the indexes. What
    ``api`` contributes to an ingest is recorded in the index's own fingerprint
    (settings, ``EXTRACTION_VERSION``, models), which re-ingests on a change.
    """
    digest = hashlib.sha1()
    for file in ingest_side_files():
        digest.update(file.relative_to(_PACKAGE_ROOT).as_posix().encode() + b"\0")
        digest.update(file.read_bytes())
    return digest.hexdigest()[:12]


@dataclass
class OpenIndex:
    """An index ready to search, with what the report says of it and its chunk table."""

    index: Index
    info: IndexInfo
    table: ChunkTable


def open_index(
    corpus: EvalCorpus, key: dict[str, Any], root: Path, embedder: CachingEmbedder, log: Log
) -> OpenIndex:
    """Open (building or updating it as needed) the index of ``corpus`` with ingest
    settings ``key`` under ``root``, with its glossary built before anything is timed."""
    identity = [corpus.fingerprint(), key, pipeline_digest()]
    digest = hashlib.sha1(json.dumps(identity).encode()).hexdigest()[:10]
    directory = root / f"{corpus.name}-{digest}"
    index = Index.open(directory, Settings(**key), embedder=embedder)
    label = ", ".join(f"{k}={v}" for k, v in key.items() if getattr(Settings(), k) != v)
    label = label or "default ingest settings"
    before = embedder.computed
    log(f"[{corpus.name}] index ({label}): checking {len(corpus.documents)} documents")
    report = index.ingest_texts(corpus.documents, progress=_ingest_progress(corpus.name, log))
    if report.problems:
        problems = "; ".join(f"{p.source}: {p.reason}" for p in report.problems[:3])
        raise RuntimeError(f"{len(report.problems)} documents failed to ingest: {problems}")
    index.glossary()
    stats = index.stats()
    table = ChunkTable.load(index, corpus)
    info = IndexInfo(
        label,
        str(directory),
        key,
        stats.documents,
        stats.chunks,
        stats.vectors,
        round(report.seconds, 1),
        embedder.computed - before,
        table.unlocated,
    )
    log(
        f"[{corpus.name}] index ({label}): {info.chunks} chunks, {info.windows} windows, "
        f"{info.windows_embedded} embedded now, {info.ingest_seconds:.0f} s"
    )
    return OpenIndex(index, info, table)


PROGRESS_SECONDS = 5.0
"""At most one ingest progress line this often (and one for the first and last document)."""


def _ingest_progress(name: str, log: Log) -> Callable[[ProgressEvent], None]:
    last = [0.0]

    def progress(event: ProgressEvent) -> None:
        if event.kind not in DOCUMENT_KINDS:
            return
        now = time.monotonic()
        edge = event.position in (1, event.total)
        if not edge and now - last[0] < PROGRESS_SECONDS:
            return
        last[0] = now
        log(
            f"[{name}] ingest {event.position}/{event.total} documents, "
            f"{event.chunks_done}/{event.chunks_known} chunks embedded or re-used"
        )

    return progress
