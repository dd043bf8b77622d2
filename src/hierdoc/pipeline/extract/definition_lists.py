"""Definitions laid out as lists: ``Term: definition`` glossary lines, tables, term headings.

Glossary lines count only in a definitions section (elsewhere "Note: ..." lines would be
noise); a table counts in a definitions section, or anywhere under a header that names a
term column and a definition/meaning column. Anywhere, by their shape:

- a definition list (an HTML ``<dl>`` as markdownify writes it: ``Term`` then
  ``:   definition``);
- a cover page's key terms: a two-column table whose first cells are bold names
  (``| **Governing Law** | The laws of the State of Delaware |``);
- rows written as lines of text (``Term<TAB>Means ...``, a PDF's ``Term | ...``) under a
  header line naming a term and a definition column.

Also only in a definitions section:

- a two-cell row as the PDF converter writes a table row, without outer bars
  (``Authenticator | Something the claimant possesses ...``), unless it spells out an
  acronym (``CIO | Chief Information Officer`` is an acronym list's, see :mod:`.acronyms`);
- a standard's numbered entries: "3.2", its term, its definition in lower case (ISO's
  terms and definitions clause), the number and term on one line or two;
- a sub-heading that is only a short term, defined by the paragraph under it (a glossary
  whose terms are set on lines of their own, in bold, which the PDF converter reads as
  headings: ``#### Authenticator`` then ``Something the claimant possesses ...``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from .definition_markup import QUOTED_TERM, Unmarked
from .definition_text import (
    MAX_TERM_WORDS,
    NOTE_LABELS,
    PRONOUNS,
    STRUCTURAL_WORDS,
    FoundDefinition,
    clean_definition,
    collapse,
    is_fill_in,
    trim,
    unlink,
    valid_term,
    without_abbreviation,
    word_set,
)
from .layout import MARKER, item_start, paragraph_end, tables

MAX_GLOSSARY_WORDS = 6
#: A column's name in a table's header row: "SCR field", "Included Information".
MAX_COLUMN_NAME_WORDS = 4
#: A definition list's term may be longer than a sentence's ("Person and email address to
#: contact for further information").
MAX_LIST_TERM_WORDS = 10
#: A registration template fills in its fields for many records; two records of a media type
#: registration ("Type name:  message") still define their fields.
MIN_TEMPLATE_RECORDS = 3

_GLOSSARY = re.compile(
    r"^(?P<prefix>(?:" + MARKER.pattern + r"[ \t]+)?[ \t]*[\"'‘“]?)"
    # a full stop only inside a number: "X.509 Certificate – ..."
    r"(?P<term>[A-Za-z](?:[^:\n—–|*.,;\"'‘’“”]|\.(?=\d)){0,60}?)[\"'’”]?"
    r"[ \t]*(?::|—|–|[ \t]-[ \t])[ \t]*(?P<def>\S)",
    re.MULTILINE,
)
_GLOSSARY_MEANS = re.compile(r"(?:shall\s+mean|means)\s+")
_VERB_WORDS = word_set("is are was were be shall will must may can should would")
_OF_THE_TERM = re.compile(
    r"(?i)(?:this|the)\s+term\s+(?:is|refers|means|describes)\b|we\s+use\s+the\s+terms?\b"
)
_ENTRY_OPENING = re.compile(r"(?:It\s+is|This|These)\s+[a-z]")
# "What You See Is What You Get (WYSIWYG)": a spelled-out acronym, not a sentence
_SPELLED_ACRONYM = re.compile(r"(?:[A-Z][\w-]*\s+)+[A-Z][\w-]*\s*\([A-Z0-9]{2,10}\)")
# words that open a source or a condition, not a term: "Per NISTIR 8062: ...", "In ...:"
_LEADS = word_set("per in as for see under from according if when where")
# labels of signature blocks and forms ("By: ____", "Name: ...") are not defined terms
_FORM_LABELS = (
    word_set("by name title date signature sign signed its email e-mail telephone tel phone")
    | word_set("fax facsimile address attention attn witness dated per ref page company")
    | {"print name", "full name", "signed by", "registered office"}
    | {"short version", "in short", "summary", "tl;dr"}
)
_STRUCTURAL = re.compile(rf"(?i)^(?:{STRUCTURAL_WORDS})\b\.?\s*[\dIVXLC]")
_TERM_HEADERS = frozenset(
    {"term", "terms", "defined term", "word", "expression", "abbreviation", "acronym"}
)
_DEF_HEADERS = frozenset(
    {"definition", "definitions", "meaning", "description", "explanation", "means"}
)
# a short header cell with one of these words names the column: "Word or phrase | What it
# means", "Concept | Definition", "Glossary term | Explanation"
_TERM_WORDS = _TERM_HEADERS | word_set(
    "terminology phrase phrases words expressions abbreviations acronyms concept concepts"
    " keyword keywords"
)
_DEF_WORDS = _DEF_HEADERS | word_set("meanings explanations descriptions")


def _names_column(cell: str, names: frozenset[str]) -> bool:
    words = re.findall(r"[a-z]+", cell.casefold())
    return cell in names or (0 < len(words) <= 4 and not names.isdisjoint(words))


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
        # "Agreement: means this license agreement": "means" says it is a definition,
        # whatever word opens it
        said = lead is not None and bool(definition)
        if said or _reads_as_definition(definition) or _bullet_entry(match, definition):
            yield FoundDefinition(collapse(term), definition, match.start("term"), end, "glossary")
    yield from _alternative_terms(marked)


_ALTERNATIVES = re.compile(
    r"^(?:" + MARKER.pattern + r"[ \t]+)?[ \t]*"
    r"(?P<terms>[\"'‘“][^\n:\"'‘’“”]{1,60}[\"'’”]"
    r"(?:[ \t]+(?:or|and|and/or)[ \t]+[\"'‘“][^\n:\"'‘’“”]{1,60}[\"'’”])+)"
    r"[ \t]*(?::|—|–)[ \t]*(?P<def>\S)",
    re.MULTILINE,
)


def _alternative_terms(marked: Unmarked) -> Iterator[FoundDefinition]:
    """An entry of two names for one thing: "- 'The Licensee' or 'You': any natural or legal
    person who ...", each name defined by the entry; two names for two things ('"DSF" and
    "DSF Board": the Foundation and its Board, respectively') are each defined by it too."""
    text = marked.quoted
    for match in _ALTERNATIVES.finditer(text):
        def_start = match.start("def")
        definition, end = clean_definition(marked, def_start, paragraph_end(text, def_start))
        if not _reads_as_definition(definition):
            continue
        for quoted in QUOTED_TERM.finditer(match.group("terms")):
            term = collapse(quoted.group("term"))
            if valid_term(term) and term[0].isalpha():
                start = match.start("terms") + quoted.start("term")
                yield FoundDefinition(term, definition, start, end, "glossary")


