"""Extract stage for one document: definitions, acronyms, cross-references, chunk types.

The finders in :mod:`.definitions`, :mod:`.acronyms` and :mod:`.crossrefs` work
on plain text; this module runs them over each section's own text, places what
they find in the chunk that holds it, resolves references against the
document's own section ids, and types each chunk.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from itertools import accumulate
from typing import TypeVar

from ...models import Acronym, Chunk, CrossRef, Definition, Extraction, Section
from ...text.normalize import normalize_term
from .acronyms import find_acronyms
from .crossref_resolve import resolve
from .crossrefs import find_references
from .definition_lists import column_definitions, has_column_header
from .definition_markup import unmark
from .definition_pointers import resolve_pointers
from .definition_runs import glossary_headings
from .definition_text import FoundDefinition
from .definitions import find_definitions, is_definitions_heading, leading_points
from .title_refs import (
    TitleReference,
    find_title_references,
    overlapping,
    title_index,
)

REQUIREMENT = re.compile(
    r"\b(?:shall(?!\s+not\s+be\s+construed)|must|may\s+not|is\s+required\s+to|"
    r"are\s+required\s+to|is\s+prohibited|are\s+prohibited)\b",
    re.IGNORECASE,
)

_log = logging.getLogger(__name__)
_Found = TypeVar("_Found")


class _Locator:
    """Finds the chunk that holds a piece of a section's text.

    Each chunk's text is put in one-space form once, when first searched, not once per item
    found in it (a definitions section of a thousand entries searched its chunks a
    thousand times)."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.chunks = chunks
        self.start_of = {s: n for n, c in enumerate(chunks) for s in c.sections}
        self._spaced: dict[int, str] = {}

    def chunk_for(self, section: Section, text: str, offset: int) -> Chunk | None:
        first = self.start_of.get(section.section_id)
        if first is None:
            return None
        probe = " ".join(text[offset : offset + 80].split())
        if probe:
            for n in range(first, min(first + 20, len(self.chunks))):
                if probe in self._one_spaced(n):
                    return self.chunks[n]
        return self.chunks[first]

    def _one_spaced(self, n: int) -> str:
        spaced = self._spaced.get(n)
        if spaced is None:
            spaced = self._spaced[n] = " ".join(self.chunks[n].content.split())
        return spaced


def extract_document(
    sections: list[Section], chunks: list[Chunk]
) -> tuple[list[Chunk], Extraction]:
    """Chunks with their types set, and everything extracted from the document. A finder
    that fails loses its own part only (definitions, acronyms or cross-references): the
    failure is logged and named in ``Extraction.problems``, the rest is kept."""
    if not chunks:
        return chunks, Extraction()
    locator = _Locator(chunks)
    source = chunks[0].source
    extraction = Extraction()
    extraction.definitions = _attempt(
        extraction, "definitions", source, lambda: _all_definitions(sections, locator, source)
    )
    extraction.acronyms = _attempt(
        extraction, "acronyms", source, lambda: _all_acronyms(sections, locator, source)
    )
    extraction.references = _attempt(
        extraction,
        "cross-references",
        source,
        lambda: _all_references(sections, chunks[0].title, locator, extraction.definitions),
    )
    extraction.chunk_terms = _chunk_terms(chunks, extraction.definitions)
    return _typed(chunks, extraction), extraction


def _attempt(
    extraction: Extraction, part: str, source: str, find: Callable[[], list[_Found]]
) -> list[_Found]:
    """What ``find`` gives, or nothing when it fails (named in ``extraction.problems``)."""
    try:
        return find()
    except Exception as error:  # a finder's fault loses its own part, not the document
        _log.exception("%s of %s not extracted", part, source)
        extraction.problems[part] = f"{type(error).__name__}: {error}"
        return []


def _all_definitions(sections: list[Section], locator: _Locator, source: str) -> list[Definition]:
    in_definitions = _definition_sections(sections)
    units = _units(sections, in_definitions)
    rows = _table_rows(units)
    found: list[Definition] = []
    for index, unit in enumerate(units):
        own = _definitions(unit, locator, source, in_definitions, rows)
        found += _with_split_points(own, units, index)
    return resolve_pointers(found, sections)


def _all_acronyms(sections: list[Section], locator: _Locator, source: str) -> list[Acronym]:
    found: list[Acronym] = []
    for section in sections:
        text = section.heading_line + section.body
        if text.strip():
            found += _acronyms(section, text, locator, source)
    return found


def _all_references(
    sections: list[Section], title: str, locator: _Locator, definitions: list[Definition]
) -> list[CrossRef]:
    source = locator.chunks[0].source
    known = {s.section_id for s in sections}
    titles = _Titles(sections, title, definitions)
    found: list[CrossRef] = []
    for section in sections:
        text = section.heading_line + section.body
        if text.strip():
            found += _references(section, text, locator, source, known, titles)
    return found


