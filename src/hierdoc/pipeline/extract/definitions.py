"""Defined terms in formal documents.

Four styles are recognised:

- ``means``: ``"X" means Y``, ``The term 'X' or 'Y' means Y``, ``'X' shall mean``, ``is
  defined as``, ``refers to``, ``includes``, ``has the meaning ...``; in a definitions
  section also an unquoted term opening a numbered item (``(3) Controller means ...``);
- ``parenthetical``: ``the Receiving Party (the "Recipient")``, ``(hereinafter "the
  Agreement")``, ``(‘data subject’)``;
- ``glossary``: ``Term: definition`` / ``Term — definition`` lines, only in a definitions
  section (elsewhere "Note: ..." lines would be noise);
- ``table``: Markdown ``| Term | Definition |`` rows, in a definitions section or under a
  header that names a term and a definition/meaning column.

Where an item or paragraph ends, and the cells of a table, are read by :mod:`.layout`.
Everything here is a pure function over text; offsets index the input string. Terms and
definitions are returned with whitespace collapsed (PDF text wraps lines mid-term).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from .layout import MARKER, item_end, item_start, paragraph_end, tables

MAX_TERM_WORDS = 8
MAX_GLOSSARY_WORDS = 6

_OPEN_Q = r"(?:``|\*\*|(?<![\w`'’])[\"'‘“])"
_CLOSE_Q = r"(?:''|\*\*|[\"'’”](?![\w]))"
# A character of a quoted term: no quote, but an apostrophe inside a word ("Lender’s")
# and a single line break (wrapped PDF lines) are allowed.
_TERM_CHAR = r"(?:[^\"'‘’“”`*\n]|['’](?=\w)|\n(?![ \t]*\n))"
_QTERM = _OPEN_Q + r"(?P<term>" + _TERM_CHAR + r"{1,120}?)" + _CLOSE_Q
_QTERM_ANON = _OPEN_Q + _TERM_CHAR + r"{1,120}?" + _CLOSE_Q
_ALIAS = re.compile(_OPEN_Q + r"(?P<term>" + _TERM_CHAR + r"{1,120}?)" + _CLOSE_Q)

_VERBS = (
    r"(?:shall\s+mean|means|mean|(?:is|are|shall\s+be)\s+defined\s+(?:as|to\s+mean)"
    r"|(?:shall\s+)?refers?\s+to|shall\s+include|includes|include"
    r"|(?:has|have|shall\s+have)(?=\s+the\s+meanings?\b))"
)
_MEANS = re.compile(
    r"(?P<lead>\b(?i:the\s+)?(?i:terms?|expressions?|words?|phrases?)\s+)?"
    + _QTERM
    + r"(?P<aliases>(?:\s*,?\s*(?:or|and|and/or)\s+"
    + _QTERM_ANON
    + r")*)"
    # a short qualifier: "‘consent’ of the data subject means", "“Affiliate”, as used herein,"
    + r"(?:\s*,?\s+(?:as\s+used|when\s+used|used|of|in|for)\b[^\"'‘’“”,;:.()\n]{0,60}?,?)?"
    + r"\s*,?\s+(?P<verb>"
    + _VERBS
    + r")\b[ \t]*[:,—–]?"
)

_PAREN = re.compile(
    r"\(\s*(?:(?i:hereinafter|collectively|together|jointly|each|both)\b\s*,?\s*)?"
    r"(?:(?i:referred\s+to\s+as|called)\s+)?(?:(?i:the|a|an)\s+)?" + _QTERM + r"\s*\)"
)

_UNQUOTED = re.compile(
    r"^(?P<prefix>" + MARKER.pattern + r"[ \t]+)"
    r"(?P<term>[A-Za-z][\w\-/&]*(?:['’]s)?(?:[ \t]+\w[\w\-/&]*(?:['’]s)?){0,5}?)"
    r"[ \t]+(?P<verb>" + _VERBS + r")\b"
    r"[ \t]*[:,—–]?",
    re.MULTILINE,
)
_GLOSSARY = re.compile(
    r"^(?P<prefix>(?:" + MARKER.pattern + r"[ \t]+)?[ \t]*(?:\*\*|__)?[\"'‘“]?)"
    r"(?P<term>[A-Za-z][^:\n—–|*.,;\"'‘’“”]{0,60}?)[\"'’”]?(?:\*\*|__)?"
    r"[ \t]*(?::|—|–|[ \t]-[ \t])[ \t]*(?:\*\*|__)?[ \t]*(?P<def>\S)",
    re.MULTILINE,
)


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_GLOSSARY_MEANS = re.compile(r"(?:shall\s+mean|means)\s+")
_SENTENCE_END = re.compile(r"[.!?][\"”’)]*(?=\s+[A-Z\"“‘(]|\s*$)")
_TRAILING = re.compile(r"(?:\s*[;,]\s*(?:and|or))?\s*[;,]?\s*$")
_DETERMINERS = _word_set("the a an this these those its their his her each any such our your every")
_PRONOUNS = _word_set("this that it which such there these those he she they what who each any all")
_CONNECTORS = _word_set("of the and & for de on")
_VERB_WORDS = _word_set("is are was were be shall will must may can should would")
_NOT_GLOSSARY = _word_set(
    "note notes example examples e.g see source nb important warning tip caution"
)
# labels of signature blocks and forms ("By: ____", "Name: ...") are not defined terms
_FORM_LABELS = frozenset(
    _word_set("by name title date signature sign signed its email e-mail telephone tel phone")
    | _word_set("fax facsimile address attention attn witness dated per ref page company")
    | {"print name", "full name", "signed by", "registered office"}
)
_STRUCTURAL = re.compile(
    r"(?i)^(?:article|section|sec|chapter|part|title|schedule|annex|clause|appendix|exhibit)"
    r"\b\.?\s*[\dIVXLC]"
)
_TERM_HEADERS = frozenset(
    {"term", "terms", "defined term", "word", "expression", "abbreviation", "acronym"}
)
_DEF_HEADERS = frozenset(
    {"definition", "definitions", "meaning", "description", "explanation", "means"}
)
_DEF_HEADING = re.compile(
    r"^(?:(?:certain|general|key|other|common)\s+)?"
    r"(?:definitions?|glossary(?:\s+of\s+terms)?|(?:defined\s+)?terms|interpretation"
    r"|abbreviations|acronyms|meaning\s+of\s+terms|terms\s+used)"
    r"(?:\s*(?:and|&|;|,)\s*(?:rules\s+of\s+)?"
    r"(?:interpretation|definitions?|abbreviations|acronyms|construction))?$"
)
_HEADING_NUMBER = re.compile(
    r"^(?:#+\s*)?(?:(?:section|sec|article|art|chapter|ch|part|clause|schedule|annex|appendix"
    r"|title|rule|§+)\.?\s*)?(?:\d+[a-z]?(?:[.\-]\d+)*|[ivxlc]+|[a-z])?(?=[\s.:)\-–—]|$)"
    r"[\s.:)\-–—]*"
)


@dataclass(frozen=True)
class FoundDefinition:
    """A defined term and its definition, with character offsets into the input text."""

    term: str
    definition: str
    start: int
    end: int
    style: str


def is_definitions_heading(heading: str) -> bool:
    """Whether a heading names a definitions section, ignoring numbering and case."""
    text = " ".join(heading.casefold().split())
    text = _HEADING_NUMBER.sub("", text, count=1).strip(" .:;-–—")
    return bool(_DEF_HEADING.match(text))


def normalize_term(term: str) -> str:
    """A lookup key: casefolded, quotes dropped, hyphens and whitespace unified.

    Hyphens count as spaces, so "cross-border processing" finds "cross border processing".
    """
    text = unicodedata.normalize("NFKC", term).casefold()
    text = text.replace("’", "'").replace("‘", "'").replace("`", "'")
    text = re.sub(r"[\u2010-\u2015\u2212\-]+", " ", text)
    text = text.strip().strip("\"'“”*").strip()
    text = text.rstrip(".,;:")
    return " ".join(text.split())


def find_definitions(text: str, in_definitions_section: bool = False) -> list[FoundDefinition]:
    """All definitions in ``text``, in text order, without duplicates."""
    means = list(_means_definitions(text, in_definitions_section))
    spans = [(span_start, found.end) for span_start, found in means]
    found = [item for _, item in means]
    found += _parenthetical_definitions(text)
    if in_definitions_section:
        extra = list(_glossary_definitions(text)) + list(_table_definitions(text, True))
    else:
        extra = list(_table_definitions(text, False))
    found += [item for item in extra if not _overlaps(item, spans)]
    return _dedupe(found)


def _overlaps(item: FoundDefinition, spans: list[tuple[int, int]]) -> bool:
    return any(start < item.end and item.start < end for start, end in spans)


def _dedupe(found: list[FoundDefinition]) -> list[FoundDefinition]:
    seen: set[tuple[str, int]] = set()
    result = []
    for item in sorted(found, key=lambda f: (f.start, f.end)):
        key = (normalize_term(item.term), item.start)
        if key not in seen:
            seen.add(key)
            result.append(item)
    return result


# --- "X" means Y -------------------------------------------------------------------------


def _means_definitions(text: str, in_section: bool) -> Iterator[tuple[int, FoundDefinition]]:
    """Means-style definitions, each with the start of its whole match (for overlap tests)."""
    matches = _quoted_means(text)
    if in_section:
        quoted = [(start, _definition_end(text, terms[0][1], end)) for start, end, terms in matches]
        for match in _UNQUOTED.finditer(text):
            overlap = any(a < match.end() and match.start() < b for a, b in quoted)
            if _valid_unquoted(match.group("term")) and not overlap:
                terms = [(match.group("term"), match.start("term"))]
                matches.append((match.start("term"), match.end(), terms))
        matches.sort()
    for index, (start, def_start, terms) in enumerate(matches):
        limit = matches[index + 1][0] if index + 1 < len(matches) else len(text)
        end = min(_definition_end(text, terms[0][1], def_start), limit)
        definition, end = _clean_definition(text, def_start, end)
        # an empty definition is kept: "16. ‘main establishment’ means:" whose points were
        # split off into sections of their own still defines the term
        for term, term_start in terms:
            term = _collapse(term)
            if _valid_term(term):
                yield start, FoundDefinition(term, definition, term_start, end, "means")


def _quoted_means(text: str) -> list[tuple[int, int, list[tuple[str, int]]]]:
    """(match start, definition start, [(term, term offset)]) for each quoted match."""
    matches = []
    for match in _MEANS.finditer(text):
        terms = [(match.group("term"), match.start("term"))]
        for alias in _ALIAS.finditer(match.group("aliases")):
            terms.append((alias.group("term"), match.start("aliases") + alias.start("term")))
        matches.append((match.start(), match.end(), terms))
    return matches


def _valid_term(term: str) -> bool:
    words = term.split()
    return 0 < len(words) <= MAX_TERM_WORDS and term[0].isalnum() and not term.endswith(".")


def _valid_unquoted(term: str) -> bool:
    words = term.casefold().split()
    return words[0] not in _PRONOUNS and not _VERB_WORDS.intersection(words)


def _definition_end(text: str, term_start: int, def_start: int) -> int:
    """End of the numbered item holding the term, else of its paragraph or sentence."""
    line_start = text.rfind("\n", 0, term_start) + 1
    item = item_start(text, line_start)
    if item is not None:
        return item_end(text, def_start, item)
    end = paragraph_end(text, def_start)
    blank = text.rfind("\n\n", 0, term_start)
    paragraph_start = blank + 2 if blank >= 0 else 0
    lead = text[paragraph_start:term_start]
    if re.fullmatch(r"[\s\"'‘“`*]*(?i:the\s+terms?\s*)?[\"'‘“`*]*", lead):
        return end
    sentence = _SENTENCE_END.search(text, def_start, end)
    return sentence.end() if sentence else end


def _clean_definition(text: str, start: int, end: int) -> tuple[str, int]:
    """Strip the span and drop a trailing "; and" / ";" / "." (an item separator)."""
    raw = _trim(text[start:end])
    return _collapse(raw), start + len(raw)


def _trim(raw: str) -> str:
    raw = raw[: _TRAILING.search(raw).start()]
    if raw.endswith(".") and re.search(r"[a-z0-9)]\.$", raw):
        raw = raw[:-1]
    return raw


def _collapse(value: str) -> str:
    return " ".join(value.split())


# --- the Receiving Party (the "Recipient") -------------------------------------------------


def _parenthetical_definitions(text: str) -> Iterator[FoundDefinition]:
    for match in _PAREN.finditer(text):
        term, term_start = match.group("term"), match.start("term")
        article = re.match(r"(?i)(?:the|a|an)\s+", term)
        if article:
            term, term_start = term[article.end() :], term_start + article.end()
        term = _collapse(term)
        phrase = _named_phrase(text, match.start())
        if phrase and _valid_term(term):
            yield FoundDefinition(term, phrase, term_start, match.end(), "parenthetical")


def _named_phrase(text: str, paren: int) -> str:
    """The noun phrase a parenthetical names, within the clause before it.

    A trailing run of capitalised words wins when it has its own determiner ("the Charter
    of Fundamental Rights of the European Union") or the clause has none ("Northwind
    Holdings Limited"); otherwise the phrase from the clause's last determiner ("an
    identified or identifiable natural person", not "Scotland" in "a company registered
    in Scotland").
    """
    window = text[max(0, paren - 400) : paren]
    clause_start = 0
    for boundary in re.finditer(r"[,;:()\[\]]|\n\s*\n|[.!?]\s+(?=[A-Z\"“‘(])", window):
        clause_start = boundary.end()
    words = window[clause_start:].split()
    if words and words[0].casefold() in {"a", "an"} and window[:clause_start].endswith(","):
        # an appositive: "Harbourline Analytics Ltd, a company registered in Scotland"
        previous = window[: clause_start - 1]
        cut = max(previous.rfind(c) for c in ",;:()[]\n")
        earlier = previous[cut + 1 :].split()
        run = _capitalised_run(earlier)
        if run:
            return " ".join(earlier[-run:][-12:])
    run = _capitalised_run(words)
    named = run and words[-run].casefold() in _DETERMINERS
    if run and (named or not _DETERMINERS.intersection(w.casefold() for w in words[:-run])):
        return " ".join(words[-run:][-12:])
    for index in range(len(words) - 2, -1, -1):
        if words[index].casefold() in _DETERMINERS:
            return " ".join(words[index:][-12:])
    return ""


def _capitalised_run(words: list[str]) -> int:
    """How many trailing words form a capitalised name, with its determiner if any."""
    size = 0
    for index in range(len(words) - 1, -1, -1):
        word = words[index]
        if word[:1].isupper() and word.casefold() not in _DETERMINERS:
            size = len(words) - index
        elif word.casefold() not in _CONNECTORS:
            break
    if size and size < len(words) and words[-size - 1].casefold() in _DETERMINERS:
        size += 1
    return size


# --- Term: definition ----------------------------------------------------------------------


def _glossary_definitions(text: str) -> Iterator[FoundDefinition]:
    for match in _GLOSSARY.finditer(text):
        term = match.group("term").strip()
        line_start = match.start()
        if not _glossary_term_ok(text, term, line_start, match.group("prefix")):
            continue
        def_start = match.start("def")
        lead = _GLOSSARY_MEANS.match(text, def_start)
        def_start = lead.end() if lead else def_start  # "Control: means ..."
        end = paragraph_end(text, def_start, stop=_GLOSSARY)
        definition, end = _clean_definition(text, def_start, end)
        if re.search(r"[^\W\d_]{2}", definition):  # words, not "________" or "[ ]"
            yield FoundDefinition(_collapse(term), definition, match.start("term"), end, "glossary")


def _glossary_term_ok(text: str, term: str, line_start: int, prefix: str) -> bool:
    """Short, not a label ("Note: ...", "Example 2: ...", "By: ...") nor a heading."""
    words = term.casefold().split()
    if not words or len(words) > MAX_GLOSSARY_WORDS or _STRUCTURAL.match(term):
        return False
    label = words[0] in _NOT_GLOSSARY and (len(words) == 1 or words[1].isdigit())
    if label or _VERB_WORDS.intersection(words) or " ".join(words) in _FORM_LABELS:
        return False
    if term[0].isupper() or prefix.strip():
        return True
    # a lower-case line is a glossary entry only when it opens a paragraph, not when it
    # continues a wrapped sentence
    return line_start == 0 or text[: line_start - 1].endswith("\n")


# --- | Term | Definition | ----------------------------------------------------------------


def _table_definitions(text: str, in_section: bool) -> Iterator[FoundDefinition]:
    for rows in tables(text):
        header = [_collapse(cell).casefold().strip("*_ :") for cell, _ in rows[0]]
        columns = _table_columns(header, in_section)
        if columns is None:
            continue
        term_col, def_col = columns
        for row in rows[1:]:
            if len(row) <= max(term_col, def_col):
                continue
            yield from _table_row(row[term_col], row[def_col])


def _table_columns(header: list[str], in_section: bool) -> tuple[int, int] | None:
    term_col = next((i for i, cell in enumerate(header) if cell in _TERM_HEADERS), None)
    def_col = next((i for i, cell in enumerate(header) if cell in _DEF_HEADERS), None)
    if term_col is not None and def_col is not None:
        return term_col, def_col
    if in_section and len(header) >= 2:
        return 0, 1
    return None


def _table_row(term_cell: tuple[str, int], def_cell: tuple[str, int]) -> Iterator[FoundDefinition]:
    raw_term, term_offset = term_cell
    stripped = raw_term.strip().strip("*_").strip("\"'‘’“”`").strip()
    if not stripped or not def_cell[0] or not stripped[0].isalpha():
        return
    if len(stripped.split()) > MAX_TERM_WORDS:
        return
    start = term_offset + raw_term.find(stripped)
    raw = _trim(def_cell[0])
    yield FoundDefinition(
        _collapse(stripped), _collapse(raw), start, def_cell[1] + len(raw), "table"
    )