def _bullet_entry(match: re.Match[str], definition: str) -> bool:
    """A bulleted entry set off by a dash may open its definition with "It is" or "This"
    ("• Black box testing – It is a method of software testing ...")."""
    dashed = ":" not in match.group()[match.end("term") - match.start() :]
    return bool(match.group("prefix").strip()) and dashed and bool(_ENTRY_OPENING.match(definition))


def _reads_as_definition(definition: str) -> bool:
    """Words (not "________" or "[ ]"), not a sentence about someone ("We use these ..."),
    unless it speaks of the term itself ("This term is used where ...", "We use the terms
    “revise” and “revised” to refer to ...")."""
    opening = definition.split(maxsplit=2)[:2]
    first = opening[0].casefold() if opening else ""
    named = len(opening) == 2 and opening[1][:1].isupper()  # "this Licence", not "we use"
    words = bool(re.search(r"[^\W\d_]{2}", definition))
    return words and (first not in PRONOUNS or named or bool(_OF_THE_TERM.match(definition)))


def _glossary_term_ok(text: str, term: str, line_start: int, prefix: str) -> bool:
    """Short, not a label ("Note: ...", "Example 2: ...", "By: ...") nor a heading."""
    words = term.casefold().split()
    spelled = bool(_SPELLED_ACRONYM.fullmatch(term))
    most = MAX_LIST_TERM_WORDS if spelled else MAX_GLOSSARY_WORDS
    if not words or len(words) > most or _STRUCTURAL.match(term):
        return False
    if words[0] in _LEADS or "[" in term:
        return False  # "Per NISTIR 8062: Enabling ...", "Per [ISO 9241](#iso): Extent ..."
    if words[0] in ("a", "an", "the") and len(words) > 1 and term.split()[1][:1].islower():
        return False  # a sentence broken at a colon: "A specific kind of :term:`Wheel`"
    label = words[0] in NOTE_LABELS and (len(words) == 1 or words[1].isdigit())
    verbs = _VERB_WORDS.intersection(words) and not spelled
    if label or verbs or " ".join(words) in _FORM_LABELS:
        return False
    if term[0].isupper() or prefix.strip():
        return True
    # a lower-case line is a glossary entry only when it opens a paragraph, not when it
    # continues a wrapped sentence
    return line_start == 0 or text[: line_start - 1].endswith("\n")


# --- | Term | Definition | ----------------------------------------------------------------


def table_definitions(marked: Unmarked, in_section: bool) -> Iterator[FoundDefinition]:
    """The rows of term/definition tables and of key-terms tables; a row whose value is only
    a template's blank defines nothing (the table still counts it as a row)."""
    for item in _table_rows(marked, in_section):
        if not is_fill_in(item.definition):
            yield item


