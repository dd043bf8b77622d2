"""Emphasis markup around defined terms, read as quotes.

Contracts converted from Word or HTML mark a defined term with bold, italics or
underline, alone or with quotes, in every combination: ``**"Term"**``,
``"**Term**"``, ``**Term**``, ``*Term*``, ``_Term_``, ``<u>Term</u>``. The
definition finders match quoted terms only, so :func:`unmark` rewrites the
markup into equal-length text: an emphasised term with no quotes of its own gets
curly quotes in place of its markers, every other marker becomes spaces. Offsets
into the rewritten text are offsets into the original, and :func:`unmark` also
returns a plain copy (every marker a space) to read definitions from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_QUOTED_WORDS = 8
QUOTES = "\"'‘’“”`"

_TAGS = "u|b|strong|em|i|ins"
# One pattern per kind of marker, innermost first: a triple star is bold italic.
_MARKERS = (
    re.compile(
        r"(?P<open><(?P<tag>" + _TAGS + r")>)(?P<body>[^<>\n]{1,1000}?)(?P<close></(?P=tag)>)"
    ),
    # a run of underscores alone is a blank to fill in ("$[__________]"), not emphasis
    re.compile(
        r"(?P<open>\*\*\*|___)(?=[^\s_])(?P<body>[^\n]{1,1000}?)(?<=[^\s_])(?P<close>(?P=open))"
    ),
    re.compile(
        r"(?P<open>\*\*|__)(?=[^\s_])(?P<body>[^\n]{1,1000}?)(?<=[^\s_])(?P<close>(?P=open))"
    ),
    re.compile(
        r"(?<![\w*\\])(?P<open>\*)(?=[^\s*])(?P<body>[^*\n]{1,1000}?)(?<=[^\s*\\])(?P<close>\*)"
        r"(?![\w*])"
    ),
    re.compile(
        r"(?<![\w\\])(?P<open>_)(?=[^\s_])(?P<body>[^_\n]{1,1000}?)(?<=[^\s_\\])(?P<close>_)(?!\w)"
    ),
)


# any other inline HTML tag left by a converter: <span class="...">, </span>, <br/>
_OTHER_TAGS = re.compile(r"</?(?!(?:" + _TAGS + r")>)[a-zA-Z][^<>\n]{0,200}>")


@dataclass(frozen=True)
class Unmarked:
    """``quoted``: markers as quotes or spaces; ``plain``: every marker a space."""

    quoted: str
    plain: str
    emphasised: frozenset[int] = frozenset()
    """Offsets of the opening quotes put in for emphasis (``**Term**``): no quotes there."""


def unmark(text: str) -> Unmarked:
    """The text with emphasis markers rewritten, every offset kept."""
    if not any(marker in text for marker in ("*", "_", "<")):
        return Unmarked(text, text)
    quoted, plain = list(text), list(text)
    emphasised = set()
    for tag in _OTHER_TAGS.finditer(text):
        _blank(plain, tag.start(), tag.end())
        _blank(quoted, tag.start(), tag.end())
    for pattern in _MARKERS:
        for match in pattern.finditer("".join(plain)):
            _blank(plain, match.start("open"), match.end("open"))
            _blank(plain, match.start("close"), match.end("close"))
            _blank(quoted, match.start("open"), match.end("open"))
            _blank(quoted, match.start("close"), match.end("close"))
            if _quotable(quoted, match):
                quoted[match.end("open") - 1] = "“"
                quoted[match.start("close")] = "”"
                emphasised.add(match.end("open") - 1)
    return Unmarked("".join(quoted), "".join(plain), frozenset(emphasised))


def _blank(chars: list[str], start: int, end: int) -> None:
    chars[start:end] = " " * (end - start)


def _quotable(quoted: list[str], match: re.Match[str]) -> bool:
    """A short name with no quotes inside or around: ``**Term**``, not ``"**Term**"``.

    ``quoted`` is the text as rewritten so far, so an inner marker of ``**_Term_**`` sees
    the quotes the outer one got.
    """
    body = match.group("body").strip("*_ ")
    start, end = match.start("open"), match.end("close")
    before = "".join(quoted[max(0, start - 12) : start]).rstrip("*_ ")[-1:]
    after = "".join(quoted[end : end + 12]).lstrip("*_ ")[:1]
    if not body or not body[0].isalpha() or body[-1] in ".:;," or _is_quote(before):
        return False
    if _is_quote(after) or any(quote in body for quote in '"“”‘'):
        return False
    return len(body.split()) <= MAX_QUOTED_WORDS


def _is_quote(char: str) -> bool:
    return len(char) == 1 and char in QUOTES


# --- quoted terms -----------------------------------------------------------------------

# ``‘‘Term’’``: the doubled single quotes of US government typography (Federal Register)
# A PDF's typesetting may turn a quote the wrong way: '”Records” refer to' opens with a
# closing quote (after a space, before a capital), '“Board“ means' closes with an opening
# one (before a defining verb).
OPEN_Q = r"(?:``|‘‘|(?<![\w`'’])[\"'‘“]|(?<=[\s(])”(?=[A-Z]))"
CLOSE_Q = (
    r"(?:''|’’|[\"'’”](?![\w])|“(?=[ \t]+(?:means?|refers?|shall\s+mean|includes?)\b))"
)
# A character of a quoted term: no quote, but an apostrophe inside a word ("Lender’s")
# and a single line break (wrapped PDF lines) are allowed.
TERM_CHAR = r"(?:[^\"'‘’“”`*\n]|['’](?=\w)|\n(?![ \t]*\n))"
QTERM = OPEN_Q + r"(?P<term>" + TERM_CHAR + r"{1,120}?)" + CLOSE_Q
QTERM_ANON = OPEN_Q + TERM_CHAR + r"{1,120}?" + CLOSE_Q
QUOTED_TERM = re.compile(QTERM)


def term_at(raw: str, start: int) -> tuple[str, int]:
    """A matched term with its whitespace collapsed, and the offset of its first letter."""
    lead = len(raw) - len(raw.lstrip())
    # "known as its ‘‘pitch attitude.’’": the full stop inside the quotes is the sentence's
    term = " ".join(raw.split()).rstrip(",;:")
    if re.search(r"[a-z]{2}\.$", term):
        term = term[:-1]
    return term, start + lead
