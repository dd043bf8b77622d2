"""Short names of documents: how a question names a document it does not write out in full.

People rarely write a document's whole title: "Section 3.2 of the DPA" means the "Data
Processing Agreement", "Section 4 of FIPS 200" the file ``nist-fips-200.pdf``, "the Pilot
Agreement" the document titled so. Three short forms are read from each document's titles
(its title, its metadata title, its file stem), never from a list of known documents:

* a **phrase** of a title: two or more consecutive words of one part of the title (parts
  are split at " - ", "|", ":", brackets and the end of a sentence) that begin and end with
  a word that is not a stop word and hold a document word ("agreement", "license", "terms")
  heading its phrase, and another word: "General Public License" of "GNU General Public
  License v3.0 - GNU Project". In the query its words must be capitalised, as a name is:
  "the pilot agreement ends" is prose;
* an **acronym** of such a phrase of three words or more: the initials of its words, with
  and without its inner stop words ("Terms of Service": "TOS"), at least three letters,
  written in the query with at least two capitals ("DPA", "ToS");
* an **identifier**: one or two words of letters followed by all the numbers after them
  ("FIPS 200", "SP 800-63B", "GPL 3.0"), in any case; the query's identifier must not go on
  with more numbers ("SP 800-53" is not "SP 800-63B");
* an **abbreviation**: the word in capitals a file name begins with, as rulebooks are filed
  ("GEN" of ``GEN_VER08.181223.txt``, "FSMR" of ``FSMR (Consolidated_December 2023).txt``),
  written in capitals in a citation: before a decimal number or a kind of section ("GEN 5.3.6",
  "COBS Rule 3.5.5") or after "of" / "in" / "under" ("Rule 5.3.6 of GEN"). Elsewhere such a
  word is more often a topic ("UAE", "API") than a name.

A short name that several documents have names all of them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import unquote

from ..models import DocumentRecord
from .analyze import ENGLISH_STOP_WORDS
from .numbering import KIND_ALIASES

_TOKEN = re.compile(r"[A-Za-z0-9]+")
_TITLE_PART = re.compile(r"\s[-–—|:]\s|[()\[\]|:]")
#: The end of a sentence: a full stop (or "?", "!") after a word of two small letters at
#: least, then a capitalised word ("placenta. Properties"); not an initial ("U.S. Code")
#: nor an abbreviation before a number ("Vol. 85, No. 162", "Figs. S1").
_SENTENCE_END = re.compile(r"(?<=[a-z]{2})[.!?]\s+(?=[A-Z][a-z])")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")
#: Letters that number an identifier are at most this many words before its numbers.
IDENTIFIER_PREFIX = 2
MIN_ACRONYM = 3
#: Document words that name a document in the plural only: "Terms of Service", "Standard
#: Terms", but the "term" of "long-term" or "term sheet" is a span of time or a word.
PLURAL_ONLY = frozenset({"term"})


@dataclass(frozen=True)
class ShortName:
    words: tuple[str, ...]
    """Lower-cased tokens of the name."""
    source: str
    form: str
    """"phrase", "acronym", "identifier" or "abbreviation"."""

    @property
    def key(self) -> str:
        """What the name is looked up by: its first two words (one for an acronym), as a
        query's lower-cased tokens (:meth:`ShortNames.keys`). Not the first word alone:
        every act's file name gives the identifier "act NNN"."""
        return " ".join(self.words[:2])

    @property
    def value(self) -> str:
        """The form and the words, one string ("phrase pilot agreement"); tokens hold no
        space, so :meth:`parse` gives the name back."""
        return " ".join([self.form, *self.words])

    @classmethod
    def parse(cls, value: str, source: str) -> ShortName:
        form, *words = value.split(" ")
        return cls(tuple(words), source, form)


