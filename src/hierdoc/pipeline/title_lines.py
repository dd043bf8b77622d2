"""Unnumbered title lines of plain text: the headings of a text that has no other.

A licence or a policy saved as plain text often titles its sections with a line of its
own and no number ("Definitions", "Grant of Rights", "NO WARRANTY"), with the text of the
section below it. Such a line is a heading when it:

- opens a paragraph (a blank line or the end of a sentence before it), and is either a
  paragraph of its own (a blank line after it) or the first line of one whose next line
  is a line of text (opening with a capital, a quote or a bracket, and long or ending a
  sentence), as a page copied into a text file gives a title and its first paragraph;
- is short (at most :data:`MAX_TITLE_WORDS` words), has no sentence punctuation at its
  end and no number or bullet at its start;
- is in title case or in capitals: each significant word capitalised but at most one
  ("Items That are Not Considered Part of a Modified Version");
- is followed by text of its own: the next paragraph is not another such line.

The text's first line is its title, not a section, and a text needs at least
:data:`MIN_TITLES` such lines for them to be its headings: a single "Note" above a
paragraph is text.
"""

from __future__ import annotations

import re

MAX_TITLE_WORDS = 16
MAX_TITLE_CHARS = 110
MIN_TEXT_CHARS = 60
"""A line of text under a title on the next line: this long, or ending a sentence."""
MIN_TITLES = 3
_SMALL_WORDS = frozenset(
    {"of", "the", "a", "an", "and", "or", "for", "to", "in", "on", "by", "with", "at", "from"}
    | {"under", "as", "without", "into", "not", "your", "its", "our", "their", "per", "via"}
)
_TITLE_WORD = re.compile(r"^[(\"'“‘]?[A-Z0-9]")
_LETTERS = re.compile(r"[A-Za-z]")
_ENDS_SENTENCE = frozenset(".,;:!?")
_OPENS_ITEM = re.compile(r"^(?:[-*+•–—]|\(?\d|\(?[a-zA-Z][.)]\s|\(|#|>|\|)")


def is_title_line(line: str) -> bool:
    """Whether ``line`` reads as a section's title: a few capitalised words, no more."""
    title = line.strip()
    if not title or len(title) > MAX_TITLE_CHARS or title[-1] in _ENDS_SENTENCE:
        return False
    if line[:1].isspace() or _OPENS_ITEM.match(title) or "\t" in title or "  " in title:
        return False
    words = title.split()
    if len(words) > MAX_TITLE_WORDS or not _LETTERS.match(words[0]):
        return False
    significant = [w for w in words if w.casefold() not in _SMALL_WORDS]
    lower = sum(not _TITLE_WORD.match(w) for w in significant)
    return len(significant) > 2 * lower and lower <= 1 and _TITLE_WORD.match(words[0]) is not None


def title_lines(lines: list[str]) -> list[int]:
    """The indexes of the title lines of ``lines`` that head sections, or none when there are
    fewer than :data:`MIN_TITLES` of them."""
    found: list[int] = []
    first = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    for index in range(first + 1, len(lines) - 1):
        if not _opens_paragraph(lines[index - 1]) or not is_title_line(lines[index]):
            continue
        if lines[index].strip() == lines[first].strip():
            continue  # the text's title again, as a copied page repeats it
        below = lines[index + 1]
        if below.strip() and not _text_line(below):
            continue
        if not below.strip() and not _text_follows(lines, index + 1):
            continue
        found.append(index)
    return found if len(found) >= MIN_TITLES else []


def _opens_paragraph(previous: str) -> bool:
    """Whether a line after ``previous`` opens a paragraph: ``previous`` is blank or ends a
    sentence (a title right under a list's last item, as a copied page gives it)."""
    text = previous.rstrip()
    return not text or text[-1] in ".;:!?"


_TEXT_START = re.compile(r"^[A-Z\"“‘'(]")


def _text_line(line: str) -> bool:
    """A line of a paragraph's text, not a second title line nor a wrapped title."""
    text = line.strip()
    if not _TEXT_START.match(text) or is_title_line(text):
        return False
    return len(text) >= MIN_TEXT_CHARS or (text[-1] in ".;:" and len(text.split()) >= 6)


def _text_follows(lines: list[str], start: int) -> bool:
    """Whether the paragraph after the blank line at ``start`` is text, not a title line."""
    following = next((i for i in range(start, len(lines)) if lines[i].strip()), None)
    if following is None:
        return False
    alone = following + 1 >= len(lines) or not lines[following + 1].strip()
    return not (alone and is_title_line(lines[following]))
