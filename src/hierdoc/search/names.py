"""Documents a query names: "Section 8.4 of the cloud agreement", "Consider nda_9.txt; ...".

A lawyer asking about "the agreement between A and B" means that agreement, not
every contract that mentions a party. A document is named in two ways:

* **as written**: the query holds its file name, file stem, source or title,
  case-insensitively and between word boundaries; only names that cannot be an
  ordinary phrase count (they hold a digit or one of ``. _ - %``, or are three
  words or more), so a title such as "Agreement" names nothing;
* **as written, in short**: the query writes a short form of its title or file name
  (:class:`ShortNames`): a phrase of the title headed by a document word, capitalised as a
  name is ("the Pilot Agreement", "the Corporate Terms" of "GitHub Corporate Terms of
  Service"), the acronym of such a phrase in capitals ("the DPA" of "Data Processing
  Agreement"), or an identifier of the title or file name, letters then numbers ("FIPS 200"
  of ``nist-fips-200.pdf``, "SP 800-63B"); a short name that several documents share names
  them all;
* **by its name's words**: the query holds at least ``name_coverage`` (half) of the
  weight of the
  words of its name (title and file stem, lower-cased, plural "s" dropped), each
  word weighted by its inverse frequency among the documents' names, a document
  word ("agreement", "policy", "standard", ...) is in the query, and no other
  document comes close (half its weight or less).

What names a document is computed when the document is written (:func:`name_keys`) and
stored with it, keyed by what a query must hold to name it: a written name by its first
two words, a short name by its first two tokens, a name word by itself. A query then reads
the keys its own words can match (:class:`KeyedNames`), and a name word's document
frequency is the count of its holders: nothing is read for every document, and a new
process names documents from its first query on. :class:`DocumentNames` is the same
reading from document records held in memory: an index written before the keys were
stored, opened read-only.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ..config import DEFAULT_POLICY, SearchPolicy
from ..models import DocumentRecord
from ..store.base import Capability
from ..text.names import (
    DOCUMENT_WORDS,
    NAME_WORD,
    NAMES,
    SHORT,
    WORD,
    WRITTEN,
    name_strings,
    name_words,
    name_words_of,
    written_form,
)
from ..text.normalize import normalize_acronym
from ..text.numbering import KIND_ALIASES
from ..text.short_names import ShortName, ShortNames, abbreviation
from .syntax import Reader, parse_query

WRITTEN_OUT = "as written"
"""How a query names a document whose file name, source or title it writes out."""
LongForms = Callable[[], dict[str, list[str]]]
"""The long forms of acronyms a query writes, each with its acronyms, read when needed: in
a query with a number, which a citation needs."""
_DIGIT = re.compile(r"\d")
_THE_BEFORE = re.compile(r"\bthe\s+$", re.IGNORECASE)
#: A decimal number right after a name: the "5.3.6" of "GEN 5.3.6".
_DECIMAL_AFTER = re.compile(r"\s+\d+(?:\.\d+[A-Za-z]?)+\b")
#: A decimal number, with no kind word before it, and "of" or "in" right before a name: the
#: "5.3.6 of " of "5.3.6 of GEN".
_DECIMAL_BEFORE = re.compile(
    r"(?<![\w.])(?P<number>\d+(?:\.\d+[A-Za-z]?)+(?:\([0-9A-Za-z]{1,4}\))*)\s+(?:of|in)\s+"
    r"(?:the\s+)?$",
    re.IGNORECASE,
)
_WORD_BEFORE = re.compile(r"(?P<word>[A-Za-z]+)\.?\s+$")
#: The word after a short name in the same noun phrase: after spaces or a hyphen, or as the
#: first word of a bracket that glosses the name ("Apolipoprotein E4 (APOE4) allele").
_NEXT_WORD = re.compile(r"[ \t-]*(?:\(\s*)?([A-Za-z][A-Za-z0-9]*)")
#: Words that say a query is about a document or a part of one.
_KIND_WORDS = frozenset(k.rstrip(".").lower() for k in KIND_ALIASES if k[0].isalpha())
POINTING_WORDS = DOCUMENT_WORDS | _KIND_WORDS
#: A citation ("Rule 7.2.1", "section 5(2)"): its words are no name's words.
_CITED = re.compile(
    r"\b(?:" + "|".join(sorted(_KIND_WORDS)) + r")s?\.?\s*\d[\w.()]*", re.IGNORECASE
)


NameRows = Callable[[str, Sequence[str]], "list[tuple[str, str, str]]"]
"""A store's lookup: (key, value, source) of the name keys of a kind whose key is given."""


