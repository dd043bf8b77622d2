"""The names of the agent tools and of the function-calling formats their schemas come in.

Importable without the tools themselves, so that ``hierdoc tool-schema --help`` offers
them without loading the API.
"""

from __future__ import annotations

from typing import Literal

TOOL_NAMES = ("search", "get_section", "define", "references", "list_documents")
SchemaFormat = Literal["openai", "anthropic"]
