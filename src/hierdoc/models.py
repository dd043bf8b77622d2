"""Typed data passed between the pipeline stages.

Every stage takes and returns these plain frozen dataclasses, so that a stage
can be tested, replaced or run on its own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

ChunkType = Literal["content", "header", "definition", "requirement"]
CHUNK_TYPES: tuple[str, ...] = get_args(ChunkType)
SearchMode = Literal["hybrid", "semantic", "keyword", "exact"]
SEARCH_MODES: tuple[str, ...] = get_args(SearchMode)
MODALITIES = ("semantic", "keyword", "exact")
"""The ranked lists a hybrid search fuses; the single modes are their names."""


@dataclass(frozen=True)
class ConvertedDocument:
    """A source file turned into Markdown (or plain text)."""

    source: str
    title: str
    text: str
    content_hash: str
    format: str
    page_starts: tuple[int, ...] = ()
    """Where each physical page (1-based, in order) starts in ``text``: empty for formats
    without pages."""
    pages: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)
    """Document properties (front matter, Word/PDF properties, HTML meta): title, date,
    type, tags..."""


@dataclass(frozen=True)
class Section:
    """A node of a document's structure tree.

    ``body`` is the text between this section's heading and the next heading,
    verbatim; ``path`` holds the ids of the ancestors, outermost first.
    """

    section_id: str
    heading: str
    level: int
    parent_chain: tuple[str, ...]
    path: tuple[str, ...]
    body: str
    heading_line: str = ""
    ordinal: int = 0
    kind: str = "heading"
    """"preamble", "heading", a block kind such as "article", or "enum"."""


@dataclass(frozen=True)
class Chunk:
    """A retrievable unit: a section or a piece of one."""

    chunk_id: str
    source: str
    title: str
    section_id: str
    heading: str
    parent_chain: tuple[str, ...]
    section_path: tuple[str, ...]
    content: str
    ordinal: int
    token_count: int
    chunk_type: ChunkType = "content"
    overlap_chars: int = 0
    sections: tuple[str, ...] = ()
    """Ids of the sections that begin in this chunk (numbered paragraphs, points)."""
    page_start: int | None = None
    """The physical page (1-based) the chunk starts on, for documents with pages."""
    page_end: int | None = None
    sentences: tuple[int, ...] | None = field(default=None, compare=False)
    """Where each sentence of ``content`` but the first starts (text.sentences.sentence_cuts),
    computed at ingest so that a search never segments text; None when not stored (an index
    written before they were), and then computed when needed."""

    @property
    def breadcrumb(self) -> str:
        return " > ".join(self.parent_chain)


LOOKED_UP = "sentence"
"""The style of a definition found at the lookup from a sentence defining the term
(:mod:`hierdoc.search.term_lookup`), not stored at ingest."""


@dataclass(frozen=True)
class Definition:
    """A defined term of one document, with where it is defined."""

    term: str
    definition: str
    source: str
    section_id: str
    chunk_id: str
    style: str = "means"

    def to_dict(self) -> dict:
        return {
            "term": self.term,
            "definition": self.definition,
            "source": self.source,
            "section_id": self.section_id,
            "chunk_id": self.chunk_id,
            "style": self.style,
        }


@dataclass(frozen=True)
class Acronym:
    acronym: str
    long_form: str
    source: str
    chunk_id: str


@dataclass(frozen=True)
class CrossRef:
    """A reference from a chunk to a section: resolved when the target exists in the corpus."""

    text: str
    source: str
    chunk_id: str
    section_id: str
    target_section_id: str | None
    target_source: str | None = None
    external: bool = False

    @property
    def resolved(self) -> bool:
        return self.target_section_id is not None

    def to_dict(self) -> dict:
        return {
            "text": self.text,
            "target_section_id": self.target_section_id,
            "resolved": self.resolved,
            "external": self.external,
        }


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


@dataclass(frozen=True)
class EmbedInput:
    """The text to embed and the short context that precedes each of its windows."""

    context: str
    text: str


@dataclass(frozen=True)
class DocumentRecord:
    """A document as stored: its source key, title and content hash."""

    source: str
    title: str
    content_hash: str
    format: str
    chars: int
    chunk_count: int = 0
    ingested_at: str = field(default="", compare=False)
    """When the store last wrote the document, UTC ISO 8601 ("2026-11-24T04:31:46Z"), as
    ``documents()`` reports it ("" when unknown); ignored by ``write_document``."""
    pages: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False)
    """Document properties as converted (:attr:`ConvertedDocument.metadata`)."""


@dataclass(frozen=True)
class SectionRecord:
    """A section as stored: its place in the tree and its own text."""

    source: str
    section_id: str
    heading: str
    level: int
    parent_id: str | None
    ordinal: int
    kind: str
    chunk_id: str | None
    text: str


@dataclass(frozen=True)
class StoredChunk:
    """A chunk as stored, with the context that was indexed in front of it.

    ``context_source`` says where the context came from: "llm" (an LLM situated the
    chunk in its document; ``llm_context`` holds its words), "structural" (title and
    parent chain only, also the fallback after a failed LLM call) or "none".
    """

    chunk: Chunk
    context: str
    context_source: str = "structural"
    llm_context: str = ""
    context_truncated: bool = False


@dataclass
class Extraction:
    """What the extract stage found in one document."""

    definitions: list[Definition] = field(default_factory=list)
    acronyms: list[Acronym] = field(default_factory=list)
    references: list[CrossRef] = field(default_factory=list)
    chunk_terms: list[tuple[str, str]] = field(default_factory=list)
    """(chunk id, normalised term) for each defined term a chunk uses."""
    problems: dict[str, str] = field(default_factory=dict)
    """Part ("definitions", "acronyms", "cross-references") -> why it could not be
    extracted ("IndexError: list index out of range"); the document is indexed without it."""


@dataclass(frozen=True)
class SearchFilter:
    """Restricts every modality to a subset of chunks."""

    sources: tuple[str, ...] = ()
    section_prefix: str | None = None
    chunk_types: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.sources or self.section_prefix or self.chunk_types)

    def matches(self, chunk: Chunk) -> bool:
        """The reference rule every backend's filtering must agree with.

        A chunk is under ``section_prefix`` when an element of its section path is that
        id or begins with it followed by "-" (``article-17`` holds ``article-17-3-b``,
        not ``article-170``).
        """
        if self.sources and chunk.source not in self.sources:
            return False
        if self.chunk_types and chunk.chunk_type not in self.chunk_types:
            return False
        prefix = self.section_prefix
        return not prefix or any(
            p == prefix or p.startswith(prefix + "-") for p in chunk.section_path
        )


def section_prefixes(section_path: Sequence[str]) -> list[str]:
    """Each path element with its "-"-prefixes, without repeats: ``article-17-3`` gives
    ``article-17-3``, ``article-17`` and ``article``. A chunk matches
    ``SearchFilter(section_prefix=p)`` exactly when ``p`` is among these, so a backend can
    index them and filter with one term or containment query."""
    found: dict[str, None] = {}
    for element in section_path:
        parts = element.split("-")
        found.update(dict.fromkeys("-".join(parts[:n]) for n in range(len(parts), 0, -1)))
    return list(found)


@dataclass(frozen=True)
class Hit:
    """One modality's opinion of one chunk."""

    chunk_id: str
    score: float


