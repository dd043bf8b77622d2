"""What the agent tools do, over the public :class:`hierdoc.api.Index` API only.

Each ``run_*`` function checks its arguments (with a message that says how to fix the
call), asks the index, and returns a :class:`ToolOutput`: the structured result, in the
shape :mod:`hierdoc.tools.catalogue` advertises, and its cited text rendering. A bad
call raises :class:`hierdoc.errors.InputError`; an id, source or section the index does
not hold raises :class:`hierdoc.errors.NotFoundError`. No tool takes a file path: a
``source`` is only compared with what the index holds (:meth:`Index.resolve_sources`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..api import ChunkView, Index, ReferenceLookup
from ..config import MAX_TOP_K
from ..errors import InputError, NotFoundError
from ..models import CrossRef, SectionRecord
from ..search.resolve import HeldSection, citation_ids
from ..views import MAX_OTHER_SOURCES
from .catalogue import check_output
from .render import (
    render_define,
    render_documents,
    render_references,
    render_search,
    render_section,
)

MAX_QUERY_CHARS = 2000
MAX_ID_CHARS = 300
MAX_TERM_CHARS = 200
QUOTES = " \"'‘’“”"


@dataclass
class ToolOutput:
    """What a tool returns: JSON-ready structured content and the text a model reads."""

    structured: dict[str, Any]
    text: str


class _DisplayNames(Mapping[str, str]):
    """The display name of each source an answer shows, looked up as it is asked for: an
    answer names a few documents, where a corpus may hold 43,600. For look-ups only: it
    lists no keys."""

    def __init__(self, index: Index) -> None:
        self._index = index

    def __getitem__(self, source: str) -> str:
        return self._index.display_name(source)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def _names(index: Index) -> Mapping[str, str]:
    return _DisplayNames(index)


def _sources(index: Index, source: str | None) -> list[str] | None:
    """The stored sources a ``source`` argument names; ``None`` (all) when it is blank."""
    if source is None or not source.strip():
        return None
    return index.resolve_sources(source)


def run_search(
    index: Index,
    query: str,
    top_k: int | None = None,
    mode: str | None = None,
    source: str | None = None,
    section: str | None = None,
    where: dict[str, str] | None = None,
    passages: bool = False,
    explain: bool = False,
) -> ToolOutput:
    """The ``search`` tool: checked arguments, then :meth:`Index.search` (``passages``: results
    ranked at the passage level)."""
    text = (query or "").strip()
    if not text:
        raise InputError(
            'the query is empty: give words, a "quoted phrase" or a citation such as '
            '"Article 17(3)(b)"'
        )
    if len(text) > MAX_QUERY_CHARS:
        raise InputError(
            f"the query is too long ({len(text)} characters, at most {MAX_QUERY_CHARS})"
        )
    if top_k is not None and not 1 <= top_k <= MAX_TOP_K:
        raise InputError(f"top_k must be between 1 and {MAX_TOP_K}, got {top_k}")
    sources = _sources(index, source)
    section_id = _check_section(index, section, sources)
    response = index.search(
        text,
        top_k=top_k,
        mode=mode,
        source=sources,
        section=section_id,
        where=where,
        passage_results=passages or None,
        explain=explain,
    )
    structured = check_output("search", response.to_dict())
    return ToolOutput(structured, render_search(structured, _names(index)))


def _check_section(index: Index, section: str | None, sources: list[str] | None) -> str | None:
    if section is None or not section.strip():
        return None
    return index.known_section(section.strip().lower(), sources)


@dataclass
class _Target:
    """What an ``id`` argument resolved to, in one document."""

    source: str
    section_id: str
    chunk_id: str | None = None
    notes: list[str] = field(default_factory=list)
    other_sources: list[str] = field(default_factory=list)


def _resolve_target(index: Index, identifier: str, source: str | None) -> _Target:
    text = (identifier or "").strip()
    if not text:
        raise InputError(
            'the id is empty: give a section id such as "article-17-3-b", a chunk id from '
            'search results, or a citation such as "Article 17(3)(b)"'
        )
    if len(text) > MAX_ID_CHARS:
        raise InputError(f"the id is too long (at most {MAX_ID_CHARS} characters)")
    sources = _sources(index, source)
    stored = index.chunks([text]).get(text)
    if stored is not None:
        chunk = stored.chunk
        if sources is not None and chunk.source not in sources:
            raise NotFoundError(f"chunk {text!r} is not in document {source!r}")
        return _Target(chunk.source, chunk.section_id, chunk_id=text)
    held = index.held_section(text, sources)
    if held is not None:
        return _section_target(index, text, held)
    cited = index.cited_section(text, sources)
    if cited is not None:
        target = _Target(*cited)
        name = _names(index).get(cited[0], cited[0])
        target.notes.append(f"{text!r} resolved to section {cited[1]} of {name}")
        return target
    where = f" in document {source!r}" if sources else ""
    raise NotFoundError(
        f"no section or chunk with id {text!r}{where}: use a section id from search results "
        '(such as "article-17-3-b"), a chunk id, or a citation such as "Article 17(3)(b)"'
    )


def _section_target(index: Index, asked: str, held: HeldSection) -> _Target:
    section_id, holders, count = held.section_id, held.sources, held.count
    target = _Target(holders[0], section_id)
    if section_id != asked.lower():
        target.notes.append(f"{asked!r} resolved to section {section_id}")
        wanted = citation_ids(asked)[1:2]
        if wanted and wanted[0] != section_id:
            target.notes.append(f"section {wanted[0]} is not in the index")
    if count > 1:
        names = _names(index)
        target.other_sources = holders[1 : 1 + MAX_OTHER_SOURCES]
        others = ", ".join(names.get(s, s) for s in target.other_sources)
        if count - 1 > len(target.other_sources):
            others += f" and {count - 1 - len(target.other_sources):,} more"
        target.notes.append(
            f"{count:,} documents have a section {section_id}; this is the one in "
            f"{names.get(target.source, target.source)} (also in: {others}; pass source to choose)"
        )
    return target


def _section_record(index: Index, target: _Target) -> SectionRecord | None:
    records = index.sections(target.section_id, target.source)
    return records[0] if records else None


def _section_chain(index: Index, record: SectionRecord) -> list[str]:
    """Headings from the document's top section down to ``record``."""
    chain = [record.heading]
    parent, seen = record.parent_id, {record.section_id}
    while parent and parent not in seen:
        seen.add(parent)
        found = index.sections(parent, record.source)
        if not found:
            break
        chain.append(found[0].heading)
        parent = found[0].parent_id
    return chain[::-1]


