"""Checks of caller-supplied strings at the API boundary.

Every string a caller hands to :class:`hierdoc.api.Index`, an agent tool, the MCP server
or the CLI is checked here before it reaches the store: a NUL character, a lone
surrogate (which no UTF-8 text holds, so SQLite cannot take it) or an excessive length
is an :class:`InputError` naming the argument. The messages never quote the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePath
from typing import Any

from .errors import InputError

MAX_NAME_CHARS = 4096
"""The longest source name, id, section id, term, metadata key or value accepted (a
path longer than Linux's PATH_MAX names no file)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


SURROGATE_PROBLEM = "holds a lone surrogate (U+D800-U+DFFF), which is not valid Unicode text"


def has_surrogate(value: str) -> bool:
    """Whether ``value`` holds a lone surrogate (what undecodable bytes become)."""
    return not value.isascii() and _SURROGATE.search(value) is not None


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be taken as text ("holds a NUL character"), or None."""
    if "\x00" in value:
        return "holds a NUL character"
    return SURROGATE_PROBLEM if has_surrogate(value) else None


def checked_path(value: Any) -> Any:
    """A path to ingest, as given, when it holds no NUL character and is not over
    :data:`MAX_NAME_CHARS` long. A name that is not UTF-8 is allowed here: it names a
    real file, which the ingest reports as a file problem."""
    text = str(value) if isinstance(value, (str, PurePath)) else checked_text(value, "a path")
    if len(text) > MAX_NAME_CHARS:
        raise InputError(
            f"a path is too long ({len(text):,} characters, at most {MAX_NAME_CHARS:,})"
        )
    if "\x00" in text:
        raise InputError("a path holds a NUL character")
    return value


def checked_text(value: Any, what: str, max_chars: int | None = MAX_NAME_CHARS) -> str:
    """``value`` when it is a string free of NUL and lone surrogates, of at most
    ``max_chars`` characters (``None``: no limit here); else an :class:`InputError`
    naming ``what``."""
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, not {type(value).__name__}")
    if max_chars is not None and len(value) > max_chars:
        raise InputError(f"{what} is too long ({len(value):,} characters, at most {max_chars:,})")
    problem = text_problem(value)
    if problem:
        raise InputError(f"{what} {problem}")
    return value


def checked_texts(
    values: Iterable[Any], what: str, max_chars: int | None = MAX_NAME_CHARS
) -> list[str]:
    """Each of ``values`` checked as by :func:`checked_text`."""
    return [checked_text(value, what, max_chars) for value in values]


def checked_strings(value: Any, what: str, max_chars: int | None = MAX_NAME_CHARS) -> None:
    """Check every string inside ``value`` (a JSON-like structure of dicts, lists and
    scalars; keys too), naming its place: ``source``, ``where.type``, ``where[0]``."""
    if isinstance(value, str):
        checked_text(value, what, max_chars)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                checked_text(key, f"a key of {what}", max_chars)
            checked_strings(item, f"{what}.{key}", max_chars)
    elif isinstance(value, (list, tuple)):
        for position, item in enumerate(value):
            checked_strings(item, f"{what}[{position}]", max_chars)
