"""The narrow interfaces between hierdoc and a storage backend, split by capability.

A backend keeps records and indexes and declares what it can do in
:attr:`Lifecycle.capabilities` (a set of :class:`Capability`); callers test that set,
never a method's answer, and the contract suite (:mod:`hierdoc.store.testing`) has one
part per capability. The protocols, each a handful of verbs:

- :class:`Lifecycle` (every store): the writer lock, the meta (:class:`IndexMeta`),
  the LLM **context cache**, whole-document writes and deletes, rebuilds;
- :class:`Records` (``RECORDS``): documents, sections, chunks, definitions, acronyms and
  cross-references, written one document at a time, atomically, and read back as the
  typed records of :mod:`hierdoc.models`;
- :class:`Lexical` (``LEXICAL``): a lexical index that receives text already analysed
  into terms by the :class:`~hierdoc.text.analyze.TextAnalyzer` it was opened with, and
  ranks chunks by BM25 for a list of query terms (the search stage analyses the query
  with the same analyzer and asks :meth:`Lexical.doc_freq` for its back-off decisions);
- :class:`Vectors` (``VECTORS``): a vector index ranking chunks by the cosine of their
  best window;
- :class:`Lookups` (``ACRONYM_KEYS``, ``NAME_KEYS``): acronyms and document names looked
  up by normalised key, declared only when the index holds current keys (a local file
  written before them is read whole instead).

:class:`Store` is all of them: what :func:`hierdoc.store.open_store` returns.

One process writes an index at a time: every write happens while the store holds
its **writer lock** (:meth:`Lifecycle.lock_writer`, taken by the write methods for
themselves when the caller does not hold it), and a second writer waits or gets
an :class:`IndexBusyError`. A store opened read-only (``StoreRequest.read_only``)
writes nothing, not even to bring derived indexes up to date.

Every retrieval method takes a :class:`~hierdoc.models.SearchFilter`; the chunks
a backend returns for a filter are exactly those for which
:meth:`SearchFilter.matches` is true (the contract tests in
:mod:`hierdoc.store.testing` check this for every backend).

Backends register in :mod:`hierdoc.store` under a ``database.provider`` name; outside
``store/`` only the CLI's maintenance commands (``check``, ``migrate``) import a backend's
module (tests/unit/test_layers.py checks this).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, runtime_checkable

import numpy as np

from ..errors import ConfigError, StoreError
from ..models import (
    Acronym,
    CrossRef,
    Definition,
    DocumentRecord,
    Extraction,
    Hit,
    SearchFilter,
    Section,
    SectionRecord,
    StoredChunk,
    StoreStats,
)


class DimensionError(ConfigError):
    """The index holds vectors of another size than the request's; ``stored`` is theirs."""

    def __init__(self, message: str, stored: int) -> None:
        super().__init__(message)
        self.stored = stored


def redact(location: str) -> str:
    """A location (a database URL) with any password replaced by ``***``, for messages."""
    masked = re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", location)
    return re.sub(r"(password=)[^&\s]*", r"\1***", masked)


class WriterLockLost(StoreError):
    """The writer lock went away under a running writer (the database restarted or ended
    its connection): the write was not made, and the writer must stop, not go on."""


class IndexBusyError(StoreError):
    """Another process holds the index's writer lock; ``holder`` says who ("pid N since T")."""

    def __init__(self, message: str, holder: str = "") -> None:
        super().__init__(message)
        self.holder = holder


class _Locking(Protocol):
    def lock_writer(self, wait: bool | None = None) -> AbstractContextManager[None]: ...


_S = TypeVar("_S", bound=_Locking)
_P = ParamSpec("_P")
_R = TypeVar("_R")


