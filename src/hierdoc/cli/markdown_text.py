"""A chunk's Markdown as the reader should see it, with the source offset of every character.

:func:`cells` parses the text with markdown-it-py (CommonMark and tables) and gives it
back as lines of :class:`Cell`: one character each, with the style the markup gave it
(strong, emphasis, code, a link) and its offset in the text. Heading marks, emphasis
delimiters, backticks and table pipes are gone; list items keep their bullet or number,
table cells are joined by `` | `` and a link's address follows its text. Because every
character keeps its offset, a snippet is a window of offsets into the text (as search
results give it) and a highlight is a span of offsets, whatever markup lies around it:
the three renderers (:func:`terminal`, :func:`plain`, :func:`markdown`) style the
characters of a highlight without touching the document's own markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import groupby, pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

TEXT, DECORATION, NOTE = "text", "decoration", "note"
"""What a cell is: the document's text; a bullet, number or table rule the renderer
adds; a note such as a link's address (shown on a terminal, not in Markdown)."""


@dataclass(frozen=True)
class Style:
    strong: bool = False
    emphasis: bool = False
    code: bool = False
    href: str = ""
    kind: str = TEXT


@dataclass(frozen=True)
class Cell:
    char: str
    style: Style
    offset: int
    """Where the character is in the source text (a decoration: where its block starts)."""


Line = list[Cell]
Spans = Sequence[tuple[int, int]]

_BREAK_TAG = re.compile(r"<br\s*/?>", re.IGNORECASE)
_SPACE = re.compile(r"\s")
_DESTINATION_START = re.compile(r"[*_`~]*\]\(")
"""What follows a link's text in the source: closing emphasis, then ``](``."""


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # imported when output is rendered: not for --help

    return MarkdownIt("commonmark").enable("table")


def cells(text: str) -> list[Line]:
    """``text`` parsed into lines of cells, every cell knowing its offset in ``text``."""
    return _Builder(text).build(_parser().parse(text))


class _Builder:
    """Walks markdown-it's tokens, matching each character shown to its place in the source:
    the characters of the text appear in the source in order, with markup between them."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", source)]
        self.lines: list[Line] = [[]]
        self.cursor = 0
        self.prefixes: list[str] = []
        self.ordinals: list[int] = []
        self.style = Style()
        self.in_header = False
        self.item_open = False
        """A list item's marker was written: its first paragraph goes on the same line."""
        self.link_from = 0
        self.separate = False
        """A table cell began after another with text: `` | `` goes before its first text."""

    def build(self, tokens: Sequence[Token]) -> list[Line]:
        for token in tokens:
            self._block(token)
        return [line for line in self.lines if line]

    # blocks

    def _block(self, token: Token) -> None:
        if token.map:
            line = min(token.map[0], len(self.line_starts) - 1)
            self.cursor = max(self.cursor, self.line_starts[line])
        if token.type in ("paragraph_open", "heading_open", "tr_open", "hr"):
            self._new_line()
        handle = _BLOCKS.get(token.type)
        if handle is not None:
            handle(self, token)

    def _heading(self, token: Token) -> None:
        self.style = Style(strong=token.type == "heading_open")

    def _list(self, token: Token) -> None:
        if token.type.endswith("_close"):
            self.ordinals.pop()
        else:  # a bullet list counts from 0: no numbers
            ordered = token.type == "ordered_list_open"
            self.ordinals.append(int(token.attrs.get("start", 1) or 1) if ordered else 0)

    def _quote(self, token: Token) -> None:
        if token.type == "blockquote_open":
            self.prefixes.append("│ ")
        else:
            self.prefixes.pop()

    def _table_part(self, token: Token) -> None:
        if token.type in ("thead_open", "thead_close"):
            self.in_header = token.type == "thead_open"
        else:  # an empty cell shows nothing, not even its rule
            self.separate = any(c.style.kind == TEXT for c in self.lines[-1])

    def _rule(self, token: Token) -> None:
        self._decorate("───")

    def _inline_block(self, token: Token) -> None:
        self._inline(token.children or [])

    def _new_line(self) -> None:
        if self.item_open:
            self.item_open = False
            return
        if self.lines[-1]:
            self.lines.append([])
        if self.prefixes:
            self._decorate("".join(self.prefixes))

    def _list_item(self, token: Token) -> None:
        self._new_line()
        depth = len(self.ordinals) - 1
        ordinal = self.ordinals[-1]
        if ordinal:
            marker = f"{token.info or ordinal}{token.markup} "
            self.ordinals[-1] = int(token.info or ordinal) + 1
        else:
            marker = "• "
        self._decorate("  " * depth + marker)
        self.item_open = True

    def _decorate(self, text: str, kind: str = DECORATION) -> None:
        style = Style(kind=kind)
        self.lines[-1] += [Cell(char, style, self.cursor) for char in text]

    def _verbatim(self, token: Token) -> None:
        self._new_line()
        style = Style(code=token.type != "html_block")
        for n, line in enumerate(token.content.rstrip("\n").split("\n")):
            if n:
                self.lines.append([])
            self._text(line, style)

    # inline

    def _inline(self, children: Sequence[Token]) -> None:
        base = self.style
        if self.in_header:
            base = replace(base, strong=True)
        style = base
        for child in children:
            kind = child.type
            if kind == "text":
                self._text(child.content, style)
            elif kind == "code_inline":
                self._text(child.content, replace(style, code=True))
            elif kind in ("strong_open", "strong_close"):
                style = replace(style, strong=kind == "strong_open" or base.strong)
            elif kind in ("em_open", "em_close"):
                style = replace(style, emphasis=kind == "em_open")
            elif kind == "link_open":
                style = replace(style, href=str(child.attrs.get("href", "")))
                self.link_from = len(self.lines[-1])
            elif kind == "link_close":
                self._link_end(style.href)
                style = replace(style, href="")
            elif kind == "image":
                self._text(child.content or "image", replace(style, emphasis=True))
                self._skip_destination()
            elif kind == "softbreak":
                self._text(" ", style)
            elif kind == "hardbreak":
                self.lines.append([])
            elif kind == "html_inline":
                self._html(child.content, style)

    def _text(self, text: str, style: Style) -> None:
        if self.separate and text:
            self.separate = False
            self._decorate(" | ")
        line = self.lines[-1]
        for char in text:
            line.append(Cell(char, style, self._find(char)))

    def _find(self, char: str) -> int:
        """The offset of ``char`` at or after the cursor (markup skipped); the cursor moves past."""
        if char.isspace():
            at = self.cursor if self.cursor < len(self.source) else -1
            if at >= 0 and not self.source[at].isspace():
                match = _SPACE.search(self.source, self.cursor, self.cursor + 64)
                at = match.start() if match else -1
        else:
            at = self.source.find(char, self.cursor, self.cursor + 256)
        if at < 0:
            return max(0, min(self.cursor, len(self.source) - 1))
        self.cursor = at + 1
        return at

    def _link_end(self, href: str) -> None:
        """After a link's text: its address as a note, unless the text is the address."""
        shown = "".join(c.char for c in self.lines[-1][self.link_from :])
        destination = self._skip_destination()
        if href and shown != href:
            start = self.cursor
            self.cursor = destination
            self._decorate(" (", NOTE)
            self._text(href, Style(kind=NOTE))
            self._decorate(")", NOTE)
            self.cursor = max(self.cursor, start)

    def _skip_destination(self) -> int:
        """Move the cursor past ``](destination)`` when it follows; where the destination
        starts (the cursor when there is none)."""
        source = self.source
        opening = _DESTINATION_START.match(source, self.cursor)
        if opening is None:
            return self.cursor
        at = opening.end()
        depth, end = 0, at
        while end < len(source):
            if source[end] == "(":
                depth += 1
            elif source[end] == ")":
                if depth == 0:
                    break
                depth -= 1
            end += 1
        self.cursor = end + 1
        return at

    def _html(self, html: str, style: Style) -> None:
        if _BREAK_TAG.fullmatch(html.strip()):
            self._text(" ", style)
        else:
            self._text(html, style)


