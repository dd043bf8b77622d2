"""The MCP server as agents use it: the official MCP client over stdio and streamable HTTP.

The servers run in subprocesses (``python -m hierdoc serve``, the same as ``hierdoc
serve``) over a small corpus indexed once per session with the real model. Each transport
keeps one server for the module; the client sessions live in an anyio blocking portal so
that the tests themselves stay plain functions.
"""

from __future__ import annotations

import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from hierdoc.cli import main
from hierdoc.mcp.server import check_bind, is_loopback, parse_http_address

slow = pytest.mark.slow

SERVICES = """\
# Master Services Agreement

## Article 1 - Definitions

In this Agreement:

"Confidential Information" means any information disclosed by one party to the other that is
marked as confidential or that a reasonable person would treat as confidential.

"Services" means the document review services described in Article 2.

"Personal Data" means any information about an identifiable person that the Supplier processes
on behalf of the Client.

## Article 2 - Services

2.1 The Supplier shall provide the Services with reasonable skill and care.

2.2 The Supplier may use subcontractors only with the prior written consent of the Client.

## Article 3 - Fees

3.1 The Client shall pay each invoice within thirty days of the invoice date.

3.2 Late payments bear interest at two percent per month.

## Article 4 - Confidentiality

Each party shall keep the other party's Confidential Information secret and shall use it only to
perform this Agreement, as described in Article 2.

## Article 5 - Termination

Either party may terminate this Agreement on ninety days' written notice. Fees due under
Article 3 survive termination, and the obligations in Article 4 continue for five years.
"""

REGULATION = """\
# Data Protection Regulation

## Chapter I - General provisions

### Article 1 - Subject matter

This Regulation lays down rules relating to the protection of natural persons with regard to
the processing of personal data.

### Article 2 - Definitions

For the purposes of this Regulation:

(1) 'personal data' means any information relating to an identified or identifiable natural
person ('data subject');

(2) 'processing' means any operation which is performed on personal data, such as collection,
recording, storage or erasure;

(3) 'controller' means the natural or legal person which determines the purposes and means of
the processing of personal data.

## Chapter II - Rights of the data subject

### Article 3 - Right to erasure

1. The data subject shall have the right to obtain from the controller the erasure of personal
data concerning him or her without undue delay where one of the following grounds applies:

(a) the personal data are no longer necessary in relation to the purposes for which they were
collected;

(b) the data subject withdraws consent on which the processing is based.

2. Paragraph 1 shall not apply to the extent that processing is necessary for compliance with a
legal obligation referred to in Article 4.

### Article 4 - Lawfulness of processing

Processing shall be lawful only if the data subject has given consent or the processing is
necessary for compliance with a legal obligation. The controller shall respect the rights set
out in Article 3(1)(b).
"""

CORPUS = {"services_agreement.md": SERVICES, "data_regulation.md": REGULATION}
TOOLS = {"search", "get_section", "define", "references", "list_documents"}
STARTUP_SECONDS = 120  # a cold CI machine imports torch and loads the model first
CALL_SECONDS = 60


def write_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in CORPUS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def build_corpus_index(folder: Path, embedder: Any) -> Path:
    """Index the corpus into ``folder/index`` with the session's model; return the directory."""
    from hierdoc import Index, Settings

    directory = folder / "index"
    with Index.open(directory, Settings(), embedder=embedder) as index:
        report = index.ingest([write_corpus(folder / "corpus")])
    assert not report.problems, report.problems
    return directory


@pytest.fixture(scope="session")
def corpus_index(tmp_path_factory, embedder) -> Path:
    return build_corpus_index(tmp_path_factory.mktemp("mcp"), embedder)


def server_env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def server_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "hierdoc", "serve", *args]


