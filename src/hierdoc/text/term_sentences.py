"""Where a text says what a known term is: the shapes of a definition anchored on the term.

Ingest must guess which phrases are defined terms; asked for one term, finding the
sentence that defines it is a narrower question. :func:`term_sentences` finds, in one
text, each place the term ``X`` (quoted, bold, italic or plain; any case of its words'
first letters; singular or plural) is defined in one of these shapes, each a small named
pattern below:

- ``means``: X opening a sentence, line or list item, then a defining verb: "X means",
  "X shall mean", "X refers to", "X has the meaning", "X is defined as", "X includes",
  "X, in relation to Y, means", "The term X means", "As used here, X means";
- ``copula``: "X is a / an / any / the / one ...", "a Releaser is a person who ...",
  "A **product** can be a good or service";
- ``colon``: a line opening with X, then ":" or a dash and the definition;
- ``indented``: X alone on a line, its definition indented on the next;
- ``run_in``: a line opening with X, then its text from a capitalised determiner ("Buyer
  The people or organizations that ..."), as a glossary printed to PDF has it: scored low,
  enough only in a definitions section (the caller's bonus);
- ``by_we_mean``: "By X we mean ...", "When we say X, we mean ...";
- ``called``: 'Request methods are considered "safe" if ...': a quoted term after "is
  considered / said to be / called", defined by the condition after it;
- ``named``: the phrase before "(... "X")", "(hereinafter referred to as "X")", ",
  hereafter "X"": the definition is the phrase the name is given to.

A found place is scored by its shape, by whether the term is marked (quoted or
emphasised) and by whether its text reads as a clause (a modal verb soon after a colon
is a clause heading: "Payment: Customer shall pay ..."), so that a caller keeps the best.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .normalize import normalize_term, number_forms

__all__ = ["TermSentence", "term_pattern", "term_sentences"]

MAX_DEFINITION_CHARS = 600
MIN_DEFINITION_WORDS = 3
# how far from the term a shape's match may begin and end ("As used in this Agreement, X
# means": 80 characters before it; "X, in relation to Y, means": 160 after it)
_REACH_BEFORE = 130
_REACH_AFTER = 260


@dataclass(frozen=True)
class TermSentence:
    """A place a text defines a term: the term as written, its definition, the offsets of
    the whole match, the shape's name and a score (higher is more surely a definition)."""

    term: str
    definition: str
    start: int
    end: int
    shape: str
    score: float


