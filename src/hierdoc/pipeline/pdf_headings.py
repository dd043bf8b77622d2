"""Headings and tables of contents of a PDF, for :mod:`.convert_pdf`.

A short block in a larger font than the body, or wholly bold, becomes a Markdown heading
(level by size, deeper by its decimal number); lines of a page that name headings of later
pages are a table of contents and stay out of the structure.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from ..text.numbering import HEADING_KIND, HEADING_OUTLINE, parse_heading
from .contents import PAGE_NUMBER
from .pdf_layout import Block, Page, block_size, block_text, split_at_gutters

_HEADING_SCALE = 1.15
_HEADING_MAX_CHARS = 150
_HEADING_MAX_LINES = 3
_NUMBERED_MAX_CHARS = 300
_NUMBERED_MAX_LINES = 10
"""A numbered heading in a larger bold font may run longer: in a narrow column a title
of two lines takes six or more ("SEC. 6. REPORT ON INCREASED RISK OF ...")."""
_MAX_LEVEL = 4
_MARKDOWN_LEVELS = 6
_LABEL_CHARS = 20
_NOT_WORD = re.compile(r"[^0-9a-z]+")
_NUMBERED_PARAGRAPH = re.compile(r"^\d{1,3}\.\s")
_CONTENTS_MIN_ENTRIES = 3
_LEADER = re.compile(r"(?:\s*[.·…_]{2,}\s*\d{0,4}|\s+\d{1,4})\s*$")
_ENUMERATOR = re.compile(r"^\s*(?:\([0-9A-Za-z]{1,5}\)|[0-9A-Za-z]{1,3}[.)])\s")
_SECTION_SIGN = re.compile(r"^§{1,2}\s*\d")
"""A heading may be a bare section number ("§ 39.13" beside "[Amended]")."""
_BULLET = re.compile(
    "^(?:[\u2022\u2023\u2043\u2219\u25aa\u25ab\u25a0\u25a1\u25cf\u25cb\u25e6\u00b7"
    "\uf0b7\uf0a7\uf0d8\u27a2\u2713\u2714]|[-\u2013\u2014*>]\\s)"
)
"""A list item's mark: a bullet line is never a heading, however bold."""
_BARE_NUMBER = re.compile(r"^\d{1,3}(?:\.\d{1,3}){0,5}\.?$")
_LONE_LETTER = re.compile(r"^\W*[^\W\d_]\W*$")
"""A drop capital ("T") or a lone letter is no heading."""
_DOT_LEADER = re.compile(rf"(?:[.·…_]\s?){{4,}}\s*{PAGE_NUMBER}\s*$", re.IGNORECASE)
"""A contents entry's leader and page number ("Scope ........ 13", NIST's "Glossary ....
A-1" and "Background ..... 2-1"): never a heading."""
_LABEL = re.compile(
    r"\d|\b[A-Z]\.?$|\b[IVXLC]+\.?$|\b(?i:one|two|three|four|five|six|seven|eight|nine|ten)$"
)
"""A label beside a heading's title numbers it ("APPENDIX A", "PART IV", "CHAPTER TWO");
two header cells of a table ("Metric Value" | "Description") are no label and title."""
_COLUMN_TEXT_LINES = 3
_ROMAN_PART = re.compile(r"^(?P<label>[IVXLC]{1,6})\.(?P<space>\s+(?=[A-Z])|(?=[A-Z][a-z]))")
_LETTERED = re.compile(r"^(?P<label>[A-Z])\.(?P<sub>\d{1,2}\.)?\s+\S")
"""A guide's outline: parts "II. Requirements", lettered sections "A. Definition of
Self-Dealing" restarting in every part, and their subsections "B.1. Sale or Exchange"."""


