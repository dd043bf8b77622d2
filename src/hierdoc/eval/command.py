"""``hierdoc eval``: the command line of the evaluation harness.

Measures retrieval quality on a benchmark (SciFact, the Anthropic codebase,
ContractNLI or any BEIR-layout set): hierdoc variants beside baselines, printed
as a markdown table or, with ``--json``, as the full report.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import click

from .baselines import BASELINES
from .datasets import load_dataset, slice_corpus
from .runner import run_eval
from .variants import PRESETS, VARIANTS, resolve_variants


def default_index_dir() -> Path:
    return Path(tempfile.gettempdir()) / "hierdoc-eval"


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@click.command("eval")
@click.option(
    "--dataset",
    type=click.Choice(["scifact", "anthropic", "contractnli", "beir"]),
    required=True,
    help="Which loader to use.",
)
@click.option("--path", type=click.Path(exists=True), help="Dataset directory or file.")
@click.option("--split", default="test", show_default=True, help="BEIR qrels split.")
@click.option("--limit", type=int, help="Only the first N queries.")
@click.option(
    "--distractors",
    type=int,
    help="With --limit: index only the documents those queries judge plus N random others.",
)
@click.option(
    "--variants",
    default="standard",
    show_default=True,
    help=f"Comma-separated variants or groups ({', '.join([*PRESETS, *VARIANTS])}).",
)
@click.option(
    "--baselines",
    default="dense,bm25,seed",
    show_default=True,
    help=f"Comma-separated baselines ({', '.join(BASELINES)}), or 'none'.",
)
@click.option(
    "--index-dir",
    type=click.Path(file_okay=False),
    default=str(default_index_dir()),
    show_default=True,
    help="Where indexes and the embedding cache are kept between runs.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
def eval_command(
    dataset: str,
    path: str | None,
    split: str,
    limit: int | None,
    distractors: int | None,
    variants: str,
    baselines: str,
    index_dir: str,
    as_json: bool,
) -> None:
    """Measure retrieval quality on a benchmark: hierdoc variants beside baselines."""
    try:
        corpus = load_dataset(dataset, path, split)
        chosen = resolve_variants(variants)
    except (OSError, ValueError, KeyError) as error:
        raise click.ClickException(str(error)) from error
    if limit and distractors is not None:
        corpus = slice_corpus(corpus, limit, distractors)
    names = [] if baselines.strip() == "none" else [b.strip() for b in baselines.split(",")]
    report = run_eval(corpus, chosen, names, index_dir, limit=limit, log=_stderr)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(report.table())
