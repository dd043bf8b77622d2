"""The layout of formal text, as the definition finders read it.

Where a numbered item ends ("(a)" runs to "(b)", "1.1" to "1.2" or "2."), where
a paragraph ends (a blank line, a heading or the next item), and the rows and
cells of Markdown tables, each with the offset of its text. Item markers are
read with the numbering grammar of :mod:`hierdoc.text.numbering` ("(1)",
"(a)", "(iv)" are its parenthesised parts).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...text.numbering import PAREN

#: A bullet a list item opens with: Markdown's "-", "*", "+", and the glyphs a PDF or a word
#: processor prints ("•", "●", "▪", ...), kept as printed by the PDF converter.
BULLET = r"[-*+•●○◦▪■□▫‣⁃∙]"
# Item markers at the start of a line: "1.", "1.1", "(1)", "(a)", "(iv)", "a)", "- ", "● ".
MARKER = re.compile(
    r"[ \t]*>?[ \t]*(?P<m>" + PAREN + r"|\d{1,3}\.(?:\d{1,3}\.?)*"
    r"|\d{1,3}\)|[a-zA-Z]\)|" + BULLET + r"(?=[ \t]))(?=[ \t\n]|$)"
)
_HEADING = re.compile(
    r"[ \t]*(?:#{1,6}[ \t]|(?:CHAPTER|Chapter|TITLE|Title|PART|Part|SEC\.|Sec\.|SECTION|Section"
    r"|ARTICLE|Article|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix)[ \t]+[\dIVXLC]+\b)"
)
_NUMERIC_STYLE = re.compile(r"1(?:\.1)*\.?")


def item_start(text: str, line_start: int) -> str | None:
    """The marker of the numbered item whose text holds ``line_start``, if any.

    Walks back (at most 60 lines) over wrapped lines of the same paragraph to the line
    that opens the item.
    """
    position = line_start
    for _ in range(60):
        line_end = text.find("\n", position)
        line = text[position : line_end if line_end >= 0 else len(text)]
        if not line.strip() or _HEADING.match(line):
            return None
        marker = MARKER.match(line)
        if marker:
            return marker.group("m")
        if position == 0:
            return None
        position = text.rfind("\n", 0, position - 1) + 1
    return None


def _style(marker: str) -> str:
    """The shape of a marker: "(12)" -> "(1)", "(b)" -> "(a)", "(iv)" -> "(i)", "2.3" -> "1.1"."""
    style = re.sub(r"\d+", "1", marker)
    style = re.sub(r"\b[ivx]+\b", "i", style)
    style = re.sub(r"\b[IVX]+\b", "I", style)
    style = re.sub(r"[a-hj-uwyz]+|[a-z]{2,}", "a", style)
    return re.sub(r"[A-HJ-UWYZ]+|[A-Z]{2,}", "A", style)


def _ends_item(marker: str, item: str) -> bool:
    """Whether ``marker`` opens a sibling (or a shallower item) of the item ``item``."""
    letter, item_letter = marker.strip("().").strip(), item.strip("().").strip()
    if len(letter) == len(item_letter) == 1 and ord(letter) == ord(item_letter) + 1:
        return True  # "(h)" then "(i)": a letter, not a roman numeral
    style, item_style = _style(marker), _style(item)
    if style == item_style:
        return True
    if _NUMERIC_STYLE.fullmatch(style) and _NUMERIC_STYLE.fullmatch(item_style):
        return style.count("1") <= item_style.count("1")
    return False


def item_end(text: str, position: int, item: str) -> int:
    """Where the item ends: at the next item of the same level, a heading, or a new paragraph.

    A paragraph after a blank line still belongs to the item when it is a sub-item or
    starts in lower case (a page break inside a sentence).
    """
    end = _line_end(text, position)
    blank = False
    while end < len(text):
        start = end + 1
        line = text[start : _line_end(text, start)]
        if not line.strip():
            blank = True
            end = _line_end(text, start)
            continue
        marker = MARKER.match(line)
        if _HEADING.match(line) or (marker and _ends_item(marker.group("m"), item)):
            break
        if blank and not marker and not line.lstrip()[:1].islower():
            break
        blank = False
        end = _line_end(text, start)
    return end


def paragraph_end(text: str, position: int, stop: re.Pattern[str] | None = None) -> int:
    """End of the paragraph at ``position``: a blank line, heading, item or ``stop`` line."""
    end = _line_end(text, position)
    while end < len(text):
        start = end + 1
        line = text[start : _line_end(text, start)]
        if not line.strip() or _HEADING.match(line) or MARKER.match(line):
            break
        if line.lstrip().startswith("|") or (stop and stop.match(line)):
            break
        end = _line_end(text, start)
    return end


def _line_end(text: str, position: int) -> int:
    end = text.find("\n", position)
    return len(text) if end < 0 else end


def tables(text: str) -> Iterator[list[list[tuple[str, int]]]]:
    """Markdown tables as rows of (cell text, offset) pairs, separator rows dropped."""
    rows: list[list[tuple[str, int]]] = []
    position = 0
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("|"):
            cells = _cells(line, position)
            if not all(re.fullmatch(r"\s*:?-{2,}:?\s*", cell) for cell, _ in cells):
                rows.append(cells)
        elif rows:
            yield rows
            rows = []
        position += len(line)
    if rows:
        yield rows


def _cells(line: str, offset: int) -> list[tuple[str, int]]:
    """Cells of a table row with the offset of each cell's text."""
    body = line.rstrip("\r\n")
    bars = [m.start() for m in re.finditer(r"(?<!\\)\|", body)]
    if body.rstrip()[-1:] != "|":
        bars.append(len(body))
    cells = []
    for left, right in zip(bars, bars[1:], strict=False):
        cell = body[left + 1 : right]
        lead = len(cell) - len(cell.lstrip())
        cells.append((cell.strip(), offset + left + 1 + lead))
    return cells