_OPEN = r"(?P<open>(?:<(?:b|strong|u|em|i)>|\*{1,3}|_{1,2})?[\"“‘'`]?(?:\*{1,3}|_{1,2})?)"
_CLOSE = r"(?P<close>(?:\*{1,3}|_{1,2}|</(?:b|strong|u|em|i)>)?[\"”’'`]?(?:\*{1,3}|_{1,2})?)"
# where a definition can open: a line (after a list marker or a number) or a sentence
_ITEM = r"(?:[-*•·–][ \t]+|\(?(?:\d{1,3}|[a-zA-Z]|[ivxlc]{1,6})\)[ \t]*|\d+(?:\.\d+)*\.?[ \t]+)"
_START = rf"(?:^[ \t]*{_ITEM}?|(?<=[.!?;:])[ \t]+|(?<=[.!?;:][\"”’)])[ \t]+)"
_LEAD = (
    r"(?:(?i:as used in|in|for the purposes? of|within|throughout)\b[^,.\n]{0,80},[ \t]*)?"
    r"(?:(?i:the|a|an|any|each|every)\s+)?"
    r"(?:(?i:terms?|expressions?|words?|phrases?)\s+)?"
)
_ASIDE = (
    r"(?:\s*,\s*(?i:in relation to|in respect of|with respect to|as used in|when used in|"
    r"for the purposes? of|in the context of|where used|used in)[^,.;\n]{1,160},)?"
    r"(?:\s*\([^()\n]{0,80}\))?,?"
)
_MEANS_VERB = (
    r"(?:(?:shall|will|should|does|do|may)\s+)?"
    r"(?:means?|refers?\s+to|denotes?|signif(?:y|ies)|(?:is|are)\s+defined\s+as|"
    r"(?:is|are)\s+used\s+to\s+(?:mean|refer\s+to|describe|denote)|"
    r"(?:is|are)\s+(?:understood|taken)\s+to\s+mean)\b"
)
# "includes", not "include": "the user agent SHOULD include this field" uses the term
_KEPT_VERB = r"(?:includes|(?:has|have|shall\s+have)\s+the\s+meaning)\b"
_COPULA = (
    r"(?:is|are|can\s+be|may\s+be)\s+"
    r"(?=(?:a|an|any|the|one|those|that|all|each|every|either)\b)"
)
_LINE_SHAPES = frozenset({"colon", "run_in"})
# a copula that leads on to what follows: "X is one of the following:"
_LEADS_ON = re.compile(r"^\S+\s+one\s+of\s+the\s+following|:$", re.IGNORECASE)
#: Words a text opens sentences, notes or questions with, never a term to look up ("This
#: is ...", "What is ...?").
NOT_TERMS = frozenset(
    {"this", "that", "these", "those", "it", "they", "we", "you", "he", "she", "i", "our"}
    | {"your", "their", "its", "note", "notes", "example", "examples"}
    | {"what", "which", "who", "whom", "how", "where", "when", "why"}
)
_MODAL = re.compile(
    r"\b(?:shall|will|must|may|agrees?|acknowledges?|warrants?|represents?|hereby|"
    r"should|can|cannot|is|are|was|were|has|have)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(
    r"(?<!\b[A-Z])(?<!\be\.g)(?<!\bi\.e)(?<!\b(?:etc|Inc|Ltd|Art|Sec))(?<!\b(?:No|Co|vs))"
    r"[.!?](?=[\"”’)]?(?:\s|$))"
    r"|;[ \t]*(?:and|or)?[ \t]*(?=\n)|\n[ \t]*\n|\n[ \t]*(?=#)"
)
_LIST_LINE = re.compile(r"[ \t]*(?:[-*•·–][ \t]+|\(?(?:\d{1,3}|[a-zA-Z]|[ivxlc]{1,6})[.)])")
# emphasis opened inside a word by a converter: "S**tandard Preferred Stock**"
_MID_WORD_MARKER = re.compile(r"(?<=\w)(?:\*{1,3}|</?(?:b|strong|u|em|i)>)(?=\w)")
_MARKUP = re.compile(r"</?(?:b|strong|u|em|i)>|\*{1,3}|(?<!\w)_{1,2}|_{1,2}(?!\w)")


def term_pattern(term: str) -> str:
    """A regular expression for the term as a text may write it: in any case ("Licensee",
    "licensee", "LICENSEE"), hyphens or spaces between words, singular or plural."""
    bare = re.sub(r"^(?:the|a|an) ", "", normalize_term(term))
    forms = sorted({bare, *number_forms(bare)} - {""}, key=len, reverse=True)
    alternatives = [
        r"[\s\-‐‑–]+".join(re.escape(w).replace("'", "['’]") for w in form.split())
        for form in forms
    ]
    return r"(?P<term>(?<![\w-])(?i:" + "|".join(alternatives) + r")(?![\w-]))"


@dataclass(frozen=True)
class _Shape:
    name: str
    pattern: re.Pattern[str]
    weight: float
    keeps_verb: bool = False
    """The definition is read from the verb on ("includes ...", "is a ...")."""
    before: bool = False
    """The definition is the phrase before the term ("named")."""
    marked_only: bool = False
    """Only a quoted or emphasised term: plain, the words are ordinary use ("considered
    safe")."""


