"""The section that holds a result's match, among the sections its chunk covers.

A chunk packs a section with its numbered paragraphs and points, or a short heading with
the section it opens ("3. Payment" carried into the chunk of 3.1), so one chunk covers
several sections; it is stored under the first. A result names the section where its
match sits: the cited section for a citation found in the chunk ("Section 4(d)" gives
``section-4-d``, not the ``section-4`` its chunk begins with), else the section in which
the best passage's best sentence lies. Its ``heading`` and ``parent_chain`` follow that
section; ``sections`` keeps every section the chunk covers, the chunk's own first.
Pages stay the chunk's: a chunk does not record where its pages break.
"""

from __future__ import annotations

from ..models import SearchResult, SectionRecord, StoredChunk
from ..pipeline.structure import bounded_chain, short_heading
from ..store.base import Store


def section_at(content: str, begun: list[SectionRecord], offset: int) -> SectionRecord | None:
    """The section, of those ``begun`` in a chunk (:func:`begun_in`), in which ``offset`` of
    its ``content`` lies: the last to begin at or before it; None when it lies before them
    all (text that the chunk's own section carries on from the chunk before)."""
    holder, cursor = None, 0
    for record in begun:
        at = _first_line_at(content, record.text, cursor)
        if at is None:
            continue
        if at > offset:
            break
        holder, cursor = record, at
    return holder


def begun_in(store: Store, stored: StoredChunk) -> list[SectionRecord]:
    """The sections that begin in the chunk, in document order."""
    return store.sections_in_chunk(stored.chunk.source, stored.chunk.chunk_id)


def _first_line_at(content: str, text: str, cursor: int) -> int | None:
    """Where the first line of a section's text occurs in ``content`` from ``cursor`` on."""
    line = text.strip().split("\n", 1)[0][:200]
    if not line:
        return None
    at = content.find(line, cursor)
    return at if at >= 0 else None


def move_to_section(
    store: Store,
    result: SearchResult,
    stored: StoredChunk,
    holder: SectionRecord | None,
    begun: list[SectionRecord],
) -> None:
    """Name ``holder`` as the section holding the result's match (its id, heading and
    parent chain), and list in ``sections`` the chunk's own section then the others
    ``begun`` in it."""
    own = stored.chunk.section_id
    result.sections = list(dict.fromkeys([own, *(r.section_id for r in begun)]))
    if holder is None or holder.section_id == result.section_id:
        return
    result.section_id = holder.section_id
    result.heading = short_heading(holder.heading)
    result.parent_chain = list(section_chain(store, holder, stored))


def section_chain(store: Store, record: SectionRecord, stored: StoredChunk) -> tuple[str, ...]:
    """The breadcrumb of ``record`` as the chunker builds one (bounded, the preamble left
    out): from the chunk's own chain when the record lies under the chunk's section, else
    from the document's top, parent by parent."""
    chunk = stored.chunk
    below: list[str] = []
    current: SectionRecord | None = record
    base: tuple[str, ...] = ()
    seen: set[str] = set()
    while current is not None and current.section_id not in seen:
        seen.add(current.section_id)
        if current.section_id == chunk.section_id:
            base = tuple(chunk.parent_chain)
            break
        if current.kind == "preamble":
            if current is record:
                return (chunk.title,)
            break
        below.append(current.heading)
        parent = current.parent_id
        found = store.sections(parent, current.source) if parent else []
        current = found[0] if found else None
    chain = base
    for heading in reversed(below):  # from the top down
        chain = bounded_chain((*chain, heading))
    return chain
