"""PDF conversion: speed and structure per converter, and HR 8847 ingest old vs new.

Converters, each on every PDF (HR 8847 from ``$HIERDOC_DATASETS``, the NIST PDFs in
tests/realdocs, the Federal Register pages in tests/fixtures/pdf):

* ``markitdown``: the ``pdf_converter: markitdown`` path (markitdown -> pdfminer.six);
* ``structured``: hierdoc.pipeline.convert_pdf (pypdfium2 boxes, layout rebuilt);
* for speed only: ``pdfplumber`` (``extract_text`` per page) and raw ``pypdfium2``
  (``get_text_range`` per page, no layout).

Per converter and PDF: pages/s (best of ``--repeat`` wall times, and CPU seconds of that
run), and structure measures on what the structure parser (hierdoc.pipeline.structure)
finds in the text: numbered sections (kinds other than heading, enum, preamble), headings,
enumerated points; and **running lines left**: how often a line that recurs on at least
30% (and 3) of the pages of the PDF's raw PDFium text (digits ignored) is still in the
output (running heads, footers, margin stamps). For the structured converter, **page
accuracy**: share of chunks whose first line is in PDFium's raw text of their
``page_start`` and last line in that of their ``page_end``.

Ingest: HR 8847 into a fresh index with the real local model (all-MiniLM-L6-v2, no LLM,
structural contexts), once per converter, alternating, ``--ingest-repeat`` times: wall
and CPU seconds, the seconds inside it spent converting and embedding, the rest, windows
embedded and chunks.

    python benchmarks/convert_pdf.py --repeat 3 --ingest-repeat 2 --out convert_pdf.md
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from contextlib import redirect_stdout
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

import pypdfium2

import hierdoc.pipeline.ingest
from hierdoc import Index, Settings
from hierdoc.eval.datasets import default_datasets
from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.convert import convert_file
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer

ROOT = Path(__file__).resolve().parents[1]
DATASETS = default_datasets()
REALDOCS = ROOT / "tests" / "realdocs"
FEDERAL_REGISTER = ROOT / "tests" / "fixtures" / "pdf" / "federal-register-2020-17221-p2-5.pdf"
PDFS = (
    ("HR 8847", DATASETS / "pdf" / "HR8847_CNIMDT_AIGCE_STD_Act.pdf"),
    ("NIST FIPS 200", REALDOCS / "nist-fips-200.pdf"),
    ("NIST SP 800-63B", REALDOCS / "nist-sp-800-63b.pdf"),
    ("Federal Register p. 2-5", FEDERAL_REGISTER),
)
STRUCTURE_FREE = {"heading", "enum", "preamble"}
_DIGITS = re.compile(r"\d+")


def _pdfplumber(path: Path) -> str:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return "\n\n".join(page.extract_text() or "" for page in pdf.pages)


def _pdfium_raw(path: Path) -> str:
    return "\n\n".join(_raw_pages(path))


def _raw_pages(path: Path) -> list[str]:
    document = pypdfium2.PdfDocument(str(path))
    try:
        return [page.get_textpage().get_text_range().replace("\r\n", "\n") for page in document]
    finally:
        document.close()


CONVERTERS: dict[str, Callable[[Path], str]] = {
    "markitdown": lambda p: convert_file(p, pdf_converter="markitdown").text,
    "structured": lambda p: convert_file(p, pdf_converter="structured").text,
    "pdfplumber": _pdfplumber,
    "pypdfium2 raw": _pdfium_raw,
}
STRUCTURE_CONVERTERS = ("markitdown", "structured")


def _key(line: str) -> str:
    return " ".join(_DIGITS.sub("#", line.lower()).split())


def running_lines(pages: list[str]) -> set[str]:
    """Lines (digits ignored) that recur on at least 30% and 3 of the pages."""
    counts = Counter(key for page in pages for key in {_key(x) for x in page.split("\n")})
    needed = max(3, 0.3 * len(pages))
    return {key for key, n in counts.items() if n >= needed and len(key) > 3}


def timed(convert: Callable[[Path], str], path: Path, repeat: int) -> tuple[str, float, float]:
    """The text and the best wall time of ``repeat`` runs, with that run's CPU seconds."""
    best = (float("inf"), 0.0)
    text = ""
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        text = convert(path)
        run = (time.perf_counter() - wall, time.process_time() - cpu)
        best = min(best, run)
    return text, best[0], best[1]


def structure(text: str, stem: str) -> tuple[int, int, int]:
    from hierdoc.pipeline.convert import choose_title

    kinds = Counter(s.kind for s in parse_sections(text, choose_title(text, None, stem)))
    numbered = sum(n for kind, n in kinds.items() if kind not in STRUCTURE_FREE)
    return numbered, kinds["heading"], kinds["enum"]


def page_accuracy(path: Path, pages: list[str]) -> tuple[int, int]:
    """Chunks whose first and last lines are on their page_start and page_end, of those checked."""
    folded = [" ".join(page.split()) for page in pages]
    document = convert_file(path, pdf_converter="structured")
    chunks = chunk_document(
        document, parse_sections(document.text, document.title), default_tokenizer()
    )
    right = checked = 0
    for chunk in chunks:
        lines = [x.lstrip("#- ").strip() for x in chunk.content.splitlines()]
        first, last = " ".join(lines[0].split())[:30], " ".join(lines[-1].split())[-30:]
        if " | " in first + last or min(len(first), len(last)) < 12:
            continue
        checked += 1
        start, end = chunk.page_start or 0, chunk.page_end or 0
        right += first in folded[start - 1] and last in folded[end - 1]
    return right, checked


