"""Training pairs for fine-tuning the local embedder, mined from an index's own structure.

No labels and no LLM: the structure ingest found says which texts belong together.

- ``heading``: a section's heading -> the text under it;
- ``path``: the headings of a section's ancestors ("Chapter III - Rights of the data
  subject > Article 17 - Right to erasure") -> the section's own text;
- ``definition``: a defined term -> its definition;
- ``citation``: the sentence holding a resolved cross-reference -> the cited section's text;
- ``given``: a query -> passage pair the user gives (JSONL of ``{"query", "passage"}``).

Each mined pair carries a hard negative where there is one: a neighbouring section of
the positive (its next or previous sibling, else the next section of the document), or
the definition next to it. A query may have several passages (the paragraphs under one
heading path); training keeps them in different batches (:mod:`hierdoc.pipeline.tune`).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..models import Definition, SectionRecord, StoredChunk
from ..store.base import Records
from ..text.sentences import sentence_spans

WORDS = re.compile(r"[^\W\d_]{3,}")
"""A heading with a word of three letters says something; "1." or "(a)" does not."""

PAIR_KINDS = ("heading", "path", "definition", "citation", "given")
MIN_PASSAGE_CHARS = 80
"""A section with less text than this (a bare heading, "[Deleted]") makes no pair."""
MAX_PASSAGE_CHARS = 2000
"""Passages are cut here: the model reads about 256 word pieces of them anyway."""
MAX_QUERY_CHARS = 400
MAX_PER_QUERY = 4
"""At most this many pairs share one query (173 recitals under "Recitals") or passage."""
NEIGHBOURHOOD = 40
"""How far from a section its hard negative is looked for, either way."""


@dataclass(frozen=True)
class Pair:
    """One training example: a query, the passage it should find, a passage it should not."""

    query: str
    passage: str
    negative: str | None
    kind: str
    source: str = ""


def mine_pairs(store: Records) -> list[Pair]:
    """Every pair the index's structure gives, document by document, less repeats."""
    pairs: list[Pair] = []
    definitions = _by_source(store.all_definitions())
    for document in store.documents():
        tree = Tree(store.sections_of_source(document.source))
        pairs += section_pairs(document.source, tree)
        pairs += definition_pairs(document.source, definitions.get(document.source, []))
        pairs += citation_pairs(store, document.source, tree)
    return unique_pairs(pairs)


class Tree:
    """One document's sections (in document order) with their parents and children."""

    def __init__(self, sections: Sequence[SectionRecord]) -> None:
        self.sections = list(sections)
        self.by_id = {s.section_id: s for s in self.sections}
        self.place = {s.section_id: n for n, s in enumerate(self.sections)}
        self.children: dict[str | None, list[SectionRecord]] = {}
        for section in self.sections:
            self.children.setdefault(section.parent_id, []).append(section)

    def own(self, section: SectionRecord) -> str | None:
        """The section's own text without its heading line; None when too short."""
        return _passage(_own_text(section))

    def whole(self, section: SectionRecord) -> str | None:
        """The text of the section and of the sections under it, in document order, cut
        at :data:`MAX_PASSAGE_CHARS`; None when too short."""
        parts: list[str] = []
        size, stack, seen = 0, [section], set()
        while stack and size < MAX_PASSAGE_CHARS:
            current = stack.pop()
            if current.section_id in seen:
                continue
            seen.add(current.section_id)
            parts.append(_own_text(current))
            size += len(parts[-1]) + 1
            stack.extend(reversed(self.children.get(current.section_id, [])))
        return _passage("\n".join(part for part in parts if part))

    def lineage(self, section: SectionRecord) -> list[SectionRecord]:
        """The section's ancestors, from the document's top down to its parent."""
        chain: list[SectionRecord] = []
        parent, seen = section.parent_id, {section.section_id}
        while parent and parent in self.by_id and parent not in seen:
            seen.add(parent)
            chain.insert(0, self.by_id[parent])
            parent = self.by_id[parent].parent_id
        return chain

    def parent_path(self, section: SectionRecord) -> str:
        """The ancestors' headings that say something, joined by " > "."""
        headings = (" ".join(s.heading.split()) for s in self.lineage(section))
        return " > ".join(h for h in headings if WORDS.search(h))

    def neighbour(self, section: SectionRecord, whole: bool) -> str | None:
        """The text (own, or ``whole``) of a section near this one and not above or under
        it: its next or previous sibling first, else the nearest section either way."""
        text = self.whole if whole else self.own
        mine = text(section)
        related = {s.section_id for s in self.lineage(section)} | {section.section_id}
        siblings = self.children.get(section.parent_id, [])
        n = self.place[section.section_id]
        near = (
            self.sections[n + 1 : n + NEIGHBOURHOOD]
            + self.sections[max(0, n - NEIGHBOURHOOD) : n][::-1]
        )
        for candidate in [*siblings[siblings.index(section) + 1 :], *siblings[::-1], *near]:
            if candidate.section_id in related or section in self.lineage(candidate):
                continue
            found = text(candidate)
            if found is not None and found != mine:
                return found
        return None


