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

:meth:`Searcher.search` builds the query's plan (:mod:`.plan`: an ordered list of
analysers, each reading the query once) and executes it (:meth:`Searcher.execute`);
the :class:`Execution` keeps what each modality ranked, the fusion and the pins, for the
passages and for ``--explain`` (:mod:`.explain`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import zip_longest

import numpy as np

from ..config import SearchPolicy, SearchSettings
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
from ..text.normalize import normalize_term
from .analysers import analysers_for
from .citations import CitedSections, cite_numbered, section_starts
from .fuse import NAMED, RULES, best_possible
from .glossary import Glossary, QueryVocabulary
from .per_generation import PerGeneration
from .plan import Analyser, QueryPlan, build_plan
from .relative_citations import RestRanking, cite_relatives
from .rerank import Reranker, rerank
from .syntax import has_words
from .title_citations import cite_title


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
    mentioned: list[str] = field(default_factory=list)
    """Citations no section answers but some text mentions ("Rule 18.5.1" in a passage)."""


def exact_search(
    store: Store,
    plan: QueryPlan,
    documents: Sequence[str] = (),
    relative: Sequence[CitedSections] = (),
    preferred: Callable[[], list[str]] | None = None,
) -> _Exact:
    """The plan's cited sections (in each of ``documents``, the documents in scope;
    ``relative``: its relative citations, resolved), phrases, identifiers, headings (unless
    generic across documents), defining chunks. When the mode does not fuse this list (a
    semantic or a keyword search): only what the response says whatever the mode, whether
    the cited sections and the quoted phrases exist, with their notes. ``preferred``: the
    documents the other modalities rank first (for a number too many documents have, see
    :func:`~.citations.cite_sections`)."""
    found = _Exact([], [], [], [])
    ordered: list[str] = []
    k, filt = plan.depth, plan.filt
    limit = k if plan.fused else 0
    numbered = cite_numbered(store, plan, documents, limit, preferred)
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
                found.mentioned.append(text.strip())
                found.notes.append(f"{text.strip()} is mentioned in the text only")
            elif not cited.notes:
                found.notes.append(f"no section {text.strip()}: not found in the index")
    for phrase in plan.phrases:
        hits = store.phrase_search(analyze_words(phrase), limit or 1, filt)
        if not hits:
            found.missing_phrases.append(phrase)
            found.notes.append(f'no text holds "{phrase}" as written')
        ordered += [hit.chunk_id for hit in hits]
    if not plan.fused:
        return found
    for identifier in plan.identifiers:
        ordered += [hit.chunk_id for hit in _identifier_search(store, identifier, k, filt)]
    ordered += _heading_hits(store, plan)
    defining = plan.vocabulary.defining_chunks
    if defining:
        records = store.get_chunks(defining)
        allowed = _filter_fn(filt)
        ordered += [c for c in defining if c in records and allowed(records[c])]
    found.hits = [Hit(c, 1.0) for c in list(dict.fromkeys(ordered))[:k]]
    found.pinned = list(dict.fromkeys(found.pinned))
    return found


def _heading_hits(store: Store, plan: QueryPlan) -> list[str]:
    """Chunks where a section headed exactly as the query begins; none when that heading
    is in too many documents to say anything ("Confidentiality" in every NDA)."""
    ids = store.sections_with_heading(plan.text)
    starts = section_starts(store, ids, plan.filt) if ids else []
    if plan.generic(len({source for source, _, _ in starts})):
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


def ranked_sources(store: Store, rankings: dict[str, list[Hit]], chunks: int) -> list[str]:
    """The documents of the best hits of ``rankings``, best first (the lists taken rank by
    rank in turn): at most ``chunks`` chunks are read."""
    lists = [[h.chunk_id for h in hits] for hits in rankings.values()]
    interleaved = [i for row in zip_longest(*lists) for i in row if i is not None]
    ids = list(dict.fromkeys(interleaved))[:chunks]
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


@dataclass
class Execution:
    """A plan executed: the response, and how each result got where it is (what
    ``--explain`` shows and the passages read)."""

    plan: QueryPlan
    response: SearchResponse
    rankings: dict[str, list[Hit]] = field(default_factory=dict)
    """Each modality's ranking, best first."""
    fused: dict[str, float] = field(default_factory=dict)
    """Each candidate's score before pinning and reranking: RRF over the scale's top in
    hybrid mode, the modality's own score otherwise."""
    pins: dict[str, str] = field(default_factory=dict)
    """Why each pinned chunk comes first."""
    relevance: dict[str, float] = field(default_factory=dict)
    """The reranker's relevance of each chunk it ranked."""
    stored: dict[str, StoredChunk] = field(default_factory=dict)
    """The records of the results."""
    vector: np.ndarray | None = None
    """The query's vector, when the semantic modality ranked."""
    reranker: str | None = None
    """The reranker's name, when one re-ordered the results."""


class Searcher:
    """Runs one query against a store with an embedder for the query vector: builds the
    query's plan with its analysers (:mod:`.analysers`), then executes it."""

    def __init__(
        self,
        store: Store,
        embed_query: Callable[[str], np.ndarray],
        glossary: Glossary | None = None,
        reranker: Reranker | None = None,
        analysers: Sequence[Analyser] | None = None,
    ) -> None:
        self._store = store
        self._embed_query = embed_query
        self._reranker = reranker
        self.analysers = tuple(analysers_for(glossary) if analysers is None else analysers)
        self._names = glossary.names if glossary is not None else None

    def search(
        self, query: str, settings: SearchSettings, filt: SearchFilter | None = None
    ) -> SearchResponse:
        return self.run(query, settings, filt).response

    def run(
        self, query: str, settings: SearchSettings, filt: SearchFilter | None = None
    ) -> Execution:
        """The query's plan, executed."""
        return self.execute(self.plan(query, settings, filt))

    def plan(
        self, query: str, settings: SearchSettings, filt: SearchFilter | None = None
    ) -> QueryPlan:
        """What ``query`` asks, read by each analyser in turn."""
        return build_plan(QueryPlan.asked(query, settings, filt), self.analysers)

    def execute(self, plan: QueryPlan) -> Execution:
        """Rank each modality the mode asks for (citations resolved), fuse, rerank, pin the
        cited sections first, and build the results."""
        if not plan.searchable:
            note = "the query has no letters or digits: nothing to search for"
            return Execution(plan, SearchResponse(plan.query, plan.mode, True, [], [note]))
        exact, done = self._rank(plan)
        missing = _asked_for_missing(plan, exact)
        if missing and not exact.hits and not has_words(plan.remainder):
            return done
        ordered = self._order(done.rankings, exact.pinned, plan.settings, plan.named_weight)
        done.fused = dict(ordered)
        ordered = self._rerank(done, ordered, exact.pinned)
        done.pins = exact.pins if plan.fused else {}
        ordered = _monotone(ordered, done.pins)
        response = done.response
        response.results, done.stored = self._results(ordered, done.rankings, plan, done.relevance)
        _mark_pins(response.results, done.fused, done.pins)
        alone = missing and not has_words(plan.remainder)
        response.no_match = self._no_match(plan, done.rankings, response.results) or alone
        return done

    def _rank(self, plan: QueryPlan) -> tuple[_Exact, Execution]:
        """The exact modality (the plan's citations resolved) and the others the mode asks
        for, with a response holding the notes and citations so far."""
        relative = [*self._cite_relatives(plan), *self._cite_title(plan)]
        others, vector = self._rank_modalities(plan)
        if plan.named_weight and plan.mode in ("hybrid", "keyword", "semantic"):
            scope = replace(plan.filt or SearchFilter(), sources=plan.named)
            within = replace(plan, filt=scope, text=plan.within_text or plan.text)
            inside, _ = self._rank_modalities(within)
            fused = RULES[plan.settings.fusion](inside, plan.settings.weights, plan.settings.rrf_k)
            others[NAMED] = [Hit(c, v) for c, v in fused]
        preferred = partial(self._preferred, others, plan)
        scope = self._scope(plan.filt) if plan.cited else []
        exact = exact_search(self._store, plan, scope, relative, preferred)
        rankings: dict[str, list[Hit]] = {"exact": exact.hits} if plan.fused else {}
        rankings.update(others)
        notes = [*plan.notes, *exact.notes]
        response = SearchResponse(plan.query, plan.mode, True, [], notes, exact.citations)
        return exact, Execution(plan, response, rankings, vector=vector)

    def _rerank(
        self, done: Execution, ordered: list[tuple[str, float]], pinned: list[str]
    ) -> list[tuple[str, float]]:
        """``ordered`` re-ordered by the reranker, when one is configured (:func:`rerank`)."""
        settings = done.plan.settings
        if self._reranker is None or settings.reranker is None:
            return ordered
        reranked = rerank(self._reranker, self._store, done.plan, ordered, pinned)
        done.relevance, done.reranker = reranked.relevance, self._reranker.name
        done.response.notes += reranked.notes
        return reranked.ordered

    def _cite_relatives(self, plan: QueryPlan) -> list[CitedSections]:
        """The plan's relative citations, resolved (:func:`cite_relatives`)."""
        if not plan.relative:
            return []
        chunks = plan.policy.pointing_chunks
        rest = RestRanking(plan.remainder, self._embed_query, plan.mode, chunks)
        return cite_relatives(self._store, plan, self._scope(plan.filt), rest, plan.depth)

    def _cite_title(self, plan: QueryPlan) -> list[CitedSections]:
        """The section the query cites by its title and document (:mod:`.title_citations`)."""
        if self._names is None or not plan.fused:
            return []
        cited = cite_title(self._store, plan, self._names, plan.depth)
        return [cited] if cited is not None else []

    def _rank_modalities(self, plan: QueryPlan) -> tuple[dict[str, list[Hit]], np.ndarray | None]:
        """The keyword ranking of the expanded text and the semantic one of the embedded
        text, those the mode asks for, with the query vector (None when nothing was
        embedded). In hybrid mode the vectors are searched in another thread while this one
        runs BM25 (the vector product and the graph walk release the GIL). The query is
        embedded here first: an embedder need not be safe to call from another thread."""
        others: dict[str, list[Hit]] = {}
        mode, depth, filt = plan.mode, plan.depth, plan.filt
        pending, vector = None, None
        if mode in ("hybrid", "semantic"):
            vector = self._embed_query(plan.embedded)
            if mode == "hybrid":
                pending = _worker().submit(self._store.vector_search, vector, depth, filt)
            else:
                others["semantic"] = self._store.vector_search(vector, depth, filt)
        if mode in ("hybrid", "keyword"):
            terms = keyword_terms(self._store, plan.expanded)
            others["keyword"] = self._store.keyword_search(terms, depth, filt)
        if pending is not None:
            others["semantic"] = pending.result()
        return others, vector

    def _preferred(self, others: dict[str, list[Hit]], plan: QueryPlan) -> list[str]:
        """The documents the other modalities rank first (for a number too many documents
        have, see :func:`~.citations.cite_sections`); an exact search ranks the query's keywords."""
        if not others:
            terms = keyword_terms(self._store, plan.expanded)
            others = {"keyword": self._store.keyword_search(terms, plan.depth, plan.filt)}
        return ranked_sources(self._store, others, plan.policy.preferred_chunks)

    def _scope(self, filt: SearchFilter | None) -> Sequence[str]:
        """The documents a search covers: those filtered to, else every indexed one."""
        if filt is not None and filt.sources:
            return list(filt.sources)
        return AllDocuments(self._store)

    def _order(
        self,
        rankings: dict[str, list[Hit]],
        pinned: list[str],
        settings: SearchSettings,
        named_weight: float = 0.0,
    ) -> list[tuple[str, float]]:
        mode = settings.search_mode
        if mode != "hybrid" and NAMED not in rankings:
            return [(h.chunk_id, h.score) for h in rankings[mode]]
        weights = {**settings.weights, NAMED: named_weight}
        if mode != "hybrid":  # one modality, with the ranking within the documents named
            rankings = {mode: rankings[mode], NAMED: rankings[NAMED]}
            weights = {mode: 1.0, NAMED: named_weight}
        fused = RULES[settings.fusion](rankings, weights, settings.rrf_k)
        top = best_possible(weights, list(rankings), settings.rrf_k, settings.fusion)
        top = max(top, fused[0][1] if fused else 0.0) or 1.0
        scaled = [(chunk_id, score / top) for chunk_id, score in fused]
        first = set(pinned)
        return [e for e in scaled if e[0] in first] + [e for e in scaled if e[0] not in first]

    def _results(
        self,
        ordered: list[tuple[str, float]],
        rankings: dict[str, list[Hit]],
        plan: QueryPlan,
        relevance: dict[str, float] | None = None,
    ) -> tuple[list[SearchResult], dict[str, StoredChunk]]:
        """The results, with the records they were built from."""
        settings = plan.settings
        if settings.min_score is not None:
            minimum = settings.min_score
            ordered = [e for e in ordered if e[1] >= minimum]
        ordered = ordered[: results_read(settings.top_k, settings.passage_results, plan.policy)]
        ids = [chunk_id for chunk_id, _ in ordered]
        stored = self._store.get_chunks(ids)
        enrich = _Enrichment.load(self._store, ids, plan.vocabulary, plan.policy)
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
        return results, stored

    def _no_match(
        self, plan: QueryPlan, rankings: dict[str, list[Hit]], results: list[SearchResult]
    ) -> bool:
        """True when no modality found anything convincing.

        Convincing means: an exact hit; or a semantic hit at least as similar as
        ``no_match_similarity``; or one of the first ``no_match_results`` chunks returned
        holding at least the policy's ``no_match_share`` of the query's keyword terms.
        """
        if not results:
            return True
        if rankings.get("exact"):
            return False
        semantic = rankings.get("semantic")
        if semantic and semantic[0].score >= plan.settings.no_match_similarity:
            return False
        if plan.mode == "semantic":
            return True
        terms = set(analyze(plan.text))
        if not terms:
            return True
        top = results[: plan.policy.no_match_results]
        best = max(len(terms & set(analyze(r.content))) for r in top)
        return best / len(terms) < plan.policy.no_match_share


@dataclass
class _Enrichment:
    """Definitions and cross-references for a page of results, fetched in a few queries."""

    terms: dict[str, list[str]]
    by_term: dict[str, list[Definition]]
    references: dict[str, list[dict]]
    query_terms: list[str]
    policy: SearchPolicy

    @classmethod
    def load(
        cls,
        store: Store,
        chunk_ids: list[str],
        vocabulary: QueryVocabulary,
        policy: SearchPolicy,
    ) -> _Enrichment:
        terms = store.chunk_terms(chunk_ids)
        wanted = list(dict.fromkeys([*vocabulary.terms, *(t for ts in terms.values() for t in ts)]))
        by_term: dict[str, list[Definition]] = {}
        for definition in store.definitions(wanted):
            by_term.setdefault(normalize_term(definition.term), []).append(definition)
        references: dict[str, list[dict]] = {}
        for ref in store.references_from(chunk_ids):
            references.setdefault(ref.chunk_id, []).append(ref.to_dict())
        return cls(terms, by_term, references, vocabulary.terms, policy)

    def definitions_for(self, chunk_id: str, source: str) -> list[dict]:
        """Definitions of the terms the query or the chunk uses, from the chunk's own document
        when it defines them (each document has its own namespace), else from any document."""
        found = []
        most, chars = self.policy.definitions_per_result, self.policy.definition_chars
        for term in dict.fromkeys([*self.query_terms, *self.terms.get(chunk_id, [])]):
            candidates = self.by_term.get(term, [])
            own = [d for d in candidates if d.source == source] or candidates
            for definition in own[:2]:
                entry = definition.to_dict()
                if len(entry["definition"]) > chars:
                    entry["definition"] = entry["definition"][:chars].rstrip() + " …"
                    entry["truncated"] = True
                found.append(entry)
            if len(found) >= most:
                break
        return found[:most]


def _asked_for_missing(plan: QueryPlan, exact: _Exact) -> bool:
    """The query cites sections none of which any document in scope has or any text
    mentions, or quotes a phrase that no text holds: what it asks for is not in the index.
    That alone makes ``no_match`` only for a query with no other words; a question that
    also says what it is about is judged by what its words find (the notes say what is
    missing)."""
    cites = plan.cited or plan.relative
    if cites and not exact.mentioned and not any(c["resolved"] for c in exact.citations):
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


def results_read(top_k: int, passage_results: bool, policy: SearchPolicy) -> int:
    """The chunks a search returns before passages are chosen: ``top_k``, or with
    ``passage_results`` at least the policy's ``result_passage_chunks``, whose sentences
    the passage-level ranking chooses ``top_k`` passages from."""
    return max(top_k, policy.result_passage_chunks) if passage_results else top_k
