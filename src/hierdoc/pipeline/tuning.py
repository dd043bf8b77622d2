"""``hierdoc tune``: fine-tune the local embedder on an index's own pairs and re-embed it.

The steps, under the index's writer lock:

1. mine pairs from the index's structure (:mod:`.tune_pairs`), add the user's, and hold
   a seeded slice of the mined ones out for evaluation;
2. train a new version of the base model on the rest (:mod:`.tune`), into
   ``<index>/tuned/v<N>/`` with its provenance (:mod:`.tuned_models`); when a version
   trained on the same pairs with the same settings is there already, not switched in
   (an earlier run stopped while re-embedding), it is re-used;
3. measure the model before and after on the held-out pairs, when asked;
4. re-embed every chunk aside, resumably, and switch the index to the new vectors and
   model at once (:mod:`.reembed`); older versions are then deleted.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..store.base import Store
from .embed import LocalEmbedder
from .reembed import VectorsAside, embed_aside, switch_in
from .tune import Retrieval, TrainSettings, retrieval, train
from .tune_pairs import Pair, count_by_kind, held_out, mine_pairs, read_given_pairs
from .tuned_models import (
    PARTIAL_SUFFIX,
    PROVENANCE_FILE,
    TunedModel,
    read_tuned,
    remove_versions,
    tuned_name,
    version_dir,
    versions,
)

HELD_OUT_SHARE = 0.1
HELD_OUT_CAP = 300
ASIDE_FILE = "vectors-aside.sqlite"

TuneProgress = Callable[[str, int, int], None]
"""Called with (stage, done, total): "train" counts steps, "embed" chunks, "switch"
documents, "evaluate" models measured."""


@dataclass(frozen=True)
class TuneOptions:
    pairs_file: Path | None = None
    """JSONL of ``{"query": ..., "passage": ...}`` pairs trained on beside the mined ones."""
    max_pairs: int = 4000
    """At most this many pairs are trained on (a seeded sample of them)."""
    mined: bool = True
    """Whether pairs are mined from the index's structure; without, only the given ones."""
    evaluate: bool = False
    train: TrainSettings = field(default_factory=TrainSettings)
    hierdoc_version: str = ""


@dataclass(frozen=True)
class ModelPaths:
    """The base model to train from and the model that made the index's vectors now."""

    base_name: str
    base_path: Path
    current_path: Path


@dataclass
class TuneReport:
    model: str
    version: int
    path: str
    resumed: bool
    mined: dict[str, int]
    given: int
    trained_pairs: int
    held_out: int
    training_seconds: float
    embedded: int
    chunks: int
    documents: int
    seconds: float = 0.0
    before: Retrieval | None = None
    after: Retrieval | None = None

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k not in ("before", "after")}
        data["training_seconds"] = round(self.training_seconds, 1)
        data["seconds"] = round(self.seconds, 1)
        if self.before is not None and self.after is not None:
            data["evaluation"] = {"before": self.before.to_dict(), "after": self.after.to_dict()}
        return data


def run_tune(
    store: Store,
    open_reader: Callable[[], Store],
    index_dir: Path,
    models: ModelPaths,
    options: TuneOptions,
    progress: TuneProgress | None = None,
) -> TuneReport:
    """Tune, measure when asked, re-embed and switch in; see the module's docstring.
    ``store`` is the writer (holding the lock); ``open_reader`` opens a read-only store of
    the live index, for the copy into the rebuild."""
    started = time.perf_counter()
    if not options.mined and (options.pairs_file is None or options.evaluate):
        raise InputError(
            "without mined pairs, give pairs with --pairs FILE; --eval measures held-out "
            "mined pairs, so it needs them"
        )
    mined = mine_pairs(store) if options.mined else []
    given = read_given_pairs(options.pairs_file) if options.pairs_file else []
    if not mined and not given:
        raise InputError(
            "no training pairs could be mined from this index (no headings over text, no "
            "definitions, no resolved cross-references): give pairs with --pairs FILE"
        )
    seed = options.train.seed
    training, held = held_out(mined, HELD_OUT_SHARE, seed, HELD_OUT_CAP)
    training = _sampled(training + given, options.max_pairs, seed)
    if not training:
        raise InputError("too few pairs to train on once the evaluation slice is held out")
    recipe = _recipe(models.base_name, options, training)
    model, resumed = _trained(index_dir, models, recipe, training, options, progress)
    report = TuneReport(
        model=model.name,
        version=model.version,
        path=str(model.path),
        resumed=resumed,
        mined=count_by_kind(mined),
        given=len(given),
        trained_pairs=len(training),
        held_out=len(held),
        training_seconds=float(model.provenance.get("training_seconds", 0.0)),
        embedded=0,
        chunks=0,
        documents=0,
    )
    if options.evaluate:
        report.before, report.after = _measured(models.current_path, model.path, held, mined)
        if progress is not None:
            progress("evaluate", 2, 2)
    _reembed(store, open_reader, model, report, progress)
    remove_versions(index_dir, keep={model.version})
    report.seconds = time.perf_counter() - started
    return report


