"""The corpus's own vocabulary at query time: acronyms, defined terms, document names.

Built from what the extract stage stored, never from a hand-written list. It
expands "EACA" to "Eligible Automatic Contribution Arrangement" and back, finds
the defined terms a query names, and points at the chunks that define them, but
only where that is specific: a defining chunk joins the exact modality when the
query asks what a term means ("what is X", "define X", "X means", or the query is
the term; not "what is the company's maximum liability", which asks about a
liability) and the term is that one or rare (defined in few documents), and never
for a generic term that many documents define ("Agreement", "Party"), which would
pull every contract into the results.

An index is not read whole for this: :meth:`Glossary.from_store` gives a
:class:`KeyedGlossary`, which looks up, for each query, the entries it could name (its
words as acronyms, its word runs as long forms and defined terms) through the indexes on
their keys, and answers from those as the whole glossary would; the documents a query
names are read by key too (:func:`.names.document_names`), and the document count is a
count.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..config import DEFAULT_POLICY, SearchPolicy
from ..models import Acronym, Definition, DocumentRecord
from ..store.base import Capability, Store
from ..text.analyze import ENGLISH_STOP_WORDS
from ..text.normalize import normalize_acronym, normalize_phrase, normalize_term
from .names import DocumentNames, document_names

_WORD = re.compile(r"[A-Za-z](?:[A-Za-z0-9&.\-]*[A-Za-z0-9])?\.?")
_ASKS_MEANING = re.compile(
    r"\b(what\s+(is|are|does|do)|meaning|means?|define[sd]?|definition|stands?\s+for|"
    r"refers?\s+to)\b",
    re.IGNORECASE,
)

_DETERMINER = r"(?:(?:the|a|an)\s+)?"
_CLAUSE_END = r"(?=\s*(?:$|[?!.,;:(])|\s+(?:in|under|of|for|as|here|there)\b)"
"""What may follow the term of "what is X": the question ends, or goes on with where X is
used ("in the agreement"); "what is the company's maximum liability" asks about a
liability, not about the company."""
_ASKS_ABOUT = (
    r"\b(?:what|who)\s+(?:is|are|was|were)\s+{det}{term}" + _CLAUSE_END,
    r"\b(?:what|how)\s+(?:does|do|is|are)\s+{det}{term}\s+(?:mean|stand|refer|defined)",
    r"\b(?:define[sd]?|definition\s+of|meaning\s+of)\s+{det}{term}\b",
    r"\b{term}\s+(?:means?|is\s+defined|stands?\s+for|refers?\s+to)\b",
)
_QUESTION_WORDS = re.compile(
    r"\b(?:what|who|is|are|does|do|the|a|an|mean|means|meaning|of|define|definition)\b|[?!.]"
)


@dataclass
class QueryVocabulary:
    """What a query names from the corpus's vocabulary."""

    expansions: list[str] = field(default_factory=list)
    defining_chunks: list[str] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    """Normalised defined terms the query names."""
    asks_meaning: bool = False
    """The query asks what a term or acronym means ("What is EACA?", or the bare term)."""

    def expand(self, query: str) -> str:
        return f"{query} {' '.join(self.expansions)}" if self.expansions else query


