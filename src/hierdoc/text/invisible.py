"""Invisible marks out of text: what Word and web pages leave inside words and citations.

Text exported from Word often carries marks a reader never sees: a left-to-right mark
before every cross-reference number ("Rule \\u200e5.5.4"), zero-width spaces, soft hyphens,
byte-order marks in the middle of a file, bidirectional embeddings. They split words for
the keyword index, hide citations from the citation grammar ("Rule" then a mark then
"5.5.4" is no "Rule 5.5.4") and make a query typed by hand miss the text it quotes.

:func:`clean_text` removes them and turns no-break and other fixed-width spaces into
ordinary ones. It runs on every converted document before anything reads it, and on every
query, so that extraction, citations and search see the same characters; offsets into the
stored text (pages, passages, highlights) are offsets into the cleaned text, and
:func:`clean_with_offsets` moves offsets computed before cleaning (a PDF's page starts).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence

#: Marks that take no room: soft hyphen, Arabic letter mark, zero-width space, non-joiner
#: and joiner, left-to-right and right-to-left marks, bidirectional embeddings, overrides
#: and isolates, word joiner and invisible operators, zero-width no-break space (BOM).
INVISIBLE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
#: Spaces of one character that are not U+0020: no-break, figure, narrow no-break, thin...
ODD_SPACES = re.compile("[\u00a0\u2000-\u200a\u202f\u205f\u3000]")


def clean_text(text: str) -> str:
    """``text`` without invisible marks, its odd spaces made ordinary."""
    if text.isascii():
        return text
    return ODD_SPACES.sub(" ", INVISIBLE.sub("", text))


def clean_with_offsets(text: str, offsets: Sequence[int]) -> tuple[str, tuple[int, ...]]:
    """:func:`clean_text`, with ``offsets`` into ``text`` moved to the same places in the
    cleaned text (an offset at a removed mark goes to the character after it)."""
    if text.isascii():
        return text, tuple(offsets)
    removed = [match.start() for match in INVISIBLE.finditer(text)]
    moved = tuple(offset - bisect_left(removed, offset) for offset in offsets)
    return clean_text(text), moved