def body_size(pages: list[Page]) -> float:
    """The font size of most of the text."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for segment in page.segments:
            sizes[segment.size] += len(segment.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def mark_headings(pages: list[Page], body: float) -> None:
    """Give short blocks in a larger font, or wholly bold at body size, a heading level."""
    if not body:
        return
    any_bold_body = _mostly_bold(pages, body)
    candidates = [block for page in pages for block in _page_headings(page, body, any_bold_body)]
    larger = sorted({block_size(b) for b in candidates if block_size(b) > body}, reverse=True)
    levels = {size: min(rank + 1, _MAX_LEVEL) for rank, size in enumerate(larger)}
    raw = [
        levels.get(block_size(b), min(len(larger) + 1, _MAX_LEVEL))
        + _decimal_depth(block_text(b, " "))
        for b in candidates
    ]
    shift = max(0, max(raw, default=0) - _MARKDOWN_LEVELS)  # Markdown has six levels
    for block, level in zip(candidates, raw, strict=True):
        block.heading_level = max(1, level - shift)
    titles = [title for page in pages for title in _join_label_lines(page, body)]
    candidates = [b for b in candidates if not any(b is title for title in titles)]
    _nest_numbered_paragraphs(candidates)
    _nest_lettered_sections(candidates)
    _title_first(pages[0].blocks, candidates)


def _join_label_lines(page: Page, body: float) -> list[Block]:
    """A line of text that is only a label ("Article 1", "CHAPTER IV", "PART II") just above
    a heading line in its column is that heading's number: the two are one heading ("Article
    1 Unified Patent Court") at the title's level, so that each "Article N" is a sibling of
    the last rather than a section of its own under the previous article's title. (A label
    set as a heading itself, with its title the heading below, the structure parser joins.)
    Returns the title blocks joined into their label."""
    joined: list[Block] = []
    for label, title in zip(page.blocks, page.blocks[1:], strict=False):
        if _label_line(label, title, body):
            label.lines += title.lines
            label.heading_level = title.heading_level
            joined.append(title)
    page.blocks = [b for b in page.blocks if not any(b is title for title in joined)]
    return joined


def _label_line(label: Block, title: Block, body: float) -> bool:
    """Whether ``label`` is a bare label line numbering the heading line ``title`` below it:
    no heading itself, in at least the body's size (or in capitals), overlapping it across
    and less than two lines above it; a title that is a label itself is a heading of its own."""
    text = block_text(label, " ").strip()
    match = HEADING_KIND.match(text)
    if label.cells or title.cells or len(label.lines) != 1 or not match:
        return False
    if text[match.end() :].strip(" .:") or not title.heading_level:
        return False
    small = block_size(label) < body and not text.isupper()  # "CHAPTER II" in small capitals
    if label.heading_level or small:
        return False
    if parse_heading(block_text(title, " ")) is not None:
        return False
    height = label.lines[0].height
    beside = min(label.x1, title.x1) > max(label.x0, title.x0)
    return beside and 0 <= title.top - label.bottom <= 2 * height


def _nest_numbered_paragraphs(headings: list[Block]) -> None:
    """Headings numbered "1.", "2.", ... in the style of the un-numbered heading above them
    are its paragraphs, one level below ("Announcing the Standard" > "3. Explanation."),
    so that they do not take the ids of the document's own sections 1, 2, 3. A heading
    with a label of its own ("Appendix A. Acknowledgements") is a peer of the numbered
    sections after it, not their parent."""
    parent_level = 0
    for block in headings:
        text = block_text(block, " ")
        numbered = _NUMBERED_PARAGRAPH.match(text)
        if not numbered:
            parent_level = 0 if parse_heading(text) else block.heading_level
        elif block.heading_level == parent_level:
            block.heading_level = min(parent_level + 1, _MARKDOWN_LEVELS)
        elif block.heading_level < parent_level:
            parent_level = 0


def _nest_lettered_sections(headings: list[Block]) -> None:
    """Lettered sections set in the font of the Roman parts they fall under ("II.
    Requirements", "A. Definition of Self-Dealing", "B.1. Sale or Exchange") go one level
    below the part, their "B.1." subsections two. A single letter that goes on the part's
    lettered sequence ("I. Termination Tax" after "H.") is a section, not part I."""
    part_level = 0
    last_letter = ""
    for block in headings:
        text = block_text(block, " ")
        lettered = _LETTERED.match(text)
        continues = bool(lettered and last_letter) and _next_letter(last_letter, text)
        part = _ROMAN_PART.match(text)
        if part and not continues and not (lettered and lettered["sub"]):
            part_level, last_letter = block.heading_level, ""
            if not part["space"]:  # "VII.Example Worksheets": the text layer lost the space
                first = block.lines[0]
                block.lines[0] = replace(first, text=first.text.replace(".", ". ", 1))
        elif lettered and part_level:
            depth = 2 if lettered["sub"] else 1
            block.heading_level = max(
                block.heading_level, min(part_level + depth, _MARKDOWN_LEVELS)
            )
            if not lettered["sub"]:
                last_letter = lettered["label"]


def _next_letter(letter: str, text: str) -> bool:
    """Whether ``text`` opens with the letter after ``letter`` ("I." after "H.")."""
    return text[:1] == chr(ord(letter) + 1)


def _title_first(first_page: list[Block], candidates: list[Block]) -> None:
    """A single level-1 heading on the first page is the title: smaller headings above it
    (a masthead such as "118th CONGRESS") stay text, so that the title opens the document."""
    top = [b for b in candidates if b.heading_level == 1]
    if len(top) != 1 or not any(top[0] is b for b in first_page):
        return
    for block in first_page:
        if block is top[0]:
            return
        block.heading_level = 0


def _page_headings(page: Page, body: float, bold_body: bool) -> list[Block]:
    """Heading-like blocks of a page. Blocks on either side of a gutter between text
    columns are apart. Two side by side whose left one is a short label ("APPENDIX A" |
    "TERMS AND DEFINITIONS", see :func:`_label_and_title`) are one heading; others side by
    side are headings of their own when each heads the text of a column (two columns of a
    page whose headings happen to sit at one height), else a table's header cells
    ("Metric Value" | "Description")."""
    found = [b for b in page.blocks if not b.cells and _heading_like(b, body, bold_body)]
    numbers = [b for b in page.blocks if not b.cells and _bare_number(b, body, bold_body)]
    headings: list[Block] = []
    rows = [
        part
        for row in _side_by_side([*found, *numbers])
        for part in split_at_gutters(row, page.gutters)
    ]
    for row in rows:
        if any(block is number for block in row for number in numbers) and len(row) != 2:
            row = [b for b in row if not any(b is number for number in numbers)]
        if not row:
            continue
        if len(row) == 1:
            headings.append(row[0])
        elif len(row) == 2 and _label_and_title(row[0], body):
            label, title = row
            label.lines += title.lines
            page.blocks = [b for b in page.blocks if b is not title]
            headings.append(label)
        elif all(_heads_column(block, page.blocks, body) for block in row):
            headings.extend(row)
    order = {id(block): index for index, block in enumerate(page.blocks)}
    return sorted(headings, key=lambda block: order[id(block)])


def _bare_number(block: Block, body: float, bold_body: bool) -> bool:
    """A clause number set apart from its title, in the title's font ("3.2.1" then a tab,
    then "Chief Information Officer"): a heading only with the title beside it."""
    text = block_text(block, " ")
    if len(block.lines) != 1 or not _BARE_NUMBER.match(text):
        return False
    larger = block_size(block) >= body * _HEADING_SCALE
    return larger or (all(s.bold for s in block.lines) and not bold_body)


def _label_and_title(label: Block, body: float) -> bool:
    """Whether a short block beside another is a heading's label: it numbers the heading
    or stands in a larger font than the body (a masthead); a bold cell at body size with
    no number is a table's header cell."""
    text = block_text(label, " ")
    larger = block_size(label) >= body * _HEADING_SCALE
    return len(text) <= _LABEL_CHARS and (larger or _LABEL.search(text) is not None)


