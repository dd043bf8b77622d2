"""Tables of contents in plain text: lines that name sections, not sections.

An RFC, a standard or a report converted to text opens with its contents: "3.1.2.  Title
. . . . . 19", "Appendix A.  Collected ABNF . . . 11". Read as numbering, those lines
would be the document's sections, each empty, and the last of them (an appendix) would
swallow the body. A line is a contents entry when:

* it ends with a dot leader and a page number ("Title . . . . 19", "Title ...... 19",
  "Title …… 19"), or lies in a paragraph of such lines (an entry wrapped onto two lines);
  or
* it is one of a run of at least :data:`MIN_RUN` numbered lines as short as headings with
  no text between them (blank lines aside), each repeated later in the document, in the
  same order and with text between the repeats (a contents list without page numbers, as
  Markdown and HTML renderings have).

The structure parser leaves contents entries out (:func:`~.outline.find_marks`); the
sections they name are found where the document repeats them as headings.
"""

from __future__ import annotations

import re

#: A page number: Arabic, Roman, or a part's letter or number and the page in it ("A-1",
#: "2-1", "ES-1", as NIST numbers its pages).
PAGE_NUMBER = r"(?:(?:(?:[A-Z]{1,3}|\d{1,3})-)?\d{1,4}|[ivxlc]{1,6})"
#: A dot leader then a page number at the end of a line.
LEADER = re.compile(rf"(?:(?:\.\s?){{3,}}|…{{2,}}|\s{{2,}}\.{{2,}})\s*{PAGE_NUMBER}\s*$")
#: Lines in a run of contents entries without leaders.
MIN_RUN = 3
_ENTRY_MAX = 120
_NOT_WORD = re.compile(r"[^0-9a-z]+")
#: A numbered line's key: "3 1 2 title", "appendix a title", "chapter iv title".
_NUMBERED = re.compile(r"^(?:\d|(?:appendix|annex|schedule|section|chapter|part|article) \w)")


#: A line that may be numbered: its first word a number or a kind of section.
_STARTS_NUMBERED = re.compile(
    r"\s*(?:\d|(?:appendix|annex|schedule|section|chapter|part|article)\s)", re.IGNORECASE
)
#: The key of a line of text that is no contents entry.
_TEXT = "~"


def _key(line: str) -> str:
    """A line as the heading it names: no leader or page number, letters and digits."""
    return " ".join(_NOT_WORD.sub(" ", LEADER.sub("", line).lower()).split())


def _ends_with_leader(line: str) -> bool:
    last = line.rstrip()[-1:]
    return bool(last) and (last.isdigit() or last in "ivxlc") and LEADER.search(line) is not None


def _line_key(line: str) -> str:
    """The key of a line that may be a contents entry or its heading; :data:`_TEXT` for
    other text, "" for a blank line."""
    if not line.strip():
        return ""
    return _key(line) if _STARTS_NUMBERED.match(line) else _TEXT


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
    found = {i for i, line in enumerate(lines) if _ends_with_leader(line) and _key(line)}
    found |= _contents_paragraphs(lines, found)
    keys = [_line_key(line) for line in lines]
    later: dict[str, list[int]] = {}
    for index, key in enumerate(keys):
        if key and key != _TEXT:
            later.setdefault(key, []).append(index)
    run: list[int] = []
    for index, key in enumerate([*keys, "-"]):
        if index < len(keys) and not key:
            continue
        if index < len(keys) and _entry(lines[index], key) and later[key][-1] > index:
            run.append(index)
            continue
        if len(run) >= MIN_RUN and _opened_with_text(run, keys, later):
            found.update(run)
        run = []
    return found


def _entry(line: str, key: str) -> bool:
    """A numbered line as short as a heading, not a sentence or a clause of a list."""
    text = line.strip()
    return bool(_NUMBERED.match(key)) and len(text) <= _ENTRY_MAX and text[-1] not in ".;:,"


def _opened_with_text(run: list[int], keys: list[str], later: dict[str, list[int]]) -> bool:
    """The run's entries are repeated after it with text between them, as headings of
    sections are; the same numbered lines repeated without text between (the "(1) in
    clause (ii)" of two amended subsections) are lists, not contents."""
    repeats = [
        next(i for i in later[keys[r]] if i > run[-1]) for r in run if later[keys[r]][-1] > run[-1]
    ]
    if len(repeats) < len(run) or repeats != sorted(repeats):
        return False
    listed = set(repeats)
    return any(keys[i] and i not in listed for i in range(repeats[0], repeats[-1]))
