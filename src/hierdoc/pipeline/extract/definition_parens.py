"""Parenthetical definitions: ``the European Data Protection Board (the ‘Board’)``.

A parenthesis defines a term only when it holds nothing but the term, quoted (or
emphasised), with the usual lead words ("the", "hereinafter", "each a", "collectively
the", "referred to as"); ``(as set out in "Schedule 2")`` or ``(e.g. "click here")``
define nothing. An unquoted capitalised name counts after "hereinafter" or "referred to
as". What the term names is read from the sentence before the parenthesis (back to the
start of its item, and not across an earlier defining parenthesis), first rule that
gives something:

1. an acronym: the words its initials spell ("California Consumer Privacy Act, Cal. Civ.
   Code § 1798.100 et seq (“CCPA”)");
2. the noun phrase of the term's head word, up to the parenthesis ("the Charter of
   Fundamental Rights of the European Union (the ‘Charter’)"), unless that is the subject
   of a finite verb or a bare "that date";
3. a party of a preamble named by its appositive ("SUN PHARMA LTD., a company registered
   in India, ... (the “Party”)");
4. for "(collectively, ...)" / "(together, ...)": the list it sums up, else the noun
   phrase before it, else the whole sentence;
5. the whole sentence when the parenthesis closes a numbered or lettered item that
   defines nothing else ("(c) adequate, relevant and limited to what is necessary ...
   (‘data minimisation’);");
6. the plain noun phrase just before the parenthesis ("the Receiving Party (the
   “Recipient”)", "Vantage Deposit Services LLC (“i-Escrow”)"), unless it only points at
   something ("this Regulation"), holds a verb or preposition ("the ToS from time to
   time"), or is the object of "of", "concerning", "into", ... ("notice of any
   Modification (the “Period”)").

A short name opening its sentence or item names itself ("- Mozilla accounts (the
“Services”) include ..."); a plural name whose phrase is only the last items of a list
names the whole list ("text, software, ... and other material (called “Materials”)"); a
parenthesis closing a run-in item after another item's parenthesis names that whole item
("(i) the Purchase Amount (the “Cash-Out Amount”) or (ii) the amount payable ... (the
“Conversion Amount”)"); an acronym's spelled-out words keep the capitalised words between
them and their determiner ("This Mutual Non-Disclosure Agreement (“NDA”)").

A short name is continued by its "which" clause ("a period (the “Restrictive Period”)
which shall commence ..."). A lower-case word written with letters outside English's
alphabet and used nowhere else in the text is a gloss, not a name ("the copyright
(“upphovsrätt”)").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .definition_markup import QTERM, QUOTED_TERM, Unmarked, term_at
from .definition_text import FoundDefinition, valid_term, word_set
from .layout import item_start

MAX_PHRASE_WORDS = 150
#: An anchored phrase longer than this is a clause, not the noun phrase of its head word.
MAX_ANCHORED_WORDS = 60
WINDOW = 800

# a term may mark its plural in parentheses of its own: '(“Application(s)”)'
_PAREN = re.compile(r"\((?P<body>(?:[^()\n]|\((?:s|es)\)(?=[\"'’”])){1,160})\)")
_PLURAL_MARK = re.compile(r"\((?:s|es)\)$")
#: The lower-case word right after a parenthesis (a capital, a digit or punctuation ends
#: the phrase before it).
_NEXT_WORD = re.compile(r"[ \t]*\n?[ \t]*(?P<word>[a-z][a-z-]*)\b")
_LAST_WORD = re.compile(r"\b(?P<word>[a-z][a-z-]*)[ \t]*\n?[ \t]*$")
_VERB_FORM = re.compile(r"(?:s|ed|ing|ly)$")
_ANY = re.compile(r"(?i)(?:any|every|some)\s")
_ALTERNATIVES = re.compile(r"\s*X(?:\s*,?\s*(?:or|,)\s*X)+\s*")
_LEAD_WORDS = word_set(
    "hereinafter hereafter herein hereunder collectively together jointly each both individually"
    " also referred to as called known the a an and or and/or respectively severally singly"
    " any one of them this"
)
# a name with its own kin: "CEDC or any of its Subsidiaries", "the Company and its Affiliates"
_WITH_ITS = re.compile(
    r"(?:\b(?:the|The)\s+)?\b[A-Z][\w.&'’-]*(?:,?\s+[A-Z][\w.&'’-]*)*,?\s+(?:and|or|and/or)\s+"
    r"(?:any\s+of\s+|each\s+of\s+|all\s+of\s+)?(?:its|their|his|her)\s+(?:[\w-]+\s+){0,2}[\w-]+"
    r"\s*$"
)
# "(collectively, the “Parties”)", "(together, “Securities”)": a name for a group or a list
_PREDETERMINERS = frozenset(("all", "both", "half"))
_COLLECTIVE = re.compile(r"(?i)\b(?:collectively|together|jointly)\b")
_UNQUOTED = re.compile(
    r"^\s*(?:hereinafter\s*,?\s*(?:(?:referred\s+to\s+as|called)\s+)?|(?:referred\s+to\s+as|called)\s+)"
    r"(?:the\s+)?(?P<term>[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*){0,4})\s*$"
)
_DETERMINERS = word_set(
    "the a an this these those its their his her each any such our your every one certain"
    " some another either neither both"
)
_PREPOSITIONS = word_set("in of on at to for with about concerning regarding from by into")
_PARTY = re.compile(
    r"(?P<name>\b[A-Z][\w&.!'’-]*(?:,?\s+(?:[A-Z][\w&.!'’-]*|of|&|de|du|von))*),?\s+(?:a|an)\s+"
    r"(?:[\w.,-]+\s+){0,4}?(?:company|corporation|partnership|limited\s+liability\s+company"
    r"|individual|entity|bank|association|trust|society|authority|foundation|university)\b"
)
# only "which": in "one party (the “Disclosing Party”) that is revealed" the clause is the
# information's
_BLANK = r"\$?\[[^\[\]\n]{1,80}\]"
_PLACEHOLDER = re.compile(
    rf"(?P<thing>{_BLANK}(?:,?\s+(?:a|an)\s+{_BLANK}(?:\s+[a-z]+){{0,3}})?)[\s,]*$"
)
"""A template's blank to fill in, right before the parenthesis: "as of [DATE] (the
“Effective Date”)", "of $[_____] (the “Purchase Amount”)", "[NAME], a [ENTITY TYPE] (the
“Entity”)": the blank is what the term names."""
_FORM_FIELD = re.compile(r"[ \t]*:[ \t]*(?:_{3,}|\.{5,}|…)")
"""A form's field after the parenthesis: a colon and a blank line to fill in."""
_EACH_A = re.compile(
    r"^\s*(?P<subject>[^()\"“”‘’]{2,120}?)\s+(?:is|are)\s+(?:each\s+|individually\s+)?"
    r"(?:(?:referred\s+to\s+as|called)\s+)?(?:a|an|the)?\s*$"
)
"""A parenthesis that names its own subject: "(Party A and [NAME] are each a “Party” and
both, the “Parties”)", "(the Company and the Investor are each a “Party”)"."""
_RELATIVE = re.compile(r"\s+(?P<clause>which\s[^.;:()]{1,300})")
_DEFINING = re.compile(r"\b(?:means|shall\s+mean|is\s+defined\s+as|refers\s+to)\b")
_TOPIC = word_set("of concerning regarding about respecting re into in at on from under within")
_SUFFIX = re.compile(r"(?i)(?:inc|llc|ltd|limited|corp|corporation|plc|gmbh|ag|sa|l\.?p|co)\.?")
_FINITE = word_set("is are was were will shall may must can should would has have does do")
_ANAPHORIC = word_set("that those such said")
_RELATIVE_WORDS = word_set("which who whom whose where")
_SUBJECT_LEADS = word_set("any each every all this these the a an")
#: Words after a parenthesis that end the phrase before it (see :func:`_inside_phrase`).
_FUNCTION_WORDS = (
    _PREPOSITIONS
    | _FINITE
    | _DETERMINERS
    | word_set(
        "over under between within without against through during after before upon as than and"
        " or but nor if when where while because unless until so that which who whom whose what"
        " be been being could might did had not no it they he she we you also only here there"
        " then thereof herein hereunder hereto respectively collectively together"
    )
)
# what may open a list's item besides its words: a determiner, "all", a conjunction
_ITEM_LEADS = _DETERMINERS | word_set("all and or")
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
# a line opening a numbered or lettered item: what is named never reaches back across it
_ITEM_LINE = re.compile(
    r"(?m)^[ \t]*(?:\(\w{1,4}\)|\d{1,3}(?:\.\d{1,3})*\.?|[a-z]\)|[-*+•●▪])[ \t]"
)
_ITEM_END = re.compile(r"\s*[;.,:]?\s*(?:(?:and|or)\s*)?(?:\n|$)")
_CLAUSE_BREAK = re.compile(r"[,;:\[\]]|\n\s*\n|[.!?]\s+(?=[A-Z\"“‘(])")
_SENTENCE_BREAK = re.compile(r"\n\s*\n|[.!?:]\s+(?=[A-Z\"“‘(])|^[ \t]*#+[ \t]", re.MULTILINE)
# an item run into a sentence after the parenthesis that named the item before it:
# '(the “Cash-Out Amount”) or (ii) the amount payable ...' up to the next parenthesis
_INLINE_ITEM = re.compile(
    r"\)[\"”’]*\)?\s*[,;]?\s*(?:(?:and|or)\s+)?\((?:[ivx]{1,4}|[a-h]|\d{1,2})\)\s+"
    r"(?P<item>[^()\n]{3,300}?)\s*$"
)
# "Article 17 - " opening a heading: a label, not part of what a heading names
_LABEL = re.compile(
    r"^\s*(?i:article|section|sec\.|clause|chapter|part|schedule|annex|appendix)\s+[\w.()]+"
    r"\s*[-–—.:]\s*"
)