def conversion_table(repeat: int) -> list[str]:
    rows = [
        "| PDF | pages | converter | s (best) | CPU s | pages/s | numbered sections"
        " | headings | points | running lines left | page accuracy |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, path in PDFS:
        if not path.exists():
            print(f"skipped (not found): {path}", file=sys.stderr)
            continue
        pages = _raw_pages(path)
        running = running_lines(pages)
        for name, convert in CONVERTERS.items():
            text, wall, cpu = timed(convert, path, repeat)
            cells = [label, str(len(pages)), name, f"{wall:.2f}", f"{cpu:.2f}"]
            cells.append(f"{len(pages) / wall:.1f}")
            if name in STRUCTURE_CONVERTERS:
                numbered, headings, points = structure(text, path.stem)
                left = sum(_key(line) in running for line in text.split("\n"))
                cells += [str(numbered), str(headings), str(points), str(left)]
            else:
                cells += ["", "", "", ""]
            if name == "structured":
                right, checked = page_accuracy(path, pages)
                cells.append(f"{right}/{checked}")
            else:
                cells.append("")
            rows.append("| " + " | ".join(cells) + " |")
            print(rows[-1], file=sys.stderr)
    return rows


class TimedEmbedder:
    """The shared model, with the seconds spent in ``embed_documents`` counted."""

    def __init__(self, model: object) -> None:
        self.model = model
        self.seconds = 0.0

    def __getattr__(self, name: str) -> object:
        return getattr(self.model, name)

    def embed_documents(self, inputs: object) -> object:
        started = time.perf_counter()
        try:
            return self.model.embed_documents(inputs)  # type: ignore[attr-defined]
        finally:
            self.seconds += time.perf_counter() - started


def ingest_once(path: Path, converter: str) -> dict[str, float]:
    """Wall and CPU seconds of Index.ingest, the conversion and embedding seconds inside
    it, windows embedded and chunks."""
    spent = [0.0]
    original = hierdoc.pipeline.ingest.convert_file

    def timed_convert(*args: object, **kwargs: object) -> object:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - started

    hierdoc.pipeline.ingest.convert_file = timed_convert  # type: ignore[assignment]
    embedder = TimedEmbedder(_model())
    try:
        with tempfile.TemporaryDirectory() as folder:
            settings = Settings(pdf_converter=converter)
            with Index.open(Path(folder) / "index", settings, embedder=embedder) as index:
                wall, cpu = time.perf_counter(), time.process_time()
                with redirect_stdout(io.StringIO()):
                    report = index.ingest([path])
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                assert not report.problems, report.problems
    finally:
        hierdoc.pipeline.ingest.convert_file = original  # type: ignore[assignment]
    return {
        "wall": wall,
        "cpu": cpu,
        "convert": spent[0],
        "embed": embedder.seconds,
        "windows": report.texts_embedded,
        "chunks": report.chunks_written,
    }


_MODEL: list[object] = []


def _model() -> object:
    if not _MODEL:
        from hierdoc.pipeline.embed import LocalEmbedder

        _MODEL.append(LocalEmbedder())
    return _MODEL[0]


def ingest_table(repeat: int) -> list[str]:
    label, path = PDFS[0]
    ingest_once(path, "structured")  # warm-up: model, tokenizer, imports
    runs: list[tuple[str, dict[str, float]]] = []
    for _ in range(repeat):
        for converter in ("markitdown", "structured"):
            runs.append((converter, ingest_once(path, converter)))
            print(converter, runs[-1][1], file=sys.stderr)
    rows = [
        f"| {label} ingest, no LLM | ingest s | CPU s | conversion s | embedding s"
        " | rest s | windows | chunks |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for converter, run in sorted(runs, key=lambda item: item[0]):
        rest = run["wall"] - run["convert"] - run["embed"]
        rows.append(
            f"| {converter} | {run['wall']:.1f} | {run['cpu']:.1f} | {run['convert']:.2f}"
            f" | {run['embed']:.1f} | {rest:.1f} | {run['windows']:.0f} | {run['chunks']:.0f} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="conversion runs per PDF (best)")
    parser.add_argument("--ingest-repeat", type=int, default=2, help="ingests per converter")
    parser.add_argument("--no-ingest", action="store_true", help="skip the ingest comparison")
    parser.add_argument("--no-convert", action="store_true", help="skip the conversion table")
    parser.add_argument("--out", type=Path, help="also write the tables to this file")
    args = parser.parse_args()
    lines = [
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.machine()},"
        f" {os.cpu_count()} cores, pypdfium2 {metadata.version('pypdfium2')},"
        f" markitdown {metadata.version('markitdown')},"
        f" pdfminer.six {metadata.version('pdfminer.six')}",
    ]
    if not args.no_convert:
        lines += ["", *conversion_table(args.repeat)]
    if not args.no_ingest:
        lines += ["", *ingest_table(args.ingest_repeat)]
    output = "\n".join(lines)
    print(output)
    if args.out:
        args.out.write_text(output + "\n")


if __name__ == "__main__":
    main()
