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
the budget and score at least :data:`GROW_SHARE` of the first sentence (or while the
passage is shorter than :data:`MIN_CHARS`). One sentence longer than the budget is
returned whole: a passage never starts or ends inside a sentence.

Highlights are offsets into ``content`` of the query's terms (as BM25 analyses them),
each occurrence of a quoted phrase or identifier, and the cited section's own text.
A result's further passages, from the same sentence scores, are chosen in
:mod:`hierdoc.search.passage_sets`.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache

import numpy as np

from ..models import Passage, SearchResponse, SearchResult, SectionRecord, StoredChunk
from ..pipeline.chunk import sentence_spans, spans_from_cuts
from ..pipeline.embed import DEFAULT_MODEL, _fitted_prefix
from ..pipeline.tokenizer import Tokenizer, default_tokenizer
from ..store.base import Store
from . import passage_sets
from .analyze import token_spans, token_words, tokens_terms
from .holders import begun_in, move_to_section, section_at
from .passage_sets import DEFAULT_SET_CHARS, passage_set, passage_shares, rank_passages
from .per_generation import PerGeneration
from .searcher import keyword_terms, parse_query

Span = tuple[int, int]

DEFAULT_PASSAGE_CHARS = 1000
MIN_CHARS = 150
"""A passage shorter than this takes in its next sentence whatever it scores."""
GROW_SHARE = 0.5
"""A neighbouring sentence joins when it scores at least this share of the first one."""
SEMANTIC_WEIGHT = 0.5
"""Weight of the rescaled window cosine beside the rescaled sentence BM25 (max 1 each)."""
BM25_K1 = 1.2
BM25_B = 0.75
SECTION_UNITS = 1
"""1: a passage widens to the whole section holding its best unit when that fits the
passage's budget; 0: it does not."""
LOCAL_IDF = 1.0
"""Power of a term's idf among the chunk's sentences in its weight (0: the corpus idf alone)."""
LEAD_IN_SHARE = 0.5
"""Share of a list item's lead-in's BM25 added to the item's own."""
HEADING_SHARE = 0.3
"""Share of the BM25 of a sentence's heading line added to the sentence's own."""
WINDOW_TOKENS = 254
"""The windows the local embedder cuts: all-MiniLM-L6-v2 reads 256 word pieces, less
[CLS] and [SEP], with 32 tokens of overlap (``LocalEmbedder``)."""
WINDOW_OVERLAP = 32
_HEADING = re.compile(r"#{1,6}\s")
_ITEM = re.compile(
    r"\s*(?:\(?(?:[a-zA-Z]|[ivxlcIVXLC]{1,6}|\d{1,3})\)|\d{1,3}(?:\.\d{1,3})*\.?|[\u2022\u25aa\u25e6*\-\u2013])\s"
)


class QueryVectors:
    """The index's query embedder, keeping the last vector so that the passages reuse the
    vector the search embedded instead of embedding the query again."""

    def __init__(self, embed: Callable[[str], np.ndarray]) -> None:
        self._embed = embed
        self.last: np.ndarray | None = None

    def __call__(self, text: str) -> np.ndarray:
        self.last = self._embed(text)
        return self.last


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
    anchor: int | None = None
    """Where in ``content`` the best match begins: the cited section, else the best
    sentence, heading lines included (see hierdoc.search.holders); None when nothing in
    the chunk matched (a result found by its vector alone, no window better than another)."""


def query_evidence(
    store: Store, response: SearchResponse, vector: np.ndarray | None = None
) -> QueryEvidence:
    parsed = parse_query(response.query.strip())
    terms = keyword_terms(store, parsed.remainder) if parsed.remainder.strip() else []
    freq = store.doc_freq(terms) if terms else {}
    total = _chunk_total(store) if freq else 0
    idf = {t: math.log(1 + (total - df + 0.5) / (df + 0.5)) for t, df in freq.items() if df > 0}
    patterns = tuple(
        _phrase_pattern(p) for p in (*parsed.phrases, *parsed.identifiers) if re.search(r"\w", p)
    )
    cited = tuple(c["section_id"] for c in response.citations if c["resolved"])
    return QueryEvidence(idf, patterns, cited, vector)