def parenthetical_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    yield from _referred_definitions(marked)
    for match in _PAREN.finditer(marked.quoted):
        subject = _subject_named(match) or _inner_named(match) or _such_named(match, marked)
        if subject:
            yield from subject
            continue
        terms = _named_terms(match)
        if not terms or _inside_phrase(marked.plain, match.start(), match.end()):
            continue
        if _FORM_FIELD.match(marked.plain, match.end()):
            continue  # 'Name ("You"): ________': a signature form's field to fill in
        collective = bool(_COLLECTIVE.search(match.group("body")))
        before = _text_before(marked.plain, match.start(), not collective)
        closes_item = _closes_item(marked.quoted, match.start(), match.end())
        relative = _RELATIVE.match(marked.plain, match.end())
        item = _inline_item(marked.plain, match.start())
        for term, start in terms:
            phrase = item if item and not _is_acronym(term) else ""
            phrase = phrase or _alternatives(marked.plain, match.start(), term)
            phrase = phrase or named_thing(before, term, closes_item, collective)
            phrase = _whole_list(before, term, phrase)
            if _GERUND_ITEM.match(before) and phrase == " ".join(before.split()).lstrip("-*+•● "):
                phrase = _bullet_as_written(marked.plain, match.start()) or phrase
            if phrase and relative and len(phrase.split()) <= 3:
                # "for a period (the “Restrictive Period”) which shall commence on ..."
                phrase = f"{phrase} {' '.join(relative.group('clause').split())}"
            # "This AD replaces AD 2018–23–51, ... (‘‘AD 2018–23–51’’)": a numbered name
            # repeated (not "the Court of Justice of the European Union (‘Court of Justice’)")
            repeated = bool(re.search(r"\d", term)) and term in phrase
            gloss = _gloss(marked.plain, term, match.start(), match.end())
            if phrase and not repeated and not gloss and not _examples(phrase, match.group("body")):
                yield FoundDefinition(term, phrase, start, match.end(), "parenthetical")


