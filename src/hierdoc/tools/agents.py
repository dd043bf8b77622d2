"""The MCP server's tools for other agent frameworks.

- :func:`tool_definitions` (and ``hierdoc tool-schema``): the five tools as OpenAI or
  Anthropic function-calling definitions, with the same names, descriptions and argument
  schemas the MCP server advertises;
- :func:`call_tool`: run one function call a model made, with the MCP server's validation;
- :func:`search_tool`: a plain, typed, documented callable, the shape LangChain-style
  frameworks turn into a tool (``StructuredTool.from_function(search_tool(index))``);
- :func:`semantic_kernel_plugin`: the tools as a Semantic Kernel plugin (``hierdoc[sk]``).

Everything here calls the same functions as the MCP tools (``hierdoc.mcp_server.run_*``),
so a model sees the same text, citations and error messages whichever way it is served.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable, Iterable
from typing import Annotated, Any, Literal

import click
from pydantic import ValidationError

from ..api import Index
from ..config import Settings
from ..mcp.server import (
    DESCRIPTIONS,
    RUNNERS,
    TOOL_NAMES,
    Mode,
    Query,
    SectionFilter,
    SourceFilter,
    ToolInputError,
    ToolOutput,
    TopK,
    describe_validation_error,
    index_options,
    make_tools,
    run_define,
    run_get_section,
    run_list_documents,
    run_references,
    run_search,
    unknown_arguments_message,
)

SchemaFormat = Literal["openai", "anthropic"]
SK_INSTALL_HINT = "pip install 'hierdoc[sk]'"


# -- function-calling definitions ----------------------------------------------------


def _simplify(schema: Any) -> Any:
    """A pydantic JSON schema made plain for function calling.

    Drops the generated ``title`` keys and turns ``anyOf: [X, null]`` with a null default
    into an optional ``X``: some providers reject ``null`` types, and an omitted argument
    already means "no filter".
    """
    if isinstance(schema, list):
        return [_simplify(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    result = {k: _simplify(v) for k, v in schema.items() if k != "title" or not isinstance(v, str)}
    options = result.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        rest = [o for o in options if o != {"type": "null"}]
        if len(rest) == 1:
            del result["anyOf"]
            result = {**rest[0], **result}
            if result.get("default", 0) is None:
                del result["default"]
    return result


def _parameters(schema: dict[str, Any]) -> dict[str, Any]:
    parameters = _simplify(copy.deepcopy(schema))
    parameters.setdefault("properties", {})
    parameters["required"] = list(parameters.get("required", []))
    parameters["additionalProperties"] = False
    return parameters


def tool_definitions(
    format: SchemaFormat = "openai",
    settings: Settings | None = None,
    only: Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """The tools as function-calling definitions.

    ``openai``: ``{"type": "function", "function": {name, description, parameters}}``
    (Chat Completions ``tools``); ``anthropic``: ``{name, description, input_schema}``
    (Messages API ``tools``). ``settings`` supplies the defaults (``top_k``, ``search_mode``)
    and the corpus description of a HoloDeck tool block; ``only`` picks tools by name.
    """
    wanted = list(only) if only else list(TOOL_NAMES)
    unknown = sorted(set(wanted) - set(TOOL_NAMES))
    if unknown:
        raise ValueError(f"unknown tool(s) {', '.join(unknown)}; the tools are {TOOL_NAMES}")
    tools = {t.name: t for t in make_tools(None, settings or Settings())}
    definitions = []
    for name in wanted:
        tool = tools[name]
        parameters = _parameters(tool.parameters)
        if format == "openai":
            function = {"name": name, "description": tool.description, "parameters": parameters}
            definitions.append({"type": "function", "function": function})
        elif format == "anthropic":
            definitions.append(
                {"name": name, "description": tool.description, "input_schema": parameters}
            )
        else:
            raise ValueError(f"format must be 'openai' or 'anthropic', not {format!r}")
    return definitions


def call_tool(index: Index, name: str, arguments: dict[str, Any] | str | None) -> ToolOutput:
    """Run a tool call a model made (``arguments`` as a dict or the JSON string OpenAI sends).

    Arguments are checked as the MCP server checks them; a bad call raises
    :class:`ToolInputError`, whose message is meant to be sent back to the model.
    """
    tools = {t.name: t for t in make_tools(index)}
    tool = tools.get(name)
    if tool is None:
        raise ToolInputError(f"unknown tool {name!r}; the tools are: {', '.join(tools)}")
    args = _arguments(arguments)
    problem = unknown_arguments_message(tool, args)
    if problem:
        raise ToolInputError(problem)
    try:
        validated = tool.fn_metadata.arg_model.model_validate(args).model_dump_one_level()
    except ValidationError as error:
        raise ToolInputError(describe_validation_error(error)) from None
    return RUNNERS[name](index, **validated)


def _arguments(arguments: dict[str, Any] | str | None) -> dict[str, Any]:
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as error:
            raise ToolInputError(f"the arguments are not valid JSON: {error}") from None
    if not isinstance(arguments, dict):
        raise ToolInputError("the arguments must be a JSON object")
    return arguments


# -- a plain callable for LangChain-style frameworks -----------------------------------


def search_tool(
    index: Index, *, structured: bool = False
) -> Callable[..., str] | Callable[..., dict[str, Any]]:
    """A ``search(query, top_k, mode, source, section)`` function over ``index``.

    Its name, docstring and annotated signature (with per-argument descriptions) are what
    frameworks read to build a tool; it returns the cited text rendering, or the structured
    results when ``structured`` is true. Bad arguments raise :class:`ToolInputError`.
    """
    top_k_default, mode_default = index.settings.top_k, index.settings.search_mode

    def search(
        query: Query,
        top_k: TopK = top_k_default,
        mode: Mode = mode_default,
        source: SourceFilter = None,
        section: SectionFilter = None,
    ) -> str:
        return run_search(index, query, top_k, mode, source, section).text

    def search_structured(
        query: Query,
        top_k: TopK = top_k_default,
        mode: Mode = mode_default,
        source: SourceFilter = None,
        section: SectionFilter = None,
    ) -> dict[str, Any]:
        return run_search(index, query, top_k, mode, source, section).structured

    function: Any = search_structured if structured else search
    function.__name__ = function.__qualname__ = "search"
    function.__doc__ = DESCRIPTIONS["search"]
    return function


# -- Semantic Kernel --------------------------------------------------------------------


def semantic_kernel_plugin(index: Index) -> Any:
    """The five tools as a Semantic Kernel plugin object.

    Use: ``kernel.add_plugin(semantic_kernel_plugin(index), plugin_name="hierdoc")``. The
    functions return the cited text rendering and run in a worker thread.
    """
    try:
        from semantic_kernel.functions import kernel_function
    except ImportError as error:
        raise ImportError(
            f"the Semantic Kernel plugin needs semantic-kernel: {SK_INSTALL_HINT}"
        ) from error
    return _plugin_class(kernel_function)(index)


def _plugin_class(kernel_function: Callable[..., Any]) -> type:
    """Build the plugin class with SK's decorator (imported lazily: SK is an optional extra)."""

    async def run(runner: Callable[..., ToolOutput], index: Index, *args: Any) -> str:
        return (await asyncio.to_thread(runner, index, *args)).text

    class HierdocPlugin:
        def __init__(self, index: Index) -> None:
            self._index = index

        @kernel_function(name="search", description=DESCRIPTIONS["search"])
        async def search(
            self,
            query: Annotated[str, "Words, a quoted phrase, an acronym or a citation."],
            top_k: Annotated[int, "How many passages to return, 1 to 100."] = 10,
            mode: Annotated[str, "hybrid, semantic, keyword or exact; empty: hybrid."] = "",
            source: Annotated[str, "Only this document (a file name); empty for all."] = "",
            section: Annotated[str, "Only under this section id; empty for all."] = "",
        ) -> Annotated[str, "Cited passages."]:
            args = (query, top_k, mode or None, source, section)
            return await run(run_search, self._index, *args)

        @kernel_function(name="get_section", description=DESCRIPTIONS["get_section"])
        async def get_section(
            self,
            id: Annotated[str, "A section id, chunk id or citation."],
            source: Annotated[str, "The document, when several have this id."] = "",
        ) -> Annotated[str, "The section with its context."]:
            return await run(run_get_section, self._index, id, source or None)

        @kernel_function(name="define", description=DESCRIPTIONS["define"])
        async def define(
            self, term: Annotated[str, "The term or acronym."]
        ) -> Annotated[str, "The definitions, cited."]:
            return await run(run_define, self._index, term)

        @kernel_function(name="references", description=DESCRIPTIONS["references"])
        async def references(
            self,
            id: Annotated[str, "A section id, chunk id or citation."],
            source: Annotated[str, "The document, when several have this id."] = "",
        ) -> Annotated[str, "Outgoing and incoming cross-references."]:
            return await run(run_references, self._index, id, source or None)

        @kernel_function(name="list_documents", description=DESCRIPTIONS["list_documents"])
        async def list_documents(self) -> Annotated[str, "The indexed documents."]:
            return await run(run_list_documents, self._index)

    return HierdocPlugin


# -- hierdoc tool-schema ---------------------------------------------------------------


@click.command("tool-schema")
@index_options
@click.option(
    "--format",
    "schema_format",
    type=click.Choice(["openai", "anthropic"]),
    default="openai",
    show_default=True,
    help="openai: Chat Completions tools; anthropic: Messages API tools.",
)
@click.option(
    "--only",
    multiple=True,
    type=click.Choice(list(TOOL_NAMES)),
    help="Only this tool (repeatable).",
)
@click.pass_obj
def tool_schema(state: Any, schema_format: SchemaFormat, only: tuple[str, ...]) -> None:
    """Print the tools as function-calling definitions (JSON) for OpenAI or Anthropic.

    Run the calls a model makes with hierdoc.agents.call_tool(index, name, arguments).
    """
    definitions = tool_definitions(schema_format, state.settings(), only or None)
    click.echo(json.dumps(definitions, indent=2, ensure_ascii=False))


__all__ = [
    "SK_INSTALL_HINT",
    "ToolInputError",
    "ToolOutput",
    "call_tool",
    "search_tool",
    "semantic_kernel_plugin",
    "tool_definitions",
    "tool_schema",
]
