"""Search stage: rank each modality on its own, fuse, and build located results.

Modalities: ``semantic`` (dense vectors), ``keyword`` (BM25) and ``exact``
(section citations such as "Article 17(3)(b)", quoted phrases, headings).
Hybrid search takes a candidate pool deeper than ``top_k`` from each, fuses
them with weighted RRF, and puts the chunks of a cited section first: a user
who names "Section 203(a)" wants that section, whatever else the query says.
Such results are ``pinned`` (with the ``pin`` reason) and score 1.0, the top of the
scale, so that scores never increase down the list; ``fusion_score`` keeps what
fusion gave them. A document the query names ("Section 8.4 of the cloud
agreement", its file name) narrows the search to that document
(:mod:`.names`); a citation is looked up in each document (:mod:`.citations`).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import zip_longest
from pathlib import PurePosixPath

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
from ..store.base import Store
from ..text.analyze import analyze, analyze_query, analyze_words
from ..text.invisible import clean_text
from ..text.normalize import normalize_term
from ..text.numbering import find_citations
from .citations import CitedSections, cite_sections, section_starts
from .fuse import best_possible, weighted_rrf
from .glossary import Glossary, QueryVocabulary
from .per_generation import PerGeneration
from .relative_citations import (
    RelativeCitation,
    RestRanking,
    attach_relative,
    cite_relatives,
    find_relative_citations,
)
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
    relative: tuple[RelativeCitation, ...] = ()
    """Citations by own labels only: "paragraph (k)" (:mod:`.relative_citations`)."""


def parse_query(query: str) -> ParsedQuery:
    phrases = [m.group(1).strip() for m in _QUOTED.finditer(query)]
    identifiers = [m.group(0) for m in _IDENTIFIER.finditer(query)]
    for m in _BACKTICKED.finditer(query):
        name = m.group(1).strip().removesuffix("()")
        (identifiers if name and len(name.split()) == 1 else phrases).append(name)
    citations = find_citations(query)
    relative = find_relative_citations(query, [(c.start, c.end) for c in citations])
    citations, relative = attach_relative(query, citations, relative)
    cited = tuple((c.text, tuple(c.label.candidate_ids())) for c in citations)
    remainder = query
    for citation in sorted([*citations, *relative], key=lambda c: c.start, reverse=True):
        remainder = remainder[: citation.start] + " " + remainder[citation.end :]
    return ParsedQuery(
        query,
        tuple(dict.fromkeys(p for p in phrases if p)),
        cited,
        remainder.strip(),
        tuple(dict.fromkeys(identifiers)),
        tuple(relative),
    )


@dataclass
class _Exact:
    hits: list[Hit]
    pinned: list[str]
    """Chunks where a cited section begins: one per document that has it."""
    notes: list[str]
    citations: list[dict]
    pins: dict[str, str] = field(default_factory=dict)
    """Why each pinned chunk is pinned ("cites Section 8.4")."""
    missing_phrases: list[str] = field(default_factory=list)


def exact_search(
    store: Store,
    parsed: ParsedQuery,
    k: int,
    filt: SearchFilter | None,
    vocabulary: QueryVocabulary | None = None,
    documents: Sequence[str] = (),
    widespread: Callable[[int], bool] | None = None,
    relative: Sequence[CitedSections] = (),
    ranked: bool = True,
    preferred: Callable[[], list[str]] | None = None,
) -> _Exact:
    """Cited sections (in each of ``documents``, the documents in scope; ``relative``:
    the query's relative citations, resolved), phrases, identifiers, headings (unless
    ``widespread`` across documents), defining chunks. Not ``ranked`` (a semantic or a
    keyword search, which never fuses this list): only what the response says whatever
    the mode, whether the cited sections and the quoted phrases exist, with their notes.
    ``preferred``: the documents the other modalities rank first (for a number too many
    documents have, see :func:`cite_sections`)."""
    found = _Exact([], [], [], [])
    ordered: list[str] = []
    limit = k if ranked else 0
    numbered = [
        cite_sections(store, t, ids, filt, documents, limit, preferred) for t, ids in parsed.cited
    ]
    for cited in [*numbered, *relative]:
        text = cited.citation["text"]
        found.citations.append(cited.citation)
        found.notes += cited.notes
        found.pins.update(cited.pins())
        found.pinned += cited.pinned
        ordered += cited.ordered
        if not cited.ordered:
            words = analyze_words(text.strip())
            mentions = [hit.chunk_id for hit in store.phrase_search(words, limit or 1, filt)]
            ordered += mentions
            if mentions:
                found.notes.append(f"{text.strip()} is mentioned in the text only")
            elif not cited.notes:
                found.notes.append(f"no section {text.strip()}: not found in the index")
    for phrase in parsed.phrases:
        hits = store.phrase_search(analyze_words(phrase), limit or 1, filt)
        if not hits:
            found.missing_phrases.append(phrase)
            found.notes.append(f'no text holds "{phrase}" as written')
        ordered += [hit.chunk_id for hit in hits]
    if not ranked:
        return found
    for identifier in parsed.identifiers:
        ordered += [hit.chunk_id for hit in _identifier_search(store, identifier, k, filt)]
    ordered += _heading_hits(store, parsed.text, filt, widespread)
    if vocabulary and vocabulary.defining_chunks:
        defining = store.get_chunks(vocabulary.defining_chunks)
        allowed = _filter_fn(filt)
        ordered += [c for c in vocabulary.defining_chunks if c in defining and allowed(defining[c])]
    found.hits = [Hit(c, 1.0) for c in list(dict.fromkeys(ordered))[:k]]
    found.pinned = list(dict.fromkeys(found.pinned))
    return found


def _heading_hits(
    store: Store,
    text: str,
    filt: SearchFilter | None,
    widespread: Callable[[int], bool] | None,
) -> list[str]:
    """Chunks where a section headed exactly as the query begins; none when that heading
    is in too many documents to say anything ("Confidentiality" in every NDA)."""
    ids = store.sections_with_heading(text)
    starts = section_starts(store, ids, filt) if ids else []
    if widespread is not None and widespread(len({source for source, _, _ in starts})):
        return []
    return [chunk_id for _, chunk_id, _ in starts]


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


#: Chunks read to learn which documents the other modalities rank first: enough for a
#: page of results from different documents.
PREFERRED_CHUNKS = 20


def ranked_sources(store: Store, rankings: dict[str, list[Hit]]) -> list[str]:
    """The documents of the best hits of ``rankings``, best first (the lists taken rank by
    rank in turn): at most :data:`PREFERRED_CHUNKS` chunks are read."""
    lists = [[h.chunk_id for h in hits] for hits in rankings.values()]
    interleaved = [i for row in zip_longest(*lists) for i in row if i is not None]
    ids = list(dict.fromkeys(interleaved))[:PREFERRED_CHUNKS]
    stored = store.get_chunks(ids)
    return list(dict.fromkeys(stored[i].chunk.source for i in ids if i in stored))


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


#: Every indexed document's source, in order, read once per store and index generation
#: (a citation's note names the documents that lack it): from the sources and hashes, not
#: the whole records (0.43 s at 43,600 documents).
document_sources = PerGeneration(lambda store: tuple(sorted(store.document_hashes())))


class AllDocuments(Sequence[str]):
    """Every indexed document's source, counted by the store and read only when listed:
    a query citing a number every document has needs how many there are, not their names
    (the sources of 43,600 documents took 80 ms on a first query)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._count: int | None = None

    def __len__(self) -> int:
        if self._count is None:
            self._count = self._store.document_count()
        return self._count

    def __getitem__(self, position: int) -> str:  # type: ignore[override]
        return document_sources(self._store)[position]

    def __iter__(self) -> Iterator[str]:
        return iter(document_sources(self._store))


