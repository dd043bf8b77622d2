"""Rerankers: re-order the fused top-N of a search with a reranking API or an LLM.

Providers and the requests they get (each answers ``(index, relevance)`` pairs):

- ``cohere``: ``POST {base}/v2/rerank`` ``{model, query, documents, top_n}``, key in
  ``COHERE_API_KEY`` (or ``CO_API_KEY``, the Cohere SDK's name);
- ``voyage``: ``POST {base}/v1/rerank`` ``{model, query, documents, top_k, truncation}``,
  key in ``VOYAGE_API_KEY``;
- ``jina``: ``POST {base}/v1/rerank`` ``{model, query, documents, top_n,
  return_documents}``, key in ``JINA_API_KEY``;
- ``openai_compatible``: ``POST {base_url}/rerank`` in the Jina/Cohere form that vLLM,
  Infinity and LocalAI serve; ``base_url`` is required, the key (``RERANKER_API_KEY``)
  optional;
- ``llm``: a listwise prompt to a chat model (Anthropic, OpenAI, Azure OpenAI, Ollama):
  the passages are numbered, the model answers the numbers, best first; an answer naming
  no valid number is an error, and passages it leaves out keep their fused order after
  the ones it ranked.

Keys come from the environment only. Calls follow the API clients' retry rules
(``retry.py``: 429, 5xx, timeouts and connection errors retried after 1, 2 and 4 s or the
server's ``Retry-After``; 401/403/404 not retried). A failure raises
:class:`~hierdoc.errors.ProviderError`; the search stage then keeps the fused order and
says so in a note. A local cross-encoder would be one more class with the same
:meth:`Reranker.rerank`; none ships in a package that installs offline today.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import ProviderError
from .llm import context_model_from, ref_fields, require_sdk
from .retry import ApiStatusError, RetryPolicy, describe, retry_sync

DEFAULT_TIMEOUT = 30.0
DEFAULT_POLICY = RetryPolicy()
MAX_DOCUMENT_CHARS = 4_000
"""A passage sent for reranking is cut to this many characters (the APIs truncate too)."""

LISTWISE_PROMPT = """Rank the passages by how well each one answers the query.
Answer with the passage numbers only, most relevant first, separated by commas.

<query>{query}</query>

