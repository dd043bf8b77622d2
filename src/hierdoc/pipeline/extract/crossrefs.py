"""Cross-references in formal text: find them, then resolve them to section ids.

:func:`find_references` reads a reference as a chain of elements joined by
"of", innermost first, the way legislation writes them::

    point (a) of the first subparagraph of Article 6(1)
    └─ sub ─┘    └──── transparent ────┘    └ block ┘

* a *block* is a citation that :mod:`hierdoc.text.numbering` parses ("Article 6(1)",
  "sec. 203(a)(1)", "§ 4.2", "Chapter V"), extended here to lists and ranges
  ("Articles 15 to 22 and 34", "Article 60(7), (8) and (9)", "§§ 4.2 and 4.3");
  blocks after the first nest it ("Section 3 of Chapter IV" is
  ``chapter-4-section-3``);
* a *sub* names a part below the current article or section: "paragraph 3",
  "points (h) and (i)", "subsection (a)", "paragraph (2)" (US style, in
  parentheses), "subparagraph (A)", "clause (i)";
* a *transparent* element ("the first subparagraph", "the second sentence")
  narrows the text but has no id of its own, so it adds no part;
* "this Article", "this paragraph", "this Section" stand for the current one.

A chain that ends in a block is absolute (``candidate_ids``); one that does not
is relative (``relative`` holds its parts below the current article or
section) and is made absolute by :func:`~.crossref_resolve.resolve` (importable
from here too) from the context of the text.
After the chain, "of this Regulation/Act/title" keeps it internal, while
"of the Treaty", "of that Directive", "of Directive 95/46/EC", "TFEU" or
", United States Code" make it external; an external qualifier also covers the
citations coordinated before it ("Article 25(6) or Article 26(4) of Directive
95/46/EC"); another text's short name before a citation ("COBS Rule 2.4.1", "FSMR
section 58") makes it external too. Citations of whole acts ("Regulation (EC) No 45/2001",
"Directive 95/46/EC", "5 U.S.C. 551") are reported as external references.

Lead-ins ("see", "pursuant to", "referred to in", "under", ...) do not change
what a reference points to and are not part of its text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import product

from ...text.numbering import (
    PAREN,
    ROMAN_KINDS,
    Label,
    find_citations,
    int_to_roman,
    paren_parts,
    parse_heading,
    roman_to_int,
    slugify,
)
from .crossref_resolve import SUB_LEVELS, resolve

# ``resolve`` is re-exported for the code that imports it from here.
__all__ = ["MAX_RANGE", "FoundReference", "find_references", "resolve"]

#: Ranges longer than this are kept as their two ends only (likely a misreading).
MAX_RANGE = 50
#: Characters of a line of running text, wrapped: a citation that opens the line after one
#: (ending with a lower-case word) goes on with its sentence and is no heading.
RUNNING_LINE = 40


@dataclass(frozen=True)
class FoundReference:
    """One target of a cross-reference found in a text.

    A list or range ("Articles 15 to 22", "points (h) and (i) of Article 9(2)")
    gives one FoundReference per target, all with the span and ``text`` of the
    whole written reference. ``kind`` is the kind of the innermost element as
    written ("point" for "point (a) of Article 6(1)", "article" for
    "Article 6(1)(a)"). Absolute references carry ``candidate_ids`` (most
    specific first); relative ones carry ``relative`` (parts below the current
    article or section, or below the current paragraph for a lone "point (b)");
    "this Article" has neither. External references carry neither: they never
    resolve against this document.
    """

    text: str
    start: int
    end: int
    kind: str
    candidate_ids: tuple[str, ...]
    relative: tuple[str, ...]
    external: bool


# --------------------------------------------------------------------------- grammar

Parts = tuple[str, ...]

_S = r"(?:[ \t]|\n(?![ \t]*\n))"  # one space that does not cross a blank line
_SEP = re.compile(
    rf"{_S}*,{_S}*(?:(?P<w1>and/or|and|or){_S}+)?"
    rf"|{_S}+(?P<w2>and/or|and|or|to|through){_S}+"
    rf"|{_S}*(?P<dash>[-–]){_S}*"
)
_BLOCK_ITEM = re.compile(
    rf"(?P<num>\d{{1,4}}[A-Za-z]?(?:\.\d+[A-Za-z]?)*|[IVXLCDM]+)(?:\.(?P<letter>[A-Z])\b)?"
    rf"(?![A-Za-z])(?P<parens>(?:{PAREN})*)(?!{_S}?\d)(?!\.\d)"
)
"""A block's number; a capital after a dot is its lettered point ("clause 5.F.")."""
_PAREN_ITEM = re.compile(rf"(?P<parens>(?:{PAREN})+)")
_SEE_NUMBER = re.compile(
    rf"(?<![\w-])(?:[Ss]ee|cf\.)(?:{_S}+also)?{_S}+(?P<num>\d{{1,3}}(?:\.\d{{1,3}})+)"
    r"(?=[).,;]*(?:\s|$))(?!\s*(?:%|(?:per|percent|million|billion|thousand|times)\b))"
)
"""A clause cited by its dotted number alone after "see" ("(see 5.6)"): the word is kept
in the reference's text, since the number alone is no reference."""
_POINT_TAIL = re.compile(r"\.(?P<letter>[A-Z])\b(?!\.?[\w(])")
"""A lettered point written after a clause's number and a dot: the "F" of "clause 5.F."."""
_ITEM_TITLE = re.compile(rf"{_S}*\((?=[A-Z][a-z])[^()\n]{{2,80}}\)")
"""A cited clause's title after its number: "Section 8.1 (Damages Waiver)"."""
_BARE_ITEM = re.compile(
    rf"(?P<num>\d{{1,3}}[a-z]?)(?P<letter>[A-Z](?![A-Za-z]))?(?![\w.]\d|{_S}?\d)"
    rf"(?P<parens>(?:{PAREN})*)"
)
"""A bare item; a capital run into its number is its lettered point ("paragraph 3H")."""

