"""What a contextualize run takes and gives: jobs, results, the cache, counters, progress.

A :class:`ContextJob` is one chunk to situate in its document; its
:class:`ContextResult` holds the LLM's context or the structural fallback. The
:class:`ContextCache` protocol is what the run reads and writes contexts
through, keyed by (model, prompt version, document hash, chunk hash);
:class:`MemoryContextCache` keeps them in a dict. :class:`ContextStats` adds up
runs, :class:`ContextProgress` is what a progress callback sees.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ..providers.llm import ContextAnswer
from ..providers.retry import Failure

ContextSource = Literal["llm", "structural"]


@dataclass(frozen=True)
class ContextJob:
    """One chunk to situate. ``structural`` is its fallback context (title > parent chain)."""

    document_key: str
    document_hash: str
    document_text: str
    chunk_id: str
    chunk_hash: str
    chunk_text: str
    structural: str


@dataclass(frozen=True)
class ContextResult:
    """``context`` is the LLM's text (``source="llm"``) or the structural fallback.

    ``truncated``: the document was longer than the model's window and was sent
    with its middle cut out. ``cached``: no call was made for it in this run.
    ``error``: why the fallback was used (redacted, one line).
    """

    chunk_id: str
    context: str
    source: ContextSource
    truncated: bool = False
    cached: bool = False
    error: str | None = None


class MemoryContextCache:
    """A :class:`ContextCache` in a dict, for tests and one-off runs."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str, str, str], str] = {}

    def get(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str
    ) -> str | None:
        return self.entries.get((model, prompt_version, document_hash, chunk_hash))

    def put(
        self, model: str, prompt_version: str, document_hash: str, chunk_hash: str, context: str
    ) -> None:
        self.entries[(model, prompt_version, document_hash, chunk_hash)] = context

    def __len__(self) -> int:
        return len(self.entries)


@dataclass
class ContextStats:
    """Counters of one or more runs; pass the same object to several runs to add them up.

    ``cached``/``generated``/``failed`` count jobs (chunks). ``calls`` counts
    requests sent, retries included; ``failures`` counts failed requests by
    label (``429``, ``500``, ``timeout``, ``connection``...).
    """

    jobs: int = 0
    cached: int = 0
    generated: int = 0
    failed: int = 0
    truncated: int = 0
    calls: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    lowest_concurrency: int | None = None
    seconds: float = 0.0

    def add_answer(self, answer: ContextAnswer) -> None:
        self.input_tokens += answer.input_tokens
        self.output_tokens += answer.output_tokens
        self.cache_creation_tokens += answer.cache_creation_tokens
        self.cache_read_tokens += answer.cache_read_tokens

    def add_failure(self, failure: Failure) -> None:
        self.failures[failure.label] = self.failures.get(failure.label, 0) + 1

    @property
    def tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_tokens
            + self.cache_read_tokens
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tokens": self.tokens}


@dataclass(frozen=True)
class ContextProgress:
    """Where a run is: jobs ``done`` of ``total``, estimated seconds left, tokens so far."""

    done: int
    total: int
    cached: int
    generated: int
    failed: int
    elapsed: float
    eta: float | None
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_creation_tokens: int
    concurrency: int


@dataclass
class ContextOutcome:
    """The results, one per job and in the jobs' order, and the run's counters."""

    results: list[ContextResult]
    stats: ContextStats
