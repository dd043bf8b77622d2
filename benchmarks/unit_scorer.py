"""Fit and compare scorers of the units of passage-level results, offline.

``capture`` searches each question of each set once, as a search with ``passage_results``
does (``top_k`` 10, the real model through the run's embedding cache), and keeps what the
passage-level ranking is given (the results, each result's unit evidence, the gold) in a
pickle per set. ``fit`` trains the linear unit scorer of
:mod:`hierdoc.search.unit_scorer` on the training sets' captures (a listwise softmax over
each question's units, the target each unit's share of gold characters, L2-regularised,
full-batch gradient descent from zero: deterministic) and writes its weights.
``compare`` ranks every captured question with each scorer and prints the measures of
:mod:`hierdoc.eval.passage_eval`. Training material only: ContractNLI ``dev.json`` and the
ObliQA dev half; the test splits are reported.

    python benchmarks/unit_scorer.py capture \\
        --sets contractnli:dev,obliqa-files:dev,contractnli:test,obliqa-files:test
    python benchmarks/unit_scorer.py fit --train contractnli:dev,obliqa-files:dev \\
        --out src/hierdoc/search/unit_weights.json
    python benchmarks/unit_scorer.py compare --sets contractnli:test,obliqa-files:test \\
        --scorers fixed,learned,/tmp/contractnli-only.json
"""

from __future__ import annotations

import argparse
import copy
import json
import pickle
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np

import hierdoc.search.passages as passages_module
from hierdoc.config import DEFAULT_POLICY, SearchPolicy, Settings
from hierdoc.eval.datasets import EvalQuery, load_dataset
from hierdoc.eval.embed_cache import CachingEmbedder
from hierdoc.eval.indexes import open_index
from hierdoc.eval.passage_eval import gold_source, mean_measures, measure
from hierdoc.eval.passage_methods import DEPTH, first_passage, result_items
from hierdoc.eval.report import markdown_table
from hierdoc.eval.variants import ingest_key
from hierdoc.models import SearchFilter, SearchResponse
from hierdoc.pipeline.embed import LocalEmbedder
from hierdoc.search.passage_ranking import UnitEvidence, rank_units
from hierdoc.search.searcher import Searcher
from hierdoc.search.unit_scorer import FEATURES, UnitWeights, unit_features

COLUMNS = ("Hit", "P@1", "R@8", "R@500", "R@2k", "R@2k packed")
FIXED_ABSORB = 1.0
LEARNED_ABSORB = DEFAULT_POLICY.result_passage_absorb
SEED = 32
"""No randomness is drawn (zero start, full batches); fixed for any later sampling."""


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@dataclass
class Captured:
    """One question as the passage-level ranking sees it."""

    query: EvalQuery
    response: SearchResponse
    evidence: dict[int, UnitEvidence]
    top_k: int
    policy: object
    budget: int
    spans: dict[str, tuple[int, int]]


def capture(sets: str, root: Path) -> None:
    """Each set's questions captured, its index and embedding cache under ``root``/name."""
    model = LocalEmbedder()
    for spec in sets.split(","):
        name, _, split = spec.partition(":")
        started = time.perf_counter()
        embedder = CachingEmbedder(model, root / name / "embeddings.sqlite")
        captured = _capture_set(name, split, root / name, embedder)
        embedder.close()
        with open(_pickle(root, spec), "wb") as out:
            pickle.dump(captured, out)
        log(f"[{spec}] {len(captured)} questions in {time.perf_counter() - started:.0f} s")


