"""The contextualize engine: cache, retries, fallbacks, adaptive concurrency, cancellation."""

from __future__ import annotations

import asyncio
import hashlib
import logging

import pytest

from hierdoc.pipeline.context_records import ContextJob, ContextStats, MemoryContextCache
from hierdoc.pipeline.contextualize import ContextModelError, contextualize, contextualize_sync
from hierdoc.pipeline.limiter import AdaptiveLimiter
from hierdoc.providers.llm import PROMPT_VERSION, ContextAnswer, context_model_from
from hierdoc.providers.retry import ApiStatusError
from tests.fakeapi import FakeAPI
from tests.paths import REPOSITORY

pytest.importorskip("anthropic")

KEY = "sk-ant-test-SECRET-k3y-0987"


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def make_jobs(documents: int, chunks: int, filler: int = 20) -> list[ContextJob]:
    jobs = []
    for d in range(documents):
        parts = [
            f"Clause {d}.{c}. The party shall notify clause {c} duties." for c in range(chunks)
        ]
        text = f"Agreement {d}\n\n" + "\n".join(p + " words" * filler for p in parts)
        for c, part in enumerate(parts):
            jobs.append(
                ContextJob(
                    document_key=f"doc-{d}",
                    document_hash=digest(text),
                    document_text=text,
                    chunk_id=f"doc-{d}:{c}",
                    chunk_hash=digest(part),
                    chunk_text=part,
                    structural=f"Agreement {d} > Clause {c}",
                )
            )
    return jobs


def model_for(api: FakeAPI, timeout: float = 30.0, **fields):
    model = context_model_from(
        {"provider": "anthropic", "name": "claude-haiku-4-5", "base_url": api.url, **fields},
        timeout=timeout,
    )
    return model


