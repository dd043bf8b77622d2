"""Function-calling schemas, the plain search callable and the Semantic Kernel plugin."""

from __future__ import annotations

import inspect
import json
import sys
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from hierdoc import Settings
from hierdoc.cli.serve import tool_schema
from hierdoc.cli.state import State
from hierdoc.mcp.server import build_server
from hierdoc.tools.agents import (
    SK_INSTALL_HINT,
    ToolInputError,
    call_tool,
    search_tool,
    semantic_kernel_plugin,
    tool_definitions,
)
from hierdoc.tools.catalogue import DESCRIPTIONS, TOOL_NAMES
from tests.integration.test_mcp_server import AGENT, build_corpus_index

slow = pytest.mark.slow


@pytest.fixture(scope="module")
def index(tmp_path_factory, embedder):
    from hierdoc import Index

    directory = build_corpus_index(tmp_path_factory.mktemp("agents"), embedder)
    with Index.open(directory, Settings(), embedder=embedder) as opened:
        yield opened


def walk(schema: Any) -> list[dict[str, Any]]:
    """Every mapping in a JSON schema."""
    if isinstance(schema, dict):
        return [schema] + [m for value in schema.values() for m in walk(value)]
    if isinstance(schema, list):
        return [m for item in schema for m in walk(item)]
    return []


# -- function-calling definitions -------------------------------------------------------


def test_openai_definitions() -> None:
    definitions = tool_definitions("openai")
    assert [d["type"] for d in definitions] == ["function"] * 5
    functions = {d["function"]["name"]: d["function"] for d in definitions}
    assert list(functions) == list(TOOL_NAMES)
    search = functions["search"]
    assert search["description"] == DESCRIPTIONS["search"]
    parameters = search["parameters"]
    assert parameters["type"] == "object" and parameters["additionalProperties"] is False
    assert parameters["required"] == ["query"]
    assert parameters["properties"]["top_k"] == {
        "default": 10,
        "description": "How many passages to return, 1 to 100.",
        "maximum": 100,
        "minimum": 1,
        "type": "integer",
    }
    assert parameters["properties"]["mode"]["enum"] == ["hybrid", "semantic", "keyword", "exact"]
    assert parameters["properties"]["source"]["type"] == "string"
    assert functions["list_documents"]["parameters"]["properties"] == {}


def test_definitions_are_plain_json_schema() -> None:
    """No generated titles, no null types, no anyOf: what every provider accepts."""
    for definition in tool_definitions("anthropic"):
        for mapping in walk(definition["input_schema"]):
            assert "anyOf" not in mapping and mapping.get("type") != "null"
            assert not isinstance(mapping.get("title"), str)
        json.dumps(definition)


def test_anthropic_definitions() -> None:
    definitions = tool_definitions("anthropic")
    assert [set(d) for d in definitions] == [{"name", "description", "input_schema"}] * 5
    get_section = next(d for d in definitions if d["name"] == "get_section")
    assert get_section["input_schema"]["required"] == ["id"]
    assert "Art. 17(3)(b)" in get_section["description"]


def test_definitions_follow_the_settings_and_selection() -> None:
    settings = Settings(top_k=5, search_mode="keyword", description="The 2024 supplier contracts")
    (search,) = tool_definitions("anthropic", settings, only=["search"])
    properties = search["input_schema"]["properties"]
    assert (properties["top_k"]["default"], properties["mode"]["default"]) == (5, "keyword")
    assert search["description"].endswith("This index: The 2024 supplier contracts")
    with pytest.raises(ValueError, match="unknown tool"):
        tool_definitions("openai", only=["read_file"])
    with pytest.raises(ValueError, match="format must be"):
        tool_definitions("gemini")  # type: ignore[arg-type]


def test_definitions_match_what_the_mcp_server_advertises(index) -> None:
    listed = {t.name: t for t in anyio.run(build_server(index).list_tools)}
    for definition in tool_definitions("anthropic"):
        tool = listed[definition["name"]]
        assert definition["description"] == tool.description
        schema = definition["input_schema"]
        assert schema["required"] == tool.inputSchema.get("required", [])
        assert set(schema["properties"]) == set(tool.inputSchema["properties"])


def test_tool_schema_command(tmp_path) -> None:
    runner = CliRunner()
    result = runner.invoke(tool_schema, ["--format", "anthropic"], obj=State())
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == tool_definitions("anthropic")

    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    args = ["--config", str(tmp_path / "agent.yaml"), "--tool", "legal_docs", "--only", "search"]
    result = runner.invoke(tool_schema, args, obj=State())
    assert result.exit_code == 0, result.output
    (search,) = json.loads(result.output)
    assert search["function"]["parameters"]["properties"]["top_k"]["default"] == 5
    assert "Our services agreement" in search["function"]["description"]


