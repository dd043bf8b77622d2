"""The corpus's own vocabulary at query time: acronyms and defined terms.

Built from what the extract stage stored, never from a hand-written list. It
expands "EACA" to "Eligible Automatic Contribution Arrangement" and back, finds
the defined terms a query names, and points at the chunks that define them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from ..models import Acronym, Definition
from ..pipeline.extract.acronyms import normalize_acronym, normalize_phrase
from ..pipeline.extract.definitions import normalize_term
from .analyze import ENGLISH_STOP_WORDS

_WORD = re.compile(r"[A-Za-z](?:[A-Za-z0-9&.\-]*[A-Za-z0-9])?\.?")
_ASKS_MEANING = re.compile(
    r"\b(what\s+(is|are|does|do)|meaning|means?|define[sd]?|definition|stands?\s+for|"
    r"refers?\s+to)\b",
    re.IGNORECASE,
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
    def __init__(self, acronyms: list[Acronym], definitions: list[Definition]) -> None:
        self._long_forms: dict[str, dict[str, None]] = defaultdict(dict)
        self._acronym_of: dict[str, dict[str, None]] = defaultdict(dict)
        self._acronym_chunks: dict[str, dict[str, None]] = defaultdict(dict)
        for item in acronyms:
            key = normalize_acronym(item.acronym)
            self._long_forms[key][item.long_form] = None
            self._acronym_of[normalize_phrase(item.long_form)][item.acronym] = None
            self._acronym_chunks[key][item.chunk_id] = None
        self._term_chunks: dict[str, dict[str, None]] = defaultdict(dict)
        for definition in definitions:
            self._term_chunks[normalize_term(definition.term)][definition.chunk_id] = None
        self._long_pattern = _phrase_pattern(self._acronym_of)
        self._term_pattern = _phrase_pattern(self._term_chunks)

    def lookup(self, query: str) -> QueryVocabulary:
        found = QueryVocabulary()
        acronyms = self._acronyms_in(query)
        found.asks_meaning = bool(_ASKS_MEANING.search(query)) or _is_bare_acronym(query, acronyms)
        for acronym in acronyms:
            found.expansions += [f for f in self._long_forms[acronym] if f not in found.expansions]
            if found.asks_meaning:
                found.defining_chunks += list(self._acronym_chunks[acronym])
        phrase = normalize_phrase(query)
        for long_form in _matches(self._long_pattern, phrase):
            found.expansions += [
                a for a in self._acronym_of[long_form] if a not in found.expansions
            ]
        found.terms = _matches(self._term_pattern, normalize_term(query))
        if found.terms and _is_bare_term(query, found.terms):
            found.asks_meaning = True
        if found.terms and found.asks_meaning:
            for term in found.terms:
                found.defining_chunks += list(self._term_chunks[term])
        found.defining_chunks = list(dict.fromkeys(found.defining_chunks))
        return found

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


def _phrase_pattern(phrases: dict[str, dict[str, None]]) -> re.Pattern[str] | None:
    keys = sorted((k for k in phrases if k), key=len, reverse=True)
    if not keys:
        return None
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(k) for k in keys) + r")(?![\w-])")


def _matches(pattern: re.Pattern[str] | None, text: str) -> list[str]:
    return list(dict.fromkeys(pattern.findall(text))) if pattern else []


def _is_bare_term(query: str, terms: list[str]) -> bool:
    bare = normalize_term(query.strip(" ?!.\"'‘’“”"))
    return bare in terms


def _is_bare_acronym(query: str, acronyms: list[str]) -> bool:
    return [normalize_acronym(w) for w in _WORD.findall(query)] == acronyms[:1]