class Glossary:
    def __init__(
        self,
        acronyms: list[Acronym],
        definitions: list[Definition],
        documents: list[DocumentRecord] | None = None,
    ) -> None:
        self.names = DocumentNames(documents or [])
        self.documents = len(documents) if documents else len({d.source for d in definitions})
        self._long_forms: dict[str, dict[str, None]] = defaultdict(dict)
        self._acronym_of: dict[str, dict[str, None]] = defaultdict(dict)
        self._acronym_chunks: dict[str, dict[str, None]] = defaultdict(dict)
        for item in acronyms:
            key = normalize_acronym(item.acronym)
            self._long_forms[key][item.long_form] = None
            self._acronym_of[normalize_phrase(item.long_form)][item.acronym] = None
            self._acronym_chunks[key][item.chunk_id] = None
        self._term_chunks: dict[str, dict[str, None]] = defaultdict(dict)
        self._term_sources: dict[str, set[str]] = defaultdict(set)
        for definition in definitions:
            key = normalize_term(definition.term)
            self._term_chunks[key][definition.chunk_id] = None
            self._term_sources[key].add(definition.source)
        self._long_pattern = _phrase_pattern(self._acronym_of)
        self._term_pattern = _phrase_pattern(self._term_chunks)

    @classmethod
    def from_store(cls, store: Store) -> Glossary:
        """The glossary of what ``store`` holds: acronyms, definitions, document names; read
        by key per query (:class:`KeyedGlossary`) unless the index cannot look acronyms up
        by key (then read whole)."""
        names = document_names(store)
        if Capability.ACRONYM_KEYS not in store.capabilities:
            glossary = cls(store.acronyms(), store.all_definitions())
        else:
            glossary = KeyedGlossary(store)
        glossary.names, glossary.documents = names, names.count
        return glossary

    def lookup(self, query: str, policy: SearchPolicy = DEFAULT_POLICY) -> QueryVocabulary:
        found = QueryVocabulary()
        acronyms = self._acronyms_in(query)
        found.terms = _matches(self._term_pattern, normalize_term(query))
        found.asks_meaning = _is_bare_acronym(query, acronyms) or asks_meaning(
            query, [*acronyms, *found.terms], policy
        )
        for acronym in acronyms:
            found.expansions += [f for f in self._long_forms[acronym] if f not in found.expansions]
            if found.asks_meaning:
                found.defining_chunks += list(self._acronym_chunks[acronym])
        phrase = normalize_phrase(query)
        for long_form in _matches(self._long_pattern, phrase):
            found.expansions += [
                a for a in self._acronym_of[long_form] if a not in found.expansions
            ]
        if found.terms and _is_bare_term(query, found.terms):
            found.asks_meaning = True
        if found.terms and found.asks_meaning:
            for term in self.specific_terms(query, found.terms, policy):
                found.defining_chunks += list(self._term_chunks[term])
        found.defining_chunks = list(dict.fromkeys(found.defining_chunks))
        return found

    def long_forms_in(self, query: str) -> dict[str, list[str]]:
        """Each long form of an acronym that ``query`` writes (normalised), with the
        acronyms it spells out: "the Market Infrastructure Rules" -> {"market
        infrastructure rules": ["MIR"]}."""
        found = _matches(self._long_pattern, normalize_phrase(query))
        return {form: list(self._acronym_of[form]) for form in found}

    def specific_terms(
        self, query: str, terms: list[str], policy: SearchPolicy = DEFAULT_POLICY
    ) -> list[str]:
        """The terms whose defining chunks are evidence for ``query``, rarest first: those
        it asks about and those few documents define, never generic ones."""
        asked = normalize_term(query)
        kept = [
            term
            for term in terms
            if not self.generic(term, policy)
            and (self.rare(term, policy) or asks_about(asked, term, policy))
        ]
        return sorted(kept, key=lambda term: len(self._term_sources[term]))

    def generic(self, term: str, policy: SearchPolicy = DEFAULT_POLICY) -> bool:
        """Many documents define the term: its definitions say nothing about which one."""
        return policy.generic(len(self._term_sources.get(term, ())), self.documents)

    def rare(self, term: str, policy: SearchPolicy = DEFAULT_POLICY) -> bool:
        """Few documents define the term (:attr:`SearchPolicy.rare_share`)."""
        return policy.rare(len(self._term_sources.get(term, ())), self.documents)

    def _acronyms_in(self, query: str) -> list[str]:
        found = []
        for word in _WORD.findall(query):
            key = normalize_acronym(word)
            if key not in self._long_forms or key in found:
                continue
            if word.islower() and (key in ENGLISH_STOP_WORDS or len(key) <= 2):
                continue
            found.append(key)
        return found


MAX_KEY_WORDS = 24
"""The longest run of query words looked up as a defined term or long form (the longest
GDPR term has 5 words)."""


