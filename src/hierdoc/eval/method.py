"""What the runner scores: a named method that ranks chunk ids for a query."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .datasets import EvalQuery
from .metrics import CUTOFFS, Span
from .obliqa_citations import First

Rank = Callable[[EvalQuery, int], list[str]]
"""``rank(query, k)``: the ids of the k best chunks for the query, best first."""


@dataclass
class Method:
    """Something that ranks chunk ids for a query: a hierdoc variant or a baseline.

    The runner asks for ``depth`` results once per query and cuts that ranking at
    every cutoff; when ``per_cutoff`` is set the top k is not a prefix of a deeper
    top (rank_bm25 + numpy + RRF), so it asks once per cutoff instead.
    """

    name: str
    kind: str
    description: str
    rank: Rank
    depth: int = max(CUTOFFS)
    per_cutoff: bool = False
    settings: dict[str, Any] = field(default_factory=dict)
    passages: dict[str, dict[str, list[Span]]] | None = None
    """For a method whose results carry passages: query id -> chunk id -> its passages as
    (start, end) in the chunk's stripped content, filled in by ``rank``."""
    no_match: dict[str, bool] | None = None
    """For a method whose searches say ``no_match``: query id -> the flag, filled in by
    ``rank``."""
    first: First | None = None
    """For a method that can search a query text within a source: its first result, for
    the citation queries (:func:`~.obliqa_citations.cited_first`)."""
