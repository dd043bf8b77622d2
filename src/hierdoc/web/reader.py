"""What the web pages read from an index, beyond single API calls: the lookups a page
needs again and again (definitions by document, the term finder, outlines, glossary
entries), computed once per index generation."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar
from urllib.parse import quote_plus

from ..api import Index
from ..models import Definition, DocumentRecord
from ..views import DefinitionLookup, Outline, OutlineNode
from .marking import TermFinder

T = TypeVar("T")


@lru_cache(maxsize=8192)
def quoted(text: str) -> str:
    """``text`` quoted for a query string (cached: pages repeat long document paths)."""
    return quote_plus(text)


def url(path: str, **params: Any) -> str:
    """``path`` with the query parameters that have a value."""
    given = "&".join(
        f"{key}={quoted(str(value))}"
        for key, value in params.items()
        if value is not None and value != ""
    )
    return f"{path}?{given}" if given else path


@dataclass(frozen=True)
class GlossaryEntry:
    """A term with every definition of it; ``conflict`` when documents define it differently."""

    term: str
    definitions: list[Definition]
    conflict: bool


class Reader:
    """An index opened for reading, with per-generation caches for the pages."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self._lock = threading.Lock()
        self._cache: dict[Any, tuple[int, Any]] = {}

    def _cached(self, key: Any, build: Callable[[], T]) -> T:
        generation = self.index.store.generation
        with self._lock:
            held = self._cache.get(key)
            if held is not None and held[0] == generation:
                return held[1]
        value = build()
        with self._lock:
            self._cache[key] = (generation, value)
        return value

    def documents(self) -> dict[str, DocumentRecord]:
        return self._cached("documents", lambda: {d.source: d for d in self.index.documents()})

    def display_name(self, source: str) -> str:
        return self.index.display_name(source)

    def definitions(self) -> dict[str, list[Definition]]:
        """Every definition, by the document that makes it."""

        def build() -> dict[str, list[Definition]]:
            found: dict[str, list[Definition]] = {}
            for definition in self.index.store.all_definitions():
                found.setdefault(definition.source, []).append(definition)
            return found

        return self._cached("definitions", build)

    def definition_counts(self) -> Counter[str]:
        return self._cached(
            "definition_counts", lambda: Counter({s: len(d) for s, d in self.definitions().items()})
        )

    def term_finder(self, source: str) -> TermFinder:
        """The defined terms of one document."""
        return self._cached(
            ("terms", source), lambda: TermFinder(self.definitions().get(source, []))
        )

    def outline(self, source: str) -> Outline:
        return self._cached(("outline", source), lambda: self.index.outline(source))

    def outline_entries(self, source: str) -> list[tuple[int, OutlineNode]]:
        """The outline's sections in document order, each with its depth."""
        return self._cached(("walk", source), lambda: list(self.outline(source).walk()))

    def glossary(self) -> list[GlossaryEntry]:
        """Every defined term, alphabetically, with its definitions."""

        def build() -> list[GlossaryEntry]:
            by_term: dict[str, list[Definition]] = {}
            for definitions in self.definitions().values():
                for definition in definitions:
                    key = " ".join(definition.term.split()).casefold()
                    by_term.setdefault(key, []).append(definition)
            return [
                GlossaryEntry(ds[0].term, ds, DefinitionLookup(ds[0].term, ds).conflict)
                for _, ds in sorted(by_term.items())
            ]

        return self._cached("glossary", build)
