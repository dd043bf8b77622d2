"""The agent tools (search, get_section, define, references, list_documents).

:mod:`.catalogue` says what they are, :mod:`.logic` runs them over an
:class:`hierdoc.api.Index`, :mod:`.render` writes their results as cited text, and
:mod:`.agents` adapts them to function-calling frameworks; :mod:`hierdoc.mcp.server`
serves the same tools over MCP.
"""

from .agents import (
    SK_INSTALL_HINT,
    ToolInputError,
    ToolOutput,
    call_tool,
    search_tool,
    semantic_kernel_plugin,
    tool_definitions,
)

__all__ = [
    "SK_INSTALL_HINT",
    "ToolInputError",
    "ToolOutput",
    "call_tool",
    "search_tool",
    "semantic_kernel_plugin",
    "tool_definitions",
]