class KeyedGlossary(Glossary):
    """The glossary of a store, read by key: each lookup reads the acronyms and definitions
    the query could name (indexed lookups) into a small :class:`Glossary` that answers."""

    def __init__(self, store: Store) -> None:
        super().__init__([], [])
        self._store = store

    def lookup(self, query: str, policy: SearchPolicy = DEFAULT_POLICY) -> QueryVocabulary:
        return self._part(query).lookup(query, policy)

    def long_forms_in(self, query: str) -> dict[str, list[str]]:
        phrases = _word_runs(normalize_phrase(query))
        return Glossary(self._store.acronyms_matching([], phrases), []).long_forms_in(query)

    def specific_terms(
        self, query: str, terms: list[str], policy: SearchPolicy = DEFAULT_POLICY
    ) -> list[str]:
        return self._part(query, terms).specific_terms(query, terms, policy)

    def generic(self, term: str, policy: SearchPolicy = DEFAULT_POLICY) -> bool:
        return self._part("", [term]).generic(term, policy)

    def rare(self, term: str, policy: SearchPolicy = DEFAULT_POLICY) -> bool:
        return self._part("", [term]).rare(term, policy)

    def _part(self, query: str, terms: Sequence[str] = ()) -> Glossary:
        """A glossary holding every entry ``query`` (or the normalised ``terms``) can name,
        each with all its definitions and long forms, and this glossary's documents."""
        keys = list(dict.fromkeys(normalize_acronym(w) for w in _WORD.findall(query)))
        phrases = _word_runs(normalize_phrase(query))
        acronyms = self._store.acronyms_matching(keys, phrases)
        wanted = [*_term_candidates(normalize_term(query)), *terms]
        definitions = self._store.definitions(list(dict.fromkeys(wanted))) if wanted else []
        part = Glossary(acronyms, definitions)
        part.names, part.documents = self.names, self.documents
        return part


def _word_runs(phrase: str) -> list[str]:
    """Every run of up to :data:`MAX_KEY_WORDS` consecutive words of a normalised phrase
    (words of letters, digits and ``_``, single spaces): the long forms it can hold."""
    words = phrase.split()
    return list(
        dict.fromkeys(
            " ".join(words[i:j])
            for i in range(len(words))
            for j in range(i + 1, min(len(words), i + MAX_KEY_WORDS) + 1)
        )
    )


_WORDISH = re.compile(r"[\w-]")

MAX_KEY_CHARS = 256
"""The longest substring of a query looked up as a defined term."""
MAX_KEY_ENDS = 64
"""The most ends tried for each start of a candidate term (a 24-word term has about 48)."""


def _term_candidates(text: str) -> list[str]:
    """Every substring of a normalised query that a defined term's key could match in
    :func:`_phrase_pattern`: between its boundaries (no word character or hyphen just
    outside), neither starting nor ending with a space (keys are stripped), of at most
    :data:`MAX_KEY_WORDS` words and :data:`MAX_KEY_CHARS` characters. A run of other
    characters (punctuation, combining marks) is entered at its first character and left
    at its last, so that the candidates grow with the query's length, not its square."""
    starts, ends = _key_boundaries(text)
    spaces = [0]
    for char in text:
        spaces.append(spaces[-1] + (char == " "))
    found: dict[str, None] = {}
    for start in starts:
        first = bisect_right(ends, start)
        for end in ends[first : first + MAX_KEY_ENDS]:
            if spaces[end] - spaces[start] >= MAX_KEY_WORDS or end - start > MAX_KEY_CHARS:
                break
            found[text[start:end]] = None
    return list(found)


def _key_boundaries(text: str) -> tuple[list[int], list[int]]:
    """Where a candidate term can start and end in ``text`` (see :func:`_term_candidates`)."""
    size = len(text)
    wordish = [bool(_WORDISH.match(char)) for char in text]
    space = [char.isspace() for char in text]
    starts = [
        i
        for i in range(size)
        if not space[i] and (i == 0 or (not wordish[i - 1] and (wordish[i] or space[i - 1])))
    ]
    ends = [
        j
        for j in range(1, size + 1)
        if not space[j - 1] and (j == size or (not wordish[j] and (wordish[j - 1] or space[j])))
    ]
    return starts, ends


