"""Passages and highlights: where in each result's chunk the query matched.

A chunk holds a whole article or clause (often 3,000 characters); a reader, or an agent
paying per token, wants the sentences that answer. For each result this module picks its
best passage, whole sentences of ``content`` (split as chunking splits them) within
``passage_chars``, from the modalities' own evidence:

* a cited section ("Article 17(3)(b)") that the chunk holds: the text of point (b);
* else a quoted phrase or code identifier: the best sentence holding it;
* else the best sentence by BM25 over the chunk's sentences (the query's analysed terms,
  idf from the index, length-normalised, so a short sentence dense in rare terms wins)
  plus the cosine of the best stored embedding window covering it, rescaled in the chunk.

The passage then takes in its neighbouring sentences, the better one first, while they fit
the budget and score at least the search policy's ``passage_grow_share`` of the first
sentence (or while the passage is shorter than its ``passage_min_chars``). One sentence
longer than the budget is returned whole: a passage never starts or ends inside a sentence.

Highlights are offsets into ``content`` of the query's terms (as BM25 analyses them),
each occurrence of a quoted phrase or identifier, and the cited section's own text.
A result's further passages, from the same sentence scores, are chosen in
:mod:`hierdoc.search.passage_sets`.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

import numpy as np

from ..config import DEFAULT_POLICY, SearchPolicy, SearchSettings
from ..models import Passage, SearchResponse, SearchResult, SectionRecord, StoredChunk
from ..pipeline.embed import DEFAULT_MODEL
from ..store.base import Store
from ..text import bm25
from ..text.analyze import analyze, token_spans, token_words, tokens_terms
from ..text.sentences import sentence_spans, spans_from_cuts
from ..text.tokenizer import Tokenizer, default_tokenizer
from ..text.windows import cut_windows
from .holders import begun_in, first_line_at, move_to_section, section_at
from .passage_ranking import UnitEvidence, rank_units
from .passage_sets import passage_set
from .per_generation import PerGeneration
from .plan import QueryPlan
from .searcher import Execution, keyword_terms

Span = tuple[int, int]
UnitEmbedder = Callable[[Sequence[str]], np.ndarray]
"""Texts to their unit vectors, one row each, by the model the index's vectors are of."""

DEFAULT_PASSAGE_CHARS: int = SearchSettings.model_fields["passage_chars"].default
_HEADING = re.compile(r"#{1,6}\s")
_ITEM = re.compile(
    r"\s*(?:\(?(?:[a-zA-Z]|[ivxlcIVXLC]{1,6}|\d{1,3})\)|\d{1,3}(?:\.\d{1,3})*\.?|[\u2022\u25aa\u25e6*\-\u2013])\s"
)


@dataclass(frozen=True)
class QueryEvidence:
    """What a query gives to find its match inside a chunk."""

    idf: dict[str, float]
    """Each analysed query term found in the index, with its BM25 idf."""
    patterns: tuple[re.Pattern[str], ...]
    """Quoted phrases and identifiers, as regexes over the text as written."""
    cited: tuple[str, ...]
    """Section ids the query's citations resolved to."""
    vector: np.ndarray | None = None
    policy: SearchPolicy = DEFAULT_POLICY


@dataclass(frozen=True)
class ChunkMatch:
    """A result's passage and highlights, with the sentences and their scores that chose
    the passage (none when a cited section did), for further passages."""

    passage: Passage
    highlights: list[Span]
    units: tuple[Span, ...] = ()
    scores: tuple[float, ...] = ()
    lead_ins: tuple[int | None, ...] = ()
    """Each unit's lead-in (:func:`unit_parents`), as a unit index."""
    lexical: tuple[float, ...] = ()
    """Each unit's BM25 with the index's idf alone (comparable across chunks)."""
    terms: tuple[frozenset[str], ...] = ()
    """The query's analysed terms each unit holds."""
    anchor: int | None = None
    """Where in ``content`` the best match begins: the cited section, else the best
    sentence, heading lines included (see hierdoc.search.holders); None when nothing in
    the chunk matched (a result found by its vector alone, no window better than another)."""


