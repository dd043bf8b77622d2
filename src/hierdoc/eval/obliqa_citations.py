"""Citation queries over ObliQA's documents: each cites a gold passage by its number, in one
of the ways a regulatory text is cited, and is right when the first result holds it.

The queries are generated from the passages files' numbers ("9.3.2", "6.4.5.(1)",
"8.6.2.Guidance.4."), sampled per form with a fixed seed (:data:`SEED`). A form names the
document by its short name (the document map's "GEN", "COBS"; one that several documents
share, such as "CRS", is left out), by its title (the map's, "General Rulebook"), or not at
all; an unnamed query is searched within its document, as a reader of one rulebook asks
it:

============================================  =================================
form                                          example
============================================  =================================
``Rule {n}``                                  Rule 9.3.2 (within GEN)
``Rule {n}{sub}``                             Rule 6.4.5(1)(a) (within GEN)
``Guidance {g} under Rule {n}``               Guidance 4 under Rule 9.3.2 (within GEN)
``{short} {n}``                               GEN 9.3.2
``{n} of {short}``                            9.3.2 of GEN
``Rule {n} of {short}``                       Rule 9.3.2 of GEN
``Rule {n}{sub} of {short}``                  Rule 6.4.5(1) of GEN
``Guidance {g} under Rule {n} of {short}``    Guidance 4 under Rule 9.3.2 of GEN
``Rule {n} of the {title}``                   Rule 9.3.2 of the General Rulebook
``Section {n} of {title}``                    Section 2.4 of Guidance – Continuous Disclosure
============================================  =================================

The rule forms cite the rules of the rulebooks (the documents with a short name), numbered
in three parts at least ("9.3.2"); the section form cites any numbered passage of any
document ("2.4", "9.3.2").
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..text.invisible import clean_text

SEED = 31
PER_FORM = 40
"""Queries sampled per form (fewer when a form has fewer candidates)."""
PROBE_CHARS = 60
"""A cited passage is recognised in a result by its first line of text, this long at most."""

_RULE = re.compile(r"^(?P<rule>\d+(?:\.\d+)+)\.?(?P<sub>(?:\.?\([0-9a-zA-Z]{1,4}\))*)\.?$")
_GUIDANCE = re.compile(r"^(?P<rule>\d+(?:\.\d+)+)\.Guidance\.(?P<note>\d+)\.?$")
_SHORT_SUFFIX = re.compile(r"\s*\([A-Z]{2,6}\)$")


@dataclass(frozen=True)
class CitationQuery:
    """A query citing a passage: the form it is written in, the source of the document that
    holds the passage, the passage's first line (:func:`probe`), and the source the query is
    searched within (unnamed forms), if any."""

    text: str
    form: str
    source: str
    probe: str
    source_filter: str | None = None


@dataclass(frozen=True)
class _Cited:
    """A passage that can be cited: its document and number, split."""

    source: str
    short: str | None
    title: str
    rule: str
    sub: str
    note: str | None
    probe: str

    @property
    def is_rule(self) -> bool:
        """A rule of a rulebook: a document with a short name, a number of three parts at
        least ("9.3.2"; "9.3" numbers a section of rules)."""
        return bool(self.short) and self.rule.count(".") >= 2

    @property
    def whole(self) -> bool:
        """The rule or section itself, not a subparagraph nor a guidance note."""
        return not self.sub and not self.note


FORMS: dict[str, Callable[[_Cited], bool]] = {
    "Rule {n}": lambda c: c.is_rule and c.whole,
    "Rule {n}{sub}": lambda c: c.is_rule and bool(c.sub),
    "Guidance {g} under Rule {n}": lambda c: c.is_rule and bool(c.note),
    "{short} {n}": lambda c: c.is_rule and c.whole,
    "{n} of {short}": lambda c: c.is_rule and c.whole,
    "Rule {n} of {short}": lambda c: c.is_rule and c.whole,
    "Rule {n}{sub} of {short}": lambda c: c.is_rule and bool(c.sub),
    "Guidance {g} under Rule {n} of {short}": lambda c: c.is_rule and bool(c.note),
    "Rule {n} of the {title}": lambda c: c.is_rule and c.whole,
    "Section {n} of {title}": lambda c: c.whole,
}
"""Each form, and which cited passages it can cite."""


def squashed(text: str) -> str:
    """Text compared without invisible marks and with whitespace collapsed."""
    return " ".join(clean_text(text).split())


def probe(passage: str) -> str:
    """The first line of a passage that is 12 characters long at least, squashed and cut to
    :data:`PROBE_CHARS`: what a result must hold to hold the passage ("" when none is)."""
    lines = [squashed(line)[:PROBE_CHARS] for line in passage.splitlines()]
    return next((line for line in lines if len(line) >= 12), "")


def citation_queries(
    root: Path, sources: Mapping[int, str], per_form: int = PER_FORM, seed: int = SEED
) -> list[CitationQuery]:
    """Up to ``per_form`` queries of each form (:data:`FORMS`) over the documents of the
    ObliQA folder ``root`` that ``sources`` holds (DocumentID -> the source it is indexed
    as), sampled with ``seed``."""
    cited = sorted(_cited(root, sources), key=lambda c: (c.source, c.rule, c.sub, c.note or ""))
    rng = random.Random(seed)
    queries = []
    for form, fits in FORMS.items():
        candidates = [c for c in cited if fits(c)]
        for chosen in rng.sample(candidates, min(per_form, len(candidates))):
            queries.append(_query(form, chosen))
    return queries


def _cited(root: Path, sources: Mapping[int, str]) -> Iterable[_Cited]:
    entries = json.loads((root / "document_map.json").read_text(encoding="utf-8"))
    shared = Counter(e.get("short_name") for e in entries.values())
    for key, entry in entries.items():
        source = sources.get(int(key))
        if source is None:
            continue
        short = entry.get("short_name")
        short = short if short and shared[short] == 1 else None
        title = _SHORT_SUFFIX.sub("", entry["title"])
        passages = json.loads((root / "passages" / f"{key}.json").read_text(encoding="utf-8"))
        numbers = Counter(p["PassageID"].strip() for p in passages if p["Passage"].strip())
        for passage in passages:
            number, first = passage["PassageID"].strip(), probe(passage["Passage"])
            if not first or numbers[number] != 1:
                continue
            if rule := _RULE.match(number):
                sub = rule["sub"].replace(".", "")
                yield _Cited(source, short, title, rule["rule"], sub, None, first)
            elif note := _GUIDANCE.match(number):
                yield _Cited(source, short, title, note["rule"], "", note["note"], first)


def _query(form: str, cited: _Cited) -> CitationQuery:
    text = form.format(
        n=cited.rule, sub=cited.sub, g=cited.note, short=cited.short, title=cited.title
    )
    named = "{short}" in form or "{title}" in form
    return CitationQuery(text, form, cited.source, cited.probe, None if named else cited.source)


First = Callable[[str, "str | None"], "tuple[str, str] | None"]
"""``first(query, source_filter)``: the first result's source and content, or None."""


