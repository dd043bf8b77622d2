"""Embedding APIs behind the :class:`~hierdoc.pipeline.embed.Embedder` interface: OpenAI,
Azure, Ollama.

Unlike the local model, these read long inputs (OpenAI: 8,191 tokens; Ollama:
the model's context, which Ollama truncates to by itself), so each input gets
one vector: ``context + "\\n" + text``. Rather than fail on an input over the
limit, it is cut to ``max_input_chars`` characters (24,000 by default: 8,191
tokens at three characters per token, which dense legal text with numbers and
citations stays above). Inputs go in batches of at most ``batch_size`` (96) and
``max_batch_chars`` characters (OpenAI limits a request to 300k tokens), each
request retried on 429, 5xx, timeouts and connection errors like the context
model calls (``retry.py``). Vectors are returned L2-normalised.

Names are ``provider:model`` (``openai:text-embedding-3-small``,
``azure_openai:my-deployment``, ``ollama:nomic-embed-text``); an index records
the name that built it, so a query embedder can be checked against it.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..errors import FatalProviderError
from ..models import EmbedInput
from .llm import DEFAULT_TIMEOUT, ProviderError, azure_settings, ollama_url, ref_fields, require_sdk
from .retry import ApiStatusError, Failure, RetryPolicy, classify, describe, redact, retry_sync

logger = logging.getLogger(__name__)

BATCH_SIZE = 96
MAX_INPUT_CHARS = 24_000
MAX_BATCH_CHARS = 600_000
KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    "nomic-embed-text": 768,
    "mxbai-embed-large": 1024,
    "all-minilm": 384,
    "bge-m3": 1024,
    "snowflake-arctic-embed": 1024,
}


def embed_text(item: EmbedInput, limit: int) -> str:
    """The one string embedded for an input: its context line, then its text, cut to ``limit``."""
    context = item.context.strip()
    text = f"{context}\n{item.text}" if context else item.text
    return (text[:limit] if len(text) > limit else text) or " "


def batches(texts: Sequence[str], size: int, max_chars: int) -> Iterator[list[str]]:
    """Consecutive slices of at most ``size`` texts and ``max_chars`` characters (at least one)."""
    batch: list[str] = []
    chars = 0
    for text in texts:
        if batch and (len(batch) >= size or chars + len(text) > max_chars):
            yield batch
            batch, chars = [], 0
        batch.append(text)
        chars += len(text)
    if batch:
        yield batch


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


class _ApiEmbedder:
    """Batching, retries, normalisation and the dimension; subclasses make one request."""

    name: str
    model: str

    def __init__(
        self,
        dimension: int | None,
        batch_size: int,
        max_input_chars: int,
        max_batch_chars: int,
        policy: RetryPolicy | None,
        sleep: Callable[[float], None],
        document_prefix: str,
        query_prefix: str,
    ) -> None:
        self._dimension = dimension
        self.batch_size = batch_size
        self.max_input_chars = max_input_chars
        self.max_batch_chars = max_batch_chars
        self.policy = policy or RetryPolicy()
        self.sleep = sleep
        self.document_prefix = document_prefix
        self.query_prefix = query_prefix
        self.requests = 0
        self.retries = 0
        self.tokens_used = 0
        self.texts_embedded = 0

    @property
    def dimension(self) -> int:
        """From ``dimensions``, the table of known models, the first response, or a probe."""
        if self._dimension is None:
            self._dimension = int(self._embed_batch(["dimension probe"]).shape[1])
        return self._dimension

    def _request(self, texts: list[str]) -> list[list[float]]:  # pragma: no cover - overridden
        raise NotImplementedError

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        def call() -> list[list[float]]:
            self.requests += 1
            return self._request(texts)

        try:
            rows = retry_sync(call, self.policy, self.sleep, self._on_retry)
        except ProviderError:
            raise
        except Exception as error:
            # A refusal (401/403/404) will not pass on a retry or another batch: fatal.
            kind = FatalProviderError if classify(error).kind == "fatal" else ProviderError
            raise kind(f"{self.name} embedding failed: {describe(error)}") from None
        vectors = np.asarray(rows, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise ProviderError(f"{self.name} returned {vectors.shape} for {len(texts)} inputs")
        if self._dimension is None:
            self._dimension = int(vectors.shape[1])
        elif vectors.shape[1] != self._dimension:
            raise ProviderError(
                f"{self.name} returned {vectors.shape[1]}-dimensional vectors, "
                f"expected {self._dimension}"
            )
        self.texts_embedded += len(texts)
        return normalise(vectors)

    def _on_retry(self, failure: Failure, wait: float) -> None:
        self.retries += 1
        logger.debug("%s: %s, retrying in %.1f s", self.name, failure.label, wait)

    def _embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dimension or 0), dtype=np.float32)
        parts = [
            self._embed_batch(batch)
            for batch in batches(texts, self.batch_size, self.max_batch_chars)
        ]
        return np.concatenate(parts)

    def embed_documents(self, inputs: Sequence[EmbedInput]) -> list[np.ndarray]:
        """One (1, dimension) array per input."""
        limit = self.max_input_chars - len(self.document_prefix)
        texts = [self.document_prefix + embed_text(item, limit) for item in inputs]
        vectors = self._embed(texts)
        return [vectors[n : n + 1] for n in range(len(texts))]

    def embed_query(self, text: str) -> np.ndarray:
        query = self.query_prefix + (text[: self.max_input_chars] or " ")
        return self._embed([query])[0]


class OpenAIEmbedder(_ApiEmbedder):
    """OpenAI or Azure OpenAI embeddings (``/embeddings``) through the official SDK.

    ``provider="azure_openai"``: ``model`` is the deployment name; the endpoint and
    API version come from ``endpoint``/``api_version`` or ``AZURE_OPENAI_ENDPOINT``
    and ``OPENAI_API_VERSION``; the key from ``AZURE_OPENAI_API_KEY``. OpenAI's key
    comes from ``OPENAI_API_KEY``; with ``base_url`` (a compatible server) a key is
    optional. ``dimensions`` shortens text-embedding-3 vectors.
    """

    def __init__(
        self,
        model: str,
        provider: str = "openai",
        base_url: str | None = None,
        dimensions: int | None = None,
        batch_size: int = BATCH_SIZE,
        max_input_chars: int = MAX_INPUT_CHARS,
        max_batch_chars: int = MAX_BATCH_CHARS,
        timeout: float = DEFAULT_TIMEOUT,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        endpoint: str | None = None,
        api_version: str | None = None,
        document_prefix: str = "",
        query_prefix: str = "",
    ) -> None:
        super().__init__(
            dimensions or KNOWN_DIMENSIONS.get(model),
            batch_size,
            max_input_chars,
            max_batch_chars,
            policy,
            sleep,
            document_prefix,
            query_prefix,
        )
        sdk = require_sdk("openai")
        self.model = model
        self.name = f"{provider}:{model}" + (f"@{dimensions}" if dimensions else "")
        self.dimensions = dimensions
        self._compatible = provider == "openai" and bool(base_url)
        common: dict[str, Any] = {"max_retries": 0, "timeout": timeout}
        if provider == "azure_openai":
            found, version = azure_settings(endpoint, api_version)
            key = _key("AZURE_OPENAI_API_KEY", provider)
            self._client = sdk.AzureOpenAI(
                azure_endpoint=found, api_version=version, api_key=key, **common
            )
        elif provider == "openai":
            key = os.environ.get("OPENAI_API_KEY", "").strip()
            if not key and not base_url:
                raise ProviderError(
                    "openai needs an API key in the environment variable OPENAI_API_KEY"
                )
            self._client = sdk.OpenAI(api_key=key or "not-needed", base_url=base_url, **common)
        else:
            raise ProviderError(f"OpenAIEmbedder does not serve provider {provider!r}")

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self.name!r})"

    def _request(self, texts: list[str]) -> list[list[float]]:
        options: dict[str, Any] = {}
        if self.dimensions:
            options["dimensions"] = self.dimensions
        if self._compatible:
            options["encoding_format"] = "float"  # not every compatible server does base64
        response = self._client.embeddings.create(model=self.model, input=texts, **options)
        usage = getattr(response, "usage", None)
        self.tokens_used += getattr(usage, "prompt_tokens", 0) or 0
        rows = sorted(response.data, key=lambda item: item.index)
        return [list(item.embedding) for item in rows]

    def close(self) -> None:
        self._client.close()


class OllamaEmbedder(_ApiEmbedder):
    """Ollama's ``POST /api/embed`` (batched ``input``), over httpx; no key needed."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        dimensions: int | None = None,
        batch_size: int = BATCH_SIZE,
        max_input_chars: int = MAX_INPUT_CHARS,
        max_batch_chars: int = MAX_BATCH_CHARS,
        timeout: float = DEFAULT_TIMEOUT,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        document_prefix: str = "",
        query_prefix: str = "",
    ) -> None:
        base = model.split(":", 1)[0]
        super().__init__(
            dimensions or KNOWN_DIMENSIONS.get(model) or KNOWN_DIMENSIONS.get(base),
            batch_size,
            max_input_chars,
            max_batch_chars,
            policy,
            sleep,
            document_prefix,
            query_prefix,
        )
        self._httpx = _httpx()
        self.model = model
        self.name = f"ollama:{model}"
        self.url = ollama_url(base_url) + "/api/embed"
        self._client = self._httpx.Client(timeout=timeout)

    def __repr__(self) -> str:
        return f"OllamaEmbedder({self.name!r}, url={self.url!r})"

    def _request(self, texts: list[str]) -> list[list[float]]:
        body = {"model": self.model, "input": texts, "truncate": True}
        response = self._client.post(self.url, json=body)
        if response.status_code >= 400:
            raise ApiStatusError(response.status_code, response.headers, _error_text(response))
        data = response.json()
        self.tokens_used += int(data.get("prompt_eval_count") or 0)
        return data["embeddings"]

    def close(self) -> None:
        self._client.close()


