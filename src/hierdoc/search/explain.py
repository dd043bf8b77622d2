"""Why each result ranked where it did: the query plan's trace, each modality's rank and
score for the results, the fusion (weights, reciprocal-rank contributions), the pins and
the reranking. :func:`explain` gives it as JSON-ready data (``explain`` of a search
response), :func:`explain_lines` as text for a terminal.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..models import SearchResult
from .fuse import RULES, best_possible, confidence, confident_weights, normalised
from .plan import QueryPlan
from .searcher import NAMED, Execution


def fusion_weights(plan: QueryPlan) -> dict[str, float]:
    """The weight of each ranking in fusion: the settings' in hybrid mode (one modality, 1,
    in the others), and the plan's for the ranking within the documents the query names."""
    if plan.mode == "hybrid":
        return {**plan.settings.weights, NAMED: plan.named_weight}
    return {plan.mode: 1.0, NAMED: plan.named_weight}


def applied_weights(execution: Execution) -> dict[str, float]:
    """The weights the fusion applied to this query: :func:`fusion_weights`, re-split by
    confidence (:func:`~.fuse.confident_weights`) under score fusion."""
    weights = fusion_weights(execution.plan)
    if execution.plan.settings.fusion == "score":
        return confident_weights(execution.rankings, weights)
    return weights


def _fuses(execution: Execution) -> bool:
    """Rankings were fused: hybrid mode, or one modality with the named documents' ranking."""
    return execution.plan.mode == "hybrid" or NAMED in execution.rankings


def explain(execution: Execution) -> dict[str, Any]:
    """How ``execution`` (an executed query plan) reached its results."""
    plan = execution.plan
    shares = _contributions(execution) if _fuses(execution) else {}
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
        "results": [
            _result(execution, n, r, shares)
            for n, r in enumerate(execution.response.results, start=1)
        ],
    }


def _searched(execution: Execution, modality: str) -> str:
    """What the modality searched for."""
    plan = execution.plan
    if modality == "semantic":
        return plan.embedded
    if modality == "keyword":
        return plan.expanded
    if modality == "named":
        within = replace(plan, text=plan.within_text or plan.text)
        return f"{within.embedded!r} within {', '.join(plan.named)}"
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
    """How the rankings were combined, else which one ranking."""
    settings = execution.plan.settings
    if not _fuses(execution):
        return {"method": f"the {settings.search_mode} ranking alone"}
    weights = fusion_weights(execution.plan)
    rule = settings.fusion
    raw = RULES[rule](execution.rankings, weights, settings.rrf_k)
    top = best_possible(weights, list(execution.rankings), settings.rrf_k, rule)
    top = max(top, raw[0][1] if raw else 0.0) or 1.0
    described = {
        "rrf": "weighted reciprocal rank fusion: the sum of weight / (k + rank)",
        "score": "score fusion: the sum of weight times each modality's normalised score, "
        "keyword's and semantic's weights re-split by their confidence in this query",
    }
    fused = {
        "method": described[rule],
        "rule": rule,
        "k": settings.rrf_k,
        "weights": {m: weights.get(m, 0.0) for m in execution.rankings},
        "best_possible": round(top, 6),
        "scaled": "fusion_score is the sum over best_possible",
    }
    if rule == "score":
        applied = applied_weights(execution)
        fused["confidence"] = {m: round(confidence(h), 6) for m, h in execution.rankings.items()}
        fused["applied_weights"] = {m: round(applied.get(m, 0.0), 6) for m in execution.rankings}
    return fused


def _contributions(execution: Execution) -> dict[str, dict[str, float]]:
    """Each ranking's share of each chunk's fused sum, by chunk id."""
    settings = execution.plan.settings
    weights, k = applied_weights(execution), settings.rrf_k
    found: dict[str, dict[str, float]] = {}
    for modality, hits in execution.rankings.items():
        weight = weights.get(modality, 0.0)
        if weight <= 0:
            continue
        if settings.fusion == "rrf":
            values = {h.chunk_id: weight / (k + r) for r, h in enumerate(hits, start=1)}
        else:
            values = {c: weight * v for c, v in normalised(modality, hits).items()}
        for chunk_id, value in values.items():
            found.setdefault(chunk_id, {}).setdefault(modality, round(value, 6))
    return found


def _result(
    execution: Execution,
    position: int,
    result: SearchResult,
    shares: dict[str, dict[str, float]],
) -> dict[str, Any]:
    ranks: dict[str, int] = {}
    scores: dict[str, float] = {}
    for modality, hits in execution.rankings.items():
        for rank, hit in enumerate(hits, start=1):
            if hit.chunk_id == result.chunk_id:
                ranks[modality], scores[modality] = rank, hit.score
                break
    entry: dict[str, Any] = {
        "rank": position,
        "chunk_id": result.chunk_id,
        "ranks": ranks,
        "scores": scores,
    }
    if _fuses(execution):
        entry["fused"] = shares.get(result.chunk_id, {})
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
    if "rule" in fusion:
        weights = ", ".join(f"{m} {w:g}" for m, w in fusion["weights"].items())
        rule = f"weighted RRF, k={fusion['k']}" if fusion["rule"] == "rrf" else "score fusion"
        lines.append(
            f"fusion: {rule}, weights {weights}; fusion_score = sum / {fusion['best_possible']:.6f}"
        )
        if "applied_weights" in fusion:
            applied = ", ".join(
                f"{m} {w:.3g} (confidence {fusion['confidence'][m]:.3g})"
                for m, w in fusion["applied_weights"].items()
                if w != fusion["weights"].get(m)
            )
            lines.append(f"  applied by confidence: {applied or 'as set'}")
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
    return [head, f"      {ranking_detail(entry)}"]


def ranking_detail(entry: dict[str, Any], arrow: str = "->") -> str:
    """One explained result's path through the rankings: each modality's rank and score
    and what it added to the fusion, then the fused score and any reranking."""
    parts = []
    for modality, rank in entry.get("ranks", {}).items():
        score = entry.get("scores", {}).get(modality)
        part = f"{modality} #{rank}" + (f" ({score:.4g})" if score is not None else "")
        if modality in entry.get("fused", {}):
            part += f" +{entry['fused'][modality]:.5f}"
        parts.append(part)
    detail = " · ".join(parts) or "in no ranking"
    if entry.get("fusion_score") is not None:
        detail += f" {arrow} fusion {entry['fusion_score']:.4f}"
    if "rerank" in entry:
        detail += f" {arrow} rerank {entry['rerank']:.4g}"
    return detail
