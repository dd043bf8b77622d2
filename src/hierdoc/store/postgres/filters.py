"""A :class:`~hierdoc.models.SearchFilter` as a SQL condition on the ``chunks`` table.

A chunk row keeps ``section_prefixes`` (:func:`hierdoc.models.section_prefixes` of its
section path: each element with each of its "-"-prefixes), so ``section_prefix`` is one
indexed array containment, and the condition agrees with :meth:`SearchFilter.matches`.
"""

from __future__ import annotations

from typing import Any

from ...models import SearchFilter


def filter_sql(filt: SearchFilter | None, alias: str) -> tuple[str, dict[str, Any]]:
    """A WHERE condition on chunks aliased ``alias`` (``TRUE`` when nothing is filtered),
    with its named parameters."""
    if filt is None or filt.empty:
        return "TRUE", {}
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if filt.sources:
        clauses.append(f"{alias}.source = ANY(%(filter_sources)s)")
        params["filter_sources"] = list(filt.sources)
    if filt.chunk_types:
        clauses.append(f"{alias}.chunk_type = ANY(%(filter_types)s)")
        params["filter_types"] = list(filt.chunk_types)
    if filt.section_prefix:
        clauses.append(f"{alias}.section_prefixes @> ARRAY[%(filter_prefix)s]::text[]")
        params["filter_prefix"] = filt.section_prefix
    return " AND ".join(clauses), params