# 'provides this "LCM", hereafter referred to as the "Software", to you': the parenthesis's
# words set off by commas instead
_REFERRED = re.compile(
    r",\s*(?:hereafter|hereinafter)\s*,?\s*(?:referred\s+to\s+as|called)\s+(?:the\s+)?"
    + QTERM
    + r"\s*[,.;]"
)
_NAMED_BEFORE = re.compile(
    r".*\b(?P<phrase>(?:this|these|the|that|such|its|their|our|your)\s+[^,;:()\n]{1,80})$", re.S
)


def _referred_definitions(marked: Unmarked) -> Iterator[FoundDefinition]:
    """'this "LCM", hereafter referred to as the "Software",': the term names the noun
    phrase before the commas (from its last determiner)."""
    text = marked.quoted
    for match in _REFERRED.finditer(text):
        named = _NAMED_BEFORE.match(text[max(0, match.start() - 120) : match.start()])
        term, start = term_at(match.group("term"), match.start("term"))
        if named and valid_term(term):
            phrase = " ".join(named.group("phrase").replace('"', "").split()).strip("“”")
            yield FoundDefinition(term, phrase, start, match.end(), "parenthetical")


def _gloss(text: str, term: str, start: int, end: int) -> bool:
    """Whether a lower-case quoted word written with a letter outside English's alphabet
    is a gloss, used nowhere else in the text: 'the copyright ("upphovsrätt")' gives the
    word in another language, not a name to use."""
    if not term[:1].islower() or term.isascii():
        return False
    pattern = re.compile(r"\b" + re.escape(" ".join(term.split())).replace(r"\ ", r"\s+"), re.I)
    return not any(m.start() < start or m.start() >= end for m in pattern.finditer(text))


