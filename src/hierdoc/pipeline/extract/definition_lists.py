"""Definitions laid out as lists: ``Term: definition`` glossary lines, tables, term headings.

Glossary lines count only in a definitions section (elsewhere "Note: ..." lines would be
noise); a table counts in a definitions section, or anywhere under a header that names a
term column and a definition/meaning column. Also only in a definitions section:

- a two-cell row as the PDF converter writes a table row, without outer bars
  (``Authenticator | Something the claimant possesses ...``), unless it spells out an
  acronym (``CIO | Chief Information Officer`` is an acronym list's, see :mod:`.acronyms`);
- a sub-heading that is only a short term, defined by the paragraph under it (a glossary
  whose terms are set on lines of their own, in bold, which the PDF converter reads as
  headings: ``#### Authenticator`` then ``Something the claimant possesses ...``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .definition_markup import Unmarked
from .definition_text import (
    MAX_TERM_WORDS,
    FoundDefinition,
    clean_definition,
    collapse,
    trim,
    word_set,
)
from .layout import MARKER, item_start, paragraph_end, tables

MAX_GLOSSARY_WORDS = 6

_GLOSSARY = re.compile(
    r"^(?P<prefix>(?:" + MARKER.pattern + r"[ \t]+)?[ \t]*[\"'‘“]?)"
    r"(?P<term>[A-Za-z][^:\n—–|*.,;\"'‘’“”]{0,60}?)[\"'’”]?"
    r"[ \t]*(?::|—|–|[ \t]-[ \t])[ \t]*(?P<def>\S)",
    re.MULTILINE,
)
_GLOSSARY_MEANS = re.compile(r"(?:shall\s+mean|means)\s+")
_VERB_WORDS = word_set("is are was were be shall will must may can should would")
_PRONOUNS = word_set("we you i they he she it this these our your")
_NOT_GLOSSARY = word_set(
    "note notes example examples e.g see source nb important warning tip caution"
)
# labels of signature blocks and forms ("By: ____", "Name: ...") are not defined terms
_FORM_LABELS = (
    word_set("by name title date signature sign signed its email e-mail telephone tel phone")
    | word_set("fax facsimile address attention attn witness dated per ref page company")
    | {"print name", "full name", "signed by", "registered office"}
    | {"short version", "in short", "summary", "tl;dr"}
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


# --- Term: definition ----------------------------------------------------------------------


def glossary_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    text = marked.quoted
    for match in _GLOSSARY.finditer(text):
        term = match.group("term").strip()
        line_start = match.start()
        if not _glossary_term_ok(text, term, line_start, match.group("prefix")):
            continue
        def_start = match.start("def")
        lead = _GLOSSARY_MEANS.match(text, def_start)
        def_start = lead.end() if lead else def_start  # "Control: means ..."
        end = paragraph_end(text, def_start, stop=_GLOSSARY)
        definition, end = clean_definition(marked, def_start, end)
        if _reads_as_definition(definition):
            yield FoundDefinition(collapse(term), definition, match.start("term"), end, "glossary")


def _reads_as_definition(definition: str) -> bool:
    """Words (not "________" or "[ ]"), not a sentence about someone ("We use these ...")."""
    first = definition.split(maxsplit=1)[0].casefold() if definition else ""
    return bool(re.search(r"[^\W\d_]{2}", definition)) and first not in _PRONOUNS


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


def table_definitions(marked: Unmarked, in_section: bool) -> Iterator[FoundDefinition]:
    for rows in tables(marked.quoted):
        header = [collapse(cell).casefold().strip("*_ :") for cell, _ in rows[0]]
        columns = _table_columns(header, in_section)
        if columns is None:
            continue
        term_col, def_col = columns
        for row in rows[1:]:
            if len(row) <= max(term_col, def_col):
                continue
            yield from _table_row(marked, row[term_col], row[def_col])


def _table_columns(header: list[str], in_section: bool) -> tuple[int, int] | None:
    term_col = next((i for i, cell in enumerate(header) if cell in _TERM_HEADERS), None)
    def_col = next((i for i, cell in enumerate(header) if cell in _DEF_HEADERS), None)
    if term_col is not None and def_col is not None:
        return term_col, def_col
    if in_section and len(header) >= 2:
        return 0, 1
    return None


def _table_row(
    marked: Unmarked, term_cell: tuple[str, int], def_cell: tuple[str, int]
) -> Iterator[FoundDefinition]:
    raw_term, term_offset = term_cell
    stripped = raw_term.strip().strip("*_").strip("\"'‘’“”`").strip()
    if not stripped or not def_cell[0] or not stripped[0].isalpha():
        return
    if len(stripped.split()) > MAX_TERM_WORDS:
        return
    start = term_offset + raw_term.find(stripped)
    raw = trim(marked.plain[def_cell[1] : def_cell[1] + len(def_cell[0])])
    yield FoundDefinition(collapse(stripped), collapse(raw), start, def_cell[1] + len(raw), "table")


# --- Term | definition (a PDF table row) ----------------------------------------------------

_BARE_ROW = re.compile(
    r"^[ \t]*(?P<term>[^|\n]{1,80}?)[ \t]+\|[ \t]+(?P<def>[^|\n]*[^|\s][^|\n]*)$", re.MULTILINE
)
_SMALL_WORDS = word_set("of and the for on in to a an at by with from or &")


def bare_row_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """Two-cell rows without outer bars, the PDF converter's table rows."""
    text = marked.quoted
    for match in _BARE_ROW.finditer(text):
        term = match.group("term").strip().strip("\"'‘’“”`").strip()
        definition, end = clean_definition(marked, match.start("def"), match.end("def"))
        if not _row_term_ok(term) or not _reads_as_definition(definition):
            continue
        if not _spelled_out(term, definition):
            start = match.start("term") + match.group("term").find(term)
            yield FoundDefinition(collapse(term), definition, start, end, "table")


