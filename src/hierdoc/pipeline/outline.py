"""Structure from numbering: the lines of plain text that open a section.

Text extracted from a PDF bill or regulation has no Markdown headings; its
structure is only in its numbering: "CHAPTER III", "Section 3", "Article 17",
"SEC. 203.", "§ 4.2", decimal clauses "1.1", numbered paragraphs "1." and
enumerations "(a)", "(1)", "(A)", "(i)". This module finds those lines and
decides where each one nests, with two stacks:

- blocks (title, chapter, section, article, ...): a kind seen before closes
  everything down to its previous occurrence ("Article 5" after "Article 4"),
  a new kind opens a level below ("Section 1" inside "CHAPTER III"); annexes,
  appendices and schedules always start at the top;
- enumerations, under the innermost block: an item either continues a level
  (its value is the previous one plus one: "(b)" after "(a)", "(i)" after
  "(h)"), or opens a level below with a first value ("(a)", "(1)", "(i)").
  Anything else is ordinary text, which keeps "2020 was a year" and a list
  numbered inside a paragraph from becoming sections.

A block heading that is repeated later with the same position and has no text
of its own is a table-of-contents entry, and is left as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..text.numbering import (
    KIND_ALIASES,
    PAREN,
    PAREN_VALUE,
    ROMAN_KINDS,
    Label,
    number_parts,
    paren_parts,
    roman_to_int,
)
from . import rule_paths
from .contents import contents_lines
from .headings import plain_heading

TOP_KINDS = frozenset({"annex", "appendix", "schedule", "exhibit"})
#: How high a block sits. Titles, subtitles and divisions nest in either order, as a bill
#: puts titles in divisions ("DIVISION A" / "TITLE I" / "Subtitle A") and the US Code puts
#: divisions in subtitles ("TITLE 54" / "Subtitle I" / "Division A").
BLOCK_RANK = {
    "title": 1,
    "subtitle": 1,
    "division": 1,
    "part": 3,
    "chapter": 3,
    "subchapter": 4,
    "subpart": 4,
    "section": 5,
    "article": 5,
    "requirement": 5,
}

#: A block line's Roman number is read as a number for these kinds: unlike a citation
#: (see :data:`~.numbering.ROMAN_NUMBERED`), a line such as "SCHEDULE II", whose number
#: is in capitals, is ``schedule-2``.
_ROMAN_NUMBERED = ROMAN_KINDS | TOP_KINDS
_BLOCK_WORDS = (
    "TITLE|Title|SUBTITLE|Subtitle|DIVISION|Division|CHAPTER|Chapter|SUBCHAPTER|Subchapter|"
    "PART|Part|SUBPART|Subpart|SECTION|Section|SEC\\.|Sec\\.|ARTICLE|Article|ANNEX|Annex|"
    "APPENDIX|Appendix|SCHEDULE|Schedule|EXHIBIT|Exhibit|REQUIREMENT|Requirement"
)
_DECIMAL = r"\d{1,4}[A-Za-z]?(?:\.\d{1,3}[A-Za-z]?)*"
_BLOCK = re.compile(
    r"^(?P<kind>" + _BLOCK_WORDS + r"|§§?)\s*"
    # "§§ 41.117–41.118  [Reserved]": a range of sections, one section of the outline
    rf"(?P<num>{_DECIMAL}(?:(?<=\d)[–-](?=\d){_DECIMAL})?|[A-Z](?:[.\-]\d{{1,3}}[A-Za-z]?)+"
    r"|[IVXLCDM]{1,7}|[A-Z])"
    r"(?P<parens>(?:" + PAREN + r")*)"
    r"(?P<rest>.*)$"
)
#: A block label inside a line's text: a line that names two sections of a kind is a list.
_BLOCK_AGAIN = re.compile(r"\b(?P<kind>" + _BLOCK_WORDS + r")\s*\d")
#: A contents entry of a section inside a line's text: "Subtitle B— Port and Harbor
#: Maintenance Sec. 2101. Funding for ...", a line of a bill's table of contents; a block
#: line in such a paragraph (the line above it holds an entry) is one of its lines too.
_SECTION_ENTRY = re.compile(r"(?:^|\s)(?:Sec|SEC)\.\s*\d+[A-Za-z]?\.(?:\s|$)")
_PAREN_ITEM = re.compile(rf"^\((?P<value>{PAREN_VALUE})\)(?=\s|$)")
#: "1)", "a)", "iv)": items numbered with a closing bracket only.
_RPAREN_ITEM = re.compile(r"^(?P<value>\d{1,3}|[a-z]|[ivxl]{1,6}|[A-Z])\)(?=\s)")
_DOT_ITEM = re.compile(r"^(?P<value>\d{1,3}(?:\.\d{1,3})*)\.(?=\s|$)")
#: "a." / "iv." points, as Word's default lower-letter list shows them ("2.2(b)" in a citation),
#: and "A." points inside a clause, as a licence lists them ("A. Use in the Title Page ..."):
#: a capital is read as a letter only ("I." is the ninth), and opens a list only right under a
#: numbered clause.
_LETTER_DOT_ITEM = re.compile(r"^(?P<value>[a-z]|[ivxl]{1,6}|[A-Z])\.(?=\s)")
_DECIMAL_ITEM = re.compile(r"^(?P<value>\d{1,3}(?:\.\d{1,3})+)(?=\s+[A-Z‘'\"“(])")
#: An appendix's decimal clauses: "A.1.  Changes", "C.12.  Since draft-08" (``appendix-a-1``).
_BARE_CLAUSE = re.compile(r"^(?P<value>\d{1,3}(?:\.\d{1,3}){2,4})$")
"""A clause number of three parts or more alone on its line ("12.6.1"), as a PDF gives a
requirement whose number and text sit in two cells of a row."""
_LETTERED_DECIMAL = re.compile(r"^(?P<value>[A-Z](?:\.\d{1,3})+)(?:\.(?=\s)|(?=\s+[A-Z‘'\"“(]))")
_CAPS_TITLE = re.compile(r"^\s*(?P<title>[A-Z][A-Z0-9 ,'’&/\-]{2,80}?)\.?\s*(?:—|--|\.—)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_ITEM_HEADING = re.compile(r"^[ \t]+#{1,6}(?=[ \t])")
"""A Markdown heading inside a numbered list item ("9. #### Indemnification", an HTML page's
``<ol><li><h4>``): the item's title is the heading's text."""
_RULE = re.compile(r"^[ \t]*(?:[-=*_~+#][ \t]*){3,}$")
"""A line drawn across: "-----" under a title, "* * * * *" closing a box."""
_QUOTE_MARKERS = re.compile(r"^(?:[ \t]{0,3}>)+[ \t]?")
#: Longest title a numbered line may have to be a heading ("2.  Notational Conventions...").
MAX_NUMBERED_TITLE = 100
_TITLE_START = re.compile(r"^[\w‘'\"“]")
_RUN_IN_TITLE = re.compile(r"^\s*(?P<title>[A-Z][^.:;!?()\"“]{0,80}?)\.(?=\s+[A-Z\"“(]|\s*$)")
"""A clause's title closed by a full stop: "2. Grant of Copyright License. Subject to..."."""
MAX_RUN_IN_WORDS = 8
_BOLD_LABEL = re.compile(
    r"^(?:[*+-][ \t]+)?(?P<mark>\*\*|__)"
    r"(?P<label>\(?(?:\d{1,3}(?:\.\d{1,3})*|[a-z]|[ivxl]{1,6}|[A-Z])\)?\.?)(?P=mark)"
    r"(?P<dot>\.)?(?=[ \t])"
)
_LINK_MARKUP = re.compile(r"\[(?P<text>[^\]\n]*)\](?:\([^)\n]*\)|\[[^\]\n]*\])")
"""A Markdown link, inline ("[Meetings](https://...)") or by reference ("[Chairs][terms]")."""
_EMPHASIS = re.compile(r"(?P<mark>\*{1,3}|_{1,3})(?=\S)(?P<text>[^*_\n]+?)(?<=\S)(?P=mark)")
_BULLETED_POINT = re.compile(
    r"^[*+-][ \t]+(?=\(?(?:\d{1,3}|[a-z]|[ivxl]{1,6}|[A-Z])\)[ \t])"
)
_BOLD_ALONE = re.compile(r"^\s*(?P<mark>\*\*|__)(?P<words>[^*_\n]+?)(?P=mark)\s*$")
_TITLE_SMALL_WORDS = frozenset(
    {"of", "the", "a", "an", "and", "or", "for", "to", "in", "on", "by", "with", "at", "from"}
    | {"under", "as"}
)
_NOT_TITLES = frozenset(
    {"mr", "mrs", "ms", "dr", "no", "nos", "st", "inc", "ltd", "co", "corp", "art", "sec"}
    | {"fig", "vol", "p", "pp"}
)