def _table_rows(marked: Unmarked, in_section: bool) -> Iterator[FoundDefinition]:
    for rows in tables(marked.quoted):
        header = [collapse(cell).casefold().strip("*_ :") for cell, _ in rows[0]]
        columns = _table_columns(header, in_section)
        if columns is None:
            if not _named_columns(marked, rows[0]):
                yield from key_term_definitions(marked, rows)
            continue
        term_col, def_col = columns
        for row in rows[1:]:
            if len(row) <= max(term_col, def_col):
                continue
            yield from _table_row(marked, row[term_col], row[def_col])


def _named_columns(marked: Unmarked, header: list[tuple[str, int]]) -> bool:
    """Whether a table's first row names its columns in plain words ("SCR field | Included
    Information"): its bold first cells below are a form's fields, not a cover page's key
    terms (whose first row is itself a key term, a bold title or empty)."""
    cells = [(cell, offset) for cell, offset in header if cell.strip()]
    if len(cells) < 2 or len(cells) != len(header):
        return False
    return all(
        len(cell.split()) <= MAX_COLUMN_NAME_WORDS
        and not any(o in marked.emphasised for o in range(offset, offset + len(cell)))
        and not marked.quoted[offset : offset + len(cell)].strip().startswith(("“", '"'))
        for cell, offset in cells
    )


def _table_columns(header: list[str], in_section: bool) -> tuple[int, int] | None:
    term_col = next((i for i, cell in enumerate(header) if _names_column(cell, _TERM_WORDS)), None)
    def_col = next(
        (i for i, cell in enumerate(header) if i != term_col and _names_column(cell, _DEF_WORDS)),
        None,
    )
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
_SEE = re.compile(r"See\s+[A-Z]")
_CONTINUING = frozenset({"and", "or", "of", "to", "in", "for", "with", "by", "from"})


def bare_row_definitions(marked: Unmarked, glossary: bool = False) -> Iterator[FoundDefinition]:
    """Two-cell rows without outer bars, the PDF converter's table rows. An acronym's long
    form alone ("CIO | Chief Information Officer") is an acronym list's, not a definition,
    unless the table is a ``glossary`` (a section headed "Glossary" or "Definitions", not
    "Acronyms") and the row is written as an entry of it: a sentence ("FIPS | Federal
    Information Processing Standard.") or a pointer to another ("CE | See Cryptographic
    Erase.")."""
    text = marked.quoted
    for match in _BARE_ROW.finditer(text):
        term = match.group("term").strip().strip("\"'‘’“”`").strip()
        definition, end = clean_definition(marked, match.start("def"), match.end("def"))
        if not _row_term_ok(term) or not _reads_as_definition(definition):
            continue
        if definition.split(maxsplit=1)[0] in _CONTINUING:
            continue  # a sentence cut into cells: "Selected acronyms | and abbreviations ..."
        entry = glossary and (match.group("def").rstrip().endswith(".") or _SEE.match(definition))
        if entry or not _spelled_out(term, definition):
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

# under a term's heading, a paragraph may open by pointing at it: "This is explicit stored
# information that ...", "It refers to ..."
# "A self-contained or composite resource which ...": a kind, then what sets it apart
_GENUS_OPENING = re.compile(
    r"An?\s+(?:[\w-]+,?\s+){0,6}?(?:which|that|who|whose|where|of|for|used)\b"
)
_HEADING_TERM_OPENING = re.compile(r"(?:It|This)\s+(?:is|refers\s+to|means)\s+[a-z]")
_TERM_HEADING = re.compile(r"\A[ \t]*#{1,6}[ \t]+(?P<term>[^\n]+?)[ \t]*\n")
_LABEL = re.compile(r"^(?:[\dIVXLC]+\b|[A-Z][.)]|\(?\w{1,3}\))")


def _defines_entry(opening: str, term: str) -> bool:
    """Whether the paragraph under a numbered sub-heading of a definitions section defines
    the words after the number: it goes on in lower case ("### 3.1 access control" / "means
    to ensure ..."), opens with what the term is ("### 3.1 Service Document" / "A
    self-contained resource which ...") or says what its subject, the term, is or is for
    ("The Service Documents are used to ...")."""
    if opening[:1].islower() or _GENUS_OPENING.match(opening):
        return True
    # what it is or what it is for, not "The fees are set out in Schedule 2"
    named = re.match(
        r"(?:The\s+)?(?P<words>(?:[\w-]+\s+){0,6}?)(?:is|are)\s+(?:an?|any|one|used\s+to)\b",
        opening,
    )
    return bool(named) and _stem_words(named.group("words")) == _stem_words(term)