@dataclass(frozen=True)
class Passage:
    """The part of a result's ``content`` that best matches the query: whole sentences,
    ``content[start:end] == text`` (see hierdoc.search.passages)."""

    text: str
    start: int
    end: int

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "start": self.start, "end": self.end}


@dataclass
class SearchResult:
    chunk_id: str
    source: str
    title: str
    parent_chain: list[str]
    section_id: str
    heading: str
    chunk_type: str
    content: str
    score: float
    """The rank's score, never higher than the one above: 1.0 for a pinned result."""
    scores: dict[str, float | None]
    ranks: dict[str, int | None]
    definitions: list[dict] = field(default_factory=list)
    cross_references: list[dict] = field(default_factory=list)
    context: str = ""
    """The context indexed before the chunk (structural, then the LLM's when there is one)."""
    context_source: str = "structural"
    page_start: int | None = None
    page_end: int | None = None
    passage: Passage | None = None
    passages: list[Passage] = field(default_factory=list)
    """``passage`` first, then further parts of ``content`` the query's evidence supports,
    none overlapping (see hierdoc.search.passage_sets)."""
    highlights: list[tuple[int, int]] = field(default_factory=list)
    """(start, end) offsets into ``content`` of what matched: query terms as BM25 analyses
    them, quoted phrases, the cited section's text."""
    fusion_score: float | None = None
    """What weighted RRF gave the chunk (scaled to 1.0 = first in every modality)."""
    pinned: bool = False
    """Put first because the query cites its section; ``pin`` says which citation."""
    pin: str | None = None
    sections: list[str] = field(default_factory=list)
    """Every section the chunk covers, the chunk's own first; ``section_id`` is the one of
    them that holds the match (see hierdoc.search.holders)."""

    def to_dict(self) -> dict:
        return {
            "chunk_id": self.chunk_id,
            "source": self.source,
            "title": self.title,
            "parent_chain": list(self.parent_chain),
            "section_id": self.section_id,
            "heading": self.heading,
            "chunk_type": self.chunk_type,
            "content": self.content,
            "score": self.score,
            "scores": dict(self.scores),
            "ranks": dict(self.ranks),
            "definitions": list(self.definitions),
            "cross_references": list(self.cross_references),
            "context": self.context,
            "context_source": self.context_source,
            "page_start": self.page_start,
            "page_end": self.page_end,
            "passage": self.passage.to_dict() if self.passage else None,
            "passages": [p.to_dict() for p in self.passages],
            "highlights": [list(h) for h in self.highlights],
            "fusion_score": self.fusion_score,
            "pinned": self.pinned,
            "pin": self.pin,
            "sections": list(self.sections),
        }


