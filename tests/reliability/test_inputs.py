"""Caller-supplied strings at every entry point: a NUL character, a lone surrogate or an
excessive length is an InputError naming the argument (the Python API, the agent tools),
an error result (the MCP server, with no traceback) or one error line (the CLI); a
``source`` is compared with the index's own names and never looked up on disk."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hierdoc import Index, TextDocument
from hierdoc.errors import InputError
from hierdoc.search.sources import SourceNames
from hierdoc.tools import call_tool, search_tool
from tests.hash_embedder import hash_index
from tests.integration.test_mcp_server import (
    build_corpus_index,
    server_env,
    start_stdio_server,
    stop,
)

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

DOC = "# Agreement\n\n## Article 1 - Escrow\n\nThe escrow agent holds the funds.\n"
BAD = {
    "nul": ("agreement.md\x00.txt", "holds a NUL character"),
    "surrogate": ("escrow \ud800 agent", "holds a lone surrogate"),
    "overlong": ("a" * 5000, "is too long (5,000 characters, at most 4,096)"),
}
SHORT = {"nul": "NUL character", "surrogate": "lone surrogate", "overlong": "too long"}
CALLS: dict[str, Callable[[Index, str], Any]] = {
    "search query": lambda index, bad: index.search(bad),
    "search source": lambda index, bad: index.search("escrow", source=bad),
    "search sources": lambda index, bad: index.search("escrow", source=["agreement.md", bad]),
    "search section": lambda index, bad: index.search("escrow", section=bad),
    "search chunk_type": lambda index, bad: index.search("escrow", chunk_type=bad),
    "search where value": lambda index, bad: index.search("escrow", where={"type": bad}),
    "search where key": lambda index, bad: index.search("escrow", where={bad: "x"}),
    "resolve_sources": lambda index, bad: index.resolve_sources(bad),
    "show": lambda index, bad: index.show(bad),
    "define": lambda index, bad: index.define(bad),
    "references": lambda index, bad: index.references(bad),
    "references source": lambda index, bad: index.references("article-1", source=bad),
    "outline": lambda index, bad: index.outline(bad),
    "remove": lambda index, bad: index.remove(bad),
    "chunks": lambda index, bad: index.chunks([bad]),
    "chunks_of_source": lambda index, bad: index.chunks_of_source(bad),
    "sections": lambda index, bad: index.sections(bad),
    "sections source": lambda index, bad: index.sections("article-1", bad),
    "section_holders": lambda index, bad: index.section_holders(bad),
    "count_section": lambda index, bad: index.count_section(bad),
    "held_section": lambda index, bad: index.held_section(bad),
    "cited_section": lambda index, bad: index.cited_section(bad),
    "children": lambda index, bad: index.children(bad, "article-1"),
    "ingest_texts source": lambda index, bad: index.ingest_texts([TextDocument(bad, DOC)]),
    "ingest_texts text": lambda index, bad: index.ingest_texts([TextDocument("x.md", bad)]),
}
LONG_ALLOWED = {"search query", "ingest_texts text"}  # their lengths have their own limits


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    with hash_index(tmp_path_factory.mktemp("inputs") / "index", {"agreement.md": DOC}) as opened:
        yield opened


@pytest.mark.parametrize("kind", BAD)
@pytest.mark.parametrize("call", CALLS)
def test_every_index_method_refuses_a_bad_string(index: Index, call: str, kind: str) -> None:
    bad, message = BAD[kind]
    if kind == "overlong" and call in LONG_ALLOWED:
        return
    with pytest.raises(InputError, match=re.escape(message)):
        CALLS[call](index, bad)
    assert [d.source for d in index.documents()] == ["agreement.md"]


def test_an_ingest_path_with_a_nul_is_an_input_error(index: Index, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="a path holds a NUL character"):
        index.ingest([tmp_path / "a\x00b"])


@pytest.mark.parametrize("kind", BAD)
def test_agent_tools_refuse_a_bad_string(index: Index, kind: str) -> None:
    bad, message = BAD[kind]
    calls = [
        ("search", {"query": "escrow", "source": bad}),
        ("get_section", {"id": bad}),
        ("get_section", {"id": "article-1", "source": bad}),
        ("define", {"term": bad}),
        ("references", {"id": bad}),
        ("search", {"query": "escrow", "where": {"type": [bad]}}),
    ]
    for name, arguments in calls:
        with pytest.raises(InputError, match=SHORT[kind]):
            call_tool(index, name, arguments)
        with pytest.raises(InputError, match=SHORT[kind]):
            call_tool(index, name, json.dumps(arguments))
    with pytest.raises(InputError, match=SHORT[kind]):
        search_tool(index)("escrow", source=bad)
    if kind != "overlong":
        with pytest.raises(InputError, match=SHORT[kind]):
            search_tool(index)(bad)


def test_a_source_is_matched_by_name_never_looked_up_on_disk(monkeypatch, tmp_path) -> None:
    """No caller's name reaches the file system: stat and resolve would fail here."""
    monkeypatch.chdir(tmp_path)
    cwd = str(tmp_path)
    names = SourceNames.of(["contracts/nda.md", f"{cwd}/docs/msa.md", "/srv/a/notes.txt"])

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the file system was asked about a caller's name")

    with pytest.MonkeyPatch.context() as patch:
        for name in ("stat", "lstat", "readlink"):
            patch.setattr(os, name, refuse)
        patch.setattr(os.path, "realpath", refuse)
        patch.setattr(Path, "resolve", refuse)
        found = {
            item: names.matching(item)
            for item in (
                "nda.md",
                "./contracts/nda.md",
                "contracts/../contracts/nda.md",
                "docs/msa.md",
                f"{cwd}/docs/msa.md",
                "a/notes.txt",
                "/etc/passwd",
                "passwd",
            )
        }
    assert found == {
        "nda.md": ["contracts/nda.md"],
        "./contracts/nda.md": ["contracts/nda.md"],
        "contracts/../contracts/nda.md": ["contracts/nda.md"],
        "docs/msa.md": [f"{cwd}/docs/msa.md"],
        f"{cwd}/docs/msa.md": [f"{cwd}/docs/msa.md"],
        "a/notes.txt": ["/srv/a/notes.txt"],
        "/etc/passwd": [],
        "passwd": [],
    }


