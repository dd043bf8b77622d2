"""The analysers of a query plan (:mod:`.plan`), in the order the searcher runs them:

1. :class:`NamedDocuments`: the documents the query names (:mod:`.names`) become its
   scope, and their names leave the text searched;
2. :class:`QuerySyntax`: quoted phrases, code identifiers, numbered and relative citations
   (:mod:`.syntax`), read once;
3. :class:`Vocabulary`: the corpus's acronyms and defined terms the query names
   (:mod:`.glossary`): expansions, and the chunks defining a term it asks about.

Each is a plan in, a plan out, with one step of trace.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from ..models import SearchFilter
from ..text.names import name_words_of
from .glossary import Glossary
from .names import DocumentNames
from .plan import Analyser, QueryPlan
from .syntax import ParsedQuery, Reading, has_words, parse_query


def _names(sources: tuple[str, ...]) -> str:
    return ", ".join(PurePosixPath(s).name or s for s in sources)


@dataclass(frozen=True)
class NamedDocuments:
    """The documents the query names are evidence: the search also ranks the query within
    them and fuses that ranking with the mode's, with the weight the search policy gives
    how they were named (``written_name_weight``, ``name_weight``). A citation of a
    named document's section ("Rule 6.2.6 of MKT") narrows the scope to it, with a note
    saying so; the text searched then loses the names written in it (they would only add
    noise to ranking within those documents), unless nothing else would be left to search.

    The syntax of the query's own words (without the names) is read here, once, and kept
    in the plan's ``parsed`` for :class:`QuerySyntax`: citations, phrases and identifiers
    are the query's, never a document name's ("office_lease" of ``office_lease.md``)."""

    names: DocumentNames
    glossary: Glossary | None = None
    """When given, a query that cites a section may name a document by the long form of
    its abbreviation (:func:`~.names.named_by_long_forms`)."""
    name: str = "naming"

    def __call__(self, plan: QueryPlan) -> QueryPlan:
        scope = plan.filt.sources if plan.filt is not None else ()
        read = Reading()
        glossary, text = self.glossary, plan.text
        long_forms = (lambda: glossary.long_forms_in(text)) if glossary is not None else None
        naming = self.names.named(text, scope, plan.policy, read, long_forms)
        if naming is None:
            parsed = self._code_only(read(plan.text))
            return plan.decided(self.name, "names no document", parsed=parsed)
        rest = naming.rest(plan.text)
        own = self._code_only(read(rest))
        text = rest if has_words(rest) or own.cites else plan.text
        named = f"names {_names(naming.sources)} ({naming.how})"
        kept = f"; searches {text!r}" if text != plan.text else ""
        if set(naming.sources) == set(scope):
            decision = f"{named}: the documents searched already{kept}"
            return plan.decided(self.name, decision, text=text, named=naming.sources, parsed=own)
        if not own.cites:
            policy = plan.policy
            weight = policy.written_name_weight if naming.written else policy.name_weight
            note = f"ranked {_names(naming.sources)} higher: named in the query ({naming.how})"
            within = self._without_names(plan.text, rest, naming.sources)
            inside = f" as {within!r}" if within else ""
            return plan.decided(
                self.name,
                f"{named}: ranked within them too{inside}, weight {weight:g}",
                named=naming.sources,
                named_weight=weight,
                within_text=within,
                notes=(*plan.notes, note),
                parsed=own,
            )
        note = (
            f"searched only {_names(naming.sources)}: named in the query ({naming.how}) "
            "with a section cited"
        )
        narrowed = replace(plan.filt or SearchFilter(), sources=naming.sources)
        return plan.decided(
            self.name,
            f"{named}: searched only there{kept}",
            filt=narrowed,
            text=text,
            named=naming.sources,
            notes=(*plan.notes, note),
            parsed=own,
        )

    def _code_only(self, parsed: ParsedQuery | None) -> ParsedQuery | None:
        """``parsed`` without the identifiers that are a document's name as one word
        ("GoodData" of ``gooddata-lcm-eula.docx``, "OpenStack"): a name, not code, which
        every chunk of the document repeats and its preamble most."""
        if parsed is None or not parsed.identifiers:
            return parsed
        kept = tuple(i for i in parsed.identifiers if not self._a_name(i))
        return parsed if kept == parsed.identifiers else replace(parsed, identifiers=kept)

    def _a_name(self, identifier: str) -> bool:
        words = name_words_of(identifier.lower())
        return len(words) == 1 and bool(self.names.holding_every(words))

    def _without_names(self, text: str, rest: str, sources: tuple[str, ...]) -> str:
        """``rest`` (``text`` without the names written in it) without the words of the
        named documents' names either ("Hyperledger", "Fabric" of "Hyperledger Fabric
        Technical Charter"): what the query asks of those documents; "" when that is
        ``text`` itself or nothing is left to search."""
        within = " ".join(w for w in rest.split() if not self._names_word(w, sources))
        if not has_words(within):
            within = rest if has_words(rest) else ""
        return "" if within == text else within

    def _names_word(self, word: str, sources: tuple[str, ...]) -> bool:
        """``word`` is written as a name (with a capital) and is a word of the name of one of
        ``sources``, as written or lower-cased ("GoodData" of "GOODDATA LCM END USER LICENSE
        AGREEMENT"); a word in lower case is the query's own ("conduct" in "who investigates
        code of conduct reports at NumFOCUS?")."""
        if word == word.lower():
            return False
        for words in (name_words_of(word), name_words_of(word.lower())):
            if words and self.names.holding_every(words) & set(sources):
                return True
        return False


@dataclass(frozen=True)
class QuerySyntax:
    """Quoted phrases, identifiers and citations of the query (:func:`parse_query`): those
    :class:`NamedDocuments` read already, else those of the text searched."""

    name: str = "syntax"

    def __call__(self, plan: QueryPlan) -> QueryPlan:
        parsed = plan.parsed if plan.parsed is not None else parse_query(plan.text)
        found = [
            *(f"cites {text.strip()} ({ids[0]})" for text, ids in parsed.cited if ids),
            *(f"cites {c.text.strip()} (relative: {c.label})" for c in parsed.relative),
            *(f'quotes "{p}"' for p in parsed.phrases),
            *(f"names identifier {i}" for i in parsed.identifiers),
        ]
        return plan.decided(
            self.name,
            "; ".join(found) or "plain words",
            phrases=parsed.phrases,
            identifiers=parsed.identifiers,
            cited=parsed.cited,
            relative=parsed.relative,
            remainder=parsed.remainder,
        )


@dataclass(frozen=True)
class Vocabulary:
    """The acronyms and defined terms of the corpus the text names: expansions for BM25
    (and for the embedding when the query asks what a term means), and the chunks that
    define a term it asks about or that few documents define."""

    glossary: Glossary
    name: str = "vocabulary"

    def __call__(self, plan: QueryPlan) -> QueryPlan:
        vocabulary = self.glossary.lookup(plan.text, plan.policy)
        found = []
        if vocabulary.expansions:
            found.append(f"expands with {', '.join(vocabulary.expansions)}")
        if vocabulary.terms:
            found.append(f"names defined terms {', '.join(vocabulary.terms)}")
        if vocabulary.asks_meaning:
            found.append("asks what a term means")
        if vocabulary.defining_chunks:
            found.append(f"{len(vocabulary.defining_chunks)} defining chunks join the exact list")
        return plan.decided(
            self.name,
            "; ".join(found) or "names no acronym or defined term",
            vocabulary=vocabulary,
            documents=self.glossary.documents,
        )


def analysers_for(glossary: Glossary | None) -> tuple[Analyser, ...]:
    """The analysers a searcher runs, in order (without a glossary, the syntax only)."""
    if glossary is None:
        return (QuerySyntax(),)
    return (NamedDocuments(glossary.names, glossary), QuerySyntax(), Vocabulary(glossary))