def _stem_words(words: str) -> list[str]:
    return [word.casefold().rstrip("s") for word in words.split()]


def heading_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """The term a sub-heading names, defined by the first paragraph under it."""
    text = marked.plain
    heading = _TERM_HEADING.match(text)
    if heading is None:
        return
    term = without_abbreviation(collapse(heading.group("term")).strip("\"'‘’“”`:"))
    term = re.sub(r"\s*[\"“”]\s*", " ", term).strip()  # ## “made” date: a word quoted
    body = len(text) - len(text[heading.end() :].lstrip())
    entry = _ENTRY_NUMBER.match(term)
    if separated := _SEPARATED_ENTRY.match(term):
        term = term[separated.end() :]  # "### 2.4 - Documented Evidence" / "This is ..."
    elif entry and _defines_entry(text[body : body + 200], term[entry.end() :]):
        term = term[entry.end() :]  # "### 3.1 access control" / "means to ensure ..."
    if body >= len(text) or not _heading_term_ok(term) or item_start(text, body) is not None:
        return
    definition, end = clean_definition(marked, body, paragraph_end(text, body))
    if _reads_as_definition(definition) or _HEADING_TERM_OPENING.match(definition):
        yield FoundDefinition(term, definition, heading.start("term"), end, "glossary")


# --- "TERM" This word, ... (a term, then a sentence pointing back at it) --------------------

_POINTED = re.compile(
    r"^[ \t]*[\"“](?P<term>[^\"“”\n]{1,40})[\"”][ \t]+"
    r"(?P<def>(?:This|The)\s+(?:word|phrase|term|expression)\b)",
    re.MULTILINE,
)


def pointed_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """Terms each opening a line, the sentence after them pointing back at the term ('"MUST"
    This word, or the terms "REQUIRED" or "SHALL", mean that ...', as RFC 2119's keywords
    are defined): the sentence is its definition, to the next such line or paragraph end."""
    text = marked.quoted
    for match in _POINTED.finditer(text):
        term = collapse(match.group("term"))
        end = paragraph_end(text, match.start("def"), stop=_POINTED)
        definition, end = clean_definition(marked, match.start("def"), end)
        if len(term.split()) <= MAX_GLOSSARY_WORDS and definition:
            yield FoundDefinition(term, definition, match.start("term"), end, "glossary")


# --- 3.1 / term / definition (the terms and definitions of a standard) ----------------------

# an entry's number ("3.1", "3.4.2"), alone on its line or before its term
_ENTRY_NUMBER = re.compile(r"\d{1,2}(?:\.\d{1,3})+\.?[ \t]+(?=\S)|\d{1,2}(?:\.\d{1,3})+\.?[ \t]*\n")
# an entry's number set off from its term by a dash or a colon ("2.4 - compliance artifacts")
_TRAILING_PARENTHESIS = re.compile(r"\s*\([^()]*\)$")
_SEPARATED_ENTRY = re.compile(r"\d{1,2}(?:\.\d{1,3})+\.?[ \t]*[-–—:][ \t]+(?=\S)")
_ENTRY = re.compile(
    r"^[ \t]*(?P<number>\d{1,2}(?:\.\d{1,3})+)\.?(?:[ \t]*\n[ \t]*|[ \t]+)(?:[-–—][ \t]+)?"
    # a term's parenthesis may close on the next line ("... Compliance (AI SBOM" / "Compliance)")
    r"(?P<term>[^\W\d_](?:[^\n.;:,(]|\([^\n()]*\)|\([^\n()]*\n[^\n()]*\)){0,80}?)"
    r"[ \t]*\n[ \t]*(?P<def>[^\W\d_A-Z])",
    re.MULTILINE,
)


def entry_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """Numbered entries of a standard's terms and definitions (ISO style): the entry's
    number, its term (on the same line or the next), and on the next line its definition,
    which opens in lower case ("3.2" / "attack" / "attempt to destroy, expose, ...")."""
    text = marked.plain
    for entry in _ENTRY.finditer(text):
        term = collapse(entry.group("term"))
        named = _TRAILING_PARENTHESIS.sub("", term)  # "(AI SBOM Compliance)" is its short form
        if len(named.split()) > MAX_TERM_WORDS or _VERB_WORDS.intersection(term.split()):
            continue
        def_start = entry.start("def")
        definition, end = clean_definition(marked, def_start, paragraph_end(text, def_start))
        if _reads_as_definition(definition):
            yield FoundDefinition(term, definition, entry.start("term"), end, "glossary")


# --- term / indented definition (RFC terminology, reST definition lists) ---------------------

