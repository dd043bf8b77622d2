"""DOCX converters compared on structure fidelity and speed.

    python benchmarks/convert_docx.py              # markitdown, structured, docx2python, docling
    python benchmarks/convert_docx.py --misses     # also the gold numbers each one missed
    python benchmarks/convert_docx.py --runs 5     # median of 5 conversions per document

Documents: every ``tests/realdocs/*.gold.yaml`` whose document is a .docx (public contracts
numbered by Word) and the fixtures of ``tests/fixtures/docx`` (``gold.json``). Each
converter's Markdown goes through hierdoc's structure stage (``parse_sections``); the
figures use the realdocs harness's rules (``tests/realdocs/harness.py``):

- section recall: share of gold section numbers found as a section whose label (or its
  label qualified by its parents) is the number and whose title matches the gold heading;
- clean headings: share of sections whose heading and id hold no markup;
- ms/doc: median wall time of converting the document (structure stage excluded).

docx2python and docling are measured when importable (docling-slim's DOCX backend needs no
model weights; neither is a hierdoc dependency). Their HTML-ish or Markdown output is read
as Markdown, as markitdown's is.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.realdocs.harness

from hierdoc.models import SectionRecord  # noqa: E402
from hierdoc.pipeline.convert import convert_file  # noqa: E402
from hierdoc.pipeline.structure import parse_sections  # noqa: E402
from tests.realdocs.gold import GoldSection, load_golds  # noqa: E402
from tests.realdocs.harness import (  # noqa: E402
    heading_is_clean,
    id_is_clean,
    labelled_sections,
    matching_sections,
)

FIXTURES = ROOT / "tests" / "fixtures" / "docx"
Converter = Callable[[Path], str]


@dataclass
class Row:
    document: str
    converter: str
    gold: int
    found: int = 0
    sections: int = 0
    clean: int = 0
    ms: float = 0.0
    misses: list[str] = field(default_factory=list)


def gold_documents() -> list[tuple[Path, tuple[GoldSection, ...]]]:
    documents = [(g.document, g.sections) for g in load_golds() if g.format == "docx"]
    fixtures = json.loads((FIXTURES / "gold.json").read_text(encoding="utf-8"))
    for name, sections in fixtures.items():
        # "(a)" points are checked in tests/unit/test_convert_docx.py; here the clause numbers.
        numbered = tuple(GoldSection(n, h) for n, h in sections if not n.startswith("("))
        documents.append((FIXTURES / name, numbered))
    return documents


def converters() -> dict[str, Converter]:
    found: dict[str, Converter] = {
        "markitdown": lambda path: convert_file(path, docx_converter="markitdown").text,
        "structured": lambda path: convert_file(path, docx_converter="structured").text,
    }
    try:
        from docx2python import docx2python

        def with_docx2python(path: Path) -> str:
            with docx2python(path, html=True) as document:
                text = document.text
            return re.sub(r"<h([1-6])>(.*?)</h\1>", lambda m: "#" * int(m[1]) + " " + m[2], text)

        found["docx2python"] = with_docx2python
    except ImportError:
        pass
    try:
        from docling.document_converter import DocumentConverter

        docling = DocumentConverter()
        found["docling"] = lambda path: docling.convert(path).document.export_to_markdown()
    except ImportError:
        pass
    return found


def measure(
    path: Path, gold: tuple[GoldSection, ...], name: str, convert: Converter, runs: int
) -> Row:
    times, text = [], ""
    for _ in range(runs):
        started = time.perf_counter()
        text = convert(path)
        times.append(time.perf_counter() - started)
    records = [
        SectionRecord(
            str(path),
            s.section_id,
            s.heading,
            s.level,
            s.path[-1] if s.path else None,
            s.ordinal,
            s.kind,
            None,
            s.body,
        )
        for s in parse_sections(text, path.stem)
    ]
    sections = labelled_sections(records)
    body = [s for s in sections if s.record.kind != "preamble"]
    row = Row(path.name, name, len(gold), sections=len(body), ms=statistics.median(times) * 1e3)
    row.clean = sum(
        heading_is_clean(s.record.heading) and id_is_clean(s.record.section_id) for s in body
    )
    for section in gold:
        if matching_sections(sections, section.number, section.heading):
            row.found += 1
        else:
            row.misses.append(f"{section.number} {section.heading}")
    return row


def table(rows: list[Row]) -> str:
    lines = [
        "| document | converter | section recall | clean headings | ms/doc |",
        "|---|---|---:|---:|---:|",
    ]
    for row in rows:
        clean = f"{row.clean}/{row.sections}" if row.sections else "-"
        lines.append(
            f"| {row.document} | {row.converter} | {row.found}/{row.gold} "
            f"({row.found / row.gold:.0%}) | {clean} | {row.ms:.0f} |"
        )
    for name in dict.fromkeys(row.converter for row in rows):
        mine = [row for row in rows if row.converter == name]
        found, gold = sum(r.found for r in mine), sum(r.gold for r in mine)
        clean, total = sum(r.clean for r in mine), sum(r.sections for r in mine)
        ms = statistics.median(r.ms for r in mine)
        lines.append(
            f"| **all** | {name} | {found}/{gold} ({found / gold:.1%}) | "
            f"{clean}/{total} ({clean / max(total, 1):.0%}) | {ms:.0f} (median) |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--misses", action="store_true")
    args = parser.parse_args()
    available = converters()
    for convert in available.values():  # imports and first-use set-up are not timed
        convert(FIXTURES / "terms_direct.docx")
    rows = [
        measure(path, gold, name, convert, args.runs)
        for path, gold in gold_documents()
        for name, convert in available.items()
    ]
    print(table(rows))
    if args.misses:
        for row in rows:
            if row.misses:
                print(f"\n{row.document} / {row.converter}: " + "; ".join(row.misses))


if __name__ == "__main__":
    main()