def query_evidence(
    store: Store, plan: QueryPlan, citations: Sequence[dict], vector: np.ndarray | None = None
) -> QueryEvidence:
    """The evidence of the plan's words, phrases and identifiers, and of the sections its
    ``citations`` (the response's) resolved to."""
    terms = keyword_terms(store, plan.remainder) if plan.remainder.strip() else []
    freq = store.doc_freq(terms) if terms else {}
    total = _chunk_total(store) if freq else 0
    idf = {t: bm25.idf(total, df) for t, df in freq.items() if df > 0}
    patterns = tuple(
        _phrase_pattern(p) for p in (*plan.phrases, *plan.identifiers) if re.search(r"\w", p)
    )
    cited = tuple(c["section_id"] for c in citations if c["resolved"])
    return QueryEvidence(idf, patterns, cited, vector, plan.policy)


#: The number of chunks indexed (BM25's N), read once per store and index generation.
_chunk_total = PerGeneration(lambda store: store.chunk_count())


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    """The phrase's words in order, any run of non-word characters between them."""
    words = re.findall(r"\w+", phrase)
    return re.compile(r"(?<!\w)" + r"\W+".join(map(re.escape, words)) + r"(?!\w)", re.I)


def add_passages(
    store: Store,
    execution: Execution,
    model: str = DEFAULT_MODEL,
    embed_units: UnitEmbedder | None = None,
) -> None:
    """Set each result's ``passage``, ``passages`` (:mod:`~hierdoc.search.passage_sets`,
    ``passage_set_chars`` characters in all) and ``highlights``, from the evidence of the
    executed plan (its words, phrases, citations and vector) and the records it read. With
    the plan's ``passage_results``, ``execution.response`` becomes one result per passage,
    ranked at the passage level (:func:`~hierdoc.search.passage_ranking.rank_units`), at
    most ``top_k``, each naming the section its passage lies in; ``embed_units`` (texts to
    unit vectors of the index's model) gives each sentence unit its own cosine to the query,
    else it takes its best embedding window's."""
    response, plan, vector = execution.response, execution.plan, execution.vector
    if not response.results:
        return
    budget, per_passage = plan.settings.passage_chars, plan.settings.passage_results
    set_budget, set_policy = plan.settings.passage_set_chars, plan.policy
    evidence = query_evidence(store, plan, response.citations, vector)
    ids = [r.chunk_id for r in response.results]
    vectors = store.vectors_of(ids) if vector is not None and model == DEFAULT_MODEL else {}
    stored = execution.stored
    if any(i not in stored for i in ids):
        stored = store.get_chunks(ids)
    sentences = {i: stored[i].chunk.sentences for i in ids if i in stored}
    begun = begun_in(store, [stored[i] for i in dict.fromkeys(ids) if i in stored])
    offered: dict[int, UnitEvidence] = {}
    for position, result in enumerate(response.results):
        cited = cited_section(store, result, evidence.cited)
        spans = cited[1] if cited else None
        windows = _window_scores(result, vectors.get(result.chunk_id), vector)
        cuts = sentences.get(result.chunk_id)
        match = match_chunk(
            result.content, evidence, budget=budget, cited=spans, windows=windows, sentences=cuts
        )
        here = begun.get(result.chunk_id, [])
        holder = cited[0] if cited else section_at(result.content, here, match.anchor)
        if holder is not None and not cited and result.chunk_id in stored:
            chunk = stored[result.chunk_id]
            match = section_sized(store, result, match, holder, chunk, budget, evidence.policy)
        result.passage, result.highlights = match.passage, match.highlights
        result.passages = passage_set(result.content, match, set_budget, set_policy)
        if result.chunk_id in stored:
            move_to_section(store, result, stored[result.chunk_id], holder, here)
        if per_passage:
            semantic = unit_cosines(match.units, windows, vectors.get(result.chunk_id), vector)
            headings = [result.heading, *result.parent_chain]
            coverage = term_coverage(result.content, match, evidence.idf, headings)
            offered[position] = UnitEvidence(
                match.units,
                match.lexical,
                semantic,
                cited is not None,
                coverage,
                match.lead_ins,
                own_coverage(match, evidence.idf),
            )
    if per_passage:
        if embed_units is not None and vector is not None:
            offered = with_unit_vectors(response.results, offered, embed_units, vector)
        ranked = rank_units(response, offered, plan.settings.top_k, plan.policy, budget)
        _move_to_passages(store, ranked, stored, evidence, begun)
        execution.response = ranked


