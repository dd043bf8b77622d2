"""Relative citations: "paragraph (k)", "subsection (b)(2)", "clause (iii)", "(k) of the AD".

A relative citation gives a section's own label(s) and no number before them: it cites
the section of some document whose heading opens with those parenthesised labels (its
*own* labels, "(k)" of ``section-39-13-k``), or whose label path ends with them ("(b)(2)":
a "(2)" under a "(b)"). Which document it means is not written in the citation, so it is
resolved, in this order:

* within the documents the query names (:mod:`.names`) or the one it is filtered to;
* else within the document the rest of the query points at: the words around the
  citation ("737 MAX AD") ranked by the hybrid search, when one document holds most of
  that ranking (the search policy's ``pointing_share``, ``pointing_margin`` ahead of the
  next);
* else in each of the documents that ranking puts near the first (within
  ``pointing_margin`` of it) that has such a section, or, with no other words, in each
  document in scope, as a number every document has ("Section 8") is, with a note saying
  where it is. A document the query clearly means but that has no such section lends
  none of another's: the note says it has none.

Written next to a numbered citation, a relative one is part of it (:func:`attach_relative`):
"Article 17 paragraph (3)" cites ``article-17-3``, "paragraph (a) of § 39.13"
``section-39-13-a``.

Within one document a section labelled in the cited case wins ("subparagraph (A)" of a US
statute is not its subsection "(a)"; either case is read when none is written alike), then
the shallowest (a lettered paragraph "(k)" before a "(k)" of a nested list), then the one
whose label path is exactly the cited one, then the first; a note says which was chosen
when several match.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..config import DEFAULT_POLICY, SearchPolicy
from ..models import Hit, SearchFilter, SectionRecord
from ..store.base import Store
from ..text.analyze import analyze
from ..text.numbering import Citation, Label
from .citations import CitedSections, fill_sections, name_of, names_of, section_starts

if TYPE_CHECKING:
    from .plan import QueryPlan

#: Words that introduce a relative citation.
KIND_WORDS = (
    "subparagraph",
    "sub-paragraph",
    "paragraph",
    "para.",
    "para",
    "subsection",
    "sub-section",
    "subclause",
    "sub-clause",
    "clause",
    "item",
    "point",
    "letter",
)
#: What one pair of parentheses of a relative citation holds: a number ("3", "2A"), one
#: or two letters ("k", "aa") or a Roman numeral ("iii", "XIV"). Longer words in
#: parentheses are acronyms ("(MEL) of the AD"), not labels.
LABEL_VALUE = r"\d{1,3}[A-Za-z]?|[A-Za-z]{1,2}|[ivxlcdm]{1,6}|[IVXLCDM]{1,6}"
_LABELS = rf"(?P<labels>(?:\((?:{LABEL_VALUE})\)){{1,5}})"
_KINDS = "|".join(re.escape(k) for k in KIND_WORDS)
RELATIVE_PATTERN = re.compile(
    rf"(?<![\w§.\-])(?:(?P<kind>{_KINDS})\s*{_LABELS}|{_LABELS.replace('labels', 'bare')}"
    r"(?=\s+of\b))(?![\w(])",
    re.IGNORECASE,
)
_GROUP = rf"(?:\((?:{LABEL_VALUE})\)){{1,5}}"
#: "paragraphs (h) and (i)", "subsections (b), (c), or (d)": each group is a citation.
PLURAL_PATTERN = re.compile(
    rf"(?<![\w§.\-])(?P<kind>{'|'.join(re.escape(k) for k in KIND_WORDS if k[-1] != '.')})s\s*"
    rf"{_GROUP}(?:\s*,\s*{_GROUP})*(?:\s*,?\s*(?:and|or)\s+{_GROUP})?(?![\w(])",
    re.IGNORECASE,
)
_GROUP_PATTERN = re.compile(_GROUP)
_LABEL_PART = re.compile(rf"\(({LABEL_VALUE})\)")
_OWN_LABELS = re.compile(r"^\s*((?:\([0-9A-Za-z]{1,6}\))+)")


@dataclass(frozen=True)
class RelativeCitation:
    """A citation by own labels only, with its place in the query."""

    text: str
    labels: tuple[str, ...]
    start: int
    end: int

    @property
    def label(self) -> str:
        """The labels as written in parentheses: "(b)(2)"."""
        return "".join(f"({part})" for part in self.labels)


def find_relative_citations(
    text: str, taken: Sequence[tuple[int, int]] = ()
) -> list[RelativeCitation]:
    """Every relative citation of ``text`` outside the spans ``taken`` (numbered citations:
    "Article 17(3)" holds no relative one)."""
    found = _plural_citations(text, taken)
    taken = [*taken, *((c.start, c.end) for c in found)]
    for match in RELATIVE_PATTERN.finditer(text):
        if any(start < match.end() and match.start() < end for start, end in taken):
            continue
        labels = tuple(_LABEL_PART.findall(match["labels"] or match["bare"]))
        written = text[match.start() : match.end()]
        found.append(RelativeCitation(written, labels, match.start(), match.end()))
    return found


def _plural_citations(text: str, taken: Sequence[tuple[int, int]]) -> list[RelativeCitation]:
    """Each parenthesised group of "paragraphs (h) and (i)" as a citation of its own
    ("paragraph (h)", "paragraph (i)"); the spans cover the whole phrase between them."""
    found = []
    for match in PLURAL_PATTERN.finditer(text):
        if any(start < match.end() and match.start() < end for start, end in taken):
            continue
        start = match.start()
        for group in _GROUP_PATTERN.finditer(text, match.end("kind"), match.end()):
            labels = tuple(_LABEL_PART.findall(group[0]))
            written = f"{match['kind']} {group[0]}"
            found.append(RelativeCitation(written, labels, start, group.end()))
            start = group.end()
    return found


_BETWEEN = re.compile(r"[\s,]*")
_OF = re.compile(r"\s+of\s+(?:the\s+)?", re.IGNORECASE)


def attach_relative(
    text: str, citations: Sequence[Citation], relative: Sequence[RelativeCitation]
) -> tuple[list[Citation], list[RelativeCitation]]:
    """Relative citations written next to a numbered one are its parts: "Article 17
    paragraph (3)" is ``article-17-3``, "Section 5, subsection (b)(2)" ``section-5-b-2``,
    "paragraph (a) of § 39.13" ``section-39-13-a``. Returns the numbered citations so
    extended and the relative ones left."""
    numbered = sorted(citations, key=lambda c: c.start)
    left = []
    for citation in sorted(relative, key=lambda c: c.start):
        after = _just_before(text, numbered, citation)
        if after is not None:
            head = numbered[after]
            numbered[after] = _extended(text, head, head.start, citation.end, citation.labels)
            continue
        owner = _just_after(text, numbered, citation)
        if owner is not None:
            head = numbered[owner]
            numbered[owner] = _extended(text, head, citation.start, head.end, citation.labels)
            continue
        left.append(citation)
    return numbered, left


def _just_before(text: str, numbered: Sequence[Citation], citation: RelativeCitation) -> int | None:
    """The numbered citation written right before ``citation`` ("Article 17 paragraph (3)")."""
    for i, head in enumerate(numbered):
        if head.end <= citation.start and _BETWEEN.fullmatch(text, head.end, citation.start):
            return i
    return None


def _just_after(text: str, numbered: Sequence[Citation], citation: RelativeCitation) -> int | None:
    """The numbered citation ``citation`` is "of" ("paragraph (a) of § 39.13")."""
    for i, head in enumerate(numbered):
        if head.start >= citation.end and _OF.fullmatch(text, citation.end, head.start):
            return i
    return None


def _extended(text: str, head: Citation, start: int, end: int, labels: Sequence[str]) -> Citation:
    label = Label(head.label.kind, (*head.label.parts, *labels))
    return Citation(label, text[start:end], start, end)


def own_labels(heading: str) -> tuple[str, ...]:
    """The parenthesised labels a heading opens with: "(k) Wire routing" -> ("k",)."""
    match = _OWN_LABELS.match(heading)
    return tuple(_LABEL_PART.findall(match.group(1))) if match else ()


@dataclass(frozen=True)
class LabelledSection:
    """A section whose label path ends with the cited labels."""

    record: SectionRecord
    exact: bool
    """Its label path is the cited one, no more (not a "(k)" nested under an "(a)(1)")."""
    same_case: bool
    """Its labels are written in the cited case ("(A)" for "(A)")."""

    @property
    def rank(self) -> tuple[int, bool, bool, int]:
        return (not self.same_case, self.record.level, not self.exact, self.record.ordinal)


def labelled_sections(
    sections: Sequence[SectionRecord], labels: Sequence[str]
) -> list[LabelledSection]:
    """The sections of one document that ``labels`` cite, best first (see the module)."""
    by_id = {s.section_id: s for s in sections}
    wanted = [label.lower() for label in labels]
    found = []
    for section in sections:
        path = _label_path(section, by_id)
        if [p.lower() for p in path[-len(wanted) :]] != wanted or len(path) < len(wanted):
            continue
        same_case = list(path[-len(wanted) :]) == list(labels)
        found.append(LabelledSection(section, len(path) == len(wanted), same_case))
    return sorted(found, key=lambda s: s.rank)


def _label_path(section: SectionRecord, by_id: Mapping[str, SectionRecord]) -> list[str]:
    """The own labels of the section and of its parents up to the first without any:
    ["b", "2"] for a "(2)" under a "(b)" under "Section 5"."""
    path: list[str] = []
    current: SectionRecord | None = section
    while current is not None:
        own = own_labels(current.heading)
        if not own:
            break
        path = [*own, *path]
        current = by_id.get(current.parent_id) if current.parent_id else None
    return path


def ranked_documents(
    rankings: Mapping[str, Sequence[str]],
    sources: Mapping[str, str],
    policy: SearchPolicy = DEFAULT_POLICY,
) -> list[tuple[str, float]]:
    """Documents by their share of the rankings' weight (chunk ids best first, one list per
    modality; each of the first ``pointing_chunks`` weighs the reciprocal of its rank),
    with ``sources`` giving each chunk's document."""
    weight: dict[str, float] = defaultdict(float)
    for ranking in rankings.values():
        for rank, chunk_id in enumerate(ranking[: policy.pointing_chunks], start=1):
            if chunk_id in sources:
                weight[sources[chunk_id]] += 1.0 / rank
    total = sum(weight.values()) or 1.0
    return sorted(((s, w / total) for s, w in weight.items()), key=lambda item: -item[1])