@dataclass
class Mark:
    """A line that opens a section."""

    line: int
    kind: str
    """A block kind ("article", "chapter", ...) or "enum"."""
    value: str
    label: Label | None
    heading: str
    heading_lines: int
    """Lines that form the heading (label, and a title line under it); 0 when the
    label starts a line of text ("(a) the personal data ...")."""
    styles: list[tuple[str, int]] = field(default_factory=list)
    """For enumerations: the (style, position) readings of the value, e.g. "(i)"
    reads as the 9th lower-case letter or the 1st lower-case Roman numeral."""
    key: tuple[str, ...] = ()
    """For a rulebook's numbered line (kind "path"): its number's parts
    (see :mod:`~.rule_paths`)."""
    section_id: str = ""
    """For a rulebook's numbered line: its id, final."""
    indent: int = 0
    """Columns before the label on its line (plain text)."""
    after_blank: bool = False
    """The line opens a paragraph: the text's first line, or one after a blank line."""
    column: int = 0
    """Where on its line the mark starts: a point written after its clause's number on the
    clause's line ("10. a. A Derived Work ...") starts after it."""

    @property
    def titled(self) -> bool:
        """The heading holds a title, not the label alone ("5.  Data Framing", not "5.")."""
        return self.heading.strip().rstrip(".") != self.value.rstrip(".")