def start_stdio_server(index: Path) -> subprocess.Popen:
    """The stdio server over ``index``, its stdin, stdout and stderr piped."""
    return subprocess.Popen(
        server_command("--index", str(index)),
        env=server_env(),
        cwd=index.parent,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


# -- a client session held open across tests ------------------------------------------


class Remote:
    """A connected MCP client session, called from synchronous tests through a portal."""

    def __init__(self, portal: Any, session: ClientSession, info: Any) -> None:
        self.portal, self.session, self.info = portal, session, info

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        return self.portal.call(self.session.call_tool, name, arguments or {})

    def tools(self) -> list[Any]:
        return self.portal.call(self.session.list_tools).tools

    def gather(self, calls: list[tuple[str, dict[str, Any]]]) -> list[CallToolResult]:
        """Send all calls at once on this session and wait for every answer."""

        async def run_all() -> list[CallToolResult]:
            results: list[Any] = [None] * len(calls)

            async def one(position: int, name: str, arguments: dict[str, Any]) -> None:
                results[position] = await self.session.call_tool(name, arguments)

            with anyio.fail_after(CALL_SECONDS):
                async with anyio.create_task_group() as group:
                    for position, (name, arguments) in enumerate(calls):
                        group.start_soon(one, position, name, arguments)
            return results

        return self.portal.call(run_all)


@asynccontextmanager
async def opened(transport: Any) -> AsyncIterator[tuple[ClientSession, Any]]:
    async with transport as streams:
        read, write = streams[0], streams[1]
        timeout = timedelta(seconds=CALL_SECONDS)
        async with ClientSession(read, write, read_timeout_seconds=timeout) as session:
            with anyio.fail_after(STARTUP_SECONDS):
                info = await session.initialize()
            yield session, info


@pytest.fixture(scope="module")
def portal() -> Iterator[Any]:
    with anyio.from_thread.start_blocking_portal() as running:
        yield running


@pytest.fixture(scope="module")
def stdio(portal, corpus_index) -> Iterator[Remote]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "hierdoc", "serve", "--index", str(corpus_index)],
        env=server_env(),
        cwd=str(corpus_index.parent),
    )
    with portal.wrap_async_context_manager(opened(stdio_client(params))) as (session, info):
        yield Remote(portal, session, info)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(process: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the server exited ({process.returncode}): {log.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"the server did not listen within {STARTUP_SECONDS}s: {log.read_text()}")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


@contextmanager
def http_server_at(index: Path, label: str, *options: str) -> Iterator[tuple[str, Path]]:
    """``hierdoc serve --http`` on a free loopback port over ``index`` (with ``options``,
    such as ``--config FILE``): (its MCP URL, the file its stderr goes to), stopped on
    exit."""
    port = free_port()
    log = index.parent / f"{label}-{port}.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            server_command("--index", str(index), *options, "--http", f"127.0.0.1:{port}"),
            env=server_env(),
            cwd=index.parent,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        try:
            wait_for_port(process, port, log)
            yield f"http://127.0.0.1:{port}/mcp", log
        finally:
            stop(process)


@pytest.fixture(scope="module")
def http_url(corpus_index) -> Iterator[str]:
    with http_server_at(corpus_index, "http") as (url, _):
        yield url


@pytest.fixture(scope="module")
def http(portal, http_url) -> Iterator[Remote]:
    transport = streamable_http_client(http_url)
    with portal.wrap_async_context_manager(opened(transport)) as (session, info):
        yield Remote(portal, session, info)


# -- helpers ------------------------------------------------------------------------------


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def ok(result: CallToolResult) -> dict[str, Any]:
    assert not result.isError, text_of(result)
    assert result.structuredContent is not None
    return result.structuredContent


def name_of(source: str) -> str:
    return Path(source).name


# -- listing ------------------------------------------------------------------------------


@slow
def test_the_server_introduces_itself(stdio) -> None:
    assert stdio.info.serverInfo.name == "hierdoc"
    assert "search" in stdio.info.instructions and "section id" in stdio.info.instructions


@slow
def test_five_read_only_tools_with_schemas_and_no_path_argument(stdio) -> None:
    tools = {tool.name: tool for tool in stdio.tools()}
    assert set(tools) == TOOLS
    arguments = set()
    for tool in tools.values():
        assert tool.annotations.readOnlyHint and not tool.annotations.destructiveHint
        assert tool.outputSchema and tool.outputSchema["type"] == "object"
        assert len(tool.description) > 150
        properties = tool.inputSchema.get("properties", {})
        assert all(p.get("description") for p in properties.values()), tool.name
        arguments |= set(properties)
    assert arguments == {
        *("query", "top_k", "mode", "source", "section", "where", "passages", "explain"),
        *("id", "term"),
    }
    search = tools["search"]
    for spelling in ("Art. 17(3)(b)", "sec. 203(a)(1)", "§ 4.2", "quoted phrase"):
        assert spelling in search.description
    assert search.inputSchema["properties"]["top_k"]["maximum"] == 100
    assert search.inputSchema["required"] == ["query"]


# -- each tool ----------------------------------------------------------------------------


@slow
def test_search_gives_structured_results_and_cited_text(stdio) -> None:
    result = stdio.call("search", {"query": "Art. 3(1)(b)", "top_k": 3})
    data = ok(result)
    assert data["citations"] == [
        {"text": "Art. 3(1)(b)", "section_id": "article-3-1-b", "resolved": True}
    ]
    first = data["results"][0]
    assert (name_of(first["source"]), first["section_id"]) == (
        "data_regulation.md",
        "article-3-1-b",
    )
    assert first["sections"][0] == "article-3" and "article-3-1-b" in first["sections"]
    assert "Article 3 - Right to erasure" in first["parent_chain"]
    assert first["parent_chain"][-1] == first["heading"]
    assert {"text": "Article 4", "target_section_id": "article-4"}.items() <= (
        first["cross_references"][1].items()
    )
    text = text_of(result)
    headers = re.findall(r"^\[(\d+)\] (\S+) · .* · \[([a-z0-9-]+)\]", text, re.MULTILINE)
    expected = [
        (str(rank), name_of(r["source"]), r["section_id"])
        for rank, r in enumerate(data["results"], 1)
    ]
    assert headers == expected, text
    assert '"personal data" (data_regulation.md [article-2-1])' in text


@slow
def test_search_explains_how_its_results_ranked_when_asked(stdio) -> None:
    plain = ok(stdio.call("search", {"query": "Art. 3(1)(b) erasure", "top_k": 3}))
    assert plain["explain"] is None
    result = stdio.call("search", {"query": "Art. 3(1)(b) erasure", "top_k": 3, "explain": True})
    data = ok(result)
    explained = data["explain"]
    analysers = [step["analyser"] for step in explained["plan"]["trace"]]
    assert analysers == ["naming", "syntax", "vocabulary"]
    assert explained["plan"]["citations"][0]["section_ids"][0] == "article-3-1-b"
    assert set(explained["modalities"]) == {"exact", "keyword", "semantic"}
    assert explained["fusion"]["k"] == 60
    first = explained["results"][0]
    assert first["chunk_id"] == data["results"][0]["chunk_id"]
    assert first["pin"] == "cites Art. 3(1)(b)" and first["ranks"]["exact"] == 1
    assert "How these ranked:" in text_of(result) and "pinned: cites Art. 3(1)(b)" in text_of(
        result
    )


@slow
def test_search_filters_by_document_and_section(stdio) -> None:
    data = ok(stdio.call("search", {"query": "notice", "source": "services_agreement.md"}))
    assert data["results"]
    assert {name_of(r["source"]) for r in data["results"]} == {"services_agreement.md"}
    data = ok(stdio.call("search", {"query": "consent", "section": "chapter-2"}))
    assert {r["sections"][0] for r in data["results"]} <= {"article-3", "article-4"}
    assert all(r["section_id"] in r["sections"] for r in data["results"])


@slow
def test_search_for_a_citation_not_in_the_index_says_so(stdio) -> None:
    result = stdio.call("search", {"query": "Article 99(2)"})
    data = ok(result)
    assert data["no_match"] and data["results"] == []
    assert any("Article 99(2)" in note for note in data["notes"])
    assert "no_match" in text_of(result)


@slow
def test_get_section_by_citation_with_parents_children_and_neighbours(stdio) -> None:
    result = stdio.call("get_section", {"id": "Article 3(1)", "source": "data_regulation.md"})
    data = ok(result)
    assert data["section"]["section_id"] == "article-3-1"
    assert data["section_chain"] == [
        "Chapter II - Rights of the data subject",
        "Article 3 - Right to erasure",
        "1.",
    ]
    assert [c["section_id"] for c in data["children"]] == ["article-3-1-a", "article-3-1-b"]
    assert data["previous"]["section_id"] == "article-2"
    assert data["next"]["section_id"] == "article-4"
    assert "without undue delay" in data["section"]["text"]
    text = text_of(result)
    assert text.startswith("data_regulation.md · Chapter II")
    assert "[article-3-1]" in text.splitlines()[0]


@slow
def test_get_section_tells_when_documents_share_an_id(stdio) -> None:
    data = ok(stdio.call("get_section", {"id": "article-3"}))
    assert [name_of(s) for s in data["other_sources"]] == ["services_agreement.md"]
    assert any("pass source" in note for note in data["notes"])
    chosen = ok(stdio.call("get_section", {"id": "article-3", "source": "services_agreement.md"}))
    assert chosen["section"]["heading"] == "Article 3 - Fees"
    assert chosen["other_sources"] == []


@slow
def test_get_section_by_chunk_id(stdio) -> None:
    found = ok(stdio.call("search", {"query": "Article 4", "source": "services_agreement.md"}))
    chunk_id = found["results"][0]["chunk_id"]
    data = ok(stdio.call("get_section", {"id": chunk_id}))
    assert data["chunk_id"] == chunk_id and data["section"] is None
    assert "Confidential Information" in data["content"]


@slow
def test_define_gives_every_definition_with_citations(stdio) -> None:
    result = stdio.call("define", {"term": "personal data"})
    data = ok(result)
    assert data["conflict"] is True
    cited = {(name_of(d["source"]), d["section_id"]) for d in data["definitions"]}
    assert cited == {("data_regulation.md", "article-2-1"), ("services_agreement.md", "article-1")}
    text = text_of(result)
    assert "define it differently" in text
    assert (
        "data_regulation.md [article-2-1]" in text and "services_agreement.md [article-1]" in text
    )


@slow
def test_define_an_undefined_term_is_an_answer_not_an_error(stdio) -> None:
    result = stdio.call("define", {"term": "force majeure"})
    assert ok(result)["definitions"] == []
    assert "not defined" in text_of(result)


@slow
def test_references_out_and_in_stay_in_one_document(stdio) -> None:
    data = ok(stdio.call("references", {"id": "article-3", "source": "data_regulation.md"}))
    assert {r["target_section_id"] for r in data["outgoing"]} == {"article-3-1", "article-4"}
    incoming = {(r["from_section_id"], r["text"]) for r in data["incoming"]}
    assert ("article-4", "Article 3(1)(b)") in incoming
    assert all(name_of(r["source"]) == "data_regulation.md" for r in data["incoming"])
    fees = ok(stdio.call("references", {"id": "article-3", "source": "services_agreement.md"}))
    assert [(r["from_section_id"], r["text"]) for r in fees["incoming"]] == [
        ("article-5", "Article 3")
    ]


@slow
def test_references_of_a_point_are_its_own(stdio) -> None:
    data = ok(stdio.call("references", {"id": "Art. 3(1)(b)"}))
    assert data["section_id"] == "article-3-1-b"
    assert data["outgoing"] == []
    assert [r["from_section_id"] for r in data["incoming"]] == ["article-4"]


@slow
def test_list_documents(stdio) -> None:
    result = stdio.call("list_documents")
    data = ok(result)
    names = [d["name"] for d in data["documents"]]
    assert names == ["data_regulation.md", "services_agreement.md"]
    assert data["total_chunks"] == sum(d["chunks"] for d in data["documents"]) > 0
    assert "Master Services Agreement" in text_of(result)


# -- errors -------------------------------------------------------------------------------

BAD_CALLS = [
    ("search", {"query": "fees", "top_k": 101}, "top_k must be between 1 and 100, got 101"),
    ("search", {"query": "fees", "top_k": 0}, "top_k must be between 1 and 100, got 0"),
    ("search", {"query": "   "}, "the query is empty"),
    ("search", {"query": "x" * 3000}, "the query is too long"),
    ("search", {}, "query: required"),
    ("search", {"query": 42}, "query: Input should be a valid string"),
    ("search", {"query": "fees", "top_k": "ten"}, "top_k: Input should be a valid integer"),
    ("search", {"query": "fees", "mode": "fuzzy"}, "mode: Input should be 'hybrid'"),
    ("search", {"query": "fees", "k": 3}, "unknown argument(s) k; the arguments are"),
    ("search", {"query": "fees", "source": "/etc/passwd"}, "no indexed document matches"),
    ("search", {"query": "fees", "section": "chapter-9"}, "no section with id 'chapter-9'"),
    ("get_section", {"id": "article-99"}, "no section or chunk with id 'article-99'"),
    ("get_section", {"id": ""}, "the id is empty"),
    ("get_section", {"id": "article-" * 50}, "the id is too long"),
    ("get_section", {"id": "article-1", "source": "nope.md"}, "no indexed document matches"),
    ("references", {"id": "Section 7(b)"}, "no section or chunk with id 'Section 7(b)'"),
    ("define", {"term": " "}, "the term is empty"),
    ("define", {"term": "x" * 201}, "the term is too long"),
    ("list_documents", {"path": "/etc"}, "unknown argument(s) path"),
    ("read_file", {"path": "/etc/passwd"}, "unknown tool 'read_file'"),
]


@slow
@pytest.mark.parametrize(("tool", "arguments", "message"), BAD_CALLS)
def test_a_bad_call_is_an_error_result_and_the_server_keeps_serving(
    stdio, tool: str, arguments: dict[str, Any], message: str
) -> None:
    result = stdio.call(tool, arguments)
    assert result.isError
    assert message in text_of(result)
    assert "Traceback" not in text_of(result)
    assert not stdio.call("list_documents").isError


@slow
def test_twenty_concurrent_searches_over_stdio(stdio) -> None:
    queries = [f"late payment interest {n}" for n in range(10)]
    queries += [f"Article {1 + n % 4}" for n in range(10)]
    results = stdio.gather([("search", {"query": q, "top_k": 3}) for q in queries])
    assert [ok(r)["query"] for r in results] == queries
    assert all(ok(r)["results"] for r in results)


# -- streamable HTTP ----------------------------------------------------------------------


@slow
def test_http_lists_tools_and_answers(http) -> None:
    assert {tool.name for tool in http.tools()} == TOOLS
    data = ok(http.call("define", {"term": "Confidential Information"}))
    assert [name_of(d["source"]) for d in data["definitions"]] == ["services_agreement.md"]


@slow
def test_http_error_results_keep_serving(http) -> None:
    result = http.call("search", {"query": "fees", "top_k": 101})
    assert result.isError and "top_k must be between 1 and 100" in text_of(result)
    assert ok(http.call("search", {"query": "fees"}))["results"]


@slow
def test_twenty_concurrent_searches_over_http(portal, http, http_url) -> None:
    queries = [f"termination notice {n}" for n in range(20)]
    results = http.gather([("search", {"query": q}) for q in queries])
    assert [ok(r)["query"] for r in results] == queries

    async def separate_clients() -> list[CallToolResult]:
        async def one(query: str) -> CallToolResult:
            async with opened(streamable_http_client(http_url)) as (session, _):
                return await session.call_tool("search", {"query": query})

        found: list[CallToolResult] = []

        async def keep(query: str) -> None:
            found.append(await one(query))

        with anyio.fail_after(CALL_SECONDS):
            async with anyio.create_task_group() as group:
                for n in range(5):
                    group.start_soon(keep, f"fees {n}")
        return found

    assert all(not r.isError for r in portal.call(separate_clients))


HTTP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@slow
def test_http_malformed_body_is_refused_and_the_server_keeps_serving(http, http_url) -> None:
    response = httpx.post(http_url, content=b"{not json", headers=HTTP_HEADERS, timeout=10)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700
    assert not http.call("list_documents").isError


@slow
def test_http_refuses_a_foreign_host_header(http_url) -> None:
    """DNS rebinding protection: a page on another origin cannot drive a loopback server."""
    headers = {**HTTP_HEADERS, "host": "attacker.example"}
    response = httpx.post(http_url, content=b"{}", headers=headers, timeout=10)
    assert response.status_code in (403, 421)


# -- a HoloDeck agent file, and malformed input on stdio ----------------------------------

AGENT = """\
name: contracts-assistant
description: Answers questions about our contracts and the data protection rules
model:
  provider: anthropic
  name: claude-sonnet-4-5
instructions:
  inline: Answer from the documents and cite file names and section ids.
tools:
  - name: legal_docs
    description: Our services agreement and the data protection regulation
    type: hierarchical_document
    source: ./corpus
    chunking_strategy: structure
    max_chunk_tokens: 800
    chunk_overlap: 0
    search_mode: hybrid
    top_k: 5
    semantic_weight: 0.5
    keyword_weight: 0.3
    exact_weight: 0.2
    contextual_embeddings: true
    extract_definitions: true
    extract_cross_references: true
    defer_loading: false
"""


class RawServer:
    """A stdio server spoken to line by line, to send what no client library would."""

    def __init__(self, command: list[str], cwd: Path) -> None:
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=server_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.process.stdin is not None
        raw = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.process.stdin.write(raw + b"\n")
        self.process.stdin.flush()

    def response(self, request_id: int, timeout: float = CALL_SECONDS) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                pytest.fail(f"no response to request {request_id}")
            message = json.loads(self.lines.get(timeout=remaining))
            if message.get("id") == request_id:
                return message

    def request(self, request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return self.response(request_id)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            stop(self.process)


INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "raw-test", "version": "0"},
}


