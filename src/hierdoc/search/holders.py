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

from collections.abc import Iterable

from ..models import Chunk, SearchResult, SectionRecord, StoredChunk
from ..pipeline.structure import CHAIN_HEAD, CHAIN_TAIL, bounded_chain, short_heading
from ..store.base import Records


def section_at(
    content: str, begun: list[SectionRecord], offset: int | None
) -> SectionRecord | None:
    """The section, of those ``begun`` in a chunk (:func:`begun_in`), in which ``offset`` of
    its ``content`` lies: the last to begin at or before it; None when it lies before them
    all (text that the chunk's own section carries on from the chunk before) or when there
    is no offset (nothing matched)."""
    if offset is None:
        return None
    holder, cursor = None, 0
    for record in begun:
        at = first_line_at(content, record.text, cursor)
        if at is None:
            continue
        if at > offset:
            break
        holder, cursor = record, at
    return holder


def begun_in(store: Records, chunks: Iterable[StoredChunk]) -> dict[str, list[SectionRecord]]:
    """The sections that begin in each of the chunks, in document order, by chunk id (one
    lookup for a page of results)."""
    pairs = [(c.chunk.source, c.chunk.chunk_id) for c in chunks]
    found: dict[str, list[SectionRecord]] = {chunk_id: [] for _, chunk_id in pairs}
    for record in store.sections_in_chunks(pairs):
        if record.chunk_id in found:
            found[record.chunk_id].append(record)
    return found


def first_line_at(content: str, text: str, cursor: int) -> int | None:
    """Where the first line of a section's text occurs in ``content`` at or after ``cursor``."""
    line = text.strip().split("\n", 1)[0][:200]
    if not line:
        return None
    at = content.find(line, max(cursor, 0))
    return at if at >= 0 else None


def move_to_section(
    store: Records,
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
    known = {r.section_id: r for r in begun}
    result.parent_chain = list(section_chain(store, holder, stored, known))


def section_chain(
    store: Records,
    record: SectionRecord,
    stored: StoredChunk,
    known: dict[str, SectionRecord] | None = None,
) -> tuple[str, ...]:
    """The breadcrumb of ``record`` as the chunker builds one (bounded, the preamble left
    out), parent by parent up to the chunk's own section or one of its ancestors, whose
    chain is the start of the chunk's, else to the document's top; a parent in ``known``
    (the sections begun in the chunk, by id) is not looked up."""
    known = known or {}
    chunk = stored.chunk
    below: list[str] = []
    current: SectionRecord | None = record
    base: tuple[str, ...] = ()
    seen: set[str] = set()
    while current is not None and current.section_id not in seen:
        seen.add(current.section_id)
        above = _chain_above(current, chunk)
        if above is not None:
            base = above
            break
        if current.kind == "preamble":
            if current is record:
                return (chunk.title,)
            break
        below.append(current.heading)
        parent = current.parent_id
        if parent in known:
            current = known[parent]
            continue
        found = store.sections(parent, current.source) if parent else []
        current = found[0] if found else None
    chain = base
    for heading in reversed(below):  # from the top down
        chain = bounded_chain((*chain, heading))
    return chain


def _chain_above(record: SectionRecord, chunk: Chunk) -> tuple[str, ...] | None:
    """``record``'s chain when it is the chunk's own section or one of its ancestors: the
    first ``record.level`` headings of the chunk's chain, when that chain is whole (no
    level left out) and its heading at that level is ``record``'s; else None."""
    chain = chunk.parent_chain
    whole = len(chain) <= CHAIN_HEAD + CHAIN_TAIL and record.kind != "preamble"
    if not whole or not 1 <= record.level <= len(chain):
        return None
    if chain[record.level - 1] != short_heading(record.heading):
        return None
    own = record.section_id
    above = (
        own == chunk.section_id
        or own in chunk.section_path
        or chunk.section_id.startswith(own + "-")
    )
    return tuple(chain[: record.level]) if above else None