# -- the MCP server and the CLI, as processes ----------------------------------------------


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    return build_corpus_index(tmp_path_factory.mktemp("inputs-mcp"), embedder)


def _rpc(number: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
    if number >= 0:
        message["id"] = number
    return json.dumps(message).encode() + b"\n"  # lone surrogates as \ud800 escapes


MCP_CALLS = [
    ("search", {"query": "fees", "source": "services_agreement.md\x00"}, "NUL character"),
    ("search", {"query": "fees \ud800"}, "lone surrogate"),
    ("search", {"query": "fees", "section": "article-1\udcff"}, "lone surrogate"),
    ("get_section", {"id": "article-1\x00"}, "NUL character"),
    ("get_section", {"id": "article-1", "source": "\ud83d.md"}, "lone surrogate"),
    ("define", {"term": "fee\x00s"}, "NUL character"),
    ("references", {"id": "Section 7\udc80"}, "lone surrogate"),
    ("search", {"query": "fees", "source": "x" * 5000}, "too long"),
]


def test_the_mcp_server_answers_bad_strings_with_error_results(corpus_index: Path) -> None:
    process = start_stdio_server(corpus_index)
    assert process.stdin and process.stdout and process.stderr
    hello = {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t"}}
    try:
        process.stdin.write(
            _rpc(0, "initialize", {**hello, "clientInfo": {"name": "t", "version": "1"}})
        )
        process.stdin.write(_rpc(-1, "notifications/initialized"))
        for number, (tool, arguments, _) in enumerate(MCP_CALLS, start=1):
            process.stdin.write(_rpc(number, "tools/call", {"name": tool, "arguments": arguments}))
        process.stdin.flush()
        answers = {}
        while len(answers) < len(MCP_CALLS) + 1:
            answer = json.loads(process.stdout.readline())
            answers[answer.get("id")] = answer
    finally:
        stop(process)
    for number, (tool, arguments, message) in enumerate(MCP_CALLS, start=1):
        result = answers[number]["result"]
        text = result["content"][0]["text"]
        assert result["isError"] and message in text, (tool, arguments, text)
    assert b"Traceback" not in process.stderr.read()


CLI_CALLS = [
    ([b"search", b"fees \xff"], "the query holds a lone surrogate"),
    ([b"search", b"fees", b"--source", b"services\xfe.md"], "the source holds a lone surrogate"),
    ([b"show", b"article-1\xff"], "the id holds a lone surrogate"),
    ([b"define", b"fee\xffs"], "the term holds a lone surrogate"),
    ([b"refs", b"article\xff"], "the id holds a lone surrogate"),
    ([b"outline", b"x\xff.md"], "the source holds a lone surrogate"),
]


@pytest.mark.parametrize(("argv", "message"), CLI_CALLS)
def test_the_cli_says_one_line_for_bytes_that_are_not_utf8(
    corpus_index: Path, argv: list[bytes], message: str
) -> None:
    command = [sys.executable, "-c", "from hierdoc.cli import main; main()"]
    done = subprocess.run(
        [*map(os.fsencode, command), b"--index", os.fsencode(corpus_index), *argv],
        env=server_env(),
        capture_output=True,
        timeout=120,
    )
    stderr = done.stderr.decode(errors="replace")
    assert done.returncode != 0 and message in stderr, stderr
    assert "Traceback" not in stderr
