"""Converters compared on the labelled corpus: section-tree accuracy and speed per format.

    python benchmarks/converters.py                       # PDF, HTML and DOCX
    python benchmarks/converters.py --format pdf --repeat 3
    python benchmarks/converters.py --extra-path DIR      # libraries installed apart

Each converter turns every document of one format of the labelled corpus
(``benchmarks/structure.py``: the archives under ``benchmarks/``) into text; the text is
written to a file (``.md`` for converters that give Markdown headings, ``.txt`` for plain
text) and measured exactly as ``benchmarks/structure.py`` measures a document (one index,
hash stand-in embedder): section ids and tree F1, heading, definitions P/R, citation@1. Speed is the
conversion alone: CPU seconds, best of ``--repeat`` runs over all the format's documents,
as pages per second for PDF and thousand characters of output per second otherwise.

Converters:

pdf
    ``structured`` (hierdoc.pipeline.convert_pdf: PDFium boxes, layout, headings,
    furniture), ``markitdown`` (the ``pdf_converter: markitdown`` path: pdfminer.six),
    ``pdfplumber`` (``extract_text`` per page), ``pypdfium2`` (the text page's
    ``get_text_range`` per page), ``docling-parse`` (its text lines per page; measured
    when the package imports).
html
    ``markitdown`` (the product's path: BeautifulSoup and markdownify), ``lxml`` and
    ``selectolax`` (the same small walk over the parsed tree: ``h1``-``h6`` to Markdown
    headings, block elements to paragraphs, table rows to cells joined by ``|``).
docx
    ``structured`` (hierdoc.pipeline.convert_docx, the default) and ``markitdown``
    (mammoth), the two values of ``docx_converter``.

``--extra-path`` appends a folder to ``sys.path`` (after the environment's own packages),
for candidates installed apart with ``pip install --target DIR docling-parse selectolax``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from structure import (  # noqa: E402
    ARCHIVE,
    DEFAULT_CACHE,
    PDF_ARCHIVE,
    figures,
    measure,
    total,
)
from structure_gold import LabelledDocument, load_corpus, unpack  # noqa: E402

from hierdoc.pipeline.convert import convert_file  # noqa: E402
from tests.realdocs.harness import pdf_pages  # noqa: E402

Converter = Callable[[Path], str]
_BLOCKS = frozenset({"p", "li", "dt", "dd", "pre", "blockquote", "caption", "address"})
_SKIPPED = frozenset({"script", "style", "nav", "head", "noscript", "template"})


# PDF


def pdf_structured(path: Path) -> str:
    from hierdoc.pipeline.convert_pdf import convert_pdf

    return convert_pdf(path).text


def pdf_markitdown(path: Path) -> str:
    return convert_file(path, pdf_converter="markitdown").text


def pdf_pdfplumber(path: Path) -> str:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return "\n\n".join(page.extract_text() or "" for page in pdf.pages)


def pdf_pypdfium2(path: Path) -> str:
    import pypdfium2

    document = pypdfium2.PdfDocument(str(path))
    try:
        return "\n\n".join(page.get_textpage().get_text_range() for page in document)
    finally:
        document.close()


def pdf_docling_parse(path: Path) -> str:
    from docling_core.types.doc.page import TextCellUnit
    from docling_parse.pdf_parser import DoclingPdfParser

    document = DoclingPdfParser(loglevel="fatal").load(path_or_stream=str(path))
    return "\n\n".join(
        "\n".join(cell.text for cell in page.iterate_cells(unit_type=TextCellUnit.LINE))
        for _, page in document.iterate_pages()
    )


# HTML


def html_markitdown(path: Path) -> str:
    return convert_file(path).text


def html_lxml(path: Path) -> str:
    import lxml.html

    root = lxml.html.fromstring(path.read_bytes())
    lines: list[str] = []
    _walk_lxml(root, lines)
    return "\n\n".join(lines) + "\n"


def _walk_lxml(element, lines: list[str]) -> None:
    for child in element:
        tag = child.tag if isinstance(child.tag, str) else ""
        if tag in _SKIPPED:
            continue
        text = " ".join(child.text_content().split())
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            lines.append(f"{'#' * int(tag[1])} {text}")
        elif tag in _BLOCKS:
            lines.append(text)
        elif tag == "tr":
            lines.append(" | ".join(" ".join(c.text_content().split()) for c in child))
        else:
            _walk_lxml(child, lines)


def html_selectolax(path: Path) -> str:
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(path.read_bytes())
    lines: list[str] = []
    _walk_selectolax(tree.body, lines)
    return "\n\n".join(lines) + "\n"


def _walk_selectolax(node, lines: list[str]) -> None:
    for child in node.iter(include_text=False):
        tag = child.tag
        if tag in _SKIPPED:
            continue
        text = " ".join(child.text(separator=" ").split())
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            lines.append(f"{'#' * int(tag[1])} {text}")
        elif tag in _BLOCKS:
            lines.append(text)
        elif tag == "tr":
            cells = child.iter(include_text=False)
            lines.append(" | ".join(" ".join(c.text(separator=" ").split()) for c in cells))
        else:
            _walk_selectolax(child, lines)


# DOCX


def docx_structured(path: Path) -> str:
    return convert_file(path, docx_converter="structured").text


def docx_markitdown(path: Path) -> str:
    return convert_file(path, docx_converter="markitdown").text


#: Per format: converter name -> (function, whether it gives Markdown headings).
CONVERTERS: dict[str, dict[str, tuple[Converter, bool]]] = {
    "pdf": {
        "structured": (pdf_structured, True),
        "markitdown": (pdf_markitdown, False),
        "pdfplumber": (pdf_pdfplumber, False),
        "pypdfium2": (pdf_pypdfium2, False),
        "docling-parse": (pdf_docling_parse, False),
    },
    "html": {
        "markitdown": (html_markitdown, True),
        "lxml": (html_lxml, True),
        "selectolax": (html_selectolax, True),
    },
    "docx": {
        "structured": (docx_structured, True),
        "markitdown": (docx_markitdown, True),
    },
}


@dataclasses.dataclass
class Row:
    format: str
    converter: str
    documents: int
    figures: dict[str, float | None]
    seconds: float
    units: float
    unit: str
    failed: int


def timed(convert: Converter, documents: list[LabelledDocument], repeat: int) -> tuple:
    """The texts (None where the converter failed) and the best CPU seconds of ``repeat``
    runs over all documents."""
    best, texts = float("inf"), []
    for _ in range(repeat):
        texts = []
        start = time.process_time()
        for doc in documents:
            try:
                texts.append(convert(doc.document))
            except Exception as error:  # a candidate library's failure is a result
                print(f"  {doc.id}: {type(error).__name__}: {error}", file=sys.stderr)
                texts.append(None)
        best = min(best, time.process_time() - start)
    return texts, best


def measure_converter(
    fmt: str, name: str, documents: list[LabelledDocument], repeat: int, folder: Path
) -> Row:
    convert, markdown = CONVERTERS[fmt][name]
    texts, seconds = timed(convert, documents, repeat)
    written = []
    for doc, text in zip(documents, texts, strict=True):
        if text is None or not text.strip():
            continue
        target = folder / fmt / name / f"{doc.id}.{'md' if markdown else 'txt'}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(dataclasses.replace(doc, document=target))
    (folder / f"{fmt}-{name}-index").mkdir()
    results = measure(written, folder / f"{fmt}-{name}-index") if written else []
    failed = len(documents) - len(written)
    if fmt == "pdf":
        units, unit = sum(pdf_pages(d.document) for d in documents), "pages/s"
    else:
        units, unit = sum(len(t or "") for t in texts) / 1000, "k chars/s"
    counts = total(results)
    measured = {d.id for d in written}  # a failed document counts as one with no section
    counts.gold_sections += sum(len(d.sections) for d in documents if d.id not in measured)
    return Row(fmt, name, len(documents), figures(counts), seconds, units, unit, failed)


def available(fmt: str, name: str) -> bool:
    modules = {"docling-parse": "docling_parse", "selectolax": "selectolax"}
    if name not in modules:
        return True
    try:
        __import__(modules[name])
    except ImportError:
        return False
    return True


def cell(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.0f}%"


def table(rows: list[Row]) -> str:
    header = (
        "| format | converter | docs | id F1 | tree F1 | heading | def P | def R | cite@1 "
        "| speed | failed |"
    )
    lines = [header, "|" + "---|" * 11]
    for row in rows:
        f = row.figures
        speed = f"{row.units / row.seconds:,.0f} {row.unit}" if row.seconds else "n/a"
        lines.append(
            f"| {row.format} | {row.converter} | {row.documents} | {cell(f['id_f1'])} "
            f"| {cell(f['tree_f1'])} | {cell(f['heading'])} | {cell(f['def_p'])} "
            f"| {cell(f['def_r'])} | {cell(f['cite1'])} "
            f"| {speed} | {row.failed} |"
        )
    return "\n".join(lines)


def corpus(cache: Path) -> list[LabelledDocument]:
    return [
        doc
        for archive in (ARCHIVE, PDF_ARCHIVE)
        if archive.is_file()
        for doc in load_corpus(unpack(archive, cache))
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--format", action="append", choices=sorted(CONVERTERS), default=[])
    parser.add_argument("--converter", action="append", default=[], help="only these")
    parser.add_argument("--repeat", type=int, default=2, help="conversion runs (best CPU)")
    parser.add_argument("--extra-path", type=Path, help="folder appended to sys.path")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args(argv)
    if args.extra_path:
        sys.path.append(str(args.extra_path))
    documents = corpus(args.cache)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for fmt in args.format or sorted(CONVERTERS):
            chosen = [d for d in documents if d.format == fmt]
            for name in CONVERTERS[fmt]:
                if args.converter and name not in args.converter:
                    continue
                if not available(fmt, name):
                    print(f"{fmt} {name}: not installed, left out", file=sys.stderr)
                    continue
                rows.append(measure_converter(fmt, name, chosen, args.repeat, Path(folder)))
                print(table(rows[-1:]).splitlines()[-1], flush=True)
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(f"\n{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {when}")
    print(table(rows))


if __name__ == "__main__":
    main()