#: Parts below a block, by the word that names them (their depths: :data:`SUB_LEVELS`).
_SUB = re.compile(
    r"(?<![\w-])(?:(?P<point>points?|letters?)|(?P<paragraph>paragraphs?|paras?\.?)"
    r"|(?P<subsection>subsections?|subsecs?\.?)|(?P<subparagraph>subparagraphs?)"
    r"|(?P<clause>clauses?))" + _S + r"*(?=[(\d])",
    re.IGNORECASE,
)
#: Kinds whose items may be bare numbers ("paragraph 3", "point 3 of Annex I").
_BARE_KINDS = frozenset({"paragraph", "point"})
_ORDINALS = r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|final"
_TRANSPARENT = re.compile(
    rf"(?<![\w-])(?:the{_S}+)?(?:(?:{_ORDINALS})(?:{_S}*,|{_S}+and|{_S}+or)?{_S}+)+"
    r"(?:subparagraphs?|sentences?|indents?)\b",
    re.IGNORECASE,
)
_THIS = re.compile(
    r"(?<![\w-])this" + _S + r"+(?:(?P<kind>article|section|chapter|title|part|annex|schedule"
    r"|appendix|rule)\b(?!" + _S + r"+\d)|(?P<sub>paragraph|point|subsection|subparagraph"
    r"|clause)\b(?!" + _S + r"*\())",
    re.IGNORECASE,
)
"""The current part: "this Article", "this paragraph"; not "this paragraph (d)(3)", US rules'
words for "paragraph (d)(3) of this section", read as that sub with "this" a lead-in, nor
"this Section 5", a contract's words for Section 5 read as such."""
_OF = re.compile(rf"{_S}+of{_S}+(?:the{_S}+)?", re.IGNORECASE)
_PLURAL_BLOCK = re.compile(
    r"(?<![\w-])(?P<kind>chapters|titles|parts|annexes|appendices|schedules|clauses|rules"
    r"|recitals|subparts|divisions|exhibits|subtitles)" + _S + r"+(?=\d|[IVXLCDM]+\b)",
    re.IGNORECASE,
)
_PLURAL_WORD = re.compile(r"§§|(?:articles|arts|sections|secs)\b", re.IGNORECASE)
_HEADING_LINE = re.compile(r"[ \t]*#{1,6}[ \t]+")
_RULE_PATH_PREFIX = re.compile(r"[ \t]*(?:(?:[A-Za-z]+ )?[0-9A-Z][0-9A-Za-z]*\.)*")
_RULE_PATH_TAIL = re.compile(r"\.[0-9A-Za-z(]")
_HEADING_TAIL = re.compile(
    r"[ \t]*(?:[-–—:.][ \t]+\S|[-–—:.]?[ \t]*\n)|\.(?:\([0-9A-Za-z]{1,6}\))+\.?\t"
)
"""What follows the number of a heading: a title after a dash, colon or full stop, the end
of the line, or a paragraph's number and a tab ("Part 6.50.(1)<TAB>The Regulator ...")."""

