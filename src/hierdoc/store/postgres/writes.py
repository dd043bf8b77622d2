"""Writes: one document's replacement, deletions and clearing, each one transaction.

The caller holds the store's writer lock (:mod:`.lock`), so one process writes at a
time while readers go on reading the last committed state (MVCC). The BM25 statistics
(``term_stats``, the ``state`` totals) move with the chunks in the same transaction,
and the ``state.generation`` counter is bumped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
import psycopg
from psycopg.types.json import Jsonb

from ...errors import StoreError
from ...models import DocumentRecord, Extraction, Section, StoredChunk, section_prefixes
from ...text.analyze import TextAnalyzer
from ...text.normalize import normalize_acronym, normalize_phrase, normalize_term
from ..section_spans import section_rows
from . import postings
from .lexical import LexicalRow, fieldnorm, lexical_row
from .names import insert_names

_SECTIONS = (
    "COPY sections (source, section_id, heading, level, parent_id, ordinal, kind, chunk_id, "
    "text, text_start, text_end) FROM STDIN"
)
_CHUNKS = (
    "COPY chunks (chunk_id, source, ordinal, section_id, heading, parent_chain, section_path, "
    "section_prefixes, chunk_type, content, context, token_count, overlap_chars, "
    "context_source, llm_context, context_truncated, length, norm, words, words_norm, "
    "page_start, page_end, sentences, chunk_no) FROM STDIN"
)


@dataclass(frozen=True)
class Written:
    """One document as :meth:`~hierdoc.store.base.Store.write_document` takes it."""

    record: DocumentRecord
    sections: Sequence[Section]
    chunks: Sequence[StoredChunk]
    vectors: Sequence[np.ndarray]
    extraction: Extraction = field(default_factory=Extraction)


def replace_document(
    conn: psycopg.Connection,
    analyzer: TextAnalyzer,
    document: DocumentRecord,
    sections: Sequence[Section],
    chunks: Sequence[StoredChunk],
    vectors: Sequence[np.ndarray],
    extraction: Extraction | None,
) -> None:
    """Everything of ``document.source`` replaced; call inside a transaction."""
    written = Written(document, sections, chunks, vectors, extraction or Extraction())
    write_batch(conn, analyzer, [written])
    bump(conn)


def write_batch(conn: psycopg.Connection, analyzer: TextAnalyzer, batch: Sequence[Written]) -> None:
    """Documents of distinct sources written, each replacing the stored one of its source,
    one COPY per table and the postings of the batch built at once."""
    stored = conn.execute(
        "SELECT source FROM documents WHERE source = ANY(%s)", ([w.record.source for w in batch],)
    ).fetchall()
    if stored:
        remove_sources(conn, [row[0] for row in stored])
    chunks = [s for w in batch for s in w.chunks]
    first = number_chunks(conn, len(chunks))
    _insert_documents(conn, batch, first)
    copy_rows(conn, _SECTIONS, chain.from_iterable(
        section_rows(w.record.source, w.sections, w.chunks) for w in batch))  # fmt: skip
    rows = [lexical_row(stored, analyzer) for stored in chunks]
    numbers = range(first, first + len(chunks))
    try:
        copy_rows(conn, _CHUNKS, map(chunk_row, chunks, rows, numbers))
    except psycopg.errors.UniqueViolation as error:
        where = batch[0].record.source if len(batch) == 1 else f"{len(batch)} documents"
        raise StoreError(f"cannot write {where}: {error.diag.message_detail}") from None
    insert_postings(conn, rows, numbers)
    insert_vectors(conn, ((s, v) for w in batch for s, v in zip(w.chunks, w.vectors, strict=False)))
    insert_extractions(conn, [w.extraction for w in batch])
    insert_names(conn, [w.record for w in batch])


def _insert_documents(conn: psycopg.Connection, batch: Sequence[Written], first: int) -> None:
    firsts = np.cumsum([first] + [len(w.chunks) for w in batch]).tolist()
    copy_rows(
        conn,
        "COPY documents (source, title, content_hash, format, chars, chunk_count, pages, "
        "metadata, first_no, last_no) FROM STDIN",
        ((w.record.source, w.record.title, w.record.content_hash, w.record.format,
          w.record.chars, len(w.chunks), w.record.pages, Jsonb(w.record.metadata), low,
          high - 1) for w, low, high in zip(batch, firsts, firsts[1:], strict=False)),
    )  # fmt: skip


def remove_sources(conn: psycopg.Connection, sources: Sequence[str]) -> None:
    """Delete documents with everything they own, and take their chunks out of the stats."""
    ranges = conn.execute(
        "SELECT first_no, last_no FROM documents WHERE source = ANY(%s) AND last_no >= first_no",
        (list(sources),),
    ).fetchall()
    held: Counter[int] = Counter()
    for (term_ids,) in conn.execute(
        "SELECT f.term_ids FROM forward f JOIN documents d "
        "ON f.chunk_no BETWEEN d.first_no AND d.last_no WHERE d.source = ANY(%s)",
        (list(sources),),
    ):
        held.update(np.frombuffer(term_ids, dtype="<i4").tolist())
    postings.drop_chunks(conn, ranges, list(held))
    conn.execute(
        "UPDATE term_stats s SET df = s.df - g.n FROM unnest(%s::int[], %s::int[]) "
        "AS g(term_id, n) WHERE s.term_id = g.term_id",
        (list(held), list(held.values())),
    )
    conn.execute("DELETE FROM term_stats WHERE term_id = ANY(%s) AND df <= 0", (list(held),))
    conn.execute(
        "UPDATE state SET chunks = state.chunks - g.n, tokens = state.tokens - g.t, "
        "words = state.words - g.w FROM (SELECT count(*) AS n, coalesce(sum(length), 0) AS t, "
        "coalesce(sum(cardinality(words)), 0) AS w FROM chunks WHERE source = ANY(%s)) g",
        (list(sources),),
    )
    conn.execute("DELETE FROM documents WHERE source = ANY(%s)", (list(sources),))


def clear_all(conn: psycopg.Connection) -> None:
    """Every document gone (DELETE, not TRUNCATE: readers are not locked out)."""
    for table in ("postings", "forward", "documents", "term_stats"):
        conn.execute(f"DELETE FROM {table}")
    conn.execute("UPDATE state SET chunks = 0, tokens = 0, words = 0")
    bump(conn)


def number_chunks(conn: psycopg.Connection, count: int) -> int:
    """The first of ``count`` consecutive chunk numbers, taken."""
    row = conn.execute(
        "UPDATE state SET next_no = next_no + %s RETURNING next_no - %s", (count, count)
    ).fetchone()
    assert row is not None
    return int(row[0])


def bump(conn: psycopg.Connection) -> None:
    conn.execute("UPDATE state SET generation = generation + 1")


def chunk_row(stored: StoredChunk, row: LexicalRow, number: int) -> tuple:
    """The values of one chunk's row, in the columns of :data:`_CHUNKS`."""
    c = stored.chunk
    return (c.chunk_id, c.source, c.ordinal, c.section_id, c.heading,
            text_array(c.parent_chain), text_array(c.section_path),
            text_array(section_prefixes(c.section_path)), c.chunk_type, c.content,
            stored.context, c.token_count, c.overlap_chars, stored.context_source,
            stored.llm_context, stored.context_truncated, row.length, fieldnorm(row.length),
            text_array(row.words), fieldnorm(len(row.words)), c.page_start, c.page_end,
            None if c.sentences is None else list(c.sentences), number)  # fmt: skip