#: The number of chunks indexed (BM25's N), read once per store and index generation.
_chunk_total = PerGeneration(lambda store: store.chunk_count())


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    """The phrase's words in order, any run of non-word characters between them."""
    words = re.findall(r"\w+", phrase)
    return re.compile(r"(?<!\w)" + r"\W+".join(map(re.escape, words)) + r"(?!\w)", re.I)


def add_passages(
    store: Store,
    response: SearchResponse,
    vector: np.ndarray | None = None,
    budget: int = DEFAULT_PASSAGE_CHARS,
    model: str = DEFAULT_MODEL,
    stored: Mapping[str, StoredChunk] | None = None,
    set_budget: int = DEFAULT_SET_CHARS,
    per_passage: int = 0,
) -> SearchResponse:
    """Set each result's ``passage``, ``passages`` (:mod:`~hierdoc.search.passage_sets`,
    ``set_budget`` characters in all) and ``highlights``; returns the response. ``stored``
    holds the results' records when the caller has them (``Searcher.stored``). With
    ``per_passage`` > 0 the response returned has one result per passage, ranked at the
    passage level (:func:`~hierdoc.search.passage_sets.rank_passages`), at most that many,
    each naming the section its passage lies in."""
    if not response.results:
        return response
    evidence = query_evidence(store, response, vector)
    ids = [r.chunk_id for r in response.results]
    vectors = store.vectors_of(ids) if vector is not None and model == DEFAULT_MODEL else {}
    if stored is None or any(i not in stored for i in ids):
        stored = store.get_chunks(ids)
    sentences = {i: stored[i].chunk.sentences for i in ids if i in stored}
    begun = begun_in(store, [stored[i] for i in dict.fromkeys(ids) if i in stored])
    shares: dict[int, list[float]] = {}
    for position, result in enumerate(response.results):
        cited = cited_section(store, result, evidence.cited)
        spans = cited[1] if cited else None
        windows = _window_scores(result, vectors.get(result.chunk_id), vector)
        cuts = sentences.get(result.chunk_id)
        match = match_chunk(result.content, evidence, budget, spans, windows, cuts)
        here = begun.get(result.chunk_id, [])
        holder = cited[0] if cited else section_at(result.content, here, match.anchor)
        if holder is not None and not cited and result.chunk_id in stored:
            match = section_sized(store, result, match, holder, stored[result.chunk_id], budget)
        result.passage, result.highlights = match.passage, match.highlights
        if per_passage:
            offered = max(set_budget, passage_sets.RESULT_SET_CHARS)
            result.passages = passage_set(result.content, match, offered, passage_sets.RESULT_SHARE)
        else:
            result.passages = passage_set(result.content, match, set_budget)
        shares[position] = passage_shares(match, result.passages)
        if result.chunk_id in stored:
            move_to_section(store, result, stored[result.chunk_id], holder, here)
    if not per_passage:
        return response
    ranked = rank_passages(response, shares, per_passage)
    for result in ranked.results:
        if result.chunk_id in stored and not cited_section(store, result, evidence.cited):
            here = begun[result.chunk_id]
            holder = section_at(result.content, here, result.passage.start)
            move_to_section(store, result, stored[result.chunk_id], holder, here)
    return ranked


def section_sized(
    store: Store,
    result: SearchResult,
    match: ChunkMatch,
    holder: SectionRecord,
    stored: StoredChunk,
    budget: int,
) -> ChunkMatch:
    """``match`` with its passage widened to the whole section holding its best unit (a
    numbered rule with its points, a clause), its units from the first to the last the
    section overlaps, when that is longer than the passage and fits ``budget``: the size
    of the passage follows the document's own unit (else its own text, without the
    sections under it)."""
    if not SECTION_UNITS or not match.units:
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
    if cited:
        chosen = _covering(units, cited[1], budget)
        anchor = cited[0][0]
    else:
        scores = _unit_scores(content, units, hits, evidence.idf, windows)
        chosen = _grow(units, scores, _anchor(units, scores, phrases, content), budget, content)
        best = _anchor(units, scores, phrases, content, headings=True)
        anchor = units[best][0] if scores[best] > 0 or phrases else None
    start, end = units[chosen[0]][0], units[chosen[1]][1]
    passage = Passage(content[start:end], start, end)
    lead_ins = unit_parents(content, units)[0]
    return ChunkMatch(
        passage, merge_spans(highlights, content), units, tuple(scores), lead_ins, anchor
    )