@dataclass
class SearchResponse:
    query: str
    mode: str
    no_match: bool
    results: list[SearchResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    citations: list[dict] = field(default_factory=list)
    """Each citation in the query: its text, the section it resolved to (or None)."""
    explain: dict | None = None
    """How the results were reached, when asked for (:mod:`hierdoc.search.explain`)."""

    def to_dict(self) -> dict:
        found = {
            "query": self.query,
            "mode": self.mode,
            "no_match": self.no_match,
            "notes": list(self.notes),
            "citations": list(self.citations),
            "results": [r.to_dict() for r in self.results],
        }
        return found | ({"explain": self.explain} if self.explain is not None else {})


@dataclass(frozen=True)
class FileProblem:
    source: str
    reason: str


@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    warnings: list[FileProblem] = field(default_factory=list)
    """Documents indexed with a part missing: what their extraction could not give."""
    chunks_written: int = 0
    texts_embedded: int = 0
    """Windows (texts) sent to the embedder in this run; re-used chunks add none."""
    seconds: float = 0.0
    chunks_reused: int = 0
    """Chunks whose stored vectors were kept: same context and content as before."""
    chunks_embedded: int = 0
    """Chunks embedded in this run."""
    contexts_reused: int = 0
    """LLM contexts kept from an unchanged chunk of the document's previous version."""

    def to_dict(self) -> dict:
        return {
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "problems": [{"source": p.source, "reason": p.reason} for p in self.problems],
            "warnings": [{"source": w.source, "reason": w.reason} for w in self.warnings],
            "chunks_written": self.chunks_written,
            "texts_embedded": self.texts_embedded,
            "chunks_reused": self.chunks_reused,
            "chunks_embedded": self.chunks_embedded,
            "contexts_reused": self.contexts_reused,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class StoreStats:
    """What a store holds, counted by the backend."""

    documents: int = 0
    sections: int = 0
    chunks: int = 0
    vectors: int = 0
    definitions: int = 0
    acronyms: int = 0
    crossrefs: int = 0
    index_bytes: int = 0
    generation: int = 0
    embedding_model: str | None = None
    dimension: int = 0
    contexts: dict[str, Any] = field(default_factory=dict)
    """Chunks by context source, cached contexts and the LLM usage recorded so far."""


@dataclass(frozen=True)
class IndexStats(StoreStats):
    """``hierdoc stats``: the store's counts, where the index is, and its documents."""

    index: str = ""
    documents_list: tuple[DocumentRecord, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["documents_list"] = [
            {"source": d.source, "title": d.title, "chunks": d.chunk_count}
            for d in self.documents_list
        ]
        return data