<passages>
{passages}
</passages>"""


class Reranker(Protocol):
    name: str

    def rerank(self, query: str, documents: Sequence[str]) -> list[tuple[int, float]]:
        """``(index into documents, relevance)``, most relevant first."""
        ...


@dataclass(frozen=True)
class _Api:
    """One reranking API: where it lives, its key variables and its request shape."""

    base: str
    path: str
    keys: tuple[str, ...]
    count_field: str
    extra: dict[str, Any] = field(default_factory=dict)
    results_field: str = "results"


APIS: dict[str, _Api] = {
    "cohere": _Api(
        "https://api.cohere.com", "/v2/rerank", ("COHERE_API_KEY", "CO_API_KEY"), "top_n",
    ),
    "voyage": _Api(
        "https://api.voyageai.com", "/v1/rerank", ("VOYAGE_API_KEY",), "top_k",
        {"truncation": True}, "data",
    ),
    "jina": _Api(
        "https://api.jina.ai", "/v1/rerank", ("JINA_API_KEY",), "top_n",
        {"return_documents": False},
    ),
    "openai_compatible": _Api("", "/rerank", ("RERANKER_API_KEY",), "top_n"),
}  # fmt: skip
PROVIDERS = (*APIS, "llm")


def parse_ranking(payload: Any, results_field: str, count: int) -> list[tuple[int, float]]:
    """``(index, relevance)`` pairs from an API answer, checked: every index an int naming
    one of the ``count`` documents, each once, every relevance a number."""
    items = payload.get(results_field) if isinstance(payload, dict) else None
    if not isinstance(items, list):
        raise ProviderError(f"malformed rerank answer: no '{results_field}' list")
    ranking: list[tuple[int, float]] = []
    seen: set[int] = set()
    for item in items:
        index = item.get("index") if isinstance(item, dict) else None
        score = item.get("relevance_score") if isinstance(item, dict) else None
        valid_index = isinstance(index, int) and not isinstance(index, bool)
        if not valid_index or not 0 <= index < count or index in seen:
            raise ProviderError(f"malformed rerank answer: bad index {index!r}")
        if not isinstance(score, (int, float)) or isinstance(score, bool):
            raise ProviderError(f"malformed rerank answer: bad relevance {score!r}")
        seen.add(index)
        ranking.append((index, float(score)))
    return sorted(ranking, key=lambda pair: -pair[1])


class ApiReranker:
    """A reranking API reached over HTTP (httpx, which the ``llm`` extra brings)."""

    def __init__(
        self,
        provider: str,
        model: str,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        policy: RetryPolicy = DEFAULT_POLICY,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.api = APIS[provider]
        self.provider, self.model = provider, model
        self.name = f"{provider}:{model}"
        self.url = (base_url or self.api.base).rstrip("/") + self.api.path
        if not base_url and not self.api.base:
            raise ProviderError(f"the {provider} reranker needs a base_url")
        self.timeout, self.policy = timeout, policy
        self._sleep = sleep
        self._key = _key(self.api.keys, required=provider != "openai_compatible")

    def request(self, query: str, documents: Sequence[str]) -> dict[str, Any]:
        """The JSON body sent for one query."""
        return {
            "model": self.model,
            "query": query,
            "documents": [d[:MAX_DOCUMENT_CHARS] for d in documents],
            self.api.count_field: len(documents),
            **self.api.extra,
        }

    def rerank(self, query: str, documents: Sequence[str]) -> list[tuple[int, float]]:
        if not documents:
            return []
        httpx = require_sdk("httpx")
        body = self.request(query, documents)
        headers = {"Authorization": f"Bearer {self._key}"} if self._key else {}

        def call() -> Any:
            answer = httpx.post(self.url, json=body, headers=headers, timeout=self.timeout)
            if answer.status_code >= 400:
                raise ApiStatusError(answer.status_code, answer.headers, answer.text[:300])
            return answer.json()

        payload = _retried(call, self.policy, self._sleep, self.name)
        return parse_ranking(payload, self.api.results_field, len(documents))


class LlmReranker:
    """Listwise reranking by a chat model (the context model's clients): ids only back."""

    def __init__(
        self,
        model: Any,
        policy: RetryPolicy = DEFAULT_POLICY,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.model = model
        self.name = f"llm:{model.name}"
        self.policy, self._sleep = policy, sleep

    def rerank(self, query: str, documents: Sequence[str]) -> list[tuple[int, float]]:
        if not documents:
            return []
        passages = "\n\n".join(
            f"[{n}] {' '.join(d[:MAX_DOCUMENT_CHARS].split())}" for n, d in enumerate(documents, 1)
        )
        prompt = LISTWISE_PROMPT.format(query=query, passages=passages)
        answer = _retried(
            lambda: self.model.complete(prompt, 8 * len(documents) + 20),
            self.policy,
            self._sleep,
            self.name,
        )
        return listwise_ranking(answer, len(documents))


def listwise_ranking(answer: str, count: int) -> list[tuple[int, float]]:
    """The LLM's ranking as ``(index, relevance)``: the numbers it gave, valid and each once,
    then the passages it left out, in their given order; relevance falls linearly with rank."""
    named = [int(n) - 1 for n in re.findall(r"\d+", answer)]
    ranked = list(dict.fromkeys(i for i in named if 0 <= i < count))
    if not ranked:
        raise ProviderError(f"the LLM reranker's answer names no passage: {answer[:80]!r}")
    order = ranked + [i for i in range(count) if i not in set(ranked)]
    return [(index, round(1.0 - rank / count, 6)) for rank, index in enumerate(order)]


def _key(variables: Sequence[str], required: bool) -> str:
    for variable in variables:
        value = os.environ.get(variable, "").strip()
        if value:
            return value
    if required:
        names = " or ".join(variables)
        raise ProviderError(f"the reranker needs an API key in the environment variable {names}")
    return ""


def _retried(call: Callable[[], Any], policy: RetryPolicy, sleep: Any, name: str) -> Any:
    try:
        if sleep is None:
            return retry_sync(call, policy)
        return retry_sync(call, policy, sleep=sleep)
    except json.JSONDecodeError as error:
        raise ProviderError(f"{name}: the answer is not JSON: {describe(error)}") from error
    except Exception as error:  # every failure named, with the key redacted
        raise ProviderError(f"{name}: {describe(error)}") from error


def reranker_from(settings: Any, context_model: Any = None) -> Reranker:
    """The reranker of a ``reranker: {provider, name, base_url, timeout}`` setting; ``llm``
    uses ``settings.model`` or, when absent, the index's context model."""
    provider = settings.provider
    timeout = settings.timeout
    if provider == "llm":
        model = settings.model or context_model
        if model is None:
            raise ProviderError("the llm reranker needs reranker.model or a context_model")
        fields = ref_fields(model)
        if settings.name:
            fields["name"] = settings.name
        if settings.base_url:
            fields["base_url"] = settings.base_url
        return LlmReranker(context_model_from(fields, timeout))
    if provider not in APIS:
        known = ", ".join(PROVIDERS)
        raise ProviderError(f"unknown reranker provider {provider!r} (known: {known})")
    if not settings.name:
        raise ProviderError(f"the {provider} reranker needs a model name (reranker.name)")
    return ApiReranker(provider, settings.name, settings.base_url, timeout)