_HEREINAFTER = r"(?i:hereinafter|hereafter)"
# what a parenthesis may say before the name: "(hereinafter ", "(collectively, ",
# "(Crowdsignal's ", "(as provided for in the Series Agreement, the "
_PAREN_LEAD = r"\((?:[^\"“”()\n]{0,60}?[\s,])??\s*"
_AS = r"(?i:(?:referred\s+to|called|known|defined)\s+as\s+)?(?i:the\s+|a\s+|an\s+)?"
# the phrase a name is given to: back to the clause's start, at most 300 characters, without
# its item's label "(b)"; one longer than 15 words from its last "and the" / "or any" (not
# "trade or service marks"), else its last 15 words
MAX_NAMED_CHARS = 300
MAX_NAMED_WORDS = 15
_ENUMERATOR = re.compile(r"^\s*\(\w{1,4}\)\s*")
_COORDINATION = re.compile(
    r"\s(?:and|or)\s(?=(?:the|a|an|all|any|each|such|its|their|our|your|other)\s)"
)
_WE_MEAN = (
    r"(?i:\bby|\bwhen\s+we\s+(?:say|use|refer\s+to))\s+"
    r"(?:(?i:the\s+(?:term|word|expression))\s+)?"
)
_WE_MEAN_VERB = r"\s*,?\s*(?i:we\s+(?:mean|are\s+referring\s+to)|this\s+\w+\s+means)\b\s*"
_AFTER = r"(?P<after>)"
# 'Request methods are considered "safe" if ...': the term after the verb, then its condition
_CALLED = (
    r"\b(?:is|are)\s+(?:considered|said\s+to\s+be|called|termed|deemed)\s+(?:to\s+be\s+)?"
    r"(?:(?:a|an|the)\s+)?"
)
_CONDITION = r"(?=(?:if|when|where|once|whenever)\b)"
# a glossary's line "Buyer The people or organizations that ...": the text opens with a
# capitalised determiner (a second word of a longer term would not)
_RUN_IN = r"(?=(?:The|A|An|Any|Each|One|All|Those|That|Either)\s)"


@lru_cache(maxsize=64)
def _shapes(term: str) -> list[_Shape]:
    """The shapes, each a pattern around the term's own (see the module)."""
    named = _OPEN + term_pattern(term) + _CLOSE
    opening = _START + _LEAD + named

    def shape(name: str, pattern: str, weight: float, **kind: bool) -> _Shape:
        return _Shape(name, re.compile(pattern, re.MULTILINE), weight, **kind)

    line = r"^[ \t]*(?:[-*•·–][ \t]+)?" + named
    return [
        shape("means", opening + _ASIDE + r"\s*:?\s*" + _MEANS_VERB + r"[ \t:]*" + _AFTER, 3),
        shape("means", opening + _ASIDE + rf"\s*(?={_KEPT_VERB})" + _AFTER, 2.5, keeps_verb=True),
        shape("copula", opening + rf"[ \t]+(?={_COPULA})" + _AFTER, 2, keeps_verb=True),
        shape("colon", line + r"[ \t]*(?:[:—–]|\s-\s)[ \t]*" + _AFTER + r"(?=\S)", 1.5),
        shape("indented", line + r"[ \t]*:?[ \t]*\n(?:[ \t]+|:[ \t]+)" + _AFTER + r"(?=\S)", 2),
        shape("run_in", line + r"[ \t]+" + _AFTER + _RUN_IN, 1, keeps_verb=True),
        shape("by_we_mean", _WE_MEAN + named + _WE_MEAN_VERB + _AFTER, 3),
        shape("called", _CALLED + named + r"\s*,?\s*" + _AFTER + _CONDITION, 2, marked_only=True),
        shape(
            "named",
            r"\s*" + _PAREN_LEAD + _AS + named + r"\s*\)" + _AFTER,
            2,
            before=True,
        ),
        shape(
            "named",
            r",\s*" + _HEREINAFTER + r"\s+" + _AS + named + _AFTER,
            2,
            before=True,
        ),
    ]


def term_sentences(text: str, term: str) -> list[TermSentence]:
    """Every place ``text`` defines ``term`` in one of the module's shapes, best first
    (equal scores in text order)."""
    if normalize_term(term) in NOT_TERMS or not normalize_term(term):
        return []
    text = _MID_WORD_MARKER.sub("", text)
    shapes = _shapes(term)
    found = []
    for low, high in _windows(text, _term_regex(term)):
        for shape in shapes:
            for match in shape.pattern.finditer(text, low, high):
                sentence = _read(text, match, shape)
                if sentence is not None:
                    found.append(sentence)
    found.sort(key=lambda s: (-s.score, s.start))
    return _distinct(found)


def _windows(text: str, term: re.Pattern[str]) -> list[tuple[int, int]]:
    """The stretches of ``text`` around the term's occurrences where a shape can match
    (what it allows before the term and after it), overlapping ones merged: the shapes
    are tried there only, not at every offset of the text."""
    merged: list[tuple[int, int]] = []
    for match in term.finditer(text):
        low, high = max(0, match.start() - _REACH_BEFORE), match.end() + _REACH_AFTER
        if merged and low <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(high, merged[-1][1]))
        else:
            merged.append((low, high))
    return merged


@lru_cache(maxsize=64)
def _term_regex(term: str) -> re.Pattern[str]:
    return re.compile(term_pattern(term))