_FIRST_ITEM = re.compile(r"\((?P<label>i|a|1)\)\s+")
_SECOND_LABEL = {"i": "ii", "a": "b", "1": "2"}
_ITEM_LABEL = re.compile(r"\((?:[ivx]{1,4}|[a-h]|\d)\)\s+")
_NOUN_LEADS = word_set("any each every all a an the")


def _alternatives(text: str, paren: int, term: str) -> str:
    """A parenthesis closing a run-in list of noun phrases names the whole list: "(i) any
    director who is not an employee, or (ii) any holder of Stock ... (a “Covered Person”)";
    not a list of acts ("(i) pay the fee and (ii) deliver the report (the “Report”)"), nor
    when the last item opens with the term's head word or writes it as the term does (it
    names that item)."""
    if _is_acronym(term):
        return ""
    window = text[max(0, paren - WINDOW) : paren]
    firsts = list(_FIRST_ITEM.finditer(window))
    if not firsts:
        return ""
    first = firsts[-1]
    span = window[first.start() :]
    second = f"({_SECOND_LABEL[first.group('label')]}) "
    if second not in span or re.search(r"[\"“”‘’]|\n\s*\n|[.!?]\s+[A-Z]", span):
        return ""
    items = [part.split() for part in _ITEM_LABEL.split(span) if part.strip()]
    if len(items) < 2 or any(words[0].casefold() not in _NOUN_LEADS for words in items):
        return ""
    head = _head_word(term)
    named = head[:1].isupper() and head in (word.strip(",;") for word in items[-1])
    if named or _stem(head) in {_stem(word) for word in items[-1][:3]}:
        # "(a) the Board or (b) the holders of ... (the “Requisite Holders”)", "(1) the Key
        # Terms and (2) the Partner Standard Terms Version 1.3 (“Standard Terms”)"
        return ""
    listed = " ".join(window[first.end() :].split()).rstrip(" ,;")
    return listed if len(listed.split()) <= MAX_PHRASE_WORDS else ""


def _inline_item(text: str, paren: int) -> str:
    """The run-in item a parenthesis closes, when items name one term each: "(i) the
    Purchase Amount (the “Cash-Out Amount”) or (ii) the amount payable on ... (the
    “Conversion Amount”)" names all of item (ii), not its last noun phrase."""
    item = _INLINE_ITEM.search(text, max(0, paren - 400), paren)
    return " ".join(item.group("item").split()) if item else ""


def _subject_named(match: re.Match[str]) -> list[FoundDefinition]:
    """The terms a parenthesis gives its own subject ("(Party A and [NAME] are each a
    “Party” and both, the “Parties”)"), each defined as that subject."""
    body, offset = match.group("body"), match.start("body")
    first = QUOTED_TERM.search(body)
    lead = _EACH_A.match(body[: first.start()]) if first else None
    if not first or not lead:
        return []
    rest = QUOTED_TERM.sub(" ", body[first.start() :]).replace(",", " ").casefold().split()
    if not set(rest) <= _LEAD_WORDS:
        return []
    subject = " ".join(lead.group("subject").split())
    found = []
    for quoted in QUOTED_TERM.finditer(body, first.start()):
        term, start = term_at(quoted.group("term"), offset + quoted.start("term"))
        if valid_term(term) and term[0].isalpha():
            found.append(FoundDefinition(term, subject, start, match.end(), "parenthetical"))
    return found