@lru_cache(maxsize=2048)
def sentence_units(content: str, cuts: tuple[int, ...] | None = None) -> tuple[Span, ...]:
    """The sentences of ``content``, each trimmed of surrounding whitespace: from its stored
    ``cuts`` (:func:`~hierdoc.pipeline.chunk.sentence_cuts`), else split now."""
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
    """A chunk's tokens (:func:`~hierdoc.search.analyze.token_spans`) by sentence unit."""

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
    idf: dict[str, float],
    windows: Sequence[tuple[Span, float]],
) -> list[float]:
    """Each unit's score: its BM25 (:func:`_bm25`) plus shares of its lead-in's and its
    heading's (:func:`unit_parents`), rescaled in the chunk, plus :data:`SEMANTIC_WEIGHT`
    times the rescaled cosine of the best embedding window covering it."""
    own = _bm25(content, units, hits, idf)
    lead_ins, headings = unit_parents(content, units)
    lexical = _rescaled(
        [
            score
            + (LEAD_IN_SHARE * own[lead] if lead is not None else 0.0)
            + (HEADING_SHARE * own[head] if head is not None else 0.0)
            for score, lead, head in zip(own, lead_ins, headings, strict=True)
        ]
    )
    semantic = _rescaled(
        [max((c for w, c in windows if _overlaps(w, u)), default=0.0) for u in units]
    )
    return [lex + SEMANTIC_WEIGHT * sem for lex, sem in zip(lexical, semantic, strict=True)]


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
) -> list[float]:
    """BM25 of each sentence as a document of its own (Robertson and Zaragoza 2009), with the
    corpus idf of each term times, to the power :data:`LOCAL_IDF`, its idf among the
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
    weight = _local_weights(idf, per_unit)
    scores = []
    for counts, length in zip(per_unit, lengths, strict=True):
        norm = BM25_K1 * (1 - BM25_B + BM25_B * length / average)
        scores.append(sum(weight[t] * tf * (BM25_K1 + 1) / (tf + norm) for t, tf in counts.items()))
    return scores


def _local_weights(idf: dict[str, float], per_unit: Sequence[dict[str, int]]) -> dict[str, float]:
    """Each term's corpus idf times its idf among the units, to the power :data:`LOCAL_IDF`."""
    found: dict[str, int] = {}
    for counts in per_unit:
        for term in counts:
            found[term] = found.get(term, 0) + 1
    total = len(per_unit)
    return {
        t: idf[t] * math.log(1 + (total - n + 0.5) / (n + 0.5)) ** LOCAL_IDF
        for t, n in found.items()
    }


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
    units: Sequence[Span], scores: Sequence[float], anchor: int, budget: int, content: str
) -> Span:
    """Unit index range around ``anchor``: the better neighbour first, while it fits."""
    first = last = anchor
    floor = GROW_SHARE * scores[anchor]
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
        short = units[last][1] - units[first][0] < MIN_CHARS
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
        start = _find_text(content, section.text, cursor)
        if start is not None:
            cursor = start
    if start is None:
        return None
    own = (start, min(len(content), start + len(record.text.strip())))
    end = own[1]
    for child in _descendants(store, record):
        at = _find_text(content, child.text, end - 1)
        if at is not None:
            end = min(len(content), at + len(child.text.strip()))
    return own, (start, end)


def _find_text(content: str, text: str, cursor: int) -> int | None:
    """Where the first line of a section's text occurs in ``content`` at or after ``cursor``."""
    line = text.strip().split("\n", 1)[0][:200]
    if not line:
        return None
    at = content.find(line, max(cursor, 0))
    return at if at >= 0 else None


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
    """The character spans of ``content`` that the local embedder's windows covered, as
    ``hierdoc.pipeline.embed.window_texts`` cuts them."""
    prefix = _fitted_prefix(context.strip(), tokenizer, WINDOW_TOKENS // 2)
    budget = WINDOW_TOKENS - tokenizer.count(prefix)
    offsets = tokenizer.offsets(content)
    if len(offsets) <= budget:
        return [(0, len(content))]
    step = max(1, budget - WINDOW_OVERLAP)
    spans = []
    for first in range(0, len(offsets), step):
        last = min(first + budget, len(offsets)) - 1
        spans.append((offsets[first][0], offsets[last][1]))
        if last == len(offsets) - 1:
            break
    return spans


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
