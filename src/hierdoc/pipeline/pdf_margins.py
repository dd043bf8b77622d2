"""Marginal notes of a statute PDF as the titles of its sections, for :mod:`.convert_pdf`.

Acts of many Commonwealth parliaments print a section's title as a note in the margin, in
smaller type, beside the line that opens with the section's number: "Licensing of banks."
to the left of "2. (1) On or after the appointed date ...", a longer title over two or
three margin lines. Read in reading order, the notes end up after the text they title,
and the sections have no heading. Here each note beside such a line becomes the heading
"2. Licensing of banks" just above it (the number moves from the line into the heading)
and leaves the margin. Notes that title nothing (amendment notes "[ § 3, 2 of 2005]", the
Acts listed beside a preamble) stay where they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from .pdf_layout import Block, Page, Segment, block_size, block_text

_SMALLER = 0.95
"""A note is set in type at most this share of the body's size."""
_REACH = 1.5
"""A note titles a line when they overlap vertically, give or take this many line heights."""
_NUMBER_LINE = re.compile(r"^(?P<num>\d{1,3}[A-Z]{0,3})(?:\.\s+|\s+(?=\(1\)))(?P<rest>\S.*)$")
"""A section's first line: "2. (1) On or after ...", "11A. The Monetary Board ...",
"16 (1) No company ..." (a number without its dot, before its first subsection)."""
_MAX_LEVEL = 6
_NOTE_MAX_LINES = 10
"""A narrow margin takes a title of a few words a line: "Companies and bodies / corporate,
/ incorporated / outside Sri / Lanka to remit / ..."."""
_AMENDMENT = re.compile(r"^\s*[\[§$\d]")
"""A margin line that records an amendment ("[ § 3, 2 of 2005]", "§ 21, 2 of 2005.]", "39 of
1990"), not a title's words."""


def title_margin_notes(pages: list[Page], body: float) -> None:
    """Make each marginal note beside a numbered line of body text that line's heading,
    one level below the deepest heading the document has (its parts)."""
    if not body:
        return
    deepest = max((b.heading_level for p in pages for b in p.blocks), default=0)
    level = min(deepest + 1, _MAX_LEVEL)
    for page in pages:
        _title_page(page, body, level)


def _title_page(page: Page, body: float, level: int) -> None:
    rows: dict[int, Block] = {}
    blocks: list[Block] = []
    for block in page.blocks:
        parts = _note_apart(block, body)
        if len(parts) == 2:
            rows[id(parts[0])] = block
        blocks += parts
    page.blocks = blocks
    _title_notes(page, body, level)
    _rows_rejoined(page, rows)


def _title_notes(page: Page, body: float, level: int) -> None:
    text_lines = [
        line
        for block in page.blocks
        if not block.cells and not block.heading_level
        for line in block.lines
        if line.size >= body * _SMALLER
    ]
    if not text_lines:
        return
    left = min(line.x0 for line in text_lines)
    right = max(line.x1 for line in text_lines)
    notes = [block for block in page.blocks if _note(block, body, left, right)]
    if not notes:
        return
    titled: dict[int, Segment] = {}
    for line in _numbered_lines(text_lines, left):
        note = _beside(line, notes)
        if note is not None:
            notes.remove(note)
            titled[id(line)] = _title_segment(line, note)
            _leave_amendments(page, note)
    if titled:
        page.blocks = list(_with_titles(page.blocks, titled, level))


def _rows_rejoined(page: Page, rows: dict[int, Block]) -> None:
    """Rows taken apart for a note that titled nothing, whole again."""
    index = 0
    while index < len(page.blocks) - 1:
        row = rows.get(id(page.blocks[index]))
        if row is not None and page.blocks[index + 1] is row.cells[1]:
            page.blocks[index : index + 2] = [row]
        index += 1


def _note_apart(block: Block, body: float) -> list[Block]:
    """A row that pairs a note with the numbered line beside it as a table's cells (two
    sections' notes beside their first lines look like a two-column table) as the note
    and the text apart."""
    if len(block.cells) != 2:
        return [block]
    note, text = block.cells
    if block_size(note) > body * _SMALLER or block_size(text) < body * _SMALLER:
        return [block]
    if not _NUMBER_LINE.match(text.lines[0].text.strip()):
        return [block]
    return [note, text]


def _note(block: Block, body: float, left: float, right: float) -> bool:
    """A short block in smaller type wholly in the margin, left or right of all the body
    text, with words besides its amendment notes."""
    if block.cells or block.heading_level or len(block.lines) > _NOTE_MAX_LINES:
        return False
    if block_size(block) > body * _SMALLER:
        return False
    gap = block.lines[0].height / 2
    if not (block.x1 < left - gap or block.x0 > right + gap):
        return False
    return any(ch.isalpha() for line in _title_lines(block) for ch in line.text)


def _title_lines(note: Block) -> list[Segment]:
    return [line for line in note.lines if not _AMENDMENT.match(line.text)]


def _leave_amendments(page: Page, note: Block) -> None:
    """Take a note's title out of the margin; its amendment lines stay there."""
    index = next(i for i, block in enumerate(page.blocks) if block is note)
    amendments = [line for line in note.lines if _AMENDMENT.match(line.text)]
    page.blocks[index : index + 1] = [replace(note, lines=amendments)] if amendments else []


def _numbered_lines(lines: list[Segment], left: float) -> Iterator[Segment]:
    for line in lines:
        if abs(line.x0 - left) <= line.height and _NUMBER_LINE.match(line.text.strip()):
            yield line


def _beside(line: Segment, notes: list[Block]) -> Block | None:
    reach = _REACH * line.height
    near = [
        note
        for note in notes
        if note.top <= line.bottom + reach and note.bottom >= line.top - reach
    ]
    return min(near, key=lambda note: abs(note.top - line.top), default=None)


def _title_segment(line: Segment, note: Block) -> Segment:
    match = _NUMBER_LINE.match(line.text.strip())
    assert match is not None
    title = block_text(Block(_title_lines(note)), " ").rstrip(" .")
    return replace(line, text=f"{match['num']}. {title}", bold=True)


def _with_titles(blocks: list[Block], titled: dict[int, Segment], level: int) -> Iterator[Block]:
    """The page's blocks with a heading before each titled line, the line's number moved
    into the heading; a block is split where a titled line is not its first."""
    for block in blocks:
        lines: list[Segment] = []
        for line in block.lines:
            title = titled.get(id(line))
            if title is None:
                lines.append(line)
                continue
            if lines:
                yield replace(block, lines=lines)
            yield Block([title], heading_level=level)
            rest = _NUMBER_LINE.match(line.text.strip())
            lines = [replace(line, text=rest["rest"] if rest else line.text)]
        if lines:
            yield replace(block, lines=lines)