_ACT = re.compile(
    r"(?<![\w-])(?:(?:Council|Commission)\s+)?(?:(?:Framework|Implementing|Delegated)\s+)?"
    r"(?P<kind>Regulation|Directive|Decision|Recommendation)\s+"
    r"(?:\((?:EU|EC|EEC|EU,\s*Euratom|EC,\s*Euratom|Euratom)\)\s+)?(?:No\.?\s+)?"
    r"\d{1,4}/\d{1,4}(?:/(?:EU|EC|EEC|JHA|CFSP|Euratom))?"
    r"|(?<![\w-])(?P<usc>\d+\s+U\.?\s?S\.?\s?C\.?(?:\s+§+)?\s+\d+[\w\-]*(?:\([0-9A-Za-z]+\))*)"
    r"|(?<![\w-])(?P<pl>(?:Public\s+Law|Pub\.\s*L\.)\s+(?:No\.\s+)?\d+[-–]\d+)"
)
_INTERNAL_AFTER = re.compile(
    rf",?{_S}+of{_S}+(?:(?:this|the{_S}+present){_S}+[A-Za-z]+"
    rf"|the{_S}+(?:Agreement|Contract)\b(?!{_S}+(?:on|of|between|for)\b))",
    re.IGNORECASE,
)
_EXTERNAL_AFTER = re.compile(
    rf",?{_S}+of{_S}+(?:(?:the|that|those|such|said|its){_S}+)?(?=[A-Z])"
    r"(?P<name>[\w’'\-]+)"
    rf"|{_S}+(?:TFEU|TEU|TEC|ECHR|EEA)\b"
    rf"|,?{_S}+(?:United{_S}+States{_S}+Code|U\.S\.C\.)",
)
_COORDINATION = re.compile(rf"{_S}*(?:,{_S}*)?(?:(?P<word>and|or){_S}+)?(?:in{_S}+)?")


# --------------------------------------------------------------------------- elements


@dataclass(frozen=True)
class _Element:
    """One link of a chain: a block, a sub, a transparent element or "this X"."""

    role: str  # "block" | "sub" | "transparent" | "this"
    kind: str
    items: tuple[tuple[str, ...], ...]
    start: int
    end: int


def _range_values(first: str, last: str) -> list[str] | None:
    """The values from first to last: 15..22, a..h, i..iv (None if not a range)."""
    if first.isdigit() and last.isdigit():
        low, high = int(first), int(last)
        return [str(n) for n in range(low, high + 1)] if low <= high else None
    low_roman, high_roman = roman_to_int(first), roman_to_int(last)
    roman_like = first.lower() == "i" or len(first) > 1 or len(last) > 1
    if low_roman and high_roman and roman_like and low_roman <= high_roman:
        numerals = [int_to_roman(n) for n in range(low_roman, high_roman + 1)]
        return [n.lower() for n in numerals] if first.islower() else numerals
    letters = len(first) == len(last) == 1 and first.isalpha() and last.isalpha()
    if letters and first.islower() == last.islower() and first <= last:
        return [chr(c) for c in range(ord(first), ord(last) + 1)]
    return None