def _move_to_passages(
    store: Store,
    ranked: SearchResponse,
    stored: Mapping[str, StoredChunk],
    evidence: QueryEvidence,
    begun: Mapping[str, list[SectionRecord]],
) -> None:
    """Each passage-level result in the section its passage lies in (unless a cited section
    holds it)."""
    for result in ranked.results:
        if result.chunk_id in stored and not cited_section(store, result, evidence.cited):
            here = begun[result.chunk_id]
            holder = section_at(result.content, here, result.passage.start)
            move_to_section(store, result, stored[result.chunk_id], holder, here)


def section_sized(
    store: Store,
    result: SearchResult,
    match: ChunkMatch,
    holder: SectionRecord,
    stored: StoredChunk,
    budget: int,
    policy: SearchPolicy = DEFAULT_POLICY,
) -> ChunkMatch:
    """``match`` with its passage widened to the whole section holding its best unit (a
    numbered rule with its points, a clause), its units from the first to the last the
    section overlaps, when that is longer than the passage and fits ``budget``: the size
    of the passage follows the document's own unit (else its own text, without the
    sections under it). The policy's ``passage_section_widening`` turns this off."""
    if not policy.passage_section_widening or not match.units:
        return match
    found = section_spans(store, holder, stored.chunk.section_id, result.content)
    if found is None:
        return match
    own, whole = found
    passage = match.passage
    for start, end in (whole, own):
        inside = [u for u in match.units if u[0] < end and start < u[1]]
        if not inside:
            continue
        first, last = inside[0][0], inside[-1][1]
        fits = last - first <= budget and first <= passage.start and passage.end <= last
        if fits and last - first > passage.end - passage.start:
            widened = Passage(result.content[first:last], first, last)
            return replace(match, passage=widened)
    return match


def match_chunk(
    content: str,
    evidence: QueryEvidence,
    *,
    budget: int = DEFAULT_PASSAGE_CHARS,
    cited: tuple[Span, Span] | None = None,
    windows: Sequence[tuple[Span, float]] = (),
    sentences: tuple[int, ...] | None = None,
) -> ChunkMatch:
    """The passage and highlights of one chunk. ``cited`` is (own text, whole subtree) of a
    cited section in ``content``; ``windows`` the embedding windows with their cosine;
    ``sentences`` the chunk's stored sentence offsets (``Chunk.sentences``), if any."""
    units = sentence_units(content, sentences)
    if not units:
        return ChunkMatch(Passage(content, 0, len(content)), [])
    hits = _term_hits(content, units, evidence.idf)
    phrases = [m.span() for p in evidence.patterns for m in p.finditer(content)]
    highlights = [(s, e) for s, e, _ in hits] + phrases + ([cited[0]] if cited else [])
    scores: list[float] = []
    lexical: tuple[float, ...] = ()
    if cited:
        chosen = _covering(units, cited[1], budget)
        anchor = cited[0][0]
    else:
        scores = _unit_scores(content, units, hits, evidence, windows)
        first = _anchor(units, scores, phrases, content)
        chosen = _grow(units, scores, first, budget, content, evidence.policy)
        best = _anchor(units, scores, phrases, content, headings=True)
        anchor = units[best][0] if scores[best] > 0 or phrases else None
        lexical = tuple(_bm25(content, units, hits, evidence.idf, 0.0))
    start, end = units[chosen[0]][0], units[chosen[1]][1]
    passage = Passage(content[start:end], start, end)
    lead_ins = unit_parents(content, units)[0]
    terms = _unit_terms(units, hits)
    return ChunkMatch(
        passage,
        merge_spans(highlights, content),
        units,
        tuple(scores),
        lead_ins,
        lexical,
        terms,
        anchor,
    )


def _unit_terms(
    units: Sequence[Span], hits: Sequence[tuple[int, int, tuple[str, ...]]]
) -> tuple[frozenset[str], ...]:
    """The query terms of the ``hits`` (sorted by offset) inside each unit."""
    starts = [h[0] for h in hits]
    return tuple(
        frozenset(
            t for *_, found in hits[bisect_left(starts, s) : bisect_left(starts, e)] for t in found
        )
        for s, e in units
    )


def term_coverage(
    content: str, match: ChunkMatch, idf: Mapping[str, float], headings: Collection[str]
) -> tuple[float, ...]:
    """Each unit's share of the query's terms (by ``idf``) found in its scope: the unit, its
    list's lead-in, its heading line (:func:`unit_parents`) and ``headings`` (its chunk's
    heading and parent chain)."""
    total = sum(idf.values())
    if not total or not match.terms:
        return ()
    lead_ins, heading_units = unit_parents(content, match.units)
    around = {t for t in analyze(" ".join(headings)) if t in idf}
    shares = []
    for own, lead, head in zip(match.terms, lead_ins, heading_units, strict=True):
        scope = own | around
        for parent in (lead, head):
            if parent is not None:
                scope |= match.terms[parent]
        shares.append(sum(idf[t] for t in scope) / total)
    return tuple(shares)