_INNER = re.compile(
    r"^\s*(?P<phrase>(?:the|a|an|any|each|such)\s[^\"“”‘’()]{8,200}?)\s*,\s*(?:the\s+|a\s+|an\s+)?"
    + QTERM
    + r"\s*$"
)
_SUCH = re.compile(
    r"^\s*(?:each\s+|any\s+)?such\s+(?P<noun>[a-z][\w-]*)\s+(?:being\s+)?"
    r"(?:(?:here(?:in)?(?:after)?\s+)?(?:referred\s+to|called|defined)\s+(?:here(?:in)?\s+)?as"
    r"|here(?:in)?after)\s+(?:the\s+|a\s+|an\s+)?" + QTERM
)


def _inner_named(match: re.Match[str]) -> list[FoundDefinition]:
    """A parenthesis that holds what it names and then the name: "(the time of such
    closing or the date specified by the holders, the “Conversion Time”)"."""
    inner = _INNER.match(match.group("body"))
    if not inner:
        return []
    term, start = term_at(inner.group("term"), match.start("body") + inner.start("term"))
    phrase = " ".join(inner.group("phrase").split())
    if not valid_term(term) or len(phrase.split()) < 3:
        return []
    return [FoundDefinition(term, phrase, start, match.end(), "parenthetical")]


def _such_named(match: re.Match[str], marked: Unmarked) -> list[FoundDefinition]:
    """A parenthesis naming a noun of the sentence before it: "after the date on which the
    first share is issued (such date referred to herein as the “Original Issue Date”)"
    names the date, from its determiner up to the parenthesis."""
    such = _SUCH.match(match.group("body"))
    if not such:
        return []
    words = _text_before(marked.plain, match.start()).split()
    first = _determined_noun(words, such.group("noun"))
    if first is None:
        return []
    phrase = " ".join(words[first:]).rstrip(",;")
    term, start = term_at(such.group("term"), match.start("body") + such.start("term"))
    if not valid_term(term) or len(phrase.split()) > MAX_ANCHORED_WORDS:
        return []
    return [FoundDefinition(term, phrase, start, match.end(), "parenthetical")]


def _determined_noun(words: list[str], noun: str) -> int | None:
    """Where the last mention of ``noun`` opens with its determiner ("the date"), if any."""
    mentions = [index for index, word in enumerate(words) if _stem(word) == _stem(noun)]
    if not mentions:
        return None
    last = mentions[-1]
    return next((i for i in range(last, max(-1, last - 4), -1) if words[i] in _DETERMINERS), None)


def _inside_phrase(text: str, start: int, end: int) -> bool:
    """The parenthesis stands inside a noun phrase, between a participle and the noun it
    qualifies: "the explicitly negotiated ("Keep-Alive") version of persistent connections"
    names a kind of version, not the words before it. A verb ("indicates", "agree"), a
    preposition or any other function word after it ends the phrase it names."""
    before = _LAST_WORD.search(text, max(0, start - 60), start)
    after = _NEXT_WORD.match(text, end)
    if before is None or after is None or not before.group("word").endswith("ed"):
        return False
    word = after.group("word")
    return word.casefold() not in _FUNCTION_WORDS and not _VERB_FORM.search(word)


def _examples(phrase: str, body: str) -> bool:
    """'any non-identity CTE ("quoted-printable" or "base64")': instances of a class,
    given as alternatives without an article, not names for it."""
    return bool(_ANY.match(phrase)) and bool(_ALTERNATIVES.fullmatch(QUOTED_TERM.sub("X", body)))


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
        terms.append((_PLURAL_MARK.sub("", term), start))
    if terms:
        rest = QUOTED_TERM.sub(" ", body).replace(",", " ").replace(";", " ").casefold().split()
        if not set(rest) <= _LEAD_WORDS:
            return []
    else:
        unquoted = _UNQUOTED.match(body)
        if unquoted:
            terms = [(unquoted.group("term"), offset + unquoted.start("term"))]
    return [(term, start) for term, start in terms if valid_term(term) and term[0].isalpha()]


