"""Storage behind narrow interfaces split by capability (:mod:`hierdoc.store.base`: a
backend declares what it can do in ``store.capabilities``); one folder per backend,
chosen by ``database.provider``.

:func:`open_store` is the only way the rest of hierdoc gets a store: it looks the
provider up in a registry of factories and imports the backend's module only then,
so nothing outside ``store/`` imports a backend (and a server client is loaded only
when its provider is configured). :func:`register_backend` adds a provider.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from ..text.analyze import TextAnalyzer
from .base import Store

__all__ = ["StoreRequest", "available_backends", "open_store", "register_backend"]


@dataclass(frozen=True)
class StoreRequest:
    """What a backend needs to open (or create) an index."""

    directory: Path
    """Where a backend that keeps files keeps them (``database.path`` or ``--index``)."""
    dimension: int
    """The embedder's vector size; an index built with another size is refused."""
    analyzer: TextAnalyzer
    """How text becomes lexical terms, for indexing and for the stored analyzer version."""
    reset: bool = False
    """Empty the index first (``ingest --force``); cached LLM contexts are kept."""
    options: dict[str, Any] = field(default_factory=dict)
    """The rest of the ``database`` block (a URL, credentials...), for server backends."""
    read_only: bool = False
    """Only read: create and write nothing (no index there is a :class:`NotFoundError`);
    derived indexes that lag are rebuilt in memory, privately."""
    hold_writer: bool = False
    """Take the writer lock before writing anything and hold it until ``close``."""
    wait: bool = False
    """When another process holds the writer lock, wait for it instead of failing."""
    create: bool = True
    """Create the index when there is none; else no index there is a
    :class:`NotFoundError` and nothing is created (a backend keeping no files may ignore it)."""


StoreFactory = Callable[[StoreRequest], Store]

_FACTORIES: dict[str, StoreFactory | str] = {
    "local": "hierdoc.store.local:open_local",
    "in-memory": "hierdoc.store.local:open_in_memory",
    "postgres": "hierdoc.store.postgres:open_postgres",
}


def register_backend(provider: str, factory: StoreFactory | str) -> None:
    """Make ``database.provider: <provider>`` open stores with ``factory`` (a callable, or
    ``"module:function"`` imported on first use)."""
    _FACTORIES[provider] = factory


def available_backends() -> list[str]:
    return sorted(_FACTORIES)


def open_store(provider: str, request: StoreRequest) -> Store:
    """Open the store of ``provider``; an unknown provider is a :class:`ConfigError`."""
    factory = _FACTORIES.get(provider)
    if factory is None:
        raise ConfigError(
            f"database.provider {provider!r} is not available; "
            f"choose one of: {', '.join(available_backends())}"
        )
    if isinstance(factory, str):
        module, _, name = factory.partition(":")
        factory = getattr(importlib.import_module(module), name)
        _FACTORIES[provider] = factory
    return factory(request)