_WORKERS: dict[int, ThreadPoolExecutor] = {}
_WORKERS_LOCK = threading.Lock()


def _worker() -> ThreadPoolExecutor:
    """The threads that rank the semantic modality beside BM25: one pool per process, keyed
    by its id, since a forked child inherits the pool but not its threads."""
    with _WORKERS_LOCK:
        pool = _WORKERS.get(os.getpid())
        if pool is None:
            pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="hierdoc-rank")
            _WORKERS.clear()
            _WORKERS[os.getpid()] = pool
        return pool


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
        self.stored: dict[str, StoredChunk] = {}
        """The records of the last search's results (for the passages to reuse)."""

    def search(
        self, query: str, settings: SearchSettings, filt: SearchFilter | None = None
    ) -> SearchResponse:
        if not query or not query.strip():
            raise InputError("the query is empty")
        query = clean_text(query)
        if len(query) > settings.max_query_chars:
            raise InputError(
                f"the query has {len(query):,} characters; the limit is "
                f"{settings.max_query_chars:,} (max_query_chars)"
            )
        if not any(character.isalnum() for character in query):
            note = "the query has no letters or digits: nothing to search for"
            return SearchResponse(query, settings.search_mode, True, [], [note])
        filt, naming_notes, asked, named = self._narrow(query.strip(), filt)
        parsed = parse_query(asked)
        vocabulary = self._glossary.lookup(parsed.text) if self._glossary else QueryVocabulary()
        expanded = vocabulary.expand(parsed.text)
        depth = max(settings.candidate_depth, settings.top_k)
        widespread = self._glossary.widespread if self._glossary else None
        scope = self._scope(filt) if parsed.cited else []
        relative = cite_relatives(
            self._store,
            parsed.relative,
            filt,
            named,
            self._scope(filt) if parsed.relative else [],
            RestRanking(parsed.remainder, self._embed_query, settings.search_mode),
            depth,
        )
        embedded = expanded if vocabulary.asks_meaning else parsed.text
        others = self._rank_modalities(settings.search_mode, expanded, embedded, depth, filt)
        fused_modes = settings.search_mode in ("hybrid", "exact")
        preferred = partial(self._preferred, others, expanded, depth, filt)
        exact = exact_search(
            self._store,
            parsed,
            depth,
            filt,
            vocabulary,
            scope,
            widespread,
            relative,
            fused_modes,
            preferred,
        )
        rankings: dict[str, list[Hit]] = {"exact": exact.hits} if fused_modes else {}
        rankings.update(others)
        response = SearchResponse(
            query, settings.search_mode, True, [], naming_notes + exact.notes, exact.citations
        )
        missing = _asked_for_missing(parsed, exact)
        if missing and not exact.hits and not _has_terms(parsed):
            return response
        ordered = self._order(rankings, exact.pinned, settings)
        fused = dict(ordered)
        relevance: dict[str, float] = {}
        if self._reranker is not None and settings.reranker is not None:
            top_n = max(settings.reranker.top_n, settings.top_k)
            reranked = rerank(self._reranker, self._store, query, ordered, exact.pinned, top_n)
            ordered, relevance = reranked.ordered, reranked.relevance
            response.notes += reranked.notes
        pins = exact.pins if settings.search_mode in ("hybrid", "exact") else {}
        ordered = _monotone(ordered, pins)
        response.results = self._results(ordered, rankings, settings, vocabulary, relevance)
        _mark_pins(response.results, fused, pins)
        no_match = self._no_match(parsed, rankings, response.results, settings)
        response.no_match = no_match or missing
        return response

    def _rank_modalities(
        self,
        mode: str,
        expanded: str,
        embedded: str,
        depth: int,
        filt: SearchFilter | None,
    ) -> dict[str, list[Hit]]:
        """The keyword ranking of ``expanded`` and the semantic one of ``embedded``, those the
        mode asks for. In hybrid mode the vectors are searched in another thread while this
        one runs BM25 (the vector product and the graph walk release the GIL). The query is
        embedded here first: an embedder need not be safe to call from another thread."""
        others: dict[str, list[Hit]] = {}
        pending = None
        if mode in ("hybrid", "semantic"):
            vector = self._embed_query(embedded)
            if mode == "hybrid":
                pending = _worker().submit(self._store.vector_search, vector, depth, filt)
            else:
                others["semantic"] = self._store.vector_search(vector, depth, filt)
        if mode in ("hybrid", "keyword"):
            terms = keyword_terms(self._store, expanded)
            others["keyword"] = self._store.keyword_search(terms, depth, filt)
        if pending is not None:
            others["semantic"] = pending.result()
        return others

    def _preferred(
        self, others: dict[str, list[Hit]], text: str, depth: int, filt: SearchFilter | None
    ) -> list[str]:
        """The documents the other modalities rank first (for a number too many documents
        have, see :func:`cite_sections`); an exact search ranks the query's keywords."""
        if not others:
            terms = keyword_terms(self._store, text)
            others = {"keyword": self._store.keyword_search(terms, depth, filt)}
        return ranked_sources(self._store, others)

    def _narrow(
        self, text: str, filt: SearchFilter | None
    ) -> tuple[SearchFilter | None, list[str], str, tuple[str, ...]]:
        """The filter narrowed to the documents the query names, with a note saying so, the
        query without the names written in it (they would only add noise to ranking
        within those documents), and the documents named."""
        if self._glossary is None:
            return filt, [], text, ()
        scope = filt.sources if filt is not None else ()
        naming = self._glossary.names.named(text, scope)
        if naming is None:
            return filt, [], text, ()
        rest = naming.rest(text)
        cites = parse_query(rest)
        asked = rest if analyze(_QUOTED.sub(" ", rest)) or cites.cited or cites.relative else text
        if set(naming.sources) == set(scope):
            return filt, [], asked, naming.sources
        names = ", ".join(PurePosixPath(s).name or s for s in naming.sources)
        note = f"searched only {names}: named in the query ({naming.how})"
        narrowed = replace(filt or SearchFilter(), sources=naming.sources)
        return narrowed, [note], asked, naming.sources

    def _scope(self, filt: SearchFilter | None) -> Sequence[str]:
        """The documents a search covers: those filtered to, else every indexed one."""
        if filt is not None and filt.sources:
            return list(filt.sources)
        return AllDocuments(self._store)

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
            minimum = settings.min_score
            ordered = [e for e in ordered if e[1] >= minimum]
        ordered = ordered[: settings.top_k]
        ids = [chunk_id for chunk_id, _ in ordered]
        stored = self._store.get_chunks(ids)
        self.stored = stored
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
    """The query has words beyond its citations and quoted phrases."""
    return bool(analyze(_QUOTED.sub(" ", parsed.remainder)))


