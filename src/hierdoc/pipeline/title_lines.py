"""Unnumbered title lines of plain text: the headings of a text that has no other.

A licence or a policy saved as plain text often titles its sections with a line of its
own and no number ("Definitions", "Grant of Rights", "NO WARRANTY"), with the text of the
section below it. Such a line is a heading when it:

- stands alone as a paragraph (a blank line, or the start of the text, before it and a
  blank line after it);
- is short (at most :data:`MAX_TITLE_WORDS` words), has no sentence punctuation at its
  end and no number or bullet at its start;
- is in title case or in capitals (each significant word capitalised);
- is followed by text of its own: the next paragraph is not another such line.

The text's first line is its title, not a section, and a text needs at least
:data:`MIN_TITLES` such lines for them to be its headings: a single "Note" above a
paragraph is text.
"""

from __future__ import annotations

import re

MAX_TITLE_WORDS = 8
MAX_TITLE_CHARS = 70
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
    return bool(significant) and all(_TITLE_WORD.match(w) for w in significant)


def title_lines(lines: list[str]) -> list[int]:
    """The indexes of the title lines of ``lines`` that head sections, or none when there are
    fewer than :data:`MIN_TITLES` of them."""
    found: list[int] = []
    first = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    for index in range(first + 1, len(lines) - 1):
        if lines[index - 1].strip() or lines[index + 1].strip():
            continue
        if not is_title_line(lines[index]) or not _text_follows(lines, index + 1):
            continue
        found.append(index)
    return found if len(found) >= MIN_TITLES else []


def _text_follows(lines: list[str], start: int) -> bool:
    """Whether the paragraph after the blank line at ``start`` is text, not a title line."""
    following = next((i for i in range(start, len(lines)) if lines[i].strip()), None)
    if following is None:
        return False
    alone = following + 1 >= len(lines) or not lines[following + 1].strip()
    return not (alone and is_title_line(lines[following]))
