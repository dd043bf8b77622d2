"""Headings as plain text: what breadcrumbs, section ids and titles are made of.

A heading line in Markdown may carry markup: ``**Limitation of Liability**``,
``<u>Liability Caps</u>.``, ``[Fees](#fees)``, ``*Schedule* 2:``. Shown in a
breadcrumb or slugged into an id (``u-exceptions-u-the-liability-cap``) that
markup is noise, so the structure stage reads a heading through
:func:`plain_heading`: the text a reader sees, with trailing punctuation
dropped. The section's heading line in the document text is left as written.
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token

_MARKUP = re.compile(r"[*_<>\[\]`\\!&]")
_REFERENCE_LINK = re.compile(r"\[(?P<text>[^\[\]\n]*)\]\[[^\[\]\n]*\]|\]\[[^\[\]\s]*\]")
"""A link by reference ("[Chairs][terms]"), whose definition a heading's line does not hold,
or the end of one cut from its start ("PGB ][terms]")."""
_TRAILING = re.compile(r"(?:[\s:;,]|(?<=[^\d\s])\.)+$")
_TEXT_TOKENS = frozenset({"text", "code_inline"})
CLAUSE_WORDS = 20
"""A heading of more words is a clause written as a heading (a Word paragraph styled
as a heading that holds a whole clause): its title is its first sentence."""
_RUN_IN = re.compile(r"^(?P<title>.{3,100}?[a-z)])\.\s+(?=[A-Z“\"(])")


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark")


def plain_heading(text: str) -> str:
    """The heading as a reader sees it: no emphasis, HTML tags, link targets (inline or by
    reference) or escapes; whitespace collapsed; trailing ``:`` ``;`` ``,`` dropped, and a
    trailing ``.`` unless it ends a number ("1." stays: outline numbering needs it).
    A clause written as a heading gives its run-in title ("Fees. Customer shall
    pay ..." -> "Fees")."""
    if _MARKUP.search(text):
        text = _REFERENCE_LINK.sub(lambda link: link["text"] or "", text)
        tokens = _parser().parseInline(text)
        text = "".join(_visible(tokens[0].children or [])) if tokens else text
    text = " ".join(text.split())
    if len(text.split()) > CLAUSE_WORDS and (run_in := _RUN_IN.match(text)):
        text = run_in["title"]
    return _TRAILING.sub("", text)


def _visible(tokens: list[Token]) -> list[str]:
    parts = []
    for token in tokens:
        if token.type in _TEXT_TOKENS:
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif token.type == "image":
            parts += _visible(token.children or [])
    return parts
