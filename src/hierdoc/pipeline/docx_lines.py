"""Word paragraphs that are the printed lines of one paragraph.

A Word file converted from a PDF often holds each printed line as a paragraph of its
own: '"Submit" is the act of uploading, ... content to any' / 'Project, including but
not limited to ...'. Read paragraph by paragraph, the sentence (and the definition or
clause it holds) is cut in two. Such a file shows itself by paragraphs that stop
mid-sentence and go on in lower case in the next paragraph of the same style; in such
a file a paragraph goes on in the next one of the same style and indent when it stops
mid-sentence and either runs to the printed line's width or is followed by a lower-case
word, unless the next one opens a clause or a point of its own ("2.", "(a)").
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterator
from typing import Any

from .docx_numbering import w

#: The last character of a line that stops mid-sentence: a word, a number, a comma, a dash.
_OPEN_END = re.compile(r"[\w,\-–—]$")
#: A paragraph that opens a clause or a point: "2. ", "2.1 ", "(a) ", "b. ", "iv) ", a bullet.
_OPENS_ITEM = re.compile(
    r"^(?:\d{1,3}(?:\.\d{1,3})*\.?|\(?[a-z]{1,4}\)|[a-z]\.|\([A-Z0-9]{1,4}\)|[•·▪◦‣\-–])\s"
)
#: Lines that go on in lower case the file needs before its paragraphs are read as lines.
_MIN_BROKEN_LINES = 3
_MIN_BROKEN_SHARE = 0.1
#: A line this share of the usual printed width or longer runs to the margin.
_FULL_LINE = 0.6


def _text(paragraph: Any) -> str:
    nodes = paragraph.iter(w("t"), w("tab"))
    return " ".join("".join(n.text or "" if n.tag == w("t") else " " for n in nodes).split())


def _layout(paragraph: Any) -> tuple[Any, ...] | None:
    """What a continuation line shares with the line before it: style and indent;
    None for a paragraph in a list (its own item) or a heading outline level."""
    ppr = paragraph.find(w("pPr"))
    if ppr is None:
        return ("", ())
    if ppr.find(w("numPr")) is not None or ppr.find(w("outlineLvl")) is not None:
        return None
    style = ppr.find(w("pStyle"))
    indent = ppr.find(w("ind"))
    return (
        "" if style is None else style.get(w("val"), ""),
        () if indent is None else tuple(sorted(indent.attrib.items())),
    )


class PrintedLines:
    """Which paragraphs of a body continue the one before them (see the module)."""

    def __init__(self, paragraphs: list[Any]) -> None:
        widths = [
            len(before)
            for before, after in self._pairs(paragraphs)
            if _OPEN_END.search(before) and after[:1].islower()
        ]
        shown = sum(1 for paragraph in paragraphs if _text(paragraph))
        self.active = len(widths) >= max(_MIN_BROKEN_LINES, _MIN_BROKEN_SHARE * shown)
        self._full = _FULL_LINE * statistics.median(widths) if self.active else 0.0

    @staticmethod
    def _pairs(paragraphs: list[Any]) -> Iterator[tuple[str, str]]:
        for before, after in zip(paragraphs, paragraphs[1:], strict=False):
            layout = _layout(before)
            if layout is not None and layout == _layout(after):
                yield _text(before), _text(after)

    def groups(self, children: list[Any]) -> Iterator[list[Any]]:
        """The children of a container, each paragraph with the lines that continue it."""
        group: list[Any] = []
        for child in children:
            if group and self._continues(group[-1], child):
                group.append(child)
                continue
            if group:
                yield group
            group = [child]
        if group:
            yield group

    def _continues(self, before: Any, after: Any) -> bool:
        if not self.active or before.tag != w("p") or after.tag != w("p"):
            return False
        layout = _layout(before)
        if layout is None or layout != _layout(after):
            return False
        line, following = _text(before), _text(after)
        if not line or not following or not _OPEN_END.search(line):
            return False
        if _OPENS_ITEM.match(following):
            return False
        return following[0].islower() or len(line) >= self._full
