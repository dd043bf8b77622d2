"""The valid choices a user can pick from, named in the error for a choice that does not
exist: every choice when there are few, else the closest to what was typed first."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from ..errors import NotFoundError
from ..store.base import Records

#: At most this many choices are listed.
LISTED = 8


def listed_choices(wanted: str, choices: Iterable[str], limit: int = LISTED) -> str:
    """``"a, b, c"``; with more than ``limit``, the closest to ``wanted`` and how many exist."""
    unique = sorted(set(choices))
    if not unique:
        return "none"
    if len(unique) <= limit:
        return ", ".join(unique)
    closest = difflib.get_close_matches(wanted, unique, n=limit, cutoff=0.0)
    return ", ".join(closest) + f" (the closest of {len(unique):,})"


def unknown_section(
    section: str, ids: Iterable[str], scoped: bool = False, lead: str = "no section"
) -> NotFoundError:
    """The error for a section id that no document (of those ``scoped`` to) has, naming the
    closest of the ``ids`` that exist."""
    where = " in that document" if scoped else " in the index"
    return NotFoundError(f"{lead} {section!r}{where}; sections: {listed_choices(section, ids)}")


#: The most documents whose section ids are read to suggest one for an unknown id.
SUGGESTION_DOCUMENTS = 50


def section_ids(store: Records, sources: Sequence[str] | None = None) -> set[str]:
    """The section ids to suggest from: those of ``sources``, else of the first
    :data:`SUGGESTION_DOCUMENTS` documents (a corpus of 43,600 acts holds 7.7 million
    sections; documents of one kind share most of their ids)."""
    documents = sorted(store.document_hashes()) if sources is None else list(sources)
    chosen = documents[:SUGGESTION_DOCUMENTS]
    return {s.section_id for source in chosen for s in store.sections_of_source(source)}