class ShortNames:
    """The short names of a set of documents, and where a query writes them."""

    def __init__(self, documents: Iterable[DocumentRecord], document_words: frozenset[str]):
        self._by_first: dict[str, set[ShortName]] = defaultdict(set)
        for document in documents:
            self.add(short_names(document, document_words))

    @classmethod
    def of(cls, shorts: Iterable[ShortName]) -> ShortNames:
        """The short names given (those a store looked up by a query's tokens)."""
        found = cls((), frozenset())
        found.add(shorts)
        return found

    def add(self, shorts: Iterable[ShortName]) -> None:
        for short in shorts:
            self._by_first[short.words[0]].add(short)

    @staticmethod
    def keys(query: str) -> list[str]:
        """The keys (:attr:`ShortName.key`) of the short names a query can write: each of
        its lower-cased tokens, and each two consecutive ones."""
        tokens = [t.lower() for t in _TOKEN.findall(query)]
        pairs = [f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)]
        return list(dict.fromkeys([*tokens, *pairs]))

    def named(self, words: tuple[str, ...], form: str) -> set[str]:
        """The sources of the short names of ``form`` that are ``words`` (lower-cased)."""
        shorts = self._by_first.get(words[0], ()) if words else ()
        return {s.source for s in shorts if s.words == words and s.form == form}

    def find(self, query: str, allowed: set[str]) -> list[tuple[int, int, str]]:
        """(start, end, source) of each short name the query writes."""
        tokens = list(_TOKEN.finditer(query))
        lowered = [t.group().lower() for t in tokens]
        spans: list[tuple[int, int, str]] = []
        for i, word in enumerate(lowered):
            for short in self._by_first.get(word, ()):
                end = i + len(short.words)
                if allowed and short.source not in allowed:
                    continue
                if tuple(lowered[i:end]) != short.words:
                    continue
                if short.form == "abbreviation" and not _in_citation(query, tokens, i, end):
                    continue
                if _written_as(short.form, [t.group() for t in tokens[i:end]]) and not (
                    short.form == "identifier" and _goes_on(query, tokens, end)
                ):
                    spans.append((tokens[i].start(), tokens[end - 1].end(), short.source))
        return spans


def short_names(document: DocumentRecord, document_words: frozenset[str]) -> set[ShortName]:
    """Every short name of one document (see the module)."""
    found: set[ShortName] = set()
    for title in _titles(document):
        for part in _title_parts(title):
            for words in _readings(part):
                for run in _phrases(words, document_words):
                    found.add(ShortName(run, document.source, "phrase"))
                    found |= {ShortName((a,), document.source, "acronym") for a in _acronyms(run)}
                found |= {ShortName(i, document.source, "identifier") for i in _identifiers(words)}
    if short := abbreviation(document.source):
        found.add(ShortName((short.lower(),), document.source, "abbreviation"))
    return found


_LEADING_CAPITALS = re.compile(r"^([A-Z]{2,6})(?=[ _.\-(])")
#: Words that lead to an abbreviation after a citation: "Rule 5.3.6 of GEN".
_CITING_BEFORE = frozenset({"of", "in", "under"})
_DECIMAL = re.compile(r"\d+\.\d")


def abbreviation(source: str) -> str | None:
    """The word in capitals a file name begins with ("GEN_VER08.181223.txt"), if any."""
    match = _LEADING_CAPITALS.match(unquote(PurePosixPath(source).name))
    return match[1] if match else None


def _in_citation(query: str, tokens: Sequence[re.Match[str]], start: int, end: int) -> bool:
    """The name at tokens ``start:end`` is written before a decimal number or a kind of
    section ("GEN 5.3.6", "GEN Rule 5.3.6"; not "UAE 2020") or after "of"/"in"/"under"
    ("Rule 5.3.6 of GEN")."""
    if end < len(tokens):
        following = tokens[end].group()
        if following.lower() in KIND_ALIASES or _DECIMAL.match(query, tokens[end].start()):
            return True
    return start > 0 and tokens[start - 1].group().lower() in _CITING_BEFORE


def _titles(document: DocumentRecord) -> list[str]:
    """Title, metadata title, the names the text gives itself (metadata ``names``) and file
    stem (separators as spaces)."""
    stem = _EXTENSION.sub("", unquote(PurePosixPath(document.source).name))
    found = [
        document.title,
        str(document.metadata.get("title") or ""),
        *self_given(document),
        re.sub(r"[_\-.]+", " ", stem),
    ]
    return list(dict.fromkeys(t for t in found if t.strip()))


def self_given(document: DocumentRecord) -> list[str]:
    """The names a document's text gives itself ("Guidance and Policies Manual (GPM)"),
    recorded in its metadata as ``names``."""
    names = document.metadata.get("names") or []
    return [str(n) for n in (names if isinstance(names, list) else [names])]


def _readings(part: str) -> list[list[str]]:
    """The lower-cased words of a title's part, with its words in camel case split
    ("DataProcessing" of a file stem) and as written: a name such as "LaTeX" is one word,
    and the initials of "LaTeX Project Public License" are "LPPL"."""
    split = [w.lower() for w in _TOKEN.findall(_CAMEL.sub(" ", part))]
    whole = [w.lower() for w in _TOKEN.findall(part)]
    return [split, whole] if whole != split else [split]