def _error_text(response: Any) -> str:
    try:
        data = response.json()
    except ValueError:
        return redact(response.text[:300])
    message = data.get("error") if isinstance(data, dict) else data
    return redact(str(message)[:300])


def _httpx() -> Any:
    """httpx as the openai SDK ships it (``httpx2`` in its newer releases, else ``httpx``)."""
    import importlib

    for module in ("httpx2", "httpx"):
        try:
            return importlib.import_module(module)
        except ImportError:
            continue
    raise ProviderError("Ollama embeddings need httpx: pip install 'hierdoc[llm]'")


def _key(variable: str, provider: str) -> str:
    value = os.environ.get(variable, "").strip()
    if not value:
        raise ProviderError(f"{provider} needs an API key in the environment variable {variable}")
    return value


API_PROVIDERS = ("openai", "azure_openai", "azure", "ollama")


def is_api_model(ref: Any) -> bool:
    """Whether an ``embedding_model`` setting names an API model (else: the local one)."""
    if ref is None:
        return False
    if isinstance(ref, str):
        return ref.partition(":")[0] in API_PROVIDERS
    provider = ref.get("provider") if isinstance(ref, dict) else getattr(ref, "provider", None)
    return provider in API_PROVIDERS


def parse_embedding_ref(ref: Any) -> dict[str, Any]:
    """``{provider, name, ...}`` from a ``ModelRef``/mapping or a ``provider:name`` string."""
    if isinstance(ref, str):
        provider, sep, name = ref.partition(":")
        if not sep or not name:
            raise ProviderError(
                f"embedding model {ref!r}: expected provider:name, "
                "e.g. openai:text-embedding-3-small"
            )
        return ref_fields({"provider": provider, "name": name})
    return ref_fields(ref)