class NamedStore(Protocol):
    """What :func:`document_names` reads of a store."""

    @property
    def capabilities(self) -> frozenset[Capability]: ...

    def name_keys(self, kind: str, keys: Sequence[str]) -> list[tuple[str, str, str]]: ...

    def document_count(self) -> int: ...

    def documents(self) -> list[DocumentRecord]: ...


@dataclass(frozen=True)
class Naming:
    """The documents a query names and how (``"as written"``, ``"by a short name"`` or
    ``"by its name's words"``)."""

    sources: tuple[str, ...]
    how: str
    spans: tuple[tuple[int, int], ...] = ()
    """Where the query writes the names (as written only)."""

    @property
    def written(self) -> bool:
        """The query writes a file name or title out."""
        return self.how == WRITTEN_OUT

    def rest(self, query: str) -> str:
        """The query without the names written in it: what it asks about those documents.
        A name written before a decimal number cites it, as rulebooks are cited: "GEN 5.3.6"
        asks for section 5.3.6; so does a bare number written before "of" or "in" and the
        name: "5.3.6 of GEN"."""
        for start, end in sorted(self.spans, reverse=True):
            cites = _DECIMAL_AFTER.match(query, end) is not None
            query = query[:start] + (" section " if cites else " ") + query[end:]
            before = _number_before(query, start)
            if before is not None:
                query = query[:before] + "section " + query[before:]
        return " ".join(query.split())


def _number_before(query: str, start: int) -> int | None:
    """Where a bare decimal number cited as "5.3.6 of <name at start>" begins, else None (a
    number after a kind word, "Rule 5.3.6 of GEN", is a citation already)."""
    match = _DECIMAL_BEFORE.search(query, 0, start)
    if match is None or match.end() != start:
        return None
    word = _WORD_BEFORE.search(query, 0, match.start("number"))
    if word and word.group("word").lower().rstrip("s") in _KIND_WORDS:
        return None
    return match.start("number")


