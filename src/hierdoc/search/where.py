"""Metadata filters: ``where={"type": "contract", "tags": "vendor"}`` -> the matching sources.

A document matches when every key matches (AND); a key given several values matches
any of them (OR). A value matches a metadata value equal to it, case and surrounding
spaces aside, or a member of a list value (``tags: [vendor, cloud]`` matches
``tags=cloud``). The keys are the document's metadata (front matter, document
properties) plus ``format`` (markdown, pdf, docx...) and ``title``. The search then
runs with the matching documents as its source filter.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import InputError, NotFoundError
from ..models import DocumentRecord
from ..store.base import Records
from .per_generation import PerGeneration

Where = Mapping[str, str | Sequence[str]]
RECORD_KEYS = ("format", "title")
"""Keys answered from the document record when its metadata does not have them."""


def parse_where(items: Iterable[str]) -> dict[str, list[str]]:
    """``["type=contract", "tags=x", "type=nda"]`` -> ``{"type": ["contract", "nda"], ...}``."""
    where: dict[str, list[str]] = {}
    for item in items:
        key, equals, value = item.partition("=")
        if not equals or not key.strip() or not value.strip():
            raise InputError(f"--where takes KEY=VALUE (e.g. type=contract), not {item!r}")
        where.setdefault(key.strip(), []).append(value.strip())
    return where


def _wanted(where: Where) -> dict[str, set[str]]:
    wanted: dict[str, set[str]] = {}
    for key, value in where.items():
        values = [value] if isinstance(value, str) else list(value)
        if not isinstance(key, str) or not values or not all(isinstance(v, str) for v in values):
            raise InputError("where maps metadata keys to a value or a list of values (strings)")
        wanted[key.strip()] = {_fold(v) for v in values}
    return wanted


def _fold(value: Any) -> str:
    return str(value).strip().casefold()


def _values(document: DocumentRecord, key: str) -> list[Any]:
    value = document.metadata.get(key)
    if value is None and key in RECORD_KEYS:
        value = getattr(document, key)
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def matches(document: DocumentRecord, wanted: Mapping[str, set[str]]) -> bool:
    return all(
        any(_fold(v) in values for v in _values(document, key)) for key, values in wanted.items()
    )


def matching_sources(documents: Sequence[DocumentRecord], where: Where) -> list[str]:
    """The sources of the documents matching ``where`` (none is an empty list)."""
    wanted = _wanted(where)
    return [d.source for d in documents if matches(d, wanted)]


def sources_where(documents: Sequence[DocumentRecord], where: Where) -> list[str]:
    """The sources of the documents matching ``where``; a filter that matches none is a
    :class:`NotFoundError` naming the values the index holds for its keys."""
    wanted = _wanted(where)
    found = matching_sources(documents, where)
    if found:
        return found
    held = []
    for key in wanted:
        values = sorted({str(v) for d in documents for v in _values(d, key)})
        held.append(f"{key}: {', '.join(values[:20])}" if values else f"no document has {key!r}")
    asked = ", ".join(f"{k}={'|'.join(sorted(v))}" for k, v in wanted.items())
    raise NotFoundError(f"no indexed document matches {asked} ({'; '.join(held)})")


def narrow_sources(store: Records, named: Sequence[str], where: Where | None) -> list[str]:
    """The source filter of a search: the ``named`` sources (all when none), narrowed to
    those matching ``where``; empty means no filter (also when every document matches)."""
    if not where:
        return list(named)
    documents = document_records(store)
    matching = sources_where(documents, where)
    if not named:
        return [] if len(matching) == len(documents) else matching
    both = [s for s in named if s in set(matching)]
    if not both:
        raise NotFoundError("no document both matches the source filter and the where filter")
    return both


#: Every document record, read once per store and index generation: a ``where`` filter
#: looks at each document's metadata (0.34 s to read at 43,600 documents).
document_records = PerGeneration(lambda store: store.documents())
