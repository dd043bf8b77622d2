"""Rulebook numbering: lines that write a rule's whole number, and the tree it gives.

Rulebooks and regulations exported from Word as plain text write each rule's full number at
the start of its line, then a tab: ``5.3.6<TAB>Compliance Officer: ...``, ``2.1.1.(1)<TAB>The
twelve Principles ...``, ``1.2.Guidance.1.<TAB>Chapter 2 sets out ...``, ``Part 12.Chapter
1.119.(1)<TAB>...``, ``APP2.A2.1.1``, ``SECTION VIII.C.1.``. Such a number is a path: its
parent is the longest earlier number that begins it ("2.1.1.(1)" under "2.1.1", else "2.1";
"1.2.Guidance.1." under "1.2.Guidance", else "1.2"), so the tree follows from the numbers
alone, whatever was skipped, repealed or left unnumbered.

A text is read this way when it has at least :data:`MIN_PATHS` lines whose number has
several parts and is followed by a tab (or ends the line): a contract's "4.2 Payment"
clauses keep the outline's reading. A path's id is its number under ``section-``, its
containers (parts, chapters, schedules, appendices) left out, as the rule is cited ("Rule
2.1.1(1)" is ``section-2-1-1-1``; "section 119" of "Part 12.Chapter 1.119." is
``section-119``); a number used again later (a schedule's own "1.") is qualified by its
containers (``schedule-1-section-1``). A number of containers only is the last one's id
(``part-12``, ``chapter-1``, qualified when repeated: ``part-12-chapter-1``).
"""

from __future__ import annotations

import re

from .numbering import roman_to_int

#: Lines with a multi-part number before a tab that make a text a rulebook.
MIN_PATHS = 5
#: Kinds that contain rules without being part of their number.
CONTAINERS = {
    "part": "part",
    "chapter": "chapter",
    "schedule": "schedule",
    "appendix": "appendix",
    "app": "appendix",
    "annex": "annex",
    "title": "title",
    "division": "division",
}
_KIND_WORDS = (
    "Part", "Chapter", "Schedule", "Appendix", "APP", "App", "Annex", "Title", "Division",
    "Section", "Rule",
)  # fmt: skip
_KIND = "(?:" + "|".join(sorted({*_KIND_WORDS, *(w.upper() for w in _KIND_WORDS)})) + ")"
_COMPONENT = (
    rf"(?:Guidance|{_KIND} ?(?:\d{{1,4}}[A-Z]?|[IVXLC]{{1,7}}|[A-Z])"
    r"|\d{1,4}[A-Z]{0,2}|[A-Z]\d{0,3}(?![A-Za-z])|\([0-9A-Za-z]{1,6}\))"
)
#: After the first part, a lower-case letter or Roman numeral too: "2.3.a.", "4.1.iv".
_LATER = rf"(?:{_COMPONENT}|[a-z](?![a-z])|[ivx]{{2,5}}(?![a-z]))"
PATH_LABEL = re.compile(
    rf"^[ \t]*(?P<label>{_COMPONENT}(?:\.{_LATER})*\.?)(?P<sep>[ ]*\t|[ \t]*$)(?P<rest>.*)$"
)
#: In a rulebook, a number may also be followed by spaces ("PART 2.2.1.13  Profit
#: Sharing ...", "PART 2.Guidance.1 In these Rules ..."), or a part's title may follow its
#: number's full stop ("PART 2.DEFINITIONAL_PROVISIONS").
_LOOSE_LABEL = re.compile(
    rf"^[ \t]*(?P<label>{_COMPONENT}(?:\.{_LATER})*\.?)"
    rf"(?P<sep> +(?=[A-Z\"“‘'(\[])|(?<=\.)(?=[A-Z]{{3}}))(?P<rest>.*)$"
)
_CONTAINER_WORDS = "|".join(sorted({w for k in CONTAINERS for w in (k.capitalize(), k.upper())}))
#: Container parts that begin a number which goes on with the rule's own: "Part 2.Chapter
#: 1." of "Part 2.Chapter 1.7.", "APP2." of "APP2.A2.1.1".
_LEADING_CONTAINERS = re.compile(
    rf"^(?:(?:{_CONTAINER_WORDS}) ?(?:\d{{1,4}}[A-Z]?|[IVXLC]{{1,7}}|[A-Z])\.)+(?=\d|[A-Z]\d)"
)
_PART = re.compile(rf"{_COMPONENT}|(?<=\.)(?:[a-z](?![a-z])|[ivx]{{2,5}}(?![a-z]))")
_KIND_PART = re.compile(rf"^(?P<kind>{_KIND}) ?(?P<num>.+)$")
_TITLE_MAX = 100
#: The text of a glossary row ("1P<TAB>Means the low estimate ..."): a term, not a rule.
_DEFINES = re.compile(r"\s*(?:means|has the meaning)\b", re.IGNORECASE)


def path_key(label: str) -> tuple[str, ...]:
    """The parts of a number, normalised: "Part 12.Chapter 1.119.(1)" -> ("part 12",
    "chapter 1", "119", "1"); "1.2.Guidance.1." -> ("1", "2", "guidance", "1")."""
    key = []
    for part in _PART.findall(label):
        match = _KIND_PART.match(part)
        if match:
            kind = match["kind"].lower()
            kind = CONTAINERS.get(kind, kind)
            number = match["num"]
            value = roman_to_int(number) if len(number) > 1 or number in "IVX" else None
            key.append(f"{kind} {value if value is not None else number.lower()}")
        else:
            key.append(part.strip("()").lower())
    return tuple(key)


def multi_part(label: str) -> bool:
    return len(_PART.findall(label)) > 1