_INDENTED = re.compile(
    r"(?:\A|(?<=\n\n))(?P<indent>[ \t]*)(?P<term>[^\s|#>:][^\n]{0,80}?)[ \t]*\n"
    r"(?=(?P<blank>[ \t]*\n)?(?P<inner>[ \t]+)\S)"
)


_QUOTED_LINE = re.compile(r"(?:`|``|[\"'‘“])[^\"'‘’“”`]+(?:''|[\"'’”])")


def indented_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """A term on a line of its own after a blank line, its definition on the lines below it
    indented further (an RFC's terminology, a reStructuredText definition list)::

           connection
              A transport layer virtual circuit established between two programs ...
    """
    text = marked.plain
    for match in _INDENTED.finditer(text):
        indent, inner = len(match.group("indent")), len(match.group("inner"))
        raw = collapse(match.group("term"))
        term = raw.strip("\"'‘’“”`*")
        # a blank line after the term only where the term is indented too (a Sphinx glossary's
        # source); an unindented line then an indented paragraph is a heading and its text
        apart = bool(match.group("blank")) and indent == 0
        # a term in quotes alone on its line ("   `Work'") is set off by its quotes: its text
        # may sit one column deeper only
        deeper = 1 if _QUOTED_LINE.fullmatch(raw) else 2
        if inner < indent + deeper or apart or not _heading_term_ok(term):
            continue
        start = match.end("inner")
        end = _indented_end(text, start, indent)
        definition, end = clean_definition(marked, start, end)
        if _reads_as_definition(definition):
            yield FoundDefinition(term, definition, match.start("term"), end, "glossary")


def _indented_end(text: str, start: int, indent: int) -> int:
    """Where the lines indented deeper than ``indent`` end (blank lines between them kept)."""
    end = text.find("\n", start)
    while 0 <= end < len(text) - 1:
        line_end = text.find("\n", end + 1)
        line = text[end + 1 : line_end if line_end >= 0 else len(text)]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        end = line_end
    return len(text) if end < 0 else len(text[:end].rstrip())


def _heading_term_ok(term: str) -> bool:
    """A short name: no number or label ("3.2 Fees", "A. Scope"), no sentence."""
    words = term.split()
    if not words or len(words) > MAX_GLOSSARY_WORDS or not term[0].isalpha():
        return False
    if _LABEL.match(term) or _STRUCTURAL.match(term) or term[-1] in ".;,?!)":
        return False
    return not _VERB_WORDS.intersection(word.casefold() for word in words)


# --- Term / :   definition (an HTML <dl>) ---------------------------------------------------

# A definition list as markdownify writes an HTML <dl> (Pandoc's syntax): each <dt> on a line
# of its own, its <dd> on the next line after ":   ", further paragraphs indented.
_DD = re.compile(r"^:[ \t]+(?=\S)", re.MULTILINE)
_DD_MORE = re.compile(r"(?:\n[ \t]*(?=\n)|\n(?: {4}|\t)[^\n]*)*")
# a link to the term itself after its name, as Sphinx writes one: "Wheel[¶](#term-Wheel ...)"
_SELF_LINK = re.compile(r"\s*\[[^\w\]]{1,2}\]\([^)\n]*\)\s*$")
_ALIAS = re.compile(
    r"\s+\((?:or|also|abbreviated)\s+[\"“‘']?(?P<alias>[^()\"“”‘’']{1,40}?)[\"”’']?\)$"
)
_LINKS_ONLY = re.compile(r"(?:\s*(?:\[[^\]\n]*\]\([^)\n]*\)|<[a-z]+:[^>\s]+>)[\s,;]*)+")
_DT_TERM = re.compile(r"[^\W_][\w\-’'./& ]*")


def described_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """The terms of a definition list (``Term`` then ``:   definition``), each defined by its
    description; several terms on consecutive lines share the description below them."""
    text = marked.plain
    if "\n:" not in text:
        return
    for dd in _DD.finditer(text):
        body_end = _description_end(text, dd.end())
        if _LINKS_ONLY.fullmatch(text, dd.end(), body_end):
            continue  # a specification's front matter: "Participate" / ":   [GitHub repo](url)"
        definition = trim(collapse(unlink(text[dd.end() : body_end])))
        # a list's description may open with "This": "Published specification" / ": This
        # specification (see Appendix A)."
        if not _reads_as_definition(definition.removeprefix("This ").removeprefix("These ")):
            continue
        for term, start in _dt_terms(text, dd.start(), marked.emphasised):
            if not _STRUCTURAL.match(term):  # "Section 2." over a wrapped line: a label
                yield FoundDefinition(term, definition, start, body_end, "glossary")


def _description_end(text: str, start: int) -> int:
    """The end of a description: its first line and the indented lines after it."""
    line_end = text.find("\n", start)
    if line_end < 0:
        return len(text)
    more = _DD_MORE.match(text, line_end).end()
    return line_end + len(text[line_end:more].rstrip())


