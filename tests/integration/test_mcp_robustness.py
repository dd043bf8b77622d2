"""The MCP server against malformed traffic and slow starts.

Raw bytes go down the real server's stdin and HTTP socket: every line that is not a
JSON-RPC message gets a JSON-RPC error, a body that is not UTF-8 JSON is a 400, and no
traceback reaches a client or the log. The official MCP client checks that ``initialize``
is answered while the query model is still loading, and that the first search waits.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.integration.test_mcp_server import (
    build_corpus_index,
    http_server_at,
    server_env,
    start_stdio_server,
    stop,
)
from tests.mcp_messages import INITIALIZE

pytestmark = pytest.mark.slow

DEEP = b"[" * 100_000 + b"]" * 100_000
MALFORMED_LINES = [
    b"garbage",
    b"{}",
    b"[]",
    b"null",
    b"42",
    b'"text"',
    b"\xff\xfe\x00 not utf-8",
    b'{"jsonrpc": "2.0", "id": 9, "method": 5}',
    b'{"jsonrpc": "1.0", "id": 10, "method": "ping"}',
    b'{"id": 11}',
    b"{" * 50,
    DEEP,
]
WARM_UP_DELAY = 15.0
SLOW_WARM_UP = f"""
import time
import hierdoc.mcp.server as server
original = server.warm_up
server.warm_up = lambda index: (time.sleep({WARM_UP_DELAY}), original(index))
from hierdoc.cli import main
main()
"""


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    return build_corpus_index(tmp_path_factory.mktemp("mcp-robust"), embedder)


def _lines(stream: Any, into: queue.Queue) -> None:
    for line in iter(stream.readline, b""):
        into.put(line)


@pytest.fixture()
def raw_stdio(corpus_index: Path) -> Iterator[tuple[subprocess.Popen, queue.Queue]]:
    process = start_stdio_server(corpus_index)
    answers: queue.Queue = queue.Queue()
    threading.Thread(target=_lines, args=(process.stdout, answers), daemon=True).start()
    try:
        yield process, answers
    finally:
        stop(process)


def _send(process: subprocess.Popen, line: bytes) -> None:
    assert process.stdin is not None
    process.stdin.write(line + b"\n")
    process.stdin.flush()


def _answer(answers: queue.Queue, seconds: float = 60) -> dict[str, Any]:
    return json.loads(answers.get(timeout=seconds))


def test_every_malformed_stdio_line_gets_a_json_rpc_error(
    raw_stdio: tuple[subprocess.Popen, queue.Queue],
) -> None:
    process, answers = raw_stdio
    for line in MALFORMED_LINES:
        _send(process, line)
    errors = [_answer(answers) for _ in MALFORMED_LINES]
    assert all(e["jsonrpc"] == "2.0" and e["error"]["code"] in (-32700, -32600) for e in errors)
    assert [e["id"] for e in errors] == [None] * 7 + [9, 10, 11, None, None]
    assert errors[-1]["error"]["code"] == -32700  # 100,000 levels deep: a parse error
    _send(process, json.dumps(INITIALIZE).encode())
    assert _answer(answers)["result"]["serverInfo"]["name"] == "hierdoc"
    _send(process, b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "search", "arguments": {"query": "late payment"}}}  # fmt: skip
    _send(process, json.dumps(call).encode())
    result = _answer(answers)
    assert result["id"] == 2 and result["result"]["structuredContent"]["results"]
    assert answers.empty()
    stop(process)
    assert process.stderr is not None
    assert b"Traceback" not in process.stderr.read()


@pytest.fixture()
def http_server(corpus_index: Path) -> Iterator[tuple[str, Path]]:
    with http_server_at(corpus_index, "robust") as server:
        yield server


@pytest.mark.parametrize("body", [b"\xff\xfe{not utf-8}", DEEP, b"garbage"])
def test_a_bad_http_body_is_a_400_without_a_traceback(
    http_server: tuple[str, Path], body: bytes
) -> None:
    url, log = http_server
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    response = httpx.post(url, content=body, headers=headers, timeout=30)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700
    assert "Traceback" not in response.text
    time.sleep(0.5)
    assert "Traceback" not in log.read_text()


def test_initialize_is_answered_while_the_model_loads(corpus_index: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", SLOW_WARM_UP, "serve", "--index", str(corpus_index)],
        env=server_env(),
        cwd=str(corpus_index.parent),
    )

    async def session() -> tuple[float, float, list[Any]]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            started = time.monotonic()
            await client.initialize()
            initialized = time.monotonic() - started
            result = await client.call_tool("search", {"query": "late payment interest"})
            return initialized, time.monotonic() - started, result.structuredContent["results"]

    initialized, searched, results = anyio.run(session)
    assert initialized < WARM_UP_DELAY / 2, initialized
    assert searched >= WARM_UP_DELAY / 2 and results  # the first search waited, then answered