@dataclass
class OutlineNode:
    """A section found in text: where it starts, its parent and its heading."""

    mark: Mark
    parent: int | None
    """Index of the parent node, or None for a child of the enclosing section."""
    style: str = ""


def _block_mark(index: int, lines: list[str]) -> Mark | None:
    stripped = lines[index].strip()
    match = _BLOCK.match(stripped)
    if not match:
        return None
    kind = KIND_ALIASES[match["kind"].lower().rstrip(".")]
    number, rest = match["num"].replace("–", "-"), match["rest"]
    # a range is "§§ 41.117–41.118" alone; "Appendix A-1" is one number
    if "-" in number and number[0].isdigit() and match["kind"] != "§§":
        number = re.split(r"[–-]", match["num"])[0]
        rest = match["num"][len(number) :] + rest
    if number.isalpha() and kind not in ROMAN_KINDS | TOP_KINDS | {"subpart", "subtitle"}:
        return None
    if kind in ROMAN_KINDS and number.isalpha() and len(number) > 1 and not roman_to_int(number):
        return None
    if not _heading_rest(rest) or (match["parens"] and rest.strip() and rest.strip()[0].isalnum()):
        return None
    if re.match(r"\.\w", rest):
        return None  # "PART 3.6.1.4.Withdrawal_of_registration": a longer number, no block
    again = _BLOCK_AGAIN.search(rest)
    if again and again["kind"].lower() == match["kind"].lower():
        return None  # "Section 8.2.2: Created ; Section 8.2.3: ...": a list of references
    if _SECTION_ENTRY.search(rest):
        return None
    parts = number_parts(kind, number, _ROMAN_NUMBERED) + paren_parts(match["parens"])
    heading, used = plain_heading(stripped), 1
    title = _title_below(lines, index) if not rest.strip(" .:-–—") else None
    title = plain_heading(title) if title else None
    if title:
        heading, used = f"{heading} - {title}", 2
    return Mark(index, kind, number, Label(kind, tuple(parts)), heading, used)


def _heading_rest(rest: str) -> bool:
    """What may follow a label for the line to be a heading, not a sentence."""
    if not rest.strip():
        return True
    if re.match(r"^\s*[.:\-–—]", rest):
        return True
    text = rest.strip()
    if re.match(r"^\[(?:Reserved|Removed|Repealed)\]", text):  # "§§ 41.117–41.118 [Reserved]"
        return True
    return bool(re.match(r"^[A-Z‘'\"“(]", text)) and len(text) <= 150 and text[-1] not in ",;"


def _title_below(lines: list[str], index: int) -> str | None:
    """A short title on the line right under a bare label ("Article 17" / "Right to erasure")."""
    if index + 1 >= len(lines):
        return None
    candidate = lines[index + 1].strip()
    if not candidate or len(candidate) > 200 or candidate[-1] in ".;:,":
        return None
    if _BLOCK.match(candidate) or _PAREN_ITEM.match(candidate) or _DOT_ITEM.match(candidate):
        return None
    return candidate


def _enum_readings(value: str) -> list[tuple[str, int]]:
    """Every way to read an enumerator: style and 1-based position."""
    if value.isdigit():
        return [("paren-arabic", int(value))]
    readings = []
    if len(value) == 1:
        case = "lower" if value.islower() else "upper"
        readings.append((f"paren-{case}", ord(value.lower()) - ord("a") + 1))
    roman = roman_to_int(value.upper())
    if roman is not None and value in (value.lower(), value.upper()):
        readings.append((f"paren-roman-{'lower' if value.islower() else 'upper'}", roman))
    return readings