def section_pairs(source: str, tree: Tree) -> Iterator[Pair]:
    """``heading`` and ``path`` pairs of one document: a heading that says something
    ("Article 17 - Right to erasure", not "1." or "(a)") to the text under it, its
    descendants' included; the headings above a section (its parent's heading path) to
    the section's own text. The negatives are a neighbouring section's text."""
    for section in tree.sections:
        heading = " ".join(section.heading.split())
        under = tree.whole(section)
        if WORDS.search(heading) and under is not None:
            negative = tree.neighbour(section, whole=True)
            yield Pair(heading[:MAX_QUERY_CHARS], under, negative, "heading", source)
        passage = tree.own(section)
        path = tree.parent_path(section)
        if passage is not None and path:
            negative = tree.neighbour(section, whole=False)
            yield Pair(path[-MAX_QUERY_CHARS:], passage, negative, "path", source)


def _own_text(section: SectionRecord) -> str:
    text = section.text.strip()
    first, _, rest = text.partition("\n")
    heading = " ".join(section.heading.split())
    if heading and heading == " ".join(first.strip("#").split()):
        return rest.strip()
    return text


def definition_pairs(source: str, definitions: Sequence[Definition]) -> Iterator[Pair]:
    """``definition`` pairs: each term to its definition, the next definition as negative."""
    usable = [d for d in definitions if d.term.strip() and len(d.definition.strip()) >= 20]
    for position, definition in enumerate(usable):
        other = usable[position + 1] if position + 1 < len(usable) else None
        other = other or (usable[position - 1] if position else None)
        negative = other.definition.strip()[:MAX_PASSAGE_CHARS] if other else None
        passage = definition.definition.strip()[:MAX_PASSAGE_CHARS]
        yield Pair(definition.term.strip(), passage, negative, "definition", source)


def citation_pairs(store: Records, source: str, tree: Tree) -> Iterator[Pair]:
    """``citation`` pairs: the sentence of a chunk that cites a section -> the text under
    that section (in whichever document holds it)."""
    by_chunk = {stored.chunk.chunk_id: stored for stored in store.chunks_of_source(source)}
    trees = {source: tree}
    for reference in store.references_from(list(by_chunk)):
        target = reference.target_section_id
        if target is None or reference.chunk_id not in by_chunk or reference.section_id == target:
            continue
        home = reference.target_source or source
        if home not in trees:
            trees[home] = Tree(store.sections_of_source(home))
        cited = trees[home].by_id.get(target)
        passage = trees[home].whole(cited) if cited is not None else None
        sentence = citing_sentence(by_chunk[reference.chunk_id], reference.text)
        if cited is not None and passage is not None and sentence and sentence not in passage:
            negative = trees[home].neighbour(cited, whole=True)
            yield Pair(sentence, passage, negative, "citation", source)


