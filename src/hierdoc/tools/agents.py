"""The agent tools for function-calling frameworks, over the same catalogue and logic as MCP.

- :func:`tool_definitions` (and ``hierdoc tool-schema``): the five tools as OpenAI or
  Anthropic function-calling definitions, with the same names, descriptions and argument
  schemas the MCP server advertises (both come from :mod:`hierdoc.tools.catalogue`);
- :func:`call_tool`: run one function call a model made, with the MCP server's validation;
- :func:`search_tool`: a plain, typed, documented callable, the shape LangChain-style
  frameworks turn into a tool (``StructuredTool.from_function(search_tool(index))``);
- :func:`semantic_kernel_plugin`: the tools as a Semantic Kernel plugin (``hierdoc[sk]``).

Everything here runs :mod:`hierdoc.tools.logic`, as the MCP server does, so a model sees
the same text, citations and error messages whichever way it is served.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable, Iterable
from typing import Annotated, Any

from ..api import Index
from ..config import Settings
from ..errors import InputError
from .catalogue import (
    DESCRIPTIONS,
    TOOL_NAMES,
    Explain,
    Mode,
    Query,
    SectionFilter,
    SourceFilter,
    TopK,
    WhereFilter,
    tool_spec,
    tool_specs,
)
from .logic import (
    RUNNERS,
    ToolOutput,
    run_define,
    run_get_section,
    run_list_documents,
    run_references,
    run_search,
)
from .names import SchemaFormat

SK_INSTALL_HINT = "pip install 'hierdoc[sk]'"
ToolInputError = InputError
"""What a bad call raises (an :class:`InputError`; a :class:`NotFoundError` for an unknown
tool, id or source): its message is meant to be sent back to the model."""


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
    if format not in ("openai", "anthropic"):
        raise InputError(f"format must be 'openai' or 'anthropic', not {format!r}")
    wanted = list(only) if only else list(TOOL_NAMES)
    unknown = sorted(set(wanted) - set(TOOL_NAMES))
    if unknown:
        raise InputError(f"unknown tool(s) {', '.join(unknown)}; the tools are {TOOL_NAMES}")
    specs = tool_specs(settings)
    definitions: list[dict[str, Any]] = []
    for name in wanted:
        spec = specs[name]
        parameters = _parameters(spec.parameters())
        if format == "openai":
            function = {"name": name, "description": spec.description, "parameters": parameters}
            definitions.append({"type": "function", "function": function})
        else:
            definitions.append(
                {"name": name, "description": spec.description, "input_schema": parameters}
            )
    return definitions


def call_tool(index: Index, name: str, arguments: dict[str, Any] | str | None) -> ToolOutput:
    """Run a tool call a model made (``arguments`` as a dict or the JSON string OpenAI sends).

    Arguments are checked as the MCP server checks them; a bad call raises
    :class:`ToolInputError`, whose message is meant to be sent back to the model.
    """
    spec = tool_spec(name, index.settings)
    return RUNNERS[name](index, **spec.validate(arguments))


# -- a plain callable for LangChain-style frameworks -----------------------------------


def search_tool(
    index: Index, *, structured: bool = False
) -> Callable[..., str] | Callable[..., dict[str, Any]]:
    """A ``search(query, top_k, mode, source, section, where, explain)`` function over
    ``index``.

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
        where: WhereFilter = None,
        explain: Explain = False,
    ) -> str:
        return run_search(index, query, top_k, mode, source, section, where, explain).text

    def search_structured(
        query: Query,
        top_k: TopK = top_k_default,
        mode: Mode = mode_default,
        source: SourceFilter = None,
        section: SectionFilter = None,
        where: WhereFilter = None,
        explain: Explain = False,
    ) -> dict[str, Any]:
        return run_search(index, query, top_k, mode, source, section, where, explain).structured

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
