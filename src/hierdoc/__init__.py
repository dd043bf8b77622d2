"""hierdoc: hybrid retrieval for formal, structured documents.

Pipeline stages, one module each: ``convert`` -> ``structure`` -> ``chunk`` ->
``context`` -> ``embed`` -> ``index`` (records, bm25, vectors) -> ``search``
(with ``fuse``). :class:`Index` is the API; ``cli`` is a thin layer over it.

The names below are imported on first use (PEP 562), so that ``import hierdoc.cli``
(``hierdoc --version``, ``--help``) does not load the API, numpy or pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import ChunkView, Index
    from .config import SearchSettings, Settings, load_settings
    from .errors import (
        ConfigError,
        FatalProviderError,
        HierdocError,
        InputError,
        NotFoundError,
        ProviderError,
        StoreError,
    )
    from .models import IngestReport, SearchFilter, SearchResponse, SearchResult, TextDocument

__version__ = "0.1.0"

_HOMES = {
    "api": ("ChunkView", "Index"),
    "config": ("SearchSettings", "Settings", "load_settings"),
    "errors": (
        "ConfigError",
        "FatalProviderError",
        "HierdocError",
        "InputError",
        "NotFoundError",
        "ProviderError",
        "StoreError",
    ),
    "models": ("IngestReport", "SearchFilter", "SearchResponse", "SearchResult", "TextDocument"),
}
_MODULE_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "ChunkView",
    "ConfigError",
    "FatalProviderError",
    "HierdocError",
    "Index",
    "IngestReport",
    "InputError",
    "NotFoundError",
    "ProviderError",
    "SearchFilter",
    "SearchResponse",
    "SearchResult",
    "SearchSettings",
    "Settings",
    "StoreError",
    "TextDocument",
    "load_settings",
]


def __getattr__(name: str) -> Any:
    """``hierdoc.Index`` and the other public names, imported from their module on use."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'hierdoc' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
