"""Tables of contents in plain text: lines that name sections, not sections.

An RFC, a standard or a report converted to text opens with its contents: "3.1.2.  Title
. . . . . 19", "Appendix A.  Collected ABNF . . . 11". Read as numbering, those lines
would be the document's sections, each empty, and the last of them (an appendix) would
swallow the body. A line is a contents entry when:

* it ends with a dot leader and a page number ("Title . . . . 19", "Title ...... 19",
  "Title …… 19"), or lies in a paragraph of such lines (an entry wrapped onto two lines);
  or
* it is one of a run of at least :data:`MIN_RUN` lines with no text between them (blank
  lines aside), each repeated later in the document as a line of its own (a contents list
  without page numbers, as Markdown and HTML renderings have).

The structure parser leaves contents entries out (:func:`~.outline.find_marks`); the
sections they name are found where the document repeats them as headings.
"""

from __future__ import annotations

import re

#: A dot leader then a page number (Arabic or Roman) at the end of a line.
LEADER = re.compile(r"(?:(?:\.\s?){3,}|…{2,}|\s{2,}\.{2,})\s*(?:\d{1,4}|[ivxlc]{1,6})\s*$")
#: Lines in a run of contents entries without leaders.
MIN_RUN = 3
_NOT_WORD = re.compile(r"[^0-9a-z]+")
#: A numbered line's key: "3 1 2 title", "appendix a title", "chapter iv title".
_NUMBERED = re.compile(r"^(?:\d|(?:appendix|annex|schedule|section|chapter|part|article) \w)")


def _key(line: str) -> str:
    """A line as the heading it names: no leader or page number, letters and digits."""
    return " ".join(_NOT_WORD.sub(" ", LEADER.sub("", line).lower()).split())


def _contents_paragraphs(lines: list[str], leaders: set[int]) -> set[int]:
    """Every line of a paragraph (lines between blank ones) of which at least
    :data:`MIN_RUN` lines, and half, end with a leader: a contents entry wrapped onto two
    lines, or with a leader too short to be sure of, is in the contents too."""
    found: set[int] = set()
    paragraph: list[int] = []
    for index, line in enumerate([*lines, ""]):
        if line.strip():
            paragraph.append(index)
            continue
        held = sum(i in leaders for i in paragraph)
        if held >= MIN_RUN and 2 * held >= len(paragraph):
            found.update(paragraph)
        paragraph = []
    return found


def contents_lines(lines: list[str]) -> set[int]:
    """Indexes of the lines of ``lines`` that are contents entries (see the module)."""
    found = {i for i, line in enumerate(lines) if LEADER.search(line) and _key(line)}
    found |= _contents_paragraphs(lines, found)
    last: dict[str, int] = {}
    for index, line in enumerate(lines):
        if line.strip():
            last[_key(line)] = index
    run: list[int] = []
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        key = _key(line)
        if _NUMBERED.match(key) and last.get(key, index) > index:
            run.append(index)
            continue
        if len(run) >= MIN_RUN:
            found.update(run)
        run = []
    if len(run) >= MIN_RUN:
        found.update(run)
    return found