def text_array(values: Sequence[str]) -> str:
    """A ``text[]`` literal of ``values``, every element quoted (far quicker to COPY than a
    list adapted element by element)."""
    if not values:
        return "{}"
    plain = "".join(values)
    if "\\" in plain or '"' in plain:
        values = [v.replace("\\", "\\\\").replace('"', '\\"') for v in values]
    return '{"' + '","'.join(values) + '"}'


def copy_rows(conn: psycopg.Connection, statement: str, rows: Iterable[Sequence]) -> None:
    """``rows`` through one text COPY ``statement``."""
    with conn.cursor().copy(statement) as copy:
        for row in rows:
            copy.write_row(row)


def insert_postings(
    conn: psycopg.Connection, rows: Sequence[LexicalRow], numbers: Sequence[int]
) -> None:
    """The postings, forward rows and statistics of chunks already stored as ``numbers``."""
    flat = _Flat.of(rows, numbers)
    if len(flat.terms):
        ids, small = _count_terms(conn, flat)
        term_ids = ids[flat.term_of]
        _insert_forward(conn, flat, term_ids)
        postings.copy_postings(conn, postings.posting_rows(term_ids, flat.nos, flat.tfs,
                                                           flat.norms))  # fmt: skip
        postings.merge_small(conn, ids[small > postings.MERGE_AT].tolist())
    conn.execute(
        "UPDATE state SET chunks = chunks + %s, tokens = tokens + %s, words = words + %s",
        (len(rows), sum(r.length for r in rows), sum(len(r.words) for r in rows)),
    )


@dataclass(frozen=True)
class _Flat:
    """The postings of some chunks as aligned arrays, chunk by chunk: the index of the
    term in ``terms``, the chunk number, the frequency and the chunk's scored length."""

    terms: list[str]
    term_of: np.ndarray
    nos: np.ndarray
    tfs: np.ndarray
    norms: np.ndarray
    sizes: list[int]
    """Postings per chunk, in order."""

    @classmethod
    def of(cls, rows: Sequence[LexicalRow], numbers: Sequence[int]) -> _Flat:
        every = list(chain.from_iterable(row.terms for row in rows))
        index = {term: i for i, term in enumerate(dict.fromkeys(every))}
        term_of = list(map(index.__getitem__, every))
        tfs = list(chain.from_iterable(row.terms.values() for row in rows))
        sizes = [len(row.terms) for row in rows]
        nos = np.repeat(np.asarray(numbers, dtype=np.int64), sizes)
        norms = np.repeat([fieldnorm(row.length) for row in rows], sizes).astype(np.int64)
        return cls(list(index), np.array(term_of, np.int64), nos, np.array(tfs, np.int64),
                   norms, sizes)  # fmt: skip


