"""Clause numbers typed into the text of Word paragraphs, read as an outline.

Many contracts number their clauses by hand in the Normal style: "1 DEFINITIONS.",
"  2.3 Restrictions. Except as ...", "5.1<tab><tab>Term.  The term of ...". No list
numbering marks them, so the converter reads the typed number itself, and trusts it
only when it continues the outline typed so far: after "2.3" the next clause is
"2.4" (a sibling), "2.3.1" (a child) or "3" (the parent's next sibling). A number out
of that sequence ("30 days", a list restarting at "1.") stays text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A number typed at the start of a paragraph: "2.", "1 ", "2.3", "10.5" before a space or tab.
_TYPED = re.compile(r"^\s*(?P<number>\d{1,3}(?:\.\d{1,3}){0,4})(?P<dot>\.?)[ \t\u00a0]+(?=\S)")
_MIN_DEPTH = 2
_MAX_DEPTH = 6


@dataclass(frozen=True)
class TypedNumber:
    """A typed clause number: its parts (2, 3), as written ("2.3", "1.") and how many
    characters of the paragraph it takes, the space after it included."""

    parts: tuple[int, ...]
    written: str
    end: int


def typed_number(text: str) -> TypedNumber | None:
    """The clause number typed at the start of ``text``, or None."""
    match = _TYPED.match(text)
    if match is None:
        return None
    parts = [int(part) for part in match["number"].split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()  # "3.0 Dedication" heads clause 3, whose first clause is "3.1"
    return TypedNumber(tuple(parts), match["number"] + match["dot"], match.end())


class TypedOutline:
    """The last clause number typed (or shown by a heading) and its heading depth."""

    def __init__(self) -> None:
        self._last: tuple[int, tuple[int, ...]] | None = None

    @property
    def started(self) -> bool:
        return self._last is not None

    def note_heading(self, depth: int, text: str) -> None:
        """A heading at ``depth``: its number ("1. Definitions" -> 1) is where typed
        clauses continue from; a heading without a number at the depth of the last
        number or above closes the outline."""
        number = typed_number(text + " ")
        if number is not None:
            self._last = (depth, number.parts)
        elif self._last is not None and depth <= self._last[0]:
            self._last = None

    def depth_after(self, parts: tuple[int, ...]) -> int | None:
        """The heading depth of clause ``parts`` when it continues the outline: the next
        sibling of the last number or of one of its parents, or its first child."""
        if self._last is None:
            return None
        depth, last = self._last
        if parts == (*last, 1):
            return min(depth + 1, _MAX_DEPTH)
        for keep in range(len(last)):
            if parts == (*last[:keep], last[keep] + 1):
                return max(depth - (len(last) - 1 - keep), _MIN_DEPTH)
        return None

    def take(self, depth: int, parts: tuple[int, ...]) -> None:
        """Record clause ``parts`` as the last one, headed at ``depth``."""
        self._last = (depth, parts)
