"""BM25 keyword search over the packed postings (:mod:`.postings`), scored in numpy.

The scores are tantivy's, as in the local backend: :data:`~hierdoc.text.bm25.K1` and
``B``, idf = ln(1 + (N - n + 0.5) / (n + 0.5)), the average length over the indexed
chunks, a query term counted as often as it is given. The top k is exact, found with
MaxScore pruning (Turtle and Flood, 1995): each term's weight in a chunk is bounded by
its idf at its largest frequency in the shortest chunk holding it (``term_stats``). The
postings are read term by term, highest bound first (terms of few postings at once); as
soon as the bounds of the terms not read add up to less than the k-th score so far, no
chunk outside the candidates can enter the top k, and the candidates that still could are
scored on the remaining terms from their forward rows (their own terms and frequencies),
so a common term's long postings are rarely read at all.

A source filter is a set of chunk-number ranges applied to the postings as they are read;
chunk types and section prefixes are checked in SQL on the best-scored chunks, in growing
batches (then every term is read: the k-th score among the filtered is not known early).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import psycopg

from ...models import Hit, SearchFilter
from ...text import bm25
from .filters import filter_sql
from .postings import TermPostings, in_ranges, read_forward, read_postings

CHEAP = 16_384
"""Postings few enough for a term's to be read with the first term's, pruned or not."""
FORWARD_UP_TO = 2_000
"""Candidates few enough to be completed from their forward rows (more: from postings)."""
SLACK = 1e-9
"""Relative margin on the bounds, for sums of floats added in another order."""


@dataclass(frozen=True)
class _Term:
    term_id: int
    df: int
    weight: float
    """Its idf, times as often as the query gives it."""
    bound: float
    """The most it adds to a chunk's score."""


@dataclass(frozen=True)
class _Query:
    terms: list[_Term]
    """Highest bound first."""
    average: float
    ready: dict[int, TermPostings]
    """The postings of the terms of at most :data:`CHEAP` postings, read with their stats."""
    size: int
    """Above the highest chunk number given so far (``state.next_no``)."""


@dataclass(frozen=True)
class _Scope:
    ranges: list[tuple[int, int]] | None
    """The chunk numbers of the filter's sources; None: every source."""
    rest: SearchFilter | None
    """The chunk types and section prefix, checked in SQL."""


@dataclass(frozen=True)
class _Candidates:
    """Chunk numbers (ascending) with their scores so far and their lengths."""

    nos: np.ndarray
    scores: np.ndarray
    norms: np.ndarray

    def kth(self, k: int) -> float:
        """The k-th highest score, 0 when there are fewer than k."""
        if len(self.scores) < k:
            return 0.0
        return float(np.partition(self.scores, len(self.scores) - k)[len(self.scores) - k])

    def where(self, keep: np.ndarray) -> _Candidates:
        return _Candidates(self.nos[keep], self.scores[keep], self.norms[keep])


