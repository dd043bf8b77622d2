"""How long do LLM contexts take for 100 pages, and does a second run call the model at all?

The model is the loopback fake API of the tests (``tests/fakeapi.py``) speaking
the Anthropic Messages API through the official SDK, answering each call after
``--latency`` seconds (0.8 s: a short Claude Haiku answer to a cached prompt).
No network: every call goes to 127.0.0.1.

The corpus: ``--documents`` documents (10) of ``--pages`` pages (10) each, a page
being ~3,000 characters (~750 tokens) of numbered clauses, cut into
``--chunks-per-page`` chunks per page (1.8, the GDPR's ratio: 155 chunks over its
88 pages), so 100 pages make 180 chunks. Each run calls ``contextualize`` at
``--concurrency`` (10) with the default retry policy; the second run reuses the
first run's cache.

Reported: wall time, calls, the lower bound ceil(calls / concurrency) x latency,
the serial time calls x latency, tokens (input billed in full, cache writes,
cache reads, output) and, for comparison, the input tokens the same calls
would bill without prompt caching.

    python benchmarks/contextualize_latency.py --latency 0.8
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import math
import os
import platform
import shlex
import sys
import time
from importlib import metadata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hierdoc.pipeline.contextualize import (  # noqa: E402
    ContextJob,
    ContextOutcome,
    ContextProgress,
    MemoryContextCache,
    contextualize_sync,
)
from hierdoc.providers.llm import context_model_from  # noqa: E402
from tests.fakeapi import FakeAPI  # noqa: E402

PAGE_CHARS = 3_000
SENTENCE = "The Provider shall ensure that the obligations in this clause are met without delay. "


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def make_jobs(documents: int, pages: int, chunks_per_page: float) -> list[ContextJob]:
    """Documents of numbered clauses; one chunk per clause, clauses sized to the page ratio."""
    chunks = round(pages * chunks_per_page)
    clause_chars = pages * PAGE_CHARS // chunks
    jobs = []
    for d in range(documents):
        title = f"Services Agreement {d + 1}"
        clauses = []
        for c in range(chunks):
            body = (SENTENCE * (clause_chars // len(SENTENCE) + 1))[: clause_chars - 40]
            clauses.append(f"Clause {c + 1}. {title}, part {c + 1}. {body}")
        text = title + "\n\n" + "\n\n".join(clauses)
        for c, clause in enumerate(clauses):
            jobs.append(
                ContextJob(
                    document_key=f"agreement-{d + 1}",
                    document_hash=digest(text),
                    document_text=text,
                    chunk_id=f"agreement-{d + 1}:clause-{c + 1}",
                    chunk_hash=digest(clause),
                    chunk_text=clause,
                    structural=f"{title} > Clause {c + 1}",
                )
            )
    return jobs


class Progress:
    """One line on stderr every ``every`` seconds: done/total, ETA, tokens, concurrency."""

    def __init__(self, every: float = 2.0) -> None:
        self.every = every
        self.last = 0.0

    def __call__(self, event: ContextProgress) -> None:
        now = time.monotonic()
        if now - self.last < self.every and event.done != event.total:
            return
        self.last = now
        eta = "?" if event.eta is None else f"{event.eta:.0f} s"
        tokens = event.input_tokens + event.output_tokens + event.cache_read_tokens
        tokens += event.cache_creation_tokens
        print(
            f"  {event.done}/{event.total} chunks, ETA {eta}, {tokens:,} tokens, "
            f"concurrency {event.concurrency}",
            file=sys.stderr,
        )


def run(
    jobs: list[ContextJob], url: str, cache: MemoryContextCache, concurrency: int, timeout: float
) -> tuple[ContextOutcome, float]:
    model = context_model_from(
        {"provider": "anthropic", "name": "claude-haiku-4-5", "base_url": url}, timeout=timeout
    )
    started = time.perf_counter()
    outcome = contextualize_sync(jobs, model, cache, concurrency=concurrency, progress=Progress())
    return outcome, time.perf_counter() - started


def row(name: str, outcome: ContextOutcome, seconds: float, calls: int) -> str:
    s = outcome.stats
    return (
        f"| {name} | {seconds:.1f} | {calls} | {s.generated} | {s.cached} | {s.failed} "
        f"| {s.input_tokens:,} | {s.cache_creation_tokens:,} | {s.cache_read_tokens:,} "
        f"| {s.output_tokens:,} |"
    )


def version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.8, help="seconds per call")
    parser.add_argument("--documents", type=int, default=10)
    parser.add_argument("--pages", type=int, default=10, help="pages per document")
    parser.add_argument("--chunks-per-page", type=float, default=1.8)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--fault-rate", type=float, default=0.0, help="share of calls failing")
    parser.add_argument("--faults", default="429,500,timeout", help="kinds of failure drawn")
    parser.add_argument("--timeout", type=float, default=60.0, help="client timeout, seconds")
    args = parser.parse_args()

    os.environ["ANTHROPIC_API_KEY"] = "loopback-benchmark-key"  # only the fake server sees it
    jobs = make_jobs(args.documents, args.pages, args.chunks_per_page)
    cache = MemoryContextCache()
    faults = tuple(args.faults.split(","))
    fake = FakeAPI(args.latency, args.fault_rate, 1, faults, slow_seconds=args.timeout + 1)
    with fake as api:
        print(f"first run: {len(jobs)} chunks", file=sys.stderr)
        first, first_seconds = run(jobs, api.url, cache, args.concurrency, args.timeout)
        first_calls = len(api.calls())
        print("second run, same cache", file=sys.stderr)
        second, second_seconds = run(jobs, api.url, cache, args.concurrency, args.timeout)
        second_calls = len(api.calls()) - first_calls
        max_in_flight = api.max_in_flight

    pages = args.documents * args.pages
    stats = first.stats
    uncached = stats.input_tokens + stats.cache_creation_tokens + stats.cache_read_tokens
    bound = math.ceil(first_calls / args.concurrency) * args.latency
    command = "python " + shlex.join(["benchmarks/contextualize_latency.py", *sys.argv[1:]])
    print(f"## Contextual retrieval at {args.latency:g} s per call\n")
    print(f"- command: `{command}`")
    print(f"- date: {dt.datetime.now().astimezone().isoformat(timespec='seconds')}")
    print(
        f"- machine: {platform.platform()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, anthropic {version('anthropic')}"
    )
    print(
        f"- corpus: {args.documents} documents x {args.pages} pages = {pages} pages, "
        f"{len(jobs)} chunks ({args.chunks_per_page:g} per page), concurrency {args.concurrency}, "
        f"fault rate {args.fault_rate:g} ({args.faults}), client timeout {args.timeout:g} s"
    )
    print(
        f"- first run: lower bound ceil(calls / concurrency) x latency = {bound:.1f} s; "
        f"serial = {first_calls * args.latency:.0f} s; at most {max_in_flight} calls in flight; "
        f"lowest concurrency {stats.lowest_concurrency}; retries {stats.retries} {stats.failures}"
    )
    print(
        f"- input tokens without prompt caching: {uncached:,}; with it, billed in full "
        f"{stats.input_tokens:,} + cache writes {stats.cache_creation_tokens:,} (1.25x) "
        f"+ cache reads {stats.cache_read_tokens:,} (0.1x)\n"
    )
    print(
        "| run | wall s | calls | generated | cached | failed | input tok | cache write tok "
        "| cache read tok | output tok |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    print(row("first (cold cache)", first, first_seconds, first_calls))
    print(row("second (same cache)", second, second_seconds, second_calls))


if __name__ == "__main__":
    main()