def _dt_terms(
    text: str, dd_start: int, emphasised: frozenset[int] = frozenset()
) -> Iterator[tuple[str, int]]:
    """The terms on the lines just above a description, with their offsets. Terms sharing
    one description may be a blank line apart (markdownify writes consecutive ``<dt>`` so):
    a short line between blank lines, inside the list (a description above it)."""
    end = dd_start - 1
    found = False
    while end > 0:
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        if not line.strip() and found and _shares_description(text, start):
            end = start - 1
            continue
        bold = _bold_line(line, start, emphasised)
        if not line.strip() or (not bold and line.startswith((":", " ", "\t", "|", "#"))):
            return
        names = list(_dt_names(line, start, bold))
        yield from names
        found = bool(names)
        end = start - 1


def _bold_line(line: str, start: int, emphasised: frozenset[int]) -> bool:
    """A term in bold ("**PyPA members**:"): its markers are spaces in the plain text, not
    an indent."""
    indent = len(line) - len(line.lstrip(" "))
    return 0 < indent <= 2 and start + indent - 1 in emphasised


def _shares_description(text: str, blank_start: int) -> bool:
    """Whether the line above the blank line at ``blank_start`` is another term of the same
    description: a term line, a blank line above it, and a description's line above that."""
    lines = text[max(0, blank_start - 2000) : max(0, blank_start - 1)].split("\n")[-3:]
    if len(lines) < 3 or lines[1].strip() or not lines[2].strip():
        return False
    described = lines[0].startswith((":", "    ", "\t"))
    return described and any(True for _ in _dt_names(lines[2], 0))


def _dt_names(line: str, offset: int, bold: bool = False) -> Iterator[tuple[str, int]]:
    """A term line's name, and the alias in its closing parenthesis ("Source Distribution
    (or "sdist")"); an acronym there ("decentralized identifier (DID)") is the acronyms'.
    ``bold``: a colon may follow the term's emphasis ("**PyPA members**:"), not a plain
    term ("Author:" heads a document's field list)."""
    name = without_abbreviation(unlink(_SELF_LINK.sub("", line)).strip())
    alias = _ALIAS.search(name)
    names = [name[: alias.start()], alias.group("alias")] if alias else [name]
    for term in names:
        term = collapse(term.rstrip(": ") if bold else term).strip("\"'‘’“”`*_ ")
        if _DT_TERM.fullmatch(term) and len(term.split()) <= MAX_LIST_TERM_WORDS:
            yield term, offset + max(0, line.find(term))


# --- | Term | value | (the key terms of a cover page) --------------------------------------

MIN_KEY_TERMS = 3
MAX_KEY_LABEL_WORDS = 15
# a bold term, and perhaps a short description after it (no sentence: "**Order Form** The key
# terms of this Agreement are as follows:" introduces the rows below)
_KEY_CELL = re.compile(r"\s*“(?P<term>[^“”]+)”\s*(?:[“]?(?P<label>[^“”()\n]*[^“”()\s.:;])[”]?\s*)?")


# a template's control tags ("{IF has_pilot}", "{END-IF}", "{% if x %}"), not its fields
_TAG = r"\{(?:%[^{}%\n]*%|(?:IF|END-?IF|ELSE|ELSE-?IF|FOR|END-?FOR)\b[^{}\n]*)\}"
_LEADING_TAGS = re.compile(rf"\s*(?:{_TAG}\s*)+")
_TRAILING_TAGS = re.compile(rf"(?:\s*{_TAG})+\s*$")


def key_term_definitions(
    marked: Unmarked, rows: list[list[tuple[str, int]]]
) -> list[FoundDefinition]:
    """A two-column table whose first cells name terms in bold, each with its value (a
    contract's cover page: "**Governing Law** | The laws of the State of Delaware"); a
    second bold run in the first cell describes the term ("**Effective Date** **The date the
    Agreement starts**"). At least three such rows, and most rows with a value are such.
    Trailing columns empty in every row (a layout's margin) do not count; an empty column
    between two others is a signature block's spacer ("| Title |  | {title} |")."""
    width = max(len(row) for row in rows)
    while width > 2 and not any(len(r) >= width and r[width - 1][0].strip() for r in rows):
        width -= 1
    if width != 2 or any(len(row) < 2 for row in rows):
        return []
    rows = [[_untagged(cell, offset) for cell, offset in row[:2]] for row in rows]
    valued = [row for row in rows if row[1][0].strip()]
    found = [item for row in valued if (item := _key_term(marked, row)) is not None]
    return found if len(found) >= MIN_KEY_TERMS and 2 * len(found) > len(valued) else []


