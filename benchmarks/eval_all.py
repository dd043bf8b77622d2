"""Retrieval quality on the three benchmark sets, hierdoc variants beside baselines.

One command runs the Anthropic codebase (Pass@k as the cookbook computes it),
BEIR SciFact (nDCG@10 by document) and ContractNLI test (span recall@k within
each NDA) through :func:`hierdoc.eval.runner.run_eval`, with the variant grid and
the baselines (dense brute force, rank_bm25 on whitespace tokens, rank_bm25 +
numpy + RRF as HoloDeck 0.7.1 fuses them) over the same chunks and vectors, and
prints one markdown table.
``--write`` replaces the "## Retrieval quality" section of BENCHMARKS.md (made
at the end if missing) with the command, date, machine and table.

Indexes and an embedding cache live under ``--index-dir`` (default
/tmp/hierdoc-eval), so a rerun does not re-embed.

    python benchmarks/eval_all.py --write
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from hierdoc.eval.datasets import default_datasets, load_dataset
from hierdoc.eval.report import EvalReport, format_metric, markdown_table
from hierdoc.eval.runner import run_eval
from hierdoc.eval.variants import resolve_variants
from hierdoc.pipeline.embed import LocalEmbedder

SECTION = "## Retrieval quality"
DATASETS = ("anthropic", "scifact", "contractnli")
LABELS = {
    "anthropic": "Anthropic codebase",
    "scifact": "SciFact",
    "contractnli": "ContractNLI test",
    "contractnli-wide": "ContractNLI test, corpus-wide",
}
#: Datasets that share another's index folder (and so its embedding cache): same documents.
INDEX_FOLDERS = {"contractnli-wide": "contractnli"}
BASELINES = ("dense", "bm25", "bm25-numpy-rrf", "bm25-numpy-rrf-semantic", "bm25-numpy-rrf-keyword")
PACKAGES = ("tantivy", "torch", "sentence-transformers", "rank-bm25", "hierdoc")
PUBLISHED = (
    "Published reference points (other models, not this machine): SciFact nDCG@10 BM25 0.665 "
    "(BEIR paper), all-MiniLM-L6-v2 0.645 (MTEB); codebase Pass@5/@10/@20 with voyage-2 "
    "embeddings 80.92 / 87.15 / 90.06, + Claude contexts 86.37 / 92.81 / 93.78, + Elasticsearch "
    "BM25 86.43 / 93.21 / 94.99 (cookbook)."
)


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_average() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def versions() -> str:
    found = []
    for name in PACKAGES:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} missing")
    return f"Python {platform.python_version()}, " + ", ".join(found)


# -- tables -------------------------------------------------------------------


def combined_table(reports: dict[str, EvalReport]) -> str:
    header = [
        "dataset",
        "method",
        "what",
        "main metric",
        "main",
        "vs dense",
        "R@1",
        "R@5",
        "R@10",
        "R@20",
        "MRR@10",
        "nDCG@10",
        "ms/query",
        "misses@10",
    ]
    rows = []
    for dataset, report in reports.items():
        recall = [m for m in report.metrics if m.split("@")[0] in ("R", "Pass", "SpanR")]
        recall.sort(key=lambda m: int(m.split("@")[1]))
        for result in report.results:
            change = report.versus(result.name)
            values = result.metrics
            rows.append(
                [
                    LABELS.get(dataset, dataset),
                    f"**{result.name}**" if result.kind == "baseline" else result.name,
                    result.description,
                    report.main_metric,
                    format_metric(report.main_metric, values[report.main_metric]),
                    "" if change is None or result.name == "dense" else f"{100 * change:+.1f}%",
                    *(format_metric(m, values[m]) for m in recall),
                    f"{values['MRR@10']:.3f}",
                    f"{values['nDCG@10']:.3f}",
                    f"{1000 * result.seconds / max(result.queries, 1):.1f}",
                    str(len(result.misses)),
                ]
            )
    return markdown_table(header, rows, numeric_from=4)


def main_of(report: EvalReport | None, name: str) -> float | None:
    if report is None or report.result(name) is None:
        return None
    return report.result(name).metrics[report.main_metric]


def targets(reports: dict[str, EvalReport]) -> str:
    """The retrieval targets against the default hybrid, met or not."""
    rows = []
    codebase = main_of(reports.get("anthropic"), "hybrid")
    if codebase is not None:
        rows.append(["Codebase Pass@10 >= 90", f"{codebase:.2f}", _yes(codebase >= 90)])
    scifact = main_of(reports.get("scifact"), "hybrid")
    if scifact is not None:
        rows.append(["SciFact nDCG@10 >= 0.70", f"{scifact:.3f}", _yes(scifact >= 0.70)])
    changes = {d: r.versus("hybrid") for d, r in reports.items() if r.versus("hybrid") is not None}
    if changes:
        text = ", ".join(f"{LABELS[d]} {100 * c:+.1f}%" for d, c in changes.items())
        wins = sum(1 for c in changes.values() if c >= 0.20)
        rows.append(["hybrid >= +20% vs dense on 2 of 3 sets", text, _yes(wins >= 2)])
        never_worse = all(c >= 0 for c in changes.values())
        rows.append(["hybrid never worse than dense", text, _yes(never_worse)])
    nli = reports.get("contractnli")
    if nli is not None and "contractnli" in changes:
        hybrid, dense = main_of(nli, "hybrid"), main_of(nli, "dense")
        value = f"{nli.main_metric} {hybrid:.3f} vs {dense:.3f}"
        rows.append(["ContractNLI hybrid >= dense", value, _yes(changes["contractnli"] >= 0)])
    return markdown_table(["target (default hybrid)", "measured", "met"], rows, numeric_from=3)


def _yes(flag: bool) -> str:
    return "yes" if flag else "**no**"


def best_rows(reports: dict[str, EvalReport]) -> str:
    rows = []
    for dataset, report in reports.items():
        main = report.main_metric
        ranked = sorted(report.results, key=lambda r: -r.metrics[main])
        hierdoc = [r for r in ranked if r.kind == "hierdoc"]
        picks = [ranked[0], *hierdoc[:1]]
        cells = [f"{r.name} {format_metric(main, r.metrics[main])}" for r in picks]
        rows.append([LABELS[dataset], main, *cells, *[""] * (2 - len(cells))])
    return markdown_table(["dataset", "metric", "best overall", "best hierdoc variant"], rows, 4)


def notes(reports: dict[str, EvalReport]) -> list[str]:
    lines = []
    for dataset, report in reports.items():
        for note in report.notes:
            lines.append(f"- {LABELS[dataset]}: {note}")
        ingest = sum(i.ingest_seconds for i in report.indexes)
        embedded = sum(i.windows_embedded for i in report.indexes)
        lines.append(
            f"- {LABELS[dataset]}: {report.queries} queries, {report.documents} documents; "
            f"ingest this run {ingest:.0f} s, {embedded:,} windows embedded this run "
            "(0 = all from the cache)"
        )
    return lines


# -- the section --------------------------------------------------------------


def section(reports: dict[str, EvalReport], header: list[str]) -> str:
    parts = [
        SECTION,
        "",
        "```",
        "python benchmarks/eval_all.py --write",
        "```",
        "",
        "Each dataset is indexed with hierdoc's real pipeline (`Index.ingest_texts`, the local "
        "all-MiniLM-L6-v2) once per ingest setting, and every search-only variant reuses that "
        "index. Baselines run in the same process over the same chunks and the same vectors as "
        "the default index (read back from its SQLite records), with the same embedder: "
        "`dense` = brute-force cosine, a chunk scoring as its best window (as hierdoc); `bm25` = "
        "rank_bm25 BM25Okapi (k1=1.5, b=0.75) over lower-cased whitespace tokens; "
        "`bm25-numpy-rrf` = rank_bm25 + numpy + RRF as HoloDeck 0.7.1 ships it: cosine over "
        "each chunk's first window, rank_bm25 over `[a-zA-Z0-9]+` lower-cased tokens, top_k "
        "from each side fused by RRF (k=60, weights 0.5/0.3 normalised to 0.625/0.375), run "
        "once per cutoff k because its candidates depend on top_k; `bm25-numpy-rrf-semantic` / "
        "`-keyword` are its two sides alone. BM25 baselines index what hierdoc's BM25 indexes: "
        "structural context + newline + chunk text.",
        "",
        "Metrics: the codebase's R@k columns are Pass@k exactly as the cookbook computes it "
        "(per query, golden chunks found in the top k over golden chunks, matched by stripped "
        "content, mean x100); SciFact's are BEIR Recall@k and nDCG@10 (linear gain, log2 "
        "discount) by document, a document ranked where its first chunk is; ContractNLI's are "
        "span recall@k (gold evidence spans overlapped by one of the top k chunks, over the gold "
        "spans), each hypothesis (Entailment or Contradiction) searched within its own NDA, with "
        "MRR@10 / nDCG@10 over chunks that overlap a gold span. 'vs dense' is the relative "
        "change of the main metric against the `dense` baseline. ms/query is search only: "
        "query vectors are computed once before the methods run (hierdoc embeds its own "
        "expanded query when the glossary expands one, inside its time).",
        "",
        *header,
        "",
        combined_table(reports),
        "",
        "### Targets",
        "",
        targets(reports),
        "",
        best_rows(reports),
        "",
        *notes(reports),
        f"- {PUBLISHED}",
        "",
    ]
    return "\n".join(parts)


def replace_section(path: Path, text: str) -> None:
    """Replace the level-2 section titled SECTION (to the next level-2 heading or the end)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == SECTION), None)
    if start is None:
        body = "\n".join(lines).rstrip("\n") + "\n\n" + text.rstrip("\n") + "\n"
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines)
        )
        new = [*lines[:start], *text.rstrip("\n").splitlines(), *([""] if end < len(lines) else [])]
        body = "\n".join([*new, *lines[end:]]) + "\n"
    path.write_text(body, encoding="utf-8")


