"""What the inspection calls of :class:`hierdoc.api.Index` return: a chunk with where it
sits (:class:`ChunkView`), the definitions of a term, the cross-references of a section,
the indexed documents with their counts (:class:`DocumentSummary`) and a document's
section tree (:class:`Outline`); and the store-level work behind ``Index.remove``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import InputError, NotFoundError
from .models import CrossRef, Definition, SectionRecord, StoredChunk
from .search.passages import section_spans
from .search.resolve import section_for, section_holders
from .store.base import Store


@dataclass
class ChunkView:
    """A chunk with where it sits: its parent chain and its neighbours in the document."""

    chunk: StoredChunk
    previous: StoredChunk | None
    next: StoredChunk | None
    section: SectionRecord | None = None
    children: list[SectionRecord] = field(default_factory=list)
    section_span: tuple[int, int] | None = None
    """Where the section's own text is in the chunk's ``content`` (for a paragraph or point)."""
    notes: list[str] = field(default_factory=list)
    other_sources: list[str] = field(default_factory=list)
    """Other documents with a section of this id (the first :data:`MAX_OTHER_SOURCES`),
    when the id was looked up in no document in particular."""
    more_sources: int = 0
    """How many more documents than ``other_sources`` lists have the section."""

    def to_dict(self) -> dict[str, Any]:
        def brief(stored: StoredChunk | None) -> dict[str, Any] | None:
            if stored is None:
                return None
            c = stored.chunk
            return {"chunk_id": c.chunk_id, "section_id": c.section_id, "heading": c.heading}

        c = self.chunk.chunk
        return {
            "chunk_id": c.chunk_id,
            "source": c.source,
            "title": c.title,
            "parent_chain": list(c.parent_chain),
            "section_id": c.section_id,
            "section_path": list(c.section_path),
            "heading": c.heading,
            "chunk_type": c.chunk_type,
            "content": c.content,
            "context": self.chunk.context,
            "token_count": c.token_count,
            "previous": brief(self.previous),
            "next": brief(self.next),
            "section": None
            if self.section is None
            else {
                "section_id": self.section.section_id,
                "heading": self.section.heading,
                "kind": self.section.kind,
                "text": self.section.text,
                "parent_id": self.section.parent_id,
            },
            "children": [{"section_id": c.section_id, "heading": c.heading} for c in self.children],
            "section_span": list(self.section_span) if self.section_span else None,
            "notes": list(self.notes),
            "other_sources": list(self.other_sources),
            "more_sources": self.more_sources,
        }


MAX_OTHER_SOURCES = 20
"""The most other documents a lookup names when several have the section asked for."""


def other_holders(store: Store, section_id: str, shown: str) -> tuple[list[str], int]:
    """The documents other than ``shown`` with text for the section id: the first
    :data:`MAX_OTHER_SOURCES` in source order, and how many more there are
    (:func:`~hierdoc.search.resolve.section_holders`)."""
    holders, count = section_holders(store, section_id, MAX_OTHER_SOURCES + 1)
    others = [h for h in holders if h != shown][:MAX_OTHER_SOURCES]
    return others, max(0, count - 1 - len(others))


def chunk_view(store: Store, identifier: str, source: str | None = None) -> ChunkView:
    """A chunk by chunk id, or a section by section id or citation ("Art. 17(3)(b)"), with
    its neighbours; for a section, its own text, where it is in the chunk, and its children.
    ``source``: the document whose section is meant (else the first that has it)."""
    found = store.get_chunks([identifier]).get(identifier)
    section, notes = None, []
    if found is None:
        section = section_for(store, identifier, source)
        if section is None:
            raise NotFoundError(f"no chunk or section with id {identifier!r}")
        if section.section_id != identifier:
            notes.append(f"{identifier!r} resolved to section {section.section_id}")
        found = store.get_chunks([section.chunk_id or ""]).get(section.chunk_id or "")
        if found is None:
            raise NotFoundError(f"section {section.section_id!r} has no text in the index")
    siblings = store.chunks_of_source(found.chunk.source)
    ids = [s.chunk.chunk_id for s in siblings]
    position = ids.index(found.chunk.chunk_id)
    previous = siblings[position - 1] if position > 0 else None
    following = siblings[position + 1] if position + 1 < len(siblings) else None
    if section is None:
        return ChunkView(found, previous, following)
    chunk = found.chunk
    spans = section_spans(store, section, chunk.section_id, chunk.content)
    children = store.children(section.source, section.section_id)
    own = spans[0] if spans and section.section_id != chunk.section_id else None
    view = ChunkView(found, previous, following, section, children, own, notes)
    if source is None:
        others = other_holders(store, section.section_id, section.source)
        view.other_sources, view.more_sources = others
    return view


@dataclass
class DefinitionLookup:
    term: str
    definitions: list[Definition]

    @property
    def sources(self) -> list[str]:
        """The documents that define the term, in the order of the definitions."""
        return list(dict.fromkeys(d.source for d in self.definitions))

    @property
    def conflict(self) -> bool:
        """The term is defined differently in different documents."""
        texts = {(d.source, " ".join(d.definition.split()).casefold()) for d in self.definitions}
        by_source: dict[str, set[str]] = {}
        for source, text in texts:
            by_source.setdefault(source, set()).add(text)
        distinct = {frozenset(v) for v in by_source.values()}
        return len(by_source) > 1 and len(distinct) > 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "term": self.term,
            "conflict": self.conflict,
            "sources": self.sources,
            "definitions": [d.to_dict() for d in self.definitions],
        }


@dataclass
class ReferenceLookup:
    """A section's references, each listed once: outgoing ones by what they say and where
    they point (the same "paragraph 1" in two points of an article is one reference of
    it), incoming ones by the referring section, text and target (a range such as
    "Articles 15 to 22" can be stored twice for one target)."""

    section_id: str
    outgoing: list[CrossRef]
    incoming: list[CrossRef]
    source: str = ""
    """The document the section was looked at in."""
    other_sources: list[str] = field(default_factory=list)
    """Other documents with a section of this id (see :attr:`ChunkView.other_sources`)."""
    more_sources: int = 0

    def __post_init__(self) -> None:
        outgoing: dict[tuple[Any, ...], CrossRef] = {}
        for ref in self.outgoing:
            outgoing.setdefault((ref.text, ref.target_section_id, ref.target_source), ref)
        incoming: dict[tuple[Any, ...], CrossRef] = {}
        for ref in self.incoming:
            incoming.setdefault((ref.source, ref.section_id, ref.text, ref.target_section_id), ref)
        self.outgoing, self.incoming = list(outgoing.values()), list(incoming.values())

    def to_dict(self) -> dict[str, Any]:
        def incoming(ref: CrossRef) -> dict[str, Any]:
            return {
                "text": ref.text,
                "from_section_id": ref.section_id,
                "from_chunk_id": ref.chunk_id,
                "source": ref.source,
                "target_section_id": ref.target_section_id,
            }

        return {
            "section_id": self.section_id,
            "source": self.source,
            "other_sources": list(self.other_sources),
            "more_sources": self.more_sources,
            "outgoing": [r.to_dict() for r in self.outgoing],
            "incoming": [incoming(r) for r in self.incoming],
        }


@dataclass(frozen=True)
class DocumentSummary:
    """One indexed document with its counts, as ``hierdoc ls`` lists it."""

    source: str
    title: str
    format: str
    chunks: int
    sections: int
    definitions: int
    chars: int
    ingested_at: str
    """UTC, ISO 8601; "" when the store does not know."""
    pages: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "title": self.title,
            "format": self.format,
            "chunks": self.chunks,
            "sections": self.sections,
            "definitions": self.definitions,
            "chars": self.chars,
            "ingested_at": self.ingested_at,
            "pages": self.pages,
            "metadata": self.metadata,
        }


def summarize_documents(store: Store) -> list[DocumentSummary]:
    """Every indexed document with its chunk, section and definition counts, by source."""
    definitions = Counter(d.source for d in store.all_definitions())
    return [
        DocumentSummary(
            source=d.source,
            title=d.title,
            format=d.format,
            chunks=d.chunk_count,
            sections=len(store.sections_of_source(d.source)),
            definitions=definitions[d.source],
            chars=d.chars,
            ingested_at=d.ingested_at,
            pages=d.pages,
            metadata=dict(d.metadata),
        )
        for d in store.documents()
    ]


def remove_documents(store: Store, sources: Sequence[str]) -> list[str]:
    """Delete the given stored sources (already resolved); returns them. The caller holds
    the writer lock, whose release flushes the deletion to searches."""
    if not sources:
        raise InputError("nothing to remove: give the documents to remove")
    store.delete_documents(sources)
    return list(sources)


@dataclass
class OutlineNode:
    """A section in a document's tree, with the sections directly under it."""

    section_id: str
    heading: str
    kind: str
    level: int
    children: list[OutlineNode] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.section_id,
            "heading": self.heading,
            "kind": self.kind,
            "children": [c.to_dict() for c in self.children],
        }


