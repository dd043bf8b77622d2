"""The section page: the text with the cited point marked and defined terms explained,
the parent chain, children, neighbours, the document's outline and the references both
ways, each listing paged."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError, NotFoundError
from ..models import CrossRef, Definition, SectionRecord, StoredChunk
from ..views import ChunkView, Outline
from .marking import Mark, marked_text
from .paging import Paged, page_number, page_of, paged
from .reader import Reader, quoted, url

OUTLINE_PAGE = 100
LIST_PAGE = 50
MAX_PARENTS = 64


@dataclass
class TreeItem:
    """A section in one page of an outline, with the sections under it on that page."""

    section_id: str
    heading: str
    link: str
    current: bool
    children: list[TreeItem] = field(default_factory=list)


@dataclass
class OutlinePage:
    source: str
    title: str
    items: list[TreeItem]
    paging: Paged
    previous_url: str
    next_url: str


def section_link(source: str, section_id: str) -> str:
    """The section page's address (built often: an outline page has a hundred)."""
    return f"/section?doc={quoted(source)}&id={quoted(section_id)}"


def outline_page(
    reader: Reader, source: str, page: int | None, current: str | None, base: str, **keep: Any
) -> OutlinePage:
    """One page of a document's outline (the page holding ``current`` when ``page`` is
    None), as nested items; ``base`` and ``keep`` make the paging links."""
    outline: Outline = reader.outline(source)
    entries = reader.outline_entries(source)
    if page is None:
        position = next((i for i, (_, n) in enumerate(entries) if n.section_id == current), 0)
        page = page_of(position, OUTLINE_PAGE)
    shown = paged(entries, page, OUTLINE_PAGE)
    roots: list[TreeItem] = []
    stack: list[tuple[int, TreeItem]] = []
    for depth, node in shown.items:
        link = section_link(source, node.section_id)
        item = TreeItem(node.section_id, node.heading or node.section_id, link,
                        node.section_id == current)  # fmt: skip
        while stack and stack[-1][0] >= depth:
            stack.pop()
        (stack[-1][1].children if stack else roots).append(item)
        stack.append((depth, item))

    def link(number: int) -> str:
        return url(base, **keep, outline_page=number)

    return OutlinePage(
        source, outline.title, roots, shown,
        link(page - 1) if shown.has_previous else "", link(page + 1) if shown.has_next else "",
    )  # fmt: skip


def text_span(params: Mapping[str, str], length: int) -> tuple[int, int] | None:
    start, end = params.get("start"), params.get("end")
    if not start and not end:
        return None
    if not (start or "").isdigit() or not (end or "").isdigit():
        raise InputError("start and end are character offsets (whole numbers) given together")
    first, last = int(start or 0), int(end or 0)
    if not 0 <= first < last <= length:
        raise InputError(f"start and end ({first}, {last}) are not within the text ({length})")
    return first, last


def _shown_chunk(reader: Reader, view: ChunkView, chunk_id: str | None) -> StoredChunk:
    """The chunk a result pointed to (a section's text can span several), else the view's."""
    if not chunk_id or chunk_id == view.chunk.chunk.chunk_id:
        return view.chunk
    found = reader.index.chunks([chunk_id]).get(chunk_id)
    if found is None or found.chunk.source != view.chunk.chunk.source:
        raise NotFoundError(f"no chunk {chunk_id!r} in {view.chunk.chunk.source!r}")
    return found


def parent_chain(reader: Reader, source: str, section: SectionRecord | None) -> list[SectionRecord]:
    """The sections above ``section``, outermost first."""
    chain: list[SectionRecord] = []
    parent_id = section.parent_id if section else None
    while parent_id and len(chain) < MAX_PARENTS:
        found = reader.index.sections(parent_id, source)
        if not found:
            break
        chain.append(found[0])
        parent_id = found[0].parent_id
    return chain[::-1]


def term_link(reader: Reader) -> Any:
    def link(definition: Definition) -> tuple[str, str]:
        where = f"{reader.display_name(definition.source)} [{definition.section_id}]"
        return section_link(definition.source, definition.section_id), where

    return link


def _reference_links(reader: Reader, refs: list[CrossRef], outgoing: bool) -> list[dict]:
    links = []
    for ref in refs:
        if outgoing:
            target, source = ref.target_section_id, ref.target_source or ref.source
        else:
            target, source = ref.section_id, ref.source
        links.append({
            "text": ref.text,
            "section_id": target or "",
            "document": reader.display_name(source),
            "link": section_link(source, target) if target else "",
            "external": "external" if ref.external else "",
        })  # fmt: skip
    return links