def _capture_set(name: str, split: str, root: Path, embedder: CachingEmbedder) -> list[Captured]:
    corpus = load_dataset(name, None, split)
    opened = open_index(corpus, ingest_key(Settings(), corpus), root, embedder, log)
    index, table = opened.index, opened.table
    settings = index.settings.search_settings(top_k=DEPTH, passage_results=True)
    searcher = Searcher(index.store, index.embed_query, index.glossary())
    seen: list[tuple] = []
    original = passages_module.rank_units

    def spy(response, evidence, top_k, policy, budget):  # noqa: ANN001, ANN202
        seen.append((copy.deepcopy(response), evidence, top_k, policy, budget))
        return original(response, evidence, top_k, policy, budget)

    passages_module.rank_units = spy
    captured = []
    try:
        for query in corpus.queries:
            sources = index.resolve_sources(query.source_filter) if query.source_filter else []
            execution = searcher.run(query.text, settings, SearchFilter(sources=tuple(sources)))
            execution = replace(execution, vector=embedder.embed_query(query.text))
            passages_module.add_passages(
                index.store, execution, index.model_name, index.embed_units
            )
            response, evidence, top_k, policy, budget = seen.pop()
            ids = [r.chunk_id for r in response.results]
            spans = {i: table.span[i] for i in ids if i in table.span}
            captured.append(Captured(query, response, evidence, top_k, policy, budget, spans))
    finally:
        passages_module.rank_units = original
        index.close()
    return captured


def _pickle(root: Path, spec: str) -> Path:
    return root / f"units-{spec.replace(':', '-')}.pickle"


def _load(root: Path, spec: str) -> list[Captured]:
    with open(_pickle(root, spec), "rb") as source:
        return pickle.load(source)


def measured(
    captured: Sequence[Captured], weights: UnitWeights | None, absorb: float = LEARNED_ABSORB
) -> dict[str, float]:
    """Mean measures of the passage-level results ranked with ``weights`` and ``absorb``
    (None: the policy's ``fixed`` scorer, the four signals summed, at the absorption it was
    chosen with, :data:`FIXED_ABSORB`)."""
    if weights is None:
        update = {"result_passage_scorer": "fixed", "result_passage_absorb": FIXED_ABSORB}
    else:
        update = {"result_passage_scorer": "learned", "result_passage_absorb": absorb}
    rows = []
    for one in captured:
        policy = current_policy(one.policy, update)
        ranked = rank_units(one.response, one.evidence, one.top_k, policy, one.budget, weights)
        table = SimpleNamespace(span=one.spans)
        rows.append(measure(one.query, result_items(ranked, table, first_passage)))
    return mean_measures(rows)


def current_policy(captured: object, update: dict[str, object]) -> SearchPolicy:
    """A captured search policy with ``update``, as the current :class:`SearchPolicy` (a
    field added since the capture takes its default)."""
    return SearchPolicy.model_validate({**vars(captured), **update})


