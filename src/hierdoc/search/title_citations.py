"""Sections cited by their title with their document: "Indemnification in the Mozilla
Accounts Terms of Service", "PEP 609 Leaving PyPA", "Leaving PyPA in PEP 609".

A query that is a section's title and its document's name, and nothing else, cites that
section as "Section 9 of the Terms" would: the section is pinned first. The query is read
as a title and a name, either way round, joined by at most a few linking words ("in the",
"of"):

* when the query names one document (:mod:`.names`), the rest of the query is the title,
  looked up among that document's section titles (a heading without its number:
  "Indemnification" of "9. Indemnification"), or a label written as the heading writes it
  ("V12.6" of "V12.6 SSRF Protection", a label citations do not otherwise read);
* otherwise each split of the query into a heading written out whole (an indexed look-up)
  and a rest whose words are all words of that heading's document's name (its title or
  file name: "PEP 609" of ``pep-0609-pypa-governance.html``).

The title may be framed by a word that says it is a section's ("the Roles section of the
Data Sharing Policy", "section Motions in the Charter", "the Confidentiality clause"): when
no section is titled with that word, the title without it is looked up.

A title that several sections of the document have ("Description" under each chapter)
cites none of them, and a question (a "?", a question word first) is never a title
citation: "what is the Term" asks about words, not a heading.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ..models import SearchFilter
from ..pipeline.extract.title_refs import section_title
from ..store.base import Store
from ..text.names import COMPANY_WORDS, DOCUMENT_WORDS, name_words_of
from .citations import CitedSections, fill_sections, section_starts

if TYPE_CHECKING:
    from .names import DocumentNames
    from .plan import QueryPlan

#: Words that join a title to its document's name: "Indemnification in the ... Terms".
LINKING_WORDS = frozenset({"in", "of", "the", "from", "under", "within", "to", "see"})
#: Words that frame a title as a section's: "the Roles section", "section Motions".
FRAMING_WORDS = frozenset({"section", "clause", "chapter", "part", "heading"})
#: Longest query (in words) read as a title citation.
MAX_QUERY_WORDS = 14
_WORD = re.compile(r"[\w’'-]+")
_LABEL = re.compile(r"[A-Za-z]{1,3}[-.]?\d+(?:[.-]\d+)*(?:\(\w+\))?")
"""A label the numbering of citations does not read, written alone with its document's
name: "V12.6 of the OWASP ASVS" cites the section headed "V12.6 SSRF Protection"."""
_QUESTION = re.compile(
    r"^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|can|could|may|must|shall"
    r"|should|does|do|did|will|would)\b",
    re.IGNORECASE,
)


def cite_title(
    store: Store, plan: QueryPlan, names: DocumentNames, limit: int | None = None
) -> CitedSections | None:
    """The section the query cites by its title and its document's name, or None."""
    if plan.cited or plan.relative or not _may_cite(plan.query):
        return None
    if plan.named:
        found = _titled_in_named(store, plan, names)
    else:
        found = _headed_in_named_rest(store, plan, names)
    if found is None:
        return None
    source, section_id, title = found
    starts = section_starts(store, [section_id], plan.filt, [source])
    holders = {s: (section_id, chunk) for s, chunk, _ in starts if s == source}
    if not holders:
        return None
    cited = CitedSections({"text": title, "section_id": section_id, "resolved": True})
    return fill_sections(store, cited, holders, plan.filt, limit)


def _may_cite(query: str) -> bool:
    words = _WORD.findall(query)
    return 2 <= len(words) <= MAX_QUERY_WORDS and "?" not in query and not _QUESTION.match(query)


def _titled_in_named(
    store: Store, plan: QueryPlan, names: DocumentNames
) -> tuple[str, str, str] | None:
    """The named document's one section titled as the query's words besides the name, or
    as those words less a few more of its name ("V14.4 of the OWASP" when "OWASP" is a word
    of the file's name but not of the name the query was read to write)."""
    if len(plan.named) != 1:
        return None
    source, rest = plan.named[0], plan.remainder
    for title in _titles_in(rest, lambda other: source in names.holding_every(other)):
        section_id = _titled_in(store, source, title)
        if section_id:
            return source, section_id, title
    return None