def _enum_mark(index: int, lines: list[str]) -> Mark | None:
    stripped = _plain_label(lines[index].strip())
    indent = len(lines[index]) - len(lines[index].lstrip())
    match = _PAREN_ITEM.match(stripped)
    if match:
        readings = _enum_readings(match["value"])
        label_text = f"({match['value']})"
    elif match := _RPAREN_ITEM.match(stripped):
        readings = [
            (style.replace("paren-", "rparen-"), value)
            for style, value in _enum_readings(match["value"])
        ]
        label_text = f"{match['value']})"
    elif match := _LETTER_DOT_ITEM.match(stripped):
        readings = [
            (style.replace("paren-", "dot-"), value)
            for style, value in _enum_readings(match["value"])
            if match["value"].islower() or style == "paren-upper"
        ]
        label_text = f"{match['value']}."
    else:
        match = (
            _DOT_ITEM.match(stripped)
            or _DECIMAL_ITEM.match(stripped)
            or _LETTERED_DECIMAL.match(stripped)
            or _bare_clause(index, lines)
        )
        if not match:
            return None
        parts = match["value"].split(".")
        if _numbered_title(_unbold(stripped[match.end() :]), lines, index):
            parts = _decimal_parts(match["value"])
        readings = [(f"decimal{len(parts)}", int(parts[-1]))]
        label_text = match["value"] + ("." if "." not in match["value"] else "")
    if not readings:
        return None
    rest = _unbold(_LIST_ITEM_HEADING.sub(" ", stripped[match.end() :], count=1))
    if readings[0][0].startswith("decimal") and _numbered_title(rest, lines, index):
        heading = plain_heading(f"{label_text} {rest.strip()}")
        return Mark(index, "enum", match["value"], None, heading, 1, readings, indent=indent)
    if readings[0][0].startswith("decimal") and (title := run_in_title(rest)):
        heading = plain_heading(f"{label_text} {title}")
        alone = not rest.strip()[len(title) + 1 :].strip()
        lines_taken = 1 if alone else 0
        return Mark(
            index, "enum", match["value"], None, heading, lines_taken, readings, indent=indent
        )
    caps = _CAPS_TITLE.match(rest)
    heading = f"{label_text} {caps['title'].strip()}" if caps else label_text
    lines_taken = 0 if rest.strip() else 1
    return Mark(index, "enum", match["value"], None, heading, lines_taken, readings, indent=indent)


def _bare_clause(index: int, lines: list[str]) -> re.Match[str] | None:
    """A clause number alone on its line whose text follows it as the next paragraph (after
    at most one blank line), opening with a capital and a few words: "12.6.1" / "" /
    "Verify that ...". A number followed by another number, a word or nothing is a
    table's cell, not a clause."""
    match = _BARE_CLAUSE.match(lines[index].strip())
    if not match:
        return None
    below = [line.strip() for line in lines[index + 1 : index + 3]]
    text = below[0] or (below[1] if len(below) > 1 else "")
    return match if text and _CLAUSE_TEXT.match(text) else None


_CLAUSE_TEXT = re.compile(r"^[‘'\"“]?[A-Z][a-z’']*(?:\s+\S+){2}")
"""Text that opens a clause: a word with a capital, then two more words at least."""


def _plain_label(line: str) -> str:
    """A line whose clause number is in bold, alone or as the text of a bullet ("*   **2.1.**
    Except as ..." of a Markdown terms of service), or a bullet whose text opens with a
    point's label ("* b) Subject to ...", a page's list that hides its bullets and types
    its labels), with the number or label as plain text."""
    if match := _BOLD_LABEL.match(line):
        return match["label"] + (match["dot"] or "") + _without_markup(line[match.end() :])
    return line[match.end() :] if (match := _BULLETED_POINT.match(line)) else line


def _without_markup(text: str) -> str:
    """Markdown text as its words: links give their text, emphasis its words ("**9.2**
    *Archival Permanence*. OASIS ..." and "**10.2** [**Meetings**](url) of the ..." are
    clauses whose text opens with a title or a capital, as a plain clause's does)."""
    return _EMPHASIS.sub(r"\g<text>", _LINK_MARKUP.sub(r"\g<text>", text))


def _unbold(rest: str) -> str:
    """The words of a clause number's text that is one bold span ("1.  **Mission and
    Scope**", a Markdown list item's title), so that they read as its title."""
    match = _BOLD_ALONE.match(rest)
    return f" {match['words']}" if match else rest


def run_in_title(rest: str) -> str | None:
    """The title a clause number's text opens with, closed by a full stop: "Grant of
    Copyright License" in "Grant of Copyright License. Subject to ...", "Definitions" in
    "Definitions." alone. A title is a few words, each significant one capitalised, so a
    sentence ("Name of the licensor.") or an abbreviation ("No. 5") is none."""
    match = _RUN_IN_TITLE.match(rest)
    if not match:
        return None
    title = match["title"].strip()
    words = title.split()
    if not 0 < len(words) <= MAX_RUN_IN_WORDS or title.casefold() in _NOT_TITLES:
        return None
    significant = [w for w in words if w.casefold() not in _TITLE_SMALL_WORDS]
    if not all(w[0].isupper() or w[0].isdigit() for w in significant):
        return None
    return title