def pointed_document(
    ranked: Sequence[tuple[str, float]], policy: SearchPolicy = DEFAULT_POLICY
) -> str | None:
    """The document of :func:`ranked_documents` the rankings clearly point at, if any."""
    if not ranked:
        return None
    first = ranked[0][1]
    runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
    clear = first >= policy.pointing_share and first >= policy.pointing_margin * runner_up
    return ranked[0][0] if clear else None


@dataclass(frozen=True)
class Pointing:
    """The documents a relative citation is resolved in, and why those."""

    documents: list[str]
    how: str


def choose_documents(
    store: Store,
    plan: QueryPlan,
    citation: RelativeCitation,
    rest: Mapping[str, Sequence[str]] | None,
    scope: Sequence[str],
) -> Pointing:
    """Where ``citation`` of ``plan`` is looked for: the documents the plan names (or the
    one filtered to), else the one the ranking ``rest`` of the query's other words points
    at, else those it ranks, else (no other words) those in ``scope``: all when few, else
    those with a section headed by the citation's last label alone ("(k)": an indexed
    look-up)."""
    named, filt, policy = plan.named, plan.filt, plan.policy
    if named:
        return Pointing(list(named), "named in the query")
    if filt is not None and len(filt.sources) == 1:
        return Pointing(list(filt.sources), "the document searched")
    if rest:
        chunks = policy.pointing_chunks
        ids = list(dict.fromkeys(c for ranking in rest.values() for c in ranking[:chunks]))
        sources = {c: stored.chunk.source for c, stored in store.get_chunks(ids).items()}
        ranked = ranked_documents(rest, sources, policy)
        pointed = pointed_document(ranked, policy)
        if pointed is not None:
            return Pointing([pointed], "the document the rest of the query points at")
        margin = policy.pointing_margin
        contenders = [s for s, share in ranked if share * margin >= ranked[0][1]]
        return Pointing(contenders, "among the documents the rest of the query ranks first")
    if len(scope) <= policy.relative_documents:
        return Pointing(list(scope), "the query names no document")
    own = f"({citation.labels[-1]})"
    headed = section_starts(store, store.sections_with_heading(own), filt)
    return Pointing(list(dict.fromkeys(s for s, _, _ in headed)), "the query names no document")


