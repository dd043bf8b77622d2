"""References to a section by its title: "as described in Confidentiality", "see the
Definitions section", "under Limitation of Liability".

Contracts and policies often cite a section by its title instead of its number. A title
reference is linked only when all of these hold, so that a capitalised phrase is not
taken for a reference:

* the words are the title of a section of the same document (its heading without the
  number: "Limitation of Liability" of "5. Limitation of Liability"), a title no other
  section of the document has, of at least :data:`MIN_TITLE_CHARS` characters and at
  most :data:`MAX_TITLE_WORDS` words, with no digit and no number after it ("Guidance
  1" is a label);
* they are written as a title: capitalised as in running text ("Limitation of Liability",
  "LIMITATION OF LIABILITY"), or in quotes, or followed by "section" or "clause", or
  after "the section entitled" (which is a cue of its own);
* a cue word comes before them (:data:`STRONG_CUES`: "see", "as described in", "refer
  to"...); after a weaker cue (:data:`WEAK_CUES`: "under", "subject to", "in accordance
  with"...), which also comes before defined terms and names ("under Applicable Law"),
  the title must have two words or more, be quoted, or be followed by "section" or
  "clause"; after "in" (:data:`MARKED_CUES`) it must be quoted or so followed;
* "the" before an unquoted title needs "section" or "clause" after it: "set out in the
  Constitution", "under the Commercial Licensing Regulations" name documents, while a
  section is cited "under Limitation of Liability" or "under the Confidentiality section".

A section's reference to its own title is left out, and so is a title that is also a
defined term of the document unless quoted or followed by "section" or "clause".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from ...models import Section
from ...text.numbering import HEADING_KIND, HEADING_OUTLINE

MIN_TITLE_CHARS = 4
MAX_TITLE_WORDS = 8
STRONG_CUES = (
    r"see(?:\s+also)?",
    r"(?:as\s+)?(?:described|set\s+out|set\s+forth|defined|specified|explained|detailed"
    r"|provided|stated|listed|outlined)\s+(?:in|under)",
    r"refer\s+to",
    r"referred\s+to\s+in",
    r"according\s+to",
)
WEAK_CUES = (
    r"under",
    r"subject\s+to",
    r"pursuant\s+to",
    r"in\s+accordance\s+with",
    r"in\s+compliance\s+with",
    r"governed\s+by",
)
MARKED_CUES = (r"in", r"within")
"""Cues that come before a title only when it is quoted or followed by "section" or
"clause" ("in the Definitions section")."""
_NOUN = r"(?:section|clause|article|heading|part|paragraph|provisions?)"
_NAMED = rf"{_NOUN}\s+(?:(?:en)?titled|called|headed|named)"
"""The words that name a title, a cue of their own: "the section entitled"."""
_QUOTES = "\"'“”‘’"
_LETTER_LABEL = re.compile(r"^\s*[A-Z]\.\s+(?=\S)")
_LEAD = " .:-–—)\t"


@dataclass(frozen=True)
class TitleReference:
    """A title found after a cue: its span in the text and the section it names."""

    text: str
    start: int
    end: int
    section_id: str


def section_title(heading: str) -> str:
    """A heading without its number: "5. Limitation of Liability" -> "Limitation of
    Liability", "Article 6 - Lawfulness" -> "Lawfulness"; the heading when unnumbered."""
    plain = re.sub(r"\*\*|__|`", "", heading).strip()
    for pattern in (HEADING_KIND, HEADING_OUTLINE, _LETTER_LABEL):
        match = pattern.match(plain)
        if match:
            plain = plain[match.end() :].lstrip(_LEAD)
            break
    return plain.strip().rstrip(".:").strip()


def title_index(sections: Iterable[Section], document_title: str = "") -> dict[str, str]:
    """Each title (case-folded, spaces as one) that one section alone has, with its id.
    Points and paragraphs ("enum" sections, whose headings are their first words) and the
    preamble have no title; nor has a section headed with the document's title ("the GNU
    General Public License" names the document, not its first heading)."""
    seen: dict[str, list[str]] = {_key(document_title): ["", ""]} if document_title else {}
    for section in sections:
        if section.kind in ("enum", "preamble"):
            continue
        title = section_title(section.heading)
        words = title.split()
        if len(title) < MIN_TITLE_CHARS or not 1 <= len(words) <= MAX_TITLE_WORDS:
            continue
        if not title[0].isalpha() or any(c.isdigit() for c in title):
            continue  # "Guidance 1", "Regulations 2015": a label or a name, not a title
        seen.setdefault(_key(title), []).append(section.section_id)
    return {title: ids[0] for title, ids in seen.items() if len(ids) == 1}