@pytest.fixture(scope="module")
def holodeck_server(tmp_path_factory) -> Iterator[tuple[RawServer, dict[str, Any]]]:
    """``hierdoc ingest`` then ``serve`` from a HoloDeck agent file, as a new user would."""
    from hierdoc.cli import main as hierdoc

    folder = tmp_path_factory.mktemp("holodeck")
    write_corpus(folder / "corpus")
    (folder / "agent.yaml").write_text(AGENT, encoding="utf-8")
    config = ["--config", str(folder / "agent.yaml"), "--tool", "legal_docs"]
    index = ["--index", str(folder / ".hierdoc")]
    try:
        hierdoc([*index, *config, "ingest", "--quiet"])
    except SystemExit as exit_info:
        assert not exit_info.code, f"ingest failed with {exit_info.code}"
    server = RawServer(server_command(*index, *config), folder)
    server.send(b"this line is not JSON-RPC")
    initialized = server.request(1, "initialize", INITIALIZE)
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    try:
        yield server, initialized
    finally:
        server.close()


@slow
def test_a_malformed_line_does_not_kill_the_stdio_server(holodeck_server) -> None:
    server, initialized = holodeck_server
    assert "result" in initialized
    server.send(b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": ')
    server.send({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"arguments": {}}})
    assert "error" in server.response(8)
    server.send({"jsonrpc": "2.0", "id": 9, "method": "no/such/method", "params": {}})
    assert server.response(9)["error"]["code"] in (-32601, -32602)  # not found / invalid
    answer = server.request(10, "tools/call", {"name": "list_documents", "arguments": {}})
    assert not answer["result"]["isError"]