def own_coverage(match: ChunkMatch, idf: Mapping[str, float]) -> tuple[float, ...]:
    """Each unit's share of the query's terms (by ``idf``) found in the unit itself."""
    total = sum(idf.values())
    if not total or not match.terms:
        return ()
    return tuple(sum(idf[t] for t in own) / total for own in match.terms)


@lru_cache(maxsize=2048)
def sentence_units(content: str, cuts: tuple[int, ...] | None = None) -> tuple[Span, ...]:
    """The sentences of ``content``, each trimmed of surrounding whitespace: from its stored
    ``cuts`` (:func:`~hierdoc.text.sentences.sentence_cuts`), else split now."""
    units = []
    spans = sentence_spans(content) if cuts is None else spans_from_cuts(content, cuts)
    for start, end in spans:
        piece = content[start:end]
        left = len(piece) - len(piece.lstrip())
        right = len(piece.rstrip())
        if right > left:
            units.append((start + left, start + right))
    return tuple(units)


def _term_hits(
    content: str, units: tuple[Span, ...], idf: dict[str, float]
) -> list[tuple[int, int, tuple[str, ...]]]:
    """Each token of ``content`` that yields a query term, with the terms it yields (in the
    token's own order). Only the sentences holding such a token are scanned for offsets."""
    if not idf or (content.isascii() and not may_hold(content, idf)):
        return []
    tokens = _tokens(content, units)
    wanted = idf.keys()
    candidates = _may_yield(tokens, wanted)
    hit = {
        word: tuple(dict.fromkeys(t for t in terms if t in idf))
        for word, terms in tokens_terms(candidates).items()
        if not wanted.isdisjoint(terms)
    }
    if not hit:
        return []
    if tokens.words is None:
        scanned = [(0, len(content))]
    else:
        scanned = [
            u
            for u, words in zip(units, tokens.words, strict=True)
            if not hit.keys().isdisjoint(words)
        ]
    hits = []
    for first, last in scanned:
        for start, end in token_spans(content, first, last):
            matched = hit.get(content[start:end])
            if matched:
                hits.append((start, end, matched))
    return hits


def may_hold(text: str, terms: Iterable[str]) -> bool:
    """False when no token of ``text`` (ASCII) can yield any of the index ``terms``, found
    without analysing it: every index term of an ASCII token, less its last character, is
    in the token lower-cased, or without its commas, or without its commas and dots (a stem:
    "possibl" for "possibility", "happi" for "happy"; a number: "1000" for "1,000"; an
    acronym: "usc" for "U.S.C."; tests/test_scale_paths.py checks this on real corpora).
    A result found by its vector alone often holds none of the query's terms."""
    lower = text.lower()
    commas = lower.replace(",", "")
    haystacks = (lower, commas, commas.replace(".", ""))
    return any(term[:-1] in haystack for term in terms for haystack in haystacks)


def _may_yield(tokens: _Tokens, terms: Collection[str]) -> list[str]:
    """The distinct ``tokens`` for which :func:`may_hold` holds (and every non-ASCII one),
    found for all of them at once: each term's stem is looked for in the tokens joined,
    lower-cased, as :func:`may_hold` does for one text, and each find is mapped back to its
    token."""
    if any(len(term) < 2 for term in terms):
        return list(tokens.distinct)
    parts = {term[:-1] for term in terms}
    found = set(tokens.foreign)
    for joined in tokens.haystacks:
        for part in parts:
            at = joined.find(part)
            while at >= 0:
                found.add(joined.count("\n", 0, at))
                at = joined.find(part, at + 1)
    return [tokens.distinct[i] for i in sorted(found)]


