"""The query's syntax, read once: quoted phrases, code identifiers, numbered citations
("Article 17(3)(b)") and relative ones ("paragraph (k)"), and what is left of it.

:func:`parse_query` is the only reader of a query's syntax: the searcher reads it through
the query plan (:mod:`.plan`), and the passages take their evidence from that plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..text.analyze import analyze
from ..text.numbering import find_citations
from .relative_citations import RelativeCitation, attach_relative, find_relative_citations
from .rule_citations import with_guidance

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

    @property
    def cites(self) -> bool:
        """The query cites a section: by number or by its own labels."""
        return bool(self.cited or self.relative)


Reader = Callable[[str], ParsedQuery]
"""How a text's syntax is read: :func:`parse_query`, or a reading remembered per text
(:class:`Reading`)."""


def parse_query(query: str) -> ParsedQuery:
    phrases = [m.group(1).strip() for m in QUOTED.finditer(query)]
    identifiers = [m.group(0) for m in _IDENTIFIER.finditer(query)]
    for m in _BACKTICKED.finditer(query):
        name = m.group(1).strip().removesuffix("()")
        (identifiers if name and len(name.split()) == 1 else phrases).append(name)
    citations = find_citations(query)
    relative = find_relative_citations(query, [(c.start, c.end) for c in citations])
    citations, relative = attach_relative(query, citations, relative)
    widened = [
        with_guidance(query, c.start, c.text, tuple(c.label.candidate_ids())) for c in citations
    ]
    cited = tuple((text, ids) for _, text, ids in widened)
    spans = [(w[0], c.end) for w, c in zip(widened, citations, strict=True)]
    spans += [(c.start, c.end) for c in relative]
    remainder = query
    for start, end in sorted(spans, reverse=True):
        remainder = remainder[:start] + " " + remainder[end:]
    return ParsedQuery(
        query,
        tuple(dict.fromkeys(p for p in phrases if p)),
        cited,
        remainder.strip(),
        tuple(dict.fromkeys(identifiers)),
        tuple(relative),
    )


class Reading:
    """The syntax of each text asked for, read once: the texts a query plan's analysers read
    (the query, the query without the documents it names) are each parsed at most once."""

    def __init__(self) -> None:
        self._read: dict[str, ParsedQuery] = {}

    def __call__(self, text: str) -> ParsedQuery:
        if text not in self._read:
            self._read[text] = parse_query(text)
        return self._read[text]

    def get(self, text: str) -> ParsedQuery | None:
        """The syntax of ``text`` when it has been read, else None."""
        return self._read.get(text)


def has_words(text: str) -> bool:
    """``text`` holds search words outside its quoted phrases."""
    return bool(analyze(QUOTED.sub(" ", text)))
