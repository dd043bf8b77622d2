"""A document between reading and writing, and what ingest does to a batch of them.

A :class:`Prepared` document has its chunks and structural contexts; the LLM stage
sets its contexts (:func:`with_llm`, or :func:`reused_contexts` from the previous
version), the embed stage its vectors (re-used ones first, then :func:`embed_inputs` are
embedded and :func:`fill` puts them in place), and :func:`stored_chunk` makes the chunks
that are written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Container, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from ..models import Chunk, DocumentRecord, EmbedInput, Extraction, Section, StoredChunk
from ..text.sentences import sentence_cuts
from .context_records import ContextJob, ContextResult
from .reuse import Previous


@dataclass
class Prepared:
    """A document ready to embed: record, sections, chunks, contexts, extraction, LLM answers."""

    record: DocumentRecord
    sections: list[Section]
    chunks: list[Chunk]
    contexts: list[str]
    extraction: Extraction
    position: int
    updating: bool
    text: str = ""
    llm: dict[str, ContextResult] = field(default_factory=dict)
    large: bool = False
    previous: Previous = field(default_factory=Previous)
    vectors: list[np.ndarray | None] = field(default_factory=list)
    reused: int = 0
    contexts_reused: int = 0
    windows_embedded: int = 0


def embed_inputs(batch: Sequence[Prepared]) -> list[EmbedInput]:
    """What is left to embed: the chunks without re-used vectors, in order."""
    return [
        EmbedInput(context, chunk.content)
        for p in batch
        for context, chunk, vectors in zip(p.contexts, p.chunks, p.vectors, strict=True)
        if vectors is None
    ]


def fill(batch: Sequence[Prepared], vectors: list[np.ndarray]) -> None:
    """Put the vectors of :func:`embed_inputs` (same batch, same order) in their places."""
    fresh = iter(vectors)
    for prepared in batch:
        for n, old in enumerate(prepared.vectors):
            if old is None:
                prepared.vectors[n] = new = next(fresh)
                prepared.windows_embedded += len(new)


def reused_contexts(batch: Sequence[Prepared]) -> dict[str, ContextResult]:
    """The stored LLM contexts of unchanged chunks (same content, same place; see reuse.py)."""
    results: dict[str, ContextResult] = {}
    for prepared in batch:
        for chunk in prepared.chunks:
            old = prepared.previous.llm_context(chunk)
            if old is not None:
                context = old.llm_context.strip()
                truncated = old.context_truncated
                results[chunk.chunk_id] = ContextResult(
                    chunk.chunk_id, context, "llm", truncated, cached=True
                )
                prepared.contexts_reused += 1
    return results


def context_jobs(batch: Sequence[Prepared], skip: Container[str]) -> list[ContextJob]:
    """A job for the LLM per chunk of the batch, but those whose id is in ``skip``."""
    return [
        ContextJob(
            p.record.source,
            p.record.content_hash,
            p.text,
            chunk.chunk_id,
            sha256(chunk.content),
            chunk.content,
            structural,
        )
        for p in batch
        for chunk, structural in zip(p.chunks, p.contexts, strict=True)
        if chunk.chunk_id not in skip
    ]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def with_llm(structural: str, result: ContextResult | None) -> str:
    """The indexed context: the structural one, then the LLM's words when it answered."""
    if result is None or result.source != "llm" or not result.context.strip():
        return structural
    return f"{structural}\n{result.context.strip()}" if structural else result.context.strip()


def stored_chunk(
    chunk: Chunk, context: str, result: ContextResult | None, contextual: bool
) -> StoredChunk:
    if chunk.sentences is None:  # chunks given whole (ingest_texts) are split here
        chunk = replace(chunk, sentences=sentence_cuts(chunk.content))
    if not contextual:
        return StoredChunk(chunk, context, "none")
    if result is None or result.source != "llm":
        return StoredChunk(chunk, context, "structural", "", bool(result and result.truncated))
    return StoredChunk(chunk, context, "llm", result.context.strip(), result.truncated)
