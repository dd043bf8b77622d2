"""Search results as text, Markdown, CSV or JSON (``hierdoc search --format``).

Every format cites each result by file, section id and pages (when the document has
pages). Text and Markdown show the result's passage, or a snippet of it centred on its
first match when it is longer than a screenful, rendered from the document's Markdown
(markdown_text.py: no heading marks, emphasis delimiters or table pipes) with the
matches marked: bold yellow on a terminal, where the document's bold, italics, code and
links are shown as such; plain text with ``[[...]]`` when the output is not a terminal
(or ``NO_COLOR`` is set); in Markdown, the document's markup written back and each
match in ``<mark>``, which never pairs with an emphasis delimiter.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from ..models import SearchResponse, SearchResult
from . import markdown_text
from .markdown_text import Line

FORMATS = ("text", "markdown", "csv", "json")
SNIPPET_CHARS = 480
"""Longest snippet shown in text and Markdown; a longer passage is cut around its match."""
CSV_COLUMNS = (
    "rank",
    "source",
    "section_id",
    "page_start",
    "page_end",
    "heading",
    "breadcrumb",
    "score",
    "chunk_id",
    "passage",
    "passage_start",
    "passage_end",
)


@dataclass(frozen=True)
class Marks:
    """What goes around a highlighted match; ``styled``: ANSI attributes for the document's
    own markup too (bold, italics, code, links), on a terminal."""

    open: str
    close: str
    styled: bool = False


TERMINAL_MARKS = Marks("\x1b[1;33m", "\x1b[0m", styled=True)
PLAIN_MARKS = Marks("[[", "]]")


def terminal_marks(stream: io.TextIOBase | None = None) -> Marks:
    """Bold yellow on a terminal; ``[[...]]`` in a pipe, a file or with ``NO_COLOR``."""
    stream = stream or sys.stdout
    is_tty = getattr(stream, "isatty", lambda: False)()
    return TERMINAL_MARKS if is_tty and not os.environ.get("NO_COLOR") else PLAIN_MARKS


def pages(result: SearchResult) -> str:
    """``p. 4`` or ``pp. 4-5``; empty for a document without pages."""
    if result.page_start is None:
        return ""
    first, last = result.page_start, result.page_end or result.page_start
    return f"p. {first}" if last == first else f"pp. {first}-{last}"


@dataclass(frozen=True)
class Snippet:
    """What of a result's text is shown, rendered from its Markdown (see markdown_text.py):
    its lines, the matches (offsets into the text) and whether text was cut off around it."""

    lines: list[Line]
    spans: list[tuple[int, int]]
    cut_before: bool
    cut_after: bool

    @classmethod
    def of(cls, text: str, start: int, end: int, spans: Sequence[tuple[int, int]]) -> Snippet:
        inside = [(max(s, start), min(e, end)) for s, e in spans if s < end and e > start]
        lines = markdown_text.window(markdown_text.cells(text), start, end)
        return cls(lines, inside, start > 0, end < len(text.rstrip()))

    def text(self, marks: Marks, width: int | None = None) -> list[str]:
        """The lines for a terminal (``marks.styled``) or as plain text, each cut to
        ``width`` characters at spaces when given."""
        rows = self.lines
        if width is not None:
            rows = [row for line in self.lines for row in markdown_text.wrap(line, width)]
        if marks.styled:
            shown = [markdown_text.terminal(row, self.spans) for row in rows]
        else:
            shown = [markdown_text.plain(row, self.spans, marks.open, marks.close) for row in rows]
        return self._ellipses(shown)

    def markdown(self) -> list[str]:
        """The lines as Markdown: the document's markup written back, matches in ``<mark>``."""
        return self._ellipses([markdown_text.markdown(line, self.spans) for line in self.lines])

    def _ellipses(self, lines: list[str]) -> list[str]:
        if lines and self.cut_before:
            lines[0] = "… " + lines[0]
        if lines and self.cut_after:
            lines[-1] += " …"
        return lines


