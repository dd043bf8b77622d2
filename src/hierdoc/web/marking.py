"""A text as HTML with its marks: the cited point, the query's matches, and defined terms
that show their definition on hover or focus. Every piece of text is escaped."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

from ..models import Definition

Mark = tuple[int, int, str]
"""(start, end, kind): a span of the text and its CSS class ("point", "hit")."""

MIN_TERM_CHARS = 3
"""Shorter defined terms ("A", "we") are not marked: they would mark most of a text."""


@dataclass(frozen=True)
class TermSpan:
    start: int
    end: int
    definition: Definition


class TermFinder:
    """Finds the defined terms of a list of definitions in a text: whole words, any case,
    the longest term first where two overlap."""

    def __init__(self, definitions: Sequence[Definition]) -> None:
        by_term: dict[str, Definition] = {}
        for definition in definitions:
            key = definition.term.strip().casefold()
            if len(key) >= MIN_TERM_CHARS:
                by_term.setdefault(key, definition)
        self._by_term = by_term
        terms = sorted(by_term, key=len, reverse=True)
        alternatives = "|".join(re.escape(term) for term in terms)
        self._pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.I) if terms else None

    def find(self, text: str) -> list[TermSpan]:
        if self._pattern is None:
            return []
        return [
            TermSpan(m.start(), m.end(), self._by_term[m.group().casefold()])
            for m in self._pattern.finditer(text)
        ]


def marked_text(
    text: str,
    marks: Sequence[Mark] = (),
    terms: Sequence[TermSpan] = (),
    term_link: Callable[[Definition], tuple[str, str]] | None = None,
) -> Markup:
    """``text`` as HTML: each mark a ``<mark class=KIND>`` (the first "point" one with
    ``id="point"``), each defined term a focusable ``<span class="term">`` holding a
    tooltip with its definition and, from ``term_link`` (definition -> (url, label)), a
    link to where it is defined."""
    pieces: list[str] = []
    position, point_seen = 0, [False]
    tips: dict[int, str] = {}
    for number, term in enumerate(terms):
        if term.start < position:
            continue
        pieces.append(_marked(text, position, term.start, marks, point_seen))
        inner = _marked(text, term.start, term.end, marks, point_seen)
        key = id(term.definition)
        if key not in tips:
            tips[key] = _tip(term.definition, term_link)
        tip_id = f"tip-{number}"
        pieces.append(
            f'<span class="term" tabindex="0" aria-describedby="{tip_id}">{inner}'
            f'<span class="tip" role="tooltip" id="{tip_id}">{tips[key]}</span></span>'
        )
        position = term.end
    pieces.append(_marked(text, position, len(text), marks, point_seen))
    return Markup("".join(pieces))


def _marked(text: str, start: int, end: int, marks: Sequence[Mark], point: list[bool]) -> str:
    """``text[start:end]`` escaped, its segments wrapped in the marks that cover them."""
    inside = [m for m in marks if m[0] < end and m[1] > start]
    if not inside:
        return str(escape(text[start:end]))
    cuts = {start, end}
    for mark_start, mark_end, _ in inside:
        cuts.update(c for c in (mark_start, mark_end) if start < c < end)
    ordered = sorted(cuts)
    out: list[str] = []
    for left, right in zip(ordered, ordered[1:], strict=False):
        html = str(escape(text[left:right]))
        for mark_start, mark_end, kind in inside:
            if mark_start <= left and right <= mark_end:
                anchor = ""
                if kind == "point" and not point[0]:
                    anchor, point[0] = ' id="point"', True
                html = f'<mark class="{escape(kind)}"{anchor}>{html}</mark>'
        out.append(html)
    return "".join(out)


def _tip(definition: Definition, term_link: Callable[[Definition], tuple[str, str]] | None) -> str:
    """A term's tooltip: the term, its definition, and where it is defined."""
    where = ""
    if term_link is not None:
        url, label = term_link(definition)
        where = f' <a href="{escape(url)}">defined in {escape(label)}</a>'
    return f"<dfn>{escape(definition.term)}</dfn>: {escape(definition.definition)}{where}"
