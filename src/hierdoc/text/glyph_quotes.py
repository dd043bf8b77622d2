"""Quotation marks that a mis-encoded font turned into other glyphs.

A PDF whose font maps its curly quotes to the wrong code points gives text such as
'― banking business ‖ means the business of ...': the opening mark comes out as a
horizontal bar (U+2015), the closing one as a double vertical line (U+2016), another bar
or a straight quote. Definitions, citations of defined terms and exact search all look
for quotation marks, so :func:`straighten_glyph_quotes` puts curly quotes back where such
a pair wraps a short phrase: always when it closes with the double line (which ordinary
text does not pair with a bar), and, as a bar pair also reads as two dashes, only before a
definition's verb ("means", "includes", "shall have the same meaning") when it closes with a
bar or a straight quote. Each glyph is replaced by one character, so offsets into the text
(page starts) stay where they are.
"""

from __future__ import annotations

import re

_OPEN = "\u2015"
_DOUBLE_LINE = "\u2016"
_PHRASE = r"[^\W\d_][^\u2015\u2016\"“”\n.;:()]{0,60}?(?:\n[^\u2015\u2016\"“”\n.;:()]{1,60}?)?"
"""A term: a letter, then up to two short lines of words without sentence punctuation."""
_PAIR = re.compile(
    rf"{_OPEN}(?P<term>\s?{_PHRASE}\s?)(?:(?P<line>{_DOUBLE_LINE})"
    rf"|(?P<other>[{_OPEN}\"])(?=\s*(?:means|includes|shall\s+(?:mean|include|have))\b))"
)


def straighten_glyph_quotes(text: str) -> str:
    """``text`` with glyph pairs that stand for quotation marks made curly quotes."""
    if _OPEN not in text:
        return text
    return _PAIR.sub(_curly, text)


def _curly(match: re.Match[str]) -> str:
    return f"“{match['term']}”"
