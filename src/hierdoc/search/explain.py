"""Why each result ranked where it did: the query plan's trace, each modality's rank and
score for the results, the fusion (weights, reciprocal-rank contributions), the pins and
the reranking. :func:`explain` gives it as JSON-ready data (``explain`` of a search
response), :func:`explain_lines` as text for a terminal.
"""

from __future__ import annotations

from typing import Any

from ..models import SearchResult
from .fuse import best_possible
from .searcher import Execution


def explain(execution: Execution) -> dict[str, Any]:
    """How ``execution`` (an executed query plan) reached its results."""
    plan = execution.plan
    modalities = {
        modality: {"searched": _searched(execution, modality), "candidates": len(hits)}
        for modality, hits in execution.rankings.items()
    }
    return {
        "plan": plan.to_dict(),
        "citations": list(execution.response.citations),
        "modalities": modalities,
        "fusion": _fusion(execution),
        "reranker": execution.reranker,
        "results": [_result(execution, n, r) for n, r in enumerate(execution.response.results, 1)],
    }


def _searched(execution: Execution, modality: str) -> str:
    """What the modality searched for."""
    plan = execution.plan
    if modality == "semantic":
        return plan.embedded
    if modality == "keyword":
        return plan.expanded
    asked = [
        *(f"citation {text.strip()}" for text, _ in plan.cited),
        *(f"citation {c.text.strip()}" for c in plan.relative),
        *(f'phrase "{phrase}"' for phrase in plan.phrases),
        *(f"identifier {name}" for name in plan.identifiers),
        f"a heading {plan.text!r}",
    ]
    defining = len(plan.vocabulary.defining_chunks)
    if defining:
        asked.append(f"{defining} defining chunks")
    return ", ".join(asked)


def _fusion(execution: Execution) -> dict[str, Any]:
    """How the rankings were combined: weighted RRF in hybrid mode, else one ranking."""
    settings = execution.plan.settings
    if settings.search_mode != "hybrid":
        return {"method": f"the {settings.search_mode} ranking alone"}
    weights = settings.weights
    top = best_possible(weights, list(execution.rankings), settings.rrf_k)
    return {
        "method": "weighted reciprocal rank fusion: the sum of weight / (k + rank)",
        "k": settings.rrf_k,
        "weights": {m: weights[m] for m in execution.rankings},
        "best_possible": round(top, 6),
        "scaled": "fusion_score is the sum over best_possible, the score of a chunk every "
        "modality ranks first",
    }


def _result(execution: Execution, position: int, result: SearchResult) -> dict[str, Any]:
    settings = execution.plan.settings
    ranks = {m: r for m, r in result.ranks.items() if r is not None}
    entry: dict[str, Any] = {
        "rank": position,
        "chunk_id": result.chunk_id,
        "ranks": ranks,
        "scores": {m: result.scores.get(m) for m in ranks},
    }
    if settings.search_mode == "hybrid":
        weights, k = settings.weights, settings.rrf_k
        entry["rrf"] = {
            m: round(weights[m] / (k + r), 6)
            for m, r in ranks.items()
            if m in execution.rankings and weights[m] > 0
        }
    entry["fusion_score"] = result.fusion_score
    entry["pin"] = execution.pins.get(result.chunk_id)
    if result.chunk_id in execution.relevance:
        entry["rerank"] = execution.relevance[result.chunk_id]
    entry["score"] = result.score
    return entry


def explain_lines(data: dict[str, Any]) -> list[str]:
    """The data of :func:`explain` as lines of text."""
    plan = data["plan"]
    lines = ["plan:"]
    width = max((len(s["analyser"]) for s in plan["trace"]), default=0)
    lines += [f"  {s['analyser']:<{width}}  {s['decision']}" for s in plan["trace"]]
    for cited in data["citations"]:
        where = cited["section_id"] or "no section"
        how = "found" if cited["resolved"] else "not found"
        lines.append(f"  citation {cited['text']} -> {where} ({how})")
    for modality, ranked in data["modalities"].items():
        lines.append(f"  {modality}: {ranked['candidates']} candidates for {ranked['searched']}")
    fusion = data["fusion"]
    if "k" in fusion:
        weights = ", ".join(f"{m} {w:g}" for m, w in fusion["weights"].items())
        lines.append(
            f"fusion: weighted RRF, k={fusion['k']}, weights {weights}; "
            f"fusion_score = sum / {fusion['best_possible']:.6f} (every modality first)"
        )
    else:
        lines.append(f"fusion: {fusion['method']}")
    if data["reranker"]:
        lines.append(f"reranked by {data['reranker']}")
    lines.append("results:")
    for entry in data["results"]:
        lines += _result_lines(entry)
    return lines


def _result_lines(entry: dict[str, Any]) -> list[str]:
    head = f"  {entry['rank']:>2}. {entry['chunk_id']}  score {entry['score']:.4f}"
    if entry.get("pin"):
        head += f"  pinned: {entry['pin']}"
    parts = []
    for modality, rank in entry["ranks"].items():
        score = entry["scores"].get(modality)
        part = f"{modality} #{rank}" + (f" ({score:.4g})" if score is not None else "")
        if modality in entry.get("rrf", {}):
            part += f" rrf {entry['rrf'][modality]:.5f}"
        parts.append(part)
    detail = " · ".join(parts) or "in no ranking"
    if entry.get("fusion_score") is not None:
        detail += f" -> fusion {entry['fusion_score']:.4f}"
    if "rerank" in entry:
        detail += f" -> rerank {entry['rerank']:.4g}"
    return [head, f"      {detail}"]
