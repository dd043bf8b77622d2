"""Malformed MCP traffic: hundreds of bad messages down the real server's
stdin and HTTP socket; every one is answered with an error, none gets a traceback, and
the server keeps answering well-formed calls."""

from __future__ import annotations

import json
import queue
import random
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.test_mcp_server import (
    build_corpus_index,
    http_server_at,
    server_command,
    server_env,
    stop,
)

from .harness import Figures

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

STDIO_MESSAGES = 300
HTTP_BODIES = 100


def malformed(rng: random.Random) -> bytes:
    """One message that is not a JSON-RPC message (and contains no newline)."""
    kind = rng.randrange(8)
    if kind == 0:
        return bytes(b for b in rng.randbytes(rng.randint(1, 300)) if b not in b"\r\n") or b"x"
    if kind == 1:
        return json.dumps(rng.choice([None, [], {}, 0, "text", True, [1, 2], 3.5])).encode()
    if kind == 2:
        depth = rng.choice([10, 1000, 100_000])
        return b"[" * depth + b"]" * depth
    if kind == 3:
        return json.dumps({"jsonrpc": "2.0", "id": rng.randint(1, 9999), "method": 5}).encode()
    if kind == 4:
        return json.dumps({"jsonrpc": "1.0", "id": rng.randint(1, 9999), "method": "ping"}).encode()
    if kind == 5:
        whole = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
        return whole[: rng.randint(1, len(whole) - 1)]
    if kind == 6:
        return b"\xff\xfe" + rng.randbytes(20).replace(b"\n", b"").replace(b"\r", b"")
    return json.dumps({"id": rng.randint(1, 9999), "params": {}}).encode()


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    return build_corpus_index(tmp_path_factory.mktemp("mcp-traffic"), embedder)


def _lines(stream: Any, into: queue.Queue) -> None:
    for line in iter(stream.readline, b""):
        into.put(line)


def test_malformed_stdio_traffic_is_all_answered(corpus_index: Path) -> None:
    rng = random.Random(16)
    process = subprocess.Popen(
        server_command("--index", str(corpus_index)),
        env=server_env(),
        cwd=corpus_index.parent,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    answers: queue.Queue = queue.Queue()
    threading.Thread(target=_lines, args=(process.stdout, answers), daemon=True).start()
    assert process.stdin is not None and process.stderr is not None
    unanswered = errors = 0
    try:
        for _ in range(STDIO_MESSAGES):
            process.stdin.write(malformed(rng) + b"\n")
            process.stdin.flush()
            try:
                answer = json.loads(answers.get(timeout=30))
                errors += "error" in answer and "Traceback" not in json.dumps(answer)
            except queue.Empty:
                unanswered += 1
        ping = {"jsonrpc": "2.0", "id": "last", "method": "ping"}
        process.stdin.write(json.dumps(ping).encode() + b"\n")
        process.stdin.flush()
        alive = json.loads(answers.get(timeout=30)).get("id") == "last"
    finally:
        stop(process)
    tracebacks = process.stderr.read().count(b"Traceback")
    Figures("mcp_stdio", {"messages": STDIO_MESSAGES, "unanswered": unanswered,
                          "error_answers": errors, "tracebacks": tracebacks}).save()  # fmt: skip
    assert unanswered == 0 and errors == STDIO_MESSAGES and tracebacks == 0 and alive


@pytest.fixture(scope="module")
def http_server(corpus_index: Path) -> Iterator[tuple[str, Path]]:
    with http_server_at(corpus_index, "traffic") as server:
        yield server


def test_malformed_http_bodies_are_all_4xx(http_server: tuple[str, Path]) -> None:
    url, log = http_server
    rng = random.Random(61)
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    statuses = []
    with httpx.Client(timeout=30) as client:
        for _ in range(HTTP_BODIES):
            statuses.append(client.post(url, content=malformed(rng), headers=headers).status_code)
    server_errors = sum(status >= 500 for status in statuses)
    tracebacks = log.read_text().count("Traceback")
    Figures("mcp_http", {"bodies": HTTP_BODIES, "server_errors": server_errors,
                         "tracebacks": tracebacks}).save()  # fmt: skip
    assert server_errors == 0 and tracebacks == 0
    assert all(400 <= status < 500 for status in statuses)
