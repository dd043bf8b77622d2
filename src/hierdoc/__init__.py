"""hierdoc: hybrid retrieval for formal, structured documents.

Pipeline stages, one module each: ``convert`` -> ``structure`` -> ``chunk`` ->
``context`` -> ``embed`` -> ``index`` (records, bm25, vectors) -> ``search``
(with ``fuse``). :class:`Index` is the API; ``cli`` is a thin layer over it.
"""

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

__all__ = [
    "ChunkView",
    "ConfigError",
    "Index",
    "IngestReport",
    "FatalProviderError",
    "HierdocError",
    "InputError",
    "NotFoundError",
    "ProviderError",
    "SearchSettings",
    "StoreError",
    "SearchFilter",
    "SearchResponse",
    "SearchResult",
    "Settings",
    "TextDocument",
    "load_settings",
]
