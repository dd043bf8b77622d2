"""A persistent BM25 index on tantivy, derived from (and rebuildable from) the record store.

Entries arrive already analysed (by the store's :class:`~hierdoc.store.base.TextAnalyzer`)
and are handed to tantivy as space-joined terms that its ``whitespace`` tokenizer
splits back.  That keeps one analyzer for indexing, querying and the other
modalities, and keeps identifiers such as ``403(b)(2)`` intact.  Queries are built
directly from term queries, never through tantivy's query parser, so no user input
("401(k)", ``"``, ``:``) can be a syntax error.

Fields: ``chunk_id`` (stored), ``source``, ``chunk_type`` and ``section_path``
(raw, for deletes and filters; a section filter ``p`` is the regular expression
``p(-.*)?`` over the section path elements, which is :meth:`SearchFilter.matches`; an
index built when each element was stored with its "-"-prefixes answers it the same),
``body`` (BM25 terms, frequencies only) and ``words`` (unstemmed words with
positions, for exact phrases).

Consistency: :meth:`Bm25Index.commit` commits tantivy first and then atomically
replaces a small JSON state file with the generation; :meth:`Bm25Index.reset`
removes that file at once.  A crash anywhere in between leaves ``generation`` at
an old value or ``None``, so the caller (who commits the record store first)
sees a mismatch and rebuilds.  The state also records the schema and analyzer
versions: an index built by another version reports ``generation is None``.

Only the holder of the index's writer lock writes the directory; it releases
tantivy's own writer lock (:meth:`Bm25Index.release_writer`) with it.  A reader
opens the directory ``read_only`` (nothing is created or written), or builds a
private index in memory (``directory=None``) when the one on disk lags.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tantivy
from tantivy import Occur, Query

from ...errors import StoreError
from ...faults import crash_point
from ...models import Hit, SearchFilter
from .check import BM25_STATE_FILE, bm25_checksums, bm25_damage

__all__ = ["Bm25Entry", "Bm25Index", "Bm25IndexError"]

SCHEMA_VERSION = 2
STATE_FILE = BM25_STATE_FILE
WRITER_HEAP_BYTES = 50_000_000


class Bm25IndexError(StoreError):
    """The index directory cannot be used (corrupt, incompatible, or closed)."""


@dataclass(frozen=True)
class Bm25Entry:
    chunk_id: str
    source: str  # document key, used for delete-by-document and filters
    terms: list[str]  # the analysed text to rank on (context + chunk)
    words: list[str]  # the analysed words of the chunk text, for phrases
    chunk_type: str = "content"
    section_path: tuple[str, ...] = ()  # ancestor section ids plus own id


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("chunk_id", stored=True, tokenizer_name="raw", index_option="basic")
    for name in ("source", "chunk_type", "section_path"):
        builder.add_text_field(name, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("body", tokenizer_name="whitespace", index_option="freq")
    builder.add_text_field("words", tokenizer_name="whitespace", index_option="position")
    return builder.build()


class Bm25Index:
    """A tantivy index in ``directory``; writes are serialised, reads are concurrent."""

    def __init__(
        self, directory: Path | None, analyzer_version: int, read_only: bool = False
    ) -> None:
        self.directory = None if directory is None else Path(directory)
        self._analyzer_version = analyzer_version
        self._read_only = read_only
        self._schema = _schema()
        self._lock = threading.RLock()
        self._writer: tantivy.IndexWriter | None = None
        self._generation: int | None = None
        if self.directory is None:
            self._index: tantivy.Index | None = tantivy.Index(self._schema)
            return
        if not read_only:
            self.directory.mkdir(parents=True, exist_ok=True)
        self._index = self._open(self.directory)
        self._generation = self._read_generation()

    @property
    def in_memory(self) -> bool:
        return self.directory is None

    @property
    def writable(self) -> bool:
        """An index on disk opened for writing."""
        return self.directory is not None and not self._read_only

    def _open(self, directory: Path) -> tantivy.Index:
        path = str(directory)
        if self._read_only and not tantivy.Index.exists(path):
            raise Bm25IndexError(f"no BM25 index at {path}")
        try:
            if not tantivy.Index.exists(path):  # a state file without an index is stale
                (directory / STATE_FILE).unlink(missing_ok=True)
            elif not tantivy.Index.is_compatible(path):
                raise Bm25IndexError(f"{path}: built by an incompatible tantivy version")
            index = tantivy.Index(self._schema, path=path, reuse=True)
        except BaseException as exc:  # a damaged file can make tantivy panic
            if not isinstance(exc, (OSError, ValueError)) and not _is_panic(exc):
                raise
            raise Bm25IndexError(
                f"cannot open the BM25 index at {path} ({_first_line(exc)}); "
                "delete the directory to rebuild"
            ) from exc
        index.reload()
        return index

    # -- state -----------------------------------------------------------------

    @property
    def generation(self) -> int | None:
        """The generation of the last commit; None if none, or built by another version."""
        return self._generation

    def refresh(self) -> None:
        """See commits made by another process (a running server after ``hierdoc ingest``)."""
        if self.directory is None:
            return
        generation = self._read_generation()  # read first: the reloaded data is as new or newer
        self._live_index().reload()
        self._generation = generation

    def _read_generation(self) -> int | None:
        if self.directory is None:
            return self._generation
        try:
            state = json.loads((self.directory / STATE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(state, dict):
            return None
        if state.get("schema") != SCHEMA_VERSION or state.get("analyzer") != self._analyzer_version:
            return None
        generation = state.get("generation")
        return generation if isinstance(generation, int) else None

    def _write_state(self, generation: int) -> None:
        if self.directory is None:
            return
        state = {
            "generation": generation,
            "schema": SCHEMA_VERSION,
            "analyzer": self._analyzer_version,
            "files": bm25_checksums(self.directory, self._recorded_files()),
        }
        tmp = self.directory / f"{STATE_FILE}.tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(state, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.directory / STATE_FILE)

    def _recorded_files(self) -> Any:
        """The file checksums the last commit recorded (None when unreadable)."""
        if self.directory is None:
            return None
        try:
            state = json.loads((self.directory / STATE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return state.get("files") if isinstance(state, dict) else None

    # -- writes ----------------------------------------------------------------

    def _live_index(self) -> tantivy.Index:
        index = self._index
        if index is None:
            raise Bm25IndexError("the BM25 index is closed")
        return index

    def _get_writer(self) -> tantivy.IndexWriter:
        if self._read_only:
            raise Bm25IndexError("this BM25 index is open for reading only")
        if self._writer is None:
            try:
                self._writer = self._live_index().writer(WRITER_HEAP_BYTES)
            except ValueError as exc:  # e.g. another process holds the writer lock
                raise Bm25IndexError(f"cannot write the BM25 index: {exc}") from exc
        return self._writer

    def add(self, entries: Iterable[Bm25Entry]) -> None:
        """Queue entries for indexing; visible after :meth:`commit`."""
        with self._lock:
            writer = self._get_writer()
            for entry in entries:
                writer.add_document(_document(entry))

    def delete_source(self, source: str) -> None:
        """Queue the deletion of every chunk of one document."""
        with self._lock:
            self._get_writer().delete_documents_by_term("source", source)

    def reset(self) -> None:
        """Queue the deletion of everything; readers see the old data until commit."""
        with self._lock:
            if self.directory is not None:
                (self.directory / STATE_FILE).unlink(missing_ok=True)
            self._generation = None
            self._get_writer().delete_all_documents()

    def commit(self, generation: int) -> None:
        """Make pending changes durable and visible, then record ``generation``."""
        with self._lock:
            index = self._live_index()
            if self._writer is not None:
                self._writer.commit()
                crash_point("bm25-state-pending")
                if self.directory is not None:  # merges done, so the checksummed files stay
                    self._writer.wait_merging_threads()
                    self._writer = None
            index.reload()
            self._write_state(generation)
            self._generation = generation

    def release_writer(self) -> None:
        """Give tantivy's writer lock back (discarding uncommitted changes)."""
        with self._lock:
            if self._writer is not None:
                self._writer.rollback()
                self._writer.wait_merging_threads()
                self._writer = None

    def close(self) -> None:
        """Release the writer (discarding uncommitted changes) and the index."""
        with self._lock:
            self.release_writer()
            self._index = None

    def damage(self) -> str | None:
        """Why the files on disk differ from those committed (see :mod:`.check`), or None."""
        if self.directory is None:
            return None
        return bm25_damage(self.directory, self._recorded_files())

    # -- reads -----------------------------------------------------------------

    def stored_chunk_ids(self) -> list[str]:
        """The chunk id of every document, read from the doc store (so reading every block)."""
        searcher = self._live_index().searcher()
        if not searcher.num_docs:
            return []
        hits = searcher.search(Query.all_query(), limit=searcher.num_docs, count=False).hits
        return [searcher.doc(address).get_first("chunk_id") for _, address in hits]

    def count(self) -> int:
        return self._live_index().searcher().num_docs

    def doc_freq(
        self, terms: list[str], without: Sequence[str] = (), filt: SearchFilter | None = None
    ) -> dict[str, int]:
        """How many documents hold each term (those of the sources ``without`` left out;
        only those ``filt`` matches, when given)."""
        searcher = self._live_index().searcher()
        filtered = filt is not None and not filt.empty
        if not without and not filtered:
            return {term: searcher.doc_freq("body", term) for term in terms}
        found = {}
        for term in terms:
            query = self._without(Query.term_query(self._schema, "body", term), without)
            if filtered:
                query = Query.boolean_query(
                    [(Occur.Must, query), (Occur.Must, self._filter_query(filt))]
                )
            found[term] = searcher.search(query, limit=1, count=True).count
        return found

    def search(
        self,
        terms: list[str],
        k: int,
        filt: SearchFilter | None = None,
        without: Sequence[str] = (),
    ) -> list[Hit]:
        """BM25-ranked chunks holding any of ``terms``, best first (none of the sources
        ``without``)."""
        if k <= 0 or not terms:
            return []
        clauses = [(Occur.Should, Query.term_query(self._schema, "body", t)) for t in terms]
        query = self._without(Query.boolean_query(clauses), without)
        return self._run(self._live_index().searcher(), query, k, filt)

    def phrase_search(
        self,
        words: list[str],
        k: int,
        filt: SearchFilter | None = None,
        without: Sequence[str] = (),
    ) -> list[Hit]:
        """Chunks containing ``words`` consecutively (unstemmed; none of the sources
        ``without``)."""
        if k <= 0 or not words:
            return []
        if len(words) == 1:
            query = Query.term_query(self._schema, "words", words[0])
        else:
            query = Query.phrase_query(self._schema, "words", words)
        return self._run(self._live_index().searcher(), self._without(query, without), k, filt)

    def _without(self, query: Query, sources: Sequence[str]) -> Query:
        if not sources:
            return query
        excluded = Query.term_set_query(self._schema, "source", list(sources))
        return Query.boolean_query([(Occur.Must, query), (Occur.MustNot, excluded)])

    def _run(
        self, searcher: tantivy.Searcher, query: Query, k: int, filt: SearchFilter | None
    ) -> list[Hit]:
        if filt is not None and not filt.empty:
            query = Query.boolean_query(
                [(Occur.Must, query), (Occur.Must, self._filter_query(filt))]
            )
        hits = _without_cut_ties(searcher, query, k)
        found = [(score, searcher.doc(addr).get_first("chunk_id")) for score, addr in hits]
        found.sort(key=lambda hit: (-hit[0], hit[1]))
        return [Hit(chunk_id, score) for score, chunk_id in found[:k]]

    def _filter_query(self, filt: SearchFilter) -> Query:
        """All the filter's conditions, scoring zero so that scores stay pure BM25."""
        conditions: list[tuple[Occur, Query]] = []
        for field, values in (("source", filt.sources), ("chunk_type", filt.chunk_types)):
            if values:
                conditions.append(
                    (Occur.Must, Query.term_set_query(self._schema, field, list(values)))
                )
        if filt.section_prefix:
            pattern = _regex_literal(filt.section_prefix) + "(-.*)?"
            under = Query.regex_query(self._schema, "section_path", pattern)
            conditions.append((Occur.Must, under))
        return Query.const_score_query(Query.boolean_query(conditions), 0.0)