class _Tally:
    """Scores summed by chunk number in arrays indexed by it, made once a search: a term's
    postings add their weights in one pass (no sort)."""

    def __init__(self, size: int) -> None:
        self.scores = np.zeros(size)
        self.norms = np.zeros(size, np.int64)
        self.seen = np.zeros(size, bool)

    def add(self, parts: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> None:
        """Each part's (chunk numbers, each once in a part; weights; lengths)."""
        top = max((int(nos.max()) for nos, _, _ in parts if len(nos)), default=-1)
        if top >= len(self.scores):  # chunks written since the search began
            self.scores, self.norms, self.seen = (
                np.concatenate([a, np.zeros(top + 1 - len(a), a.dtype)])
                for a in (self.scores, self.norms, self.seen)
            )
        for nos, weights, lengths in parts:
            self.scores[nos] += weights
            self.norms[nos] = lengths
            self.seen[nos] = True

    def candidates(self, nos: np.ndarray | None = None) -> _Candidates:
        """The chunks numbered ``nos`` (None: every chunk added) with their sums."""
        nos = np.flatnonzero(self.seen) if nos is None else nos
        return _Candidates(nos, self.scores[nos], self.norms[nos])


def keyword_search(
    conn: psycopg.Connection, terms: Sequence[str], k: int, filt: SearchFilter | None
) -> list[Hit]:
    if k <= 0 or not terms:
        return []
    query = _query(conn, terms)
    if query is None:
        return []
    scope = _scope(conn, filt)
    candidates = _scores(conn, query, k if scope.rest is None else None, scope.ranges)
    return _top(conn, candidates, k, scope.rest)


def doc_freq(
    conn: psycopg.Connection, terms: Sequence[str], filt: SearchFilter | None = None
) -> dict[str, int]:
    """Chunks holding each term: the kept statistics, or counted among the chunks ``filt``
    matches."""
    rows = conn.execute(
        "SELECT term, term_id, df FROM term_stats WHERE term = ANY(%s)", (list(terms),)
    ).fetchall()
    if filt is None or filt.empty:
        found = {term: df for term, _, df in rows}
    else:
        scope = _scope(conn, filt)
        read = read_postings(conn, [term_id for _, term_id, _ in rows])
        found = {term: len(_in_scope(conn, read[term_id].nos, scope)) for term, term_id, _ in rows}
    return {term: int(found.get(term, 0)) for term in terms}


def _query(conn: psycopg.Connection, terms: Sequence[str]) -> _Query | None:
    """The query terms' statistics, and the postings of the cheap ones, in one round trip."""
    rows = conn.execute(
        "SELECT s.term, s.term_id, s.df, s.max_tf, s.min_norm, state.chunks, state.tokens, "
        "state.next_no, p.nos, p.tfs, p.norms, p.n FROM term_stats s CROSS JOIN state "
        "LEFT JOIN postings p ON p.term_id = CASE WHEN s.df <= %s THEN s.term_id END "
        "WHERE s.term = ANY(%s) AND state.chunks > 0",  # the index scanned for cheap terms only
        (CHEAP, list(set(terms))),
        binary=True,
    ).fetchall()
    if not rows:
        return None
    chunks, tokens, size = rows[0][5], rows[0][6], rows[0][7]
    average, times = tokens / chunks, Counter(terms)
    found: dict[int, _Term] = {}
    packed: dict[int, list[tuple[bytes, bytes, bytes, int]]] = {}
    for term, term_id, df, max_tf, min_norm, _, _, _, *row in rows:
        weight = times[term] * bm25.idf(chunks, df)
        bound = weight * bm25.term_score(max_tf, min_norm, average)
        found[term_id] = _Term(term_id, df, weight, bound)
        if df <= CHEAP:
            packed.setdefault(term_id, []).extend([tuple(row)] if row[0] is not None else [])
    ready = {term_id: TermPostings.of_rows(part) for term_id, part in packed.items()}
    return _Query(sorted(found.values(), key=lambda t: -t.bound), average, ready, size)


def _scope(conn: psycopg.Connection, filt: SearchFilter | None) -> _Scope:
    if filt is None or filt.empty:
        return _Scope(None, None)
    ranges = None
    if filt.sources:
        ranges = conn.execute(
            "SELECT first_no, last_no FROM documents WHERE source = ANY(%s) "
            "AND last_no >= first_no",
            (list(filt.sources),),
        ).fetchall()
    rest = replace(filt, sources=())
    return _Scope(ranges, None if rest.empty else rest)


def _scores(
    conn: psycopg.Connection,
    query: _Query,
    k: int | None,
    ranges: list[tuple[int, int]] | None,
) -> _Candidates:
    """The exact scores of every chunk that can be in the top ``k`` (None: of every chunk
    holding a query term), among ``ranges``."""
    rest, tally = list(query.terms), _Tally(query.size)
    while rest:
        take = rest if k is None else [rest[0], *(t for t in rest[1:] if t.df <= CHEAP)]
        rest = [t for t in rest if t not in take]
        tally.add(_read(conn, take, query, ranges))
        candidates = tally.candidates()
        if k is not None and _bound(rest) < candidates.kth(k):
            break
    if not rest or k is None:
        return tally.candidates()
    survivors = candidates.where(candidates.scores + _bound(rest) >= candidates.kth(k))
    return _complete(conn, tally, survivors, rest, query, ranges, k)


def _bound(terms: Sequence[_Term]) -> float:
    return sum(t.bound for t in terms) * (1 + SLACK)


def _weights(term: _Term, tfs: np.ndarray, norms: np.ndarray, average: float) -> np.ndarray:
    return (
        term.weight
        * tfs
        * (bm25.K1 + 1)
        / (tfs + bm25.K1 * (1 - bm25.B + bm25.B * norms / average))
    )


def _read(
    conn: psycopg.Connection,
    terms: Sequence[_Term],
    query: _Query,
    ranges: list[tuple[int, int]] | None,
    within: np.ndarray | None = None,
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each term's postings among ``ranges`` (and of the chunks numbered ``within``, when
    given) as (chunk numbers, weights, lengths)."""
    missing = [t.term_id for t in terms if t.term_id not in query.ready]
    read = {**query.ready, **(read_postings(conn, missing) if missing else {})}
    parts = []
    for term in terms:
        found = read[term.term_id]
        if ranges is not None:
            found = found.where(in_ranges(found.nos, ranges))
        if within is not None:
            found = found.where(np.isin(found.nos, within, kind="table"))
        weights = _weights(term, found.tfs, found.norms, query.average)
        parts.append((found.nos, weights, found.norms))
    return parts


def _complete(
    conn: psycopg.Connection,
    tally: _Tally,
    candidates: _Candidates,
    terms: Sequence[_Term],
    query: _Query,
    ranges: list[tuple[int, int]] | None,
    k: int,
) -> _Candidates:
    """The ``candidates`` that can still be in the top ``k``, scored on ``terms`` as well.
    While they are many, the terms' postings are read one term at a time (highest bound
    first) and after each the candidates that the terms left cannot lift to the k-th score
    are dropped; the few left are scored on the terms left from their forward rows."""
    rest = list(terms)
    while rest and len(candidates.nos) > FORWARD_UP_TO:
        term, rest = rest[0], rest[1:]
        tally.add(_read(conn, [term], query, ranges, candidates.nos))
        candidates = tally.candidates(candidates.nos)
        candidates = candidates.where(candidates.scores + _bound(rest) >= candidates.kth(k))
    return _forward_scores(conn, candidates, rest, query.average) if rest else candidates


def _forward_scores(
    conn: psycopg.Connection, candidates: _Candidates, terms: Sequence[_Term], average: float
) -> _Candidates:
    """``candidates`` scored on ``terms`` from their forward rows."""
    forward = read_forward(conn, candidates.nos)
    owners = np.repeat(np.searchsorted(candidates.nos, forward.chunk_nos), forward.counts)
    extra = np.zeros(len(candidates.nos))
    for term in terms:
        at = forward.term_ids == term.term_id
        weights = _weights(term, forward.tfs[at], candidates.norms[owners[at]], average)
        extra += np.bincount(owners[at], weights=weights, minlength=len(extra))
    return replace(candidates, scores=candidates.scores + extra)


def _top(
    conn: psycopg.Connection, candidates: _Candidates, k: int, rest: SearchFilter | None
) -> list[Hit]:
    """The best ``k`` of ``candidates`` that ``rest`` keeps, by score then chunk id: their
    ids fetched (and the filter checked) in growing batches of the best scored, the first
    holding every chunk scored as high as the k-th (a tie is broken by chunk id)."""
    where, params = filter_sql(rest, "c")
    order = np.lexsort((candidates.nos, -candidates.scores))
    ranked = candidates.scores[order]
    kept: list[Hit] = []
    start, size = 0, max(2 * k, int(np.count_nonzero(ranked >= candidates.kth(k))))
    while start < len(order):
        batch = order[start : start + size]
        scores = dict(zip(candidates.nos[batch].tolist(), candidates.scores[batch].tolist(),
                          strict=True))  # fmt: skip
        found = _chunk_ids(conn, list(scores), where, params)
        kept += [Hit(chunk_id, scores[number]) for number, chunk_id in found.items()]
        kept.sort(key=lambda h: (-h.score, h.chunk_id))
        start, size = start + size, size * 4
        if len(kept) >= k and (start >= len(order) or ranked[start] < kept[k - 1].score):
            break
    return kept[:k]


def _chunk_ids(
    conn: psycopg.Connection, nos: list[int], where: str, params: dict[str, object]
) -> dict[int, str]:
    """The chunk ids of the chunks numbered ``nos`` that ``where`` keeps."""
    if not nos:
        return {}
    rows = conn.execute(
        f"SELECT c.chunk_no, c.chunk_id FROM chunks c WHERE c.chunk_no = ANY(%(nos)s) AND {where}",
        {**params, "nos": nos},
    ).fetchall()
    return dict(rows)


def _in_scope(conn: psycopg.Connection, nos: np.ndarray, scope: _Scope) -> np.ndarray:
    if scope.ranges is not None:
        nos = nos[in_ranges(nos, scope.ranges)]
    if scope.rest is None or not len(nos):
        return nos
    where, params = filter_sql(scope.rest, "c")
    rows = conn.execute(
        f"SELECT c.chunk_no FROM chunks c WHERE c.chunk_no = ANY(%(nos)s) AND {where}",
        {**params, "nos": nos.tolist()},
    ).fetchall()
    return np.array([r[0] for r in rows], dtype=np.int64)
