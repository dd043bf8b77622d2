"""``hierdoc tune``: fine-tune the local embedding model on the index, then re-embed it.

A thin layer over :meth:`hierdoc.api.Index.tune`: progress on stderr (one line redrawn
per stage: training steps, chunks embedded, documents switched in), the report as text
or ``--json``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from .state import State, index_options, pass_state

STAGES = {
    "train": "training: step",
    "evaluate": "evaluating: model",
    "embed": "re-embedding: chunk",
    "switch": "switching in: document",
}


def progress_printer() -> Any:
    """A progress callback drawing ``stage done/total  rate  ETA`` on stderr."""
    starts: dict[str, tuple[float, int]] = {}
    redraw = sys.stderr.isatty()
    shown = {"at": 0.0}

    def on_progress(stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        first_time, first_done = starts.setdefault(stage, (now, done))
        if not (redraw or done == total or now - shown["at"] >= 10):
            return
        shown["at"] = now
        line = f"{STAGES.get(stage, stage)} {done}/{total}"
        if done > first_done and now > first_time:
            rate = (done - first_done) / (now - first_time)
            line += f"  {rate:.2f}/s  ETA {(total - done) / rate:.0f}s"
        end = "\n" if done == total or not redraw else ""
        click.echo(f"\r{line}\033[K" if redraw else line, err=True, nl=False)
        click.echo(end, err=True, nl=False)

    return on_progress


def _retrieval_line(label: str, figures: dict[str, float]) -> str:
    return (
        f"  {label:<7} Recall@1 {figures['recall_at_1']:.3f}  Recall@10 "
        f"{figures['recall_at_10']:.3f}  MRR@10 {figures['mrr_at_10']:.3f}"
    )


@click.command("tune")
@index_options
@click.option(
    "--pairs",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help='JSONL of {"query": ..., "passage": ...} pairs to train on beside the mined ones.',
)
@click.option(
    "--epochs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Passes over the pairs.",
)
@click.option(
    "--max-pairs",
    type=click.IntRange(min=1),
    default=4000,
    show_default=True,
    help="Train on at most this many pairs (a seeded sample).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed.")
@click.option(
    "--learning-rate",
    type=click.FloatRange(min=0, max=1e-2, min_open=True),
    default=2e-5,
    show_default=True,
    help="Peak learning rate (warm-up over the first tenth, then down to 0).",
)
@click.option(
    "--hard-negatives/--no-hard-negatives",
    default=True,
    show_default=True,
    help="Train each mined pair against its neighbouring section as a hard negative.",
)
@click.option(
    "--base-weight",
    type=click.FloatRange(min=0, max=1, max_open=True),
    default=0.0,
    show_default=True,
    help="Share of the base model's weights mixed back into the trained ones.",
)
@click.option(
    "--mined/--no-mined",
    default=True,
    show_default=True,
    help="Mine pairs from the index's structure (--no-mined: train on --pairs only).",
)
@click.option(
    "--eval",
    "evaluate",
    is_flag=True,
    help="Report retrieval before and after on held-out mined pairs.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--quiet", is_flag=True, help="No progress.")
@click.option("--wait", is_flag=True, help="Wait for another process writing this index.")
@pass_state
def tune_command(
    state: State,
    pairs: Path | None,
    epochs: int,
    max_pairs: int,
    seed: int,
    learning_rate: float,
    hard_negatives: bool,
    base_weight: float,
    mined: bool,
    evaluate: bool,
    as_json: bool,
    quiet: bool,
    wait: bool,
) -> None:
    """Fine-tune the local embedding model on this index and re-embed it.

    Pairs are mined from the index's own structure (headings, heading paths,
    definitions, cross-references), with neighbouring sections as hard negatives; no
    labels, no LLM. The model is saved in the index directory with its provenance, the
    index re-embedded with it (searches go on with the old vectors until the new ones
    are all there), and searches then use it. Interrupted, the same command resumes.
    """
    from ..api import Index

    with Index.open(state.index_option, state.settings(), wait=wait) as index:
        progress = None if quiet or as_json else progress_printer()
        report = index.tune(
            pairs, epochs=epochs, max_pairs=max_pairs, seed=seed, evaluate=evaluate,
            progress=progress, learning_rate=learning_rate, hard_negatives=hard_negatives,
            mined=mined, base_weight=base_weight,
        )  # fmt: skip
    data = report.to_dict()
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    mined = ", ".join(f"{count} {kind}" for kind, count in report.mined.items()) or "none"
    reused = " (re-used: trained by an earlier run)" if report.resumed else ""
    click.echo(
        f"tuned {report.model}{reused} on {report.trained_pairs} pairs (mined: {mined}; "
        f"given: {report.given}) in {report.training_seconds:.0f}s; "
        f"re-embedded {report.embedded} of {report.chunks} chunks and switched in "
        f"{report.documents} documents; {report.seconds:.0f}s in all"
    )
    if "evaluation" in data:
        queries = data["evaluation"]["before"]["queries"]
        click.echo(f"held-out mined pairs: {report.held_out} ({queries} queries)")
        click.echo(_retrieval_line("before", data["evaluation"]["before"]))
        click.echo(_retrieval_line("after", data["evaluation"]["after"]))
