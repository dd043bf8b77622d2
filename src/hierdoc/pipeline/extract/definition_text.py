"""What every definition finder shares: the found record, term checks, definition text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .definition_markup import Unmarked

MAX_TERM_WORDS = 8

# a Markdown link, read as its text: "grant [access](#access)" is "grant access"
_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
# an abbreviation in parentheses after a term's name: "Relying Party (RP)", "Identity
# Provider (IdP)": the acronyms' to link, not part of the term
_ABBREVIATED = re.compile(r"\s+\([^\s()]{1,20}\)$")
_TRAILING = re.compile(r"(?:\s*[;,]\s*(?:and|or))?\s*[;,]?\s*$")
_FINAL_STOP = re.compile(r"(?<=[\w)\"”’}%\]])\s*\.$")
# a full stop that ends an abbreviation ("U.S.", "Inc.", "et seq.") stays
_ABBREVIATION = re.compile(r"(?:\b[A-Za-z]\.)+$|\b(?:Inc|Ltd|Co|Corp|etc|seq|No)\.$|\b[A-Z]\.$")


@dataclass(frozen=True)
class FoundDefinition:
    """A defined term and its definition, with character offsets into the input text."""

    term: str
    definition: str
    start: int
    end: int
    style: str


def word_set(words: str) -> frozenset[str]:
    """A set of words written as one string (shorter to read than a list of literals)."""
    return frozenset(words.split())


_FUNCTION_WORDS = word_set("and or nor but the a an of to in on at by for with as")
#: Personal and demonstrative pronouns: an entry's text opening with one is a sentence.
PRONOUNS = word_set("we you i they he she it this these our your")
#: Labels of notes and asides ("Note: ...", "Example 2: ..."), never defined terms.
NOTE_LABELS = word_set(
    "note notes example examples e.g see source nb important warning tip caution"
)
#: Words that name a part of a document ("Section 4", "Annex II"), never defined terms.
STRUCTURAL_WORDS = "article|section|sec|chapter|part|title|schedule|annex|clause|appendix|exhibit"


def valid_term(term: str) -> bool:
    """A short name; not a form's placeholder ("Mr./Mrs. …", "[Name]", "____")."""
    words = term.split()
    if not 0 < len(words) <= MAX_TERM_WORDS or not term[0].isalnum() or term.endswith("."):
        return False
    if not re.search(r"[^\W\d_]", term) or term.casefold() in _FUNCTION_WORDS:
        return False  # 'the digit "5" indicates ...', 'the backslash ("\\" and ...)'
    # "[Name]", "____" are blanks to fill in; "age_value" is a name
    return not re.search(r"…|\.\.\.|[\[\]]|__|^_|_$", term)


# a template's blank: "[Employment basis]", "{pilot_period}", "<name>", "[ # ]", "____"
_BLANK = re.compile(r"\[[^\]\n]*\]|\{[^}\n]*\}|<[^>\n]*>|_+|…|\.\.\.")


def is_fill_in(value: str) -> bool:
    """Whether a value is only blanks to fill in, which name nothing the term means (a cover
    table's "Governing Law | [Governing law state]", "Pilot Period | {pilot_period}")."""
    return not re.search(r"[^\W_]", _BLANK.sub(" ", value))


def clean_definition(marked: Unmarked, start: int, end: int) -> tuple[str, int]:
    """The definition between two offsets, without markup, a trailing "; and" / ";" / "."
    (an item separator), and the offset where it ends."""
    raw = trim(marked.plain[start:end])
    return collapse(unlink(raw)), start + len(raw)


def unlink(text: str) -> str:
    """Markdown links replaced by their text."""
    return _LINK.sub(r"\1", text) if "](" in text else text


def without_abbreviation(term: str) -> str:
    """A term's name without the abbreviation in parentheses after it."""
    return _ABBREVIATED.sub("", term)


def trim(raw: str) -> str:
    raw = raw[: _TRAILING.search(raw).start()]
    return raw if _ABBREVIATION.search(raw) else _FINAL_STOP.sub("", raw)


_GAP_BEFORE_STOP = re.compile(r" (?=[.,;:](?:\s|$))")
"""A space before a stop or comma, where markup read as spaces ended: "an **authority**."."""


def collapse(value: str) -> str:
    """Whitespace collapsed, and no space left before a stop or a comma."""
    return _GAP_BEFORE_STOP.sub("", " ".join(value.split()))