class Sleeps:
    """An injected sleep: records the waits, sleeps for none of them."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)


def run(jobs, model, cache, **options):
    options.setdefault("sleep", Sleeps())
    return contextualize_sync(jobs, model, cache, **options)


def test_contexts_come_from_the_model_then_from_the_cache(fake_api):
    jobs = make_jobs(3, 4)
    cache = MemoryContextCache()
    first = run(jobs, model_for(fake_api), cache)
    assert [r.chunk_id for r in first.results] == [j.chunk_id for j in jobs]
    assert {r.source for r in first.results} == {"llm"}
    assert first.results[5].context.startswith("From Agreement 1: this chunk covers Clause 1.1.")
    assert (first.stats.generated, first.stats.cached, first.stats.failed) == (12, 0, 0)
    assert len(fake_api.calls()) == 12 == len(cache)
    key = ("anthropic:claude-haiku-4-5", PROMPT_VERSION, jobs[0].document_hash, jobs[0].chunk_hash)
    assert cache.entries[key] == first.results[0].context

    second = run(jobs, model_for(fake_api), cache)
    assert len(fake_api.calls()) == 12  # zero calls with a warm cache
    assert (second.stats.generated, second.stats.cached, second.stats.calls) == (0, 12, 0)
    assert [r.context for r in second.results] == [r.context for r in first.results]
    assert all(r.cached and r.source == "llm" for r in second.results)


def test_each_document_is_written_to_the_prompt_cache_once(fake_api):
    fake_api.latency = 0.02
    jobs = make_jobs(4, 6)
    outcome = run(jobs, model_for(fake_api), MemoryContextCache(), concurrency=10)
    assert fake_api.cache_writes == 4  # the first chunk of each document goes alone
    assert fake_api.cache_reads == 20
    stats = outcome.stats
    assert (
        stats.cache_creation_tokens > 0
        and stats.cache_read_tokens == 5 * stats.cache_creation_tokens
    )
    assert stats.input_tokens > 0 and stats.output_tokens > 0
    assert fake_api.max_in_flight <= 10


def test_thirty_percent_faults_lose_nothing_and_a_rerun_completes(fake_api, caplog):
    """The acceptance test: 30% of calls fail (429, 500, timeouts), one chunk always fails."""
    caplog.set_level(logging.DEBUG)
    fake_api.fault_rate = 0.3
    fake_api.seed = 8
    fake_api.slow_seconds = 0.5
    fake_api.poison = "Clause 3.4."
    jobs = make_jobs(6, 10)
    ids = [j.chunk_id for j in jobs]
    cache = MemoryContextCache()
    sleeps = Sleeps()
    model = model_for(fake_api, timeout=0.25)
    first = run(jobs, model, cache, sleep=sleeps, recover_after=2)

    assert [r.chunk_id for r in first.results] == ids  # nothing lost, order kept
    llm = [r for r in first.results if r.source == "llm"]
    structural = [r for r in first.results if r.source == "structural"]
    assert len(llm) + len(structural) == len(jobs)
    assert "doc-3:4" in {r.chunk_id for r in structural}
    for result in structural:
        assert result.context == jobs[ids.index(result.chunk_id)].structural
        assert result.error
    assert len(cache) == len(llm)  # only LLM contexts are cached, the rest is asked again
    stats = first.stats
    assert (stats.generated, stats.failed) == (len(llm), len(structural))
    assert {"429", "500", "timeout"} <= set(stats.failures)
    assert stats.calls == len(jobs) + stats.retries >= len(fake_api.calls())
    assert set(sleeps.waits) <= {0.0, 1.0, 2.0, 4.0}  # Retry-After: 0 on the 429s
    assert KEY not in caplog.text

    fake_api.fault_rate = 0.0
    fake_api.poison = None
    before = len(fake_api.calls())
    second = run(jobs, model, cache)
    asked = {r.body["messages"][0]["content"][1]["text"] for r in fake_api.calls()[before:]}
    assert len(asked) == len(structural)  # the rerun asks for those chunks only
    assert {r.source for r in second.results} == {"llm"}
    assert (second.stats.cached, second.stats.generated) == (len(llm), len(structural))

    third = run(jobs, model, cache)
    assert third.stats.calls == 0 and third.stats.cached == len(jobs)


@pytest.mark.parametrize(
    ("retry_after", "script", "waits"),
    [
        ("7", ["429", "429", "ok"], [7.0, 7.0]),
        (None, ["429", "500", "ok"], [1.0, 2.0]),
        ("120", ["429", "ok"], [60.0]),
        (None, ["500", "timeout", "503", "ok"], [1.0, 2.0, 4.0]),
    ],
)
def test_backoff_waits_and_retry_after(fake_api, retry_after, script, waits):
    fake_api.retry_after = retry_after
    fake_api.slow_seconds = 1.0
    fake_api.script(script)
    sleeps = Sleeps()
    timeout = 0.4 if "timeout" in script else 30.0  # no spurious timeout on a busy machine
    outcome = run(
        make_jobs(1, 1), model_for(fake_api, timeout=timeout), MemoryContextCache(), sleep=sleeps
    )
    assert sleeps.waits == waits
    assert outcome.results[0].source == "llm"
    assert outcome.stats.retries == len(waits)


def test_after_the_last_retry_the_chunk_falls_back_to_structural(fake_api):
    fake_api.script(["500", "500", "500", "500"])
    sleeps = Sleeps()
    outcome = run(make_jobs(1, 1), model_for(fake_api), MemoryContextCache(), sleep=sleeps)
    (result,) = outcome.results
    assert (result.source, result.context) == ("structural", "Agreement 0 > Clause 0")
    assert result.error.startswith("500")
    assert sleeps.waits == [1.0, 2.0, 4.0]
    assert outcome.stats.failures == {"500": 4}


def test_a_rejected_request_falls_back_without_retrying(fake_api):
    fake_api.script(["400"])
    outcome = run(make_jobs(1, 2), model_for(fake_api), MemoryContextCache(), concurrency=1)
    assert [r.source for r in outcome.results] == ["structural", "llm"]
    assert len(fake_api.calls()) == 2


def test_a_rejected_key_stops_the_run_with_a_redacted_error(fake_api, caplog):
    caplog.set_level(logging.DEBUG)
    fake_api.fault_rate = 1.0
    fake_api.faults = ("401",)
    with pytest.raises(ContextModelError) as raised:
        run(make_jobs(3, 5), model_for(fake_api), MemoryContextCache())
    assert "401" in str(raised.value)
    assert KEY not in str(raised.value) and "[redacted]" in str(raised.value)
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    assert KEY not in caplog.text
    assert len(fake_api.calls()) <= 3  # one per document at most, then it stops


class ScriptedModel:
    """An in-process model: fails with 429 on the calls listed, counts calls in flight."""

    name = "test:scripted"
    max_document_tokens = None

    def __init__(self, rate_limited: set[int], delay: float = 0.001) -> None:
        self.rate_limited = rate_limited
        self.delay = delay
        self.calls = 0
        self.in_flight = 0
        self.peaks: list[int] = []

    async def situate(self, document: str, chunk: str, max_tokens: int) -> ContextAnswer:
        self.calls += 1
        number = self.calls
        self.in_flight += 1
        self.peaks.append(self.in_flight)
        try:
            await asyncio.sleep(self.delay)
            if number in self.rate_limited:
                raise ApiStatusError(429, {"retry-after": "0"}, "slow down")
            return ContextAnswer(f"context of {chunk}", input_tokens=10, output_tokens=5)
        finally:
            self.in_flight -= 1


def test_concurrency_halves_on_429_and_recovers():
    model = ScriptedModel(rate_limited=set(range(9, 21)))
    seen: list[int] = []
    outcome = asyncio.run(
        contextualize(
            make_jobs(2, 60),
            model,
            MemoryContextCache(),
            concurrency=8,
            progress=lambda p: seen.append(p.concurrency),
            recover_after=3,
            sleep=Sleeps(),
        )
    )
    assert {r.source for r in outcome.results} == {"llm"}
    assert outcome.stats.lowest_concurrency is not None and outcome.stats.lowest_concurrency <= 2
    assert min(seen) == outcome.stats.lowest_concurrency
    assert seen[-1] == 8  # back to the maximum
    assert max(model.peaks) <= 8
    assert outcome.stats.failures["429"] == 12


async def _limiter_scenario() -> tuple[list[int], int]:
    limiter = AdaptiveLimiter(8, recover_after=2)
    tickets = [await limiter.acquire() for _ in range(8)]
    for ticket in tickets:  # a burst of 429s from calls in flight together counts once
        limiter.on_rate_limit(ticket)
        limiter.release()
    limits = [limiter.limit]
    ticket = await limiter.acquire()
    limiter.on_rate_limit(ticket)
    limiter.release()
    limits.append(limiter.limit)
    for _ in range(20):
        await limiter.acquire()
        limiter.release()
        limiter.on_success()
    limits.append(limiter.limit)
    return limits, limiter.lowest


def test_limiter_halves_once_per_round_and_recovers_by_one():
    limits, lowest = asyncio.run(_limiter_scenario())
    assert limits == [4, 2, 8]
    assert lowest == 2


async def _climb_from_one() -> list[int]:
    limiter = AdaptiveLimiter(4, recover_after=10)
    for _ in range(2):
        limiter.on_rate_limit(await limiter.acquire())
        limiter.release()
    limits = [limiter.limit]
    for _ in range(1 + 2 + 3):  # one round of the current limit per step
        await limiter.acquire()
        limiter.release()
        limiter.on_success()
        limits.append(limiter.limit)
    return limits


def test_limiter_climbs_by_one_per_round_of_the_current_limit():
    assert asyncio.run(_climb_from_one()) == [1, 2, 2, 3, 3, 3, 4]


async def _priority_order() -> list[str]:
    limiter = AdaptiveLimiter(1)
    order: list[str] = []
    holder = await limiter.acquire()

    async def wait(name: str, priority: tuple[int, ...]) -> None:
        async with limiter.slot(priority):
            order.append(name)

    tasks = [
        asyncio.ensure_future(wait("doc2", (2, 0))),
        asyncio.ensure_future(wait("doc0-b", (0, 2))),
        asyncio.ensure_future(wait("doc0-a", (0, 1))),
        asyncio.ensure_future(wait("doc1", (1, 0))),
    ]
    await asyncio.sleep(0)
    tasks[3].cancel()  # a cancelled waiter gives up its place
    await asyncio.sleep(0)
    del holder
    limiter.release()
    await asyncio.gather(*tasks, return_exceptions=True)
    return order


def test_limiter_serves_earlier_documents_first():
    assert asyncio.run(_priority_order()) == ["doc0-a", "doc0-b", "doc2"]


def test_identical_chunks_of_a_document_cost_one_call():
    jobs = make_jobs(1, 2)
    twin = ContextJob(**{**jobs[0].__dict__, "chunk_id": "doc-0:copy"})
    model = ScriptedModel(set())
    outcome = asyncio.run(contextualize([*jobs, twin], model, MemoryContextCache()))
    assert model.calls == 2
    assert outcome.results[2].context == outcome.results[0].context
    assert outcome.results[2].chunk_id == "doc-0:copy"


def test_progress_reports_counts_eta_and_tokens():
    ticks = iter(range(1000))
    events = []
    asyncio.run(
        contextualize(
            make_jobs(2, 5),
            ScriptedModel(set()),
            MemoryContextCache(),
            progress=events.append,
            clock=lambda: float(next(ticks)),
        )
    )
    assert events[0].done == 0 and events[0].eta is None
    assert [e.done for e in events] == list(range(11))
    assert events[-1].total == 10 and events[-1].generated == 10 and events[-1].eta == 0
    assert all(e.eta is not None and e.eta >= 0 for e in events[1:])
    assert events[-1].input_tokens == 100 and events[-1].output_tokens == 50


def test_stats_add_up_across_runs():
    stats = ContextStats()
    cache = MemoryContextCache()
    asyncio.run(contextualize(make_jobs(1, 3), ScriptedModel(set()), cache, stats=stats))
    asyncio.run(contextualize(make_jobs(2, 3), ScriptedModel(set()), cache, stats=stats))
    assert (stats.jobs, stats.generated, stats.cached, stats.calls) == (9, 6, 3, 6)
    assert stats.to_dict()["tokens"] == stats.tokens == 6 * 15


def test_cancelling_keeps_what_was_generated_and_the_next_run_resumes(fake_api):
    fake_api.latency = 0.03
    jobs = make_jobs(3, 10)
    cache = MemoryContextCache()

    async def interrupted() -> None:
        model = model_for(fake_api)
        task = asyncio.ensure_future(contextualize(jobs, model, cache, concurrency=3))
        while len(cache) < 5:
            await asyncio.sleep(0.005)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await model.aclose()

    asyncio.run(interrupted())
    kept = len(cache)
    assert 5 <= kept < len(jobs)
    before = len(fake_api.calls())
    rest = run(jobs, model_for(fake_api), cache)
    assert rest.stats.cached == kept
    assert len(fake_api.calls()) - before == len(jobs) - kept
    assert {r.source for r in rest.results} == {"llm"}


def test_truncated_flag_survives_the_cache(fake_api):
    jobs = make_jobs(1, 2, filler=400)
    cache = MemoryContextCache()
    model = model_for(fake_api, max_document_tokens=500)
    first = run(jobs, model, cache)
    second = run(jobs, model, cache)
    assert all(r.truncated for r in first.results + second.results)
    assert first.stats.truncated == 2 and second.stats.calls == 0
    assert not any(
        r.truncated for r in run(jobs, model_for(fake_api), MemoryContextCache()).results
    )


def test_openai_compatible_model_through_the_engine(fake_api):
    model = context_model_from(
        {"provider": "openai", "name": "qwen2.5", "base_url": fake_api.url + "/v1"}
    )
    outcome = run(make_jobs(2, 3), model, MemoryContextCache())
    assert {r.source for r in outcome.results} == {"llm"}
    assert outcome.stats.cache_read_tokens > 0  # OpenAI-style automatic prefix caching
    assert len(fake_api.calls("/v1/chat/completions")) == 6


def test_no_jobs_no_calls():
    outcome = asyncio.run(contextualize([], ScriptedModel(set()), MemoryContextCache()))
    assert outcome.results == [] and outcome.stats.calls == 0


# A shell without job control starts background jobs with SIGINT ignored, and a
# Python started that way ignores Ctrl-C; a terminal's foreground process does not.
INTERRUPTED_RUN = """
import json, os, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path.insert(0, sys.argv[3])
from hierdoc.pipeline.contextualize import contextualize_sync
from hierdoc.providers.llm import context_model_from
from tests.unit.test_contextualize import make_jobs