def citing_sentence(stored: StoredChunk, cited: str) -> str | None:
    """The sentence of the chunk that holds the citation's words, when not too long."""
    text = stored.chunk.content
    at = text.find(cited)
    if at < 0:
        return None
    for start, end in sentence_spans(text):
        if start <= at < end:
            sentence = " ".join(text[start:end].split())
            return sentence if 20 <= len(sentence) <= MAX_QUERY_CHARS else None
    return None


def read_given_pairs(path: Path) -> list[Pair]:
    """The ``given`` pairs of a JSONL file: one ``{"query": ..., "passage": ...}`` a line."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the pairs file {path}: {error}") from error
    pairs = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        pairs.append(_given_pair(line, f"{path}:{number}"))
    if not pairs:
        raise InputError(f"the pairs file {path} holds no pairs")
    return pairs


def _given_pair(line: str, where: str) -> Pair:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise InputError(f"{where}: not JSON ({error.msg})") from error
    if not isinstance(record, dict):
        raise InputError(f'{where}: expected an object {{"query": ..., "passage": ...}}')
    query, passage = record.get("query"), record.get("passage")
    if not (isinstance(query, str) and query.strip()):
        raise InputError(f"{where}: 'query' must be a non-empty string")
    if not (isinstance(passage, str) and passage.strip()):
        raise InputError(f"{where}: 'passage' must be a non-empty string")
    negative = record.get("negative")
    if negative is not None and not isinstance(negative, str):
        raise InputError(f"{where}: 'negative', when given, must be a string")
    return Pair(query.strip(), passage.strip()[:MAX_PASSAGE_CHARS], negative, "given")


def unique_pairs(pairs: Iterable[Pair]) -> list[Pair]:
    """The pairs less repeats: each (query, passage) once, the query compared ignoring
    case and spacing, and no query or passage in more than :data:`MAX_PER_QUERY` pairs
    (a paragraph cited twenty times is not learnt twenty times over)."""
    seen: set[tuple[str, str]] = set()
    uses: dict[str, int] = {}
    kept = []
    for pair in pairs:
        query = " ".join(pair.query.lower().split())
        if (query, pair.passage) in seen:
            continue
        if max(uses.get(query, 0), uses.get(pair.passage, 0)) >= MAX_PER_QUERY:
            continue
        seen.add((query, pair.passage))
        for key in {query, pair.passage}:
            uses[key] = uses.get(key, 0) + 1
        kept.append(pair)
    return kept


def held_out(pairs: Sequence[Pair], share: float, seed: int, cap: int) -> tuple[list, list]:
    """(training, held out): a seeded random ``share`` of the pairs, at most ``cap``, held
    out for evaluation; a held-out passage is never trained on (its other pairs go too)."""
    order = list(range(len(pairs)))
    random.Random(seed).shuffle(order)
    count = min(cap, int(len(pairs) * share))
    chosen = {n for n in order[:count]}
    passages = {pairs[n].passage for n in chosen}
    held = [pairs[n] for n in sorted(chosen)]
    training = [p for n, p in enumerate(pairs) if n not in chosen and p.passage not in passages]
    return training, held


def count_by_kind(pairs: Iterable[Pair]) -> dict[str, int]:
    counts = dict.fromkeys(PAIR_KINDS, 0)
    for pair in pairs:
        counts[pair.kind] += 1
    return {kind: count for kind, count in counts.items() if count}


def _passage(text: str) -> str | None:
    text = text.strip()
    return text[:MAX_PASSAGE_CHARS] if len(text) >= MIN_PASSAGE_CHARS else None


def _by_source(definitions: Iterable[Definition]) -> dict[str, list[Definition]]:
    grouped: dict[str, list[Definition]] = {}
    for definition in definitions:
        grouped.setdefault(definition.source, []).append(definition)
    return grouped
