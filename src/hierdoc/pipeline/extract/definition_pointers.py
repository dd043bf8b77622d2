"""Pointer definitions resolved: ``"Term" has the meaning given in Section 3.2``.

A pointer (style ``pointer``) says where a term is defined, not what it means. When the
section it cites is in the same document and defines the term there (``"Term" means
...`` or ``... (the "Term")``), the pointer's text becomes ``<pointer> [<section id>]:
<that definition>``, so a lookup of the term shows what it means and where that is said.
A pointer to another text ("section 551 of title 5, United States Code", "the DPA") or to
a section that does not define the term keeps its own words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ...models import Definition, Section
from ...text.normalize import normalize_term
from .crossref_resolve import resolve
from .crossrefs import find_references


def resolve_pointers(
    definitions: list[Definition], sections: Sequence[Section]
) -> list[Definition]:
    """The definitions, each resolvable pointer carrying the definition it points to."""
    if not any(d.style == "pointer" for d in definitions):
        return definitions
    known = {s.section_id for s in sections}
    contexts = {s.section_id: (*s.path, s.section_id) for s in sections}
    defined: dict[str, list[Definition]] = {}
    for item in definitions:
        if item.style != "pointer":
            defined.setdefault(normalize_term(item.term), []).append(item)
    resolved = []
    for item in definitions:
        if item.style == "pointer":
            context = contexts.get(item.section_id, (item.section_id,))
            item = _resolved(item, context, known, defined.get(normalize_term(item.term), []))
        resolved.append(item)
    return resolved


def pointer_target(pointer: str, context: Sequence[str], known: set[str]) -> str | None:
    """The section id of this document that a pointer's words cite, if any."""
    for ref in find_references(pointer):
        if not ref.external:
            target = resolve(ref, context, known)
            if target:
                return target
    return None


def _resolved(
    item: Definition, context: Sequence[str], known: set[str], candidates: list[Definition]
) -> Definition:
    target = pointer_target(item.definition, context, known)
    if target is None:
        return item
    for candidate in candidates:
        if _within(candidate.section_id, target) or _within(target, candidate.section_id):
            text = f"{item.definition} [{target}]: {candidate.definition}"
            return replace(item, definition=text)
    return item


def _within(section_id: str, ancestor: str) -> bool:
    return section_id == ancestor or section_id.startswith(ancestor + "-")
