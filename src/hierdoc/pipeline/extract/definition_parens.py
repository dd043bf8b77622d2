"""Parenthetical definitions: ``the European Data Protection Board (the ‘Board’)``.

A parenthesis defines a term only when it holds nothing but the term, quoted (or
emphasised), with the usual lead words ("the", "hereinafter", "each a", "collectively
the", "referred to as"); ``(as set out in "Schedule 2")`` or ``(e.g. "click here")``
define nothing. An unquoted capitalised name counts after "hereinafter" or "referred to
as". The thing the term names is read from the text before the parenthesis, in order:

1. the noun phrase of the term's head word when it is there ("the Charter of
   Fundamental Rights of the European Union (the ‘Charter’)", "The European Data
   Protection Board established by this Regulation (the ‘Board’)");
2. the whole sentence when the parenthesis closes its item or paragraph: a label of
   everything said before it ("(c) adequate, relevant and limited to what is necessary
   ... (‘data minimisation’);");
3. the noun phrase just before the parenthesis ("the Receiving Party (the “Recipient”)",
   "Vantage Deposit Services LLC (“i-Escrow”)"), unless it only points at something
   ("this Regulation", "such data"), which names nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .definition_markup import QUOTED_TERM, Unmarked, term_at
from .definition_text import FoundDefinition, valid_term, word_set
from .layout import item_start

MAX_PHRASE_WORDS = 150
#: An anchored phrase longer than this is a clause, not the noun phrase of its head word.
MAX_ANCHORED_WORDS = 60
WINDOW = 800

_PAREN = re.compile(r"\((?P<body>[^()\n]{1,160})\)")
_LEAD_WORDS = word_set(
    "hereinafter hereafter herein hereunder collectively together jointly each both individually"
    " also referred to as called known the a an and or and/or respectively severally singly"
    " any one of them"
)
_UNQUOTED = re.compile(
    r"^\s*(?:hereinafter\s*,?\s*(?:(?:referred\s+to\s+as|called)\s+)?|(?:referred\s+to\s+as|called)\s+)"
    r"(?:the\s+)?(?P<term>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,4})\s*$"
)
_DETERMINERS = word_set(
    "the a an this these those its their his her each any such our your every one certain"
    " some another either neither both"
)
_ANAPHORIC = word_set("that those such said")
_POINTING = word_set("this these those that such its their his her our your said")
_CONNECTORS = word_set("of the and & for de on")
_SMALL_WORDS = word_set("of the and & for de on to in a an et seq al")
# words a noun phrase does not reach back across: prepositions, verbs, conjunctions
_PHRASE_STOPS = word_set(
    "for to by with in on at from into under between among as than that which who whom"
    " whose where when if is are was were be been being shall will may must can should would"
    " provide provides make makes made means include includes including establish"
    " established but"
)
_ITEM_END = re.compile(r"\s*[;.,:]?\s*(?:(?:and|or)\s*)?(?:\n|$)")
_CLAUSE_BREAK = re.compile(r"[,;:\[\]]|\n\s*\n|[.!?]\s+(?=[A-Z\"“‘(])")
_SENTENCE_BREAK = re.compile(r"\n\s*\n|[.!?:]\s+(?=[A-Z\"“‘(])|^[ \t]*#+[ \t]", re.MULTILINE)
# "Article 17 - " opening a heading: a label, not part of what a heading names
_LABEL = re.compile(
    r"^\s*(?i:article|section|sec\.|clause|chapter|part|schedule|annex|appendix)\s+[\w.()]+"
    r"\s*[-–—.:]\s*"
)


def parenthetical_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    for match in _PAREN.finditer(marked.quoted):
        terms = _named_terms(match)
        if not terms:
            continue
        before = _text_before(marked.plain, match.start())
        closes_item = _closes_item(marked.quoted, match.start(), match.end())
        collective = "collectively" in match.group("body").casefold()
        for term, start in terms:
            phrase = named_thing(before, term, closes_item, collective)
            if phrase:
                yield FoundDefinition(term, phrase, start, match.end(), "parenthetical")


def _closes_item(text: str, start: int, end: int) -> bool:
    """The parenthesis ends a numbered or lettered item ("(c) adequate, ... (‘data
    minimisation’);"), not just a line (a preamble's "BETWEEN X Ltd (“Provider”)")."""
    if not _ITEM_END.match(text, end):
        return False
    return item_start(text, text.rfind("\n", 0, start) + 1) is not None