def _decimal_parts(value: str) -> list[str]:
    """The parts of a clause number that place it: the heading "2.0  SOURCE CODE LICENSE"
    heads clause 2, whose "2.1", "2.2" follow, so it reads as "2", not as a point 0 of 2
    (a paragraph that opens "1.0 General; ..." keeps its point 0, which opens nothing)."""
    parts = value.split(".")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return parts


def numbered_line(index: int, lines: list[str]) -> Mark | None:
    """The mark of a numbered line ("2. Fair Use Rights. ..."): its heading and how many
    lines the heading takes (0 when the number starts a line of text)."""
    return _enum_mark(index, [line.rstrip("\n") for line in lines])


def _numbered_title(rest: str, lines: list[str], index: int) -> bool:
    """True when a clause number's line is a heading: "1.  Introduction", "15.2.1  100
    Continue", "0. Definitions", a short title with no sentence punctuation at its end,
    standing alone as a paragraph (a blank line, a rule such as a setext underline or a
    box's row of asterisks, or the end of the text under it). "3.3
    Contributors may not remove..." runs on to the next line and stays a numbered
    paragraph; "(a) the data" is a point; a tab inside the rest parts the cells of a
    table row ("3.<TAB>Late fee<TAB>2,000")."""
    title = rest.strip()
    if not title or len(title) > MAX_NUMBERED_TITLE or title[-1] in ".,;:" or "\t" in title:
        return False
    if not _TITLE_START.match(title) or not any(c.isalpha() for c in title):
        return False
    return index + 1 >= len(lines) or not lines[index + 1].strip() or _RULE.match(lines[index + 1])


_POINT_AFTER_NUMBER = re.compile(r"^\s*\d{1,3}\.[ \t]+(?=(?:[a-z]|\([a-z]\))\.?[ \t]+[A-Z])")


def _point_on_clause_line(mark: Mark, index: int, lines: list[str]) -> Mark | None:
    """The first point of a clause whose number has no text of its own ("10. a. A Derived
    Work may ..."): a mark of its own on the clause's line, so that the clause is 10 and
    the text its point 10(a)."""
    if mark.kind != "enum" or not mark.styles or not mark.styles[0][0].startswith("decimal"):
        return None
    match = _POINT_AFTER_NUMBER.match(lines[index])
    if match is None:
        return None
    rest = lines[index][match.end() :]
    point = _enum_mark(index, [*lines[:index], " " * match.end() + rest, *lines[index + 1 :]])
    if point is None or point.styles[0][1] != 1:
        return None
    mark.heading, mark.heading_lines = f"{mark.value}.", 0
    point.after_blank, point.column = False, match.end()
    return point


def find_marks(text: str) -> list[Mark]:
    """Candidate structure lines of a text, outside code fences; a line in a Markdown block
    quote is read without its quote markers (an HTML page indents its points that way)."""
    lines = [_QUOTE_MARKERS.sub("", line) for line in text.splitlines()]
    marks: list[Mark] = []
    in_fence = False
    skip_until = -1
    previous = ""
    rulebook = rule_paths.is_rulebook(lines)
    contents = contents_lines(lines) | marked_table_rows(lines)
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if not line.strip() or index in contents:
            previous = ""
        if in_fence or index <= skip_until or not line.strip() or index in contents:
            continue
        block = _path_mark(index, lines) if rulebook else None
        if block is None and not _continues_sentence(previous) and not _in_contents(previous):
            block = _block_mark(index, lines)
        mark = block or _enum_mark(index, lines)
        previous = "" if block else line
        if mark:
            mark.after_blank = index == 0 or not lines[index - 1].strip()
            marks.append(mark)
            skip_until = index + mark.heading_lines - 1
            if (point := _point_on_clause_line(mark, index, lines)) is not None:
                marks.append(point)
    if rulebook:
        marks = _with_unwritten_rules(_without_restarts(marks, lines))
        paths = [m for m in marks if m.kind == "path"]
        ids = rule_paths.path_ids([m.key for m in paths])
        for mark, section_id in zip(paths, ids, strict=True):
            mark.section_id = section_id
    return marks


_TABLE_START = re.compile(r"[/\\]Table Start")
_TABLE_END = re.compile(r"[/\\]Table End")


def marked_table_rows(lines: list[str]) -> set[int]:
    """Lines of the tables a text marks, as rulebooks exported from Word do: the rows after
    a line holding "/Table Start", up to the line holding "/Table End" (or before the next
    table). A row numbered "1.", "3C" or "(a)" is a cell of the table, not a section."""
    rows: set[int] = set()
    inside = False
    for index, line in enumerate(lines):
        if _TABLE_START.search(line):
            inside = True
        elif inside:
            rows.add(index)
            inside = not _TABLE_END.search(line)
    return rows


def _without_restarts(marks: list[Mark], lines: list[str]) -> list[Mark]:
    """Numbered lines that go back on their level read as list items (or text)."""
    paths = [m for m in marks if m.kind == "path"]
    restarted = {paths[i].line for i in rule_paths.restarts([m.key for m in paths])}
    kept = []
    for mark in marks:
        if mark.line in restarted:
            mark = _enum_mark(mark.line, lines)
        if mark is not None:
            kept.append(mark)
    return kept