def _heads_column(heading: Block, blocks: list[Block], body: float) -> bool:
    """Whether a paragraph of body text starts just below ``heading``, on its left edge:
    the heading of a column's text, not a table's header cell."""
    height = heading.lines[-1].height
    return any(
        len(block.lines) >= _COLUMN_TEXT_LINES
        and block_size(block) >= body
        and abs(block.x0 - heading.x0) <= height / 2
        and 0 <= block.top - heading.bottom <= 2 * height
        for block in blocks
    )


def _side_by_side(blocks: list[Block]) -> list[list[Block]]:
    """Blocks grouped with those sharing their height on the page, each group left to right."""
    groups: list[list[Block]] = []
    for block in sorted(blocks, key=lambda b: b.top):
        last = groups[-1] if groups else []
        if last and min(last[-1].bottom, block.bottom) > max(last[-1].top, block.top):
            last.append(block)
        else:
            groups.append([block])
    return [sorted(group, key=lambda b: b.x0) for group in groups]


def _decimal_depth(text: str) -> int:
    """How much deeper than its first level a decimal heading sits: 1 for "4.1", 2 for "4.1.1".
    Standards often set every numbered heading in one font, so only the number tells."""
    match = HEADING_OUTLINE.match(text)
    number = match.group("num") if match else None
    return number.rstrip(".").count(".") if number else 0