@dataclass
class Outline:
    """The section tree of one document: its top-level sections in document order."""

    source: str
    title: str
    sections: list[OutlineNode]

    def walk(self) -> Iterator[tuple[int, OutlineNode]]:
        """Every section with its depth (0 for top level), in document order."""
        stack = [(0, node) for node in reversed(self.sections)]
        while stack:
            depth, node = stack.pop()
            yield depth, node
            stack += [(depth + 1, child) for child in reversed(node.children)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "title": self.title,
            "children": [node.to_dict() for node in self.sections],
        }


def build_outline(store: Store, sources: Sequence[str]) -> Outline:
    """The section tree of the one document in ``sources`` (as resolved from a name); a
    name that matched several documents is an :class:`InputError` listing them."""
    if len(sources) != 1:
        raise InputError(f"the name matches {len(sources)} documents: {', '.join(sources)}")
    source = sources[0]
    titles = {d.source: d.title for d in store.documents()}
    if source not in titles:
        raise NotFoundError(f"no indexed document {source!r}")
    nodes: dict[str, OutlineNode] = {}
    roots: list[OutlineNode] = []
    for record in store.sections_of_source(source):
        node = OutlineNode(record.section_id, record.heading, record.kind, record.level)
        nodes[record.section_id] = node
        parent = nodes.get(record.parent_id) if record.parent_id else None
        (parent.children if parent else roots).append(node)
    return Outline(source, titles[source], roots)
