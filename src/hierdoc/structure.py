"""Structure stage: Markdown text to a flat list of sections in document order.

Headings are found with a real CommonMark parser (markdown-it-py), so ATX and
setext headings are both recognised and a ``#`` line inside a code fence is not
a heading. Each section keeps its body verbatim (the source lines between its
heading and the next one), so that the chunks built from it lose no text.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from markdown_it import MarkdownIt

from .models import Section
from .numbering import parse_heading, slugify

PREAMBLE_ID = "preamble"


@dataclass(frozen=True)
class _Heading:
    text: str
    level: int
    first_line: int
    end_line: int


def find_headings(text: str) -> list[_Heading]:
    """Top-level ATX and setext headings with their line spans."""
    tokens = MarkdownIt("commonmark").parse(text)
    headings = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.level == 0 and token.map:
            inline = tokens[index + 1].content.strip()
            headings.append(_Heading(inline, int(token.tag[1]), token.map[0], token.map[1]))
    return headings


def _title_heading(headings: list[_Heading]) -> _Heading | None:
    """The first heading when it is the only one of the top level: the document's title."""
    if not headings:
        return None
    top = min(h.level for h in headings)
    first = headings[0]
    if first.level == top and sum(h.level == top for h in headings) == 1 and len(headings) > 1:
        return first
    return None


def parse_sections(text: str, title: str) -> list[Section]:
    """Sections of a Markdown document, each with its parent chain and canonical id."""
    lines = text.splitlines(keepends=True)
    headings = find_headings(text)
    title_heading = _title_heading(headings)
    body_headings = [h for h in headings if h is not title_heading]
    raw: list[tuple[_Heading | None, str, str]] = []

    preamble_end = body_headings[0].first_line if body_headings else len(lines)
    preamble = "".join(lines[:preamble_end])
    if preamble.strip():
        raw.append((None, "", preamble))
    for position, heading in enumerate(body_headings):
        end = (
            body_headings[position + 1].first_line
            if position + 1 < len(body_headings)
            else len(lines)
        )
        heading_text = "".join(lines[heading.first_line : heading.end_line])
        body = "".join(lines[heading.end_line : end])
        raw.append((heading, heading_text, body))
    return _build_tree(raw, title)


def _build_tree(raw: list[tuple[_Heading | None, str, str]], title: str) -> list[Section]:
    parents: list[int | None] = []
    stack: list[int] = []
    for index, (heading, _, _) in enumerate(raw):
        if heading is None:
            parents.append(None)
            continue
        while stack and raw[stack[-1]][0].level >= heading.level:  # type: ignore[union-attr]
            stack.pop()
        parents.append(stack[-1] if stack else None)
        stack.append(index)
    ids = _assign_ids(raw, parents)
    sections = []
    for index, (heading, heading_text, body) in enumerate(raw):
        ancestors = _ancestors(index, parents)
        if heading is None:
            sections.append(Section(ids[index], title, 0, (title,), (), body, "", index))
            continue
        chain = tuple(raw[a][0].text for a in ancestors) + (heading.text,)  # type: ignore[union-attr]
        path = tuple(ids[a] for a in ancestors)
        sections.append(
            Section(ids[index], heading.text, heading.level, chain, path, body, heading_text, index)
        )
    return sections


def _ancestors(index: int, parents: list[int | None]) -> list[int]:
    chain = []
    parent = parents[index]
    while parent is not None:
        chain.append(parent)
        parent = parents[parent]
    return chain[::-1]


def _local_id(heading: _Heading | None) -> str:
    if heading is None:
        return PREAMBLE_ID
    label = parse_heading(heading.text)
    return label.section_id() if label else slugify(heading.text)


def _assign_ids(
    raw: list[tuple[_Heading | None, str, str]], parents: list[int | None]
) -> list[str]:
    """Give every section a unique canonical id, qualifying repeated ones by their parent.

    "Section 3" exists in several GDPR chapters: each becomes
    ``chapter-3-section-3``, ``chapter-4-section-3``; "Article 17" stays ``article-17``.
    """
    local = [_local_id(heading) for heading, _, _ in raw]
    counts = Counter(local)
    ids: list[str] = []
    used: set[str] = set()
    for index, section_id in enumerate(local):
        parent = parents[index]
        if counts[section_id] > 1 and parent is not None:
            section_id = f"{ids[parent]}-{section_id}"
        base, n = section_id, 2
        while section_id in used:
            section_id, n = f"{base}-{n}", n + 1
        used.add(section_id)
        ids.append(section_id)
    return ids
