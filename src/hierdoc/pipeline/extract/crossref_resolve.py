"""Cross-references resolved: the section id a found reference points to.

:func:`~.crossrefs.find_references` reads what a reference says ("Article
17(3)", "point (b)", "this Article"); :func:`resolve` decides which of the
document's sections it names, from where the reference sits. An absolute
reference is tried as written and then qualified by the blocks around it (a
repeated "Section 2" is ``chapter-4-section-2``); a relative one ("paragraph 3",
"point (b)") is anchored at the current article or section, at the depth where
its kind of part lives (:data:`SUB_LEVELS`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING

from ...text.numbering import (
    CLAUSE_KINDS,
    KIND_ALIASES,
    PART_TOKEN,
    equivalent_ids,
    fallback_ids,
)

if TYPE_CHECKING:
    from .crossrefs import FoundReference

#: Parts below a block, by the word that names them, and where they sit (depth
#: below the article or section) when the reference is relative.
SUB_LEVELS = {"paragraph": 1, "point": 2, "subsection": 1, "subparagraph": 3, "clause": 4}

_BLOCK_KINDS = frozenset(KIND_ALIASES.values()) - {"paragraph"}
_ID_KINDS = frozenset(KIND_ALIASES.values())


def resolve(ref: FoundReference, context: Sequence[str], known_ids: Collection[str]) -> str | None:
    """The most specific id in ``known_ids`` that ``ref`` points to, or None.

    ``context`` holds the ids of the section where the reference occurs,
    outermost first (``("chapter-3", "chapter-3-section-3", "article-17",
    "article-17-3")``). Absolute ids are also tried qualified by the blocks of
    the context, since a repeated id is qualified by its parent ("Section 2" in
    Chapter IV is ``chapter-4-section-2``).
    """
    if ref.external:
        return None
    if ref.candidate_ids:
        return _first_known(_with_equivalents(_qualified(ref.candidate_ids, context)), known_ids)
    if not ref.relative and ref.kind in _BLOCK_KINDS:
        return _first_known(_blocks_of_kind(context, ref.kind), known_ids)
    return _resolve_relative(ref, context, known_ids)


def _first_known(ids: Iterator[str] | Sequence[str], known_ids: Collection[str]) -> str | None:
    return next((i for i in ids if i in known_ids), None)


def _qualified(candidates: Sequence[str], context: Sequence[str]) -> Iterator[str]:
    """Each candidate as written, then under each block of the context; a clause's number
    also as a numbered part of an unnumbered block ("Clause 6" under the heading
    "Conditions on Distribution" is ``conditions-on-distribution-6``)."""
    blocks = [c for c, _ in reversed(_block_ids(context))]
    for candidate in candidates:
        yield candidate
        kind, _, number = candidate.partition("-")
        for block in blocks:
            yield f"{block}-{candidate}"
            if kind in CLAUSE_KINDS and _id_kind(block) is None:
                yield f"{block}-{number}"


def _with_equivalents(ids: Iterator[str]) -> Iterator[str]:
    """Each id, then the same number under the other clause kinds ("Clause 8.4" is
    ``section-8-4`` in a contract whose clauses are bare numbers)."""
    for section_id in ids:
        yield section_id
        yield from equivalent_ids(section_id)
        yield from fallback_ids(section_id)


def _sub_parts(parent: str, child: str) -> list[str] | None:
    """["3", "c"] when ``child`` is ``parent`` plus parts (article-17 -> article-17-3-c)."""
    if not child.startswith(parent + "-"):
        return None
    tokens = child[len(parent) + 1 :].split("-")
    if all(PART_TOKEN.fullmatch(t) and t not in KIND_ALIASES for t in tokens):
        return tokens
    return None


def _block_ids(context: Sequence[str]) -> list[tuple[str, int]]:
    """The ids of the context that are blocks (not parts of the one before), with positions."""
    return [
        (node, i)
        for i, node in enumerate(context)
        if i == 0 or _sub_parts(context[i - 1], node) is None
    ]


def _id_kind(section_id: str) -> str | None:
    """The kind of a block id: the last kind word in it (chapter-3-section-3 -> section)."""
    tokens = [t for t in section_id.split("-") if t in _ID_KINDS]
    return tokens[-1] if tokens else None


def _blocks_of_kind(context: Sequence[str], kind: str) -> Iterator[str]:
    for node, _ in reversed(_block_ids(context)):
        if _id_kind(node) == kind:
            yield node


def _level(ref: FoundReference) -> int:
    """Depth below the block of the part a relative reference names."""
    if ref.kind == "paragraph" and re.match(r"paragraphs?\s*\(", ref.text, re.IGNORECASE):
        return 2  # US style: section > subsection (a) > paragraph (1)
    return SUB_LEVELS.get(ref.kind, 1)


def _this_us_paragraph(ref: FoundReference, block: str, below: Sequence[str]) -> str | None:
    """The id "this paragraph" names in a US rule, whose sections are lettered first
    ("(a)"); None elsewhere. In a regulation's section ("§ 1002.14", every level a
    paragraph) it is the innermost part the text is in; in a statute's section ("section
    203": subsection (a), paragraph (1), subparagraph (A)) the innermost numbered one."""
    plain = not ref.relative and not ref.candidate_ids and ref.kind == "paragraph"
    if not (plain and below and below[0].isalpha() and below[0].islower()):
        return None
    numbers = [t for t in block.split("-") if t.isdigit()]
    if len(numbers) >= 2:  # "§ 1002.14", "§ 39.13"
        return "-".join([block, *below])
    digits = [depth for depth, part in enumerate(below) if part.isdigit()]
    return "-".join([block, *below[: digits[-1] + 1]]) if digits else None


def _resolve_relative(
    ref: FoundReference, context: Sequence[str], known_ids: Collection[str]
) -> str | None:
    """Anchor relative parts at the current block: the preferred depth first, then others.

    The preferred anchor is where the named kind lives ("paragraph 3" below the
    article, "point (b)" below the current paragraph); the other anchors, from
    the innermost out, catch articles without numbered paragraphs.
    """
    blocks = _block_ids(context)
    if not blocks:
        return None
    block = blocks[-1][0]
    below = _sub_parts(block, context[-1]) or []
    this_paragraph = _this_us_paragraph(ref, block, below)
    if this_paragraph in known_ids:
        return this_paragraph
    anchors = ["-".join([block, *below[:depth]]) for depth in range(len(below) + 1)]
    preferred = max(0, _level(ref) - len(ref.relative))
    rel = tuple(part.lower() for part in ref.relative)  # ids are lower-case: "(A)" is "-a"
    tries: list[str] = []
    if preferred < len(anchors):
        tries.append("-".join([anchors[preferred], *rel]))
    tries += ["-".join([anchor, *rel]) for anchor in reversed(anchors)]
    if len(rel) > 1 and rel[0].isdigit():  # "paragraph 3H": point H of the document's clause 3
        tries.append("-".join(["section", *rel]))
    if preferred < len(anchors):
        tries += ["-".join([anchors[preferred], *rel[:k]]) for k in range(len(rel) - 1, -1, -1)]
    tries.append(block)
    return _first_known(dict.fromkeys(tries), known_ids)
