"""The BM25 index on disk with the documents SQLite has committed since it was last
committed: what a reader searches while an ingest runs elsewhere.

A writer commits the BM25 index every few documents (``FLUSH_EVERY``), each document's
records at once. In between, a reader searches the disk index for every document
*except* those changed since its generation (:mod:`.changes`), and a small index it
builds in memory from SQLite for exactly those documents' current chunks: a document
written, replaced or deleted by a committed transaction is seen as SQLite holds it.
The two are merged by score; the in-memory part ranks with statistics of its own few
documents, so during an ingest a new document's scores are near, not equal to, what
they are once the writer has committed them to disk.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from ...models import Hit, SearchFilter
from .bm25 import Bm25Index


class TailedBm25:
    """A BM25 index on disk at an older generation plus, in memory, the documents changed
    since then (``tail``, built from the records at ``generation``)."""

    def __init__(self, base: Bm25Index, tail: Bm25Index, changed: set[str], generation: int):
        self.base = base
        self._tail = tail
        self._changed = sorted(changed)
        self._generation = generation

    in_memory = False
    writable = False
    directory = None

    @property
    def generation(self) -> int:
        return self._generation

    def count(self) -> int:
        return self.base.count() + self._tail.count()

    def damage(self) -> str | None:
        return self.base.damage()

    def doc_freq(self, terms: list[str], filt: SearchFilter | None = None) -> dict[str, int]:
        found = self.base.doc_freq(terms, without=self._changed, filt=filt)
        more = self._tail.doc_freq(terms, filt=filt)
        return {term: found[term] + more[term] for term in terms}

    def search(self, terms: list[str], k: int, filt: SearchFilter | None = None) -> list[Hit]:
        disk = self.base.search(terms, k, filt, without=self._changed)
        return _best(disk, self._tail.search(terms, k, filt), k)

    def phrase_search(
        self, words: list[str], k: int, filt: SearchFilter | None = None
    ) -> list[Hit]:
        disk = self.base.phrase_search(words, k, filt, without=self._changed)
        return _best(disk, self._tail.phrase_search(words, k, filt), k)

    def release_writer(self) -> None:
        """Nothing to release: a reader's copy."""

    def close(self) -> None:
        self._tail.close()
        self.base.close()


def _best(first: Sequence[Hit], second: Sequence[Hit], k: int) -> list[Hit]:
    """The ``k`` best of two hit lists, ties by chunk id (as each list is ordered)."""
    merged = heapq.merge(first, second, key=lambda hit: (-hit.score, hit.chunk_id))
    return list(merged)[:k]