def is_rulebook(lines: list[str]) -> bool:
    """At least :data:`MIN_PATHS` lines numbered with a multi-part number and a tab."""
    count = 0
    for line in lines:
        if "\t" not in line:
            continue
        match = PATH_LABEL.match(line)
        if match and "\t" in match["sep"] and multi_part(match["label"]):
            count += 1
            if count >= MIN_PATHS:
                return True
    return False


def read_path(line: str) -> tuple[str, tuple[str, ...], str] | None:
    """(label, key, text after it) of a numbered line of a rulebook, or None. A lone number
    needs a tab after it ("1<TAB>GENERAL PROVISIONS"), or a kind ("PART 2.DEFINITIONS"); a
    lone "(a)" is a list item."""
    match = PATH_LABEL.match(line)
    loose = match is None
    match = match or _LOOSE_LABEL.match(line)
    if not match:
        return None
    label = match["label"]
    several = multi_part(label)
    if label.startswith("(") or _DEFINES.match(match["rest"]):
        return None
    if not several and ("\t" not in match["sep"] and not (loose and _KIND_PART.match(label))):
        return None
    return label.strip(), path_key(label), match["rest"].strip()


def cited_label(label: str) -> str:
    """A number as a heading shows it: without the containers it begins with, which the
    section's ancestors show ("Part 2.Chapter 1.7." -> "7.", "Part 1.1." -> "1."), as its id
    leaves them out."""
    return _LEADING_CONTAINERS.sub("", label)


def is_title(rest: str) -> bool:
    """The text after a number is a title ("Application", "CORE PRINCIPLES"), not a rule."""
    text = rest.strip()
    return bool(text) and len(text) <= _TITLE_MAX and text[-1] not in ".;:,"


def is_rule(key: tuple[str, ...]) -> bool:
    """A number of two parts or more that ends with a rule's number, not a container's or
    "Guidance": "2.1.1", not "1", "Part 12" or "1.2.Guidance"."""
    return len(key) >= 2 and not _is_container(key[-1]) and key[-1] != "guidance"


def _is_container(part: str) -> bool:
    return part.split(" ")[0] in CONTAINERS.values() and " " in part


def _slug(part: str) -> str:
    return part.replace(" ", "-")


def local_id(key: tuple[str, ...]) -> str:
    """The id the number is cited by: containers left out (see the module's docstring)."""
    start = 0
    while start < len(key) - 1 and _is_container(key[start]):
        start += 1
    rest = key[start:]
    if len(rest) == 1 and _is_container(rest[0]):
        return _slug(rest[0])
    first = rest[0].split(" ")[0]
    prefix = [] if " " in rest[0] and first.isalpha() else ["section"]
    return "-".join([*prefix, *(_slug(p) for p in rest)])


def qualified_id(key: tuple[str, ...]) -> str:
    """The id with its containers, for a number used again: ``schedule-1-section-1``."""
    containers = [_slug(p) for p in key if _is_container(p)]
    own = local_id(key)
    if not containers or own == containers[-1]:
        return "-".join(containers) or own
    return "-".join([*containers, own])


def _order(part: str) -> tuple[str, int, str] | None:
    """A part's kind and place in its sequence: "12" -> ("", 12, ""), "13A" -> ("", 13,
    "a"), "part 3" -> ("part", 3, ""), "b" -> ("", 2, ""); None for "guidance"."""
    kind, _, number = part.rpartition(" ")
    match = re.fullmatch(r"(\d+)([a-z]*)", number)
    if match:
        return kind, int(match[1]), match[2]
    if re.fullmatch(r"[a-z]", number):
        return kind, ord(number) - ord("a") + 1, ""
    return None


def restarts(keys: list[tuple[str, ...]]) -> set[int]:
    """Numbered lines that go back on their level ("1." to "16." after "5.2"): rows of a
    table or items of a list, not rules. A line is compared with the last rule of the same
    level and prefix; a line that goes on from such a list ("6." after the list's "5.")
    belongs to the list. A lone letter ("E<TAB>An Exposure value") in a text whose chapters
    are numbered is a table row too: read as chapter 5, it would make chapter 2 after it
    go back."""
    found: set[int] = set()
    last_rule: dict[tuple[str, ...], tuple[str, int, str]] = {}
    last_item: dict[tuple[str, ...], tuple[str, int, str]] = {}
    numbered_top = any(len(key) == 1 and key[0][:1].isdigit() for key in keys)
    for index, key in enumerate(keys):
        order = _order(key[-1])
        if order is None:
            continue
        if numbered_top and len(key) == 1 and key[0].isalpha():
            found.add(index)  # "E<TAB>An Exposure value": a glossary row among chapters 1, 2
            continue
        level = (*key[:-1], order[0])
        rule, item = last_rule.get(level), last_item.get(level)
        if (item and _goes_on(item, order)) or (rule and order[1:] <= rule[1:]):
            found.add(index)
            last_item[level] = order
            continue
        last_rule[level] = order
        last_item.pop(level, None)
    return found


def _goes_on(item: tuple[str, int, str], order: tuple[str, int, str]) -> bool:
    """Whether a number goes on from a list's last item: "3" or "3A" after "2", "3B" after
    "3A"."""
    return order[1] == item[1] + 1 or (order[1] == item[1] and order[2] > item[2])


def path_ids(keys: list[tuple[str, ...]]) -> list[str]:
    """Ids for the numbered lines of a text in order: the first use of a number keeps its
    plain id, later ones are qualified by their containers."""
    used: set[str] = set()
    ids = []
    for key in keys:
        plain = local_id(key)
        chosen = plain if plain not in used else qualified_id(key)
        used.add(chosen)
        ids.append(chosen)
    return ids