def _untagged(cell: str, offset: int) -> tuple[str, int]:
    """A cell without the template's control tags around it ("{IF has_dpa}**DPA**",
    "{covered_claims_display} {END-IF}"): a tag alone is an empty cell."""
    lead = _LEADING_TAGS.match(cell)
    start = lead.end() if lead else 0
    trail = _TRAILING_TAGS.search(cell, start)
    end = trail.start() if trail else len(cell)
    return cell[start:end], offset + start


def _key_term(marked: Unmarked, row: list[tuple[str, int]]) -> FoundDefinition | None:
    (cell, offset), (value, value_offset) = row
    key = _KEY_CELL.fullmatch(marked.quoted, offset, offset + len(cell))
    if key is None or key.start("term") - 1 not in marked.emphasised:
        return None
    term = collapse(key.group("term"))
    label = key.group("label") or ""
    if not _title_case(term) or len(label.split()) > MAX_KEY_LABEL_WORDS:
        return None
    definition = trim(collapse(marked.plain[value_offset : value_offset + len(value)]))
    if label:
        definition = f"{collapse(label)}: {definition}"
    return FoundDefinition(term, definition, key.start("term"), value_offset + len(value), "table")


def _title_case(term: str) -> bool:
    """A name: a few words, each significant one capitalised, no sentence punctuation."""
    words = term.split()
    if not 0 < len(words) <= MAX_GLOSSARY_WORDS or term[-1] in ".:;,?!" or _STRUCTURAL.match(term):
        return False
    significant = [word for word in words if word.casefold() not in _SMALL_WORDS]
    return bool(significant) and all(word[0].isupper() or word[0].isdigit() for word in significant)


# --- Term<TAB>Definition (a plain-text table under a header naming its columns) -------------

MAX_COLUMN_TERM_WORDS = 15
# a cell boundary: a tab, or " | " as the PDF converter writes a row
_CELL_BREAK = re.compile(r"[ \t]*(?:\t|[ \t]\|[ \t])[ \t]*")
# a rule or paragraph number opening a line: "A8.2.1", "1.2.1.Guidance.4.", "12."
_NUMBER_LABEL = re.compile(
    r"[ \t]*(?:\d+(?:\.\w+)*|[A-Z]{1,3}\d+(?:\.\w+)+)\.?(?:\t|[ \t]*$)"  # not "C1", "2U"
)
_ROW_VERB = re.compile(r"(?i)(?:(?P<means>means|shall\s+mean)\b[ \t:,]*|(?P<has>has)\s+(?=the\s))")


def column_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """Rows of a two-column table written as lines of text (cells split by a tab or " | "),
    under a header that names a term column and a definition column ("Defined Terms<TAB>
    Definitions"); a line that is not a row (a lettered point, a wrapped line) continues
    the definition above it. A blank line ends the table unless a row follows it."""
    text = marked.plain
    position = 0
    while (header := _column_header(text, position)) is not None:
        rows = list(_column_rows(text, header))
        for row in rows:
            found = _column_row(marked, *row)
            if found is not None:
                yield found
        position = rows[-1][2] if rows else header


def has_column_header(text: str) -> bool:
    """Whether ``text`` holds a header line naming a term and a definition column."""
    return _COLUMN_HEADER.search(text) is not None


def _column_header(text: str, position: int) -> int | None:
    """The end of the next header line from ``position``, if any."""
    header = _COLUMN_HEADER.search(text, position)
    return header.end() if header else None


def _names(headers: frozenset[str]) -> str:
    return "|".join(re.escape(name).replace(r"\ ", r"\s+") for name in sorted(headers))


_COLUMN_HEADER = re.compile(
    rf"(?im)^[ \t]*[*_]*(?:{_names(_TERM_HEADERS | {'defined terms'})})[*_]*[ \t]*"
    rf"(?:\t|[ \t]\|[ \t])[ \t]*[*_]*(?:{_names(_DEF_HEADERS)})[*_ \t:]*$"
)


def _column_rows(text: str, start: int) -> Iterator[tuple[int, int, int]]:
    """(term start, definition start, row end) of each row after a header ending at ``start``."""
    row: list[int] | None = None
    blank = False
    for line in re.finditer(r"^[^\n]*$", text[start + 1 :], re.MULTILINE):
        begin, content = start + 1 + line.start(), line.group()
        cells = _CELL_BREAK.search(content.strip())
        lead = len(content) - len(content.lstrip())
        if _NUMBER_LABEL.match(content):
            break  # the next rule ("A8.2.1<TAB>An Insurer must ..."): the table has ended
        alone = _term_alone(text, begin, content)
        if (cells and _column_term_ok(content.strip()[: cells.start()])) or alone:
            if row:
                yield row[0], row[1], row[2]
            definition = begin + len(content) + 2 if alone else begin + lead + cells.end()
            row = [begin + lead, definition, begin + len(content.rstrip())]
        elif not content.strip():
            blank = True
            continue
        elif row is None or (blank and not _continues(content)):
            break
        else:
            row[2] = begin + len(content.rstrip())
        blank = False
    if row:
        yield row[0], row[1], row[2]