def snippet(result: SearchResult, limit: int = SNIPPET_CHARS) -> Snippet:
    """The passage (whole chunk when there is none) with its matches, cut to ``limit``
    characters of the text around its first match at word boundaries."""
    passage = result.passage
    start, end = (passage.start, passage.end) if passage else (0, len(result.content))
    inside = [(max(s, start), min(e, end)) for s, e in result.highlights if s < end and e > start]
    if end - start > limit:
        centre = (inside[0][0] + inside[0][1]) // 2 if inside else start
        left = max(start, min(centre - limit // 2, end - limit))
        start, end = _word_bounds(result.content, left, left + limit, start, end)
    return Snippet.of(result.content, start, end, inside)


def _word_bounds(text: str, left: int, right: int, floor: int, ceiling: int) -> tuple[int, int]:
    """``left``/``right`` moved inward to the nearest word boundaries within the limits."""
    right = min(right, ceiling)
    while left > floor and left < right and not text[left - 1].isspace():
        left += 1
    while right < ceiling and right > left and not text[right].isspace():
        right -= 1
    return left, right


def rendered(text: str, spans: Sequence[tuple[int, int]], marks: Marks) -> str:
    """All of a chunk's ``text`` rendered from its Markdown, ``spans`` marked."""
    return "\n".join(Snippet.of(text, 0, len(text), spans).text(marks))


def cite(result: SearchResult, source: str) -> str:
    """``gdpr.md  [article-17]  p. 12``: file, section id and pages."""
    where = pages(result)
    return f"{source}  [{result.section_id}]" + (f"  {where}" if where else "")


def render_text(response: SearchResponse, names: dict[str, str], marks: Marks) -> str:
    """The human text of ``hierdoc search``: breadcrumb, citation with score and ranks, snippet."""
    lines = []
    if response.no_match:
        lines += ["No good match in the index.", ""]
    for rank, result in enumerate(response.results, start=1):
        breadcrumb = " > ".join(result.parent_chain) or result.title
        ranks = ", ".join(f"{m} #{r}" for m, r in result.ranks.items() if r is not None)
        head = f"{rank}. {breadcrumb}"
        lines.append(f"\x1b[1m{head}\x1b[0m" if marks.styled else head)
        source = names.get(result.source, result.source)
        if result.pinned:
            ranks += f"; pinned: {result.pin}, fusion {result.fusion_score or 0:.3f}"
        lines.append(f"   {cite(result, source)}  score {result.score:.3f} ({ranks})")
        lines += ["   " + line for line in snippet(result).text(marks, width=93)]
        lines.append("")
    return "\n".join(lines)


def render_markdown(response: SearchResponse, names: dict[str, str]) -> str:
    """A Markdown list of results: heading, citation (file, section id, pages), quoted passage."""
    lines = [f'# Results for "{response.query}" ({response.mode} search)', ""]
    lines += [f"> note: {note}" for note in response.notes]
    if response.no_match:
        lines += ["No good match in the index.", ""]
    for rank, result in enumerate(response.results, start=1):
        source = names.get(result.source, result.source)
        breadcrumb = " > ".join(result.parent_chain) or result.title
        where = [f"`{source}`", f"section `{result.section_id}`"]
        where += [pages(result)] if pages(result) else []
        lines += [f"## {rank}. {_md_inline(breadcrumb)}", ""]
        lines += [f"{', '.join(where)} · score {result.score:.3f}", ""]
        lines += [_quoted(snippet(result).markdown()), ""]
    return "\n".join(lines)


def _quoted(lines: list[str]) -> str:
    """Lines as one block quote, each ending in a hard line break but the last."""
    return "\\\n".join("> " + line for line in lines) if lines else ">"


def _md_inline(text: str) -> str:
    """Text safe on one Markdown line: no leading heading or list markers, pipes escaped."""
    return re.sub(r"^[#>\-+*\s]+", "", text.replace("|", r"\|"))


def render_csv(response: SearchResponse, names: dict[str, str]) -> str:
    """One row per result (:data:`CSV_COLUMNS`), the passage text unmarked."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for rank, result in enumerate(response.results, start=1):
        passage = result.passage
        writer.writerow(
            [
                rank,
                names.get(result.source, result.source),
                result.section_id,
                "" if result.page_start is None else result.page_start,
                "" if result.page_end is None else result.page_end,
                result.heading,
                " > ".join(result.parent_chain),
                f"{result.score:.6f}",
                result.chunk_id,
                passage.text if passage else result.content,
                passage.start if passage else 0,
                passage.end if passage else len(result.content),
            ]
        )
    return buffer.getvalue()


def render(response: SearchResponse, fmt: str, names: dict[str, str], marks: Marks) -> str:
    """``response`` in one of :data:`FORMATS`."""
    if fmt == "json":
        return json.dumps(response.to_dict(), indent=2, ensure_ascii=False)
    if fmt == "csv":
        return render_csv(response, names)
    if fmt == "markdown":
        return render_markdown(response, names)
    return render_text(response, names, marks)
