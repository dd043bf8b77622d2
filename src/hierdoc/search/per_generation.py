"""Corpus-wide values a process reads once per store and index generation.

A reader keeps a few lists that grow with the corpus (every document's source, the
document records a metadata filter looks at, the chunk total): each is read on first use
and again only after a writer has changed the index (its generation moved on).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

from ..store.base import Store

T = TypeVar("T")


class PerGeneration(Generic[T]):
    """``read(store)``, kept per store until the store's generation changes."""

    def __init__(self, read: Callable[[Store], T]) -> None:
        self._read = read
        self._known: weakref.WeakKeyDictionary[Store, tuple[int, T]] = weakref.WeakKeyDictionary()

    def __call__(self, store: Store) -> T:
        generation = store.generation
        known = self._known.get(store)
        if known is None or known[0] != generation:
            known = (generation, self._read(store))
            self._known[store] = known
        return known[1]