def _mostly_bold(pages: list[Page], body: float) -> bool:
    bold = total = 0
    for page in pages:
        for segment in page.segments:
            if segment.size == body:
                total += len(segment.text)
                bold += len(segment.text) if segment.bold else 0
    return total > 0 and bold > total / 2


def _heading_like(block: Block, body: float, bold_body: bool) -> bool:
    text = block_text(block, " ")
    if _too_long(block, text, body):
        return False
    if text.endswith((",", ";")):
        return False
    if not any(ch.isalpha() for ch in text) and not _SECTION_SIGN.match(text):
        return False
    if _LONE_LETTER.match(text):
        return False
    if _BULLET.match(text) or _DOT_LEADER.search(text):
        return False
    larger = block_size(block) >= body * _HEADING_SCALE
    bold = all(s.bold for s in block.lines) and not bold_body
    if _ENUMERATOR.match(text) and not (
        parse_heading(text) or HEADING_OUTLINE.match(text) or _outline_heading(text, larger, bold)
    ):
        return False
    return larger or bold


def _outline_heading(text: str, larger: bool, bold: bool) -> bool:
    """A part "I. Overview" or a lettered section "A. Background" in a larger bold font: a
    heading, where a list item "a. Private foundations," at body size is none."""
    return larger and bold and bool(_ROMAN_PART.match(text) or _LETTERED.match(text))


def _too_long(block: Block, text: str, body: float) -> bool:
    """Longer than a heading: more than three lines or 150 characters, unless a numbered
    heading in a larger bold font, up to ten lines and 300 characters."""
    if len(block.lines) <= _HEADING_MAX_LINES and len(text) <= _HEADING_MAX_CHARS:
        return False
    numbered = parse_heading(text) is not None or _SECTION_SIGN.match(text) is not None
    larger_bold = block_size(block) >= body * _HEADING_SCALE and all(s.bold for s in block.lines)
    long_allowed = len(block.lines) <= _NUMBERED_MAX_LINES and len(text) <= _NUMBERED_MAX_CHARS
    return not (numbered and larger_bold and long_allowed)


def _heading_key(text: str) -> str:
    """Letters and digits only: "Appendix A—Strength" and "Appendix A — Strength" agree."""
    return " ".join(_NOT_WORD.sub(" ", text.lower()).split())


def _contents_key(text: str) -> str:
    """A contents line as the heading it names: no dot leaders, no trailing page number."""
    return _heading_key(_LEADER.sub("", text))


def mark_contents(pages: list[Page], body: float) -> None:
    """Lines of a page that name three or more headings of later pages are a table of
    contents: they are neither headings nor, for the structure parser, numbered sections.
    A heading set as the later one is (same level), as when a file holds two notices
    with the same headings, is no entry."""
    last_page: dict[str, int] = {}
    level: dict[str, int] = {}
    for number, page in enumerate(pages):
        for block in page.blocks:
            if block.heading_level:
                key = _heading_key(block_text(block, " ").lstrip("#"))
                last_page[key], level[key] = number, block.heading_level
    for number, page in enumerate(pages):
        entries = [
            (block, line)
            for block in page.blocks
            for line in block.lines
            if line.size <= body * _HEADING_SCALE
            and last_page.get(key := _contents_key(line.text), -1) > number
            and not (block.heading_level and block.heading_level == level[key])
        ]
        if len(entries) < _CONTENTS_MIN_ENTRIES:
            continue
        for block, line in entries:
            line.contents = True
            block.heading_level = 0
