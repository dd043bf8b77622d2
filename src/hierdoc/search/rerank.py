"""Rerank stage: the fused top-N re-ordered by a reranker, the rest left as fused.

Chunks pinned by a citation stay first (the user named that section); the next
``top_n`` candidates go to the reranker as breadcrumb + text and come back in its
order, each with its relevance. A reranker that fails (after its retries) leaves the
fused order and a note: a search never fails because a reranking API did.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ..config import ModelRef, RerankerSettings
from ..errors import ProviderError
from ..providers.rerank import Reranker, reranker_from
from ..store.base import Records

if TYPE_CHECKING:
    from .plan import QueryPlan

__all__ = ["Reranked", "Reranker", "rerank", "reranker_for"]

logger = logging.getLogger(__name__)


@dataclass
class Reranked:
    ordered: list[tuple[str, float]]
    relevance: dict[str, float] = field(default_factory=dict)
    """The reranker's relevance of each chunk it ranked."""
    notes: list[str] = field(default_factory=list)


def reranker_for(settings: RerankerSettings | None, context_model: ModelRef | None) -> Any:
    """The reranker of these settings (one per distinct configuration), or None."""
    if settings is None:
        return None
    model = context_model.model_dump_json() if context_model else ""
    return _cached(settings.model_dump_json(), model)


@lru_cache(maxsize=8)
def _cached(settings_json: str, context_json: str) -> Reranker:
    settings = RerankerSettings.model_validate_json(settings_json)
    context = json.loads(context_json) if context_json else None
    return reranker_from(settings, context)


def rerank(
    reranker: Reranker,
    store: Records,
    plan: QueryPlan,
    ordered: Sequence[tuple[str, float]],
    pinned: Sequence[str],
) -> Reranked:
    """``ordered`` with the pinned chunks first, then the next ``top_n`` of the plan's
    reranker settings (at least ``top_k``) in the order ``reranker`` gives for the query,
    then the rest as fused."""
    settings = plan.settings
    top_n = max(settings.reranker.top_n if settings.reranker else 0, settings.top_k)
    query = plan.query
    first = set(pinned)
    head = [e for e in ordered if e[0] in first]
    candidates = [e for e in ordered if e[0] not in first][:top_n]
    rest = [e for e in ordered if e[0] not in first][top_n:]
    if not candidates:
        return Reranked(list(ordered))
    stored = store.get_chunks([chunk_id for chunk_id, _ in candidates])
    candidates = [e for e in candidates if e[0] in stored]
    texts = [_passage_text(stored[chunk_id]) for chunk_id, _ in candidates]
    try:
        ranking = reranker.rerank(query, texts)
    except ProviderError as error:
        logger.warning("reranking failed: %s", error)
        note = f"reranking by {reranker.name} failed ({error}); results are in fused order"
        return Reranked(list(ordered), notes=[note])
    ranked = [(candidates[index][0], score) for index, score in ranking]
    named = {chunk_id for chunk_id, _ in ranked}
    left_out = [e for e in candidates if e[0] not in named]
    relevance = dict(ranked)
    return Reranked(head + ranked + left_out + rest, relevance)


def _passage_text(stored: Any) -> str:
    chunk = stored.chunk
    crumb = " > ".join(chunk.parent_chain)
    return f"{crumb}\n{chunk.content}" if crumb else chunk.content