def locked_write(method: Callable[Concatenate[_S, _P], _R]) -> Callable[Concatenate[_S, _P], _R]:
    """A backend's write method, run inside its writer lock (taken for the call when the
    caller does not hold it)."""

    @functools.wraps(method)
    def locked(self: _S, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self.lock_writer():
            return method(self, *args, **kwargs)

    return locked


@dataclass(frozen=True)
class IndexMeta:
    """What an index records about itself, beside its records."""

    embedding_model: str | None = None
    dimension: int | None = None
    fingerprint: str | None = None
    """A digest of the settings that decide what ingest writes; another one re-ingests all."""
    context_usage: dict[str, Any] = field(default_factory=dict)
    """LLM calls and tokens spent on contexts so far (running totals)."""

    def to_strings(self) -> dict[str, str]:
        """The meta as key/value strings, for backends that keep a key/value table."""
        values = {
            "embedding_model": self.embedding_model,
            "dimension": None if self.dimension is None else str(self.dimension),
            "fingerprint": self.fingerprint,
            "context_usage": json.dumps(self.context_usage) if self.context_usage else None,
        }
        return {key: value for key, value in values.items() if value is not None}

    @classmethod
    def from_strings(cls, values: dict[str, str]) -> IndexMeta:
        dimension = values.get("dimension")
        return cls(
            embedding_model=values.get("embedding_model"),
            dimension=int(dimension) if dimension else None,
            fingerprint=values.get("fingerprint"),
            context_usage=json.loads(values.get("context_usage") or "{}"),
        )


@dataclass(frozen=True)
class ContextEntry:
    """One cached LLM context with the key it is cached under."""

    model: str
    prompt_version: str
    document_hash: str
    chunk_hash: str
    context: str


class ContextCache(Protocol):
    """LLM-written chunk contexts, kept across ingests and ``--force`` rebuilds."""

    def get(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str
    ) -> str | None: ...

    def put(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str, context: str
    ) -> None: ...

    def entries(self) -> Iterator[ContextEntry]:
        """Every cached context (for copying a cache: ``hierdoc migrate``)."""
        ...


class Capability(str, Enum):
    """What a store can do beyond keeping records; a store declares its own in
    :attr:`Store.capabilities`, and the contract suite (:mod:`hierdoc.store.testing`)
    checks each declared capability with its own tests."""

    RECORDS = "records"
    """Documents, sections, chunks and extractions read back by id, source or section
    (:class:`Records`)."""
    LEXICAL = "lexical"
    """BM25 over analysed terms and exact phrases (:class:`Lexical`)."""
    VECTORS = "vectors"
    """Chunks ranked by the cosine of their best window (:class:`Vectors`)."""
    ACRONYM_KEYS = "acronym keys"
    """Acronyms looked up by their normalised keys (:meth:`Lookups.acronyms_matching`)."""
    NAME_KEYS = "name keys"
    """Documents' name keys looked up by key (:meth:`Lookups.name_keys`)."""


CORE_CAPABILITIES = frozenset({Capability.RECORDS, Capability.LEXICAL, Capability.VECTORS})
"""What every backend of hierdoc's own does; the key look-ups depend on the index."""


class Lifecycle(Protocol):
    """The single writer, the meta, whole-document writes and rebuilds: what every store
    does, whatever else it can."""

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What this store can do; may grow while it is open (an index written before the
        look-up keys were stored gains them when a writer fills them)."""
        ...

    @property
    def generation(self) -> int:
        """Grows with every write; derived state is current when it was built at this value."""
        ...

    @property
    def context_cache(self) -> ContextCache: ...

    def lock_writer(self, wait: bool | None = None) -> AbstractContextManager[None]:
        """Hold the index's one writer lock for the block: reentrant within this store,
        exclusive across stores and processes. The first entry brings derived indexes up
        to date; the last exit flushes. ``wait`` (default: as opened) blocks while another
        process writes; otherwise that is an :class:`IndexBusyError`. A read-only store
        raises :class:`StoreError`."""
        ...

    def read_meta(self) -> IndexMeta: ...

    def write_meta(self, meta: IndexMeta) -> None: ...

    def write_document(
        self,
        document: DocumentRecord,
        sections: Sequence[Section],
        chunks: Sequence[StoredChunk],
        vectors: Sequence[np.ndarray],
        extraction: Extraction | None = None,
    ) -> None:
        """Replace everything stored for ``document.source``, atomically."""
        ...

    def delete_documents(self, sources: Iterable[str]) -> None: ...

    def clear(self) -> None:
        """Remove every document (the context cache stays)."""
        ...

    def flush(self) -> None:
        """Make every write visible to searches and durable in derived indexes."""
        ...

    def begin_rebuild(self) -> bool:
        """Under the writer lock, go on writing into a new, empty index (the meta and the
        context cache kept) while readers go on seeing the live one. False when a rebuild
        is under way already (opening with ``reset`` starts one), or when there is nothing
        for readers to keep (the live index is empty)."""
        ...

    def publish_rebuild(self) -> None:
        """Make the rebuild under way the live index, at once for every reader; nothing
        when none is under way."""
        ...

    def abandon_rebuild(self) -> None:
        """Drop the rebuild under way, writing to the live index again (closing the store
        does this to a rebuild not published); nothing when none is under way."""
        ...

    def refresh(self) -> None:
        """See writes made by another process since this store was opened."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class Records(Protocol):
    """Records read back by id, source or section: :attr:`Capability.RECORDS`."""

    def documents(self) -> list[DocumentRecord]: ...

    def document_hashes(self) -> dict[str, str]: ...

    def document_count(self) -> int:
        """How many documents the index holds (a count, not a read of the records)."""
        ...

    def chunk_count(self) -> int:
        """How many chunks the index holds, summed from the documents' own counts (one row
        per document, not a count over the chunks)."""
        ...

    def get_chunks(self, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]: ...

    def chunks_of_source(self, source: str) -> list[StoredChunk]: ...

    def chunks_of_sections(self, section_ids: Sequence[str]) -> list[StoredChunk]:
        """The chunks in which the given sections begin, in document order."""
        ...

    def section_starts(
        self, section_ids: Sequence[str], sources: Sequence[str] | None = None
    ) -> list[tuple[str, str, str]]:
        """(source, chunk id, the chunk's section id) of each chunk of
        :meth:`chunks_of_sections`, in the same order, without reading the chunks: a number
        every document has ("Article 5") is pinned in each from these few columns. Only in
        ``sources`` when given (a key lookup per document)."""
        ...

    def section_holders(
        self, section_id: str, limit: int, sources: Sequence[str] | None = None
    ) -> list[str]:
        """The sources, in order, of the first ``limit`` documents with a section of this
        id that has text in the index: which document a bare id means, without reading
        the section of every document that has one ("article-3" in 43,600 acts). Only
        documents of ``sources`` when given."""
        ...

    def count_sections(
        self, section_ids: Sequence[str], limit: int, sources: Sequence[str] | None = None
    ) -> int:
        """How many sections have one of these ids, counted no further than ``limit`` (a
        number 40,000 documents have is not counted through); only in ``sources`` when
        given."""
        ...

    def chunks_under(self, section_id: str, filt: SearchFilter | None = None) -> list[StoredChunk]:
        """Chunks in the subtree of a section id (``SearchFilter(section_prefix=...)``)."""
        ...

    def chunk_ids_under(self, section_id: str, filt: SearchFilter | None = None) -> list[str]:
        """The ids of :meth:`chunks_under`, in its order, without reading the chunks (a
        citation fills its ranking with the subtree's ids in up to 50 documents)."""
        ...

    def sources_with_context(self, context_source: str) -> set[str]:
        """Documents with at least one chunk whose context came from ``context_source``."""
        ...

    def sections(self, section_id: str, source: str | None = None) -> list[SectionRecord]:
        """Every section with this id, in (source, ordinal) order; only ``source``'s when
        given (a primary-key lookup, where all documents may have the id)."""
        ...

    def sections_of_source(self, source: str) -> list[SectionRecord]:
        """Every section of one document, in document order."""
        ...

    def children(self, source: str, section_id: str) -> list[SectionRecord]: ...

    def sections_in_chunks(self, chunks: Sequence[tuple[str, str]]) -> list[SectionRecord]:
        """The sections that begin in the given chunks, (source, chunk id) pairs, in
        (source, ordinal) order: one lookup for a page of search results."""
        ...

    def sections_with_heading(self, heading: str) -> list[str]:
        """Ids of sections whose heading equals ``heading``, ignoring case and outer spaces."""
        ...

    def definitions(self, term_norms: Sequence[str]) -> list[Definition]: ...

    def all_definitions(self) -> list[Definition]: ...

    def acronyms(self) -> list[Acronym]: ...

    def chunk_terms(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]: ...

    def references_from(self, chunk_ids: Sequence[str]) -> list[CrossRef]: ...

    def references_to(self, section_ids: Sequence[str], into: str | None = None) -> list[CrossRef]:
        """References whose target is one of these section ids; with ``into``, only those
        into that document (their target's document, or their own when it has none)."""
        ...

    def stats(self) -> StoreStats: ...


@runtime_checkable
class Lexical(Protocol):
    """The lexical index over the terms of the store's analyzer: :attr:`Capability.LEXICAL`."""

    def doc_freq(self, terms: Sequence[str], filt: SearchFilter | None = None) -> dict[str, int]:
        """How many chunks hold each analysed term in the lexical index (of the chunks
        ``filt`` matches, when given)."""
        ...

    def keyword_search(self, terms: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        """BM25 over analysed ``terms`` (any of them), best first; equal scores by chunk id."""
        ...

    def phrase_search(self, words: Sequence[str], k: int, filt: SearchFilter | None) -> list[Hit]:
        """Chunks holding the analysed ``words`` consecutively."""
        ...


@runtime_checkable
class Vectors(Protocol):
    """The vector index of every chunk's windows: :attr:`Capability.VECTORS`."""

    def vector_search(self, vector: np.ndarray, k: int, filt: SearchFilter | None) -> list[Hit]:
        """Chunks by the cosine similarity of their best window, best first."""
        ...

    def iter_vectors(self) -> Iterator[tuple[str, np.ndarray]]:
        """Each chunk's id with its windows' vectors, by document and reading order."""
        ...

    def vectors_of(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The windows' vectors of the given chunks; ids not stored are left out."""
        ...


@runtime_checkable
class Lookups(Protocol):
    """Look-ups by normalised key: :attr:`Capability.ACRONYM_KEYS` and
    :attr:`Capability.NAME_KEYS`, each declared only when the index holds the keys."""

    def acronyms_matching(self, keys: Sequence[str], long_forms: Sequence[str]) -> list[Acronym]:
        """The acronyms whose ``normalize_acronym`` key is among ``keys`` or whose long form's
        ``normalize_phrase`` is among ``long_forms``, in stored order (an index lookup, for
        the glossary). Only on a store declaring :attr:`Capability.ACRONYM_KEYS`; another
        raises :class:`StoreError` (the caller reads :meth:`Records.acronyms` instead)."""
        ...

    def name_keys(self, kind: str, keys: Sequence[str]) -> list[tuple[str, str, str]]:
        """(key, value, source) of the document name keys of ``kind`` whose key is among
        ``keys`` (an index lookup): the keys :func:`hierdoc.text.names.name_keys` gives
        each document, stored when it is written and removed with it. Only on a store
        declaring :attr:`Capability.NAME_KEYS` (it holds current keys); another raises
        :class:`StoreError` (the caller reads :meth:`Records.documents` instead)."""
        ...


class Store(Lifecycle, Records, Lexical, Vectors, Lookups, Protocol):
    """A whole backend: what :func:`hierdoc.store.open_store` returns. Code that needs one
    capability takes its protocol (the section and document look-ups of the search stage
    take :class:`Records`)."""


def require(store: Lifecycle, capability: Capability) -> None:
    """Refuse a call that needs ``capability`` on a store that does not declare it."""
    if capability not in store.capabilities:
        raise StoreError(f"this index cannot do {capability.value} look-ups")
