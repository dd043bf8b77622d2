"""Definitions precision and recall per document, optionally beside the code at a revision.

    python benchmarks/definitions.py                       # the code in this checkout
    python benchmarks/definitions.py --before REV          # and the code at a revision
    python benchmarks/definitions.py --before REV --wrong  # list what each got wrong
    python benchmarks/definitions.py --old-extractor REV   # only the extractor from REV

Documents: every gold file of benchmarks/definitions_gold/ (its ``document`` is a file of
``docs/`` beside it, committed with its source and licence in ``docs/SOURCES.md``, or a path
in ``$HIERDOC_DATASETS``; one that is absent is skipped) and every real document of
tests/realdocs with a gold file.
Each is converted, split into sections and chunks and extracted exactly as ``hierdoc
ingest`` does (no embedding), in a child process whose ``PYTHONPATH`` is the checkout's
``src`` (for ``--before``, a ``git worktree`` of the revision under /tmp). A stored
definition is right, and recall counted, as ``tests/realdocs/harness.py`` defines it: the
term is a gold term and the gold start begins within the first 100 characters of its
definition; precision is right / stored.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent


GOLD_DIR = Path(__file__).resolve().parent / "definitions_gold"


@dataclass(frozen=True)
class Document:
    name: str
    path: Path
    gold: tuple[Any, ...]  # tests.realdocs.harness.GoldDefinition
    group: str  # the pooled row it counts in


@dataclass(frozen=True)
class Score:
    found: int
    precision: float
    recall: float
    wrong: list[str]
    missed: list[str]


def documents() -> list[Document]:
    # Imported here, not at the top: the child process runs another checkout's hierdoc.
    from hierdoc.eval.datasets import default_datasets
    from tests.realdocs.gold import DOCS_DIR, GoldDefinition, load_golds

    found = []
    for gold_file in sorted(GOLD_DIR.glob("*.gold.yaml")):
        data = yaml.safe_load(gold_file.read_text(encoding="utf-8"))
        local = GOLD_DIR / data["document"]
        path = local if local.exists() else default_datasets() / data["document"]
        gold = tuple(
            GoldDefinition(str(d["term"]), str(d["starts"]), bool(d.get("optional")))
            for d in data["definitions"]
        )
        if path.exists():
            name = gold_file.name.removesuffix(".gold.yaml")
            found.append(Document(name, path, gold, "definitions_gold documents"))
    found += [
        Document(g.name, g.document, g.definitions, "tests/realdocs documents")
        for g in load_golds(DOCS_DIR)
    ]
    return found


def extracted(paths: list[Path]) -> dict[str, list[tuple[str, str]]]:
    """(term, definition) pairs the importable hierdoc stores for each file (child side)."""
    from hierdoc.pipeline.chunk import chunk_document
    from hierdoc.pipeline.convert import convert_file
    from hierdoc.pipeline.extract.document import extract_document
    from hierdoc.pipeline.structure import parse_sections
    from hierdoc.text.tokenizer import default_tokenizer

    tokenizer = default_tokenizer()
    result = {}
    for path in paths:
        document = convert_file(path)
        sections = parse_sections(document.text, document.title)
        chunks = chunk_document(document, sections, tokenizer)
        _, extraction = extract_document(sections, chunks)
        result[str(path)] = [(d.term, d.definition) for d in extraction.definitions]
    return result


def run_code(src: Path, paths: list[Path]) -> dict[str, list[tuple[str, str]]]:
    """Extraction by the hierdoc in ``src``, in a child process."""
    env = {**os.environ, "PYTHONPATH": str(src), "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, __file__, "--child", *map(str, paths)]
    output = subprocess.run(command, env=env, capture_output=True, text=True)
    if output.returncode:
        raise SystemExit(f"extraction by {src} failed:\n{output.stderr[-2000:]}")
    return {k: [tuple(p) for p in v] for k, v in json.loads(output.stdout).items()}


def worktree(revision: str) -> Path:
    """A checkout of ``revision`` under /tmp (made once), to measure beside this one."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", revision],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    path = Path(f"/tmp/hierdoc-definitions-{commit}")
    if not path.exists():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), commit],
            check=True,
            capture_output=True,
        )
    return path


