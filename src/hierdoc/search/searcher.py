"""Search stage: rank each modality on its own, fuse, and build located results.

Modalities: ``semantic`` (dense vectors), ``keyword`` (BM25) and ``exact``
(section citations such as "Article 17(3)(b)", quoted phrases, headings).
Hybrid search takes a candidate pool deeper than ``top_k`` from each, fuses
them with weighted RRF, and puts the chunks of a cited section first: a user
who names "Section 203(a)" wants that section, whatever else the query says.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..config import SearchSettings
from ..errors import InputError
from ..models import (
    MODALITIES,
    Definition,
    Hit,
    SearchFilter,
    SearchResponse,
    SearchResult,
    StoredChunk,
)
from ..pipeline.extract.definitions import normalize_term
from ..pipeline.numbering import find_citations
from ..store.base import Store
from .analyze import analyze, analyze_query, analyze_words
from .fuse import best_possible, weighted_rrf
from .glossary import Glossary, QueryVocabulary
from .rerank import Reranker, rerank

_QUOTED = re.compile(r"[\"“”„]([^\"“”„]{2,})[\"“”„]")
_BACKTICKED = re.compile(r"`([^`]+)`")
# camelCase, PascalCase (humps of two or more characters) and snake_case names.
_IDENTIFIER = re.compile(
    r"(?<![\w.])(?:[a-z]+(?:[A-Z][a-z0-9]+)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+"
    r"|[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+)(?!\w)"
)


@dataclass(frozen=True)
class ParsedQuery:
    text: str
    phrases: tuple[str, ...]
    cited: tuple[tuple[str, tuple[str, ...]], ...]
    """(citation text, candidate section ids from most to least specific)."""
    remainder: str
    identifiers: tuple[str, ...] = ()
    """Names as code writes them: `backticked` words, camelCase, snake_case."""


def parse_query(query: str) -> ParsedQuery:
    phrases = [m.group(1).strip() for m in _QUOTED.finditer(query)]
    identifiers = [m.group(0) for m in _IDENTIFIER.finditer(query)]
    for m in _BACKTICKED.finditer(query):
        name = m.group(1).strip().removesuffix("()")
        (identifiers if name and len(name.split()) == 1 else phrases).append(name)
    citations = find_citations(query)
    cited = tuple((c.text, tuple(c.label.candidate_ids())) for c in citations)
    remainder = query
    for citation in sorted(citations, key=lambda c: c.start, reverse=True):
        remainder = remainder[: citation.start] + " " + remainder[citation.end :]
    return ParsedQuery(
        query,
        tuple(dict.fromkeys(p for p in phrases if p)),
        cited,
        remainder.strip(),
        tuple(dict.fromkeys(identifiers)),
    )


@dataclass
class _Exact:
    hits: list[Hit]
    pinned: list[str]
    """Chunks where a cited section begins, most specific citation first."""
    notes: list[str]
    citations: list[dict]


def exact_search(
    store: Store,
    parsed: ParsedQuery,
    k: int,
    filt: SearchFilter | None,
    vocabulary: QueryVocabulary | None = None,
) -> _Exact:
    """Cited sections (most specific existing id), phrases, identifiers, headings,
    defining chunks."""
    ordered: list[str] = []
    pinned: list[str] = []
    notes: list[str] = []
    citations: list[dict] = []
    allowed = _filter_fn(filt)
    for text, candidates in parsed.cited:
        section_id, chunks = _most_specific(store, candidates, allowed)
        citations.append(
            {"text": text.strip(), "section_id": section_id, "resolved": section_id is not None}
        )
        if section_id is None:
            words = analyze_words(text.strip())
            mentions = [hit.chunk_id for hit in store.phrase_search(words, k, filt)]
            ordered += mentions
            where = "mentioned in the text only" if mentions else "not found in the index"
            notes.append(f"no section {text.strip()}: {where}")
            continue
        pinned += [s.chunk.chunk_id for s in chunks]
        ordered += [s.chunk.chunk_id for s in chunks]
        ordered += [s.chunk.chunk_id for s in store.chunks_under(section_id, filt)]
    for phrase in parsed.phrases:
        ordered += [hit.chunk_id for hit in store.phrase_search(analyze_words(phrase), k, filt)]
    for identifier in parsed.identifiers:
        ordered += [hit.chunk_id for hit in _identifier_search(store, identifier, k, filt)]
    for section_id in store.sections_with_heading(parsed.text):
        ordered += [s.chunk.chunk_id for s in store.chunks_of_sections([section_id]) if allowed(s)]
    if vocabulary and vocabulary.defining_chunks:
        defining = store.get_chunks(vocabulary.defining_chunks)
        ordered += [c for c in vocabulary.defining_chunks if c in defining and allowed(defining[c])]
    unique = list(dict.fromkeys(ordered))[:k]
    return _Exact([Hit(c, 1.0) for c in unique], list(dict.fromkeys(pinned)), notes, citations)


def _most_specific(
    store: Store, candidates: Sequence[str], allowed: Callable[[StoredChunk], bool]
) -> tuple[str | None, list[StoredChunk]]:
    for section_id in candidates:
        chunks = [s for s in store.chunks_of_sections([section_id]) if allowed(s)]
        if chunks:
            return section_id, chunks
    return None, []


def _filter_fn(filt: SearchFilter | None) -> Callable[[StoredChunk], bool]:
    if filt is None or filt.empty:
        return lambda stored: True
    return lambda stored: filt.matches(stored.chunk)


def _identifier_search(
    store: Store, identifier: str, k: int, filt: SearchFilter | None
) -> list[Hit]:
    """Chunks indexed under the identifier's whole term, BM25-ranked.

    The analyzer also indexes compounds inside qualified names, so ``getTarget``
    finds ``self.getTarget()`` and ``frame_timer`` finds ``self.frame_timer``.
    """
    terms = analyze(identifier)
    return store.keyword_search(terms[:1], k, filt) if terms else []


def keyword_terms(store: Store, text: str) -> list[str]:
    """The distinct BM25 terms to search for: each query term, or, when a term with
    back-offs is not in the index, the indexed terms of its first back-off that has any."""
    query_terms = analyze_query(text)
    asked = [t for qt in query_terms if qt.backoff for t in (qt.term, *sum(qt.backoff, ()))]
    freq = store.doc_freq(list(dict.fromkeys(asked))) if asked else {}
    terms: dict[str, None] = {}
    for qt in query_terms:
        if qt.backoff and not freq.get(qt.term):
            for alternative in qt.backoff:
                present = [t for t in alternative if freq.get(t)]
                if present:
                    terms.update(dict.fromkeys(present))
                    break
            continue
        terms[qt.term] = None
    return list(terms)


class Searcher:
    """Runs one query against a store with an embedder for the query vector."""

    def __init__(
        self,
        store: Store,
        embed_query: Callable[[str], np.ndarray],
        glossary: Glossary | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        self._store = store
        self._embed_query = embed_query
        self._glossary = glossary
        self._reranker = reranker

    def search(
        self, query: str, settings: SearchSettings, filt: SearchFilter | None = None
    ) -> SearchResponse:
        if not query or not query.strip():
            raise InputError("the query is empty")
        if len(query) > settings.max_query_chars:
            raise InputError(
                f"the query has {len(query):,} characters; the limit is "
                f"{settings.max_query_chars:,} (max_query_chars)"
            )
        parsed = parse_query(query.strip())
        vocabulary = self._glossary.lookup(parsed.text) if self._glossary else QueryVocabulary()
        expanded = vocabulary.expand(parsed.text)
        depth = max(settings.candidate_depth, settings.top_k)
        exact = exact_search(self._store, parsed, depth, filt, vocabulary)
        rankings: dict[str, list[Hit]] = {}
        if settings.search_mode in ("hybrid", "exact"):
            rankings["exact"] = exact.hits
        if settings.search_mode in ("hybrid", "keyword"):
            terms = keyword_terms(self._store, expanded)
            rankings["keyword"] = self._store.keyword_search(terms, depth, filt)
        if settings.search_mode in ("hybrid", "semantic"):
            vector = self._embed_query(expanded if vocabulary.asks_meaning else parsed.text)
            rankings["semantic"] = self._store.vector_search(vector, depth, filt)
        response = SearchResponse(
            query, settings.search_mode, True, [], exact.notes, exact.citations
        )
        unresolved = [c for c in exact.citations if not c["resolved"]]
        only_missing_citations = unresolved and len(unresolved) == len(parsed.cited)
        if only_missing_citations and not exact.hits and not _has_terms(parsed):
            return response
        ordered = self._order(rankings, exact.pinned, settings)
        relevance: dict[str, float] = {}
        if self._reranker is not None and settings.reranker is not None:
            top_n = max(settings.reranker.top_n, settings.top_k)
            reranked = rerank(self._reranker, self._store, query, ordered, exact.pinned, top_n)
            ordered, relevance = reranked.ordered, reranked.relevance
            response.notes += reranked.notes
        response.results = self._results(ordered, rankings, settings, vocabulary, relevance)
        response.no_match = self._no_match(parsed, rankings, response.results, settings)
        return response

    def _order(
        self, rankings: dict[str, list[Hit]], pinned: list[str], settings: SearchSettings
    ) -> list[tuple[str, float]]:
        if settings.search_mode != "hybrid":
            return [(h.chunk_id, h.score) for h in rankings[settings.search_mode]]
        ids = {m: [h.chunk_id for h in hits] for m, hits in rankings.items()}
        fused = weighted_rrf(ids, settings.weights, settings.rrf_k)
        top = best_possible(settings.weights, list(rankings), settings.rrf_k) or 1.0
        scaled = [(chunk_id, score / top) for chunk_id, score in fused]
        first = set(pinned)
        return [e for e in scaled if e[0] in first] + [e for e in scaled if e[0] not in first]

    def _results(
        self,
        ordered: list[tuple[str, float]],
        rankings: dict[str, list[Hit]],
        settings: SearchSettings,
        vocabulary: QueryVocabulary,
        relevance: dict[str, float] | None = None,
    ) -> list[SearchResult]:
        if settings.min_score is not None:
            ordered = [e for e in ordered if e[1] >= settings.min_score]
        ordered = ordered[: settings.top_k]
        ids = [chunk_id for chunk_id, _ in ordered]
        stored = self._store.get_chunks(ids)
        enrich = _Enrichment.load(self._store, ids, vocabulary)
        positions = {
            m: {h.chunk_id: (rank, h.score) for rank, h in enumerate(hits, start=1)}
            for m, hits in rankings.items()
        }
        results = []
        for chunk_id, score in ordered:
            if chunk_id not in stored:
                continue
            record = stored[chunk_id]
            chunk = record.chunk
            found = {m: positions.get(m, {}).get(chunk_id) for m in MODALITIES}
            results.append(
                SearchResult(
                    chunk_id=chunk_id,
                    source=chunk.source,
                    title=chunk.title,
                    parent_chain=list(chunk.parent_chain),
                    section_id=chunk.section_id,
                    heading=chunk.heading,
                    chunk_type=chunk.chunk_type,
                    content=chunk.content,
                    score=round(float(score), 6),
                    scores={m: f[1] if f else None for m, f in found.items()}
                    | ({"rerank": relevance.get(chunk_id)} if relevance else {}),
                    ranks={m: f[0] if f else None for m, f in found.items()},
                    definitions=enrich.definitions_for(chunk_id, chunk.source),
                    cross_references=enrich.references.get(chunk_id, []),
                    context=record.context,
                    context_source=record.context_source,
                    page_start=chunk.page_start,
                    page_end=chunk.page_end,
                )
            )
        return results

    def _no_match(
        self,
        parsed: ParsedQuery,
        rankings: dict[str, list[Hit]],
        results: list[SearchResult],
        settings: SearchSettings,
    ) -> bool:
        """True when no modality found anything convincing.

        Convincing means: an exact hit; or a semantic hit at least as similar as
        ``no_match_similarity``; or a returned chunk holding at least half of the
        query's keyword terms.
        """
        if not results:
            return True
        if rankings.get("exact"):
            return False
        semantic = rankings.get("semantic")
        if semantic and semantic[0].score >= settings.no_match_similarity:
            return False
        if settings.search_mode == "semantic":
            return True
        terms = set(analyze(parsed.text))
        if not terms:
            return True
        best = max(len(terms & set(analyze(r.content))) for r in results[:3])
        return best / len(terms) < 0.5


DEFINITION_CHARS = 600
DEFINITIONS_PER_RESULT = 8


@dataclass
class _Enrichment:
    """Definitions and cross-references for a page of results, fetched in a few queries."""

    terms: dict[str, list[str]]
    by_term: dict[str, list[Definition]]
    references: dict[str, list[dict]]
    query_terms: list[str]

    @classmethod
    def load(cls, store: Store, chunk_ids: list[str], vocabulary: QueryVocabulary) -> _Enrichment:
        terms = store.chunk_terms(chunk_ids)
        wanted = list(dict.fromkeys([*vocabulary.terms, *(t for ts in terms.values() for t in ts)]))
        by_term: dict[str, list[Definition]] = {}
        for definition in store.definitions(wanted):
            by_term.setdefault(normalize_term(definition.term), []).append(definition)
        references: dict[str, list[dict]] = {}
        for ref in store.references_from(chunk_ids):
            references.setdefault(ref.chunk_id, []).append(ref.to_dict())
        return cls(terms, by_term, references, vocabulary.terms)

    def definitions_for(self, chunk_id: str, source: str) -> list[dict]:
        """Definitions of the terms the query or the chunk uses, from the chunk's own document
        when it defines them (each document has its own namespace), else from any document."""
        found = []
        for term in dict.fromkeys([*self.query_terms, *self.terms.get(chunk_id, [])]):
            candidates = self.by_term.get(term, [])
            own = [d for d in candidates if d.source == source] or candidates
            for definition in own[:2]:
                entry = definition.to_dict()
                if len(entry["definition"]) > DEFINITION_CHARS:
                    entry["definition"] = entry["definition"][:DEFINITION_CHARS].rstrip() + " …"
                    entry["truncated"] = True
                found.append(entry)
            if len(found) >= DEFINITIONS_PER_RESULT:
                break
        return found[:DEFINITIONS_PER_RESULT]


def _has_terms(parsed: ParsedQuery) -> bool:
    return bool(analyze(parsed.remainder))