def _view(index: Index, target: _Target) -> tuple[ChunkView, list[str]]:
    """The chunk view of a target, kept in the target's own document."""
    if target.chunk_id is not None:
        view = index.show(target.chunk_id)
        return view, list(view.chunk.chunk.parent_chain)
    record = _section_record(index, target)
    if record is None or record.chunk_id is None:
        raise NotFoundError(f"section {target.section_id!r} has no text in the index")
    base = index.show(record.chunk_id)
    children = index.children(record.source, record.section_id)
    view = ChunkView(base.chunk, base.previous, base.next, record, children)
    return view, _section_chain(index, record)


def run_get_section(index: Index, id: str, source: str | None = None) -> ToolOutput:
    """The ``get_section`` tool: a section or chunk with its parents, children and neighbours."""
    target = _resolve_target(index, id, source)
    view, chain = _view(index, target)
    data = view.to_dict()
    data.update(section_chain=chain, notes=target.notes, other_sources=target.other_sources)
    structured = check_output("get_section", data)
    return ToolOutput(structured, render_section(structured, _names(index)))


def run_define(index: Index, term: str) -> ToolOutput:
    """The ``define`` tool: every definition of a term, with citations and conflicts flagged."""
    if not (term or "").strip(QUOTES):
        raise InputError('the term is empty: give a term such as "personal data"')
    if len(term) > MAX_TERM_CHARS:
        raise InputError(f"the term is too long (at most {MAX_TERM_CHARS} characters)")
    lookup = index.define(term.strip())
    structured = check_output("define", lookup.to_dict())
    return ToolOutput(structured, render_define(structured, _names(index)))


def run_references(index: Index, id: str, source: str | None = None) -> ToolOutput:
    """The ``references`` tool: outgoing and incoming cross-references, in one document."""
    target = _resolve_target(index, id, source)
    lookup = index.references(target.chunk_id or target.section_id, target.source)
    outgoing = [r for r in lookup.outgoing if r.source == target.source]
    if target.chunk_id is None:
        outgoing = _made_within(index, target, outgoing)
    incoming = [r for r in lookup.incoming if (r.target_source or r.source) == target.source]
    data = ReferenceLookup(lookup.section_id, outgoing, incoming).to_dict()
    data.update(source=target.source, notes=target.notes)
    structured = check_output("references", data)
    return ToolOutput(structured, render_references(structured, _names(index)))


def _made_within(index: Index, target: _Target, refs: list[CrossRef]) -> list[CrossRef]:
    """For a paragraph or point, only the references made in it (not in its whole passage).

    Enumerated sub-section ids extend their parent's id (article-17-3-b is in article-17-3),
    which is what makes the prefix test sound; a section with its own passage keeps them all.
    """
    record = _section_record(index, target)
    chunk_id = record.chunk_id if record else None
    holder = index.chunks([chunk_id]).get(chunk_id) if chunk_id else None
    if holder is None or not target.section_id.startswith(holder.chunk.section_id + "-"):
        return refs
    sid = target.section_id
    return [r for r in refs if r.section_id == sid or r.section_id.startswith(sid + "-")]


#: The most documents ``list_documents`` lists (the first by source); it gives the totals.
MAX_LISTED_DOCUMENTS = 200


def run_list_documents(index: Index) -> ToolOutput:
    """The ``list_documents`` tool: the first :data:`MAX_LISTED_DOCUMENTS` documents, and
    how many documents and passages there are in all (a corpus of 43,600 acts would be
    megabytes of listing, more than a model can read)."""
    records = index.documents()
    names = _names(index)
    documents = [
        {
            "source": d.source,
            "name": names[d.source],
            "title": d.title,
            "format": d.format,
            "chars": d.chars,
            "chunks": d.chunk_count,
            "metadata": d.metadata,
        }
        for d in records[:MAX_LISTED_DOCUMENTS]
    ]
    data = {
        "documents": documents,
        "total_chunks": sum(d.chunk_count for d in records),
        "total_documents": len(records),
    }
    structured = check_output("list_documents", data)
    return ToolOutput(structured, render_documents(structured))


RUNNERS: dict[str, Callable[..., ToolOutput]] = {
    "search": run_search,
    "get_section": run_get_section,
    "define": run_define,
    "references": run_references,
    "list_documents": run_list_documents,
}
