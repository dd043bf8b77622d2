"""LLM-written chunk contexts at scale: cached, concurrent, rate-limit aware, resumable.

Each job is a chunk of a document. Its context is looked up in a cache keyed by
(model, prompt version, document hash, chunk hash) and only the misses go to the
model, so a re-run, a restart or a change to another file pays for nothing twice.
Every context is written to the cache as soon as it arrives: a run stopped by
Ctrl-C keeps what it paid for, and the next run asks only for the rest.

Calls are grouped by document because the prompt cache works per document: a
document's first chunk is sent alone, so that it writes the document to the
cache, and then the rest of its chunks together, which read it. A priority on
the concurrency slots (earlier documents first) keeps a document's calls close
together in time while later documents' first chunks fill the idle slots.

Failures: 429, 5xx, timeouts and connection errors are retried after 1 s, 2 s
and 4 s (or the server's ``Retry-After``, see ``retry.py``). A 429 halves the
number of calls in flight (at most once per round of calls that saw it, down to
1); every ``min(recover_after, limit)`` successes without a 429 raise it by one
again, up to the configured concurrency. A chunk whose last attempt fails, or whose request
is rejected (another 4xx), gets its structural context and ``source =
"structural"``: it is not cached, so the next run asks again. A rejected key or
unknown model (401, 403, 404) stops the run with :class:`ContextModelError`
rather than failing every chunk one by one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import FatalProviderError
from ..providers.llm import PROMPT_VERSION, ContextAnswer, ContextModel, needs_truncation
from ..providers.retry import Failure, RetryPolicy, classify, describe, retry_async
from ..store.base import ContextCache
from .context_records import (
    ContextJob,
    ContextOutcome,
    ContextProgress,
    ContextResult,
    ContextSource,
    ContextStats,
    MemoryContextCache,
)
from .limiter import AdaptiveLimiter, Priority

# The records of a run are importable from here, where the run is.
__all__ = [
    "AdaptiveLimiter",
    "ContextCache",
    "ContextJob",
    "ContextModelError",
    "ContextOutcome",
    "ContextProgress",
    "ContextResult",
    "ContextStats",
    "MemoryContextCache",
    "contextualize",
    "contextualize_sync",
]

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]


class ContextModelError(FatalProviderError):
    """The model refused every call (bad key, no access, unknown model); the message is redacted."""


@dataclass
class _Unit:
    """Jobs that share a document and a chunk text: one call serves them all."""

    job: ContextJob
    indices: list[int]


ProgressFn = Callable[[ContextProgress], None]


class _Engine:
    def __init__(
        self,
        jobs: Sequence[ContextJob],
        model: ContextModel,
        cache: ContextCache,
        max_tokens: int,
        limiter: AdaptiveLimiter,
        policy: RetryPolicy,
        sleep: Sleep,
        clock: Callable[[], float],
        progress: ProgressFn | None,
        stats: ContextStats,
    ) -> None:
        self.jobs = jobs
        self.model = model
        self.cache = cache
        self.max_tokens = max_tokens
        self.limiter = limiter
        self.policy = policy
        self.sleep = sleep
        self.clock = clock
        self.progress = progress
        self.stats = stats
        self.prompt_version = str(getattr(model, "prompt_version", PROMPT_VERSION))
        self.max_document_tokens = getattr(model, "max_document_tokens", None)
        self.results: list[ContextResult | None] = [None] * len(jobs)
        self.done = self.cached = self.generated = self.failed = 0
        self.started = clock()
        self.calls_started: float | None = None
        self.via_calls = 0

    def key(self, job: ContextJob) -> tuple[str, str, str, str]:
        return (self.model.name, self.prompt_version, job.document_hash, job.chunk_hash)

    def truncated(self, job: ContextJob) -> bool:
        return needs_truncation(job.document_text, self.max_document_tokens)

    def from_cache(self) -> list[list[_Unit]]:
        """Fill the results the cache has; the misses, one list of units per document."""
        units: dict[tuple[str, str], _Unit] = {}
        for index, job in enumerate(self.jobs):
            key = (job.document_hash, job.chunk_hash)
            if key in units:
                units[key].indices.append(index)
                continue
            hit = self.cache.get(*self.key(job))
            if hit is not None and hit.strip():
                self.finish_one(index, job, hit, "llm", cached=True)
            else:
                units[key] = _Unit(job, [index])
        documents: dict[str, list[_Unit]] = {}
        for unit in units.values():
            documents.setdefault(unit.job.document_hash, []).append(unit)
        return list(documents.values())

    def finish_one(
        self,
        index: int,
        job: ContextJob,
        context: str,
        source: ContextSource,
        cached: bool = False,
        error: str | None = None,
    ) -> None:
        truncated = self.truncated(job)
        self.results[index] = ContextResult(job.chunk_id, context, source, truncated, cached, error)
        self.done += 1
        self.stats.truncated += truncated
        if cached:
            self.cached += 1
            self.stats.cached += 1
        elif source == "llm":
            self.generated += 1
            self.stats.generated += 1
        else:
            self.failed += 1
            self.stats.failed += 1

    def finish(self, unit: _Unit, context: str, source: ContextSource, error: str | None) -> None:
        for index in unit.indices:
            job = self.jobs[index]
            text = context if source == "llm" else job.structural
            self.finish_one(index, job, text, source, error=error)
        self.via_calls += len(unit.indices)
        self.report()

    def report(self) -> None:
        if self.progress is None:
            return
        now = self.clock()
        eta = None
        if self.calls_started is not None and self.via_calls:
            rate = (now - self.calls_started) / self.via_calls
            eta = rate * (len(self.jobs) - self.done)
        stats = self.stats
        self.progress(
            ContextProgress(
                self.done,
                len(self.jobs),
                self.cached,
                self.generated,
                self.failed,
                now - self.started,
                eta,
                stats.input_tokens,
                stats.output_tokens,
                stats.cache_read_tokens,
                stats.cache_creation_tokens,
                self.limiter.limit,
            )
        )

    async def document(self, position: int, units: list[_Unit], window: asyncio.Semaphore) -> None:
        async with window:
            await self.unit(units[0], (position, 0))
            await asyncio.gather(
                *(self.unit(unit, (position, n)) for n, unit in enumerate(units[1:], start=1))
            )

    async def unit(self, unit: _Unit, priority: Priority) -> None:
        job = unit.job
        try:
            answer = await retry_async(
                lambda: self.attempt(job, priority), self.policy, self.sleep, self.on_retry
            )
        except Exception as error:
            failure = classify(error)
            self.stats.add_failure(failure)
            reason = describe(error)
            if failure.kind == "fatal":
                raise ContextModelError(
                    f"{self.model.name} refused the request: {reason}"
                ) from None
            logger.warning("context for %s falls back to structural: %s", job.chunk_id, reason)
            self.finish(unit, "", "structural", reason)
            return
        self.stats.add_answer(answer)
        if not answer.text:
            logger.warning("context for %s falls back to structural: empty answer", job.chunk_id)
            self.finish(unit, "", "structural", "empty answer")
            return
        self.cache.put(*self.key(job), answer.text)
        self.finish(unit, answer.text, "llm", None)

    async def attempt(self, job: ContextJob, priority: Priority) -> ContextAnswer:
        async with self.limiter.slot(priority) as ticket:
            if self.calls_started is None:
                self.calls_started = self.clock()
            self.stats.calls += 1
            try:
                answer = await self.model.situate(
                    job.document_text, job.chunk_text, self.max_tokens
                )
            except Exception as error:
                if classify(error).kind == "rate_limit":
                    self.limiter.on_rate_limit(ticket)
                raise
        self.limiter.on_success()
        return answer

    def on_retry(self, failure: Failure, wait: float) -> None:
        self.stats.retries += 1
        self.stats.add_failure(failure)
        logger.debug("%s failed (%s); retrying in %.1f s", self.model.name, failure.label, wait)


async def contextualize(
    jobs: Sequence[ContextJob],
    model: ContextModel,
    cache: ContextCache,
    concurrency: int = 10,
    max_tokens: int = 100,
    progress: ProgressFn | None = None,
    *,
    stats: ContextStats | None = None,
    policy: RetryPolicy | None = None,
    recover_after: int = 10,
    sleep: Sleep = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> ContextOutcome:
    """A context for every job: from the cache, from ``model``, or structural if the model fails.

    Never loses a job: the outcome has one result per job, in order. Cancelling
    the task (Ctrl-C in :func:`contextualize_sync`) stops the calls in flight;
    every context received before is already in ``cache``.
    """
    stats = stats if stats is not None else ContextStats()
    limiter = AdaptiveLimiter(concurrency, recover_after)
    engine = _Engine(
        jobs,
        model,
        cache,
        max_tokens,
        limiter,
        policy or RetryPolicy(),
        sleep,
        clock,
        progress,
        stats,
    )
    stats.jobs += len(jobs)
    try:
        documents = engine.from_cache()
        engine.report()
        window = asyncio.Semaphore(concurrency)
        tasks = [
            asyncio.ensure_future(engine.document(position, units, window))
            for position, units in enumerate(documents)
        ]
        await _all_or_cancel(tasks)
    finally:
        stats.seconds += clock() - engine.started
        lowest = stats.lowest_concurrency
        stats.lowest_concurrency = limiter.lowest if lowest is None else min(lowest, limiter.lowest)
    results = [result for result in engine.results if result is not None]
    assert len(results) == len(jobs), "every job has a result"
    return ContextOutcome(results, stats)


async def _all_or_cancel(tasks: list[asyncio.Future[None]]) -> None:
    """Await every task; on the first error or a cancellation, cancel the rest and re-raise."""
    if not tasks:
        return
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def contextualize_sync(
    jobs: Sequence[ContextJob],
    model: ContextModel,
    cache: ContextCache,
    concurrency: int = 10,
    max_tokens: int = 100,
    progress: ProgressFn | None = None,
    **options: Any,
) -> ContextOutcome:
    """:func:`contextualize` in a fresh event loop (not from inside a running one).

    Ctrl-C cancels the run and raises ``KeyboardInterrupt`` here; the contexts
    received until then are in ``cache``. The model's client for this loop is
    closed at the end (``aclose``), so the model can be used again by a later call.
    """

    async def main() -> ContextOutcome:
        try:
            return await contextualize(
                jobs, model, cache, concurrency, max_tokens, progress, **options
            )
        finally:
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()

    return asyncio.run(main())