_BLOCKS = {
    "heading_open": _Builder._heading,
    "heading_close": _Builder._heading,
    "bullet_list_open": _Builder._list,
    "ordered_list_open": _Builder._list,
    "bullet_list_close": _Builder._list,
    "ordered_list_close": _Builder._list,
    "list_item_open": _Builder._list_item,
    "blockquote_open": _Builder._quote,
    "blockquote_close": _Builder._quote,
    "thead_open": _Builder._table_part,
    "thead_close": _Builder._table_part,
    "th_open": _Builder._table_part,
    "td_open": _Builder._table_part,
    "hr": _Builder._rule,
    "code_block": _Builder._verbatim,
    "fence": _Builder._verbatim,
    "html_block": _Builder._verbatim,
    "inline": _Builder._inline_block,
}
"""What each block token does; the others (closing a paragraph, a row...) do nothing."""


# windows and lines


def window(lines: Sequence[Line], start: int, end: int) -> list[Line]:
    """The cells of ``lines`` whose offsets fall in ``[start, end)``, whitespace folded;
    lines left empty dropped."""
    kept = []
    for line in lines:
        inside = [c for c in line if start <= c.offset < end]
        folded = _fold(inside)
        if any(c.style.kind == TEXT for c in folded):
            kept.append(folded)
    return kept


def _fold(line: Line) -> Line:
    """Runs of the document's whitespace as one space; none at either end."""
    folded: Line = []
    for cell in line:
        if cell.style.kind == TEXT and cell.char.isspace():
            if not folded or folded[-1].char == " ":
                continue
            cell = replace(cell, char=" ")
        folded.append(cell)
    while folded and folded[-1].char == " ":
        folded.pop()
    return folded


def highlighted(line: Line, spans: Spans) -> list[bool]:
    """For each cell of ``line``, whether it is in a match: the document's text inside one
    of ``spans``, and a decoration (a table's rule, say) between two such cells."""
    inside = [c.style.kind != DECORATION and any(s <= c.offset < e for s, e in spans) for c in line]
    text = [n for n, c in enumerate(line) if c.style.kind != DECORATION]
    for before, after in pairwise(text):
        if inside[before] and inside[after]:
            inside[before + 1 : after] = [True] * (after - before - 1)
    return inside


