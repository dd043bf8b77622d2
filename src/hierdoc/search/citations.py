"""Cited sections across documents: "Section 8.4" in each document that has it, and only there.

A citation names a number, and several documents may have it (every contract has
a "Section 8"), or none. For each document in scope, the cited id is looked up
level by level from the most specific (``section-8-4``, then ``section-8``), each
level with its equivalent clause kinds (``clause-8-4``, ``requirement-8-4``):

* the documents that have the cited number itself each give their section (one
  pinned chunk per document, where the section begins, then its subtree);
* a document that has only a parent ("8. Termination" for "Section 8.4") never
  stands in for the number in another document; the parent is shown only when the
  search covers a single document (named in the query, filtered to, or the only
  one indexed), with a note saying so;
* the notes say which documents have the cited section and which do not;
* in a search that covers a few documents (named in the query or filtered to), a number
  none of them has as a section id is looked for among the clauses numbered under an
  unnumbered heading ("10." under "Terms and Conditions", ``terms-and-conditions-10``): an
  agreement whose one heading holds its numbered clauses is cited "Section 10";
* a number more documents have than the policy's ``crowded_citation`` (50) is pinned in
  those of them that the query's words and meaning rank first (``preferred``), with a note
  saying so: no result list shows them all, and finding every one would cost a read per
  document.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from ..config import DEFAULT_POLICY, SearchPolicy
from ..models import SearchFilter, SectionRecord
from ..store.base import Store
from ..text.numbering import CLAUSE_KINDS, equivalent_ids, fallback_ids

if TYPE_CHECKING:
    from .plan import QueryPlan

HEADED_SCOPE = 4
"""Most documents in scope whose sections are read for a clause numbered under a heading."""


@dataclass
class CitedSections:
    """Where one citation of a query lands."""

    citation: dict
    """``{"text", "section_id", "resolved"}``: resolved when some document has the number."""
    pinned: list[str] = field(default_factory=list)
    """The chunk where the section begins, one per document."""
    ordered: list[str] = field(default_factory=list)
    """Pinned chunks, then each section's subtree: the exact modality's list."""
    notes: list[str] = field(default_factory=list)
    section_pins: dict[str, str] = field(default_factory=dict)
    """Pins of their own for pinned chunks, naming the section read ("cites paragraph (k):
    section-39-13-k"; a relative citation's text holds no number)."""

    def pins(self) -> dict[str, str]:
        """Why each pinned chunk comes first."""
        return {chunk_id: self.section_pins.get(chunk_id, self.pin) for chunk_id in self.pinned}

    @property
    def pin(self) -> str:
        """Why the pinned chunks come first."""
        text = self.citation["text"]
        return f"cites {text}" if self.citation["resolved"] else f"nearest section to {text}"


def cite_numbered(
    store: Store,
    plan: QueryPlan,
    documents: Sequence[str],
    limit: int | None = None,
    preferred: Callable[[], list[str]] | None = None,
) -> list[CitedSections]:
    """Each numbered citation of ``plan`` resolved in ``documents`` (:func:`cite_sections`)."""
    return [
        cite_sections(store, plan, cited, documents, limit=limit, preferred=preferred)
        for cited in plan.cited
    ]


def cite_sections(
    store: Store,
    plan: QueryPlan,
    cited: tuple[str, Sequence[str]],
    documents: Sequence[str],
    *,
    limit: int | None = None,
    preferred: Callable[[], list[str]] | None = None,
) -> CitedSections:
    """Resolve one citation of ``plan`` (its text, its candidate section ids most specific
    first) in every document of ``documents`` (the documents in scope), within the plan's
    filter and by its policy. ``ordered`` stops once it holds ``limit`` distinct chunks (the
    exact modality keeps no more), so a number every document has is not followed into
    every subtree. ``preferred``: the documents the query's other modalities rank first,
    best first."""
    text, candidate_ids = cited
    filt, policy = plan.filt, plan.policy
    label = text.strip()
    levels = [(i, *equivalent_ids(i)) for i in candidate_ids]
    crowded = _crowded_starts(store, levels[0], filt, preferred, policy) if levels else None
    exact = crowded or (_starts(store, levels[0], filt) if levels else {})
    if levels and not exact and (fallback := fallback_ids(candidate_ids[0])):
        exact = _starts(store, fallback, filt)
    if levels and not exact:
        exact = _under_headings(store, candidate_ids[0], filt)
    if exact:
        first_id = next(iter(exact.values()))[0]
        found = CitedSections({"text": label, "section_id": first_id, "resolved": True})
        if crowded:
            found.notes.append(
                f"{label} is in more than {policy.crowded_citation} documents: pinned in the "
                f"{len(exact)} of them that rank first for the query"
            )
        else:
            found.notes += _where_note(label, list(exact), documents, policy.note_names)
        return fill_sections(store, found, exact, filt, limit)
    nearest = _nearest(store, [(*level, *fallback_ids(level[0])) for level in levels[1:]], filt)
    found = CitedSections({"text": label, "section_id": None, "resolved": False})
    if not nearest:
        return found
    if len(documents) == 1:
        section_id = next(iter(nearest.values()))[0]
        found.citation["section_id"] = section_id
        found.notes.append(
            f"no {label} in {name_of(documents[0])}: showing {section_id}, "
            "the nearest section that holds it"
        )
        return fill_sections(store, found, nearest, filt, limit)
    where = ", ".join(f"{s[0]} in {name_of(src)}" for src, s in list(nearest.items())[:3])
    found.notes.append(f"no {label} in any of the {len(documents)} documents (nearest: {where})")
    return found


def fill_sections(
    store: Store,
    cited: CitedSections,
    holders: dict[str, tuple[str, str]],
    filt: SearchFilter | None,
    limit: int | None = None,
) -> CitedSections:
    cited.pinned = [chunk_id for _, chunk_id in holders.values()]
    cited.ordered = list(cited.pinned)
    distinct = set(cited.ordered)
    for source, (section_id, _) in holders.items():
        if limit is not None and len(distinct) >= limit:
            break
        within = replace(filt or SearchFilter(), sources=(source,))
        under = store.chunk_ids_under(section_id, within)
        cited.ordered += under
        distinct.update(under)
    return cited


def _crowded_starts(
    store: Store,
    ids: Sequence[str],
    filt: SearchFilter | None,
    preferred: Callable[[], list[str]] | None,
    policy: SearchPolicy,
) -> dict[str, tuple[str, str]] | None:
    """:func:`_starts` in the preferred documents, when more documents than the policy's
    ``crowded_citation`` have the number and the filter names no documents; None
    otherwise, or when none of the preferred has it."""
    crowd = policy.crowded_citation
    if preferred is None or (filt is not None and filt.sources):
        return None
    if store.count_sections(list(ids), crowd + 1) <= crowd:
        return None
    ranked = list(dict.fromkeys(preferred()))[:crowd]
    found = _starts(store, ids, filt, ranked)
    return {source: found[source] for source in ranked if source in found} or None


def _starts(
    store: Store,
    ids: Sequence[str],
    filt: SearchFilter | None,
    sources: Sequence[str] | None = None,
) -> dict[str, tuple[str, str]]:
    """Per document: the first of ``ids`` it has, with the chunk where that section begins."""
    found: dict[str, tuple[str, str]] = {}
    for source, chunk_id, chunk_section in section_starts(store, ids, filt, sources):
        if source not in found:
            held = chunk_section if chunk_section in ids else _held_id(store, ids, source)
            found[source] = (held, chunk_id)
    return found


def _under_headings(
    store: Store, cited_id: str, filt: SearchFilter | None
) -> dict[str, tuple[str, str]]:
    """Per document the filter names (at most :data:`HEADED_SCOPE`): the clause numbered as
    ``cited_id`` ("section-10") in the list numbered under an unnumbered heading
    (:func:`headed_clause`), with the chunk where it begins."""
    kind, _, number = cited_id.partition("-")
    if kind not in CLAUSE_KINDS or not number or filt is None:
        return {}
    if not filt.sources or len(filt.sources) > HEADED_SCOPE:
        return {}
    found: dict[str, tuple[str, str]] = {}
    for source in filt.sources:
        section_id = headed_clause(store.sections_of_source(source), number)
        if section_id is None:
            continue
        for held, chunk_id, _ in section_starts(store, [section_id], filt, [source]):
            found.setdefault(held, (section_id, chunk_id))
    return found


def headed_clause(sections: Sequence[SectionRecord], number: str) -> str | None:
    """The id of the clause numbered ``number`` ("10", "10-2") under an unnumbered heading
    of ``sections`` (one document's), its id the heading's qualified by the number: of the
    heading whose numbered list is the longest when several have it, none on a tie."""
    ids = {s.section_id for s in sections}
    items = Counter(s.parent_id for s in sections if s.kind == "enum")
    lists = sorted(
        (
            (items[s.section_id], f"{s.section_id}-{number}")
            for s in sections
            if s.kind == "heading" and f"{s.section_id}-{number}" in ids
        ),
        reverse=True,
    )
    if not lists or (len(lists) > 1 and lists[0][0] == lists[1][0]):
        return None
    return lists[0][1]


def _held_id(store: Store, ids: Sequence[str], source: str) -> str:
    """Which of the equivalent ``ids`` ("requirement-2-1-1", "section-2-1-1") ``source``
    has, for a section that begins inside another section's chunk."""
    if len(ids) == 1:
        return ids[0]
    return next((i for i in ids if store.sections(i, source)), ids[0])


def section_starts(
    store: Store,
    ids: Sequence[str],
    filt: SearchFilter | None,
    sources: Sequence[str] | None = None,
) -> list[tuple[str, str, str]]:
    """:meth:`Store.section_starts` that ``filt`` lets through: ids only (one row per
    document that has a number every document has), whole chunks read only to filter.
    A filter naming documents is looked up in those documents only."""
    if sources is None and filt is not None and filt.sources:
        sources = list(filt.sources)
    starts = store.section_starts(list(ids), sources)
    if filt is None or filt.empty:
        return starts
    ids = [c for source, c, _ in starts if not filt.sources or source in filt.sources]
    kept = {i for i, stored in store.get_chunks(ids).items() if filt.matches(stored.chunk)}
    return [start for start in starts if start[1] in kept]


def _nearest(
    store: Store, levels: Sequence[Sequence[str]], filt: SearchFilter | None
) -> dict[str, tuple[str, str]]:
    """Per document: its most specific section among the parents of the cited number."""
    found: dict[str, tuple[str, str]] = {}
    for ids in levels:
        for source, hit in _starts(store, ids, filt).items():
            found.setdefault(source, hit)
    return found


def _where_note(label: str, have: list[str], documents: Sequence[str], most: int) -> list[str]:
    """Which documents have the cited section and which do not (with several in scope)."""
    if len(documents) < 2:
        return []
    held = set(have)
    missing = [d for d in documents if d not in held]
    if not missing and len(have) == 1:
        return []
    note = f"{label} is in {names_of(have, most)}"
    if missing:
        note += f"; not in {names_of(missing, most)}"
    return [note]


def names_of(sources: Sequence[str], most: int = DEFAULT_POLICY.note_names) -> str:
    """The names of ``sources``, at most ``most`` of them, the rest counted."""
    names = [name_of(s) for s in sources[:most]]
    if len(sources) <= most:
        return ", ".join(names)
    return ", ".join(names) + f" and {len(sources) - most} others"


def name_of(source: str) -> str:
    return PurePosixPath(source).name or source