# -- main ---------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--datasets",
        type=Path,
        default=default_datasets(),
        help="datasets folder (default: $HIERDOC_DATASETS, here %(default)s)",
    )
    parser.add_argument("--only", default=",".join(DATASETS), help="comma-separated datasets")
    parser.add_argument("--variants", default="standard", help="variant names or groups")
    parser.add_argument("--baselines", default=",".join(BASELINES))
    parser.add_argument("--limit", type=int, help="first N queries per dataset (a smoke run)")
    parser.add_argument("--index-dir", default="/tmp/hierdoc-eval")
    parser.add_argument("--json-out", help="full reports with per-query misses (JSON)")
    parser.add_argument("--write", action="store_true", help="update BENCHMARKS.md")
    parser.add_argument(
        "--benchmarks", default=str(Path(__file__).resolve().parents[1] / "BENCHMARKS.md")
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    os.environ["HIERDOC_DATASETS"] = str(args.datasets)  # load_dataset reads it
    variants = resolve_variants(args.variants)
    baselines = [b for b in args.baselines.split(",") if b and b != "none"]
    started, load_start = time.perf_counter(), load_average()
    t0 = time.perf_counter()
    embedder = LocalEmbedder()
    model_s = time.perf_counter() - t0
    reports: dict[str, EvalReport] = {}
    for dataset in [d.strip() for d in args.only.split(",") if d.strip()]:
        corpus = load_dataset(dataset)
        directory = Path(args.index_dir) / INDEX_FOLDERS.get(dataset, dataset)
        reports[dataset] = run_eval(
            corpus, variants, baselines, directory, embedder, args.limit, log
        )
    import torch

    command = "python " + " ".join(shlex.quote(a) for a in [sys.argv[0], *sys.argv[1:]])
    header = [
        f"Date: {datetime.now(timezone.utc).isoformat(timespec='seconds')}",
        f"Machine: nproc {os.cpu_count()}, {cpu_model()}, torch threads "
        f"{torch.get_num_threads()}; load average (1/5/15 min) at start {load_start}, "
        f"at end {load_average()}",
        f"Versions: {versions()}",
        f"Command: `{command}`",
        f"Model: {embedder.name}, loaded in {model_s:.1f} s; whole run "
        f"{time.perf_counter() - started:.0f} s (indexes cached under {args.index_dir})",
    ]
    text = section(reports, header)
    print(text)
    if args.json_out:
        data = {d: r.to_dict() for d, r in reports.items()}
        Path(args.json_out).write_text(json.dumps(data, indent=1), encoding="utf-8")
    if args.write:
        replace_section(Path(args.benchmarks), text)
        log(f"wrote {SECTION!r} to {args.benchmarks}")


if __name__ == "__main__":
    main()