def _document(entry: Bm25Entry) -> tantivy.Document:
    return tantivy.Document(
        chunk_id=entry.chunk_id,
        source=entry.source,
        chunk_type=entry.chunk_type,
        section_path=list(entry.section_path),
        body=" ".join(entry.terms),
        words=" ".join(entry.words),
    )


def _regex_literal(text: str) -> str:
    """``text`` matched literally by tantivy's regular expressions (Rust ``regex`` syntax)."""
    return "".join("\\" + char if char in _REGEX_META else char for char in text)


_REGEX_META = frozenset("\\.+*?()|[]{}^$#&-~")


#: How much wider a search goes when the k-th hit's score is tied beyond its limit (each
#: search scores every matching document again, so few wide steps beat many narrow ones).
TIE_GROWTH = 8


def _without_cut_ties(searcher: tantivy.Searcher, query: Query, k: int) -> list:
    """The top ``k`` hits and every hit tied with the k-th, so that equal scores can be
    ordered by chunk id: tantivy orders ties by where a document landed in its segments,
    which differs from one build of the same corpus to the next. Hits below the k-th
    score are left out (their chunk ids would be read for nothing)."""
    limit = k
    while True:
        hits = searcher.search(query, limit=limit, count=False).hits
        if len(hits) < limit or hits[-1][0] < hits[k - 1][0]:
            floor = hits[k - 1][0] if len(hits) >= k else float("-inf")
            return [hit for hit in hits if hit[0] >= floor]
        limit *= TIE_GROWTH


def _is_panic(error: BaseException) -> bool:
    """A panic in tantivy's Rust code (pyo3's ``PanicException``, a ``BaseException``), as
    a damaged file can cause: for the index, a damaged file like any other."""
    return type(error).__name__ == "PanicException"


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
