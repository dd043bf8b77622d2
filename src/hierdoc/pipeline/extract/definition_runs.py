"""Glossaries found by their shape: a run of entries written alike.

A document that defines its terms one per entry keeps one style for all of them: bullet
items "**Term**: text", paragraphs "Term – text", "Term means text", a bold term on a line
of its own with its text on the next, a two-column table of names and texts. Wherever at
least :data:`MIN_RUN` consecutive entries (paragraphs or list items, or the rows of a
table) share one shape, ``TERM SEPARATOR TEXT`` with the same separator, the same setting
of the term (quoted, bold or plain) and the same kind of marker, every entry of the run
defines its term, whatever words the document chose.

Runs that share the shape without defining anything are told apart by their form:

- the texts must read as definitions: most open with an article or a determiner ("A
  person who ...", "Any ..."), in lower case ("software that ..."), or follow "means" /
  "refers to"; a clause ("Payment: fees are due ...", "Customer shall pay ..."), a
  sentence about the reader or the writer ("We collect ..."), a number or a name alone
  ("Licensor: Acme Corp", an address block, a form's fields) does not;
- the terms must be short names (at most :data:`MAX_RUN_TERM_WORDS` words) opening with a
  letter: not a version or a date (a change log), a form's label ("Name", "Address"), a
  note ("Note", "Example"), a part's label ("Section 2"), a code ("PR.PT-3"), nor a
  section's heading ("Scope", "Purpose");
- numbered entries whose term is set off by punctuation are clauses under their headings
  ("1. Payment: ...", "(a) In general.—The Secretary shall ..."), unless the terms are
  quoted; numbered entries defining by a verb ("(i) Commercial user refers to ...") are
  a glossary;
- a plain term opening with an article or a preposition is a sentence's subject ("The
  first 500 bytes: ...", "In the case of ...: ..."), and "is" after a plain term is
  prose ("An HTTP cache is a local store ..."): only a quoted or bold term is defined by
  "is";
- a glossary defines each term once: lines repeating their name ("Content-Disposition:
  attachment; ...", examples of a header) are not one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from .definition_markup import Unmarked
from .definition_text import FoundDefinition, clean_definition, collapse, is_fill_in, word_set
from .layout import BULLET, MARKER, paragraph_end, tables

__all__ = ["MAX_RUN_TERM_WORDS", "MIN_RUN", "glossary_headings", "run_definitions"]

#: Entries of one shape in a row that make a glossary.
MIN_RUN = 3
MAX_RUN_TERM_WORDS = 8
#: A paragraph's first line this short, with no full stop, may be a title over a glossary.
MAX_TITLE_CHARS = 60
#: The share of a run's texts that must open as definitions do, and the share that may not.
MIN_DEFINING_SHARE = 0.5
MAX_OTHER_SHARE = 0.25

# what sets the text off from the term: a colon, a tab, a dash of any width (spaced, or an
# en or em dash alone), a full stop after a bold term, or a verb that says it defines
_PUNCTUATION = re.compile(
    r"[ \t]*(?P<colon>:)[ \t]*|(?P<tab>\t)[ \t]*|[ \t]+(?P<dash>[-–—])[ \t]+|[ \t]*(?P<wide>[–—])"
    r"[ \t]*|(?P<stop>\.)[ \t]+"
)
_VERB = re.compile(
    r"[ \t]+(?:(?P<means>(?:shall\s+|will\s+)?means|shall\s+mean|refers?\s+to"
    r"|(?:is|are)\s+defined\s+as)|(?P<copula>is|are)(?=\s+(?:a|an|the|any|one|all|those|each)\s))"
    r"[ \t]*[:,]?[ \t]*"
)
_PLAIN_TERM = re.compile(
    r"[A-Za-z][\w'’/&()\-. ]{0,80}?"
    r"(?=[ \t]*[:\t]|[ \t]+[-–—][ \t]|[ \t]*[–—]|[ \t]+(?:shall|will|means|refers?|is|are)\s)"
)
# a term in bold, italics or quotes, or quoted inside its emphasis ('**"Term"**', '"**Term**"')
_SET_TERM = re.compile(
    r"(?P<open>\*\*|__|\*|_|[\"“‘'])[\"“‘'*_]*(?P<term>[^*_\"“”‘’\n][^*\"“”‘’\n]{0,99}?)"
    r"[\"”’'*_]*?(?P<close>\*\*|__|\*|_|[\"”’'])"
)
_VERSION = re.compile(r"(?i)v?\d|(?:version|release|rev|revision)\b")
_STRUCTURAL = re.compile(
    r"(?i)(?:article|section|sec|chapter|part|title|schedule|annex|clause|appendix|exhibit"
    r"|step|phase|table|figure)\b"
)
_LABELS = (
    word_set("note notes example examples e.g see source nb important warning tip caution")
    | word_set("by name title date signature signed email e-mail telephone tel phone fax")
    | word_set("address attention attn witness dated ref page company website url")
    | {"print name", "full name", "signed by", "registered office", "in short", "summary"}
)
# what a section's heading says, not a term ("**Scope**" then "The policy applies to ...")
_SECTION_WORDS = word_set(
    "purpose scope summary overview introduction background policy procedure procedures"
    " responsibilities general contact contacts definitions glossary exceptions enforcement"
    " applicability objective objectives references appendix review revision history"
    " abstract keywords acknowledgments acknowledgements audience authority disclaimer"
    " foreword preface conventions notice"
)
_DETERMINERS = word_set(
    "a an the any each every all one some someone something anyone anything those either"
    " means refers"
)
_NOT_DEFINING = word_set("we you i they he she it this these our your my us its their")
_MODALS = word_set("shall must will may can should would")
# a plain term's first word that makes it a sentence's subject or a circumstance
_SENTENCE_OPENERS = word_set(
    "a an the all any each every some this these that those in on at for to from with by of"
    " as if when where per under see according"
)
_VERBS = word_set(
    "is are was were be been shall must will may can should would has have had does do did"
    " agrees agree"
)
# words after which a verb belongs to a clause about the noun ("A person who is ...")
_RELATIVE = word_set("that which who whose whom where when in of for to with by from")
_SMALL_WORDS = word_set("of and the for on in to a an at by with from or &")
#: A text of this many words or fewer, all capitalised, is a name ("FedRAMP Director").
MAX_NAME_WORDS = 8
# a table's header naming fields and their values (a certificate profile, a form): its
# rows fill in a record, they define no terms
_FIELD_HEADERS = word_set(
    "field fields value values attribute attributes parameter parameters extension extensions"
    " property properties setting settings element elements key keys column columns type"
    " default format example status"
)
_DESCRIBING_HEADERS = word_set(
    "description descriptions definition definitions meaning explanation"
)
_CLAUSE_RELATIVES = word_set("that which who whose whom where whereby when if unless")
_PUNCTUATION_KINDS = frozenset({"colon", "tab", "dash", "stop", "break", "space"})


@dataclass(frozen=True)
class _Entry:
    """One entry's shape: its term, where its text starts and ends, how it is set."""

    term: str
    term_start: int
    text_start: int
    end: int
    kind: tuple[str, str, str]  # (separator, the term's setting, the marker's kind)