@dataclass(frozen=True)
class _Tokens:
    """A chunk's tokens (:func:`~hierdoc.text.analyze.token_spans`) by sentence unit."""

    distinct: tuple[str, ...]
    """Each distinct token, as written; only those that may yield a query term (by
    :func:`may_hold`) are analysed, since analysing a token is what costs here."""
    lengths: tuple[int, ...]
    """How many tokens start in each unit."""
    words: tuple[tuple[str, ...], ...] | None
    """Each unit's tokens; None when a token may run across units or lie outside them."""

    @cached_property
    def haystacks(self) -> tuple[str, str, str]:
        """The distinct tokens, one per line (no token holds a newline), as :func:`may_hold`
        reads a text: lower-cased; without commas; without commas and dots."""
        lowered = "\n".join(self.distinct).lower()
        commas = lowered.replace(",", "")
        return lowered, commas, commas.replace(".", "")

    @cached_property
    def foreign(self) -> tuple[int, ...]:
        """The positions of the non-ASCII tokens, which are always analysed."""
        return tuple(i for i, t in enumerate(self.distinct) if not t.isascii())


@lru_cache(maxsize=2048)
def _tokens(content: str, units: tuple[Span, ...]) -> _Tokens:
    """When only whitespace lies around and between the units (and some between each two),
    no token crosses a unit's edges, so scanning each unit alone finds the tokens of the
    whole text; otherwise the whole text is scanned and each token counted where it starts."""
    if _apart(content, units):
        words = tuple(tuple(token_words(content, s, e)) for s, e in units)
        lengths = tuple(len(w) for w in words)
        distinct = tuple({w: None for unit in words for w in unit})
        return _Tokens(distinct, lengths, words)
    spans = token_spans(content)
    starts = [s for s, _ in spans]
    lengths = tuple(bisect_left(starts, e) - bisect_left(starts, s) for s, e in units)
    distinct = tuple({content[s:e]: None for s, e in spans})
    return _Tokens(distinct, lengths, None)


def _apart(content: str, units: Sequence[Span]) -> bool:
    """Only whitespace before, between and after ``units``, and some between each two."""
    edges = [0, *(edge for unit in units for edge in unit), len(content)]
    for i in range(0, len(edges), 2):
        gap_start, gap_end = edges[i], edges[i + 1]
        inner = 0 < i < len(edges) - 2
        if (inner and gap_start >= gap_end) or content[gap_start:gap_end].strip():
            return False
    return True


def _unit_scores(
    content: str,
    units: Sequence[Span],
    hits: Sequence[tuple[int, int, tuple[str, ...]]],
    evidence: QueryEvidence,
    windows: Sequence[tuple[Span, float]],
) -> list[float]:
    """Each unit's score: its BM25 (:func:`_bm25`) plus the policy's shares of its lead-in's
    and its heading's (:func:`unit_parents`), rescaled in the chunk, plus
    ``passage_semantic_weight`` times the rescaled cosine of the best embedding window
    covering it."""
    policy = evidence.policy
    own = _bm25(content, units, hits, evidence.idf, policy.passage_local_idf)
    lead_ins, headings = unit_parents(content, units)
    lead_share, heading_share = policy.passage_lead_in_share, policy.passage_heading_share
    lexical = _rescaled(
        [
            score
            + (lead_share * own[lead] if lead is not None else 0.0)
            + (heading_share * own[head] if head is not None else 0.0)
            for score, lead, head in zip(own, lead_ins, headings, strict=True)
        ]
    )
    semantic = _rescaled(
        [max((c for w, c in windows if _overlaps(w, u)), default=0.0) for u in units]
    )
    weight = evidence.policy.passage_semantic_weight
    return [lex + weight * sem for lex, sem in zip(lexical, semantic, strict=True)]


@lru_cache(maxsize=2048)
def unit_parents(
    content: str, units: tuple[Span, ...]
) -> tuple[tuple[int | None, ...], tuple[int | None, ...]]:
    """Each unit's lead-in and heading, as unit indexes (None when it has none): the
    lead-in of a list item ("(d) was independently developed ...") is the sentence that
    introduces its list ("... shall not apply to any information that:"), the nearest
    earlier unit that is no item, when it ends with a colon; the heading is the nearest
    earlier heading line."""
    lead_ins: list[int | None] = []
    headings: list[int | None] = []
    lead: int | None = None
    head: int | None = None
    for i, (start, end) in enumerate(units):
        heading = _is_heading(content, (start, end))
        item = not heading and bool(_ITEM.match(content, start))
        lead_ins.append(lead if item else None)
        headings.append(head)
        if heading:
            head, lead = i, None
        elif not item:
            lead = i if content[start:end].rstrip().endswith((":", ":-", "—")) else None
    return tuple(lead_ins), tuple(headings)