def _text_before(text: str, paren: int, after_definitions: bool = True) -> str:
    """The sentence before a parenthesis, without its own parentheses or a heading label;
    ``after_definitions``: only what follows an earlier defining parenthesis."""
    start = max(0, paren - WINDOW)
    window = text[start:paren]
    if start and not text[start - 1].isspace():
        window = window[window.find(" ") + 1 :]  # no half word
    items = list(_ITEM_LINE.finditer(window))
    window = window[items[-1].start() :] if items else window
    while True:
        # an earlier definition's parenthesis ends what this one can name: 'disclosed by
        # one Party (“Disclosing Party”) to the other (“Receiving Party”)'
        defining = list(re.finditer(r"\([^()]*[\"“”‘’][^()]*\)", window))
        window = window[defining[-1].end() :] if defining and after_definitions else window
        inner = re.sub(r"\([^()]*\)", " ", window)
        if inner == window:
            break
        window = inner
    window = window[window.rfind(")") + 1 :]
    starts = [m.end() for m in _SENTENCE_BREAK.finditer(window) if not _abbreviation(window, m)]
    sentence = window[starts[-1] :] if starts else window
    sentence = _LABEL.sub("", sentence, count=1)
    # a heading in capitals run into the sentence: "CONFIDENTIALITY OF EVALUATION MATERIALS You"
    return re.sub(r"^\s*(?:[A-Z][A-Z&,'’-]+\s+){2,}(?=[A-Z][a-z])", "", sentence)


def _abbreviation(text: str, stop: re.Match[str]) -> bool:
    """A full stop that ends "Cal.", "Civ.", "Inc." or "U.S.", not a sentence."""
    word = text[: stop.start() + 1].rsplit(maxsplit=1)[-1] if stop.group()[0] == "." else ""
    return bool(re.fullmatch(r"[A-Z][a-z]{0,3}\.|(?:[A-Za-z]\.)+", word))


_GERUND_ITEM = re.compile(r"\s*[-*+•●]\s+[A-Z][a-z]{2,}ing\s")


def _bullet_as_written(text: str, paren: int) -> str:
    """The bullet's words before a parenthesis with its own asides: "Publishing (or
    threatening to post) other people's ..." names the behaviour as the bullet writes it."""
    window = text[max(0, paren - WINDOW) : paren]
    items = list(_ITEM_LINE.finditer(window))
    if not items:
        return ""
    written = window[items[-1].end() :]
    return " ".join(written.split()) if len(written.split()) <= MAX_PHRASE_WORDS else ""


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
        return _spelled_out(words, term.rstrip("s")) or _opening_subject(words)
    placeholder = _PLACEHOLDER.search(before)
    if placeholder:
        return placeholder.group("thing")
    anchored = _anchored_phrase(_last_clause(words), term, collective)
    if anchored:
        return _without_conjunction(anchored)
    party = _party_name(before)
    if party:
        return party
    if collective:
        group = _WITH_ITS.search(before)
        named = group.group().rstrip() if group else _listed(_last_clause(words))
        named = named or _without_conjunction(_noun_phrase_before(before))
        if named:
            return named
    # "1. 'personal data' means any information relating to ... person ('data subject');"
    # names the person, not the sentence that defines another term
    # "- Publishing ... other people's personal information ("doxing"), such as ...": an
    # item naming a behaviour by its gerund names all of it, whatever follows
    whole = (closes_item or bool(_GERUND_ITEM.match(before))) and not _DEFINING.search(before)
    if (whole or collective) and 3 <= len(words) <= MAX_PHRASE_WORDS:
        return " ".join(words).lstrip("-*+•● ")
    phrase = _without_conjunction(_noun_phrase_before(before)) or _bare_subject(words)
    if not phrase and _plural(term):
        # "hold harmless Mozilla, its contractors, ... and agents (“Indemnified Parties”)"
        return _list_named(_last_clause(words))
    return phrase or _opening_subject(words)


def _opening_subject(words: list[str]) -> str:
    """A sentence that opens with a noun phrase and its parenthesis names all of that
    phrase: "Any non-conformity of the Software (a “Program Error”) must be reported",
    "This Software License Agreement (“EULA”) governs ..." (no verb, comma or list before)."""
    if not words or words[0].casefold() not in _SUBJECT_LEADS or len(words) > 20:
        return ""
    plain = [word.casefold() for word in words]
    if _FINITE.intersection(plain) or any(re.search(r"[,;:]$", word) for word in words[:-1]):
        return ""
    return " ".join(words)


def _bare_subject(words: list[str]) -> str:
    """A sentence (or item) that opens with a short name and its parenthesis: "- Mozilla
    accounts (the “Services”) include ..." names "Mozilla accounts"."""
    if words and re.fullmatch(r"[-*•●▪]|\(?\w{1,3}[.)]", words[0]):
        words = words[1:]
    plain = [word.casefold() for word in words]
    if not 1 <= len(words) <= 4 or not words[0][:1].isupper():
        return ""
    if _FUNCTION_WORDS.intersection(plain) or any(not w.isalnum() for w in words):
        return ""
    return " ".join(words)


