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
from dataclasses import dataclass, field

import numpy as np

from .analyze import analyze
from .fuse import best_possible, weighted_rrf
from .index.base import Store
from .index.records import StoredChunk
from .models import MODALITIES, Hit, SearchFilter, SearchMode, SearchResponse, SearchResult
from .numbering import find_citations

MAX_TOP_K = 100
_QUOTED = re.compile(r"[\"“”„]([^\"“”„]{2,})[\"“”„]")


class SearchError(ValueError):
    """A search request that cannot be run as asked (bad top_k, empty query, ...)."""


@dataclass(frozen=True)
class SearchSettings:
    mode: SearchMode = "hybrid"
    top_k: int = 10
    min_score: float | None = None
    weights: dict[str, float] = field(
        default_factory=lambda: {"semantic": 1.0, "keyword": 1.0, "exact": 1.0}
    )
    rrf_k: int = 60
    candidate_depth: int = 50
    no_match_similarity: float = 0.25

    def validate(self) -> None:
        if self.mode not in ("hybrid", "semantic", "keyword", "exact"):
            raise SearchError(f"mode must be hybrid, semantic, keyword or exact, not {self.mode!r}")
        if not 1 <= self.top_k <= MAX_TOP_K:
            raise SearchError(f"top_k must be between 1 and {MAX_TOP_K}, got {self.top_k}")
        if any(w < 0 for w in self.weights.values()):
            raise SearchError("weights must be >= 0")


@dataclass(frozen=True)
class ParsedQuery:
    text: str
    phrases: tuple[str, ...]
    cited: tuple[tuple[str, tuple[str, ...]], ...]
    """(citation text, candidate section ids from most to least specific)."""
    remainder: str


def parse_query(query: str) -> ParsedQuery:
    phrases = tuple(m.group(1).strip() for m in _QUOTED.finditer(query))
    citations = find_citations(query)
    cited = tuple((c.text, tuple(c.label.candidate_ids())) for c in citations)
    remainder = query
    for citation in sorted(citations, key=lambda c: c.start, reverse=True):
        remainder = remainder[: citation.start] + " " + remainder[citation.end :]
    return ParsedQuery(query, phrases, cited, remainder.strip())


@dataclass
class _Exact:
    hits: list[Hit]
    pinned: set[str]
    notes: list[str]
    unresolved: int


def exact_search(store: Store, parsed: ParsedQuery, k: int, filt: SearchFilter | None) -> _Exact:
    """Chunks of cited sections (most specific existing id), phrase matches, heading matches."""
    ordered: list[str] = []
    pinned: set[str] = set()
    notes: list[str] = []
    unresolved = 0
    allowed = _filter_fn(filt)
    for text, candidates in parsed.cited:
        chunks = _most_specific(store, candidates, allowed)
        if not chunks:
            mentions = [hit.chunk_id for hit in store.phrase_search(text.strip(), k, filt)]
            ordered += mentions
            unresolved += 1
            where = "mentioned in the text only" if mentions else "not found in the index"
            notes.append(f"no section {text.strip()}: {where}")
            continue
        ids = [s.chunk.chunk_id for s in chunks]
        pinned.update(ids)
        ordered += ids
    for phrase in parsed.phrases:
        ordered += [hit.chunk_id for hit in store.phrase_search(phrase, k, filt)]
    for section_id in store.sections_with_heading(parsed.text):
        chunks = [s for s in store.chunks_of_sections([section_id]) if allowed(s)]
        ordered += [s.chunk.chunk_id for s in chunks]
    unique = list(dict.fromkeys(ordered))[:k]
    return _Exact([Hit(c, 1.0) for c in unique], pinned, notes, unresolved)


def _most_specific(
    store: Store, candidates: Sequence[str], allowed: Callable[[StoredChunk], bool]
) -> list[StoredChunk]:
    for section_id in candidates:
        chunks = [s for s in store.chunks_of_sections([section_id]) if allowed(s)]
        if chunks:
            return chunks
    return []