def _distinct(found: list[TermSentence]) -> list[TermSentence]:
    kept: list[TermSentence] = []
    for sentence in found:
        if not any(k.start < sentence.end and sentence.start < k.end for k in kept):
            kept.append(sentence)
    return kept


def _read(text: str, match: re.Match[str], shape: _Shape) -> TermSentence | None:
    marked = _is_marked(match.group("open"), match.group("close"))
    if (shape.before or shape.marked_only) and not marked:
        return None
    if shape.before:
        definition = _clean(_phrase_before(text, match.start()))
    else:
        definition = _clean(_extent(text, match.end("after")))
    if len(definition.split()) < MIN_DEFINITION_WORDS:
        return None
    score = shape.weight + (1 if marked else 0)
    if shape.name in _LINE_SHAPES and not _reads_as_line_definition(definition):
        return None
    if shape.name == "copula" and _LEADS_ON.search(definition):
        return None
    term = _clean(match.group("term"))
    return TermSentence(term, definition, match.start("term"), match.end(), shape.name, score)


def _phrase_before(text: str, end: int) -> str:
    """The clause ending at ``end``, read backwards to a stop, a line break or the
    parenthesis it is in (a whole parenthesis inside it is kept: "All contributors
    (including committers) and other participants"); a long one from its last "and"/"or"
    ("... of Crowdsignal and the parties described in the next sentence")."""
    low, depth, start = max(0, end - MAX_NAMED_CHARS), 0, end
    while start > low:
        char = text[start - 1]
        depth += (char == ")") - (char == "(")
        if depth < 0 or (depth == 0 and char in ".;:\n"):
            break
        start -= 1
    phrase = _ENUMERATOR.sub("", text[start:end])
    if len(phrase.split()) > MAX_NAMED_WORDS:
        cuts = [
            m.end() for m in _COORDINATION.finditer(phrase) if len(phrase[m.end() :].split()) >= 3
        ]
        phrase = phrase[cuts[-1] :] if cuts else _after_unopened(phrase.split()[-MAX_NAMED_WORDS:])
    return phrase


def _after_unopened(words: list[str]) -> str:
    """The words after the last ")" whose "(" was cut off."""
    depth, start = 0, 0
    for number, word in enumerate(words):
        depth += word.count("(") - word.count(")")
        if depth < 0:
            depth, start = 0, number + 1
    return " ".join(words[start:])


def _is_marked(opening: str | None, closing: str | None) -> bool:
    return bool((opening or "").strip()) and bool((closing or "").strip())


def _reads_as_line_definition(definition: str) -> bool:
    """A line's text after the term that reads as what it names: words ("Expires: Thu, 01
    Dec 1994 16:00:00 GMT" is a value), and no verb in its first words (a run-in
    heading's clause: "Payment: Customer shall pay ...")."""
    opening = definition.split()[:5]
    words = [w for w in opening if re.fullmatch(r"[a-z]{2,}[,;]?", w)]
    return len(words) >= 2 and not _MODAL.search(" ".join(opening[:3]))


def _extent(text: str, start: int) -> str:
    """The definition from ``start`` to its sentence's end; a text ending in ":" goes on
    through the list after it."""
    limit = min(len(text), start + MAX_DEFINITION_CHARS)
    line_end = text.find("\n", start, limit)
    listed = line_end >= 0 and not text[start:line_end].strip()
    if listed and text[:start].rstrip().endswith(":"):  # '"Systems" means:' and its items
        return text[start : _list_end(text, start, limit)]
    end = _SENTENCE_END.search(text, start, limit)
    stop = end.end() if end else limit
    if text[start:stop].rstrip().endswith(":"):
        stop = _list_end(text, stop, limit)
    return text[start:stop]


def _list_end(text: str, start: int, limit: int) -> int:
    """Where the list items after ``start`` end (a line that is no item, or ``limit``)."""
    position = start
    for line in text[start:limit].splitlines(keepends=True):
        if line.strip() and not _LIST_LINE.match(line):
            break
        position += len(line)
    return position


def _clean(raw: str) -> str:
    text = _MARKUP.sub("", raw)
    text = " ".join(text.split()).strip(" \"'“”‘’`,")
    return re.sub(r"(?:[;,]\s*(?:and|or)?|\.)$", "", text).strip()