class FileCache:
    def __init__(self, path):
        self.path = path
    def get(self, *key):
        return None
    def put(self, *key_and_context):
        with open(self.path, "a") as out:
            out.write(json.dumps(key_and_context) + "\\n")

model = context_model_from(
    {"provider": "anthropic", "name": "claude-haiku-4-5", "base_url": sys.argv[1]}
)
print("started", flush=True)
contextualize_sync(make_jobs(3, 20), model, FileCache(sys.argv[2]), concurrency=2)
"""


@pytest.mark.slow
def test_ctrl_c_stops_promptly_and_keeps_what_arrived(fake_api, tmp_path):
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    # Slow enough that the 60 calls cannot all finish before the signal, even when a
    # loaded machine delays this process's polling by a second or more.
    fake_api.latency = 0.3
    saved = tmp_path / "contexts.jsonl"
    root = str(REPOSITORY)
    process = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED_RUN, fake_api.url, str(saved), root],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ANTHROPIC_API_KEY": KEY},
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if saved.exists() and len(saved.read_text().splitlines()) >= 4:
                break
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
        _, stderr = process.communicate(timeout=10)
        stopped_after = time.monotonic() - interrupted
    finally:
        process.kill()
    assert "KeyboardInterrupt" in stderr
    # Draining the 56 calls left would take 8.4 s (2 at a time, 0.3 s each); the bound
    # leaves room for a loaded machine's process teardown.
    assert stopped_after < 5.0
    kept = [json.loads(line) for line in saved.read_text().splitlines()]
    jobs = make_jobs(3, 20)
    assert 4 <= len(kept) < len(jobs)
    fake_api.latency = 0.05

    cache = MemoryContextCache()
    for *key, context in kept:
        cache.put(*key, context)
    before = len(fake_api.calls())
    rest = run(jobs, model_for(fake_api), cache)
    assert rest.stats.cached == len(kept)
    assert len(fake_api.calls()) - before == len(jobs) - len(kept)
