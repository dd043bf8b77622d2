"""The query plan: what a query asks, read once by an ordered list of analysers.

A :class:`QueryPlan` is frozen. Each analyser (:mod:`.analysers`) takes a plan and returns
a new one with what it read added and a :class:`Step` in the plan's ``trace`` saying what
it decided; the searcher (:mod:`.searcher`) then executes the plan, and the passages take
their evidence from it. No part of the search reads the query's text again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..config import SearchPolicy, SearchSettings
from ..errors import InputError
from ..models import SearchFilter
from ..text.invisible import clean_text
from .glossary import QueryVocabulary
from .relative_citations import RelativeCitation
from .syntax import ParsedQuery


@dataclass(frozen=True)
class Step:
    """What one analyser decided about the query."""

    analyser: str
    decision: str

    def to_dict(self) -> dict[str, str]:
        return {"analyser": self.analyser, "decision": self.decision}


@dataclass(frozen=True)
class QueryPlan:
    """What a query asks for, and how it will be searched."""

    query: str
    """The query as asked (invisible characters cleaned)."""
    settings: SearchSettings
    filt: SearchFilter | None = None
    """The scope: the caller's filter, narrowed to the documents the query names."""
    text: str = ""
    """What is searched: the query without the document names written in it."""
    named: tuple[str, ...] = ()
    """The documents the query names."""
    named_weight: float = 0.0
    """The weight in hybrid fusion of the query's ranking within the named documents (0:
    none, the scope was narrowed to them or nothing was named)."""
    within_text: str = ""
    """What is ranked within the named documents: the text without the words that name
    them (they match the chunks that repeat the document's name, its title and preamble,
    not those that answer); empty when that is the text itself."""
    phrases: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()
    cited: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Numbered citations: (text, candidate section ids, most specific first)."""
    relative: tuple[RelativeCitation, ...] = ()
    """Relative citations ("paragraph (k)"), resolved when the plan is executed."""
    remainder: str = ""
    """The text without its citations: the query's words."""
    parsed: ParsedQuery | None = None
    """The syntax of the query's own words (without the names of the documents it names),
    when the naming analyser has read it already: :class:`~.analysers.QuerySyntax` reads
    it from there rather than reading the query again."""
    vocabulary: QueryVocabulary = field(default_factory=QueryVocabulary)
    documents: int | None = None
    """How many documents the index holds (for generic headings); None when unknown."""
    notes: tuple[str, ...] = ()
    trace: tuple[Step, ...] = ()

    @classmethod
    def asked(
        cls, query: str, settings: SearchSettings, filt: SearchFilter | None = None
    ) -> QueryPlan:
        """The plan of ``query`` before any analyser: checked, cleaned, nothing read yet."""
        if not query or not query.strip():
            raise InputError("the query is empty")
        query = clean_text(query)
        if len(query) > settings.max_query_chars:
            raise InputError(
                f"the query has {len(query):,} characters; the limit is "
                f"{settings.max_query_chars:,} (max_query_chars)"
            )
        return cls(query, settings, filt, query.strip(), remainder=query.strip())

    @property
    def searchable(self) -> bool:
        """The query has a letter or a digit: something to search for."""
        return any(character.isalnum() for character in self.query)

    @property
    def policy(self) -> SearchPolicy:
        return self.settings.policy

    @property
    def mode(self) -> str:
        return self.settings.search_mode

    @property
    def depth(self) -> int:
        """How many candidates each modality ranks."""
        return max(self.settings.candidate_depth, self.settings.top_k)

    @property
    def fused(self) -> bool:
        """The exact modality ranks (hybrid and exact modes), and citations pin."""
        return self.mode in ("hybrid", "exact")

    @property
    def expanded(self) -> str:
        """The text with the vocabulary's expansions: what BM25 searches."""
        return self.vocabulary.expand(self.text)

    @property
    def embedded(self) -> str:
        """What the semantic modality embeds: the expanded text when the query asks what
        a term means, else the text."""
        return self.expanded if self.vocabulary.asks_meaning else self.text

    def generic(self, holders: int) -> bool:
        """``holders`` documents is too many for a heading to say which one is meant."""
        return self.documents is not None and self.policy.generic(holders, self.documents)

    def decided(self, analyser: str, decision: str, **changes: Any) -> QueryPlan:
        """This plan with ``changes`` and ``decision`` added to its trace."""
        return replace(self, **changes, trace=(*self.trace, Step(analyser, decision)))

    def to_dict(self) -> dict[str, Any]:
        """The plan as JSON-ready data (what ``--explain`` shows)."""
        return {
            "text": self.text,
            "named": list(self.named),
            "sources": list(self.filt.sources) if self.filt is not None else [],
            "phrases": list(self.phrases),
            "identifiers": list(self.identifiers),
            "citations": [{"text": t, "section_ids": list(ids)} for t, ids in self.cited],
            "relative_citations": [c.text for c in self.relative],
            "remainder": self.remainder,
            "expansions": list(self.vocabulary.expansions),
            "defined_terms": list(self.vocabulary.terms),
            "asks_meaning": self.vocabulary.asks_meaning,
            "trace": [step.to_dict() for step in self.trace],
        }


class Analyser(Protocol):
    """One rule of query understanding: a plan in, a plan out (with a trace step)."""

    name: str

    def __call__(self, plan: QueryPlan) -> QueryPlan: ...


def build_plan(plan: QueryPlan, analysers: list[Analyser] | tuple[Analyser, ...]) -> QueryPlan:
    """``plan`` read by each analyser in turn (nothing read from a query with no letter or
    digit)."""
    if not plan.searchable:
        return plan
    for analyser in analysers:
        plan = analyser(plan)
    return plan