@slow
def test_serve_from_a_holodeck_agent_file(holodeck_server) -> None:
    server, initialized = holodeck_server
    result = initialized["result"]
    assert result["serverInfo"]["name"] == "legal_docs"
    assert "Our services agreement and the data protection regulation" in result["instructions"]
    listed = server.request(2, "tools/list", {})["result"]["tools"]
    search = next(t for t in listed if t["name"] == "search")
    assert search["inputSchema"]["properties"]["top_k"]["default"] == 5
    assert "This index: Our services agreement" in search["description"]
    answer = server.request(3, "tools/call", {"name": "search", "arguments": {"query": "fees"}})
    data = answer["result"]["structuredContent"]
    assert len(data["results"]) <= 5
    assert {name_of(r["source"]) for r in data["results"]} <= set(CORPUS)


# -- the command line ---------------------------------------------------------------------


def run_main(capsys, *args: str) -> tuple[int, str]:
    try:
        main(["serve", *args])
        code = 0
    except SystemExit as exit_info:
        code = exit_info.code or 0
    return code, capsys.readouterr().err


def test_http_on_a_non_loopback_address_is_refused(capsys, tmp_path) -> None:
    code, err = run_main(capsys, "--index", str(tmp_path), "--http", "0.0.0.0:8765")
    assert code == 2
    assert "refusing to serve on 0.0.0.0" in err and "--allow-remote" in err


