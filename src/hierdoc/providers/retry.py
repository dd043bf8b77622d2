"""Retrying calls to remote model APIs: which errors are worth retrying, and how long to wait.

One policy for the context LLMs (``contextualize.py``) and the API embedders
(``embed_api.py``): rate limits (429), server errors (5xx), request timeouts and
connection errors are retried after 1 s, 2 s and 4 s, or after the server's
``Retry-After`` when it sends one (capped at 60 s). The SDKs' own retries are
turned off so that this is the only retry loop and its waits can be counted,
logged and, in tests, replaced by a sleep that does not sleep.

Errors are recognised by duck typing (an int ``status_code`` and a ``response``
with ``headers``, as the anthropic and openai SDKs' ``APIStatusError`` have) and
by the timeout and connection error classes of those SDKs and of httpx, so this
module imports none of them eagerly.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import os
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Literal, TypeVar

from ..errors import ProviderError

T = TypeVar("T")

RETRY_DELAYS: tuple[float, ...] = (1.0, 2.0, 4.0)
MAX_RETRY_AFTER = 60.0
"""A longer ``Retry-After`` is capped: a chunk waits at most this long for one attempt."""

FATAL_STATUSES = frozenset({401, 403, 404})
"""Wrong key, no access, unknown model or deployment: every later call would fail the same way."""

FailureKind = Literal["rate_limit", "server", "timeout", "connection", "client", "fatal", "other"]


class ApiStatusError(ProviderError):
    """An HTTP error from an API reached without an SDK (Ollama through httpx)."""

    def __init__(self, status_code: int, headers: Mapping[str, str], message: str) -> None:
        super().__init__(f"HTTP {status_code}: {message}")
        self.status_code = status_code
        self.headers = dict((k.lower(), v) for k, v in headers.items())


@dataclass(frozen=True)
class Failure:
    """What went wrong with one call, as far as retrying is concerned."""

    kind: FailureKind
    status: int | None = None
    retry_after: float | None = None

    @property
    def retryable(self) -> bool:
        return self.kind in ("rate_limit", "server", "timeout", "connection")

    @property
    def label(self) -> str:
        """Short name for counters: ``429``, ``500``, ``timeout``, ``connection``..."""
        return str(self.status) if self.status is not None else self.kind


@dataclass(frozen=True)
class RetryPolicy:
    delays: tuple[float, ...] = RETRY_DELAYS
    max_retry_after: float = MAX_RETRY_AFTER

    @property
    def attempts(self) -> int:
        return len(self.delays) + 1

    def wait(self, retry: int, failure: Failure) -> float:
        """Seconds to wait before retry number ``retry`` (0-based) after ``failure``."""
        if failure.retry_after is not None:
            return min(max(failure.retry_after, 0.0), self.max_retry_after)
        return self.delays[min(retry, len(self.delays) - 1)]


# Per kind: the built-in classes, then the SDK class names (anthropic, openai) and httpx's.
_KINDS: dict[str, tuple[tuple[type[BaseException], ...], str, str]] = {
    "timeout": ((TimeoutError, asyncio.TimeoutError), "APITimeoutError", "TimeoutException"),
    "connection": ((ConnectionError,), "APIConnectionError", "TransportError"),
}


def _optional_class(module: str, name: str) -> list[type[BaseException]]:
    import importlib

    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return []
    return [found] if isinstance(found, type) else []


_CLASSES: dict[str, tuple[type[BaseException], ...]] = {}


def _classes(kind: str) -> tuple[type[BaseException], ...]:
    """The exception classes of a failure kind, from the SDKs that are installed."""
    if kind not in _CLASSES:
        builtin, sdk_name, httpx_name = _KINDS[kind]
        found = list(builtin)
        for module, name in (
            ("anthropic", sdk_name),
            ("openai", sdk_name),
            ("httpx2", httpx_name),
            ("httpx", httpx_name),
        ):
            found.extend(_optional_class(module, name))
        _CLASSES[kind] = tuple(found)
    return _CLASSES[kind]


def _headers_of(error: BaseException) -> Mapping[str, str]:
    headers = getattr(error, "headers", None)
    if headers is None:
        headers = getattr(getattr(error, "response", None), "headers", None)
    return headers if headers is not None else {}


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date), else None."""
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            seconds = _http_date_seconds(value) if name == "retry-after" else None
        if seconds is not None and math.isfinite(seconds):
            return max(seconds, 0.0)
    return None


def _http_date_seconds(value: str) -> float | None:
    try:
        parsed = email.utils.parsedate_tz(value)
        return None if parsed is None else float(email.utils.mktime_tz(parsed) - time.time())
    except (TypeError, ValueError, OverflowError):
        return None


def classify(error: BaseException) -> Failure:
    """Whether ``error`` is worth retrying, and the server's requested wait if it said one."""
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        retry_after = parse_retry_after(_headers_of(error))
        if status == 429:
            return Failure("rate_limit", status, retry_after)
        if status >= 500 or status == 408:
            return Failure("server", status, retry_after)
        if status in FATAL_STATUSES:
            return Failure("fatal", status)
        return Failure("client", status)
    if isinstance(error, _classes("timeout")):
        return Failure("timeout")
    if isinstance(error, _classes("connection")):
        return Failure("connection")
    return Failure("other")


async def retry_async(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    on_retry: Callable[[Failure, float], None] | None = None,
) -> T:
    """``await call()``, retried per ``policy``; the last error propagates when retries run out."""
    for retry in range(policy.attempts):
        try:
            return await call()
        except Exception as error:
            failure = classify(error)
            if not failure.retryable or retry == policy.attempts - 1:
                raise
            wait = policy.wait(retry, failure)
            if on_retry is not None:
                on_retry(failure, wait)
        await sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover


def retry_sync(
    call: Callable[[], T],
    policy: RetryPolicy = RetryPolicy(),
    sleep: Callable[[float], None] = time.sleep,
    on_retry: Callable[[Failure, float], None] | None = None,
) -> T:
    """``call()``, retried per ``policy``; the same rules as :func:`retry_async`."""
    for retry in range(policy.attempts):
        try:
            return call()
        except Exception as error:
            failure = classify(error)
            if not failure.retryable or retry == policy.attempts - 1:
                raise
            wait = policy.wait(retry, failure)
            if on_retry is not None:
                on_retry(failure, wait)
        sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover


_SECRET_VARIABLE = re.compile(r"(_API_KEY|_AUTH_TOKEN|_AD_TOKEN)$")


def redact(text: str) -> str:
    """``text`` with the value of every ``*_API_KEY``/``*_AUTH_TOKEN`` variable replaced.

    Some servers echo the key they were sent in an error body ("Incorrect API key
    provided: sk-..."), which the SDKs put in the exception message; nothing that
    hierdoc logs, stores or raises goes through without this.
    """
    for variable, value in os.environ.items():
        if _SECRET_VARIABLE.search(variable) and len(value) >= 6 and value in text:
            text = text.replace(value, "[redacted]")
    return text


def describe(error: BaseException, limit: int = 300) -> str:
    """One line naming the error, with secrets redacted, for logs and reports."""
    failure = classify(error)
    message = " ".join(str(error).split()) or type(error).__name__
    if len(message) > limit:
        message = message[: limit - 3] + "..."
    return redact(f"{failure.label}: {type(error).__name__}: {message}")