def _named_terms(match: re.Match[str]) -> list[tuple[str, int]]:
    """The terms a parenthesis defines, with their offsets; none if it says anything else."""
    body, offset = match.group("body"), match.start("body")
    terms = []
    for quoted in QUOTED_TERM.finditer(body):
        term, start = term_at(quoted.group("term"), offset + quoted.start("term"))
        article = re.match(r"(?i)(?:the|a|an)\s+", term)
        if article:
            term, start = term[article.end() :], start + article.end()
        terms.append((term, start))
    if terms:
        rest = QUOTED_TERM.sub(" ", body).replace(",", " ").replace(";", " ").casefold().split()
        if not set(rest) <= _LEAD_WORDS:
            return []
    else:
        unquoted = _UNQUOTED.match(body)
        if unquoted:
            terms = [(unquoted.group("term"), offset + unquoted.start("term"))]
    return [(term, start) for term, start in terms if valid_term(term) and term[0].isalpha()]


def _text_before(text: str, paren: int) -> str:
    """The sentence before a parenthesis, without its own parentheses or a heading label."""
    start = max(0, paren - WINDOW)
    window = text[start:paren]
    if start and not text[start - 1].isspace():
        window = window[window.find(" ") + 1 :]  # no half word
    while True:
        inner = re.sub(r"\([^()]*\)", " ", window)
        if inner == window:
            break
        window = inner
    window = window[window.rfind(")") + 1 :]
    starts = [m.end() for m in _SENTENCE_BREAK.finditer(window) if not _abbreviation(window, m)]
    sentence = window[starts[-1] :] if starts else window
    return _LABEL.sub("", sentence, count=1)


def _abbreviation(text: str, stop: re.Match[str]) -> bool:
    """A full stop that ends "Cal.", "Civ.", "Inc." or "U.S.", not a sentence."""
    word = text[: stop.start() + 1].rsplit(maxsplit=1)[-1] if stop.group()[0] == "." else ""
    return bool(re.fullmatch(r"[A-Z][a-z]{0,3}\.|(?:[A-Za-z]\.)+", word))


def named_thing(before: str, term: str, closes_item: bool, collective: bool = False) -> str:
    """What a parenthesised term names, from the sentence before it; "" when nothing.

    ``collective``: the parenthesis says "collectively", so the name covers everything
    from the first mention of its head word ("any non-public ... information we give you,
    such as ..., will be considered confidential information (collectively, ...)").
    """
    words = before.split()
    if not words:
        return ""
    if _is_acronym(term):
        return _spelled_out(words, term.rstrip("s"))
    anchored = _anchored_phrase(words, term, collective)
    if anchored:
        return anchored
    if closes_item and len(words) >= 3:
        return " ".join(words[-MAX_PHRASE_WORDS:])
    return _noun_phrase_before(before)


def _anchored_phrase(words: list[str], term: str, earliest: bool = False) -> str:
    """From the noun phrase of the term's head word up to the parenthesis.

    "that date" alone only points back at a date named earlier, so it names nothing ("this
    deed" is the document itself).
    """
    head = _stem(_head_word(term))
    if len(head) < 3:
        return ""
    order = range(len(words)) if earliest else range(len(words) - 1, -1, -1)
    for index in order:
        shouting = words[index].isupper() and len(words[index]) > 1 and not term.isupper()
        if _stem(words[index]) == head and not shouting:  # not "BUSINESS SALE AGREEMENT"
            phrase = words[_phrase_start(words, index) :]
            pointing = phrase[0].casefold() in _ANAPHORIC and len(phrase) <= 2
            return "" if pointing or len(phrase) > MAX_ANCHORED_WORDS else " ".join(phrase)
    return ""


def _predeterminer(words: list[str], position: int) -> int:
    """Include "all" of "all the terms"."""
    before = words[position - 1].casefold() if position else ""
    return position - 1 if before in ("all", "both", "half") else position


def _list_start(words: list[str], position: int) -> int:
    """The start of a list the phrase ends: "any ideas, know-how, ..., recommendations or
    any other feedback" from "any other feedback" (two commas or more before "or")."""
    if not position or words[position - 1].casefold() not in ("or", "and"):
        return position
    for start in range(position - 2, max(-1, position - 40), -1):
        bare = words[start].strip("\"'‘’“”").casefold()
        if bare in _PHRASE_STOPS or words[start][-1] in ";:":
            return position
        if bare in _DETERMINERS:
            commas = sum(word.endswith(",") for word in words[start:position])
            return start if commas >= 2 else position
    return position