@dataclass(frozen=True)
class _Shape:
    term: str
    term_start: int
    text_start: int
    separator: str
    setting: str


def run_definitions(text: str, marked: Unmarked) -> Iterator[FoundDefinition]:
    """Every entry of each run of like-shaped entries that reads as a glossary; ``text``
    with its markup (bold is read from it), ``marked`` the same text unmarked."""
    run: list[_Entry] = []
    for start, opens in [*_block_starts(text), (-1, True)]:
        entry = _entry_of(text, start)
        if not opens:  # a line after a sentence's end: an entry only if shaped like the run's
            if entry is None or (run and entry.kind != run[0].kind):
                continue
            if run:
                run[-1] = replace(run[-1], end=min(run[-1].end, start - 1))
        elif run and 0 <= start < run[-1].end:
            continue  # the text of a bold term set on a paragraph of its own
        if entry is not None and (not run or entry.kind == run[0].kind):
            run.append(entry)
            continue
        if entry is None and run and _continues(text, start, run[0]):
            continue
        yield from _glossary(marked, run)
        run = [entry] if entry is not None else []
    yield from _table_runs(marked)


def _continues(text: str, start: int, first: _Entry) -> bool:
    """Whether the block at ``start`` belongs to the entry above it: indented deeper than
    the run's entries, or opening in lower case (a page break inside a sentence), or a
    lettered point ("(a) ...") under entries that are not numbered themselves."""
    if start < 0:
        return False
    line = text[start : text.find("\n", start) if "\n" in text[start:] else len(text)]
    first_line = text[text.rfind("\n", 0, first.term_start) + 1 : first.term_start]
    indent = len(line) - len(line.lstrip())
    if indent > len(first_line) - len(first_line.lstrip()) or line.lstrip()[:1].islower():
        return True
    return first.kind[2] != "number" and line.lstrip().startswith("(")