def section_context(reader: Reader, params: Mapping[str, str]) -> dict[str, Any]:
    """The section page of ``id`` (a section or chunk id, or a citation) in ``doc``; with
    ``chunk``, ``start`` and ``end`` (from a search result), that chunk's text with that
    span marked as the cited point."""
    identifier = params.get("id", "").strip()
    if not identifier:
        raise InputError("give a section or chunk id: /section?doc=DOCUMENT&id=ID")
    view = reader.index.show(identifier, params.get("doc") or None)
    shown = _shown_chunk(reader, view, params.get("chunk"))
    chunk, section = shown.chunk, view.section
    section_id = section.section_id if section else chunk.section_id
    point = text_span(params, len(chunk.content))
    if point is None and shown is view.chunk:
        point = view.section_span
    here = {"doc": chunk.source, "id": identifier, "chunk": params.get("chunk"),
            "start": params.get("start"), "end": params.get("end")}  # fmt: skip
    return {
        "chunk": chunk,
        "section": section,
        "section_id": section_id,
        "heading": section.heading if section else chunk.heading,
        "document": reader.display_name(chunk.source),
        "source": chunk.source,
        "text": _text(reader, chunk.source, chunk.content, point),
        "has_point": point is not None,
        "page_url": url("/page", doc=chunk.source, chunk=chunk.chunk_id,
                        start=point[0] if point else None,
                        end=point[1] if point else None),  # fmt: skip
        **_surroundings(reader, view, section_id, params, here),
    }


def _text(reader: Reader, source: str, content: str, point: tuple[int, int] | None) -> Any:
    marks: list[Mark] = [(point[0], point[1], "point")] if point else []
    terms = reader.term_finder(source).find(content)
    return marked_text(content, marks, terms, term_link(reader))


def _surroundings(
    reader: Reader, view: ChunkView, section_id: str, params: Mapping[str, str], here: dict
) -> dict[str, Any]:
    """What is around the section: parents, children, neighbours, outline, references."""
    source = view.chunk.chunk.source
    refs = reader.index.view_references(view)
    outline_number = params.get("outline_page")
    outline = outline_page(
        reader, source, page_number(outline_number) if outline_number else None,
        section_id, "/section", **here,
    )  # fmt: skip
    return {
        "parents": [(p.heading or p.section_id, section_link(source, p.section_id))
                    for p in parent_chain(reader, source, view.section)],  # fmt: skip
        "children": _children(reader, view, params, here),
        "previous": _neighbour(view.previous),
        "next": _neighbour(view.next),
        "outline": outline,
        "outgoing": _paged_refs(reader, refs.outgoing, True, params, "out_page", here),
        "incoming": _paged_refs(reader, refs.incoming, False, params, "in_page", here),
        "notes": view.notes,
        "other_sources": [(reader.display_name(s), section_link(s, section_id))
                          for s in view.other_sources],  # fmt: skip
    }


def _neighbour(stored: StoredChunk | None) -> dict[str, str] | None:
    if stored is None:
        return None
    c = stored.chunk
    link = url("/section", doc=c.source, id=c.section_id, chunk=c.chunk_id)
    return {"heading": c.heading or c.section_id, "section_id": c.section_id, "link": link}


def _children(
    reader: Reader, view: ChunkView, params: Mapping[str, str], here: dict[str, Any]
) -> dict[str, Any]:
    children = paged(view.children, page_number(params.get("children_page")), LIST_PAGE)
    return {
        "paging": children,
        "entries": [
            (c.heading or c.section_id, c.section_id, section_link(c.source, c.section_id))
            for c in children.items
        ],  # fmt: skip
        **_paging_links(children, "children_page", here),
    }


def _paged_refs(
    reader: Reader,
    refs: list[CrossRef],
    outgoing: bool,
    params: Mapping[str, str],
    name: str,
    here: dict,
) -> dict[str, Any]:
    shown = paged(refs, page_number(params.get(name)), LIST_PAGE)
    return {
        "paging": shown,
        "entries": _reference_links(reader, shown.items, outgoing),
        **_paging_links(shown, name, here),
    }


def _paging_links(shown: Paged, name: str, here: dict[str, Any]) -> dict[str, str]:
    return {
        "previous_url": url("/section", **here, **{name: shown.page - 1})
        if shown.has_previous
        else "",
        "next_url": url("/section", **here, **{name: shown.page + 1}) if shown.has_next else "",
    }