def embedder_from(ref: Any, **options: Any) -> OpenAIEmbedder | OllamaEmbedder:
    """The API embedder of an ``embedding_model`` setting (``{provider, name}`` or a string).

    Extra fields of the setting: ``base_url``, ``dimensions``, ``batch_size``,
    ``endpoint``/``api_version`` (Azure), ``document_prefix``/``query_prefix``
    (e.g. nomic-embed-text's ``search_document: ``/``search_query: ``).
    ``options`` (e.g. ``timeout``, ``sleep``) are passed to the constructor.
    """
    fields = parse_embedding_ref(ref)
    provider, name = fields.pop("provider"), fields.pop("name")
    fields.pop("temperature", None)
    allowed = {"base_url", "dimensions", "batch_size", "document_prefix", "query_prefix"}
    if provider in ("openai", "azure_openai"):
        allowed |= {"endpoint", "api_version"}
    unknown = sorted(set(fields) - allowed)
    if unknown:
        raise ProviderError(f"embedding_model: unknown field(s) {', '.join(unknown)}")
    settings = {**fields, **options}
    if provider in ("openai", "azure_openai"):
        return OpenAIEmbedder(name, provider, **settings)
    if provider == "ollama":
        return OllamaEmbedder(name, **settings)
    raise ProviderError(
        f"unknown embedding provider {provider!r} (known: openai, azure_openai, ollama)"
    )