def _definition_sections(sections: list[Section]) -> set[str]:
    """Ids of sections headed Definitions, Glossary, ... and of everything under them; every
    section of a document whose title is such a heading ("# Glossary" over "## base date",
    "## extent", ...: the title heading is the preamble's, its sections are top level)."""
    if sections[0].kind == "preamble" and is_definitions_heading(sections[0].heading):
        return {s.section_id for s in sections}
    heads = {s.section_id for s in sections if is_definitions_heading(s.heading)}
    heads |= _glossary_sections(sections)
    return heads | {s.section_id for s in sections if heads & set(s.path)}


def _glossary_sections(sections: list[Section]) -> set[str]:
    """Ids of sibling sections that read as a glossary's entries by their shape ("###
    Account" / "The record we keep ...", three or more in a row; see
    :func:`.definition_runs.glossary_headings`); a section with sections under it is no
    entry."""
    found: set[str] = set()
    run: list[Section] = []
    for index, section in enumerate([*sections, None]):
        parent = section.path if section is not None else None
        leaf = (
            section is not None
            and section.kind == "heading"
            and not (index + 1 < len(sections) and section.section_id in sections[index + 1].path)
        )
        if run and (not leaf or parent != run[0].path):
            entries = [(s.heading, s.heading_line, s.body) for s in run]
            marks = glossary_headings(entries)
            found |= {s.section_id for s, mark in zip(run, marks, strict=True) if mark}
            run = []
        if leaf and section is not None:
            run.append(section)
    return found


@dataclass
class _Unit:
    """A block section with its numbered paragraphs and points, as one text.

    Definitions are found in whole units: a definition such as GDPR Article
    4(16) 'main establishment' runs on through its own points (a) and (b).
    """

    sections: list[Section]
    starts: list[int]
    text: str
    offset: int = 0  # where the unit's text starts in the document's

    def section_at(self, offset: int) -> tuple[Section, int]:
        index = bisect_right(self.starts, offset) - 1
        return self.sections[index], offset - self.starts[index]


def _units(sections: list[Section], in_definitions: AbstractSet[str] = frozenset()) -> list[_Unit]:
    """Sections grouped into units; each unit's text joined once (adding to a string held
    by an object copies it every time: quadratic in a list of thousands of points). A
    numbered paragraph headed Definitions ("1. Definitions" of a plain-text licence whose
    clauses are all numbered paragraphs) is a unit of its own with what it holds, read as a
    definitions section; the paragraphs after it start the next unit."""
    groups: list[list[Section]] = []
    definitions_paragraph: str | None = None
    for section in sections:
        inside = definitions_paragraph is not None and definitions_paragraph in section.path
        opens = section.kind == "enum" and section.section_id in in_definitions and not inside
        if section.kind != "enum" or not groups or opens or (definitions_paragraph and not inside):
            groups.append([])
            definitions_paragraph = section.section_id if opens else None
        groups[-1].append(section)
    units = []
    offset = 0
    for group in groups:
        texts = [s.heading_line + s.body for s in group]
        starts = list(accumulate((len(t) for t in texts[:-1]), initial=0))
        units.append(_Unit(group, starts, "".join(texts), offset))
        offset += len(units[-1].text)
    return units


def _table_rows(units: list[_Unit]) -> list[FoundDefinition]:
    """The rows of the document's term/definition tables written as text ("Defined
    Terms<TAB>Definitions" then "Term<TAB>Means ..."), read from the whole text: the outline
    may cut such a table into many sections (a row's term "2U" read as a number, its
    lettered points as points), and a row's definition runs on through them."""
    text = "".join(unit.text for unit in units)
    if not has_column_header(text):
        return []
    return list(column_definitions(unmark(text)))


def _definitions(
    unit: _Unit,
    locator: _Locator,
    source: str,
    in_definitions: set[str],
    rows: list[FoundDefinition],
) -> list[Definition]:
    """The unit's definitions; the table rows that start in it, read from the whole
    document, replace what the unit's own text gives inside them."""
    flagged = unit.sections[0].section_id in in_definitions
    end = unit.offset + len(unit.text)
    mine = [replace(r, start=r.start - unit.offset) for r in rows if unit.offset <= r.start < end]
    spans = [(r.start - unit.offset, r.end - unit.offset) for r in rows]
    own = [
        item
        for item in find_definitions(unit.text, flagged)
        if not any(start <= item.start < stop for start, stop in spans)
    ]
    found = []
    for item in sorted(own + mine, key=lambda f: f.start):
        section, offset = unit.section_at(item.start)
        if not item.definition.strip(" :—–-"):  # "X means:": its points follow
            item = replace(item, definition=leading_points(unit.text[item.end :].lstrip(" :—–-")))
        own = section.heading_line + section.body
        chunk = locator.chunk_for(section, own, offset)
        if chunk is not None:
            found.append(
                Definition(
                    item.term,
                    item.definition,
                    source,
                    section.section_id,
                    chunk.chunk_id,
                    item.style,
                )
            )
    return found


