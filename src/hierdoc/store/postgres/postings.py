"""The BM25 postings as packed arrays: what a keyword search reads in a few rows per term.

Each chunk has a number (``chunks.chunk_no``; a document's chunks are consecutive,
``documents.first_no``..``last_no``). Each term has a number (``term_stats.term_id``),
its chunk count ``df``, the largest frequency it has in a chunk and the smallest length
of a chunk holding it (``max_tf``, ``min_norm``: they bound its BM25 weight).

- ``postings(term_id, first_no, last_no, n, nos, tfs, norms)``: ``n`` postings of one
  term, as little-endian arrays in ``bytea``: the chunk numbers (int32), the frequencies
  and the chunks' lengths as indexes into :data:`NORMS` (the smallest unsigned type that
  holds them: :func:`pack`). A write adds one row per term of the document; once a term
  has more than :data:`MERGE_AT` rows of fewer than :data:`BLOCK` postings, they are
  merged into blocks of :data:`BLOCK`, so a term's postings come in a few rows.
- ``forward(chunk_no, term_ids, tfs)``: per chunk its terms and frequencies, for scoring
  a few chunks on terms whose postings are not read, and for deleting a chunk's postings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import psycopg

BLOCK = 1024
"""Postings per merged row (the ``postings_small`` index holds the rows with fewer)."""
MERGE_AT = 16
"""Rows of fewer than :data:`BLOCK` postings a term may have before they are merged."""


def _fieldnorms() -> np.ndarray:
    """Every value :func:`.lexical.fieldnorm` takes: exact below 32, then 3 significant bits."""
    shifted = {24 + (m << s) for s in range(28) for m in range(8, 16)}
    return np.array(sorted(set(range(32)) | shifted), dtype=np.int64)


NORMS = _fieldnorms()
"""The chunk lengths as scored, indexed by the one-byte ids the postings store."""


def norm_ids(norms: np.ndarray) -> np.ndarray:
    return np.searchsorted(NORMS, norms).astype(np.uint8)


def narrow(values: np.ndarray) -> np.ndarray:
    """Non-negative integers in the smallest little-endian unsigned type holding them."""
    top = int(values.max()) if len(values) else 0
    return values.astype("<u1" if top < 1 << 8 else "<u2" if top < 1 << 16 else "<u4")


def pack(values: np.ndarray) -> bytes:
    return narrow(values).tobytes()


def unpack(data: bytes, count: int) -> np.ndarray:
    """What :func:`pack` made of ``count`` integers."""
    size = len(data) // count if count else 1
    return np.frombuffer(data, dtype=f"<u{size}").astype(np.int64)


@dataclass(frozen=True)
class TermPostings:
    """One term's postings: chunk numbers, frequencies and scored lengths, aligned."""

    nos: np.ndarray
    tfs: np.ndarray
    norms: np.ndarray

    @classmethod
    def of_rows(cls, rows: Sequence[tuple[bytes, bytes, bytes, int]]) -> TermPostings:
        if not rows:
            return cls(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
        counts = [r[3] for r in rows]
        nos = np.frombuffer(b"".join(r[0] for r in rows), dtype="<i4")
        return cls(nos, _joined([r[1] for r in rows], counts),
                   NORMS[_joined([r[2] for r in rows], counts)])  # fmt: skip

    def where(self, keep: np.ndarray) -> TermPostings:
        return TermPostings(self.nos[keep], self.tfs[keep], self.norms[keep])


def _joined(parts: Sequence[bytes], counts: Sequence[int]) -> np.ndarray:
    """What :func:`pack` made of each part's ``count`` integers, in one array (decoded at
    once when the parts share a width, as a term's parts mostly do)."""
    widths = {len(data) // count for data, count in zip(parts, counts, strict=True) if count}
    if not widths:
        return np.zeros(0, np.int64)
    if len(widths) == 1:
        return np.frombuffer(b"".join(parts), dtype=f"<u{widths.pop()}")
    return np.concatenate([unpack(data, count) for data, count in zip(parts, counts, strict=True)])


def read_postings(conn: psycopg.Connection, term_ids: Iterable[int]) -> dict[int, TermPostings]:
    """The postings of each term, in one round trip."""
    ids = list(term_ids)
    rows = conn.execute(
        "SELECT term_id, nos, tfs, norms, n FROM postings WHERE term_id = ANY(%s)",
        (ids,),
        binary=True,
    ).fetchall()
    grouped: dict[int, list[tuple[bytes, bytes, bytes, int]]] = {t: [] for t in ids}
    for term_id, *row in rows:
        grouped[term_id].append(tuple(row))
    return {t: TermPostings.of_rows(found) for t, found in grouped.items()}


def int_array(values: np.ndarray) -> str:
    """An int[] literal (far quicker to send than a list adapted element by element)."""
    return "{" + ",".join(map(str, values.tolist())) + "}"


@dataclass(frozen=True)
class ForwardRows:
    """Forward rows laid end to end: per row its chunk number and term count, then per
    (chunk, term) pair the term id and frequency."""

    chunk_nos: np.ndarray
    counts: np.ndarray
    term_ids: np.ndarray
    tfs: np.ndarray


def read_forward(conn: psycopg.Connection, nos: np.ndarray) -> ForwardRows:
    """The forward rows of the chunks numbered ``nos``."""
    rows = conn.execute(
        "SELECT chunk_no, term_ids, tfs FROM forward WHERE chunk_no = ANY(%s::int[])",
        (int_array(nos),),
        binary=True,
    ).fetchall()
    counts = [len(r[1]) // 4 for r in rows]
    return ForwardRows(
        np.array([r[0] for r in rows], np.int64),
        np.array(counts, np.int64),
        np.frombuffer(b"".join(r[1] for r in rows), dtype="<i4"),
        _joined([r[2] for r in rows], counts),
    )


def rows_of(found: dict[int, TermPostings]) -> Iterator[tuple]:
    """Postings rows of each term's postings: by chunk number, at most :data:`BLOCK` a row."""
    if not found:
        return
    terms = np.repeat(
        np.fromiter(found, np.int64, len(found)), [len(p.nos) for p in found.values()]
    )
    nos, tfs, norms = (
        np.concatenate(c)
        for c in zip(*((p.nos, p.tfs, p.norms) for p in found.values()), strict=True)
    )
    yield from posting_rows(terms, nos, tfs, norms)


def posting_rows(
    terms: np.ndarray, nos: np.ndarray, tfs: np.ndarray, norms: np.ndarray
) -> Iterator[tuple]:
    """Postings rows of aligned arrays (term id, chunk number, frequency, scored length)."""
    order = np.lexsort((nos, terms))
    terms, nos = terms[order], nos[order].astype("<i4")
    tfs, ids = narrow(tfs[order]), norm_ids(norms[order])
    starts = np.flatnonzero(np.r_[True, terms[1:] != terms[:-1]])
    for start, end in zip(starts.tolist(), [*starts[1:].tolist(), len(terms)], strict=True):
        for s in range(start, end, BLOCK):
            e = min(s + BLOCK, end)
            yield (int(terms[s]), int(nos[s]), int(nos[e - 1]), e - s, nos[s:e].tobytes(),
                   tfs[s:e].tobytes(), ids[s:e].tobytes())  # fmt: skip


def copy_postings(conn: psycopg.Connection, rows: Iterable[tuple]) -> None:
    with conn.cursor().copy(
        "COPY postings (term_id, first_no, last_no, n, nos, tfs, norms) FROM STDIN "
        "WITH (FORMAT BINARY)"
    ) as copy:
        copy.set_types(["int4", "int4", "int4", "int4", "bytea", "bytea", "bytea"])
        for row in rows:
            copy.write_row(row)


def small_rows(count: int) -> int:
    """How many of the rows :func:`posting_rows` makes of ``count`` postings are not full."""
    return 1 if count % BLOCK else 0


def merge_small(conn: psycopg.Connection, term_ids: Sequence[int]) -> None:
    """Merge each term's rows of fewer than :data:`BLOCK` postings into full blocks."""
    if not term_ids:
        return
    rows = conn.execute(
        f"DELETE FROM postings WHERE term_id = ANY(%s) AND n < {BLOCK} "  # postings_small
        "RETURNING term_id, nos, tfs, norms, n",
        (list(term_ids),),
    ).fetchall()
    grouped: dict[int, list[tuple[bytes, bytes, bytes, int]]] = {}
    for term_id, *row in rows:
        grouped.setdefault(term_id, []).append(tuple(row))
    merged = {t: TermPostings.of_rows(found) for t, found in grouped.items()}
    copy_postings(conn, rows_of(merged))
    conn.execute(
        "UPDATE term_stats s SET small_rows = m.small FROM unnest(%s::int[], %s::int[]) "
        "AS m(term_id, small) WHERE s.term_id = m.term_id",
        (list(merged), [small_rows(len(p.nos)) for p in merged.values()]),
    )


def drop_chunks(
    conn: psycopg.Connection, ranges: Sequence[tuple[int, int]], term_ids: Sequence[int]
) -> None:
    """Take the chunks numbered in ``ranges`` (inclusive) out of the postings of
    ``term_ids`` (the terms they hold), and their forward rows."""
    if not ranges:
        return
    low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
    rows = conn.execute(
        "DELETE FROM postings WHERE term_id = ANY(%s) AND last_no >= %s AND first_no <= %s "
        "RETURNING term_id, nos, tfs, norms, n",
        (list(term_ids), low, high),
    ).fetchall()
    kept: list[tuple] = []
    small: Counter[int] = Counter()
    for term_id, *row in rows:
        postings = TermPostings.of_rows([tuple(row)])
        postings = postings.where(~in_ranges(postings.nos, ranges))
        small[term_id] += int(0 < len(postings.nos) < BLOCK) - int(row[3] < BLOCK)
        kept += rows_of({term_id: postings})
    conn.execute(
        "UPDATE term_stats s SET small_rows = s.small_rows + m.small FROM "
        "unnest(%s::int[], %s::int[]) AS m(term_id, small) WHERE s.term_id = m.term_id",
        (list(small), list(small.values())),
    )
    copy_postings(conn, kept)
    for first, last in ranges:
        conn.execute("DELETE FROM forward WHERE chunk_no BETWEEN %s AND %s", (first, last))


def in_ranges(nos: np.ndarray, ranges: Sequence[tuple[int, int]]) -> np.ndarray:
    """Which of ``nos`` lie in one of ``ranges`` (inclusive, not overlapping)."""
    if not ranges:
        return np.zeros(len(nos), dtype=bool)
    ordered = sorted(ranges)
    firsts = np.array([r[0] for r in ordered])
    lasts = np.array([r[1] for r in ordered])
    at = np.searchsorted(firsts, nos, side="right") - 1
    return (at >= 0) & (nos <= lasts[np.maximum(at, 0)])