def _expand(first: tuple[str, ...], last: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Items strictly after ``first`` up to ``last``; just ``last`` when not expandable. A
    shorter ``last`` is completed from ``first`` (:func:`_aligned`): "(p)(1)(i) through
    (iv)" runs from (p)(1)(i) to (p)(1)(iv)."""
    last = _aligned(first, last)
    if len(first) == len(last) and first[:-1] == last[:-1]:
        values = _range_values(first[-1], last[-1])
        if values is not None and len(values) <= MAX_RANGE:
            return [(*first[:-1], value) for value in values[1:]]
    return [last]


def _block_item(text: str, pos: int, kind: str, prev: Parts) -> tuple[Parts, int]:
    """The next item of a block list: a new number ("34") or parentheses ("(4)")."""
    match = _PAREN_ITEM.match(text, pos)
    if match:
        parens = tuple(paren_parts(match["parens"]))
        if len(prev) > len(parens):
            aligned = _aligned(prev, parens)
            if aligned == parens:  # numbered like no part before: as deep as written
                aligned = (*prev[: len(prev) - len(parens)], *parens)
            return aligned, match.end()
        return (), pos
    match = _BLOCK_ITEM.match(text, pos)
    if not match or (match["num"].isalpha() and kind not in ROMAN_KINDS):
        return (), pos
    label = parse_heading(f"{kind} {match['num']}{match['parens']}")
    if label is None or label.kind != kind:
        return (), pos
    if match["letter"]:
        return (*label.parts, match["letter"], *paren_parts(match["parens"])), match.end()
    return label.parts, match.end()


def _numeral_styles(part: str) -> set[str]:
    """How a part is numbered: "3" digit, "b" letter, "ii" roman, "B" capital; a lone
    "v" or "x" may be a letter or a roman numeral, a lone "i" is taken as roman."""
    if part.isdigit():
        return {"digit"}
    if part.isupper():
        return {"capital"}
    if re.fullmatch(r"[ivxlc]+", part) and (len(part) > 1 or part == "i"):
        return {"roman"}
    return {"letter", "roman"} if part in ("v", "x") else {"letter"}


def _aligned(prev: Parts, parts: Parts) -> Parts:
    """A list item shorter than the one before, completed from it where its first part is
    numbered as a part of the one before: at the same depth from the end first, else the
    deepest such part. "(e)(3)(ii)(A) and (B)" names (e)(3)(ii)(B), "(c)(2)(iv), (vi) and
    (ix)(A)" (c)(2)(ix)(A), "§ 1013.2(e)(1) and (h)" § 1013.2(h); "(a)(1) and (b)" names
    (b)."""
    if not parts or len(parts) >= len(prev):
        return parts
    same_depth = len(prev) - len(parts)
    for depth in (same_depth, *range(len(prev) - 1, 0, -1)):
        if _numbered_alike(parts[0], prev[depth]):
            return (*prev[:depth], *parts)
    return parts


def _numbered_alike(part: str, before: str) -> bool:
    """Whether ``part`` may be a sibling of ``before`` that a list names after it: numbered
    in the same style; a letter after "i" only when it comes later in the alphabet ("(h),
    (i)(1), (j)": the letter i; "(a)(1)(i) and (b)": the numeral i, then (b))."""
    if _numeral_styles(part) & _numeral_styles(before):
        return True
    return before == "i" and len(part) == 1 and part.islower() and part > "i"


def _sub_item(text: str, pos: int, kind: str) -> tuple[tuple[str, ...], int]:
    """One item of a sub: "(a)", "(a)(i)", "3", "3(a)"."""
    match = _PAREN_ITEM.match(text, pos)
    if match:
        return tuple(paren_parts(match["parens"])), match.end()
    match = _BARE_ITEM.match(text, pos) if kind in _BARE_KINDS else None
    if match:
        letter = (match["letter"],) if match["letter"] else ()
        return (match["num"], *letter, *paren_parts(match["parens"])), match.end()
    return (), pos


def _list(
    text: str,
    pos: int,
    first: Parts,
    item: Callable[[str, int, Parts], tuple[Parts, int]],
    plural: bool,
) -> tuple[list[Parts], int]:
    """Items of a list or range after its first item: ", (b) and (c)", " to 22 and 34"; an
    item may be followed by its title in parentheses ("8.1 (Damages Waiver) and 8.2")."""
    items = [first]
    while True:
        titled = _ITEM_TITLE.match(text, pos)
        sep = _SEP.match(text, titled.end() if titled else pos)
        if not sep or (sep["dash"] and not plural):
            return items, pos
        parts, end = item(text, sep.end(), items[-1])
        if not parts:
            return items, pos
        word = (sep["w1"] or sep["w2"] or "").lower()
        if word in ("to", "through") or sep["dash"]:
            items.extend(_expand(items[-1], parts))
        else:
            items.append(parts)
        pos = end


def _is_heading_label(text: str, start: int, end: int) -> bool:
    """True for the number that opens a heading ("### Article 6 - ...", "SEC. 2. TITLE."),
    not for a citation that a wrapped line of running text begins with ("as described
    in\n   Section 5.7.2." continues the sentence of the line before)."""
    line_start = text.rfind("\n", 0, start) + 1
    prefix = text[line_start:start]
    if _HEADING_LINE.fullmatch(prefix) or _in_rule_path(text, prefix, end):
        return True
    if prefix.strip() or _continues_sentence(text, line_start):
        return False
    return _HEADING_TAIL.match(text, end) is not None


def _in_rule_path(text: str, prefix: str, end: int) -> bool:
    """Whether a citation is part of the number that opens a rulebook's line: "Part
    6.Chapter 1.61.(5)<TAB>", "Schedule 1.Part 2.Chapter 14.67.(1)", "PART
    5.12.3.9.Guidance.1": the line begins with it (or with parts ending in a full stop) and
    the number goes on after it with no space ("." and a letter, digit or bracket)."""
    if not _RULE_PATH_PREFIX.fullmatch(prefix):
        return False
    return _RULE_PATH_TAIL.match(text, end) is not None or bool(prefix.strip())


def _continues_sentence(text: str, line_start: int) -> bool:
    """Whether the line at ``line_start`` goes on with the sentence of the line before it:
    a line of running text (:data:`RUNNING_LINE` characters or more) that ends with a
    lower-case word, or a line that ends with a comma or an opening bracket."""
    if line_start == 0:
        return False
    previous = text[text.rfind("\n", 0, line_start - 1) + 1 : line_start - 1].rstrip(" \t\r")
    if not previous.strip():
        return False
    if previous[-1] in ",(":
        return True
    return previous[-1].islower() and len(previous.strip()) >= RUNNING_LINE


def _blocks(text: str) -> dict[int, _Element]:
    """Block citations by start offset, with their lists and ranges."""
    blocks: dict[int, _Element] = {}
    for citation in find_citations(text):
        kind, start, end = citation.label.kind, citation.start, citation.end
        inside_word = start > 0 and (text[start - 1].isalnum() or text[start - 1] in "-_")
        if kind == "paragraph" or inside_word or _is_heading_label(text, start, end):
            continue
        plural = _PLURAL_WORD.match(citation.text) is not None
        parts = citation.label.parts
        if not citation.label.parts[-1].isalpha() and (point := _POINT_TAIL.match(text, end)):
            parts, end = (*parts, point["letter"]), point.end()
        blocks[start] = _block_element(text, kind, parts, start, end, plural)
    for match in _SEE_NUMBER.finditer(text):
        parts, start = tuple(match["num"].split(".")), match.start()
        if start not in blocks:
            blocks[start] = _Element("block", "section", (parts,), start, match.end())
    for match in _PLURAL_BLOCK.finditer(text):
        kind = _singular(match["kind"])
        parts, end = _block_item(text, match.end(), kind, ())
        if parts and match.start() not in blocks:
            blocks[match.start()] = _block_element(text, kind, parts, match.start(), end, True)
    return blocks


def _singular(word: str) -> str:
    word = word.lower()
    return {"annexes": "annex", "appendices": "appendix"}.get(word, word[:-1])


def _block_element(
    text: str, kind: str, parts: tuple[str, ...], start: int, end: int, plural: bool
) -> _Element:
    def item(text: str, pos: int, prev: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
        return _block_item(text, pos, kind, prev)

    items, end = _list(text, end, parts, item, plural)
    return _Element("block", kind, tuple(items), start, end)


def _element(text: str, pos: int, blocks: dict[int, _Element]) -> _Element | None:
    """The chain element that starts at ``pos``, if any."""
    if pos in blocks:
        return blocks[pos]
    match = _TRANSPARENT.match(text, pos)
    if match:
        return _Element("transparent", "paragraph", (), pos, match.end())
    match = _THIS.match(text, pos)
    if match:
        return _Element("this", (match["kind"] or match["sub"]).lower(), (), pos, match.end())
    match = _SUB.match(text, pos)
    if not match:
        return None
    kind = next(name for name in SUB_LEVELS if match[name])
    first, end = _sub_item(text, match.end(), kind)
    if not first:
        return None

    def item(text: str, pos: int, prev: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
        parts, end = _sub_item(text, pos, kind)
        return _aligned(prev, parts), end

    items, end = _list(text, end, first, item, match[kind].lower().endswith("s"))
    return _Element("sub", kind, tuple(items), pos, end)


def _chain(text: str, start: int, blocks: dict[int, _Element]) -> list[_Element]:
    """Elements joined by "of" from ``start``: subs, then at most one anchor, then nesting."""
    chain: list[_Element] = []
    pos = start
    while True:
        element = _element(text, pos, blocks)
        if element is None or not _fits(chain, element):
            return chain
        chain.append(element)
        if element.role == "this":
            return chain
        link = _OF.match(text, element.end)
        if not link:
            return chain
        pos = link.end()


def _fits(chain: list[_Element], element: _Element) -> bool:
    """Subs and transparent links go before the anchor; only blocks nest after a block."""
    if not chain:
        return True
    if chain[-1].role == "block":
        return element.role == "block" and len(element.items) == 1
    return True


# --------------------------------------------------------------------------- references


def find_references(text: str) -> list[FoundReference]:
    """Every cross-reference in ``text``, in reading order (see the module docstring)."""
    blocks = _blocks(text)
    starts = sorted({*blocks, *_sub_starts(text)})
    found: list[FoundReference] = []
    spans: list[tuple[int, int, bool, str, bool]] = []  # start, end, external, kind, qualified
    consumed = 0
    for start in starts:
        if start < consumed:
            continue
        chain = _chain(text, start, blocks)
        if not chain or all(e.role == "transparent" for e in chain):
            continue
        end, external, qualified = _qualifier(text, chain[-1].end)
        if not external and _named_before(text, start):
            external = qualified = True
        refs = _references(text, chain, start, end, external)
        if refs:
            found.extend(refs)
            spans.append((start, end, external, _anchor_kind(chain), qualified))
            consumed = end
    found.extend(_acts(text, [(s, e) for s, e, *_ in spans]))
    found.extend(_page_links(text, [(s, e) for s, e, *_ in spans]))
    found.sort(key=lambda ref: (ref.start, ref.end))
    return _coordinate(text, found, spans)


_NAME_BEFORE = re.compile(r"(?<![\w\-/.])(?P<name>[A-Z]{2,6})[ \t]+$")
_NOT_NAMES = frozenset(
    {"SEC", "ART", "PART", "THE", "AND", "OR", "OF", "IN", "TO", "SEE", "BY", "UNDER", "WITH"}
    | {"CFR"}  # a rule cites its own parts so: "12 CFR 1010.4", "14 CFR part 39"
)


def _named_before(text: str, start: int) -> bool:
    """Whether a citation written in running text ("Rule 2.4.1", not "RULE 2.4.1") follows
    the short name of another text: "COBS Rule 2.4.1", "FSMR Section 3" cite a rule of
    another rulebook. Roman numerals and words of all-capital sentences are no names."""
    if not (text[start : start + 2].istitle() or text[start].islower()):
        return False
    match = _NAME_BEFORE.search(text, max(0, start - 12), start)
    if not match or match["name"] in _NOT_NAMES:
        return False
    return not re.fullmatch(r"[IVXLCDM]+", match["name"])


def _sub_starts(text: str) -> Iterator[int]:
    for pattern in (_SUB, _TRANSPARENT, _THIS):
        for match in pattern.finditer(text):
            yield match.start()


def _anchor_kind(chain: list[_Element]) -> str:
    block = next((e for e in chain if e.role == "block"), None)
    return block.kind if block else "sub"


def _qualifier(text: str, end: int) -> tuple[int, bool, bool]:
    """Where a reference ends once "of this Act" / "of the Treaty" is read; external? qualified?"""
    match = _INTERNAL_AFTER.match(text, end)
    if match:
        return match.end(), False, True
    match = _EXTERNAL_AFTER.match(text, end)
    if match:
        act = _ACT.match(text, match.start("name")) if match["name"] else None
        return (act.end() if act else match.end()), True, True
    return end, False, False


def _references(
    text: str, chain: list[_Element], start: int, end: int, external: bool
) -> list[FoundReference]:
    """One reference per target of a chain."""
    subs = [e for e in chain if e.role in ("sub", "transparent")]
    anchors = [e for e in chain if e.role in ("block", "this")]
    written = text[start:end]
    named = [e for e in chain if e.role != "transparent"]
    kind = named[0].kind if named else "paragraph"
    # Parts below the anchor, outermost first: the reverse of the written order.
    below = [e.items for e in reversed(subs) if e.items]
    refs: list[FoundReference] = []
    for combination in product(*below) if below else [()]:
        parts = tuple(p for item in combination for p in item)
        for ids, relative in _targets(anchors, parts):
            refs.append(
                FoundReference(
                    text=written,
                    start=start,
                    end=end,
                    kind=kind,
                    candidate_ids=() if external else ids,
                    relative=() if external else relative,
                    external=external,
                )
            )
    return refs[: MAX_RANGE * 4]


def _targets(
    anchors: list[_Element], parts: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(candidate ids, relative parts) for each target below the anchor."""
    if not anchors or anchors[0].role == "this":
        yield (), parts
        return
    block, *outer = anchors
    prefix = "-".join(_outer_id(e) for e in reversed(outer))
    for item in block.items:
        ids = Label(block.kind, (*item, *parts)).candidate_ids()
        if prefix:
            ids = [f"{prefix}-{i}" for i in ids] + ids + [_outer_id(outer[-1])]
        yield tuple(dict.fromkeys(ids)), ()


def _outer_id(element: _Element) -> str:
    return Label(element.kind, element.items[0]).section_id()


def _acts(text: str, spans: list[tuple[int, int]]) -> list[FoundReference]:
    """Citations of whole acts outside the spans of section references."""
    refs = []
    for match in _ACT.finditer(text):
        if any(s <= match.start() < e for s, e in spans):
            continue
        kind = "usc" if match["usc"] else "public-law" if match["pl"] else match["kind"].lower()
        refs.append(FoundReference(match[0], match.start(), match.end(), kind, (), (), True))
    return refs


_PAGE_LINK = re.compile(
    r"(?<!!)\[(?P<words>[^\[\]\n]+(?:\n[^\[\]\n]+)?)\]\(#(?P<anchor>[^\s()#]+)\)"
)
"""A Markdown link within the page: "[Noncompete](#noncompete)"."""


def _page_links(text: str, spans: list[tuple[int, int]]) -> list[FoundReference]:
    """Links within the page to a heading's anchor ("[Noncompete](#noncompete)", and an
    HTML page's ``<a href="#voting-process">``, written so in Markdown): references to the
    section whose id the anchor is, as a site generator slugs the heading. The reference's
    text is the link's words. Links inside a reference found by its number are left out."""
    refs = []
    for match in _PAGE_LINK.finditer(text):
        if any(s < match.end() and match.start() < e for s, e in spans):
            continue
        anchor = match["anchor"].lower()
        ids = tuple(dict.fromkeys((anchor, slugify(anchor))))
        start, end = match.start(), match.end()
        refs.append(FoundReference(match["words"], start, end, "link", ids, (), False))
    return refs


def _coordinate(
    text: str, refs: list[FoundReference], spans: list[tuple[int, int, bool, str, bool]]
) -> list[FoundReference]:
    """Mark external the citations coordinated with a following external one.

    In "Article 25(6) or Article 26(4) of Directive 95/46/EC" the qualifier
    belongs to both citations, but is written once, after the last. The last
    link must be "and"/"or"; commas may join earlier ones ("X, Y or Z of ...").
    """
    propagated: set[tuple[int, int]] = set()
    following: tuple[int, bool, str, bool] | None = None  # start, external, kind, propagated
    for start, end, external, kind, qualified in reversed(spans):
        if not qualified and following is not None and following[1] and following[2] == kind:
            gap = _COORDINATION.fullmatch(text, end, following[0])
            if gap and kind != "sub" and (gap["word"] or following[3]):
                external = True
                propagated.add((start, end))
        following = (start, external, kind, (start, end) in propagated)
    if not propagated:
        return refs
    return [
        FoundReference(r.text, r.start, r.end, r.kind, (), (), True)
        if (r.start, r.end) in propagated
        else r
        for r in refs
    ]