def _block_starts(text: str) -> Iterator[tuple[int, bool]]:
    """Where each paragraph or list item starts (-1 for a heading or a table, which end a
    run), with True; with False, a line after one ending a sentence (text from a PDF sets
    a glossary's entries on lines of their own, with no blank line between them)."""
    previous_blank = True
    previous_ends = False  # the line before ends a sentence, or is a title of its own
    position = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if not stripped:
            previous_blank = True
        elif stripped.startswith(("#", "|")):
            yield -1, True
            previous_blank = True
        else:
            opens = previous_blank or bool(MARKER.match(line))
            if opens:
                yield position, True
            elif previous_ends:
                yield position, False
            title = opens and len(stripped) <= MAX_TITLE_CHARS
            previous_ends = stripped[-1] in ".;" or title
            previous_blank = False
        position += len(line)


def _entry_of(text: str, start: int) -> _Entry | None:
    if start < 0:
        return None
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    marker = MARKER.match(text, start)
    body = marker.end() if marker else start
    while body < line_end and text[body] in " \t":
        body += 1
    kind = "none" if marker is None else "number"
    if marker is not None and re.fullmatch(BULLET, marker.group("m")):
        kind = "bullet"
    shape = _set_term(text, body, line_end) or _plain_term(text, body, line_end)
    if shape is None or not _term_ok(shape.term):
        return None
    if shape.separator in ("break", "space", "stop") and _heading_like(shape.term):
        return None  # "**Scope**" over its text: a sub-heading, not a term
    end = paragraph_end(text, shape.text_start)
    if shape.text_start >= end:
        return None
    kind_of = (shape.separator, shape.setting, kind)
    return _Entry(shape.term, shape.term_start, shape.text_start, end, kind_of)


def _set_term(text: str, body: int, line_end: int) -> _Shape | None:
    """A quoted or bold term opening the entry: '**Term**: text', '"Term" - text', '**Term.**
    text', '**Term**' then its text on the next line, '"Term" means text'."""
    match = _SET_TERM.match(text, body, line_end)
    if match is None or _closes(match.group("open")) != match.group("close"):
        return None
    setting = "bold" if match.group("open") in ("**", "__", "*", "_") else "quoted"
    inner = match.group("term").strip()
    term = inner.rstrip(":.–—- ").strip()
    raw = match.group("term")
    term_start = match.start("term") + len(raw) - len(raw.lstrip())
    after = match.end()
    if inner != term:  # '**Term:**', '**Term.**': the separator inside the bold
        separator = {":": "colon", ".": "stop"}.get(inner[-1], "dash")
        text_start = _skip_blanks(text, after, line_end)
        return _Shape(term, term_start, text_start, separator, setting)
    rest = text[after:line_end]
    if not rest.strip() and setting == "bold":
        return _next_line(text, term, term_start, line_end, setting)
    separated = _separator(text, after, line_end)
    if separated is not None:
        separator, text_start = separated
        if separator == "stop" and setting != "bold":
            return None
        return _Shape(term, term_start, text_start, separator, setting)
    if setting == "bold" and rest[:1] in (" ", "\t") and rest.strip()[:1].isalpha():
        return _Shape(term, term_start, _skip_blanks(text, after, line_end), "space", setting)
    return None


def _closes(opening: str) -> str:
    return {"“": "”", "‘": "’"}.get(opening, opening)


def _next_line(text: str, term: str, term_start: int, line_end: int, setting: str) -> _Shape | None:
    """A bold term alone on its line, its text opening the next line or the paragraph after
    a blank line."""
    start = line_end + 1
    if text.startswith("\n", start) and text[start + 1 : start + 2] not in ("\n", ""):
        start += 1
    if start >= len(text) or not text[start:].strip():
        return None
    line = text[start : text.find("\n", start) if "\n" in text[start:] else len(text)]
    if not line.strip() or MARKER.match(line) or line.lstrip().startswith(("#", "|", "*", "_")):
        return None
    return _Shape(term, term_start, _skip_blanks(text, start, len(text)), "break", setting)


def _plain_term(text: str, body: int, line_end: int) -> _Shape | None:
    match = _PLAIN_TERM.match(text, body, line_end)
    if match is None:
        return None
    separated = _separator(text, match.end(), line_end)
    if separated is None or separated[0] == "stop":
        return None
    term = match.group().strip()
    if separated[0] == "copula" or term.split()[0].casefold() in _SENTENCE_OPENERS:
        return None
    return _Shape(term, body, separated[1], separated[0], "plain")


