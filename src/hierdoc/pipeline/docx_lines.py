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

#: Besides letters and digits, what a line that stops mid-sentence may end with.
_OPEN_END_MARKS = frozenset(",-–—")
#: A paragraph that opens a clause or a point: "2. ", "2.1 ", "(a) ", "b. ", "iv) ", a bullet.
_OPENS_ITEM = re.compile(
    r"^(?:\d{1,3}(?:\.\d{1,3})*\.?|\(?[a-z]{1,4}\)|[a-z]\.|\([A-Z0-9]{1,4}\)|[•·▪◦‣\-–])\s"
)
#: Lines that go on in lower case the file needs before its paragraphs are read as lines.
_MIN_BROKEN_LINES = 3
_MIN_BROKEN_SHARE = 0.1
#: A line this share of the usual printed width or longer runs to the margin.
_FULL_LINE = 0.6


_T, _TAB, _PPR, _NUMPR, _OUTLINE, _STYLE, _IND, _VAL = (
    w(tag) for tag in ("t", "tab", "pPr", "numPr", "outlineLvl", "pStyle", "ind", "val")
)


def _text(paragraph: Any) -> str:
    nodes = paragraph.iter(_T, _TAB)
    return "".join(node.text or "" if node.tag == _T else " " for node in nodes).strip()


def _open_end(line: str) -> bool:
    """The line stops mid-sentence: on a word, a number, a comma or a dash (not on a
    form's blank "____")."""
    last = line[-1:]
    return last.isalnum() or last in _OPEN_END_MARKS


def _layout(paragraph: Any) -> tuple[Any, ...] | None:
    """What a continuation line shares with the line before it: style and indent;
    None for a paragraph in a list (its own item) or a heading outline level."""
    ppr = paragraph.find(_PPR)
    if ppr is None:
        return ("", ())
    if ppr.find(_NUMPR) is not None or ppr.find(_OUTLINE) is not None:
        return None
    style = ppr.find(_STYLE)
    indent = ppr.find(_IND)
    return (
        "" if style is None else style.get(_VAL, ""),
        () if indent is None else tuple(sorted(indent.attrib.items())),
    )


class PrintedLines:
    """Which paragraphs of a body continue the one before them (see the module)."""

    def __init__(self, paragraphs: list[Any]) -> None:
        lines = [(_layout(paragraph), _text(paragraph)) for paragraph in paragraphs]
        widths = [
            len(before)
            for (layout, before), (next_layout, after) in zip(lines, lines[1:], strict=False)
            if layout is not None
            and layout == next_layout
            and _open_end(before)
            and after[:1].islower()
        ]
        shown = sum(1 for _, text in lines if text)
        self.active = len(widths) >= max(_MIN_BROKEN_LINES, _MIN_BROKEN_SHARE * shown)
        self._full = _FULL_LINE * statistics.median(widths) if self.active else 0.0

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
        if not line or not following or not _open_end(line):
            return False
        if _OPENS_ITEM.match(following):
            return False
        return following[0].islower() or len(line) >= self._full