def _with_unwritten_rules(marks: list[Mark]) -> list[Mark]:
    """A rule whose number the document writes only with its paragraphs ("2.1.1.(1)",
    "2.1.1.(2)", no line "2.1.1") opens where its first paragraph does, with no text of its
    own, so that "Rule 2.1.1" is a section holding its paragraphs."""
    seen: set[tuple[str, ...]] = set()
    result: list[Mark] = []
    for mark in marks:
        parent = mark.key[:-1]
        if mark.kind == "path" and parent not in seen and rule_paths.is_rule(parent):
            label = ".".join(mark.value.split(".")[: -1 - mark.value.endswith(".")])
            result.append(Mark(mark.line, "path", label, None, label, 0, key=parent))
            seen.add(parent)
        if mark.kind == "path":
            seen.add(mark.key)
        result.append(mark)
    return result


def _path_mark(index: int, lines: list[str]) -> Mark | None:
    """A rulebook's numbered line: "2.1.1.(1)<TAB>The twelve ...", "1.2<TAB>Overview"."""
    read = rule_paths.read_path(lines[index])
    if read is None:
        return None
    label, key, rest = read
    title = rule_paths.is_title(rest)
    shown = rule_paths.cited_label(label)
    heading = plain_heading(f"{shown} {rest}" if title else shown)
    return Mark(index, "path", label, None, heading, 1 if title or not rest else 0, key=key)


def _in_contents(previous: str) -> bool:
    """True when the line above is a wrapped line of a table of contents ("... Sec. 3102.
    PreCheck program enrollment expansion.")."""
    return _SECTION_ENTRY.search(previous) is not None


def _continues_sentence(previous: str) -> bool:
    """True when the previous line of text runs on ("... programs under" / "Title IV:")."""
    text = previous.rstrip()
    return bool(text) and (text[-1].isalnum() or text[-1] in ",(-")


@dataclass
class _Level:
    style: str
    value: int
    node: int
    prefix: tuple[str, ...] = ()
    titled_at: int | None = None
    """The indent of the level's first item when it is a titled clause heading."""
    indent: int = 0
    """The indent of the level's last item."""
    nested: bool = False
    """A list numbered again inside an item of its own style (see :func:`_nests_in`)."""


#: Items an enumeration may skip and go on: "(l)" after "(j)" when "(k)" was lost in
#: conversion or left out as reserved. Further apart, the item is read as text.
MAX_SKIPPED = 2


def _continues(level: _Level, style: str, value: int, mark: Mark, skipped: int = 0) -> bool:
    """Whether the item goes on from ``level``. An item without a title set further in
    than the titled clauses of the level ("   3.   The request MUST ..." in an RFC's
    section, after "2.  Requirements") is a list item, not the next clause; so is one set
    further in that skips a value, titled or not (item "4." of a nested Markdown list
    under clause "2.")."""
    if level.style != style or value != level.value + 1 + skipped:
        return False
    if level.nested and mark.indent < level.indent:
        return False  # the outer list's next item, set further out than the nested list
    further_in = level.titled_at is not None and mark.indent > level.titled_at
    if further_in and (not mark.titled or skipped):
        return False
    return not style.startswith("decimal") or tuple(_decimal_parts(mark.value)[:-1]) == level.prefix


def _opens_level(
    stack: list[_Level], style: str, value: int, mark: Mark, in_clause: bool = False
) -> bool:
    """A first value ("(a)", "(1)", "(i)", "1.", "4.1") of a style not open yet; clauses
    may count from "0." (a licence's "0. Definitions")."""
    first = value == 1 or (value == 0 and style == "decimal1")
    if not first or any(level.style == style and not _nests_in(level, mark) for level in stack):
        return False
    under_clause = stack[-1].style.startswith("decimal") if stack else in_clause
    if style == "dot-upper" and not under_clause:
        return False  # "A. The Parties intend ...": a recital, not a point of a clause
    if style in ("decimal1",) or not style.startswith("decimal"):
        return True
    prefix = tuple(_decimal_parts(mark.value)[:-1])
    if stack and stack[-1].style.startswith("decimal"):
        return prefix == (*stack[-1].prefix, str(stack[-1].value))
    return True


def _nests_in(level: _Level, mark: Mark) -> bool:
    """A list item numbered from one again, set further in than the open untitled items of
    its style: a nested list of a Markdown list ("    1." under "1. The Supplier shall:").
    Under titled clauses ("1.  Introduction" of an RFC) a list set further in is text."""
    return level.titled_at is None and mark.indent > level.indent and not mark.titled