@dataclass(frozen=True)
class RestRanking:
    """The hybrid ranking of the query's words besides its citations (``text``)."""

    text: str
    embed_query: Callable[[str], np.ndarray] | None
    """The query embedder; None ranks by keywords alone, whatever the mode."""
    mode: str
    """The search mode: the modalities that rank ("hybrid", "keyword", ...)."""
    chunks: int = DEFAULT_POLICY.pointing_chunks
    """How many chunks each modality ranks."""

    def rank(self, store: Store, filt: SearchFilter | None) -> dict[str, list[str]] | None:
        """Chunk ids best first by modality; None when the rest holds no search word."""
        if not analyze(self.text):
            return None
        ranked: dict[str, list[Hit]] = {}
        if self.mode != "semantic":
            terms = analyze(self.text)
            ranked["keyword"] = store.keyword_search(terms, self.chunks, filt)
        if self.mode in ("hybrid", "semantic") and self.embed_query is not None:
            vector = self.embed_query(self.text)
            ranked["semantic"] = store.vector_search(vector, self.chunks, filt)
        return {m: [h.chunk_id for h in hits] for m, hits in ranked.items()}


def cite_relatives(
    store: Store,
    plan: QueryPlan,
    scope: Sequence[str],
    rest: RestRanking,
    limit: int | None = None,
) -> list[CitedSections]:
    """Each relative citation of ``plan`` resolved in the documents it names, else in those
    the rest of the query points at or ranks, else in ``scope`` (:func:`choose_documents`);
    ``limit``: see :func:`cite_relative`."""
    if not plan.relative:
        return []
    ranking = rest.rank(store, plan.filt) if not plan.named else None
    return [
        cite_relative(store, plan, c, choose_documents(store, plan, c, ranking, scope), limit=limit)
        for c in plan.relative
    ]