def _is_acronym(term: str) -> bool:
    bare = term.rstrip("s")
    return " " not in term and 2 <= len(bare) <= 8 and bare.isupper() and bare.isalpha()


def _spelled_out(words: list[str], acronym: str) -> str:
    """The words whose initials spell the acronym, ending near the parenthesis: "the EU
    General Data Protection Regulation 2016/679 (“GDPR”)" gives "General Data ... 679"."""
    initials = [
        (index, part[0].upper())
        for index, word in enumerate(words)
        for part in re.split(r"[-/]", word)
        if part[:1].isalpha() and part.casefold() not in _SMALL_WORDS and not part.endswith(".")
    ]
    for end in range(len(initials), max(0, len(initials) - 3), -1):
        start = end - len(acronym)
        if start >= 0 and "".join(c for _, c in initials[start:end]) == acronym:
            first = initials[start][0]
            if first and words[first - 1].casefold() in _DETERMINERS:
                first -= 1
            return " ".join(words[first:])
    return ""


def _head_word(term: str) -> str:
    """The word a term is named after: "Court" in "Court of Justice", else its last word."""
    words = term.split()
    if "of" in words[1:]:
        return words[words.index("of", 1) - 1]
    return words[-1]


def _stem(word: str) -> str:
    word = re.sub(r"['’]s?$", "", word.strip("\"'‘’“”.,;:!?()[]").casefold())
    for suffix, replacement in (("ies", "y"), ("ses", "s"), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)] + replacement
    return word


def _phrase_start(words: list[str], index: int) -> int:
    """Back from the head word over its modifiers to a determiner or a stop word; across
    the commas of a list ("any ... model, machine learning system, or similar technology")."""
    for position in range(index - 1, max(-1, index - 9), -1):
        word = words[position]
        bare = word.strip("\"'‘’“”").casefold()
        if bare in _DETERMINERS or bare in _POINTING or re.search(r"\w['’]s$", bare):
            return _list_start(words, _predeterminer(words, position))
        listed = re.search(r",\s+(?:or|and)\b", " ".join(words[position + 1 :]))
        if bare in _PHRASE_STOPS or (word[-1] in ",;:" and not listed):
            return position + 1
    return max(0, index - 8) if index >= 8 else 0


def _noun_phrase_before(before: str) -> str:
    """The noun phrase just before a parenthetical, within its clause.

    A trailing run of capitalised words wins when it has its own determiner ("the Receiving
    Party") or the clause has none ("Northwind Holdings Limited"); otherwise the phrase
    from the clause's last determiner ("an identified or identifiable natural person").
    Nothing when that is no plain noun phrase ("this Regulation", "the ToS from time to
    time") or sits inside a larger one ("notice of any Modification").
    """
    starts = [m.end() for m in _CLAUSE_BREAK.finditer(before)]
    words = before[starts[-1] if starts else 0 :].split()
    if words and words[0].casefold() == "as" and starts:
        # "the following offerings, as further defined below (the “Products”)"
        previous = starts[-2] if len(starts) > 1 else 0
        words = before[previous : starts[-1]].rstrip(" ,;:").split()
    run = _capitalised_run(words)
    named = run and words[-run].casefold() in _DETERMINERS
    start = None
    if run and (named or not _DETERMINERS.intersection(w.casefold() for w in words[:-run])):
        start = len(words) - run
    else:
        dets = [i for i, word in enumerate(words[:-1]) if word.casefold() in _DETERMINERS]
        start = dets[-1] if dets else None
    if start is None or (start and words[start - 1].casefold() == "of"):
        return ""
    phrase = words[start:][-12:]
    bare = [word.strip("\"'‘’“”,;:").casefold() for word in phrase]
    if bare[0] in _POINTING or _PHRASE_STOPS.intersection(bare) or _blanks(phrase):
        return ""
    return " ".join(_with_head(words, len(words) - len(phrase)))


def _blanks(words: list[str]) -> bool:
    """A form's blanks ("_ _ _ _ documents regarding _ _ _"): nothing named yet."""
    return sum(set(word) <= set("_[]") for word in words) * 3 > len(words)


def _with_head(words: list[str], start: int) -> list[str]:
    """The phrase with the noun that takes it as a "between A and B" complement: "the
    provision on cooperation between the lead authority and the other authorities"."""
    if start < 2 or words[start - 1].casefold() not in ("between", "among"):
        return words[start:]
    for index in range(start - 2, max(-1, start - 7), -1):
        if words[index].casefold() in _DETERMINERS:
            return words[index:]
    return words[start:]


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
