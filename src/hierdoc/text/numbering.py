"""Legal and outline numbering: headings and citations to canonical section ids.

One grammar serves both directions. A heading such as "Article 17 - Right to
erasure" and a query citation such as "Art. 17(3)(b)" both parse to a
:class:`Label`, whose :meth:`Label.section_id` gives the canonical id
(``article-17``, ``article-17-3-b``). Ids are lower-case and hyphenated so that
they are stable, readable and easy to type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Spellings of each structural kind, mapped to the kind's canonical name.
KIND_ALIASES: dict[str, str] = {
    "title": "title",
    "tit": "title",
    "chapter": "chapter",
    "chap": "chapter",
    "ch": "chapter",
    "part": "part",
    "pt": "part",
    "subpart": "subpart",
    "subchapter": "subchapter",
    "division": "division",
    "div": "division",
    "subtitle": "subtitle",
    "section": "section",
    "sec": "section",
    "sect": "section",
    "secs": "section",
    "sections": "section",
    "§": "section",
    "§§": "section",
    "article": "article",
    "art": "article",
    "arts": "article",
    "articles": "article",
    "annex": "annex",
    "appendix": "appendix",
    "app": "appendix",
    "schedule": "schedule",
    "sch": "schedule",
    "exhibit": "exhibit",
    "clause": "clause",
    "cl": "clause",
    "condition": "condition",
    "conditions": "condition",
    "requirement": "requirement",
    "rule": "rule",
    "recital": "recital",
    "paragraph": "paragraph",
    "para": "paragraph",
    "par": "paragraph",
}

#: Kinds whose numbers are often written in Roman numerals ("Chapter III").
ROMAN_KINDS = frozenset({"title", "chapter", "subchapter", "part", "annex", "division", "subtitle"})
#: Kinds whose Roman numbers are ids' numbers ("Annex II" is ``annex-2``).
ROMAN_NUMBERED = ROMAN_KINDS | {"appendix"}

#: The most characters one pair of parentheses holds in a number.
PAREN_MAX = 6
#: What one pair of parentheses holds: "3", "b", "iv", "B", "2A", "xviii".
PAREN_VALUE = rf"[0-9A-Za-z]{{1,{PAREN_MAX}}}"
#: One parenthesised part of a number, the "(3)" and "(b)" of "Article 17(3)(b)",
#: "403(b)(2)", "(a)(1)(A)(i)". Headings, citations, cross-references, outline
#: lines and list items all read parentheses with this one grammar.
PAREN = rf"\({PAREN_VALUE}\)"
#: One part of a section id: a parenthesised part or a number, lower-cased.
PART_TOKEN = re.compile(rf"[0-9a-z]{{1,{PAREN_MAX}}}")

_KIND_WORDS = sorted((k for k in KIND_ALIASES if k[0] != "§"), key=len, reverse=True)
#: A number: "17", "4.2", "10b-5", legislation's inserted "88EA", Roman "III" and "IA", a
#: letter "B", or a lettered decimal "K.3" or "A-1" ("Appendix A-1").
_NUMBER = (
    r"(?:\d+(?:(?-i:[A-Z]{2})|[A-Za-z])?(?:[.\-]\d+[A-Za-z]?)*|[A-Z](?:[.\-]\d+[A-Za-z]?)+"
    r"|[IVXLCDM]+(?-i:[A-Z](?![A-Za-z]))?|[A-Z](?![a-z]))"
)
_PARENS = rf"(?:\s?{PAREN})*"
_KIND_RE = (
    r"(?P<kind>§§?|(?<![^\W\d_])(?:" + "|".join(_KIND_WORDS) + r")\b\.?)\s*"
    r"(?P<num>" + _NUMBER + r")(?P<parens>" + _PARENS + r")"
)
KIND_PATTERN = re.compile(_KIND_RE, re.IGNORECASE)
HEADING_KIND = re.compile(r"^\s*" + _KIND_RE + r"(?=$|[\s.:\-–—,;)])", re.IGNORECASE)
# "4.2 Payment", "1. Scope", "3 Requirements", and with the number set off by a colon or a
# dash: "1: Scope", "3 - Requirements", "3.1 – Policy"
HEADING_OUTLINE = re.compile(
    r"^\s*(?:(?P<num>\d+(?:\.\d+)+|\d+(?=\.))\.?|(?P<bare>\d{1,3})(?=\s*[:\-–—]?\s+[A-Z]))"
    r"(?=\s*[:\-–—]?\s+\S|\s*$)"
)
_PAREN_PART = re.compile(rf"\(({PAREN_VALUE})\)")
_ROMAN = re.compile(r"^[IVXLCDM]+$", re.IGNORECASE)
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}
_SLUG_JUNK = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Label:
    """A parsed number: a kind ("article") and its parts ("17", "3", "b")."""

    kind: str
    parts: tuple[str, ...]

    def section_id(self, depth: int | None = None) -> str:
        """The canonical id, from the first ``depth`` parts: ``article-17-3-b``."""
        parts = self.parts if depth is None else self.parts[:depth]
        return "-".join((self.kind, *(p.lower() for p in parts)))

    def candidate_ids(self) -> list[str]:
        """Ids from the most specific to the least: article-17-3-b, article-17-3, article-17."""
        return [self.section_id(depth) for depth in range(len(self.parts), 0, -1)]

    def candidate_levels(self) -> list[tuple[str, ...]]:
        """:meth:`candidate_ids`, each with its :func:`equivalent_ids`: the ids a citation
        may have in a document, level by level from the most specific."""
        return [(i, *equivalent_ids(i), *fallback_ids(i)) for i in self.candidate_ids()]


#: Kinds that name the same decimal clauses: a contract's "Clause 8.4", a standard's
#: "Requirement 8.4", a rulebook's "Rule 8.4", a licence's "condition 3" and "Section 8.4"
#: all cite the clause numbered "8.4", whose id is ``section-8-4`` when its heading is the
#: bare number.
CLAUSE_KINDS = ("section", "clause", "requirement", "rule", "condition")


def equivalent_ids(section_id: str) -> list[str]:
    """The same number under the other clause kinds: ``clause-8-4`` -> ``section-8-4``,
    ``requirement-8-4``; nothing for other kinds."""
    kind, _, rest = section_id.partition("-")
    if kind not in CLAUSE_KINDS or not rest:
        return []
    return [f"{other}-{rest}" for other in CLAUSE_KINDS if other != kind]


_RUN_IN_POINT = re.compile(r"^(?P<number>\d{1,3})(?P<letter>[a-z])$")


def fallback_ids(section_id: str) -> list[str]:
    """Ids that answer a citation only where no document holds it or its equivalents: an
    article's number as a bare numbered clause (``article-5`` -> ``section-5``: a licence
    whose clauses are "5." cites them "Article 5"); a whole clause's number as the "N.0" a
    document numbers its top clauses with (``section-7`` -> ``section-7-0``: "7.0. Testing
    Schedule Requirements" is cited "Section 7"); a number run into a letter as a clause
    and its lettered point (``paragraph-3h`` -> ``section-3-h``: an agreement whose clause 3
    has points A to J cites its point H "paragraph 3H")."""
    kind, _, rest = section_id.partition("-")
    if kind == "article" and rest:
        return [f"section-{rest}"]
    if (kind in CLAUSE_KINDS or kind == "paragraph") and (point := _RUN_IN_POINT.match(rest)):
        return [f"section-{point['number']}-{point['letter']}"]
    return [f"section-{rest}-0"] if kind in CLAUSE_KINDS and rest.isdigit() else []


def roman_to_int(text: str) -> int | None:
    """Value of a well-formed Roman numeral, else None ("IIII" and "IC" are rejected)."""
    if not text or not _ROMAN.match(text):
        return None
    values = [_ROMAN_VALUES[c] for c in text.lower()]
    total = 0
    for value, following in zip(values, [*values[1:], 0], strict=False):
        total += -value if value < following else value
    return total if int_to_roman(total) == text.upper() else None


def int_to_roman(value: int) -> str:
    """The Roman numeral of a positive integer, in capitals: 14 -> "XIV"."""
    numerals = [
        (1000, "M"),
        (900, "CM"),
        (500, "D"),
        (400, "CD"),
        (100, "C"),
        (90, "XC"),
        (50, "L"),
        (40, "XL"),
        (10, "X"),
        (9, "IX"),
        (5, "V"),
        (4, "IV"),
        (1, "I"),
    ]
    out = []
    for number, numeral in numerals:
        count, value = divmod(value, number)
        out.append(numeral * count)
    return "".join(out)


def paren_parts(text: str) -> list[str]:
    """The values of the parenthesised parts in ``text``: "(3)(b)" -> ["3", "b"]."""
    return _PAREN_PART.findall(text)


def _kind_of(raw: str) -> str:
    return KIND_ALIASES[raw.lower().rstrip(".")]


def number_parts(kind: str, number: str, roman_kinds: frozenset[str] = ROMAN_NUMBERED) -> list[str]:
    """Split "4.2" into ["4", "2"]; turn "III" into "3" for ``roman_kinds``.

    A lone "C", "D", "L" or "M" stays a letter ("Annex C").
    """
    if kind in roman_kinds:
        value = roman_to_int(number)
        if value is not None and not (len(number) == 1 and number.upper() in "CDLM"):
            return [str(value)]
    return [p for p in re.split(r"[.\-]", number) if p]


def _label(kind_raw: str, number: str, parens: str) -> Label:
    kind = _kind_of(kind_raw)
    parts = number_parts(kind, number) + paren_parts(parens or "")
    return Label(kind, tuple(parts))


def parse_heading(heading: str) -> Label | None:
    """The label a heading starts with: "Article 17 - Right to erasure" -> article 17.

    A bare outline number ("4.2 Payment terms", "1. Scope") is a section number,
    as contracts cite it ("Section 4.2").
    """
    match = HEADING_KIND.match(heading)
    if match:
        return _label(match["kind"], match["num"], match["parens"])
    match = HEADING_OUTLINE.match(heading)
    if match:
        return Label("section", tuple((match["num"] or match["bare"]).split(".")))
    return None


#: A lettered outline heading: "K. Payment", "B. Account Terms" (a capital letter, a dot,
#: then a word).
_HEADING_LETTER = re.compile(r"^\s*(?P<letter>[A-Z])\.\s+(?=[A-Z0-9\"“(])")


def parse_lettered_heading(heading: str) -> Label | None:
    """The lettered section a heading opens: "K. Payment" -> section k, cited "Section K"
    (and its numbered subsections "Section K.3"). Only for headings the document marks as
    such: in running text or a PDF line, "A. Smith" or a list item is not a section."""
    match = _HEADING_LETTER.match(heading)
    return Label("section", (match["letter"],)) if match else None


@dataclass(frozen=True)
class Citation:
    """A citation found in free text, with its position."""

    label: Label
    text: str
    start: int
    end: int


_POINT = rf"\s*,?\s*(?:point|subparagraph|sub-paragraph|letter)\s+\(?(?P<point>{PAREN_VALUE})\)?"
_PARAGRAPH_WORDS = re.compile(
    r"\s*,?\s*(?:paragraph|para\.?)\s+(?P<para>\d+[a-z]?)(?:" + _POINT + ")?", re.IGNORECASE
)
_POINT_WORDS = re.compile(_POINT, re.IGNORECASE)


def _trailing_words(text: str, end: int) -> tuple[list[str], int]:
    """Parts written in words after a citation: "Article 17 paragraph 3 point (b)"."""
    match = _PARAGRAPH_WORDS.match(text, end)
    if match:
        parts = [match["para"]] + ([match["point"]] if match["point"] else [])
        return parts, match.end()
    match = _POINT_WORDS.match(text, end)
    if match:
        return [match["point"]], match.end()
    return [], end


#: Kinds numbered by a lone letter in any case: "Annex C", "Part b", "Schedule A".
_LETTER_KINDS = frozenset(
    {"appendix", "annex", "exhibit", "schedule", "subpart", "part", "title", "chapter"}
)


def _letter_cited(match: re.Match[str]) -> bool:
    """A lone letter numbers the cited kind: always for :data:`_LETTER_KINDS`; for a
    section or clause only as "Section K" (word capitalised, capital letter, no full stop
    between them: "this section. A person" is two sentences; the letter a whole word:
    "Section ISO/IEC" in a table header is no Section I)."""
    kind_raw = match["kind"]
    if _kind_of(kind_raw) in _LETTER_KINDS:
        return True
    if _kind_of(kind_raw) not in CLAUSE_KINDS or not kind_raw[0].isupper():
        return False
    sentence_end = kind_raw.endswith(".") and KIND_ALIASES.get(kind_raw[:-1].lower()) == (
        kind_raw[:-1].lower()
    )
    after = match.string[match.end("num") : match.end("num") + 1]
    return match["num"].isupper() and not sentence_end and not after.isalnum()


def find_citations(text: str) -> list[Citation]:
    """Every "Article 17(3)(b)", "sec. 203(a)(1)", "§4.2", "Chapter III" in a text."""
    found: list[Citation] = []
    for match in KIND_PATTERN.finditer(text):
        if found and match.start() < found[-1].end:
            continue
        kind = _kind_of(match["kind"])
        if kind in ROMAN_KINDS and match["num"].isalpha() and roman_to_int(match["num"]) is None:
            continue
        if len(match["num"]) == 1 and match["num"].isalpha() and not _letter_cited(match):
            continue
        label = _label(match["kind"], match["num"], match["parens"])
        words, end = _trailing_words(text, match.end())
        if words:
            label = Label(label.kind, (*label.parts, *words))
        found.append(Citation(label, text[match.start() : end], match.start(), end))
    return found


def slugify(text: str, max_length: int = 60) -> str:
    """An id for a heading without numbering: "Scope & Purpose" -> ``scope-purpose``."""
    slug = _SLUG_JUNK.sub("-", text.lower()).strip("-")
    return slug[:max_length].rstrip("-") or "section"