class DocumentNames:
    """What names each indexed document, and which documents a query names: built from
    document records held in memory (:class:`KeyedNames` reads a store by key instead)."""

    def __init__(self, documents: Iterable[DocumentRecord]) -> None:
        self._by_opening: dict[tuple[str, ...], list[tuple[str, str]]] = defaultdict(list)
        self._names: dict[str, list[set[str]]] = {}
        self._holders: dict[str, list[str]] = defaultdict(list)
        self._documents = list(documents)
        for document in self._documents:
            for name in name_strings(document):
                if written_form(name):
                    opening = tuple(NAME_WORD.findall(name)[:2])
                    self._by_opening[opening].append((name, document.source))
            self._names[document.source] = name_words(document)
            for word in set().union(*self._names[document.source]):
                self._holders[word].append(document.source)
        self.count = len(self._names)
        self._short = ShortNames(self._documents, DOCUMENT_WORDS)

    def named(
        self,
        query: str,
        scope: Sequence[str] = (),
        policy: SearchPolicy = DEFAULT_POLICY,
        read: Reader = parse_query,
        long_forms: LongForms | None = None,
    ) -> Naming | None:
        """The documents ``query`` names (within ``scope`` when given), or None. ``read``:
        how the query's syntax is read, when a short name needs to know whether it cites a
        section (the query plan passes its own reading, so the query is read once).

        The evidence, strongest first: a name written out; a short name of one document;
        in a query that cites a section, the long form of a document's abbreviation
        (``long_forms``, the corpus's acronyms the query spells out,
        :func:`named_by_long_forms`); a short name several documents share (an
        abbreviation other documents' names hold, "ADGM", is one), narrowed to the one
        document the query's name words pick among them or among all; the name's words."""
        if self.count < 2:
            return None
        allowed = set(scope)
        lowered = query.lower()
        full = self._as_written(lowered, allowed)
        if len(lowered) != len(query):
            return (
                Naming(_sources(full), WRITTEN_OUT)
                if full
                else self._by_words(query, allowed, policy)
            )
        short = self._short_names(query).find(query, allowed)
        if full:
            spans = _outermost([*full, *_meant_as_names(query, short, read)])
            return Naming(_sources(spans), WRITTEN_OUT, tuple((s, e) for s, e, _ in spans))
        spans = _outermost(_meant_as_names(query, self._shared(query, short, allowed), read))
        if len(_sources(spans)) == 1:
            return Naming(_sources(spans), "by a short name", tuple((s, e) for s, e, _ in spans))
        if long_forms is not None and _DIGIT.search(query) and (found := long_forms()):
            naming = named_by_long_forms(self, found, query, scope)
            if naming is not None and read(naming.rest(query)).cites:
                return naming
        if spans:
            return self._among(query, spans, allowed, policy)
        return self._by_words(query, allowed, policy)

    def _among(
        self,
        query: str,
        spans: list[tuple[int, int, str]],
        allowed: set[str],
        policy: SearchPolicy,
    ) -> Naming:
        """The documents of short names several documents share: the one the query's name
        words pick among them, else among all, else all of them."""
        where = tuple((s, e) for s, e, _ in spans)
        chosen = self._by_words(query, set(_sources(spans)), policy)
        chosen = chosen or self._by_words(query, allowed, policy)
        if chosen is not None:
            return Naming(chosen.sources, chosen.how, where)
        return Naming(_sources(spans), "by a short name", where)

    def _shared(
        self, query: str, spans: list[tuple[int, int, str]], allowed: set[str]
    ) -> list[tuple[int, int, str]]:
        """The short-name spans, each abbreviation also naming the other documents whose
        names hold it as a word: "ADGM" of ``ADGM_Guidance_-_Application_of_English_Laws.txt``
        also names ``Guidance - Virtual Asset Activities in ADGM (VER05.181223).txt``."""
        found = list(spans)
        for start, end, source in spans:
            written = query[start:end]
            if abbreviation(source) != written:
                continue
            word = written.lower()
            holders = self._holders_of([word]).get(word, [])
            found += [(start, end, h) for h in holders if not allowed or h in allowed]
        return list(dict.fromkeys(found))

    def _as_written(self, query: str, allowed: set[str]) -> list[tuple[int, int, str]]:
        """(start, end, source) of each name in the query, none inside a longer one."""
        spans: list[tuple[int, int, str]] = []
        words = NAME_WORD.findall(query)
        openings = {*zip(words, words[1:], strict=False), *((w,) for w in words)}
        for name, source in self._written(openings):
            if allowed and source not in allowed:
                continue
            spans += [(start, end, source) for start, end in _occurrences(query, name)]
        return _outermost(spans)

    def _by_words(self, query: str, allowed: set[str], policy: SearchPolicy) -> Naming | None:
        """The one document whose name's words the query holds, far ahead of any other
        (the weights summed exactly, :func:`math.fsum`, so that ties are ties). Only the
        leader's coverage is needed: a leader tied with another has no margin."""
        asked = name_words_of(_CITED.sub(" ", query))
        if not asked & DOCUMENT_WORDS:
            return None
        holders = self._holders_of(asked)
        idf = self._idf(holders)
        weights: dict[str, list[float]] = defaultdict(list)
        for word, sources in holders.items():
            for source in sources:
                if not allowed or source in allowed:
                    weights[source].append(idf[word])
        scored = sorted(((math.fsum(w), source) for source, w in weights.items()), reverse=True)
        if not scored:
            return None
        held, source = scored[0]
        if len(scored) > 1 and held < policy.name_margin * scored[1][0]:
            return None
        if self._coverage(source, asked, holders) < policy.name_coverage:
            return None
        return Naming((source,), "by its name's words")

    def holding_every(self, words: set[str]) -> set[str]:
        """The documents whose names hold every one of ``words`` (name words, lower-cased)."""
        holders = self._holders_of(words)
        if not words or set(holders) != words:
            return set()
        return set.intersection(*(set(sources) for sources in holders.values()))

    def _idf(self, holders: dict[str, list[str]]) -> dict[str, float]:
        return {w: math.log(1 + self.count / len(s)) for w, s in holders.items() if s}

    def _coverage(self, source: str, asked: set[str], holders: dict[str, list[str]]) -> float:
        """The largest share of one of the document's names that the query holds."""
        names = self._names_of(source)
        unknown = set().union(*names) - set(holders)
        idf = self._idf({**holders, **self._holders_of(unknown)})
        shares = [
            math.fsum(idf[w] for w in words & asked) / math.fsum(idf[w] for w in words)
            for words in names
        ]
        return max(shares, default=0.0)

    # the lookups (:class:`KeyedNames` reads them from a store)

    def _written(self, openings: set[tuple[str, ...]]) -> list[tuple[str, str]]:
        """(name, source) of the written-form names that open with one of ``openings``."""
        return [found for opening in openings for found in self._by_opening.get(opening, ())]

    def abbreviated(self, acronym: str) -> set[str]:
        """The documents whose file name begins with ``acronym`` in capitals, their
        abbreviation (:mod:`~hierdoc.text.short_names`): "MIR" of ``MIR_VER07.181223.txt``;
        a plural acronym is its singular ("APIs" of ``API - Guidance Note.txt``)."""
        key = normalize_acronym(acronym)
        return self._short_names(key).named((key,), "abbreviation")

    def _short_names(self, query: str) -> ShortNames:
        """Short names holding every one ``query`` can write."""
        return self._short

    def _holders_of(self, words: Iterable[str]) -> dict[str, list[str]]:
        """The documents whose names hold each word (the words no name holds left out)."""
        return {w: self._holders[w] for w in words if self._holders.get(w)}

    def _names_of(self, source: str) -> list[set[str]]:
        return self._names.get(source, [])


