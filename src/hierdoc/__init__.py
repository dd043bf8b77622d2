"""hierdoc: hybrid retrieval for formal, structured documents.

Pipeline stages, one module each: ``convert`` -> ``structure`` -> ``chunk`` ->
``context`` -> ``embed`` -> ``index`` (records, bm25, vectors) -> ``search``
(with ``fuse``). :class:`Index` is the API; ``cli`` is a thin layer over it.
"""

from .api import ChunkView, Index
from .config import ConfigError, Settings, load_settings
from .models import IngestReport, SearchFilter, SearchResponse, SearchResult
from .pipeline.ingest import TextDocument
from .search.searcher import SearchError

__all__ = [
    "ChunkView",
    "ConfigError",
    "Index",
    "IngestReport",
    "SearchError",
    "SearchFilter",
    "SearchResponse",
    "SearchResult",
    "Settings",
    "TextDocument",
    "load_settings",
]
