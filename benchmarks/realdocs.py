"""Real documents: structure, definitions, citations and pages against gold files.

    python benchmarks/realdocs.py                      # every converter the settings accept
    python benchmarks/realdocs.py --misses             # also what each document missed
    python benchmarks/realdocs.py --doc nist-sp-800-63b --converter structured
    python benchmarks/realdocs.py --embedder minilm --json /tmp/realdocs.json

Reads every ``*.gold.yaml`` of ``--docs`` (default tests/realdocs), builds one index of all
the documents per converter value of ``IngestSettings.docx_converter``/``pdf_converter``
("markitdown", "structured": whichever exist), and prints a table per converter. The
metrics are defined in tests/realdocs/harness.py. Structure, definitions and citations do
not depend on the embedder; ``--embedder hash`` (the default) is a bag-of-words stand-in,
``minilm`` the real model (slow on this machine). pages/s always uses the stand-in.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.realdocs.harness, tests.hash_embedder

from hierdoc.pipeline.embed import Embedder, LocalEmbedder  # noqa: E402
from tests.realdocs.gold import DOCS_DIR, Gold, load_golds  # noqa: E402
from tests.realdocs.harness import DocumentScore, converter_values, measure_all  # noqa: E402

COLUMNS = (
    ("document", 44),
    ("fmt", 4),
    ("converter", 10),
    ("sec R", 6),
    ("head P", 6),
    ("def P", 6),
    ("def R", 6),
    ("cite@1", 6),
    ("cite id", 7),
    ("q@1", 5),
    ("q@5", 5),
    ("refs", 5),
    ("page", 6),
    ("pages/s", 7),
    ("ingest s", 8),
)


def cell(value: float | None, percent: bool = True) -> str:
    if value is None:
        return "n/a"
    return f"{100 * value:.0f}%" if percent else f"{value:.1f}"


def row(score: DocumentScore) -> list[str]:
    return [
        score.name,
        score.format,
        score.converter,
        cell(score.section_recall),
        cell(score.heading_precision),
        cell(score.definition_precision),
        cell(score.definition_recall),
        cell(score.citation_top1),
        cell(score.citation_section),
        cell(score.question_hit1),
        cell(score.question_hit5),
        cell(score.reference_resolution),
        cell(score.page_accuracy),
        cell(score.pages_per_second, percent=False),
        cell(score.ingest_seconds, percent=False),
    ]


def markdown_table(scores: list[DocumentScore]) -> str:
    """The table as BENCHMARKS.md shows it."""
    lines = ["| " + " | ".join(name for name, _ in COLUMNS) + " |"]
    lines.append("|---|---|---|" + "---:|" * (len(COLUMNS) - 3))
    lines += ["| " + " | ".join(row(score)) + " |" for score in scores]
    return "\n".join(lines)


def table(scores: list[DocumentScore]) -> str:
    lines = [
        " | ".join(name.ljust(width) for name, width in COLUMNS),
        "-|-".join("-" * width for _, width in COLUMNS),
    ]
    widths = [width for _, width in COLUMNS]
    for score in scores:
        lines.append(" | ".join(c.ljust(w) for c, w in zip(row(score), widths, strict=True)))
    return "\n".join(lines)


def misses(scores: list[DocumentScore]) -> str:
    lines = []
    for score in scores:
        for kind, items in score.misses.items():
            if items:
                shown = "; ".join(items[:12]) + (" ..." if len(items) > 12 else "")
                lines.append(f"{score.name} [{score.converter}] {kind} ({len(items)}): {shown}")
        lines += [f"{score.name} [{score.converter}] problem: {p}" for p in score.problems]
    return "\n".join(lines)


def check_counts(gold: Gold, score: DocumentScore) -> dict[str, tuple[int, int]]:
    """(passed, total) per kind of check for one document, as an outside tester counts."""
    required = [d for d in gold.definitions if not d.optional]
    kinds = {
        "sections": (score.section_recall, len(gold.sections)),
        "definitions": (score.definition_recall, len(required)),
        "citations": (score.citation_top1, len(gold.citations)),
        "questions@1": (score.question_hit1, len(gold.questions)),
        "questions@5": (score.question_hit5, len(gold.questions)),
        "references": (score.reference_resolution, len(gold.references)),
        "pages": (score.page_accuracy, len(gold.pages)),
    }
    return {k: (round((rate or 0) * n), n) for k, (rate, n) in kinds.items() if n}


def summary(golds: list[Gold], scores: list[DocumentScore]) -> str:
    """Checks passed per kind and overall (questions counted once, at hit@1)."""
    totals: dict[str, list[int]] = {}
    for gold, score in zip(golds, scores, strict=True):
        for kind, (right, n) in check_counts(gold, score).items():
            totals.setdefault(kind, [0, 0])
            totals[kind][0] += right
            totals[kind][1] += n
    counted = [v for k, v in totals.items() if k != "questions@5"]
    right, n = sum(v[0] for v in counted), sum(v[1] for v in counted)
    parts = [f"{k} {r}/{t}" for k, (r, t) in totals.items()]
    return f"checks {right}/{n} ({100 * right / max(n, 1):.0f}%): " + ", ".join(parts)


def make_embedder(name: str) -> Embedder | None:
    """None means the hash stand-in (the harness default)."""
    return LocalEmbedder() if name == "minilm" else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=Path, default=DOCS_DIR, help="folder of gold files")
    parser.add_argument("--embedder", choices=("hash", "minilm"), default="hash")
    parser.add_argument("--converter", action="append", help="only these converter values")
    parser.add_argument(
        "--doc",
        action="append",
        help="only these documents (gold names); citations then compete only among them",
    )
    parser.add_argument("--json", type=Path, help="write every figure (and misses) here")
    parser.add_argument("--misses", action="store_true", help="print what each one missed")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = parser.parse_args()

    golds = [g for g in load_golds(args.docs) if not args.doc or g.name in args.doc]
    if not golds:
        parser.error(f"no matching *.gold.yaml in {args.docs}")
    embedder = make_embedder(args.embedder)
    results: dict[str, list[DocumentScore]] = {}
    for converter in args.converter or converter_values():
        with tempfile.TemporaryDirectory() as folder:
            results[converter] = measure_all(golds, converter, Path(folder), embedder)
        print(f"\n## converter: {converter} (embedder: {args.embedder})\n")
        print((markdown_table if args.markdown else table)(results[converter]))
        print("\n" + summary(golds, results[converter]))
        if args.misses:
            print("\n" + misses(results[converter]))
    if args.json:
        payload = {c: [asdict(s) for s in scores] for c, scores in results.items()}
        args.json.write_text(json.dumps(payload, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