def old_extractor(revision: str) -> Path:
    """This checkout's code with the definition extractor of ``revision``: the same
    conversion and structure, so only the extractor differs."""
    old = worktree(revision) / "src"
    overlay = Path(f"/tmp/hierdoc-definitions-extractor-{old.parent.name.rsplit('-', 1)[-1]}")
    shutil.rmtree(overlay, ignore_errors=True)
    shutil.copytree(ROOT / "src", overlay / "src")
    extract = overlay / "src" / "hierdoc" / "pipeline" / "extract"
    for module in extract.glob("definition_*.py"):
        module.unlink()
    shutil.copy(old / "hierdoc" / "pipeline" / "extract" / "definitions.py", extract)
    document = extract / "document.py"
    text = document.read_text(encoding="utf-8")
    for line in (
        "from .definition_pointers import resolve_pointers\n",
        "    extraction.definitions = resolve_pointers(extraction.definitions, sections)\n",
    ):
        text = text.replace(line, "")
    document.write_text(text, encoding="utf-8")
    return overlay / "src"


def score(document: Document, found: list[tuple[str, str]]) -> Score:
    from tests.realdocs.harness import defines

    right = [(t, d) for t, d in found if any(defines(g, t, d) for g in document.gold)]
    required = [g for g in document.gold if not g.optional]
    missed = [g.term for g in required if not any(defines(g, t, d) for t, d in right)]
    return Score(
        found=len(found),
        precision=len(right) / len(found) if found else 1.0,
        recall=1 - len(missed) / len(required),
        wrong=[f"{t} = {d[:70]}" for t, d in found if (t, d) not in right],
        missed=missed,
    )


def table(docs: list[Document], runs: dict[str, dict[str, list[tuple[str, str]]]]) -> str:
    header = f"{'document':44} {'gold':>4}"
    for label in runs:
        header += f" | {label + ' found':>11} {'P':>6} {'R':>6}"
    lines = [header, "-" * len(header)]
    pooled = [
        (f"all {label} (pooled)", [d for d in docs if d.group == label])
        for label in dict.fromkeys(d.group for d in docs)
    ]
    for name, group in [(d.name, [d]) for d in docs] + pooled:
        line = f"{name:44} {sum(len(d.gold) for d in group):>4}"
        for found in runs.values():
            scores = [score(d, found[str(d.path)]) for d in group]
            line += _cells(scores, [len([g for g in d.gold if not g.optional]) for d in group])
        lines.append(line)
    return "\n".join(lines)


def _cells(scores: list[Score], required: list[int]) -> str:
    """Found, precision and recall, pooled over documents (right / found, hits / needed)."""
    found = sum(s.found for s in scores)
    right = sum(s.found - len(s.wrong) for s in scores)
    needed = sum(required)
    hits = needed - sum(len(s.missed) for s in scores)
    precision = right / found if found else 1.0
    return f" | {found:>11} {precision:>6.1%} {hits / needed:>6.1%}"


def details(docs: list[Document], runs: dict[str, dict[str, list[tuple[str, str]]]]) -> str:
    lines = []
    for document in docs:
        for label, found in runs.items():
            result = score(document, found[str(document.path)])
            lines.append(
                f"\n{document.name} ({label}): wrong {len(result.wrong)}, missed "
                f"{len(result.missed)}"
            )
            lines += [f"  wrong:  {item}" for item in result.wrong]
            lines += [f"  missed: {item}" for item in result.missed]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="a git revision whose code to measure as well")
    parser.add_argument(
        "--old-extractor",
        help="a git revision whose definition extractor to measure on this checkout's "
        "conversion and structure",
    )
    parser.add_argument("--wrong", action="store_true", help="list wrong and missed terms")
    parser.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(extracted([Path(p) for p in args.child]), ensure_ascii=False))
        return
    sys.path.insert(0, str(ROOT))  # tests.realdocs.harness
    docs = documents()
    paths = [d.path for d in docs]
    runs = {}
    if args.before:
        runs["before"] = run_code(worktree(args.before) / "src", paths)
    if args.old_extractor:
        runs["old extr."] = run_code(old_extractor(args.old_extractor), paths)
    runs["now"] = run_code(ROOT / "src", paths)
    print(table(docs, runs))
    if args.wrong:
        print(details(docs, runs))


if __name__ == "__main__":
    main()
