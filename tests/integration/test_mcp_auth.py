"""``hierdoc serve --http`` with tokens configured, driven by the MCP SDK's client over
loopback: no token or a wrong one gets 401 and no text; a token scoped to one document
reaches nothing of the other through any tool or argument; a token for every document
sees both."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from hierdoc import Index, Settings
from hierdoc.auth import new_token
from tests.integration.test_mcp_server import (
    Remote,
    build_corpus_index,
    http_server_at,
    opened,
    portal,
)
from tests.mcp_messages import HEADERS, INITIALIZE

pytestmark = pytest.mark.slow
__all__ = ["portal"]  # the client portal fixture, shared with the server's own tests

MARKERS = (
    *("regulation", "erasure", "controller", "data subject", "natural person"),
    *("lawful", "chapter", "withdraws", "recording"),
)
"""Words of data_regulation.md (its name and text) that services_agreement.md lacks."""


@pytest.fixture(scope="module")
def tokens() -> dict[str, str]:
    return {"services": new_token()[0], "everything": new_token()[0]}


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory, embedder) -> Path:
    return build_corpus_index(tmp_path_factory.mktemp("mcp-auth"), embedder)


def write_config(folder: Path, tokens: dict[str, str]) -> Path:
    from hierdoc.auth import token_hash

    scoped = {"name": "services", "sha256": token_hash(tokens["services"])}
    entries = [
        {**scoped, "sources": ["services_agreement.md"]},
        {"name": "everything", "sha256": token_hash(tokens["everything"])},
    ]
    path = folder / "hierdoc.yaml"
    path.write_text(yaml.safe_dump({"auth": {"tokens": entries}}), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server(corpus_index, tokens) -> Iterator[tuple[str, Path]]:
    config = write_config(corpus_index.parent, tokens)
    with http_server_at(corpus_index, "auth", "--config", str(config)) as running:
        yield running


@contextmanager
def client(portal, url: str, token: str) -> Iterator[Remote]:
    http = create_mcp_http_client(headers={"authorization": f"Bearer {token}"})
    transport = streamable_http_client(url, http_client=http)
    with portal.wrap_async_context_manager(opened(transport)) as (session, info):
        yield Remote(portal, session, info)


@pytest.fixture(scope="module")
def scoped(portal, server, tokens) -> Iterator[Remote]:
    with client(portal, server[0], tokens["services"]) as remote:
        yield remote


@pytest.fixture(scope="module")
def everything(portal, server, tokens) -> Iterator[Remote]:
    with client(portal, server[0], tokens["everything"]) as remote:
        yield remote


def seen(result: Any) -> str:
    """Everything a client receives from a call: its text and structured content."""
    texts = [getattr(item, "text", "") for item in result.content]
    return "\n".join([*texts, json.dumps(result.structuredContent or {})])


def leaks(text: str, arguments: dict[str, Any]) -> list[str]:
    asked = json.dumps(arguments).lower()
    return [m for m in MARKERS if m in text.lower() and m not in asked]


def out_of_scope_chunk_ids(index: Path) -> list[str]:
    with Index.open(index, Settings(), mode="r") as opened_index:
        source = next(d.source for d in opened_index.documents() if "regulation" in d.source)
        return [c.chunk.chunk_id for c in opened_index.chunks_of_source(source)]


def probes(index: Path) -> list[tuple[str, dict[str, Any]]]:
    chunk_ids = out_of_scope_chunk_ids(index)
    misspelt = [chunk_id[:-3] + "q" + chunk_id[-2:] for chunk_id in chunk_ids]
    queries = [
        "right to erasure", "controller", "Article 3(1)(b)", "Article 4 of the Data Protection "
        "Regulation", "data subject consent", "processing means", "Chapter II", '"natural person"',
        "Article 3(1)(b) of data_regulation.md",
    ]  # fmt: skip
    found: list[tuple[str, dict[str, Any]]] = [("list_documents", {})]
    for query in queries:
        found.append(("search", {"query": query, "explain": True}))
        found.append(("search", {"query": query, "mode": "keyword", "passages": True}))
    for argument in ({"source": "data_regulation.md"}, {"source": "data_regulaton.md"},
                     {"section": "chapter-2"}, {"section": "article-3-1-b"},
                     {"section": "artcle-3"}, {"where": {"format": "pdf"}}):  # fmt: skip
        found.append(("search", {"query": "consent", **argument}))
    identifiers = [
        "article-3-1-b", "Article 3(1)(b)", "chapter-2", "article-2", "Article 4", "artcle-3",
        "paragraph 2 of Article 3 of the Data Protection Regulation", *chunk_ids, *misspelt,
    ]  # fmt: skip
    for identifier in identifiers:
        found.append(("get_section", {"id": identifier}))
        found.append(("references", {"id": identifier}))
    found.append(("get_section", {"id": "article-2", "source": "data_regulation.md"}))
    for term in ("personal data", "controller", "processing", "data subject", "Personal Dta"):
        found.append(("define", {"term": term}))
    return found


def test_no_token_or_a_wrong_one_gets_401_and_no_text(server, tokens) -> None:
    url = server[0]
    for headers in ({}, {"authorization": "Bearer wrong"}, {"authorization": "Bearer  x"},
                    {"authorization": f"Basic {tokens['services']}"}):  # fmt: skip
        answer = httpx.post(url, json=INITIALIZE, headers={**HEADERS, **headers})
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"].startswith("Bearer ")
        assert answer.json()["error"] == "invalid_token"
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "list_documents", "arguments": {}}}  # fmt: skip
    refused = httpx.post(url, json=call, headers={**HEADERS, "authorization": "Bearer x"})
    assert refused.status_code == 401 and "services" not in refused.text


def test_the_sdk_client_without_a_token_cannot_connect(portal, server) -> None:
    refused = pytest.raises(Exception)  # noqa: B017 - the SDK wraps the 401 in a group
    with refused as failed, client(portal, server[0], "not-a-token"):
        pass
    assert "401" in repr(failed.value) or "Unauthorized" in repr(failed.value)


def test_a_scoped_token_reaches_nothing_out_of_its_scope(scoped, corpus_index) -> None:
    found = {}
    for name, arguments in probes(corpus_index):
        text = seen(scoped.call(name, arguments))
        if leaks(text, arguments):
            found[f"{name} {arguments}"] = (leaks(text, arguments), text[:300])
    assert not found, found


def test_the_scoped_token_works_in_its_scope(scoped) -> None:
    listed = scoped.call("list_documents").structuredContent
    assert [d["name"] for d in listed["documents"]] == ["services_agreement.md"]
    assert listed["total_documents"] == 1
    defined = scoped.call("define", {"term": "Confidential Information"}).structuredContent
    assert [d["source"].rsplit("/", 1)[-1] for d in defined["definitions"]] == [
        "services_agreement.md"
    ]
    found = scoped.call("search", {"query": "late payments interest"}).structuredContent
    assert found["results"][0]["section_id"].startswith("article-3")
    section = scoped.call("get_section", {"id": "Article 4"}).structuredContent
    assert "Confidential Information secret" in section["content"]
    assert section["other_sources"] == []


def test_a_token_for_every_document_sees_both(everything, scoped) -> None:
    listed = everything.call("list_documents").structuredContent
    assert listed["total_documents"] == 2
    defined = everything.call("define", {"term": "personal data"}).structuredContent
    assert defined["conflict"] is True
    assert "erasure" in seen(everything.call("search", {"query": "right to erasure"})).lower()
    assert scoped.call("define", {"term": "personal data"}).structuredContent["conflict"] is False


def test_a_session_answers_only_the_token_that_opened_it(server, tokens) -> None:
    url = server[0]
    own = {**HEADERS, "authorization": f"Bearer {tokens['services']}"}
    opened_session = httpx.post(url, json=INITIALIZE, headers=own)
    session_id = opened_session.headers["mcp-session-id"]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "list_documents", "arguments": {}}}  # fmt: skip
    other = {**HEADERS, "authorization": f"Bearer {tokens['everything']}",
             "mcp-session-id": session_id, "mcp-protocol-version": "2025-06-18"}  # fmt: skip
    answer = httpx.post(url, json=call, headers=other)
    assert answer.status_code >= 400 and "regulation" not in answer.text.lower()


def test_the_server_log_holds_no_token(server, tokens, scoped) -> None:
    scoped.call("list_documents")
    log = server[1].read_text()
    assert all(token not in log for token in tokens.values())