def _with_split_points(found: list[Definition], units: list[_Unit], index: int) -> list[Definition]:
    """Definitions whose text the outline split off: "Mortgage loan originator means:" ends
    its section and its points "(1) ...", "(2) ..." are sections under it. Such an empty
    definition takes the points that open the units after it, as long as they are inside
    its section."""
    if all(d.definition for d in found):
        return found
    return [
        replace(d, definition=_points_under(units, index, d.section_id)) if not d.definition else d
        for d in found
    ]


def _points_under(units: list[_Unit], index: int, section_id: str, limit: int = 4000) -> str:
    texts = []
    for unit in units[index + 1 :]:
        if section_id not in unit.sections[0].path or sum(map(len, texts)) > limit:
            break
        texts.append(unit.text)
    return leading_points("".join(texts)[:limit])


def _acronyms(section: Section, text: str, locator: _Locator, source: str) -> list[Acronym]:
    found = []
    for item in find_acronyms(text):
        chunk = locator.chunk_for(section, text, item.start)
        if chunk is not None:
            found.append(Acronym(item.acronym, item.long_form, source, chunk.chunk_id))
    return found


RESOLVE_DEPTH = 16
"""Ancestors a reference is resolved against: every level of a real document (the US Code
has 12), while a clause nested 1,000 deep costs no more per reference than one 16 deep."""


class _Titles:
    """The document's section titles and the pattern that finds them after a cue."""

    def __init__(self, sections: list[Section], title: str, definitions: list[Definition]):
        self.ids = title_index(sections, title)
        self.defined = {" ".join(d.term.casefold().split()) for d in definitions}

    def references(self, section: Section, text: str) -> list[TitleReference]:
        own = section.section_id
        return find_title_references(text, self.ids, own, self.defined)


def _references(
    section: Section,
    text: str,
    locator: _Locator,
    source: str,
    known: set[str],
    titles: _Titles | None = None,
) -> list[CrossRef]:
    """The numbered references of a section's text, resolved, then its references to other
    sections by title (:mod:`.title_refs`) where no numbered one is written."""
    context = (*section.path[-RESOLVE_DEPTH:], section.section_id)
    found = []
    spans = []
    for ref in find_references(text):
        chunk = locator.chunk_for(section, text, ref.start)
        if chunk is None:
            continue
        spans.append((ref.start, ref.end))
        target = None if ref.external else resolve(ref, context, known)
        found.append(
            CrossRef(
                ref.text,
                source,
                chunk.chunk_id,
                section.section_id,
                target,
                source if target else None,
                ref.external,
            )
        )
    for title in titles.references(section, text) if titles else []:
        chunk = locator.chunk_for(section, text, title.start)
        if chunk is None or overlapping(spans, title.start, title.end):
            continue
        target = title.section_id
        found.append(
            CrossRef(title.text, source, chunk.chunk_id, section.section_id, target, source)
        )
    return found


def _chunk_terms(chunks: list[Chunk], definitions: list[Definition]) -> list[tuple[str, str]]:
    """(chunk id, term) for every defined term of the document that a chunk uses."""
    terms = sorted({normalize_term(d.term) for d in definitions}, key=len, reverse=True)
    if not terms:
        return []
    pattern = re.compile(
        r"(?<![\w-])(" + "|".join(re.escape(t) for t in terms) + r")(?![\w-])", re.IGNORECASE
    )
    pairs = []
    for chunk in chunks:
        used = dict.fromkeys(normalize_term(m) for m in pattern.findall(chunk.content))
        pairs += [(chunk.chunk_id, term) for term in used if term in terms]
    return pairs


def _typed(chunks: list[Chunk], extraction: Extraction) -> list[Chunk]:
    defining = {d.chunk_id for d in extraction.definitions if d.style != "parenthetical"}
    typed = []
    for chunk in chunks:
        if chunk.chunk_type == "header":
            kind = "header"
        elif chunk.chunk_id in defining:
            kind = "definition"
        elif REQUIREMENT.search(chunk.content):
            kind = "requirement"
        else:
            kind = "content"
        typed.append(replace(chunk, chunk_type=kind))
    return typed
