"""Citation resolution, in one place: which section an id or a citation names, and in
which documents, for ``Index.show`` and ``Index.references``, the agent tools' ``get_section``
and ``references``, and ``hierdoc show``; the search resolves a query's citations the
same way (:mod:`.citations`, :mod:`.relative_citations`), from the same query plan.

* :func:`citation_ids`: the section ids an identifier can mean: itself, then the ids of
  the citation it writes ("Art. 17(3)(b)"), most specific first;
* :func:`held_section`: the first of those that documents (of those given) hold text
  for, with the first of them and how many there are (:func:`section_holders`);
  :func:`section_for`: its record in the first;
* :func:`cited_section`: a citation that needs the query around it ("paragraph (k) of the
  737 MAX AD", "subsection (b)(2)"), resolved as a search resolves it (the documents it
  names, else the one its other words point at), without running one: no embedding, no
  fusion, no passages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..config import SearchSettings
from ..models import SearchFilter, SectionRecord
from ..store.base import Records, Store
from ..text.numbering import find_citations
from .analysers import NamedDocuments, QuerySyntax
from .citations import CitedSections, cite_numbered
from .glossary import Glossary
from .plan import QueryPlan, build_plan
from .relative_citations import RestRanking, cite_relatives
from .searcher import AllDocuments


def citation_ids(identifier: str) -> list[str]:
    """Section ids to try for an identifier: itself (lower-cased), then the ids of the first
    citation it writes, most specific first."""
    candidates = [identifier.strip().lower()]
    for citation in find_citations(identifier)[:1]:
        candidates += citation.label.candidate_ids()
    return list(dict.fromkeys(candidates))


@dataclass(frozen=True)
class HeldSection:
    """A section id that documents hold text for."""

    section_id: str
    sources: list[str]
    """The first documents holding it, in source order (of those asked about)."""
    count: int
    """How many documents hold it."""


def section_holders(
    store: Records, section_id: str, listed: int, sources: Sequence[str] | None = None
) -> tuple[list[str], int]:
    """The first ``listed`` documents (of ``sources``, when given: all of them) with text for
    the section id, in source order, and how many there are: counted only when they do not
    fit (a bare id may be in 43,600 documents)."""
    if sources is not None:
        held = sorted(s for s in sources if any(r.chunk_id for r in store.sections(section_id, s)))
        return held, len(held)
    holders = store.section_holders(section_id, listed + 1)
    if len(holders) <= listed:
        return holders, len(holders)
    return holders[:listed], store.count_sections([section_id], 2**62)


def held_section(
    store: Records, identifier: str, sources: Sequence[str] | None = None, listed: int = 1
) -> HeldSection | None:
    """The first id ``identifier`` can mean (:func:`citation_ids`, the identifier as written
    first) that a document (of ``sources``, when given) holds text for, with the first
    ``listed`` of those documents; None when none does."""
    for candidate in dict.fromkeys([identifier, *citation_ids(identifier)]):
        holders, count = section_holders(store, candidate, listed, sources)
        if holders:
            return HeldSection(candidate, holders, count)
    return None


def section_for(store: Records, identifier: str, source: str | None = None) -> SectionRecord | None:
    """The section (in ``source`` when given, else in the first document that has it) with
    the id itself and text in the index, else with the most specific id a citation in it
    names (:func:`held_section`)."""
    held = held_section(store, identifier, None if source is None else [source])
    if held is None:
        return None
    sections = store.sections(held.section_id, held.sources[0])
    return next((section for section in sections if section.chunk_id), None)


#: How a citation is resolved outside a search: the query's other words point at a
#: document through BM25 alone (nothing is embedded).
RESOLVING = SearchSettings(search_mode="keyword", top_k=1)


def cited_section(
    store: Store,
    glossary: Glossary | None,
    text: str,
    sources: Sequence[str] | None = None,
    settings: SearchSettings = RESOLVING,
) -> tuple[str, str] | None:
    """(source, section id) the citation of ``text`` names, in the document a search
    resolves it in (within ``sources`` when given); None when ``text`` cites nothing that
    resolves."""
    filt = SearchFilter(sources=tuple(sources)) if sources else None
    analysers = (NamedDocuments(glossary.names), QuerySyntax()) if glossary else (QuerySyntax(),)
    plan = build_plan(QueryPlan.asked(text, settings, filt), analysers)
    if not plan.relative and not plan.cited:
        return None
    scope = list(plan.filt.sources) if plan.filt and plan.filt.sources else AllDocuments(store)
    chunks = plan.policy.pointing_chunks
    rest = RestRanking(plan.remainder, None, plan.mode, chunks)
    found = [*cite_numbered(store, plan, scope, 1), *cite_relatives(store, plan, scope, rest, 1)]
    return next((hit for cited in found if (hit := _first_holder(store, cited))), None)


def _first_holder(store: Store, cited: CitedSections) -> tuple[str, str] | None:
    """(source, section id) of the first document where ``cited`` resolved."""
    if not cited.citation["resolved"] or not cited.pinned:
        return None
    stored = store.get_chunks(cited.pinned[:1])
    first = stored.get(cited.pinned[0])
    section_id = cited.citation["section_id"]
    if first is None or not store.sections(section_id, first.chunk.source):
        return None
    return first.chunk.source, section_id
