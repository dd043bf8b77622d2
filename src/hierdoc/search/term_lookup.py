"""Definitions looked up from the term: what :meth:`hierdoc.api.Index.define` answers when
ingest stored no definition of it.

The term is known, so the question is where a document says what it is. A bounded set of
candidate chunks comes from the lexical index (the chunks holding the term as a phrase,
in each number, and those BM25 ranks first for the term's words beside "means" and
"defined"); each is read for the shapes of :mod:`hierdoc.text.term_sentences`, and each
document's best-scored place is its answer, a :class:`Definition` of style ``sentence``
citing that chunk.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from ..models import LOOKED_UP, Definition, SearchFilter, StoredChunk
from ..pipeline.extract.definitions import is_definitions_heading
from ..store.base import Capability, Store
from ..text.analyze import analyze, analyze_words
from ..text.normalize import normalize_term, number_forms
from ..text.term_sentences import TermSentence, term_sentences

__all__ = ["MIN_SCORE", "looked_up_definitions"]

CANDIDATES = 48
"""Chunks read per search: enough for a term a glossary and many clauses use, a bounded
read on any index."""
MIN_SCORE = 2.0
"""The least score answered: a plain "X: ..." line alone (1.5) is too often a run-in
heading's clause."""
_DEFINING_WORDS = analyze("means defined refers")

SECTION_BONUS = 1.5
"""What a place in a definitions section scores more: a glossary's line outranks a
sentence of the body about the same term."""
HEADING_LINE_CHARS = 80
"""The longest line of a chunk read as a heading that opens a definitions section."""


def looked_up_definitions(
    store: Store, term: str, sources: Collection[str] | None = None
) -> list[Definition]:
    """Each document's best definition of ``term`` found from its sentences (of the
    documents ``sources`` names, when given), best first."""
    if Capability.LEXICAL not in store.capabilities or not normalize_term(term):
        return []
    if sources is not None and not sources:
        return []
    filt = SearchFilter(sources=tuple(sorted(sources))) if sources else None
    chunks = store.get_chunks(candidate_chunks(store, term, filt))
    best: dict[str, tuple[float, int, Definition]] = {}
    for stored in chunks.values():
        chunk = stored.chunk
        for found in _scored(stored, term):
            rank = (found.score, -chunk.ordinal - found.start / 1e6)
            if chunk.source not in best or rank > best[chunk.source][:2]:
                best[chunk.source] = (*rank, _definition(found, stored))
    ranked = sorted(best.values(), key=lambda item: (-item[0], item[2].source))
    return [definition for *_, definition in ranked]


def candidate_chunks(store: Store, term: str, filt: SearchFilter | None) -> list[str]:
    """The chunks to read: the term as a phrase (each number), then by BM25 its words with
    the defining words; each search bounded by :data:`CANDIDATES`."""
    key = normalize_term(term)
    ids: list[str] = []
    for form in [key, *number_forms(key)]:
        ids += [hit.chunk_id for hit in store.phrase_search(analyze_words(form), CANDIDATES, filt)]
    terms = analyze(key)
    if terms:
        hits = store.keyword_search(terms * 2 + _DEFINING_WORDS, CANDIDATES, filt)
        ids += [hit.chunk_id for hit in hits]
    return list(dict.fromkeys(ids))


def _scored(stored: StoredChunk, term: str) -> list[TermSentence]:
    """The chunk's places defining the term that reach :data:`MIN_SCORE`, those in a
    definitions section (by its heading, or after a line naming one in the chunk:
    "Appendix B: Glossary") scoring :data:`SECTION_BONUS` more."""
    chunk = stored.chunk
    headed = any(map(is_definitions_heading, (chunk.heading, *chunk.parent_chain)))
    opened = 0 if headed else _definitions_line(chunk.content)
    scored = []
    for found in term_sentences(chunk.content, term):
        bonus = SECTION_BONUS if opened is not None and found.start >= opened else 0.0
        if found.score + bonus >= MIN_SCORE:
            scored.append(replace(found, score=found.score + bonus))
    return scored


def _definitions_line(content: str) -> int | None:
    """Where the last line naming a definitions section ends in a chunk; None without one."""
    opened, end = None, -1
    for line in content.split("\n"):
        end += len(line) + 1
        if len(line) <= HEADING_LINE_CHARS and is_definitions_heading(line):
            opened = end
    return opened


def _definition(found: TermSentence, stored: StoredChunk) -> Definition:
    chunk = stored.chunk
    return Definition(
        found.term, found.definition, chunk.source, chunk.section_id, chunk.chunk_id, LOOKED_UP
    )