def _term_alone(text: str, begin: int, content: str) -> bool:
    """A term on a line of its own whose definition opens the next line after a tab (an
    empty first cell): "Payment Service Provider" then "<TAB>Has the meaning given ..."."""
    after = begin + len(content) + 1
    return (
        "\t" not in content
        and _column_term_ok(content.strip())
        and text.startswith("\t", after)
        and not text[after + 1 : after + 2].isspace()
    )


def _continues(line: str) -> bool:
    """After a blank line, what still belongs to the row above: a point ("(a) in relation
    to ...") or a line in lower case (a definition broken by a page)."""
    return bool(MARKER.match(line)) or line.lstrip()[:1].islower()


def _column_term_ok(term: str) -> bool:
    words = term.split()
    if not words or len(words) > MAX_COLUMN_TERM_WORDS or not term[0].isalnum():
        return False
    return not MARKER.fullmatch(term) and not _STRUCTURAL.match(term) and term[-1] not in ":;,"


def _column_row(
    marked: Unmarked, term_start: int, def_start: int, end: int
) -> FoundDefinition | None:
    """The row's definition; none for an acronym's long form alone ("CIO | Chief Information
    Officer", an acronym list's), unless the row says it "means" it."""
    text = marked.plain
    term = collapse(_CELL_BREAK.split(text[term_start:def_start])[0]).strip("\"'‘’“”`")
    term = without_abbreviation(term)
    verb = _ROW_VERB.match(text, def_start)
    style = "pointer" if verb and verb.group("has") else "table"
    definition, end = clean_definition(marked, verb.end() if verb else def_start, end)
    if not definition or (verb is None and _spelled_out(term, definition)):
        return None
    return FoundDefinition(term, definition, term_start, end, style)


# --- Term:  definition (a definition list as an RFC's plain text prints it) -----------------

_SPACED_ENTRY = re.compile(
    r"^[ \t]*(?P<term>[A-Za-z][^:\n]{0,79}?):[ ]{2}(?P<def>\S)", re.MULTILINE
)


def spaced_colon_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """A definition list as xml2rfc prints it: "Term:" then two spaces and the definition
    ("Type name:  multipart", "Strong comparison:  two entity tags are ..."), read
    anywhere when at least two such entries follow each other (one entry alone may be a
    sentence set off by a colon); each definition is its paragraph."""
    text = marked.plain
    if ":  " not in text:
        return
    entries = [m for m in _SPACED_ENTRY.finditer(text) if _list_term_ok(m.group("term"))]
    fields = _template_fields(entries)
    entries = [m for m in entries if collapse(m.group("term")) not in fields]
    ends = [paragraph_end(text, m.start("def")) for m in entries]
    for index, match in enumerate(entries):
        after = entries[index + 1].start() if index + 1 < len(entries) else None
        before = ends[index - 1] if index else None
        listed = after is not None and _adjacent(text, ends[index], after)
        listed = listed or (before is not None and _adjacent(text, before, match.start()))
        if not listed:
            continue
        definition, end = clean_definition(marked, match.start("def"), ends[index])
        if definition:
            term = collapse(match.group("term"))
            yield FoundDefinition(term, definition, match.start("term"), end, "glossary")


def _template_fields(entries: list[re.Match[str]]) -> frozenset[str]:
    """The field names of a registration template ("Header field name:  Date" /
    "Status:  standard", once per registered name): names that recur in many records, at
    least two of them, fill in a form; they are not terms a glossary defines."""
    counts = Counter(collapse(match.group("term")) for match in entries)
    repeated = frozenset(term for term, count in counts.items() if count >= MIN_TEMPLATE_RECORDS)
    return repeated if len(repeated) > 1 else frozenset()


def _adjacent(text: str, end: int, start: int) -> bool:
    """Whether only blank lines stand between one entry's end and the next's start."""
    return not text[end:start].strip()


def _list_term_ok(term: str) -> bool:
    words = term.casefold().split()
    if not words or len(words) > MAX_LIST_TERM_WORDS or _STRUCTURAL.match(term):
        return False
    label = words[0] in NOTE_LABELS and (len(words) == 1 or words[1].isdigit())
    if label or _VERB_WORDS.intersection(words) or words[0] in _LEADS:
        return False  # "Note:  ...", "The comparison is defined as follows:  ..."
    return " ".join(words) not in _FORM_LABELS and not term.endswith(" ")
