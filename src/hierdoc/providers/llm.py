"""LLM providers that write a chunk's context: Anthropic and OpenAI-compatible chat APIs.

The prompt is the one of Anthropic's contextual retrieval cookbook: the whole
document, then the chunk, and a request for a short context that situates the
chunk for search. With Anthropic the document block carries
``cache_control: {"type": "ephemeral"}``, so the document is written to the
prompt cache by the first chunk of a document and read (at a tenth of the
price) by the others; ``contextualize.py`` sends a document's first chunk alone
for that reason. OpenAI caches long identical prompt prefixes by itself, and
the document comes first for the same reason.

API keys are read from the environment only (``ANTHROPIC_API_KEY``,
``OPENAI_API_KEY``, ``AZURE_OPENAI_API_KEY``); they are never taken from a
config file, stored, or printed. The SDKs' own retries are off
(``max_retries=0``): ``retry.py`` is the one retry loop.

The SDKs are imported when a model is built, so hierdoc works without them
(``pip install 'hierdoc[llm]'`` brings them).
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..errors import ProviderError

PROMPT_VERSION = "anthropic-cookbook-1"
"""Part of every cached context's key: change it when the prompt changes."""

DOCUMENT_CONTEXT_PROMPT = """<document>
{doc_content}
</document>"""

CHUNK_CONTEXT_PROMPT = """Here is the chunk we want to situate within the whole document
<chunk>
{chunk_content}
</chunk>

Please give a short succinct context to situate this chunk within the overall document for the purposes of improving search retrieval of the chunk.
Answer only with the succinct context and nothing else."""  # noqa: E501

TRUNCATION_MARKER = "\n\n[... {omitted} characters omitted from the middle of the document ...]\n\n"
CHARS_PER_TOKEN = 4
"""Token estimate for window budgets; conservative enough with the headroom below."""

DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_DOCUMENT_TOKENS = {
    "anthropic": 180_000,  # 200k window, less the chunk, the instructions and the answer
    "openai": 100_000,  # 128k window of gpt-4o / gpt-4.1-mini class models, with headroom
    "azure_openai": 100_000,
    "ollama": 6_000,  # Ollama's context is whatever num_ctx the model runs with; raise it there
}
DEFAULT_OLLAMA_URL = "http://localhost:11434"
PROVIDER_ALIASES = {"azure": "azure_openai", "claude": "anthropic"}


@dataclass(frozen=True)
class ContextAnswer:
    """A context and what it cost.

    ``input_tokens`` are the input tokens billed at the full rate; tokens written
    to or read from the prompt cache are counted apart (Anthropic reports them so;
    for OpenAI the cached tokens are taken out of ``prompt_tokens``).
    """

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    truncated: bool = False


@runtime_checkable
class ContextModel(Protocol):
    name: str
    """``provider:model``; part of the context cache key."""

    max_document_tokens: int | None
    """Documents estimated longer than this are truncated (beginning and end kept)."""

    async def situate(self, document: str, chunk: str, max_tokens: int) -> ContextAnswer:
        """The context of ``chunk`` within ``document``, at most ``max_tokens`` long."""
        ...


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def needs_truncation(document: str, max_document_tokens: int | None) -> bool:
    return max_document_tokens is not None and estimate_tokens(document) > max_document_tokens