def _place_enum(
    stack: list[_Level], mark: Mark, following: Mark | None = None, in_clause: bool = False
) -> tuple[int, str, int] | None:
    """(stack depth to keep, style, value) for an enumeration item, or None if it is text.
    An "(i)" that could go on from "(h)" but is followed by "(ii)" opens a Roman list."""
    if following is not None and _opens_roman_list(mark, following):
        for style, value in mark.styles:
            roman = style.startswith("paren-roman")
            if roman and _opens_level(stack, style, value, mark, in_clause):
                return len(stack), style, value
    if placed := _continuation(stack, mark):
        return placed
    if placed := _skip_went_on(stack, mark, following):
        return placed
    for style, value in mark.styles:
        if _opens_level(stack, style, value, mark, in_clause):
            return len(stack), style, value
    for skipped in range(1, MAX_SKIPPED + 1):
        if placed := _continuation(stack, mark, skipped):
            return placed
    return None


def _skip_went_on(
    stack: list[_Level], mark: Mark, following: Mark | None
) -> tuple[int, str, int] | None:
    """An item that goes on from an open level over a skipped value, and that the next item
    goes on from in turn: "I." after "G." then "J." (a licence that leaves out "H."), not a
    Roman one."""
    for skipped in range(1, MAX_SKIPPED + 1):
        placed = _continuation(stack, mark, skipped)
        if placed and following is not None:
            depth, style, value = placed
            if (style, value + 1) in following.styles:
                return placed
    return None


def _continuation(stack: list[_Level], mark: Mark, skipped: int = 0) -> tuple[int, str, int] | None:
    """The deepest open level the item goes on from, ``skipped`` items after its last."""
    for depth in range(len(stack) - 1, -1, -1):
        for style, value in mark.styles:
            if _continues(stack[depth], style, value, mark, skipped):
                return depth, style, value
    return None


def _opens_roman_list(mark: Mark, following: Mark) -> bool:
    """``mark`` reads as a Roman one and ``following`` as the Roman two of the same case."""
    romans = {s for s, value in mark.styles if s.startswith("paren-roman") and value == 1}
    return any(style in romans and value == 2 for style, value in following.styles)


def build_outline(
    marks: list[Mark], root_kind: str = "", root_number: tuple[str, ...] = ()
) -> list[OutlineNode]:
    """Decide which marks open sections and where each nests; ``root_number`` is the number
    of the heading above the text ("3.2" for "3.2 Competence"), if it has one."""
    nodes: list[OutlineNode] = []
    blocks: list[tuple[str, int | None]] = [(root_kind, None)]
    enums: list[_Level] = []
    paths: list[tuple[tuple[str, ...], int]] = []
    seen: dict[tuple[str, ...], int] = {}
    for position, mark in enumerate(marks):
        if mark.kind == "path":
            paths = _open_paths(paths, mark.key, seen)
            nodes.append(OutlineNode(mark, paths[-1][1] if paths else blocks[-1][1], "path"))
            paths.append((mark.key, len(nodes) - 1))
            seen[mark.key] = len(nodes) - 1
            enums = []
            continue
        if mark.kind != "enum":
            blocks = _pop_blocks(blocks, mark.kind)
            nodes.append(OutlineNode(mark, blocks[-1][1], mark.kind))
            blocks.append((mark.kind, len(nodes) - 1))
            enums, paths, seen = [], [], {}
            continue
        following = marks[position + 1] if position + 1 < len(marks) else None
        in_clause = BLOCK_RANK.get(blocks[-1][0]) == BLOCK_RANK["section"]
        placed = _place_enum(enums, mark, following, in_clause)
        placed = placed or _numbered_within(enums, mark, root_number)
        if placed is None:
            continue
        depth, style, value = placed
        previous = enums[depth] if depth < len(enums) else None
        enums = enums[:depth]
        parent = enums[-1].node if enums else paths[-1][1] if paths else blocks[-1][1]
        nodes.append(OutlineNode(mark, parent, style))
        prefix = tuple(_decimal_parts(mark.value)[:-1]) if style.startswith("decimal") else ()
        titled_at = _titled_at(previous, mark)
        nested = any(level.style == style for level in enums)
        level = _Level(style, value, len(nodes) - 1, prefix, titled_at, mark.indent, nested)
        enums.append(level)
    return nodes


def _numbered_within(
    stack: list[_Level], mark: Mark, root_number: tuple[str, ...]
) -> tuple[int, str, int] | None:
    """A clause numbered in full opens its first level whatever its value: one whose number
    extends the number of the heading above the text ("3.2.3" under "3.2 Competence", when
    "3.2.1" and "3.2.2" were set apart in a table or on the page before), and a titled
    clause heading of three parts or more standing alone ("3.1.4. Attack Vector 4" under
    an unnumbered heading a PDF marked between 3.1.3 and 3.1.4)."""
    if stack or not mark.styles:
        return None
    style, value = mark.styles[0]
    if not style.startswith("decimal"):
        return None
    prefix = tuple(_decimal_parts(mark.value)[:-1])
    whole = len(prefix) >= 2 and mark.heading_lines > 0 and mark.titled and mark.after_blank
    return (0, style, value) if whole or (root_number and prefix == root_number) else None