def _separator(text: str, position: int, line_end: int) -> tuple[str, int] | None:
    """The separator's kind at ``position`` and where the text after it starts."""
    verb = _VERB.match(text, position, line_end)
    if verb is not None:
        return ("means" if verb.group("means") else "copula"), (
            verb.end() if verb.group("means") else verb.start("copula")
        )
    punctuation = _PUNCTUATION.match(text, position, line_end)
    if punctuation is None or punctuation.end() >= line_end:
        return None
    kind = next(name for name, value in punctuation.groupdict().items() if value)
    return ("dash" if kind == "wide" else kind), punctuation.end()


def _skip_blanks(text: str, position: int, limit: int) -> int:
    while position < limit and text[position] in " \t*_":
        position += 1
    return position


def _heading_like(term: str) -> bool:
    """A section's heading set as a paragraph or a sub-heading ("Scope", "Abstract")."""
    words = term.casefold().split()
    return len(words) <= 2 and bool(_SECTION_WORDS.intersection(words))


def _term_ok(term: str) -> bool:
    """A short name opening with a letter: not a version, a label, or a part's number."""
    words = term.casefold().split()
    if not words or len(words) > MAX_RUN_TERM_WORDS or not term[0].isalpha():
        return False
    if _VERSION.match(term) or _STRUCTURAL.match(term) or " ".join(words) in _LABELS:
        return False
    if words[0] in _LABELS and (len(words) == 1 or words[1][:1].isdigit()):
        return False
    if sum(char.isalpha() for char in term) < 2:
        return False
    if re.search(r"\d", term) and not re.search(r"[a-z]", term):
        return False  # a code ("PR.PT-3", "A.5.1"), an identifier rather than a name
    if _VERBS.intersection(words) or _NOT_DEFINING.intersection(words):
        return False  # a sentence's opening: "Then it writes: ...", "We use: ..."
    return not term.endswith((".", ",", ";"))


def _glossary(marked: Unmarked, run: list[_Entry]) -> Iterator[FoundDefinition]:
    names = [collapse(entry.term).casefold() for entry in run]
    if len(set(names)) < MIN_RUN or len(set(names)) < len(names):
        return
    separator, setting, marker = run[0].kind
    if marker == "number" and separator in _PUNCTUATION_KINDS and setting != "quoted":
        return  # "1. Payment: ..." / "(a) In general.—...": clauses under their headings
    texts = [clean_definition(marked, entry.text_start, entry.end) for entry in run]
    readings = [_reading(definition, run[0].kind[0]) for definition, _ in texts]
    if readings.count("yes") < MIN_DEFINING_SHARE * len(run):
        return
    if readings.count("no") > MAX_OTHER_SHARE * len(run):
        return
    for entry, (definition, end), reading in zip(run, texts, readings, strict=True):
        if reading != "no":
            for term, offset in _names(collapse(entry.term).strip("\"'‘’“”`")):
                yield FoundDefinition(term, definition, entry.term_start + offset, end, "glossary")


def _names(term: str) -> list[tuple[str, int]]:
    """The term, or the two names it joins ("Mortgage Assistance Relief Service Provider or
    Provider"), each capitalised, with its offset in the term."""
    joined = re.fullmatch(r"([A-Z].*?)\s+or\s+([A-Z].*)", term)
    if joined is None:
        return [(term, 0)]
    return [(joined.group(1), 0), (joined.group(2), joined.start(2))]


def _reading(definition: str, separator: str) -> str:
    """ "yes" for a text that opens as a definition does, "no" for one that cannot be one
    (a clause, a sentence about the reader, a number, a blank), "maybe" for the rest (a
    capitalised noun: a name, or the genus of a definition)."""
    words = definition.split()
    if len(words) < 2 or is_fill_in(definition):
        return "no"
    if separator == "means":
        return "yes"
    if _a_name(words):
        return "no"  # "Authorizing Official (AO)", "Public Key Infrastructure": a name
    first = words[0].casefold().strip("\"'‘’“”,")
    if first in _NOT_DEFINING or not re.fullmatch(r"(?:a|[^\W\d_]{2,}[\w'’-]*)[.,;:]?", first):
        return "no"  # "(x+y) bytes", "x bytes", "$10": a value, not what a term is
    if separator != "copula" and _verb_first(words):
        return "no"
    if first in _DETERMINERS or words[0][0].islower():
        return "yes"
    return "maybe"