def cite_relative(
    store: Store,
    plan: QueryPlan,
    citation: RelativeCitation,
    pointing: Pointing,
    *,
    limit: int | None = None,
) -> CitedSections:
    """Resolve ``citation`` of ``plan`` in the documents of ``pointing``
    (:func:`choose_documents`), within the plan's filter; ``ordered`` stops once it holds
    ``limit`` chunks, as for numbered citations."""
    filt, policy = plan.filt, plan.policy
    text, documents, how = citation.text.strip(), pointing.documents, pointing.how
    cited = CitedSections({"text": text, "section_id": None, "resolved": False})
    holders: dict[str, tuple[str, str]] = {}
    most = policy.relative_documents
    for source in documents[:most]:
        matches = _matches(store, source, citation.labels, filt)
        if not matches:
            continue
        chosen = matches[0].record
        holders[source] = (chosen.section_id, chosen.chunk_id or "")
        if len(matches) > 1:
            others = ", ".join(m.record.section_id for m in matches[1:4])
            cited.notes.append(
                f"{text} in {name_of(source)}: {chosen.section_id} of {len(matches)} sections "
                f"labelled {citation.label}, as cited and shallowest first (also {others})"
            )
    if len(documents) > most:
        cited.notes.append(
            f"{text} was looked for in the first {most} of {len(documents)} "
            "documents with such a label: name the document to cite its section"
        )
    if not holders:
        where = names_of(list(documents), policy.note_names) if documents else "the index"
        cited.notes.append(f"no section labelled {citation.label} in {where} ({how})")
        return cited
    cited.citation.update(section_id=next(iter(holders.values()))[0], resolved=True)
    cited.notes.insert(0, _where_note(text, holders, how, policy.note_names))
    cited.section_pins = {chunk: f"cites {text}: {section}" for section, chunk in holders.values()}
    return fill_sections(store, cited, holders, filt, limit)


def _matches(
    store: Store, source: str, labels: Sequence[str], filt: SearchFilter | None
) -> list[LabelledSection]:
    """The sections of ``source`` that ``labels`` cite and that begin in a chunk
    ``filt`` lets through, best first."""
    matches = [
        m for m in labelled_sections(store.sections_of_source(source), labels) if m.record.chunk_id
    ]
    if filt is None or filt.empty or not matches:
        return matches
    stored = store.get_chunks([m.record.chunk_id or "" for m in matches])
    return [
        m
        for m in matches
        if m.record.chunk_id in stored and filt.matches(stored[m.record.chunk_id].chunk)
    ]


def _where_note(text: str, holders: Mapping[str, tuple[str, str]], how: str, most: int) -> str:
    if len(holders) == 1:
        source, (section_id, _) = next(iter(holders.items()))
        return f"{text} read as {section_id} of {name_of(source)} ({how})"
    return f"{text} is in {names_of(list(holders), most)} ({how}): each is shown"