def _asked_for_missing(parsed: ParsedQuery, exact: _Exact) -> bool:
    """The query cites sections none of which any document in scope has, or quotes a
    phrase that no text holds: what it asks for is not in the index."""
    if (parsed.cited or parsed.relative) and not any(c["resolved"] for c in exact.citations):
        return True
    return bool(exact.missing_phrases)


def _mark_pins(results: list[SearchResult], fused: dict[str, float], pins: dict[str, str]) -> None:
    """Each result's fusion score, and its pin when a citation put it first."""
    for result in results:
        result.fusion_score = round(float(fused.get(result.chunk_id, 0.0)), 6)
        result.pin = pins.get(result.chunk_id)
        result.pinned = result.pin is not None


def _monotone(ordered: list[tuple[str, float]], pins: dict[str, str]) -> list[tuple[str, float]]:
    """Scores as shown: 1.0 (the top of the scale) for pinned chunks, which come first,
    and never more than the score above for the others (a reranker's relevance and
    fused scores mixed stay in order)."""
    shown: list[tuple[str, float]] = []
    ceiling = float("inf")
    for chunk_id, score in ordered:
        if chunk_id in pins:
            shown.append((chunk_id, 1.0))
            ceiling = min(ceiling, 1.0)
            continue
        ceiling = min(ceiling, score)
        shown.append((chunk_id, ceiling))
    return shown