def _whole_list(before: str, term: str, phrase: str) -> str:
    """A plural name given to the last items of a list names the whole list: "information,
    text, software, ... sounds and other material (called “Materials”)"."""
    if not phrase or not _plural(term) or _is_acronym(term):
        return phrase
    listed = _list_named(_last_clause(before.split()))
    whole = listed.count(",") >= 2 and listed.endswith(phrase) and len(listed) > len(phrase)
    return listed if whole else phrase


def _plural(term: str) -> bool:
    last = term.split()[-1]
    return len(last) > 3 and last.endswith("s") and not last.endswith("ss")


def _list_named(words: list[str]) -> str:
    """The list before a plural name, from its first item: a verb before it is left out
    ("hold harmless Mozilla, its contractors, ... and agents" names from "Mozilla")."""
    listed = _listed(words).split()
    for index, word in enumerate(listed[1:], 1):
        previous = listed[index - 1]
        opens = word[:1].isupper() or word.casefold() in _DETERMINERS
        if opens and not previous.endswith(",") and previous.casefold() not in ("and", "or"):
            return " ".join(listed[index:])
    return " ".join(_first_item_like_second(listed))


def _first_item_like_second(words: list[str]) -> list[str]:
    """The list from its first item, as long as its second ("offers information, text,
    ..." starts at "information"; "return all documents, notes, ..." at "all documents")."""
    commas = [index for index, word in enumerate(words) if word.endswith(",")]
    if len(commas) < 2:
        return words
    second = [w for w in words[commas[0] + 1 : commas[1] + 1] if w.casefold() not in _ITEM_LEADS]
    start = max(0, commas[0] + 1 - max(1, len(second)))
    if start and words[start - 1].casefold() in _ITEM_LEADS - {"and", "or"}:
        start -= 1
    return words[start:]


def _party_name(before: str) -> str:
    """The party a preamble names: "SUN PHARMACEUTICAL INDUSTRIES LTD., a company registered
    in India ..., Maharashtra, India (the “Potential Relationship Party”)"."""
    found = list(_PARTY.finditer(before))
    if not found or re.search(r"\band\s+[A-Z]", before[found[-1].end() :]):
        return ""  # "Yahoo! Inc., a California corporation, and Restrac, Inc. (“Participant”)"
    name = found[-1].group("name").rstrip(" ,")
    return "" if _SUFFIX.fullmatch(name) else name


def _listed(words: list[str]) -> str:
    """The list a collective name sums up: "other than identity proofing, authentication,
    or attribute assertion (collectively “identity service”)"."""
    start = len(words)
    for index in range(len(words) - 1, max(-1, len(words) - 30), -1):
        if words[index].strip("\"'‘’“”,;:").casefold() in _PHRASE_STOPS:
            break
        start = index
    span = words[start:]
    text = " ".join(span)
    commas = text.count(",") >= 2 or re.search(r",\s+(?:and|or|and/or)\s", text)
    joined = any(word.casefold() in ("and", "or", "and/or") for word in span)
    return text if commas and joined and len(span) >= 3 else ""


def _last_clause(words: list[str]) -> list[str]:
    """The words after the last semicolon: a head word before it is another clause's."""
    ends = [index for index, word in enumerate(words) if word.endswith(";")]
    return words[ends[-1] + 1 :] if ends else words


def _without_conjunction(phrase: str) -> str:
    """ "NaturalNano Inc." of "and NaturalNano Inc.", "research work" of "and/or research work"."""
    return re.sub(r"^(?:and/or|and|or)\s+", "", phrase)


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
            # "certain Confidential Information is extremely sensitive (“Highly ...”)": the
            # head word is a clause's subject (a collective name may sum up a clause)
            # "any event on which the conversion is contingent (a “Contingency Event”)":
            # a verb of the head word's relative clause leaves it the phrase's head
            main = _before_relative(phrase)
            clause = [w.casefold() for w in phrase[len(main) :] if w.casefold() in _FINITE]
            finite = _FINITE.intersection(w.casefold() for w in main) or len(clause) > 1
            verb = not earliest and finite
            too_long = len(phrase) > MAX_ANCHORED_WORDS
            return "" if pointing or verb or too_long else " ".join(phrase)
    return ""