def _filter_fn(filt: SearchFilter | None) -> Callable[[StoredChunk], bool]:
    if filt is None or filt.empty:
        return lambda stored: True

    def allowed(stored: StoredChunk) -> bool:
        chunk = stored.chunk
        if filt.sources and chunk.source not in filt.sources:
            return False
        if filt.chunk_types and chunk.chunk_type not in filt.chunk_types:
            return False
        prefix = filt.section_prefix
        return not prefix or any(
            p == prefix or p.startswith(prefix + "-") for p in chunk.section_path
        )

    return allowed


class Searcher:
    """Runs one query against a store with an embedder for the query vector."""

    def __init__(self, store: Store, embed_query: Callable[[str], np.ndarray]) -> None:
        self._store = store
        self._embed_query = embed_query

    def search(
        self, query: str, settings: SearchSettings, filt: SearchFilter | None = None
    ) -> SearchResponse:
        settings.validate()
        if not query or not query.strip():
            raise SearchError("the query is empty")
        parsed = parse_query(query.strip())
        depth = max(settings.candidate_depth, settings.top_k)
        rankings: dict[str, list[Hit]] = {}
        exact = exact_search(self._store, parsed, depth, filt)
        if settings.mode in ("hybrid", "exact"):
            rankings["exact"] = exact.hits
        if settings.mode in ("hybrid", "keyword"):
            rankings["keyword"] = self._store.keyword_search(parsed.text, depth, filt)
        if settings.mode in ("hybrid", "semantic"):
            vector = self._embed_query(parsed.text)
            rankings["semantic"] = self._store.vector_search(vector, depth, filt)
        if not exact.hits and exact.unresolved == len(parsed.cited) > 0 and not _has_terms(parsed):
            return SearchResponse(query, settings.mode, True, [], exact.notes)
        ordered = self._order(rankings, exact.pinned, settings)
        results = self._results(ordered, rankings, settings)
        no_match = self._no_match(parsed, rankings, results, settings)
        return SearchResponse(query, settings.mode, no_match, results, exact.notes)

    def _order(
        self, rankings: dict[str, list[Hit]], pinned: set[str], settings: SearchSettings
    ) -> list[tuple[str, float]]:
        if settings.mode != "hybrid":
            return [(h.chunk_id, h.score) for h in rankings[settings.mode]]
        ids = {m: [h.chunk_id for h in hits] for m, hits in rankings.items()}
        fused = weighted_rrf(ids, settings.weights, settings.rrf_k)
        top = best_possible(settings.weights, list(rankings), settings.rrf_k) or 1.0
        scaled = [(chunk_id, score / top) for chunk_id, score in fused]
        return [e for e in scaled if e[0] in pinned] + [e for e in scaled if e[0] not in pinned]

    def _results(
        self,
        ordered: list[tuple[str, float]],
        rankings: dict[str, list[Hit]],
        settings: SearchSettings,
    ) -> list[SearchResult]:
        if settings.min_score is not None:
            ordered = [e for e in ordered if e[1] >= settings.min_score]
        ordered = ordered[: settings.top_k]
        stored = self._store.get_chunks([chunk_id for chunk_id, _ in ordered])
        positions = {
            m: {h.chunk_id: (rank, h.score) for rank, h in enumerate(hits, start=1)}
            for m, hits in rankings.items()
        }
        results = []
        for chunk_id, score in ordered:
            if chunk_id not in stored:
                continue
            chunk = stored[chunk_id].chunk
            scores = {
                m: positions[m][chunk_id][1] if chunk_id in positions.get(m, {}) else None
                for m in MODALITIES
            }
            ranks = {
                m: positions[m][chunk_id][0] if chunk_id in positions.get(m, {}) else None
                for m in MODALITIES
            }
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
                    scores=scores,
                    ranks=ranks,
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
        if settings.mode == "semantic":
            return True
        terms = set(analyze(parsed.text))
        if not terms:
            return True
        best = max(len(terms & set(analyze(r.content))) for r in results[:3])
        return best / len(terms) < 0.5


def _has_terms(parsed: ParsedQuery) -> bool:
    return bool(analyze(parsed.remainder))