def _count_terms(conn: psycopg.Connection, flat: _Flat) -> tuple[np.ndarray, np.ndarray]:
    """Add the postings' counts and bounds to ``term_stats`` (new terms get a number): per
    term of ``flat.terms`` its number and its rows of fewer than a block, these counted."""
    count = len(flat.terms)
    df = np.bincount(flat.term_of, minlength=count)
    max_tf = np.zeros(count, np.int64)
    np.maximum.at(max_tf, flat.term_of, flat.tfs)
    min_norm = np.full(count, np.iinfo(np.int32).max, np.int64)
    np.minimum.at(min_norm, flat.term_of, flat.norms)
    small = (df % postings.BLOCK > 0).astype(np.int64)
    terms = "\n".join(flat.terms)  # a term holds no whitespace
    conn.execute(
        "INSERT INTO term_stats (term, df, max_tf, min_norm, small_rows) "
        "SELECT t, 0, 0, 2147483647, 0 FROM unnest(string_to_array(%s, E'\\n')) AS t "
        "WHERE NOT EXISTS (SELECT 1 FROM term_stats s WHERE s.term = t)",
        (terms,),
    )
    found = conn.execute(
        "UPDATE term_stats s SET df = s.df + u.df, max_tf = greatest(s.max_tf, u.max_tf), "
        "min_norm = least(s.min_norm, u.min_norm), small_rows = s.small_rows + u.small "
        "FROM unnest(string_to_array(%s, E'\\n'), %s::int[], %s::int[], %s::int[], %s::int[]) "
        "AS u(term, df, max_tf, min_norm, small) WHERE s.term = u.term "
        "RETURNING s.term, s.term_id, s.small_rows",
        (terms, *(postings.int_array(a) for a in (df, max_tf, min_norm, small))),
    ).fetchall()
    at = {term: i for i, term in enumerate(flat.terms)}
    ids, rows = np.zeros(count, np.int64), np.zeros(count, np.int64)
    for term, term_id, small_rows in found:
        ids[at[term]], rows[at[term]] = term_id, small_rows
    return ids, rows


def _insert_forward(conn: psycopg.Connection, flat: _Flat, term_ids: np.ndarray) -> None:
    ids, tfs = term_ids.astype("<i4"), postings.narrow(flat.tfs)
    ends = np.cumsum(flat.sizes).tolist()
    with conn.cursor().copy(
        "COPY forward (chunk_no, term_ids, tfs) FROM STDIN WITH (FORMAT BINARY)"
    ) as copy:
        copy.set_types(["int4", "bytea", "bytea"])
        for start, end in zip([0, *ends[:-1]], ends, strict=True):
            if end > start:
                copy.write_row((int(flat.nos[start]), ids[start:end].tobytes(),
                                tfs[start:end].tobytes()))  # fmt: skip


def insert_vectors(
    conn: psycopg.Connection, pairs: Iterable[tuple[StoredChunk, np.ndarray]]
) -> None:
    """Each chunk's window vectors, one row a window."""
    with conn.cursor().copy(
        "COPY vectors (chunk_id, window_no, embedding) FROM STDIN WITH (FORMAT BINARY)"
    ) as copy:
        copy.set_types(["text", "int4", "vector"])
        for stored, matrix in pairs:
            for window, row in enumerate(np.atleast_2d(matrix)):
                copy.write_row((stored.chunk.chunk_id, window, row.astype(np.float32)))


def insert_extractions(conn: psycopg.Connection, extractions: Sequence[Extraction]) -> None:
    """The definitions, acronyms, cross-references and chunk terms of ``extractions``."""
    copy_rows(
        conn,
        "COPY definitions (source, term, term_norm, definition, section_id, chunk_id, style) "
        "FROM STDIN",
        ((d.source, d.term, normalize_term(d.term), d.definition, d.section_id, d.chunk_id,
          d.style) for e in extractions for d in e.definitions),
    )  # fmt: skip
    copy_rows(
        conn,
        "COPY acronyms (source, acronym, long_form, chunk_id, acronym_norm, long_form_norm) "
        "FROM STDIN",
        ((a.source, a.acronym, a.long_form, a.chunk_id, normalize_acronym(a.acronym),
          normalize_phrase(a.long_form)) for e in extractions for a in e.acronyms),
    )  # fmt: skip
    copy_rows(
        conn,
        "COPY crossrefs (source, chunk_id, section_id, text, target_section_id, "
        "target_source, external) FROM STDIN",
        ((r.source, r.chunk_id, r.section_id, r.text, r.target_section_id, r.target_source,
          r.external) for e in extractions for r in e.references),
    )  # fmt: skip
    copy_rows(
        conn,
        "COPY chunk_terms (chunk_id, term_norm) FROM STDIN",
        (pair for e in extractions for pair in e.chunk_terms),
    )