def _before_relative(phrase: list[str]) -> list[str]:
    """The words of a phrase before the relative clause qualifying its head word ("any
    event" of "any event on which the conversion is contingent")."""
    for index, word in enumerate(phrase[1:], 1):
        if word.casefold() in _RELATIVE_WORDS:
            start = index - 1 if phrase[index - 1].casefold() in _PREPOSITIONS else index
            return phrase[:start]
    return phrase


def _predeterminer(words: list[str], position: int) -> int:
    """Include "all" of "all the terms" and "all of" of "all of the contributions"."""
    before = [word.casefold() for word in words[max(0, position - 2) : position]]
    if before[-1:] and before[-1] in _PREDETERMINERS:
        return position - 1
    if len(before) == 2 and before[1] == "of" and before[0] in _PREDETERMINERS:
        return position - 2
    return position


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
            first = _qualified(words, initials[start][0])
            if first and words[first - 1].casefold() in _DETERMINERS:
                first -= 1
            return " ".join(words[first:])
    return ""


def _qualified(words: list[str], first: int) -> int:
    """Back over the capitalised words that qualify the spelled-out name between it and its
    determiner: "This Mutual Non-Disclosure Agreement (“NDA”)" names the mutual one."""
    for position in range(first - 1, max(-1, first - 4), -1):
        word = words[position]
        if word.casefold() in _DETERMINERS:
            return position + 1
        if not word[:1].isupper() or re.search(r"['’]s?$|[,;:.]$", word):
            return first
    return first


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
    clauses = _clauses(before)
    words = clauses[-1]
    previous = clauses[-2] if len(clauses) > 1 else []
    if words and words[0].casefold() == "as" and previous:
        # "the following offerings, as further defined below (the “Products”)"
        words, previous = previous, clauses[-3] if len(clauses) > 2 else []
    if words and words[0].casefold() in ("a", "an") and _capitalised_run(previous):
        # "Microsoft Corporation, a Washington corporation (“Microsoft”)": the name
        return " ".join(previous[-_capitalised_run(previous) :])
    run = _capitalised_run(words)
    named = run and words[-run].casefold() in _DETERMINERS
    # a party brought in by "made by X, INC. (“Seller”)", "between X and Y (“Buyer”)"
    introduced = run < len(words) and words[-run - 1].casefold() in ("by", "between", "and")
    start = None
    if run and (
        named or introduced or not _DETERMINERS.intersection(w.casefold() for w in words[:-run])
    ):
        start = len(words) - run
    else:
        dets = [i for i, word in enumerate(words[:-1]) if word.casefold() in _DETERMINERS]
        start = dets[-1] if dets else None
    # "or interest in, the Company (collectively, ...)": the object of a preposition
    across = not start and previous and previous[-1].strip(",").casefold() in _PREPOSITIONS
    if start is None or across or _complement(words[:start]):
        return ""
    phrase = words[start:][-12:]
    bare = [word.strip("\"'‘’“”,;:").casefold() for word in phrase]
    if bare[0] in _POINTING or _PHRASE_STOPS.intersection(bare) or _blanks(phrase):
        return ""
    return " ".join(_with_head(words, len(words) - len(phrase)))


def _clauses(before: str) -> list[list[str]]:
    """The words of each clause; a corporate suffix stays with its name ("Acme, Inc.")."""
    starts = [0] + [m.end() for m in _CLAUSE_BREAK.finditer(before)] + [len(before)]
    clauses: list[list[str]] = []
    for start, end in zip(starts, starts[1:], strict=False):
        words = before[start:end].rstrip(" ,;:").split()
        if clauses and clauses[-1] and words and _SUFFIX.fullmatch(" ".join(words).rstrip(",")):
            clauses[-1] = [*clauses[-1][:-1], clauses[-1][-1] + ",", *words]
        elif words or start == starts[-2]:
            clauses.append(words)
    return clauses or [[]]


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


def _complement(before: list[str]) -> bool:
    """The phrase is the object of "of", "concerning", ...: the parenthesis names the larger
    phrase ("information concerning the Company (“Evaluation Materials”)"). Not "relating
    to": "information relating to a natural person (‘data subject’)" names the person."""
    if not before or before[-1].casefold() not in _TOPIC:
        return False
    # partitive: "each of the Company and Investor (each a “Party”)"
    return not (
        len(before) > 1
        and before[-1].casefold() == "of"
        and before[-2].casefold() in ("each", "all", "both", "any", "either", "one")
    )


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
