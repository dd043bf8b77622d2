"""Fine-tuning the local embedder on an index's own pairs (:mod:`.tune_pairs`), on the CPU.

The loss is the multiple-negatives ranking loss (as sentence-transformers'
``MultipleNegativesRankingLoss`` computes it): each query's passage must score above
every other passage of its batch and every hard negative, by cosine similarity times
20 under cross-entropy. Batches hold no query or passage twice, so that no pair is
pushed away from its own passage. The loop is written here on torch rather than with
sentence-transformers' trainer, which needs the ``datasets`` and ``accelerate`` packages.

:func:`retrieval` measures a model on held-out pairs: each query ranks the held-out
passages (and their negatives) by cosine; a hit is any passage paired with the query.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from .tune_pairs import Pair

SCALE = 20.0
"""Cosine similarities are multiplied by this before the cross-entropy (the loss's default)."""
TRAIN_MAX_TOKENS = 128
"""Word pieces of each text the model reads in training: the length all-MiniLM-L6-v2 was
itself fine-tuned at, and half the cost of its 256-piece windows on a CPU (a training
step's passages dominate it)."""
WARMUP_SHARE = 0.1

TrainProgress = Callable[[int, int, float], None]
"""Called after each step with (steps done, steps in all, the step's loss)."""


@dataclass(frozen=True)
class TrainSettings:
    epochs: int = 1
    batch_size: int = 16
    learning_rate: float = 2e-5
    seed: int = 0
    hard_negatives: bool = True
    """Whether pairs keep their mined hard negatives; without them each passage competes
    with its batch's other passages only."""
    base_weight: float = 0.0
    """The share of the base model's weights mixed back into the trained ones (each weight
    ``base_weight * base + (1 - base_weight) * trained``); 0 keeps the trained weights."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "learning_rate": self.learning_rate,
            "seed": self.seed,
            "hard_negatives": self.hard_negatives,
            "base_weight": self.base_weight,
        }


def batches(pairs: Sequence[Pair], size: int, rng: random.Random) -> list[list[Pair]]:
    """The pairs shuffled into batches of ``size`` in which no query and no passage (nor a
    negative that is another pair's passage) appears twice; a pair that would repeat one
    waits for a later batch."""
    waiting = list(pairs)
    rng.shuffle(waiting)
    result: list[list[Pair]] = []
    while waiting:
        batch: list[Pair] = []
        texts: set[str] = set()
        later: list[Pair] = []
        for pair in waiting:
            mine = {pair.query, pair.passage} | ({pair.negative} if pair.negative else set())
            if len(batch) < size and not mine & texts:
                batch.append(pair)
                texts |= mine
            else:
                later.append(pair)
        result.append(batch)
        waiting = later
    return result


def trained_pairs(pairs: Sequence[Pair], settings: TrainSettings) -> list[Pair]:
    """The pairs as training sees them: without their hard negatives unless the settings
    keep them."""
    if settings.hard_negatives:
        return list(pairs)
    return [replace(pair, negative=None) for pair in pairs]


def train(
    pairs: Sequence[Pair],
    base: Path,
    target: Path,
    settings: TrainSettings,
    progress: TrainProgress | None = None,
) -> float:
    """Fine-tune the model at ``base`` on ``pairs`` and save it at ``target``; returns the
    seconds spent training."""
    import torch
    from sentence_transformers import SentenceTransformer

    started = time.perf_counter()
    torch.manual_seed(settings.seed)
    rng = random.Random(settings.seed)
    model = SentenceTransformer(str(base), device="cpu")
    model.max_seq_length = TRAIN_MAX_TOKENS
    start = {name: value.detach().clone() for name, value in model.state_dict().items()}
    pairs = trained_pairs(pairs, settings)
    plan = [batches(pairs, settings.batch_size, rng) for _ in range(settings.epochs)]
    steps = sum(len(epoch) for epoch in plan)
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate)
    warmup = max(1, int(steps * WARMUP_SHARE))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: _rate(step, steps, warmup))
    model.train()
    done = 0
    for epoch in plan:
        for batch in epoch:
            loss = _batch_loss(model, batch)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            done += 1
            if progress is not None:
                progress(done, steps, float(loss.detach()))
    model.eval()
    mix_back(model, start, settings.base_weight)
    target.mkdir(parents=True, exist_ok=True)
    model.save(str(target))
    return time.perf_counter() - started


def mix_back(model: Any, start: dict[str, Any], share: float) -> None:
    """Mix ``share`` of the ``start`` weights back into ``model``'s floating-point weights."""
    if share <= 0:
        return
    import torch

    with torch.no_grad():
        for name, value in model.state_dict().items():
            if value.is_floating_point():
                value.mul_(1 - share).add_(start[name], alpha=share)


def _rate(step: int, steps: int, warmup: int) -> float:
    """The learning rate's factor: up linearly over the warm-up, then down linearly to 0."""
    return min((step + 1) / warmup, max(0.0, (steps - step) / (steps - warmup + 1)))


def _batch_loss(model: Any, batch: Sequence[Pair]) -> Any:
    """The multiple-negatives ranking loss of one batch."""
    import torch

    queries = _embedded(model, [pair.query for pair in batch])
    negatives = [pair.negative for pair in batch if pair.negative]
    passages = _embedded(model, [pair.passage for pair in batch] + negatives)
    scores = (
        torch.nn.functional.normalize(queries, dim=-1)
        @ torch.nn.functional.normalize(passages, dim=-1).T
    )
    labels = torch.arange(len(batch))
    return torch.nn.functional.cross_entropy(scores * SCALE, labels)


def _embedded(model: Any, texts: list[str]) -> Any:
    prepare = getattr(model, "preprocess", None) or model.tokenize
    features = prepare(texts)
    return model(features)["sentence_embedding"]


@dataclass(frozen=True)
class Retrieval:
    """How well a model finds held-out pairs' passages: Recall@1, Recall@10, MRR@10."""

    recall_at_1: float
    recall_at_10: float
    mrr_at_10: float
    queries: int
    passages: int

    def to_dict(self) -> dict[str, float | int]:
        return {
            "recall_at_1": round(self.recall_at_1, 4),
            "recall_at_10": round(self.recall_at_10, 4),
            "mrr_at_10": round(self.mrr_at_10, 4),
            "queries": self.queries,
            "passages": self.passages,
        }


def retrieval(model_path: Path, held: Sequence[Pair], every: Sequence[Pair]) -> Retrieval:
    """The model's retrieval of the held-out pairs: each held-out query ranks the pool of
    held-out passages and negatives; any passage some pair of ``every`` gives the query
    counts as found."""
    from sentence_transformers import SentenceTransformer

    pool = list(dict.fromkeys([p.passage for p in held] + [p.negative for p in held if p.negative]))
    queries = list(dict.fromkeys(p.query for p in held))
    position = {text: n for n, text in enumerate(pool)}
    asked = set(queries)
    relevant: dict[str, set[int]] = {}
    for pair in every:
        if pair.query in asked and pair.passage in position:
            relevant.setdefault(pair.query, set()).add(position[pair.passage])
    model = SentenceTransformer(str(model_path), device="cpu")
    model.max_seq_length = TRAIN_MAX_TOKENS
    query_vectors = model.encode(queries, normalize_embeddings=True, convert_to_numpy=True)
    pool_vectors = model.encode(pool, normalize_embeddings=True, convert_to_numpy=True)
    ranks = np.argsort(-(np.asarray(query_vectors) @ np.asarray(pool_vectors).T), axis=1)[:, :10]
    firsts = [
        _first_hit(row, relevant.get(query, set()))
        for query, row in zip(queries, ranks, strict=True)
    ]
    count = max(1, len(queries))
    return Retrieval(
        recall_at_1=sum(first == 1 for first in firsts) / count,
        recall_at_10=sum(first is not None for first in firsts) / count,
        mrr_at_10=sum(1 / first for first in firsts if first) / count,
        queries=len(queries),
        passages=len(pool),
    )


def _first_hit(row: np.ndarray, relevant: set[int]) -> int | None:
    return next((rank for rank, n in enumerate(row.tolist(), 1) if n in relevant), None)