def _titled_at(previous: _Level | None, mark: Mark) -> int | None:
    """The indent of the titled clauses of a level: kept from its first titled item."""
    if previous is not None and previous.titled_at is not None:
        return previous.titled_at
    return mark.indent if mark.titled else None


def _open_paths(
    paths: list[tuple[tuple[str, ...], int]], key: tuple[str, ...], seen: dict[tuple[str, ...], int]
) -> list[tuple[tuple[str, ...], int]]:
    """The open numbered lines a new one nests under: those whose number begins its own, and
    an appendix that its number's letter names ("A2.1" under "APP2"); then the longest
    earlier number that begins it, when a line between closed it ("APP6.1." of a guidance
    note between "A6.2.13" and "A6.2.14": A6.2.14 is still in A6.2)."""
    while paths and not _begins(paths[-1][0], key):
        paths = paths[:-1]
    for end in range(len(key) - 1, len(paths[-1][0]) if paths else 0, -1):
        if key[:end] in seen:
            return [*paths, (key[:end], seen[key[:end]])]
    return paths


def _begins(open_key: tuple[str, ...], key: tuple[str, ...]) -> bool:
    if len(open_key) < len(key) and key[: len(open_key)] == open_key:
        return True
    appendix = open_key[-1].removeprefix("appendix ")
    return len(open_key) == 1 and appendix != open_key[-1] and key[0] == f"a{appendix}"


def _pop_blocks(blocks: list[tuple[str, int | None]], kind: str) -> list[tuple[str, int | None]]:
    """The open blocks a new block of ``kind`` sits under.

    A kind already open closes down to its previous occurrence. A new kind goes
    below the open ones, except that it closes those that usually sit below it
    ("TITLE II" closes an open "Chapter 3"); kinds of equal rank, such as parts
    and chapters, nest either way, as they do in different legal systems.
    """
    if kind in TOP_KINDS:
        return blocks[:1]
    kinds = [k for k, _ in blocks]
    if kind in kinds[1:]:
        return blocks[: kinds.index(kind, 1)]
    rank = BLOCK_RANK.get(kind, 9)
    while len(blocks) > 1 and BLOCK_RANK.get(blocks[-1][0], 9) > rank:
        blocks = blocks[:-1]
    return blocks


def table_of_contents(nodes: list[OutlineNode], lines: list[str]) -> set[int]:
    """Lines of block headings with no text of their own that are repeated later.

    Repeated means at the same place in the tree, or with the same label and
    heading ("Chapter 1 - Technology Transfer" / "CHAPTER 1 - TECHNOLOGY TRANSFER").
    """
    blocks = [i for i, n in enumerate(nodes) if n.mark.kind not in ("enum", "path")]
    keys = {i: _block_key(nodes, i) for i in blocks}
    headings = {i: (keys[i][-1], nodes[i].mark.heading.casefold()) for i in blocks}
    last_key = {key: i for i, key in keys.items()}
    last_heading = {heading: i for i, heading in headings.items()}
    toc = set()
    for i in blocks:
        node = nodes[i]
        if last_key[keys[i]] == i and last_heading[headings[i]] == i:
            continue
        start = node.mark.line + node.mark.heading_lines
        end = nodes[i + 1].mark.line if i + 1 < len(nodes) else len(lines)
        if not any(line.strip() for line in lines[start:end]):
            toc.add(node.mark.line)
    return toc


def _block_key(nodes: list[OutlineNode], index: int) -> tuple[str, ...]:
    key: list[str] = []
    current: int | None = index
    while current is not None:
        label = nodes[current].mark.label
        key.append(label.section_id() if label else nodes[current].mark.value)
        current = nodes[current].parent
    return tuple(reversed(key))


def outline(
    text: str,
    root_kind: str = "",
    root_number: tuple[str, ...] = (),
    marks: list[Mark] | None = None,
) -> list[OutlineNode]:
    """The sections opened by numbering in ``text``, table-of-contents entries left out;
    ``root_number`` is the number of the heading above the text, if it has one, ``marks``
    those :func:`find_marks` gives for it, when already found."""
    marks = find_marks(text) if marks is None else marks
    lines = text.splitlines()
    nodes = build_outline(marks, root_kind, root_number)
    for _ in range(3):  # leaving out one level of a contents list can expose the next
        toc = table_of_contents(nodes, lines)
        if not toc:
            break
        marks = [m for m in marks if m.line not in toc]
        nodes = build_outline(marks, root_kind, root_number)
    return nodes
