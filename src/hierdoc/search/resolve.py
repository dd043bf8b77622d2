"""Citation resolution, in one place: which section an id or a citation names, and in
which document, for ``Index.show`` and ``Index.references``, the agent tools' ``get_section``
and ``references``, and ``hierdoc show``; the search resolves a query's citations the
same way (:mod:`.citations`, :mod:`.relative_citations`), from the same query plan.

* :func:`citation_ids`: the section ids an identifier can mean: itself, then the ids of
  the citation it writes ("Art. 17(3)(b)"), most specific first;
* :func:`section_for`: the first of those that a document (the one given, else the first
  that has it) holds text for;
* :func:`cited_section`: a citation that needs the query around it ("paragraph (k) of the
  737 MAX AD", "subsection (b)(2)"), resolved as a search resolves it (the documents it
  names, else the one its other words point at), without running one: no embedding, no
  fusion, no passages.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..config import SearchSettings
from ..models import SearchFilter, SectionRecord
from ..pipeline.numbering import find_citations
from ..store.base import Store
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


def section_for(store: Store, identifier: str, source: str | None = None) -> SectionRecord | None:
    """The first section (in ``source`` when given) with the id itself and text in the
    index, else with the most specific id a citation in it names."""
    for candidate in dict.fromkeys([identifier, *citation_ids(identifier)]):
        holder = source
        if holder is None:
            holders = store.section_holders(candidate, 1)
            if not holders:
                continue
            holder = holders[0]
        for section in store.sections(candidate, holder):
            if section.chunk_id:
                return section
    return None


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