def examples(captured: Sequence[Captured]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each question's unit features and target (each unit's share of gold characters,
    normalised to sum 1); questions whose units hold no gold are left out."""
    out = []
    for one in captured:
        candidates = [
            (position, index)
            for position, found in sorted(one.evidence.items())
            if not found.cited
            for index in range(len(found.units))
        ]
        if not candidates:
            continue
        features = unit_features(one.response.results, one.evidence, candidates)
        gold = np.array([_gold_share(one, p, i) for p, i in candidates])
        if gold.sum() > 0:
            out.append((features, gold / gold.sum()))
    return out


def _gold_share(one: Captured, position: int, index: int) -> float:
    result = one.response.results[position]
    chunk = one.spans.get(result.chunk_id)
    if chunk is None or result.source != gold_source(one.query):
        return 0.0
    start, end = one.evidence[position].units[index]
    begin, finish = chunk[0] + start, chunk[0] + end
    inside = sum(max(0, min(finish, e) - max(begin, s)) for s, e in one.query.relevant)
    return min(1.0, inside / max(1, finish - begin))


def fit(
    groups: Sequence[Sequence[tuple[np.ndarray, np.ndarray]]],
    l2: float = 0.01,
    steps: int = 500,
    prior: np.ndarray | None = None,
) -> np.ndarray:
    """Weights minimising :func:`loss` (the ``l2`` penalty on their distance from
    ``prior``, else from zero) by gradient descent from ``prior``, each step halved until
    the loss falls (converges on this convex loss; deterministic)."""
    prior = np.zeros(len(FEATURES)) if prior is None else prior
    weights = prior.copy()
    value, gradient = loss(groups, weights, l2, prior)
    rate = 1.0
    for _ in range(steps):
        while rate > 1e-8:
            trial = weights - rate * gradient
            trial_value, trial_gradient = loss(groups, trial, l2, prior)
            if trial_value < value:
                break
            rate /= 2
        else:
            break
        weights, value, gradient = trial, trial_value, trial_gradient
        rate *= 1.5
    return weights


def loss(
    groups: Sequence[Sequence[tuple[np.ndarray, np.ndarray]]],
    weights: np.ndarray,
    l2: float,
    prior: np.ndarray,
) -> tuple[float, np.ndarray]:
    """The mean (each group weighing the same) cross-entropy of a softmax over each
    question's units against its gold shares, plus ``l2`` times the squared distance of
    the weights from ``prior``; and its gradient."""
    away = weights - prior
    value, gradient = l2 * float(away @ away), 2 * l2 * away
    for group in groups:
        for features, target in group:
            scores = features @ weights
            top = scores.max()
            log_total = top + np.log(np.exp(scores - top).sum())
            probability = np.exp(scores - log_total)
            value -= float(target @ (scores - log_total)) / len(group) / len(groups)
            gradient = gradient + features.T @ (probability - target) / len(group) / len(groups)
    return value, gradient


def _scale(captured: Sequence[Captured], weights: np.ndarray) -> float:
    """The factor bringing the scores' mean spread per question to the four summed signals'
    (so the policy's ``result_passage_absorb`` keeps its meaning)."""
    spread, fixed_spread = [], []
    fixed = np.array([1.0 if name in _FOUR else 0.0 for name in FEATURES])
    for features, _ in examples(captured):
        spread.append((features @ weights).std())
        fixed_spread.append((features @ fixed).std())
    return float(np.mean(fixed_spread) / max(np.mean(spread), 1e-9))


_FOUR = ("lexical", "semantic", "chunk", "coverage")


def run_fit(root: Path, train: str, out: Path, l2: float) -> None:
    captured = {spec: _load(root, spec) for spec in train.split(",")}
    groups = [examples(c) for c in captured.values()]
    weights = fit(groups, l2)
    weights *= _scale([one for c in captured.values() for one in c], weights)
    document = {
        "trained_on": train,
        "seed": SEED,
        "l2": l2,
        "weights": {name: round(float(w), 5) for name, w in zip(FEATURES, weights, strict=True)},
    }
    out.write_text(json.dumps(document, indent=2) + "\n")
    log(json.dumps(document["weights"]))


def compare(root: Path, sets: str, scorers: str, absorb: float) -> None:
    rows = []
    for spec in sets.split(","):
        captured = _load(root, spec)
        for scorer in scorers.split(","):
            weights = _weights(scorer)
            means = measured(captured, weights, absorb)
            shown = scorer if weights is None else f"{scorer} (absorb {absorb:g})"
            rows.append([spec, shown, *(f"{means[c]:.3f}" for c in COLUMNS)])
            log(" ".join(rows[-1]))
    print(markdown_table(["set", "scorer", *COLUMNS], rows, numeric_from=2))


def _weights(scorer: str) -> UnitWeights | None:
    if scorer == "fixed":
        return None
    if scorer == "learned":
        return UnitWeights.load()
    return UnitWeights.load(Path(scorer))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("capture", "fit", "compare"))
    parser.add_argument("--sets", default="contractnli:dev,obliqa-files:dev")
    parser.add_argument("--train", default="contractnli:dev,obliqa-files:dev")
    parser.add_argument("--scorers", default="fixed,learned")
    parser.add_argument("--out", default="src/hierdoc/search/unit_weights.json")
    parser.add_argument("--l2", type=float, default=0.01)
    parser.add_argument("--absorb", type=float, default=LEARNED_ABSORB)
    parser.add_argument("--root", default="/tmp/passages32c")
    args = parser.parse_args()
    root = Path(args.root)
    if args.command == "capture":
        capture(args.sets, root)
    elif args.command == "fit":
        run_fit(root, args.train, Path(args.out), args.l2)
    else:
        compare(root, args.sets, args.scorers, args.absorb)


if __name__ == "__main__":
    main()
