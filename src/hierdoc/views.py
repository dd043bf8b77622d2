"""What the inspection calls of :class:`hierdoc.api.Index` return: a chunk with where it
sits (:class:`ChunkView`), the definitions of a term and the cross-references of a section."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .models import CrossRef, Definition, SectionRecord, StoredChunk


@dataclass
class ChunkView:
    """A chunk with where it sits: its parent chain and its neighbours in the document."""

    chunk: StoredChunk
    previous: StoredChunk | None
    next: StoredChunk | None
    section: SectionRecord | None = None
    children: list[SectionRecord] = field(default_factory=list)

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
        }


@dataclass
class DefinitionLookup:
    term: str
    definitions: list[Definition]

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
            "definitions": [d.to_dict() for d in self.definitions],
        }


@dataclass
class ReferenceLookup:
    section_id: str
    outgoing: list[CrossRef]
    incoming: list[CrossRef]

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
            "outgoing": [r.to_dict() for r in self.outgoing],
            "incoming": [incoming(r) for r in self.incoming],
        }