def truncate_document(document: str, max_document_tokens: int | None) -> tuple[str, bool]:
    """``document`` cut to fit, keeping its beginning and its end, and whether it was cut.

    The title, parties, definitions and scope of a formal document sit at its
    beginning; signatures, schedules and annexes at its end. The middle goes,
    replaced by a marker saying how much, cut at line breaks where there are some
    near the cut points. The result depends only on its arguments, so every chunk
    of a document sends the same text and the prompt cache is hit.
    """
    if not needs_truncation(document, max_document_tokens):
        return document, False
    assert max_document_tokens is not None
    budget = max(max_document_tokens * CHARS_PER_TOKEN - len(TRUNCATION_MARKER) - 20, 2)
    head_end = _cut_point(document, budget // 2, backwards=True)
    tail_start = _cut_point(document, len(document) - (budget - head_end), backwards=False)
    omitted = tail_start - head_end
    marker = TRUNCATION_MARKER.format(omitted=omitted)
    return document[:head_end].rstrip() + marker + document[tail_start:].lstrip(), True


def _cut_point(text: str, position: int, backwards: bool, slack: int = 400) -> int:
    """A line break near ``position`` on the side that keeps the result within budget."""
    if backwards:
        found = text.rfind("\n", max(position - slack, 0), position)
        return found if found > 0 else position
    found = text.find("\n", position, position + slack)
    return found + 1 if found >= 0 else position


def user_blocks(document: str, chunk: str) -> list[dict[str, Any]]:
    """The two content blocks of the Anthropic request, the document one marked cacheable."""
    return [
        {
            "type": "text",
            "text": DOCUMENT_CONTEXT_PROMPT.format(doc_content=document),
            "cache_control": {"type": "ephemeral"},
        },
        {"type": "text", "text": CHUNK_CONTEXT_PROMPT.format(chunk_content=chunk)},
    ]


def require_sdk(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ProviderError(
            f"the {module} SDK is not installed: pip install 'hierdoc[llm]'"
        ) from error


def _env_key(*variables: str, provider: str) -> str:
    for variable in variables:
        value = os.environ.get(variable, "").strip()
        if value:
            return value
    names = " or ".join(variables)
    raise ProviderError(f"{provider} needs an API key in the environment variable {names}")


class _LoopBound:
    """An async SDK client per event loop.

    httpx connection pools belong to the loop that opened them; the synchronous
    wrappers run a fresh loop per call, so a client is made for each loop seen.
    """

    def __init__(self) -> None:
        self._clients: dict[int, tuple[asyncio.AbstractEventLoop, Any]] = {}

    def _make_client(self) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def _client(self) -> Any:
        loop = asyncio.get_running_loop()
        entry = self._clients.get(id(loop))
        if entry is None or entry[0] is not loop:
            self._clients = {k: v for k, v in self._clients.items() if not v[0].is_closed()}
            entry = (loop, self._make_client())
            self._clients[id(loop)] = entry
        return entry[1]

    async def aclose(self) -> None:
        """Close the client of the running loop (the others' loops are gone)."""
        loop = asyncio.get_running_loop()
        entry = self._clients.pop(id(loop), None)
        if entry is not None:
            await entry[1].close()


class AnthropicContextModel(_LoopBound):
    """Claude through the official ``anthropic`` SDK, with the document block cached."""

    def __init__(
        self,
        model: str,
        temperature: float | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_document_tokens: int | None = DEFAULT_MAX_DOCUMENT_TOKENS["anthropic"],
    ) -> None:
        super().__init__()
        self._sdk = require_sdk("anthropic")
        self._key = _env_key("ANTHROPIC_API_KEY", provider="anthropic")
        self.model = model
        self.name = f"anthropic:{model}"
        self.temperature = temperature
        self.base_url = base_url
        self.timeout = timeout
        self.max_document_tokens = max_document_tokens

    def __repr__(self) -> str:
        return f"AnthropicContextModel({self.model!r}, base_url={self.base_url!r})"

    def _make_client(self) -> Any:
        return self._sdk.AsyncAnthropic(
            api_key=self._key, base_url=self.base_url, max_retries=0, timeout=self.timeout
        )

    def complete(self, prompt: str, max_tokens: int) -> str:
        """One synchronous answer to ``prompt`` (for callers outside an event loop, such as
        the LLM reranker), with the same key, endpoint and timeout and no SDK retries."""
        client = self._sdk.Anthropic(
            api_key=self._key, base_url=self.base_url, max_retries=0, timeout=self.timeout
        )
        message = client.messages.create(
            model=self.model, max_tokens=max_tokens, messages=[{"role": "user", "content": prompt}]
        )
        return "".join(getattr(b, "text", "") for b in message.content if b.type == "text")

    async def situate(self, document: str, chunk: str, max_tokens: int) -> ContextAnswer:
        text, truncated = truncate_document(document, self.max_document_tokens)
        # The SDK no longer has a temperature argument (current models fix their
        # sampling); one set in the config is passed through as is.
        extra = {"temperature": self.temperature} if self.temperature is not None else None
        message = await self._client().messages.create(
            model=self.model,
            max_tokens=max_tokens,
            messages=[{"role": "user", "content": user_blocks(text, chunk)}],
            extra_body=extra,
        )
        answer = "".join(
            getattr(block, "text", "") for block in message.content if block.type == "text"
        )
        usage = message.usage
        return ContextAnswer(
            text=answer.strip(),
            input_tokens=usage.input_tokens or 0,
            output_tokens=usage.output_tokens or 0,
            cache_creation_tokens=usage.cache_creation_input_tokens or 0,
            cache_read_tokens=usage.cache_read_input_tokens or 0,
            truncated=truncated,
        )


class OpenAIContextModel(_LoopBound):
    """OpenAI, Azure OpenAI or any OpenAI-compatible chat endpoint (Ollama, vLLM, LM Studio).

    ``provider`` is ``openai`` (``base_url`` for a compatible server), ``azure_openai``
    (``model`` is the deployment; endpoint and API version from ``endpoint`` /
    ``api_version`` or ``AZURE_OPENAI_ENDPOINT`` / ``OPENAI_API_VERSION``) or
    ``ollama`` (its OpenAI-compatible ``/v1``, ``OLLAMA_HOST`` or localhost:11434).
    A local server needs no key; a placeholder is sent when none is set.
    """

    def __init__(
        self,
        model: str,
        provider: str = "openai",
        temperature: float | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_document_tokens: int | None = None,
        endpoint: str | None = None,
        api_version: str | None = None,
    ) -> None:
        super().__init__()
        self._sdk = require_sdk("openai")
        self.provider = provider
        self.model = model
        self.name = f"{provider}:{model}"
        self.temperature = temperature
        self.timeout = timeout
        self.max_document_tokens = (
            DEFAULT_MAX_DOCUMENT_TOKENS[provider]
            if max_document_tokens is None
            else max_document_tokens
        )
        self.base_url = ollama_url(base_url) + "/v1" if provider == "ollama" else base_url
        self._compatible = provider == "ollama" or (provider == "openai" and bool(base_url))
        self._azure = azure_settings(endpoint, api_version) if provider == "azure_openai" else None
        self._key = self._api_key()

    def __repr__(self) -> str:
        return f"OpenAIContextModel({self.name!r}, base_url={self.base_url!r})"

    def _api_key(self) -> str:
        if self.provider == "azure_openai":
            return _env_key("AZURE_OPENAI_API_KEY", provider="azure_openai")
        if self._compatible:
            return os.environ.get("OPENAI_API_KEY", "").strip() or "not-needed"
        return _env_key("OPENAI_API_KEY", provider="openai")

    def _make_client(self) -> Any:
        common = {"api_key": self._key, "max_retries": 0, "timeout": self.timeout}
        if self._azure is not None:
            endpoint, version = self._azure
            return self._sdk.AsyncAzureOpenAI(
                azure_endpoint=endpoint, api_version=version, **common
            )
        return self._sdk.AsyncOpenAI(base_url=self.base_url, **common)

    def complete(self, prompt: str, max_tokens: int) -> str:
        """One synchronous answer to ``prompt`` (see :meth:`AnthropicContextModel.complete`)."""
        common = {"api_key": self._key, "max_retries": 0, "timeout": self.timeout}
        if self._azure is not None:
            endpoint, version = self._azure
            client = self._sdk.AzureOpenAI(azure_endpoint=endpoint, api_version=version, **common)
        else:
            client = self._sdk.OpenAI(base_url=self.base_url, **common)
        limit = {"max_tokens" if self._compatible else "max_completion_tokens": max_tokens}
        completion = client.chat.completions.create(
            model=self.model, messages=[{"role": "user", "content": prompt}], **limit
        )
        return (completion.choices[0].message.content or "") if completion.choices else ""

    async def situate(self, document: str, chunk: str, max_tokens: int) -> ContextAnswer:
        text, truncated = truncate_document(document, self.max_document_tokens)
        prompt = (
            DOCUMENT_CONTEXT_PROMPT.format(doc_content=text)
            + "\n\n"
            + CHUNK_CONTEXT_PROMPT.format(chunk_content=chunk)
        )
        # Compatible servers know max_tokens; OpenAI's newer models only the new name.
        limit = {"max_tokens" if self._compatible else "max_completion_tokens": max_tokens}
        options: dict[str, Any] = dict(limit)
        if self.temperature is not None:  # reasoning models accept only their default
            options["temperature"] = self.temperature
        completion = await self._client().chat.completions.create(
            model=self.model, messages=[{"role": "user", "content": prompt}], **options
        )
        answer = (completion.choices[0].message.content or "") if completion.choices else ""
        return _openai_answer(answer, completion.usage, truncated)


def _openai_answer(answer: str, usage: Any, truncated: bool) -> ContextAnswer:
    if usage is None:
        return ContextAnswer(answer.strip(), truncated=truncated)
    details = getattr(usage, "prompt_tokens_details", None)
    cached = (getattr(details, "cached_tokens", None) or 0) if details else 0
    return ContextAnswer(
        text=answer.strip(),
        input_tokens=max((usage.prompt_tokens or 0) - cached, 0),
        output_tokens=usage.completion_tokens or 0,
        cache_read_tokens=cached,
        truncated=truncated,
    )


def ollama_url(base_url: str | None) -> str:
    """Ollama's root URL from ``base_url``, ``OLLAMA_HOST`` (``host:port`` allowed) or default."""
    url = (base_url or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_URL).strip().rstrip("/")
    if "://" not in url:
        url = f"http://{url}"
    return url.removesuffix("/v1")


def azure_settings(endpoint: str | None, api_version: str | None) -> tuple[str, str]:
    endpoint = endpoint or os.environ.get("AZURE_OPENAI_ENDPOINT")
    version = api_version or os.environ.get("OPENAI_API_VERSION")
    if not endpoint:
        raise ProviderError("azure_openai needs an endpoint: set AZURE_OPENAI_ENDPOINT")
    if not version:
        raise ProviderError("azure_openai needs an API version: set OPENAI_API_VERSION")
    return endpoint, version


def ref_fields(ref: Any) -> dict[str, Any]:
    """The fields of a ``ModelRef``, a mapping or any object with ``provider`` and ``name``."""
    if isinstance(ref, dict):
        fields = dict(ref)
    elif hasattr(ref, "model_dump"):
        fields = ref.model_dump(exclude_none=True)
    else:
        fields = {k: v for k, v in vars(ref).items() if not k.startswith("_")}
    for secret in ("api_key", "key", "token", "auth_token"):
        if fields.get(secret):
            raise ProviderError(
                f"model setting '{secret}' is not allowed: "
                "API keys are read from environment variables only"
            )
    if not fields.get("provider") or not fields.get("name"):
        raise ProviderError("a model needs a provider and a name")
    fields["provider"] = PROVIDER_ALIASES.get(fields["provider"], fields["provider"])
    return fields


def context_model_from(ref: Any, timeout: float = DEFAULT_TIMEOUT) -> ContextModel:
    """The context model of a ``context_model: {provider, name, temperature, ...}`` setting.

    Optional extra fields: ``base_url`` (a compatible server, or a test server),
    ``max_document_tokens``, and for Azure ``endpoint`` and ``api_version``.
    """
    fields = ref_fields(ref)
    provider, name = fields["provider"], fields["name"]
    temperature = fields.get("temperature")
    base_url = fields.get("base_url")
    max_document = fields.get("max_document_tokens")
    if provider == "anthropic":
        return AnthropicContextModel(
            name,
            temperature,
            base_url,
            timeout,
            max_document if max_document is not None else DEFAULT_MAX_DOCUMENT_TOKENS[provider],
        )
    if provider in ("openai", "azure_openai", "ollama"):
        return OpenAIContextModel(
            name,
            provider,
            temperature,
            base_url,
            timeout,
            max_document,
            endpoint=fields.get("endpoint"),
            api_version=fields.get("api_version"),
        )
    known = "anthropic, openai, azure_openai, ollama"
    raise ProviderError(f"unknown context model provider {provider!r} (known: {known})")