def wrap(line: Line, width: int) -> list[Line]:
    """``line`` broken at spaces into lines of at most ``width`` characters (a longer word
    stands alone)."""
    rows: list[Line] = []
    row: Line = []
    for is_space, group in groupby(line, key=lambda c: c.char == " "):
        word = list(group)
        if is_space:
            if row:
                row += word[:1]
            continue
        if row and len(row) + len(word) > width:
            while row and row[-1].char == " ":
                row.pop()
            rows.append(row)
            row = []
        row += word
    if row:
        rows.append(row)
    return rows


# renderers


def _sgr(cell: Cell, marked: bool) -> str:
    """The terminal attributes of ``cell``: bold, italic, underlined links, cyan code, dim
    notes; a highlight is yellow on top of them."""
    style, codes = cell.style, []
    codes += ["1"] if style.strong else []
    codes += ["3"] if style.emphasis else []
    codes += ["4"] if style.href else []
    codes += ["2"] if style.kind == NOTE else []
    codes += ["36"] if style.code else []
    if marked:
        codes += ["1", "33"] if "1" not in codes else ["33"]
    return ";".join(codes)


def terminal(line: Line, spans: Spans) -> str:
    """``line`` with ANSI attributes; each change resets and sets the new ones."""
    out, current = [], ""
    for cell, marked in zip(line, highlighted(line, spans), strict=True):
        codes = _sgr(cell, marked)
        if codes != current:
            out.append("\x1b[0m" if current else "")
            out.append(f"\x1b[{codes}m" if codes else "")
            current = codes
        out.append(cell.char)
    if current:
        out.append("\x1b[0m")
    return "".join(out)


def plain(line: Line, spans: Spans, open_mark: str, close_mark: str) -> str:
    """``line`` as plain text, a highlight between ``open_mark`` and ``close_mark``."""
    out, inside = [], False
    for cell, now in zip(line, highlighted(line, spans), strict=True):
        if now != inside:
            out.append(open_mark if now else close_mark)
            inside = now
        out.append(cell.char)
    if inside:
        out.append(close_mark)
    return "".join(out)


MARKDOWN_MARK = ("<mark>", "</mark>")
"""A highlight in Markdown output: inline HTML, which emphasis delimiters never pair with."""
_ESCAPED = re.compile(r"([\\`*_\[\]<>|~])")
_LINE_START = re.compile(r"^([#+=-]|\d+[.)])")


def markdown(line: Line, spans: Spans) -> str:
    """``line`` as Markdown: the document's emphasis, code and links written back, each
    highlight in ``<mark>`` inside them, notes left out (the link carries its address)."""
    shown = [
        (c, m) for c, m in zip(line, highlighted(line, spans), strict=True) if c.style.kind != NOTE
    ]
    parts = []
    for style, group in groupby(shown, key=lambda pair: replace(pair[0].style, kind=TEXT)):
        parts.append(_markdown_run(list(group), style))
    text = "".join(parts)
    return _LINE_START.sub(_escaped_start, text)


def _escaped_start(match: re.Match[str]) -> str:
    """A mark, or a number's dot, that would start a block at the start of a line, escaped."""
    mark = match.group(1)
    return mark[:-1] + "\\" + mark[-1] if mark[0].isdigit() else "\\" + mark


def _markdown_run(run: list[tuple[Cell, bool]], style: Style) -> str:
    """One run of cells of one style (each with whether it is marked), with its delimiters
    outside its spaces."""
    chars = "".join(c.char for c, _ in run)
    lead = len(chars) - len(chars.lstrip(" "))
    trail = len(chars) - len(chars.rstrip(" "))
    core = run[lead : len(run) - trail]
    if not core:
        return chars
    if style.code:
        body = _code_span("".join(c.char for c, _ in core))
        if any(marked for _, marked in core):
            body = MARKDOWN_MARK[0] + body + MARKDOWN_MARK[1]
    else:
        body = "".join(_marked_escaped(core))
        delimiter = ("**" if style.strong else "") + ("*" if style.emphasis else "")
        body = f"{delimiter}{body}{delimiter[::-1]}"
    if style.href:
        body = f"[{body}]({_destination(style.href)})"
    return " " * lead + body + " " * trail


def _marked_escaped(run: list[tuple[Cell, bool]]) -> Iterator[str]:
    inside = False
    for cell, now in run:
        if now != inside:
            yield MARKDOWN_MARK[0 if now else 1]
            inside = now
        yield _ESCAPED.sub(r"\\\1", cell.char)
    if inside:
        yield MARKDOWN_MARK[1]


def _code_span(code: str) -> str:
    ticks = "`" * (max((len(m) for m in re.findall("`+", code)), default=0) + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{ticks}{pad}{code}{pad}{ticks}"


def _destination(href: str) -> str:
    return f"<{href}>" if re.search(r"[\s()<>]", href) else href