def _title_parts(title: str) -> list[str]:
    """The parts of a title a short name lies within: split at its separators (" - ", ":",
    brackets) and at the end of each sentence. A name's words run within one sentence: the
    initials of "placenta. Properties and allosteric regulation" are no acronym "PPAR"."""
    return [part for sentence in _SENTENCE_END.split(title) for part in _TITLE_PART.split(sentence)]


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _phrases(words: Sequence[str], document_words: frozenset[str]) -> Iterable[tuple[str, ...]]:
    """Runs of two words or more that begin and end with a content word and hold a document
    word heading the run and another content word (each word classified once: a title of n
    words has n^2/2 runs, and a corpus has as many titles as documents).

    A document word heads a run that ends with it ("Data Processing Agreement") or goes on
    from it with a stop word or a number ("Terms of Service", "License v3.0"); one followed
    in the run by another word describes that word (:func:`_describing`)."""
    stop = [w in ENGLISH_STOP_WORDS for w in words]
    content = [not s and not w.isdigit() for w, s in zip(words, stop, strict=True)]
    document = [
        c and _document_word(w, document_words) for w, c in zip(words, content, strict=True)
    ]
    describing = _describing(words, document, content)
    for start in range(len(words)):
        if stop[start]:
            continue
        held = other = 0  # document words heading the run before its last word; others
        for last in range(start, len(words)):
            other += content[last] and not document[last]
            if last > start and not stop[last] and (held or document[last]) and other:
                yield tuple(words[start : last + 1])
            held += document[last] and not describing[last]


def _document_word(word: str, document_words: frozenset[str]) -> bool:
    """One of ``document_words``, in the singular or the plural ("agreements"), or in the
    plural only for a word of :data:`PLURAL_ONLY` ("terms", not "term")."""
    singular = _singular(word)
    return singular in document_words and (singular != word or word not in PLURAL_ONLY)


def _describing(
    words: Sequence[str], document: Sequence[bool], content: Sequence[bool]
) -> list[bool]:
    """Which document words describe the word after them, a word not a stop word nor a
    number or version: the "regulation" of "transcription regulation networks", the
    "standard" of "standard deviation", the "NDA" of "NDA template". Such a word names no
    document with the words after it (no acronym "TRN"), as "Terms" does in "Terms of
    Service" and "License" in "License v3.0"."""
    return [
        document[i]
        and i + 1 < len(words)
        and content[i + 1]
        and not any(c.isdigit() for c in words[i + 1])
        for i in range(len(words))
    ]


def _acronyms(run: Sequence[str]) -> set[str]:
    if len(run) < MIN_ACRONYM or any(w[0].isdigit() for w in run):
        return set()
    every = "".join([w[0] for w in run])
    content = "".join([w[0] for w in run if w not in ENGLISH_STOP_WORDS])
    return {a for a in (every, content) if len(a) >= MIN_ACRONYM}


_REVISION = re.compile(r"(?P<number>\d+)(?:r|rev)\d{1,2}")
"""A number with its revision ("124r1" of ``nist-sp-800-124r1.pdf``): cited as "SP 800-124"."""


def _identifiers(words: Sequence[str]) -> Iterable[tuple[str, ...]]:
    """Letters then every number after them: ("fips", "200"), ("sp", "800", "63b"); a last
    number with a revision also without it: ("sp", "800", "124r1") and ("sp", "800", "124")."""
    for start, word in enumerate(words):
        if not _identifier_letters(word) or start + 1 >= len(words):
            continue
        end = start + 1
        while end < len(words) and any(c.isdigit() for c in words[end]):
            end += 1
        if end == start + 1:
            continue
        for first in range(max(0, start + 1 - IDENTIFIER_PREFIX), start + 1):
            if all(_identifier_letters(w) for w in words[first : start + 1]):
                yield tuple(words[first:end])
                if revised := _REVISION.fullmatch(words[end - 1]):
                    yield (*words[first : end - 1], revised["number"])


def _identifier_letters(word: str) -> bool:
    """A word that can name a document before its number: not "section" nor a stop word."""
    return (
        len(word) >= 2
        and word.isalpha()
        and word not in ENGLISH_STOP_WORDS
        and word not in KIND_ALIASES
    )


def _written_as(form: str, written: Sequence[str]) -> bool:
    """A phrase's words capitalised; an acronym with two capitals at least."""
    if form == "phrase":
        return all(
            w[0].isupper() or w[0].isdigit() for w in written if w.lower() not in ENGLISH_STOP_WORDS
        )
    if form == "acronym":
        return sum(c.isupper() for c in written[0]) >= 2
    if form == "abbreviation":
        return written[0].isupper()
    return True


def _goes_on(query: str, tokens: Sequence[re.Match[str]], end: int) -> bool:
    """The identifier written in the query continues with another number ("800-63B-1")."""
    if end >= len(tokens):
        return False
    gap = query[tokens[end - 1].end() : tokens[end].start()]
    return gap in ("-", ".", "") and any(c.isdigit() for c in tokens[end].group())
