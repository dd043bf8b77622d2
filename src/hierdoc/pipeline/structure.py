"""Structure stage: text to a tree of sections, flattened in document order.

Two sources of structure, combined:

- Markdown headings, found with a real CommonMark parser (markdown-it-py), so
  ATX and setext headings are both recognised and a ``#`` line inside a code
  fence is not a heading;
- numbering inside the text under each heading (or in the whole text when there
  are no headings): "CHAPTER III", "Article 17", "SEC. 203.", "1.", "(a)"
  (see :mod:`hierdoc.pipeline.outline`).

Each section keeps its heading line and its own text verbatim, so the sections
in order give the document back, and chunks built from them lose no text.
Ids come from numbering (``article-17``, ``section-203-a-1``), a repeated block
id is qualified by its parent (``chapter-4-section-3``), numbered paragraphs and
points nest under their parent (``article-6-1-a``), and a heading without
numbering gets a slug.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass, replace
from itertools import accumulate

from markdown_it import MarkdownIt

from ..models import Section
from ..text.numbering import Label, parse_heading, parse_lettered_heading, slugify
from . import rule_paths
from .headings import plain_heading
from .outline import (
    BLOCK_RANK,
    TOP_KINDS,
    Mark,
    OutlineNode,
    find_marks,
    numbered_line,
    outline,
)
from .title_lines import MIN_TITLES, title_lines

PREAMBLE_ID = "preamble"
_LETTERED_ID = re.compile(r"section-[a-z]")
_PARAGRAPH_STYLES = ("decimal", "rparen-arabic")
"""Numbered paragraphs ("4.2", "1.", "21)"): outside any section they are sections."""
CHAIN_HEAD = 2
"""Outermost headings a breadcrumb keeps (see :func:`bounded_chain`)."""
CHAIN_TAIL = 10
"""Innermost headings a breadcrumb keeps: with :data:`CHAIN_HEAD`, the 12 levels of the
deepest US Code citation (title to subclause) fit whole."""
CHAIN_HEADING_CHARS = 160
MAX_SECTION_ID_CHARS = 4096
"""Longer section ids (a clause numbered ``1.1.1...`` on a line of megabytes) keep their
start and a digest of the whole: every chunk, BM25 document and filter of the section
repeats its id. Ids of clauses nested up to ``max_section_depth`` (1,000: about 2,000
characters) stay whole, so that an ancestor's id still begins its descendants' ids."""
ELIDED = "…"


@dataclass(frozen=True)
class _Heading:
    text: str
    level: int
    first_line: int
    end_line: int


@dataclass
class _Node:
    heading: str
    heading_line: str
    body: str
    parent: int | None
    kind: str
    """"preamble", "heading", a block kind such as "article", or "enum"."""
    local_id: str
    style: str = ""
    marked: bool = False
    """A heading the document marks as one (Markdown ``#``), not a numbered line in a body."""
    fixed: bool = False
    """``local_id`` is final (a rulebook's number, see :mod:`.rule_paths`): never qualified."""
    throughout: bool = False
    """A paragraph numbered throughout a text, across its title lines: a clause of the text
    (``section-4`` for "(4)", cited "Section 4"), not qualified by the title above it."""


_HEADING_LINE = re.compile(r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|=+[ \t]*$|-+[ \t]*$)", re.MULTILINE)
"""A line that can make a top-level heading: an ATX opening or a setext underline."""


def find_headings(text: str) -> list[_Heading]:
    """Top-level ATX and setext headings with their line spans. A text without a line that
    could make one is not parsed: Markdown parsing takes seconds and about 50 bytes of
    tokens per byte of a large text."""
    if "\r" not in text and not _HEADING_LINE.search(text):
        return []
    tokens = MarkdownIt("commonmark").parse(text)
    headings = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.level == 0 and token.map:
            inline = plain_heading(tokens[index + 1].content)
            headings.append(_Heading(inline, int(token.tag[1]), token.map[0], token.map[1]))
    return headings


def _title_heading(headings: list[_Heading]) -> _Heading | None:
    """The first heading when it is the only one of the top level: the document's title."""
    if len(headings) < 2:
        return None
    top = min(h.level for h in headings)
    first = headings[0]
    if first.level == top and sum(h.level == top for h in headings) == 1:
        return first
    return None


def parse_sections(text: str, title: str) -> list[Section]:
    """Sections of a document in reading order, each with its parent chain and id."""
    marked = find_headings(text)
    if len(marked) <= 1 and (titled := _title_line_nodes(text, title, _banner_end(marked))):
        return _to_sections(titled, title)
    nodes: list[_Node] = []
    new_index: dict[int, int] = {}
    headings = _heading_nodes(text, title, marked)
    taken = {n.local_id for n in headings if n.marked}
    for old_index, node in enumerate(headings):
        if node.parent is not None:
            node.parent = new_index[node.parent]
        new_index[old_index] = len(nodes)
        for piece in _with_continued_numbers(node, taken):
            nodes += _split_by_numbering(piece, len(nodes))
    return _to_sections(nodes, title)


def _banner_end(marked: list[_Heading]) -> int:
    """The line after a text's only Markdown heading (a plain text's title between two rules
    of dashes reads as a setext heading): title lines below it may still head the sections."""
    return marked[0].end_line if marked else 0


def _title_line_nodes(text: str, title: str, start: int = 0) -> list[_Node]:
    """The sections of a plain text without Markdown headings whose headings are unnumbered
    title lines (see :mod:`.title_lines`), or none for a text with a numbered heading
    ("1.  Introduction", "Article 4"). The numbered paragraphs of the whole text go on
    across the titles ("(3)" under the second title after "(1)", "(2)" under the first),
    so they are found in the whole text and nest under the title above them. After the
    first numbered paragraph, a title line is a section only when such a paragraph follows
    it (one followed by unnumbered text is a subheading inside a paragraph), or when it
    comes after the last one in a text titled above its first one ("TERMINATION" after a
    licence's conditions "1)" .. "5)" under "PERMISSION & CONDITIONS"). A text whose only
    Markdown heading ends at ``start`` has its title lines below it, or none."""
    lines = text.splitlines(keepends=True)
    found = set(title_lines(lines))
    if not found or min(found) < start:
        return []
    if rule_paths.is_rulebook([line.rstrip("\r\n") for line in lines]):
        return []
    marks = find_marks(text)
    if any(_numbered_heading(mark) for mark in marks):
        return []
    numbered = outline(text, marks=marks)
    items: dict[int, tuple[int, OutlineNode]] = {}
    for position, item in enumerate(numbered):
        items.setdefault(item.mark.line, (position, item))
    if items:
        first = min(items)
        last = max((i for i, (_, item) in items.items() if item.parent is None), default=len(lines))
        titled = any(i < first for i in found)
        found = {
            i
            for i in found
            if i < first or _opens_numbered_run(i, lines, items) or (titled and i > last)
        }
        if len(found) < MIN_TITLES:
            return []
    line_starts = [0, *accumulate(len(line) for line in lines)]
    cuts: list[tuple[int, int, OutlineNode | None]] = sorted(
        [(line_starts[i], -1 - i, None) for i in found]
        + [(line_starts[n.mark.line] + n.mark.column, p, n) for p, n in enumerate(numbered)],
        key=lambda cut: (cut[0], cut[2] is not None, cut[1]),
    )
    nodes = [_Node(title, "", text[: cuts[0][0]], None, "preamble", PREAMBLE_ID)]
    item_nodes: dict[int, int] = {}
    above = 0
    ends = [cut[0] for cut in cuts[1:]] + [len(text)]
    for (start, position, item), end in zip(cuts, ends, strict=True):
        if item is None:
            line = lines[-1 - position]
            heading = line.strip()
            above = len(nodes)
            body = text[start + len(line) : end]
            nodes.append(_Node(heading, line, body, None, "heading", slugify(heading)))
            nodes[-1].marked = True
            continue
        parent = above if item.parent is None else item_nodes[item.parent]
        own = text[start:end].splitlines(keepends=True)
        used = item.mark.heading_lines
        item_nodes[position] = len(nodes)
        nodes.append(_outline_node(item, "".join(own[:used]), "".join(own[used:]), parent))
        nodes[-1].throughout = item.parent is None
    return nodes


def _opens_numbered_run(
    index: int, lines: list[str], items: dict[int, tuple[int, OutlineNode]]
) -> bool:
    """Whether the title line at ``index`` is followed by a paragraph numbered in the text."""
    following = next((i for i in range(index + 1, len(lines)) if lines[i].strip()), None)
    return following in items and items[following][1].parent is None


def _numbered_heading(mark: Mark) -> bool:
    """A block ("Article 4"), a rulebook's numbered rule, or a titled clause ("1.  Scope")."""
    return mark.kind != "enum" or bool(mark.heading_lines and mark.titled)


def _titled(index: int, lines: list[str]) -> bool:
    mark = numbered_line(index, lines)
    return mark is not None and mark.heading.rstrip(".").split(maxsplit=1)[1:] != []


_NUMBERED_PARAGRAPH = re.compile(r"^(?P<num>\d{1,3})\.[ \t]+[A-Z‘'\"“(]")


def _with_continued_numbers(node: _Node, taken: set[str]) -> list[_Node]:
    """The node, then the clauses of its body that go on with its number: a document that
    marks "## 1. Definitions" and "## 7. Termination" as headings but writes clauses 2 to 6
    as paragraphs ("2. Fair Use Rights. Nothing in ...") has them as siblings of 1 and 7,
    not as text of clause 1. A paragraph goes on with the number when it is the next one
    (N+1, then N+2, ...), no marked heading has that number, and the body has not opened a
    list of its own ("1." before it). It opens a paragraph (a blank line before it), or
    opens with a run-in title ("6. Term and Termination. This NDA ...": a PDF's lines have
    no blank line between paragraphs)."""
    label = parse_heading(node.heading) if node.marked else None
    if not label or label.kind != "section" or len(label.parts) != 1:
        return [node]
    if not label.parts[0].isdigit():
        return [node]
    lines = node.body.splitlines(keepends=True)
    expected, starts = int(label.parts[0]) + 1, []
    for index, line in enumerate(lines):
        match = _NUMBERED_PARAGRAPH.match(line)
        if not match or (index and lines[index - 1].strip() and not _titled(index, lines)):
            continue
        number = int(match["num"])
        if number == 1:
            break  # a list of the body's own
        if number == expected and f"section-{number}" not in taken:
            starts.append(index)
            expected += 1
    if not starts:
        return [node]
    pieces = [replace(node, body="".join(lines[: starts[0]]))]
    for start, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        mark = numbered_line(start, lines)
        heading, used = (mark.heading, mark.heading_lines) if mark else (lines[start].strip(), 0)
        pieces.append(
            _Node(
                heading,
                "".join(lines[start : start + used]),
                "".join(lines[start + used : end]),
                node.parent,
                "section",
                "section-" + _NUMBERED_PARAGRAPH.match(lines[start])["num"],
            )
        )
    return pieces


def _heading_nodes(text: str, title: str, headings: list[_Heading]) -> list[_Node]:
    lines = text.splitlines(keepends=True)
    title_heading = _title_heading(headings)
    body_headings = _without_contents_entries([h for h in headings if h is not title_heading])
    body_headings = _joined_annex_titles(body_headings, lines)
    first = body_headings[0].first_line if body_headings else len(lines)
    nodes = [_Node(title, "", "".join(lines[:first]), None, "preamble", PREAMBLE_ID)]
    stack: list[tuple[int, int]] = []
    for position, heading in enumerate(body_headings):
        end = (
            body_headings[position + 1].first_line
            if position + 1 < len(body_headings)
            else len(lines)
        )
        label = (
            parse_heading(heading.text)
            or parse_lettered_heading(heading.text)
            or _inserted_section(heading.text)
        )
        while stack and _closes(heading.level, label, *stack[-1], nodes):
            stack.pop()
        if label is None and stack:
            label = _appendix_subsection(heading.text, nodes[stack[-1][1]])
        nodes.append(
            _Node(
                heading.text,
                "".join(lines[heading.first_line : heading.end_line]),
                "".join(lines[heading.end_line : end]),
                stack[-1][1] if stack else None,
                label.kind if label else "heading",
                label.section_id() if label else slugify(heading.text),
                marked=True,
            )
        )
        if not _CONTENTS_HEADING.match(heading.text.strip()):
            stack.append((heading.level, len(nodes) - 1))
    return nodes


_INSERTED_NUMBER = re.compile(r"^\s*(?P<num>\d{1,4}[A-Z]{1,2})\.\s+(?=[A-Z\"“(])")
"""A section inserted by an amendment between two others, as a heading: "13A. Mobile
Banking Units" (cited "section 13A")."""


def _inserted_section(heading: str) -> Label | None:
    match = _INSERTED_NUMBER.match(heading)
    return Label("section", (match["num"],)) if match else None


_CONTENTS_HEADING = re.compile(
    r"(?i)^(?:(?:table\s+of\s+)?contents"
    r"|(?:table|arrangement|index)\s+of\s+(?:sections|provisions|clauses|articles|rules))$"
)
"""A contents page's heading: "Contents", an Act's "TABLE OF SECTIONS" or "ARRANGEMENT OF
SECTIONS"; the headings after it are not its subsections."""
_BARE_BLOCK_LABEL = re.compile(r"(?i)^(?:annex|appendix|schedule|exhibit)\s+[A-Z0-9]{1,4}$")
_STATUS = re.compile(r"(?i)^\((?:normative|informative)\)$")
_BARE_PART_LABEL = re.compile(
    r"(?i)^(?:part|chapter|division|article|section)\s+(?:[IVXLC]+|\d{1,3})[A-Z]?$"
)
"""A part's or an article's label set as a heading of its own, its title the heading below
in the same style ("PART I" then "LICENSING OF PERSONS CARRYING ON BANKING BUSINESS",
"Article 1" then "Unified Patent Court")."""


def _joined_annex_titles(headings: list[_Heading], lines: list[str]) -> list[_Heading]:
    """An annex whose label, status and title a PDF gives as headings of their own ("Annex
    A", "(informative)", "Language translations", as ISO sets them on three lines) as one
    heading: "Annex A (informative) Language translations"."""
    joined: list[_Heading] = []
    index = 0
    while index < len(headings):
        heading = headings[index]
        parts = [heading]
        if _BARE_BLOCK_LABEL.match(heading.text.strip()):
            for following in headings[index + 1 : index + 3]:
                if _text_between(lines, parts[-1], following) or following.level != heading.level:
                    break
                parts.append(following)
                if not _STATUS.match(following.text.strip()):
                    break
        elif _part_title(headings[index + 1 : index + 2], heading, lines):
            parts.append(headings[index + 1])
        if len(parts) > 1:
            text = " ".join(part.text.strip() for part in parts)
            heading = _Heading(text, heading.level, heading.first_line, parts[-1].end_line)
        joined.append(heading)
        index += len(parts)
    return joined


def _part_title(after: list[_Heading], label: _Heading, lines: list[str]) -> bool:
    """Whether ``label`` is a bare part label ("PART I") and the heading after it its title:
    at the label's level, no text between them, and no label of its own."""
    if not after or not _BARE_PART_LABEL.match(label.text.strip()):
        return False
    following = after[0]
    text = following.text.strip()
    return (
        following.level == label.level
        and not _text_between(lines, label, following)
        and parse_heading(text) is None
        and not _CONTENTS_HEADING.match(text)
    )


def _text_between(lines: list[str], before: _Heading, after: _Heading) -> bool:
    return any(line.strip() for line in lines[before.end_line : after.first_line])


def _without_contents_entries(headings: list[_Heading]) -> list[_Heading]:
    """The headings less the entries of a table of contents a converter marked as headings
    (a PDF's "5.0 Rules of Engagement" under "TABLE OF CONTENTS"): a numbered heading under
    a contents heading whose number a later heading repeats, with the same title or one
    going on from it ("5.0 Rules of Engagement (ROE)"). Left as text, it leaves the clause's
    id to the clause."""
    if not any(_CONTENTS_HEADING.match(h.text.strip()) for h in headings):
        return headings
    later: dict[str, list[tuple[int, str]]] = {}
    for index, heading in enumerate(headings):
        if (label := parse_heading(heading.text)) is not None:
            later.setdefault(label.section_id(), []).append((index, _words(heading.text)))
    kept: list[_Heading] = []
    contents_level: int | None = None
    for index, heading in enumerate(headings):
        if contents_level is not None and heading.level <= contents_level:
            contents_level = None
        if _CONTENTS_HEADING.match(heading.text.strip()):
            contents_level = heading.level
        elif contents_level is not None and _repeated_later(heading, index, later):
            continue
        kept.append(heading)
    return kept


def _repeated_later(heading: _Heading, index: int, later: dict[str, list[tuple[int, str]]]) -> bool:
    label = parse_heading(heading.text)
    if label is None:
        return False
    title = _words(heading.text)
    return any(i > index and words.startswith(title) for i, words in later[label.section_id()])


def _words(text: str) -> str:
    return _WORDS.sub(" ", text.casefold()).strip()


_WORDS = re.compile(r"[^0-9a-z]+")


def _closes(level: int, label: Label | None, open_level: int, at: int, nodes: list[_Node]) -> bool:
    """Whether a heading of ``level`` and ``label`` closes the open heading ``nodes[at]`` of
    ``open_level``: one of its level or above, unless it is a block the open one holds."""
    if open_level != level:
        return open_level > level
    return not _holds(nodes[at], label)


def _holds(above: _Node, label: Label | None) -> bool:
    """Whether a heading of ``label`` at the same level as ``above`` still nests under it: a
    block of a deeper rank ("§ 100101" under "Chapter 1001", "Subchapter I" under "Chapter
    1007"), as a publication that has more levels than Markdown's six prints them all at the
    sixth. Annexes and appendices never nest so."""
    if label is None or label.kind in TOP_KINDS or above.kind in TOP_KINDS:
        return False
    rank, outer = BLOCK_RANK.get(label.kind), BLOCK_RANK.get(above.kind)
    return rank is not None and outer is not None and outer < rank


_APPENDIX_NUMBER = re.compile(r"^(?P<letter>[A-Z])\.(?P<rest>\d+(?:\.\d+)*)\.?(?=\s)")


def _appendix_subsection(heading: str, parent: _Node) -> Label | None:
    """The label of a heading numbered within an appendix: "A.1. MIME-Version" or "A.4.1.
    Title" below "Appendix A. ..." (or below "A.4. ...") is appendix A.1, as an RFC numbers
    the sections of its appendices and cites them ("Appendix A.4")."""
    match = _APPENDIX_NUMBER.match(heading.strip())
    letter = parent.local_id.removeprefix("appendix-").split("-")[0]
    if (
        not match
        or not parent.local_id.startswith("appendix-")
        or letter != match["letter"].lower()
    ):
        return None
    return parse_heading(f"Appendix {match['letter']}.{match['rest']} {heading}")


def _split_by_numbering(node: _Node, offset: int) -> list[_Node]:
    """The node with its own text shortened, followed by the sections its numbering opens.
    A table of contents holds no section: those its text opens (the body of a document
    whose contents heading is its last heading) sit beside it."""
    found = outline(node.body, node.kind, _clause_number(node))
    if not found:
        return [node]
    lines = node.body.splitlines(keepends=True)
    line_starts = [0, *accumulate(len(line) for line in lines)]
    starts = [line_starts[n.mark.line] + n.mark.column for n in found] + [len(node.body)]
    head = _Node(
        node.heading,
        node.heading_line,
        node.body[: starts[0]],
        node.parent,
        node.kind,
        node.local_id,
        marked=node.marked,
    )
    result = [head]
    holds = not _CONTENTS_HEADING.match(node.heading.strip())
    for index, item in enumerate(found):
        own = node.body[starts[index] : starts[index + 1]].splitlines(keepends=True)
        heading_part = own[: item.mark.heading_lines]
        if item.parent is not None:
            parent = offset + 1 + item.parent
        else:
            parent = offset if holds else node.parent
        result.append(
            _outline_node(
                item, "".join(heading_part), "".join(own[item.mark.heading_lines :]), parent
            )
        )
    return result


def _clause_number(node: _Node) -> tuple[str, ...]:
    """The number of a marked heading numbered as a clause ("3.2" of "3.2 Competence")."""
    label = parse_heading(node.heading) if node.marked else None
    if label is None or label.kind != "section" or not all(p.isdigit() for p in label.parts):
        return ()
    return label.parts


def _outline_node(item: OutlineNode, heading_line: str, body: str, parent: int) -> _Node:
    mark = item.mark
    if mark.kind == "enum":
        return _Node(
            mark.heading, heading_line, body, parent, "enum", mark.value.lower(), item.style
        )
    if mark.kind == "path":
        kind = mark.section_id.split("-")[0]
        return _Node(mark.heading, heading_line, body, parent, kind, mark.section_id, fixed=True)
    local = mark.label.section_id() if mark.label else slugify(mark.heading)
    return _Node(mark.heading, heading_line, body, parent, mark.kind, local)


def _assign_ids(nodes: list[_Node]) -> list[str]:
    """Unique canonical ids, parents before children.

    A numbered paragraph or point takes its parent's id plus its number
    (``article-6`` + ``1`` + ``a``); decimal clauses ("3.", "4.2") outside any
    numbered block are sections, as contracts cite them (``section-3``,
    ``section-4-2``); a block id used more than once in the document is qualified
    by its parent ("Section 3" of Chapter IV is ``chapter-4-section-3``), unless only one of
    its uses is a marked heading: a numbered line repeating a heading's number in a
    document that marks its headings is a table row or a contents entry ("Appendix A —
    Strength of..." in a table of sections), and the heading keeps the id citations look up.
    Headings and blocks take their ids first (their parents are never numbered
    paragraphs), so an item of a numbered list before clause 1 ("1. Name") does
    not take ``section-1`` from it.
    """
    counts = Counter(n.local_id for n in nodes if n.kind != "enum" and not n.fixed)
    marked = Counter(n.local_id for n in nodes if n.kind != "enum" and n.marked)
    owners = _numbering_owners(nodes, marked)
    kept = {i for i, n in marked.items() if n == 1 and counts[i] > 1 and i != PREAMBLE_ID}
    kept |= {nodes[index].local_id for index in owners}
    ids: list[str] = [""] * len(nodes)
    used: set[str] = set(kept)
    for index, node in enumerate(nodes):
        if node.fixed:
            ids[index] = _unique(node.local_id, used)
        elif node.kind != "enum":
            parent_id = ids[node.parent] if node.parent is not None else None
            section_id = node.local_id
            owner = index in owners
            alone = node.marked and marked[section_id] == 1
            repeated = counts[section_id] > 1 and not (alone or owner)
            if _subsection(node, nodes, parent_id, repeated):
                section_id = f"{parent_id}-{section_id.removeprefix('section-')}"
            elif (
                repeated
                and parent_id not in (None, PREAMBLE_ID)
                and not _numbered_in(section_id, parent_id)
            ):
                section_id = f"{parent_id}-{section_id}"
            kept_here = node.marked and section_id in kept and (alone or owner)
            ids[index] = section_id if kept_here else _unique(section_id, used)
    tops = {None, PREAMBLE_ID, *_lone_title_id(nodes, ids)}
    for index, node in enumerate(nodes):
        if node.kind == "enum":
            parent_id = ids[node.parent] if node.parent is not None else None
            parent_id = PREAMBLE_ID if node.throughout else parent_id
            top = parent_id in tops and node.style.startswith(_PARAGRAPH_STYLES)
            top = top or node.throughout
            if top or _other_clause(node, parent_id) or _written_whole(node):
                section_id = "section-" + node.local_id.replace(".", "-")
            else:
                section_id = f"{parent_id or PREAMBLE_ID}-{node.local_id.rsplit('.', 1)[-1]}"
            ids[index] = _unique(section_id, used)
    return ids


def _numbering_owners(nodes: list[_Node], marked: Counter[str]) -> set[int]:
    """Of the marked headings that share a number ("4. Applications", an item of a list
    set as headings, and the chapter "4. Security for the ... Life Cycle"), the one whose
    next section numbers within it ("4.1 Initiation"): it keeps ``section-4``, as the
    document cites it. None when no one heading alone does."""
    owners: dict[str, list[int]] = {}
    for index, node in enumerate(nodes[:-1]):
        if not node.marked or node.kind == "enum" or marked[node.local_id] < 2:
            continue
        following = nodes[index + 1].local_id
        if node.local_id.startswith("section-") and following.startswith(node.local_id + "-"):
            owners.setdefault(node.local_id, []).append(index)
    return {found[0] for found in owners.values() if len(found) == 1}


def _lone_title_id(nodes: list[_Node], ids: list[str]) -> list[str]:
    """The id of the document's one marked heading when it is unnumbered: a title ("##
    Non-Disclosure Agreement") over the clauses, which are ``section-7`` as the document
    cites them ("Section 7"), not qualified by the title."""
    marked = [index for index, node in enumerate(nodes) if node.marked]
    if len(marked) != 1 or nodes[marked[0]].kind != "heading":
        return []
    return [ids[marked[0]]]


def _numbered_in(section_id: str, parent_id: str) -> bool:
    """Whether a clause's number already holds its parent's: "2.2" under "2.0" or "2" (a
    licence that numbers two clauses "2.2" keeps ``section-2-2`` for the first), so that
    qualifying it by its parent would add nothing."""
    return section_id.startswith(parent_id.removesuffix("-0") + "-")


def _other_clause(node: _Node, parent_id: str | None) -> bool:
    """A decimal clause under its point-zero clause: "2.1" under "2.0 What this License
    covers" is clause 2.1 (``section-2-1``), as the licence cites it, not point 1 of 2.0."""
    if not node.style.startswith("decimal") or "." not in node.local_id or not parent_id:
        return False
    prefix = node.local_id.rsplit(".", 1)[0].replace(".", "-")
    return parent_id == f"section-{prefix}-0"


def _written_whole(node: _Node) -> bool:
    """A clause whose number is written whole ("2.1.1" in a table of requirements under
    "V2.1 Password Security"): ``section-2-1-1``, as it is cited, whatever its parent's id."""
    parts = node.local_id.split(".")
    return node.style.startswith("decimal") and len(parts) > 2 and all(p.isdigit() for p in parts)


def _subsection(node: _Node, nodes: list[_Node], parent_id: str | None, repeated: bool) -> bool:
    """A bare clause number under a section heading numbers a subsection of it: "1." under
    "K. Payment" is cited "Section K.1" (``section-k-1``), as is a "1." repeated under each
    of "3.", "4." (``section-3-1``). Under a lettered section it always is."""
    if node.parent is None or parent_id is None or node.kind != "section":
        return False
    if nodes[node.parent].kind != "section" or node.local_id.count("-") != 1:
        return False
    return repeated or _LETTERED_ID.fullmatch(parent_id) is not None


def _unique(section_id: str, used: set[str]) -> str:
    """``section_id``, or with the first free suffix ``-2``, ``-3``...; recorded as used."""
    base, n = section_id, 2
    while section_id in used:
        section_id, n = f"{base}-{n}", n + 1
    used.add(section_id)
    return section_id


def _to_sections(nodes: list[_Node], title: str) -> list[Section]:
    """Sections with their parent chains and paths, each built from its parent's, so that
    the work per section is bounded by its own size and depth, not by its ancestors' text."""
    ids = [bounded_id(section_id) for section_id in _assign_ids(nodes)]
    chains: list[tuple[str, ...]] = []
    paths: list[tuple[str, ...]] = []
    sections = []
    for index, node in enumerate(nodes):
        parent = node.parent
        inherits = parent is not None and nodes[parent].kind != "preamble"
        if node.kind == "preamble":
            chain: tuple[str, ...] = (title,)
        else:
            above = chains[parent] if inherits and parent is not None else ()
            chain = bounded_chain((*above, node.heading))
        path = (*paths[parent], ids[parent]) if inherits and parent is not None else ()
        chains.append(chain)
        paths.append(path)
        sections.append(
            Section(
                ids[index],
                node.heading,
                len(path) + (node.kind != "preamble"),
                chain,
                path,
                node.body,
                node.heading_line,
                index,
                node.kind,
            )
        )
    return sections


def bounded_id(section_id: str, limit: int = MAX_SECTION_ID_CHARS) -> str:
    """``section_id``, or its first characters and a digest of it (unique as it is) when
    it is over ``limit`` characters."""
    if len(section_id) <= limit:
        return section_id
    digest = hashlib.sha1(section_id.encode("utf-8")).hexdigest()[:12]
    return f"{section_id[: limit - 13]}~{digest}"


def bounded_chain(chain: tuple[str, ...]) -> tuple[str, ...]:
    """A breadcrumb of at most :data:`CHAIN_HEAD` + 1 + :data:`CHAIN_TAIL` headings of at most
    :data:`CHAIN_HEADING_CHARS` characters each: the outermost and innermost levels, with
    :data:`ELIDED` in place of the middle ones.

    Every chunk stores its breadcrumb and embeds it as context; unbounded, a clause nested
    1,000 deep would carry a thousand headings, and the index would grow with depth times
    size. Applied to a bounded chain plus one heading, it gives the bounded
    form of the full chain, so chains can be built parent by parent.
    """
    chain = tuple(short_heading(heading) for heading in chain)
    if len(chain) <= CHAIN_HEAD + 1 + CHAIN_TAIL:
        return chain
    return (*chain[:CHAIN_HEAD], ELIDED, *chain[-CHAIN_TAIL:])


def short_heading(heading: str) -> str:
    """``heading`` cut to :data:`CHAIN_HEADING_CHARS` characters."""
    if len(heading) <= CHAIN_HEADING_CHARS:
        return heading
    return heading[: CHAIN_HEADING_CHARS - 1].rstrip() + ELIDED


def section_scopes(sections: list[Section]) -> dict[str, tuple[str, ...]]:
    """Each section's id with those of its ancestors that a section filter needs.

    A chunk is under ``p`` when an element of its section path is ``p`` or starts with
    ``p + "-"`` (:meth:`~hierdoc.models.SearchFilter.matches`). An ancestor whose id begins
    a descendant's id (``article-6`` of ``article-6-1-a``, ``section-1-1`` of
    ``section-1-1-1``) adds nothing to that rule and is left out, so the path of a clause
    nested 1,000 deep holds one id, not a thousand. Parents come before children.
    """
    scopes: dict[str, tuple[str, ...]] = {}
    for section in sections:
        above = scopes.get(section.path[-1], section.path) if section.path else ()
        own = section.section_id
        scopes[own] = (*(a for a in above if not own.startswith(a + "-")), own)
    return scopes