def test_a_missing_index_is_a_clear_error_and_is_not_created(capsys, tmp_path) -> None:
    missing = tmp_path / "nothing-here"
    code, err = run_main(capsys, "--index", str(missing))
    assert code == 2
    assert f"no index at {missing}" in err and "hierdoc" in err
    assert not missing.exists()


def test_an_empty_index_is_refused(capsys, tmp_path) -> None:
    from hierdoc import Index, Settings

    Index.open(tmp_path / "empty", Settings(), mode="w").close()  # a writer creates it
    code, err = run_main(capsys, "--index", str(tmp_path / "empty"))
    assert code == 2 and "holds no documents" in err


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:8765", ("127.0.0.1", 8765)),
        ("localhost:80", ("localhost", 80)),
        ("[::1]:9000", ("::1", 9000)),
        (":8765", ("127.0.0.1", 8765)),
        ("8765", ("127.0.0.1", 8765)),
        ("0.0.0.0:8000", ("0.0.0.0", 8000)),
    ],
)
def test_parse_http_address(text: str, expected: tuple[str, int]) -> None:
    assert parse_http_address(text) == expected


@pytest.mark.parametrize("text", ["127.0.0.1", "host:port", "127.0.0.1:0", "1.2.3.4:70000", ""])
def test_parse_http_address_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="expected"):
        parse_http_address(text)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("::1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_check_bind_allows_remote_only_when_asked() -> None:
    import click

    check_bind("127.0.0.1", allow_remote=False)
    check_bind("0.0.0.0", allow_remote=True)
    with pytest.raises(click.BadParameter, match="not a loopback address"):
        check_bind("0.0.0.0", allow_remote=False)


@slow
def test_hierdoc_serve_when_registered(corpus_index, portal) -> None:
    """The README's client configuration: ``hierdoc --index DIR serve`` over stdio."""
    from hierdoc.cli import cli

    if "serve" not in cli.commands:
        pytest.skip("serve is not registered in hierdoc.cli yet")
    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("hierdoc")),
        args=["--index", str(corpus_index), "serve"],
        env=server_env(),
    )
    with portal.wrap_async_context_manager(opened(stdio_client(params))) as (session, _):
        result = portal.call(session.call_tool, "search", {"query": "Article 2"})
    assert not result.isError


def test_serve_takes_the_index_options_after_the_subcommand(tmp_path) -> None:
    """``hierdoc serve --config agent.yaml --tool NAME`` as well as before the subcommand."""
    from click.testing import CliRunner

    from hierdoc.cli.serve import serve
    from hierdoc.cli.state import State

    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    state = State()
    args = ["--config", str(tmp_path / "agent.yaml"), "--tool", "legal_docs"]
    args += ["--index", str(tmp_path / "missing")]
    result = CliRunner().invoke(serve, args, obj=state)
    assert result.exit_code == 1 and "no index at" in result.output
    assert state.config == tmp_path / "agent.yaml" and state.tool == "legal_docs"
    assert state.settings().top_k == 5


def test_agent_file_snippet_is_valid(tmp_path) -> None:
    """The HoloDeck block used above loads as hierdoc settings without warnings."""
    import warnings

    from hierdoc.config import load_settings

    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        settings = load_settings(tmp_path / "agent.yaml", tool="legal_docs")
    assert settings.sources == [str(tmp_path / "corpus")]
    assert (settings.name, settings.top_k) == ("legal_docs", 5)