class KeyedNames(DocumentNames):
    """The names of a store's documents, read for each query by the keys its words can
    match (:func:`name_keys`, written with each document): nothing is read whole."""

    def __init__(self, rows: NameRows, count: int) -> None:
        super().__init__([])
        self._rows = rows
        self.count = count

    def _lookup(self, kind: str, keys: Sequence[str]) -> list[tuple[str, str, str]]:
        return self._rows(kind, list(keys)) if keys else []

    def _written(self, openings: set[tuple[str, ...]]) -> list[tuple[str, str]]:
        keys = sorted(" ".join(opening) for opening in openings)
        return [(value, source) for _, value, source in self._lookup(WRITTEN, keys)]

    def _short_names(self, query: str) -> ShortNames:
        rows = self._lookup(SHORT, ShortNames.keys(query))
        return ShortNames.of(ShortName.parse(value, source) for _, value, source in rows)

    def _holders_of(self, words: Iterable[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = defaultdict(list)
        for word, _, source in self._lookup(WORD, sorted(words)):
            found[word].append(source)
        return dict(found)

    def _names_of(self, source: str) -> list[set[str]]:
        rows = self._lookup(NAMES, [source])
        return [set(words) for words in json.loads(rows[0][1])] if rows else []


def document_names(store: NamedStore) -> DocumentNames:
    """The names of ``store``'s documents: read by key when the index holds current keys
    (:attr:`~hierdoc.store.base.Capability.NAME_KEYS`), else built from every document
    record (an index written before, opened for reading)."""
    if Capability.NAME_KEYS not in store.capabilities:
        return DocumentNames(store.documents())
    return KeyedNames(store.name_keys, store.document_count())


BY_LONG_FORM = "by the long form of its abbreviation"


def named_by_long_forms(
    names: DocumentNames, long_forms: dict[str, list[str]], query: str, scope: Sequence[str] = ()
) -> Naming | None:
    """The documents ``query`` names by the long form of their abbreviation, as the corpus
    spells it out: "Rule 6.5.8 of the Market Infrastructure Rules" names
    ``MIR_VER07.181223.txt`` when a document defines "Market Infrastructure Rules ("MIR")".
    ``long_forms``: each long form the query writes (normalised) with its acronyms; one
    names the documents whose abbreviation is one of them, when that is one document
    (within ``scope`` when given)."""
    spans: list[tuple[int, int, str]] = []
    for form, acronyms in long_forms.items():
        sources = {s for a in acronyms for s in names.abbreviated(a) if not scope or s in scope}
        if len(sources) == 1:
            source = sources.pop()
            spans += [(start, end, source) for start, end in _long_form_spans(query, form)]
    spans = _outermost(spans)
    if not spans:
        return None
    sources = tuple(dict.fromkeys(source for _, _, source in spans))
    return Naming(sources, BY_LONG_FORM, tuple((start, end) for start, end, _ in spans))


def _long_form_spans(query: str, form: str) -> Iterable[tuple[int, int]]:
    """Where the query writes a normalised long form: its words in order, in any case, with
    anything but letters and digits between them ("Guidance & Policies Manual")."""
    words = r"[\W_]+".join(re.escape(word) for word in form.split())
    for match in re.finditer(rf"(?<!\w){words}(?!\w)", query, re.IGNORECASE):
        yield match.start(), match.end()


def _sources(spans: Iterable[tuple[int, int, str]]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(source for _, _, source in spans))


def _outermost(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """The spans not inside a longer one ("GitHub Terms of Service" over "Terms of Service")."""
    kept = [
        s
        for s in spans
        if not any(o[0] <= s[0] and s[1] <= o[1] and o[1] - o[0] > s[1] - s[0] for o in spans)
    ]
    return sorted(set(kept))


def _occurrences(text: str, name: str) -> Iterable[tuple[int, int]]:
    """Where ``name`` occurs in ``text`` between word boundaries (letters, digits, ``_``)."""
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
            yield start, end
        start = text.find(name, start + 1)


def _meant_as_names(
    query: str, spans: list[tuple[int, int, str]], read: Reader
) -> list[tuple[int, int, str]]:
    """The short names of ``spans`` the query means as names: anywhere in a query that cites
    a section or says it means a document ("FIPS 200 Section 3", "the TDP-43 clause"), else
    written after "the" as the whole of what "the" introduces ("the DPA", "the GPL 3.0").
    Otherwise a short form is more often a topic than a name ("TDP-43", "interleukin-2",
    "CRP" in scientific claims). The query's syntax is read (``read``) only when that
    decides."""
    if not spans or _points_at_a_document(query):
        return spans
    kept = [
        span
        for span in spans
        if (_THE_BEFORE.search(query, 0, span[0]) and not _goes_on_as_a_term(query, span[1]))
        or _DECIMAL_AFTER.match(query, span[1])
        or _number_before(query, span[0]) is not None
    ]
    if len(kept) < len(spans) and read(query).cites:
        return spans
    return kept


def _goes_on_as_a_term(query: str, end: int) -> bool:
    """The short name ending at ``end`` is followed by another term written in capitals
    ("the SHP-2 MAPK pathway", "the Apolipoprotein E4 (APOE4) allele"): it is one word of
    a compound term, and the "the" before it is the compound's, not the name's. A document's
    name goes on with prose ("the DPA say", "the TOS on refunds") or its version ("the GPL
    3.0", "the GPL v3"), not with another acronym."""
    match = _NEXT_WORD.match(query, end)
    return match is not None and sum(c.isupper() for c in match.group(1)) >= 2


def _points_at_a_document(query: str) -> bool:
    """The query says it means a document or a part of one with a document word
    ("agreement") or a kind of part ("clause", "Section")."""
    words = NAME_WORD.findall(query.lower())
    return any(w.removesuffix("s") in POINTING_WORDS or w in POINTING_WORDS for w in words)
