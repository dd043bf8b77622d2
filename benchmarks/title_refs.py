"""References to sections by title, found in real documents, each with its sentence.

    python benchmarks/title_refs.py                     # tests/realdocs and the GDPR
    python benchmarks/title_refs.py path/to/doc.docx ... --context 60

Converts and parses each document as ingest does (structured converters), runs the
extract stage and prints every cross-reference that :mod:`hierdoc.pipeline.extract.
title_refs` found (a title after a cue word, "as described in Confidentiality"), with
the text around it and the section it links to, then the count per document and in
all: the lines to read for precision. Numbered references are counted beside them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hierdoc.config import ChunkingSettings
from hierdoc.eval.datasets import default_datasets
from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.convert import SUPPORTED_SUFFIXES, convert_file
from hierdoc.pipeline.extract.crossrefs import find_references
from hierdoc.pipeline.extract.document import extract_document
from hierdoc.pipeline.extract.title_refs import (
    find_title_references,
    overlapping,
    title_index,
)
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer

REPO = Path(__file__).resolve().parents[1]


def default_documents() -> list[Path]:
    real = sorted(
        p
        for p in (REPO / "tests" / "realdocs").iterdir()
        if p.suffix in SUPPORTED_SUFFIXES and p.name != "SOURCES.md"
    )
    gdpr = default_datasets() / "gdpr" / "gdpr.md"
    return real + ([gdpr] if gdpr.exists() else [])


def title_references(path: Path, context: int) -> tuple[list[str], int]:
    """Lines describing each reference by title in ``path`` (found as the extract stage
    finds them: after the numbered ones, not overlapping them), and the count of the
    numbered ones."""
    document = convert_file(path)
    sections = parse_sections(document.text, document.title)
    chunks = chunk_document(document, sections, default_tokenizer(), ChunkingSettings())
    _, extraction = extract_document(sections, chunks)
    ids = title_index(sections, document.title)
    defined = {" ".join(d.term.casefold().split()) for d in extraction.definitions}
    lines = []
    for section in sections:
        text = section.heading_line + section.body
        spans = [(r.start, r.end) for r in find_references(text)]
        for ref in find_title_references(text, ids, section.section_id, defined):
            if overlapping(spans, ref.start, ref.end):
                continue
            around = text[max(0, ref.start - context) : ref.end + context]
            lines.append(
                f"  {section.section_id} -> {ref.section_id}: …{' '.join(around.split())}…"
            )
    return lines, len(extraction.references) - len(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("documents", nargs="*", type=Path)
    parser.add_argument("--context", type=int, default=50, help="characters shown each side")
    args = parser.parse_args(argv)
    total = numbered_total = 0
    for path in args.documents or default_documents():
        lines, numbered = title_references(path, args.context)
        total += len(lines)
        numbered_total += numbered
        print(f"{path.name}: {len(lines)} by title, {numbered} numbered")
        print("\n".join(lines))
    print(f"all: {total} references by title, {numbered_total} numbered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