def _titles_in(text: str, names_it: Callable[[set[str]], bool]) -> Iterator[str]:
    """``text`` as a title, then each end of it whose other end ``names_it`` (its name
    words), linking words dropped."""
    yield from title_forms(text)
    words = list(_WORD.finditer(text))
    for cut in range(1, len(words)):
        before, after = text[: words[cut].start()], text[words[cut].start() :]
        for title, other in ((before, after), (after, before)):
            asked = name_words_of(other) - DOCUMENT_WORDS
            if asked and names_it(asked):
                yield from title_forms(title)


def title_forms(text: str) -> list[str]:
    """The titles ``text`` may write, linking words dropped: as written, then without a
    word framing it as a section's at either end ("Roles section" -> "Roles"); none
    that does not open with a letter."""
    whole = strip_linking(text)
    words = whole.split()
    while words and _bare(words[-1]) in FRAMING_WORDS:
        words.pop()
    while words and _bare(words[0]) in FRAMING_WORDS:
        words.pop(0)
    unframed = strip_linking(" ".join(words))
    return [t for t in dict.fromkeys((whole, unframed)) if t and t[0].isalpha()]


def _titled_in(store: Store, source: str, title: str) -> str | None:
    """The one section of ``source`` titled ``title`` (its heading without the number), or
    headed by ``title`` as its label ("V12.6" of "V12.6 SSRF Protection")."""
    wanted = _key(title)
    sections = [s for s in store.sections_of_source(source) if s.kind != "preamble"]
    ids = [s.section_id for s in sections if _key(section_title(s.heading)) == wanted]
    if not ids and _LABEL.fullmatch(title):
        ids = [s.section_id for s in sections if _key(s.heading.split()[0]) == wanted]
    return ids[0] if len(set(ids)) == 1 else None


def _headed_in_named_rest(
    store: Store, plan: QueryPlan, names: DocumentNames
) -> tuple[str, str, str] | None:
    """A heading written whole at one end of the query, in a document whose name holds
    every word of the other end."""
    words = list(_WORD.finditer(plan.text))
    for cut in range(1, len(words)):
        before = plan.text[: words[cut].start()]
        after = plan.text[words[cut].start() :]
        for title, rest in ((after, before), (before, after)):
            for form in title_forms(title):
                found = _heading_of_named(store, form, rest, names, plan.filt)
                if found is not None:
                    return found
    return None


def _heading_of_named(
    store: Store, title: str, rest: str, names: DocumentNames, filt: SearchFilter | None
) -> tuple[str, str, str] | None:
    """The section headed ``title`` (or labelled so) in the one document whose name holds
    every word of ``rest``."""
    asked = name_words_of(rest) - DOCUMENT_WORDS - COMPANY_WORDS - FRAMING_WORDS
    if not asked or not set(_WORD.findall(strip_linking(rest).lower())) - LINKING_WORDS:
        return None
    ids = store.sections_with_heading(title)
    label = not ids and _LABEL.fullmatch(title) is not None
    if not ids and not label:
        return None
    holders = names.holding_every(asked)
    if filt is not None and filt.sources:
        holders &= set(filt.sources)
    if label and len(holders) == 1:
        source = next(iter(holders))
        section_id = _titled_in(store, source, title)
        return (source, section_id, title) if section_id else None
    by_source: dict[str, list[str]] = {}
    for section_id in ids if holders else []:
        for source, _, _ in section_starts(store, [section_id], filt, sorted(holders)):
            by_source.setdefault(source, []).append(section_id)
    if len(by_source) != 1:
        return None
    source, found = next(iter(by_source.items()))
    return (source, found[0], title) if len(found) == 1 else None


def strip_linking(text: str) -> str:
    """``text`` without linking words or punctuation at either end: "Indemnification in
    the" -> "Indemnification"."""
    words = text.split()
    while words and _bare(words[-1]) in LINKING_WORDS:
        words.pop()
    while words and _bare(words[0]) in LINKING_WORDS:
        words.pop(0)
    return " ".join(words).strip(" ,;:-–—")


def _bare(word: str) -> str:
    return word.strip(",;:.()\"'“”‘’").lower()


def _key(title: str) -> str:
    return " ".join(_WORD.findall(title.casefold()))