# -- running a model's function call ----------------------------------------------------


@slow
def test_call_tool_runs_a_function_call(index) -> None:
    output = call_tool(index, "search", '{"query": "late payment interest", "top_k": 2}')
    first = output.structured["results"][0]
    assert (first["section_id"], first["sections"]) == (
        "article-3-2",
        ["article-3", "article-3-1", "article-3-2"],
    )
    assert "services_agreement.md · Article 3 - Fees > 3.2 · [article-3-2]" in output.text
    definitions = call_tool(index, "define", {"term": "Services"}).structured["definitions"]
    assert [d["section_id"] for d in definitions] == ["article-1"]
    assert call_tool(index, "list_documents", None).structured["total_chunks"] > 0


@slow
@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("search", {"query": "fees", "top_k": 101}, "top_k must be between 1 and 100"),
        ("search", {"query": ""}, "the query is empty"),
        ("search", {"query": "fees", "top_k": "many"}, "top_k: Input should be a valid integer"),
        ("search", {"query": "fees", "limit": 3}, "unknown argument(s) limit"),
        ("search", "{not json", "the arguments are not valid JSON"),
        ("search", "[1, 2]", "the arguments must be a JSON object"),
        ("get_section", {"id": "article-42"}, "no section or chunk with id 'article-42'"),
        ("read_file", {"path": "/etc/passwd"}, "unknown tool 'read_file'"),
    ],
)
def test_call_tool_rejects_bad_calls_with_a_message_for_the_model(
    index, name: str, arguments: Any, message: str
) -> None:
    with pytest.raises(ToolInputError) as error:
        call_tool(index, name, arguments)
    assert message in str(error.value)


# -- the plain callable -----------------------------------------------------------------


@slow
def test_search_tool_is_a_documented_typed_callable(index) -> None:
    search = search_tool(index)
    assert search.__name__ == "search"
    assert search.__doc__ == DESCRIPTIONS["search"]
    parameters = inspect.signature(search).parameters
    assert list(parameters) == [
        *("query", "top_k", "mode", "source", "section", "where", "explain"),
    ]
    assert parameters["top_k"].default == index.settings.top_k
    text = search("Article 4", source="services_agreement.md", top_k=1)
    assert text.splitlines()[2].startswith("[1] services_agreement.md · Article 4")
    with pytest.raises(ToolInputError, match="query is empty"):
        search(" ")


@slow
def test_search_tool_structured(index) -> None:
    data = search_tool(index, structured=True)("Article 3(1)(b)")
    assert data["citations"][0]["section_id"] == "article-3-1-b"
    assert data["results"][0]["section_id"] == "article-3-1-b"
    assert data["results"][0]["sections"][0] == "article-3"


@slow
def test_search_tool_as_a_langchain_tool(index) -> None:
    tools = pytest.importorskip("langchain_core.tools")
    tool = tools.StructuredTool.from_function(search_tool(index))
    assert tool.name == "search" and "Art. 17(3)(b)" in tool.description
    schema = tool.tool_call_schema.model_json_schema()
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"]["description"].startswith("Words")
    text = tool.invoke({"query": "termination notice", "top_k": 1})
    assert "[article-5]" in text


# -- Semantic Kernel --------------------------------------------------------------------


def test_semantic_kernel_plugin_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "semantic_kernel", None)
    monkeypatch.setitem(sys.modules, "semantic_kernel.functions", None)
    with pytest.raises(ImportError, match=r"pip install 'hierdoc\[sk\]'"):
        semantic_kernel_plugin(object())  # type: ignore[arg-type]
    assert SK_INSTALL_HINT == "pip install 'hierdoc[sk]'"


@slow
def test_semantic_kernel_plugin(index) -> None:
    pytest.importorskip("semantic_kernel")
    from semantic_kernel import Kernel
    from semantic_kernel.functions import KernelArguments

    kernel = Kernel()
    plugin = kernel.add_plugin(semantic_kernel_plugin(index), plugin_name="hierdoc")
    assert set(plugin.functions) == set(TOOL_NAMES)
    assert plugin["search"].description == DESCRIPTIONS["search"]

    async def invoke(name: str, **arguments: Any) -> str:
        result = await kernel.invoke(plugin[name], KernelArguments(**arguments))
        return str(result)

    text = anyio.run(lambda: invoke("define", term="personal data"))
    assert "data_regulation.md [article-2-1]" in text
    text = anyio.run(lambda: invoke("search", query="late payment", top_k=1))
    assert "[article-3-2]" in text
