"""The agent tools (search, get_section, define, references, list_documents).

:mod:`.catalogue` says what they are, :mod:`.logic` runs them over an
:class:`hierdoc.api.Index`, :mod:`.render` writes their results as cited text, and
:mod:`.agents` adapts them to function-calling frameworks; :mod:`hierdoc.mcp.server`
serves the same tools over MCP. :mod:`.names` holds their names alone.

The names below come from :mod:`.agents` on first use (PEP 562), so that importing
:mod:`.names` loads nothing else.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'hierdoc.tools' has no attribute {name!r}")
    value = getattr(importlib.import_module(".agents", __name__), name)
    globals()[name] = value
    return value