def _key(title: str) -> str:
    return " ".join(title.casefold().split())


_CUE = re.compile(
    rf"(?<![\w-])(?:(?P<cue>{'|'.join((*STRONG_CUES, *WEAK_CUES, *MARKED_CUES))})\s+"
    rf"(?P<the>the\s+)?(?P<named>{_NAMED}\s+)?|(?P<alone>{_NAMED})\s+)(?P<open>[{_QUOTES}])?(?=\w)",
    re.IGNORECASE,
)
_WORD = re.compile(r"\S+")
_GAP = re.compile(r"\s+")
"""The space between two words of a title (a PDF's column break puts a blank line in
"FOR FURTHER INFORMATION\n\nCONTACT")."""
_TRAILING = ".,;:!?)" + _QUOTES
_CLOSE = re.compile(rf"[{_QUOTES}]")
_NOUN_AFTER = re.compile(rf"[{_QUOTES}]?\s+{_NOUN}\b", re.IGNORECASE)
_NUMBER_AFTER = re.compile(r"[ \t]*\d")


@dataclass(frozen=True)
class _Candidate:
    """The words after a cue that are a section's title, with what surrounds them."""

    match: re.Match[str]
    title: str
    start: int
    end: int
    closed: bool
    noun: bool

    @property
    def marked(self) -> bool:
        """Quoted, followed by "section", "clause"..., or after "the section entitled"."""
        quoted = bool(self.match["open"]) and self.closed
        return quoted or self.noun or bool(self.match["named"] or self.match["alone"])


def find_title_references(
    text: str,
    titles: dict[str, str],
    own: str = "",
    defined: Collection[str] = (),
) -> list[TitleReference]:
    """The title references of ``text`` (module docstring); ``titles`` is the document's
    (:func:`title_index`), ``own`` the id of the section the text belongs to. A title that
    is also one of the document's ``defined`` terms (case-folded: "governed by the
    Framework Terms" names the defined term) counts only quoted or followed by "section"
    or "clause". Each cue costs at most :data:`MAX_TITLE_WORDS` lookups, whatever the
    number of titles."""
    if not titles:
        return []
    found = []
    for match in _CUE.finditer(text):
        candidate = _title_after(text, match, titles)
        if candidate is None:
            continue
        key = _key(candidate.title)
        section_id = titles[key]
        if section_id == own or not _written_as_title(candidate):
            continue
        if key in defined and not candidate.marked:
            continue
        found.append(TitleReference(candidate.title, candidate.start, candidate.end, section_id))
    return found


def _title_after(text: str, match: re.Match[str], titles: dict[str, str]) -> _Candidate | None:
    """The longest run of the words after the cue that is a title (its trailing
    punctuation left out), not followed by a number ("Guidance 1" is a label)."""
    spans, at = [], match.end()
    while len(spans) < MAX_TITLE_WORDS:
        word = _WORD.match(text, at)
        if word is None:
            break
        spans.append(word.span())
        gap = _GAP.match(text, word.end())
        if gap is None:
            break
        at = gap.end()
    for count in range(len(spans), 0, -1):
        start, end = spans[0][0], spans[count - 1][1]
        while end > start and text[end - 1] in _TRAILING:
            end -= 1
        title = text[start:end]
        if _key(title) not in titles or _NUMBER_AFTER.match(text, end):
            continue
        closed = bool(_CLOSE.match(text, end))
        noun = bool(_NOUN_AFTER.match(text, end))
        return _Candidate(match, title, start, end, closed, noun)
    return None


def _written_as_title(candidate: _Candidate) -> bool:
    match, title = candidate.match, candidate.title
    if candidate.marked:
        return True
    if not _capitalised(title):
        return False
    if match["the"]:  # "set out in the Constitution": a document or a defined term
        return False
    cue = match["cue"] or ""
    if re.fullmatch("|".join(STRONG_CUES), cue, re.IGNORECASE):
        return True
    weak = re.fullmatch("|".join(WEAK_CUES), cue, re.IGNORECASE)
    return bool(weak) and len(title.split()) >= 2


def _capitalised(title: str) -> bool:
    """Capitalised as a title is in running text: the first word and every word of four
    letters or more begin with a capital ("Limitation of Liability", "Term and
    Termination"); all capitals count too."""
    words = title.split()
    if not words[0][0].isupper():
        return False
    return all(w[0].isupper() or len(w) < 4 or not w[0].isalpha() for w in words[1:])


def overlapping(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``start``-``end`` overlaps one of ``spans``."""
    return any(s < end and start < e for s, e in spans)
