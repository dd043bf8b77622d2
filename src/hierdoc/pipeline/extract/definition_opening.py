"""A section whose opening sentence defines what its heading names.

Standards and guides often have no glossary entry for a term: the section about it opens
by saying what it is (NIST SP 800-63B, "5.1.1 Memorized Secrets": "A Memorized Secret
authenticator — commonly referred to as a password ... — is a secret value intended to be
chosen and memorized by the user."). The first sentence of the section's first paragraph
defines a term when

- it opens with a short noun phrase (its subject, after "A", "An" or "The"), optionally
  followed by an aside between dashes or commas ("..., sometimes referred to as “phishing
  attacks,” are ...");
- a defining verb follows: "is a/an/the/any/one", "are" with a noun phrase, "refers to",
  "means", "is defined as", "denotes";
- the subject is about the heading: it starts with the (singular) first word of the heading
  or of one of its names ("Revocation and Termination" names two), and holds at least half
  of that name's words ("Verifier impersonation attacks" under "Verifier Impersonation
  Resistance"; not "The Agreement is the entire ..." under "Entire Agreement").

The term is the heading's name as the subject writes it when the subject begins with all of
it ("Memorized Secret" of "A Memorized Secret authenticator" under "Memorized Secrets"),
else the whole subject. A quoted alias in the aside ("sometimes referred to as “phishing
attacks,”") is defined by the same text.

The same reading, without a heading, for two other places where prose defines:

- footnotes (a line opening with its number after a finished sentence, as the PDF
  converter writes them): any sentence "<subject> is a/an/the/one ..." ("8 MCAS is a
  function of the Speed Trim System ..."), and a first sentence with a generic subject and
  its verb ("10 A flight control law generates commands ...", the verb kept);
- "For the purposes of this NPRM, ‘‘high’’ AOA is a relatively large angle ..., and
  ‘‘low’’ AOA is ...": each clause of the sentence (not a passive: "equipment is used by
  an executive agency if ...").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .definition_markup import QUOTED_TERM, Unmarked, term_at
from .definition_text import FoundDefinition, clean_definition, collapse, valid_term, word_set
from .layout import BULLET

MAX_SUBJECT_WORDS = 6

_HEADING_LINE = re.compile(r"\A\s*#{1,6}[ \t]+(?P<heading>[^\n]+)\n")
_HEADING_LABEL = re.compile(
    r"^(?i:(?:section|sec\.|article|clause|chapter|part|appendix|annex|schedule)\s+)?"
    r"(?:\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)*\.?|[IVXLC]+\.)\s+"
)
_WORD = r"[^\W\d_][\w\-’']*+"
_NOT_NOUN = (
    r"(?![a-z]+(?:ed|ing|ly|able|ible)\s|(?:so|not|also|such|only|made|given|done|taken|shown"
    r"|known|held|set|put|kept|sent|paid|told|found|meant|thought|seen|said)\s)"
)
# "is commercial or financial information that ...": a noun phrase with a relative clause
_IS_NOUN_THAT = r"|\s+" + _NOT_NOUN + r"(?:[a-z][\w\-]*\s+){1,4}?(?:that|which|who|whose)\s"


def _subject_and_verb(article: str, noun_that: str = _IS_NOUN_THAT) -> re.Pattern[str]:
    """A short noun phrase, an aside, and a defining verb; ``article``: what may follow "is",
    ``noun_that``: "is" before a noun phrase with a relative clause (or nothing)."""
    return re.compile(
        r"(?:(?:An?|The)(?:[ \t]+\n?|\n)[ \t]*)?"
        rf"(?P<subject>{_WORD}(?:(?:[ \t]+\n?|\n)[ \t]*{_WORD}){{0,{MAX_SUBJECT_WORDS + 2}}}?)"
        # an aside: " — commonly referred to as a password or, if numeric, a PIN —"
        r"(?P<aside>\s+[—–]\s(?:[^—–.\n]|\n(?!\s*\n)){1,160}?\s[—–]"
        r"|,\s(?:[^,.;:\n]|\n(?!\s*\n)){1,120}?,[\"”’]?"
        r"|\s+\((?:or|also|i\.e\.,?)?\s*[^()\n]{1,40}\))?"
        rf"\s+(?P<verb>is(?=\s+(?:{article})\s{noun_that})"
        r"|are(?=\s+(?:any|all|those)\s"
        r"|\s+" + _NOT_NOUN + r"[a-z]+\s+(?:that|which|who|whose|by|of|for|in|used)\s)"
        r"|refers?\s+to|means|(?:is|are)\s+defined\s+as|denotes)\b[ \t]*"
    )


_OPENING = _subject_and_verb("a|an|any|one")
# in a footnote also "is the": "5 Stall warning indication is the activation of ..."
_NOTE_SENTENCE = _subject_and_verb("a|an|any|one|the", noun_that="")
# a footnote as the PDF converter writes it: its number, a space, a capital, at the start of
# a line that follows a blank line or a finished sentence
_FOOTNOTE = re.compile(r"^[ \t]*\d{1,3}[ \t]+(?=[A-Z])", re.MULTILINE)
# a footnote opening with a generic subject and its verb: "10 A flight control law generates
# commands to move flight control surfaces ..." (the verb stays in the definition)
_NOTE_GENERIC = re.compile(
    rf"An?(?:[ \t]+\n?|\n)[ \t]*(?P<subject>{_WORD}(?:(?:[ \t]+\n?|\n)[ \t]*{_WORD}){{0,5}}?)"
    r"\s+(?=[a-z]{2,}[^s\W\d_]s\s)"
)
_FOOTNOTE_END = re.compile(r"\n[ \t]*\n|\n[ \t]*\d{1,3}[ \t]+[A-Z]|\n[ \t]*#")
_STOP_WORDS = word_set(
    "is are was were be been shall will must may can should would has have had do does"
    " this that these those it its they we you our your their which who when where if"
    " there here such each every all any some following"
)
_SMALL_WORDS = word_set("of the a an and or for to in on by with at from")
_NAME_SPLIT = re.compile(r"\s+(?:and|&|or)\s+|\s*[,;/]\s*|\s+\(|\)")
_SENTENCE_END = re.compile(r"[.!?][\"”’)]*(?=\s+[A-Z\"“‘(]|\s*$)")
_ABBREVIATION = re.compile(r"(?:\b[A-Za-z]\.)+$|\b(?:etc|Inc|Ltd|Co|No|vs|al)\.$")
_ALIAS_CUE = re.compile(r"\b(?:referred\s+to\s+as|known\s+as|called)\s+(?=[\"“‘])")


def opening_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """The definition opening the section whose heading line starts ``marked``, if any."""
    text = marked.plain
    heading = _HEADING_LINE.match(text)
    if heading is None:
        return
    start = len(text) - len(text[heading.end() :].lstrip())
    match = _OPENING.match(text, start)
    if match is None or not _plain_subject(match.group("subject")):
        return
    subject_start = match.start("subject")
    term_words = _term_words(match.group("subject"), heading.group("heading"))
    if term_words is None:
        return
    end = _sentence_end(text, match.end())
    definition, end = clean_definition(marked, match.end(), end)
    term, term_start = term_at(_first_words(match.group("subject"), term_words), subject_start)
    if not definition or not valid_term(term):
        return
    yield FoundDefinition(term, definition, term_start, end, "opening")
    yield from _aliases(marked, match, definition, end)


# where a paragraph or a list item opens: the text's start, a blank line, a list marker
_PARAGRAPH_OPENING = re.compile(
    r"(?:\A|\n[ \t]*\n|^[ \t]*(?:" + BULLET + r"|\d{1,3}[.)])[ \t]+)[ \t]*", re.M
)


def prose_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """In a definitions section, paragraphs that open by saying what a term is ("Relying
    parties are entities that ...", "An authenticator is a means ..."): the subject is the
    term, what follows the verb its definition."""
    text = marked.plain
    for opening in _PARAGRAPH_OPENING.finditer(text):
        match = _OPENING.match(text, opening.end())
        if match is not None and _plain_subject(match.group("subject")):
            yield from _found(marked, match, len(text))


def footnote_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """Sentences of footnotes that say what something is ("8 MCAS is a function of the Speed
    Trim System ...", "... . An airspeed disagree alert, or ‘‘IAS DISAGREE’’ on the 737 MAX,
    is a visual alert ..."): the subject is the term."""
    text = marked.plain
    for note in _FOOTNOTE.finditer(text):
        if not _opens_note(text, note.start()):
            continue
        stop = _FOOTNOTE_END.search(text, note.end())
        limit = stop.start() if stop else len(text)
        starts = [note.end()]
        starts += [m.end() for m in _SENTENCE_END.finditer(text, note.end(), limit)]
        for start in starts:
            start += len(text[start:limit]) - len(text[start:limit].lstrip())
            match = _NOTE_SENTENCE.match(text, start, limit)
            if match is None and start == note.end():
                match = _NOTE_GENERIC.match(text, start, limit)
            if match and _plain_subject(match.group("subject")):
                yield from _found(marked, match, limit)


def _found(marked: Unmarked, match: re.Match[str], limit: int) -> Iterator[FoundDefinition]:
    end = min(_sentence_end(marked.plain, match.end()), limit)
    definition, end = clean_definition(marked, match.end(), end)
    term, start = term_at(match.group("subject"), match.start("subject"))
    if definition and valid_term(term):
        yield FoundDefinition(term, definition, start, end, "opening")


_PURPOSE = re.compile(
    r"\bFor\s+(?:the\s+)?purposes?\s+of\s+(?:this|these|the)\s+[^,.;:\n]{1,60},\s+"
)
# a class and the condition for belonging to it ("an adopted child if the minor was ..."):
# a rule deeming the subject one, not what the subject is
_DEEMING = re.compile(r"(?:an?|the)\s+(?:[\w\-]+\s+){0,3}?(?:if|unless|only\s+if)\b")
_Q = "\"'‘’“”"
_PURPOSE_CLAUSE = re.compile(
    rf"(?:(?:the|an?)\s+)?(?P<subject>(?:[{_Q}]*[^\W\d_][\w\-]*[{_Q}]*\s+){{0,5}}?"
    rf"[{_Q}]*[^\W\d_][\w\-]*[{_Q}]*)\s+(?:is|are|means|refers\s+to)\s+"
    # "equipment is used by an executive agency if ...": a passive, not a definition
    r"(?![a-z]+ed\s)"
)


def purpose_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """'For the purposes of this NPRM, ‘‘high’’ AOA is a relatively large angle ..., and
    ‘‘low’’ AOA is a relatively small angle ...': each clause of the sentence defines."""
    text = marked.plain
    for lead in _PURPOSE.finditer(text):
        if not _opens_sentence(text, lead.start()):
            continue
        stop = _sentence_end(text, lead.end())
        position = lead.end()
        while (clause := _PURPOSE_CLAUSE.match(text, position, stop)) is not None:
            subject = "".join(c for c in clause.group("subject") if c not in _Q)
            following = _next_clause(text, clause.end(), stop)
            end = following.start() if following else stop
            definition, end = clean_definition(marked, clause.end(), end)
            term = collapse(subject)
            if not _plain_subject(term) or not definition or not valid_term(term):
                break
            if _DEEMING.match(definition):
                break  # "a minor is an adopted child if ...": when it counts as one
            yield FoundDefinition(term, definition, clause.start("subject"), end, "means")
            if following is None:
                break
            position = following.end()


def _opens_note(text: str, start: int) -> bool:
    """A line that starts the text, follows a blank line or a line ending a sentence."""
    return start < 2 or text[start - 2] in "\n.!?)”’"


def _opens_sentence(text: str, start: int) -> bool:
    """A position at a line's start or after a sentence's (or clause's) end and a space."""
    before = text[max(0, start - 80) : start]
    return (
        start == 0
        or before.endswith("\n")
        or (before[-1:].isspace() and before.rstrip()[-1:] in ".!?;:")
    )


def _next_clause(text: str, start: int, stop: int) -> re.Match[str] | None:
    """The ", and" before the next clause that defines a term, if any."""
    for joint in re.finditer(r",\s+(?:and\s+)?", text[:stop], re.S):
        if joint.start() >= start and _PURPOSE_CLAUSE.match(text, joint.end(), stop):
            return joint
    return None


def _plain_subject(subject: str) -> bool:
    """A noun phrase: no verb, pronoun or conjunction ("Memorized secrets need", "This")."""
    words = subject.casefold().split()
    return len(words) <= MAX_SUBJECT_WORDS and not _STOP_WORDS.intersection(words)


def _term_words(subject: str, heading: str) -> int | None:
    """How many of the subject's words are the term; None when it is not the heading's."""
    words = [_singular(word) for word in subject.split()]
    for name in _heading_names(heading):
        if words[: len(name)] == name:
            return len(name)
        content = [word for word in name if word not in _SMALL_WORDS]
        shared = sum(word in words for word in content)
        if content and words[0] == content[0] and 2 * shared >= len(content):
            return len(words)
    return None


def _heading_names(heading: str) -> list[list[str]]:
    """The names a heading gives, each as singular lower-case words: "5.1.1 Memorized
    Secrets" -> [["memorized", "secret"]]; "Revocation and Termination" -> two names."""
    plain = _HEADING_LABEL.sub("", collapse(heading).strip(" .:*_"))
    names = []
    for part in _NAME_SPLIT.split(plain):
        words = [_singular(word) for word in part.split()]
        if words and words[0] not in _SMALL_WORDS:
            names.append(words)
    return names


def _singular(word: str) -> str:
    word = word.casefold().strip("\"'‘’“”.,;:()")
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _first_words(subject: str, count: int) -> str:
    """The first ``count`` words of the subject as written (line breaks included)."""
    spans = list(re.finditer(r"\S+", subject))
    return subject[: spans[count - 1].end()]


def _sentence_end(text: str, start: int) -> int:
    """The end of the sentence from ``start``, within its paragraph ("e.g." does not end it)."""
    blank = re.compile(r"\n[ \t]*\n").search(text, start)
    limit = blank.start() if blank else len(text)
    for stop in _SENTENCE_END.finditer(text, start, limit):
        if not _ABBREVIATION.search(text[max(start, stop.start() - 12) : stop.start() + 1]):
            return stop.end()
    return limit


def _aliases(
    marked: Unmarked, match: re.Match[str], definition: str, end: int
) -> Iterator[FoundDefinition]:
    """Quoted names the aside gives ("sometimes referred to as “phishing attacks,”")."""
    aside = match.group("aside")
    if not aside or not _ALIAS_CUE.search(aside):
        return
    offset = match.start("aside")
    for quoted in QUOTED_TERM.finditer(marked.quoted, offset, match.end("aside")):
        term, start = term_at(quoted.group("term"), quoted.start("term"))
        if valid_term(term):
            yield FoundDefinition(term, definition, start, end, "opening")