def _sampled(pairs: list[Pair], limit: int, seed: int) -> list[Pair]:
    if len(pairs) <= limit:
        return pairs
    chosen = sorted(random.Random(seed).sample(range(len(pairs)), limit))
    return [pairs[n] for n in chosen]


def _recipe(base: str, options: TuneOptions, training: list[Pair]) -> dict[str, Any]:
    """What decides the trained weights: a version trained on the same can be re-used."""
    digest = hashlib.sha1()
    for pair in training:
        digest.update(json.dumps([pair.query, pair.passage, pair.negative]).encode())
    return {"base_model": base, **options.train.to_dict(), "pairs_sha1": digest.hexdigest()}


def _trained(
    index_dir: Path,
    models: ModelPaths,
    recipe: dict[str, Any],
    training: list[Pair],
    options: TuneOptions,
    progress: TuneProgress | None,
) -> tuple[TunedModel, bool]:
    """(the model, whether it was re-used): the newest complete version with this recipe
    not yet switched in, else a new version trained now."""
    known = versions(index_dir)
    for version in reversed(known):
        model = read_tuned(index_dir, version)
        if (
            model is not None
            and model.path != models.current_path
            and model.provenance.get("recipe") == recipe
        ):
            return model, True
    version = (known[-1] if known else 0) + 1
    final = version_dir(index_dir, version)
    partial = final.with_name(final.name + PARTIAL_SUFFIX)
    shutil.rmtree(partial, ignore_errors=True)
    step = None if progress is None else lambda done, steps, _loss: progress("train", done, steps)
    seconds = train(training, models.base_path, partial, options.train, step)
    provenance = {
        "format": 1,
        "version": version,
        "base_model": models.base_name,
        "pairs": {**count_by_kind(training), "total": len(training)},
        **options.train.to_dict(),
        "training_seconds": round(seconds, 1),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "hierdoc_version": options.hierdoc_version,
        "recipe": recipe,
    }
    (partial / PROVENANCE_FILE).write_text(json.dumps(provenance, indent=2) + "\n")
    partial.rename(final)
    return TunedModel(version, final, provenance), False


def _measured(
    before: Path, after: Path, held: list[Pair], every: list[Pair]
) -> tuple[Retrieval, Retrieval]:
    if not held:
        raise InputError("too few mined pairs to hold any out for --eval")
    return retrieval(before, held, every), retrieval(after, held, every)


def _reembed(
    store: Store,
    open_reader: Callable[[], Store],
    model: TunedModel,
    report: TuneReport,
    progress: TuneProgress | None,
) -> None:
    """Every chunk embedded aside with ``model``, then switched in with its name."""
    embedder = LocalEmbedder(model_path=str(model.path), name=model.name)
    aside = VectorsAside(model.path / ASIDE_FILE, embedder.dimension)
    try:
        report.embedded, report.chunks = embed_aside(store, embedder, aside, progress)
        reader = open_reader()
        try:
            named = tuned_name(model.provenance["base_model"], model.version)
            report.documents = switch_in(
                reader, store, aside, lambda meta: replace(meta, embedding_model=named), progress
            )
        finally:
            reader.close()
    finally:
        aside.close()
    (model.path / ASIDE_FILE).unlink(missing_ok=True)