MAX_SCANNED_KEYS = 64
"""Up to this many keys are looked for by :func:`_scan`; more by one compiled pattern."""

_Keys = re.Pattern[str] | tuple[str, ...] | None


def _phrase_pattern(phrases: dict[str, dict[str, None]]) -> _Keys:
    r"""What finds the keys of ``phrases`` in a text: the keys longest first, or, for many
    keys (a glossary read whole), the pattern ``(?<![\w-])(key|...)(?![\w-])``. A glossary
    read by key holds a few keys for each query, and compiling a pattern for them cost
    more than the rest of its lookup."""
    keys = sorted((k for k in phrases if k), key=len, reverse=True)
    if not keys:
        return None
    if len(keys) <= MAX_SCANNED_KEYS:
        return tuple(keys)
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(k) for k in keys) + r")(?![\w-])")


def _matches(pattern: _Keys, text: str) -> list[str]:
    if pattern is None:
        return []
    found = _scan(pattern, text) if isinstance(pattern, tuple) else pattern.findall(text)
    return list(dict.fromkeys(found))


def _scan(keys: tuple[str, ...], text: str) -> list[str]:
    """What the pattern of :func:`_phrase_pattern` finds: from each position, left to
    right, the first (longest) key there between boundaries, scanning on after it."""
    found = []
    at = 0
    while at < len(text):
        if at == 0 or not _WORDISH.match(text, at - 1):
            key = next(
                (
                    k
                    for k in keys
                    if text.startswith(k, at) and not _WORDISH.match(text, at + len(k))
                ),
                None,
            )
            if key is not None:
                found.append(key)
                at += len(key)
                continue
        at += 1
    return found


def asks_about(query: str, term: str, policy: SearchPolicy = DEFAULT_POLICY) -> bool:
    """The (normalised) query asks what ``term`` means, or is mostly the term itself (the
    policy's ``term_share`` of it)."""
    text = query.replace("'", " ").replace('"', " ")
    escaped = re.escape(term)
    for pattern in _ASKS_ABOUT:
        if re.search(pattern.format(det=_DETERMINER, term=escaped), text):
            return True
    rest = " ".join(_QUESTION_WORDS.sub(" ", text).split())
    return bool(rest) and len(term) >= policy.term_share * len(rest)


def asks_meaning(query: str, named: Sequence[str], policy: SearchPolicy = DEFAULT_POLICY) -> bool:
    """The query asks what one of the terms or acronyms it ``named`` (normalised) means:
    it has words asking for a meaning ("what is", "define", "stands for") about that term
    (:func:`asks_about`), not only somewhere ("what is the most GoodData will pay")."""
    if not named or not _ASKS_MEANING.search(query):
        return False
    asked = normalize_term(query)
    return any(asks_about(asked, normalize_term(term), policy) for term in named)


def _is_bare_term(query: str, terms: list[str]) -> bool:
    bare = normalize_term(query.strip(" ?!.\"'‘’“”"))
    return bare in terms


def _is_bare_acronym(query: str, acronyms: list[str]) -> bool:
    return [normalize_acronym(w) for w in _WORD.findall(query)] == acronyms[:1]


def acronym_definitions(store: Store, term: str) -> list[Definition]:
    """What the documents give as the long form of the acronym ``term`` ("NDA" ->
    "Non-Disclosure Agreement", from "Non-Disclosure Agreement (NDA)" or a list of
    acronyms), each as a definition of style ``acronym`` where the document writes it."""
    key = normalize_acronym(term)
    if not key:
        return []
    if Capability.ACRONYM_KEYS in store.capabilities:
        records = store.acronyms_matching([key], [])
    else:
        records = [a for a in store.acronyms() if normalize_acronym(a.acronym) == key]
    unique = list(dict.fromkeys((a.acronym, a.long_form, a.source, a.chunk_id) for a in records))
    chunks = store.get_chunks([chunk_id for *_, chunk_id in unique])
    return [
        Definition(
            acronym, long_form, source, chunks[chunk_id].chunk.section_id, chunk_id, "acronym"
        )
        for acronym, long_form, source, chunk_id in unique
        if chunk_id in chunks
    ]