def _a_name(words: list[str]) -> bool:
    """Whether a short text is only a name: each significant word capitalised."""
    significant = [word for word in words if word.casefold() not in _SMALL_WORDS]
    if not significant or len(words) > MAX_NAME_WORDS:
        return False
    return all(word.lstrip("(\"'‘“")[:1].isupper() for word in significant)


def _verb_first(words: list[str]) -> bool:
    """Whether the text is a clause: a verb soon after its opening words ("fees are due",
    "The Customer shall pay"), or a modal before any relative word ("The Secretary of
    State shall consult ..."); "a person who is ..." is a noun and what qualifies it."""
    for index, word in enumerate(words[1:30], start=1):
        word = word.casefold().strip(",;:()")
        if word in _CLAUSE_RELATIVES or word.endswith("."):
            return False
        if word in _MODALS or (
            index <= 4 and word in _VERBS and words[index - 1].casefold() not in _RELATIVE
        ):
            return True
    return False


# --- ### Term / its text (sibling sections headed by terms) -----------------------------------

#: A term's section holds a short text: a policy's or a contract's sections run longer.
MAX_HEADED_WORDS = 150
MAX_HEADING_TERM_WORDS = 5


def glossary_headings(entries: list[tuple[str, str, str]]) -> list[bool]:
    """For consecutive sibling sections, each (heading, heading line, body), which ones are
    a glossary's entries: at least :data:`MIN_RUN` in a row, each headed by a short
    unnumbered term, with a short body that opens as a definition of it ("### Account" /
    "An account is the record ..." / "The record we keep of ..."); none whose text is a
    clause ("All laptops are encrypted.", "The Customer shall ...")."""
    marks = [False] * len(entries)
    start = 0
    while start < len(entries):
        end = start
        while end < len(entries) and _headed_reading(*entries[end]) != "no":
            end += 1
        readings = [_headed_reading(*entry) for entry in entries[start:end]]
        if end - start >= MIN_RUN and readings.count("yes") >= MIN_DEFINING_SHARE * len(readings):
            marks[start:end] = [True] * (end - start)
        start = end + 1
    return marks


def _headed_reading(heading: str, heading_line: str, body: str) -> str:
    term = collapse(heading).strip("\"'‘’“”`*_:")
    words = term.split()
    if not 0 < len(words) <= MAX_HEADING_TERM_WORDS or not _term_ok(term) or _heading_like(term):
        return "no"
    if re.search(r"\d", heading_line) or len(body.split()) > MAX_HEADED_WORDS:
        return "no"
    paragraph = collapse(body.strip().split("\n\n", 1)[0])
    if not paragraph or MARKER.match(paragraph) or paragraph.startswith(("#", "|")):
        return "no"
    # "An account is ...", "Accounts are ...": the text names the term and says what it is
    named = re.match(
        r"(?i)(?:(?:an?|the)\s+)?" + re.escape(term) + r"s?\s+(?P<verb>is|are|means|refers\s+to)\s",
        paragraph,
    )
    if named:
        return "yes"
    return _reading(paragraph, "heading")


# --- | Term | text | ------------------------------------------------------------------------


def _table_runs(marked: Unmarked) -> Iterator[FoundDefinition]:
    """Two-column tables whose rows are a term and a text that reads as its definition."""
    for rows in tables(marked.plain):
        width = max(len(row) for row in rows)
        if width != 2 or len(rows) < MIN_RUN:
            continue
        header = {word for cell, _ in rows[0] for word in re.findall(r"[a-z]+", cell.casefold())}
        if header & _FIELD_HEADERS and not header & _DESCRIBING_HEADERS:
            continue  # "| Field | Value |": a record's fields ("| Field | Description |" defines)
        body = rows[1:] if len(rows[0][1][0].split()) < 4 else rows
        entries = [
            (term, offset, text, text_offset)
            for (term, offset), (text, text_offset) in (row[:2] for row in body if len(row) >= 2)
        ]
        named = [e for e in entries if _term_ok(collapse(e[0]).strip("\"'‘’“”`"))]
        if len(named) < MIN_RUN or len(named) < len(entries) - 1:
            continue
        readings = [_reading(collapse(text), "cell") for _, _, text, _ in named]
        if readings.count("yes") < MIN_DEFINING_SHARE * len(named):
            continue
        if readings.count("no") > MAX_OTHER_SHARE * len(named):
            continue
        for (term, offset, text, text_offset), reading in zip(named, readings, strict=True):
            if reading != "no":
                definition, end = clean_definition(marked, text_offset, text_offset + len(text))
                name = collapse(term).strip("\"'‘’“”`")
                yield FoundDefinition(name, definition, offset, end, "table")