def _bm25(
    content: str,
    units: Sequence[Span],
    hits: Sequence[tuple[int, int, tuple[str, ...]]],
    idf: dict[str, float],
    local_idf: float = 1.0,
) -> list[float]:
    """BM25 of each sentence as a document of its own (Robertson and Zaragoza 2009), with the
    corpus idf of each term times, to the power ``local_idf``, its idf among the
    chunk's sentences: term density, not term count, ranks the sentences, and a term in
    every sentence of the chunk ("Receiving Party" in an NDA) tells them apart little."""
    if not hits:
        return [0.0] * len(units)
    lengths = [max(1, n) for n in _tokens(content, tuple(units)).lengths]
    average = sum(lengths) / len(lengths)
    hit_starts = [h[0] for h in hits]
    per_unit = []
    for start, end in units:
        counts: dict[str, int] = {}
        for _, _, terms in hits[bisect_left(hit_starts, start) : bisect_left(hit_starts, end)]:
            for term in terms:
                counts[term] = counts.get(term, 0) + 1
        per_unit.append(counts)
    weight = _local_weights(idf, per_unit, local_idf)
    scores = []
    for counts, length in zip(per_unit, lengths, strict=True):
        scores.append(
            sum(weight[t] * bm25.term_score(tf, length, average) for t, tf in counts.items())
        )
    return scores


def _local_weights(
    idf: dict[str, float], per_unit: Sequence[dict[str, int]], power: float
) -> dict[str, float]:
    """Each term's corpus idf times its idf among the units, to the ``power``."""
    found: dict[str, int] = {}
    for counts in per_unit:
        for term in counts:
            found[term] = found.get(term, 0) + 1
    total = len(per_unit)
    return {t: idf[t] * bm25.idf(total, n) ** power for t, n in found.items()}


def _rescaled(values: list[float]) -> list[float]:
    low, high = min(values), max(values)
    return [(v - low) / (high - low) for v in values] if high > low else [0.0] * len(values)