@dataclass
class CitedFirst:
    """Per form: how many of its queries have the cited passage first, of how many; and
    the queries that do not (query -> the first result's source, or "nothing")."""

    forms: dict[str, tuple[int, int]]
    misses: dict[str, str]

    @property
    def total(self) -> tuple[int, int]:
        """Over every form: how many queries find the cited passage first, of how many."""
        return sum(h for h, _ in self.forms.values()), sum(t for _, t in self.forms.values())

    def to_dict(self) -> dict[str, Any]:
        hits, total = self.total
        return {
            "cited_first": round(hits / max(1, total), 4),
            "queries": total,
            "forms": {f: {"cited_first": h, "queries": t} for f, (h, t) in self.forms.items()},
            "misses": self.misses,
        }


def cited_first(first: First, queries: Sequence[CitationQuery]) -> CitedFirst:
    """Each query searched (:data:`First`): right when the first result is in the cited
    passage's document and holds the passage's first line."""
    result = CitedFirst({}, {})
    for query in queries:
        found = first(query.text, query.source_filter)
        right = found is not None and found[0] == query.source and query.probe in squashed(found[1])
        hits, total = result.forms.get(query.form, (0, 0))
        result.forms[query.form] = (hits + right, total + 1)
        if not right:
            result.misses[query.text] = found[0] if found else "nothing"
    return result
