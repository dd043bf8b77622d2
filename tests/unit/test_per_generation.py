"""Corpus-wide values are read once per store and index generation."""

from __future__ import annotations

from hierdoc.search.per_generation import PerGeneration


class _Store:
    def __init__(self) -> None:
        self.generation = 1


def test_read_once_per_store_and_generation() -> None:
    reads: list[int] = []

    def read(store: _Store) -> int:
        reads.append(store.generation)
        return store.generation * 10

    cached = PerGeneration(read)
    first, second = _Store(), _Store()
    assert [cached(first), cached(first), cached(second)] == [10, 10, 10]
    first.generation = 2
    assert [cached(first), cached(first), cached(second)] == [20, 20, 10]
    assert reads == [1, 1, 2]