def _overlaps(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _is_heading(content: str, unit: Span) -> bool:
    """Whether the unit lies on a Markdown heading line (the sentence splitter may cut
    "## 5. Return of information" after "5.")."""
    return bool(_HEADING.match(content, content.rfind("\n", 0, unit[0]) + 1))


def _anchor(
    units: Sequence[Span],
    scores: Sequence[float],
    phrases: list[Span],
    content: str,
    headings: bool = False,
) -> int:
    """The best sentence: among those holding a phrase when there are any; not a heading
    line when another sentence will do, unless ``headings`` (where the match is, rather than
    where a passage starts); the first of equals."""
    candidates = [i for i, u in enumerate(units) if any(_overlaps(u, p) for p in phrases)]
    if not headings:
        candidates = candidates or [i for i, u in enumerate(units) if not _is_heading(content, u)]
    candidates = candidates or list(range(len(units)))
    return max(candidates, key=lambda i: (scores[i], -i))


def _grow(
    units: Sequence[Span],
    scores: Sequence[float],
    anchor: int,
    budget: int,
    content: str,
    policy: SearchPolicy,
) -> Span:
    """Unit index range around ``anchor``: the better neighbour first, while it fits."""
    first = last = anchor
    floor = policy.passage_grow_share * scores[anchor]
    while True:
        options = []
        if first > 0 and not _is_heading(content, units[first - 1]):
            options.append((scores[first - 1], 0, first - 1, last))
        if last + 1 < len(units):
            options.append((scores[last + 1], 1, first, last + 1))
        options = [o for o in options if units[o[3]][1] - units[o[2]][0] <= budget]
        if not options:
            return first, last
        score, _, new_first, new_last = max(options)
        short = units[last][1] - units[first][0] < policy.passage_min_chars
        if not short and (score <= 0 or score < floor):
            return first, last
        first, last = new_first, new_last


def _covering(units: Sequence[Span], span: Span, budget: int) -> Span:
    """The sentences overlapping ``span``, from its first, as many as fit the budget."""
    inside = [i for i, u in enumerate(units) if _overlaps(u, span)] or [0]
    last = inside[0]
    for i in inside[1:]:
        if units[i][1] - units[inside[0]][0] > budget:
            break
        last = i
    return inside[0], last


def merge_spans(spans: Sequence[Span], text: str = "") -> list[Span]:
    """Sorted, with overlapping or touching spans joined, and spans of ``text`` apart only
    by whitespace ("without undue delay" is one highlight, not three)."""
    merged: list[Span] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        gap = text[merged[-1][1] : start] if merged and text else "x"
        if merged and (start <= merged[-1][1] or not gap.strip()):
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


# -- evidence from the store: the cited section, the embedding windows ---------------------


def cited_section(
    store: Store, result: SearchResult, cited: Sequence[str]
) -> tuple[SectionRecord, tuple[Span, Span]] | None:
    """The first cited section found in the result's content, with (own text, whole
    subtree), located heading by heading from the chunk's own section down."""
    for section_id in cited:
        records = store.sections(section_id, result.source)
        if records:
            found = section_spans(store, records[0], result.section_id, result.content)
            if found:
                return records[0], found
    return None


def section_spans(
    store: Store, record: SectionRecord, chunk_section_id: str, content: str
) -> tuple[Span, Span] | None:
    """(own text, whole subtree) of the section ``record`` in the content of a chunk of
    section ``chunk_section_id``, found heading by heading from that section down."""
    chain = [record]
    while chain[-1].parent_id and chain[-1].section_id != chunk_section_id:
        parents = store.sections(chain[-1].parent_id, record.source)
        if not parents:
            break
        chain.append(parents[0])
    cursor, start = 0, None
    for section in reversed(chain):
        start = first_line_at(content, section.text, cursor)
        if start is not None:
            cursor = start
    if start is None:
        return None
    own = (start, min(len(content), start + len(record.text.strip())))
    end = own[1]
    for child in _descendants(store, record):
        at = first_line_at(content, child.text, end - 1)
        if at is not None:
            end = min(len(content), at + len(child.text.strip()))
    return own, (start, end)


def _descendants(store: Store, record: SectionRecord) -> list[SectionRecord]:
    """The sections under ``record``, in document order."""
    found = []
    for child in store.children(record.source, record.section_id):
        found += [child, *_descendants(store, child)]
    return found


@lru_cache(maxsize=4096)
def _default_window_spans(content: str, context: str) -> tuple[Span, ...]:
    return tuple(window_spans(content, context, default_tokenizer()))


def window_spans(content: str, context: str, tokenizer: Tokenizer) -> list[Span]:
    """The character spans of ``content`` that the local embedder's windows covered
    (:func:`~hierdoc.text.windows.cut_windows` with the default model's geometry)."""
    return list(cut_windows(content, context, tokenizer).spans)


def _window_scores(
    result: SearchResult, windows: np.ndarray | None, vector: np.ndarray | None
) -> list[tuple[Span, float]]:
    """Each embedding window of the chunk with its cosine to the query; empty when the
    chunk has one window or the stored windows are not the ones recomputed here."""
    if windows is None or vector is None or len(windows) < 2:
        return []
    spans = _default_window_spans(result.content, result.context)
    if len(spans) != len(windows):
        return []
    cosines = np.asarray(windows, dtype=np.float32) @ np.asarray(vector, dtype=np.float32)
    return list(zip(spans, (float(c) for c in cosines), strict=True))


def unit_cosines(
    units: Sequence[Span],
    windows: Sequence[tuple[Span, float]],
    stored: np.ndarray | None,
    vector: np.ndarray | None,
) -> tuple[float, ...]:
    """Each unit's cosine to the query: of the best embedding window covering it, else of
    the chunk's best window (one window, or windows not placed); 0.0 without vectors."""
    if stored is None or vector is None or not len(stored):
        return (0.0,) * len(units)
    best = float(np.max(np.asarray(stored, dtype=np.float32) @ np.asarray(vector, np.float32)))
    return tuple(max((c for w, c in windows if _overlaps(w, u)), default=best) for u in units)


def with_unit_vectors(
    results: Sequence[SearchResult],
    offered: dict[int, UnitEvidence],
    embed_units: UnitEmbedder,
    vector: np.ndarray,
) -> dict[int, UnitEvidence]:
    """``offered`` with each unit's semantic signal its own text's cosine to ``vector``,
    every unit of every result embedded in one call."""
    texts = [
        results[position].content[start:end]
        for position, found in offered.items()
        if not found.cited
        for start, end in found.units
    ]
    if not texts:
        return offered
    cosines = iter(np.asarray(embed_units(texts), np.float32) @ np.asarray(vector, np.float32))
    return {
        position: found
        if found.cited
        else replace(found, semantic=tuple(float(next(cosines)) for _ in found.units))
        for position, found in offered.items()
    }
