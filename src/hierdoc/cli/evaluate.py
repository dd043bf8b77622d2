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

from ..eval.baselines import BASELINES
from ..eval.datasets import EvalCorpus, first_documents, load_dataset, slice_corpus
from ..eval.passage_methods import run_passage_eval
from ..eval.runner import DISTRACTORS_PER_QUERY, run_eval, searches_whole_corpus
from ..eval.variants import PRESETS, VARIANTS, resolve_variants
from .state import State, index_options, pass_state


def default_index_dir() -> Path:
    return Path(tempfile.gettempdir()) / "hierdoc-eval"


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


@click.command("eval")
@index_options
@click.option(
    "--dataset",
    type=click.Choice(
        [
            "scifact",
            "anthropic",
            "contractnli",
            "contractnli-wide",
            "obliqa",
            "obliqa-documents",
            "obliqa-files",
            "beir",
        ]
    ),
    required=True,
    help="Which loader to use.",
)
@click.option(
    "--path",
    type=click.Path(exists=True),
    help="Dataset directory or file [default: the dataset's place in $HIERDOC_DATASETS].",
)
@click.option(
    "--split",
    default="test",
    show_default=True,
    help="BEIR qrels split; ContractNLI's file (test, dev); ObliQA's half (test, dev).",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    help="Only the first N queries, and only the documents they need are indexed: those "
    "they judge (or search within) plus random distractors (see --distractors).",
)
@click.option(
    "--documents",
    "first",
    type=click.IntRange(min=1),
    help="Only the first N documents, and only the queries answered within them (for a "
    "corpus too big to embed here: ObliQA's 13,012 passages).",
)
@click.option(
    "--distractors",
    type=click.IntRange(min=0),
    help=f"With --limit: how many random unjudged documents to index beside the needed ones "
    f"(default {DISTRACTORS_PER_QUERY} per query when queries search the whole corpus, "
    "0 when each searches only its own document).",
)
@click.option(
    "--variants",
    default="default",
    show_default=True,
    help="The hierdoc variants to measure: 'default' is the default settings alone; list "
    f"others to compare, comma-separated ({', '.join([*PRESETS, *VARIANTS])}).",
)
@click.option(
    "--baselines",
    default="dense,bm25,bm25-numpy-rrf",
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
@click.option(
    "--passages",
    "passage_eval",
    is_flag=True,
    help="Measure passages against the gold spans (span sets only): hierdoc's chunks, "
    "passages and passage-level results beside 500-character splitter baselines.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
@pass_state
def eval_command(
    state: State,
    dataset: str,
    path: str | None,
    split: str,
    limit: int | None,
    first: int | None,
    distractors: int | None,
    variants: str,
    baselines: str,
    index_dir: str,
    passage_eval: bool,
    as_json: bool,
) -> None:
    """Measure retrieval quality on a benchmark: hierdoc variants beside baselines."""
    own = "eval builds its own indexes under --index-dir, with each variant's settings"
    state.refuse("eval", dict.fromkeys(("index", "config", "tool"), own))
    if distractors is not None and not limit:
        raise click.UsageError("--distractors needs --limit")
    try:
        chosen = resolve_variants(variants)
        _stderr(f"[{dataset}] loading the dataset{f' from {path}' if path else ''}")
        corpus = load_dataset(dataset, path, split)
        if first:
            corpus = first_documents(corpus, first)
    except (OSError, ValueError, KeyError) as error:
        raise click.ClickException(str(error)) from error
    _stderr(
        f"[{corpus.name}] {len(corpus.queries)} queries, {len(corpus.documents)} documents; "
        f"variants: {', '.join(v.name for v in chosen) or 'none'}"
    )
    if passage_eval:
        _passages(corpus, limit, index_dir, as_json)
        return
    names = [] if baselines.strip() == "none" else [b.strip() for b in baselines.split(",")]
    report = run_eval(
        corpus, chosen, names, index_dir, limit=limit, log=_stderr, distractors=distractors
    )
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        click.echo(report.table())


def _passages(corpus: EvalCorpus, limit: int | None, index_dir: str, as_json: bool) -> None:
    if corpus.unit != "span":
        raise click.UsageError(f"--passages needs a set with gold spans; {corpus.name} has none")
    if limit:
        corpus = slice_corpus(corpus, limit, None if searches_whole_corpus(corpus) else 0)
    report = run_passage_eval(corpus, Path(index_dir), log=_stderr)
    click.echo(json.dumps(report.to_dict(), indent=2) if as_json else report.table())
