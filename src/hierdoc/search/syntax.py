"""The query's syntax, read once: quoted phrases, code identifiers, numbered citations
("Article 17(3)(b)") and relative ones ("paragraph (k)"), and what is left of it.

:func:`parse_query` is the only reader of a query's syntax: the searcher reads it through
the query plan (:mod:`.plan`), and the passages take their evidence from that plan.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..pipeline.numbering import find_citations
from .analyze import analyze
from .relative_citations import RelativeCitation, attach_relative, find_relative_citations

QUOTED = re.compile(r"[\"“”„]([^\"“”„]{2,})[\"“”„]")
_BACKTICKED = re.compile(r"`([^`]+)`")
# camelCase, PascalCase (humps of two or more characters) and snake_case names.
_IDENTIFIER = re.compile(
    r"(?<![\w.])(?:[a-z]+(?:[A-Z][a-z0-9]+)+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+"
    r"|[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+)(?!\w)"
)


@dataclass(frozen=True)
class ParsedQuery:
    text: str
    phrases: tuple[str, ...]
    cited: tuple[tuple[str, tuple[str, ...]], ...]
    """(citation text, candidate section ids from most to least specific)."""
    remainder: str
    identifiers: tuple[str, ...] = ()
    """Names as code writes them: `backticked` words, camelCase, snake_case."""
    relative: tuple[RelativeCitation, ...] = ()
    """Citations by own labels only: "paragraph (k)" (:mod:`.relative_citations`)."""


def parse_query(query: str) -> ParsedQuery:
    phrases = [m.group(1).strip() for m in QUOTED.finditer(query)]
    identifiers = [m.group(0) for m in _IDENTIFIER.finditer(query)]
    for m in _BACKTICKED.finditer(query):
        name = m.group(1).strip().removesuffix("()")
        (identifiers if name and len(name.split()) == 1 else phrases).append(name)
    citations = find_citations(query)
    relative = find_relative_citations(query, [(c.start, c.end) for c in citations])
    citations, relative = attach_relative(query, citations, relative)
    cited = tuple((c.text, tuple(c.label.candidate_ids())) for c in citations)
    remainder = query
    for citation in sorted([*citations, *relative], key=lambda c: c.start, reverse=True):
        remainder = remainder[: citation.start] + " " + remainder[citation.end :]
    return ParsedQuery(
        query,
        tuple(dict.fromkeys(p for p in phrases if p)),
        cited,
        remainder.strip(),
        tuple(dict.fromkeys(identifiers)),
        tuple(relative),
    )


def has_words(text: str) -> bool:
    """``text`` holds search words outside its quoted phrases."""
    return bool(analyze(QUOTED.sub(" ", text)))