def _row_term_ok(term: str) -> bool:
    words = term.split()
    if not words or len(words) > MAX_GLOSSARY_WORDS or not term[0].isalpha():
        return False
    return term.casefold() not in _TERM_HEADERS and not _STRUCTURAL.match(term)


def _spelled_out(term: str, definition: str) -> bool:
    """An acronym's long form: a short name of capitalised words ("Chief Information
    Officer" of "CIO"), not a definition."""
    words = [word for word in definition.split() if word.casefold() not in _SMALL_WORDS]
    upper = not any(char.islower() for char in term) and " " not in term
    return upper and len(words) <= 8 and all(word[:1].isupper() for word in words)


# --- #### Term / its definition --------------------------------------------------------------

_TERM_HEADING = re.compile(r"\A[ \t]*#{1,6}[ \t]+(?P<term>[^\n]+?)[ \t]*\n")
_LABEL = re.compile(r"^(?:[\dIVXLC]+\b|[A-Z][.)]|\(?\w{1,3}\))")


def heading_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """The term a sub-heading names, defined by the first paragraph under it."""
    text = marked.plain
    heading = _TERM_HEADING.match(text)
    if heading is None:
        return
    term = collapse(heading.group("term")).strip("\"'‘’“”`:")
    body = len(text) - len(text[heading.end() :].lstrip())
    if body >= len(text) or not _heading_term_ok(term) or item_start(text, body) is not None:
        return
    definition, end = clean_definition(marked, body, paragraph_end(text, body))
    if _reads_as_definition(definition):
        yield FoundDefinition(term, definition, heading.start("term"), end, "glossary")


def _heading_term_ok(term: str) -> bool:
    """A short name: no number or label ("3.2 Fees", "A. Scope"), no sentence."""
    words = term.split()
    if not words or len(words) > MAX_GLOSSARY_WORDS or not term[0].isalpha():
        return False
    if _LABEL.match(term) or _STRUCTURAL.match(term) or term[-1] in ".;,?!)":
        return False
    return not _VERB_WORDS.intersection(word.casefold() for word in words)
