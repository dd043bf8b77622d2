"""Embedding precision: float32 against bfloat16 autocast, speed and fidelity.

The local model (all-MiniLM-L6-v2) runs under bfloat16 autocast where the CPU has
bfloat16 instructions (``HIERDOC_EMBED_PRECISION=auto``). This measures what that buys
and what it changes, with the two precisions loaded side by side:

* **ingest**: the PDFs (default: HR 8847 from ``$HIERDOC_DATASETS`` and NIST SP 800-63B)
  into a fresh index each time, the precisions alternating, ``--repeat`` rounds: wall
  seconds, the seconds inside spent embedding, windows per second, and the wall seconds
  per 100 pages;
* **fidelity**: every window embedded by both (the PDFs' chunks, as the ingest cut them):
  the cosine of each window's two vectors (minimum, 1st percentile, mean) and, using each
  window in turn as a query against all of them, how many of its float32 top 10 the
  bfloat16 vectors keep.

    python benchmarks/embed_precision.py --repeat 3
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import tempfile
import time
from contextlib import redirect_stdout
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pypdfium2

from hierdoc import Index, Settings
from hierdoc.eval.datasets import default_datasets
from hierdoc.models import EmbedInput
from hierdoc.pipeline.embed import LocalEmbedder, native_bfloat16

ROOT = Path(__file__).resolve().parents[1]
DATASETS = default_datasets()
PDFS = (
    DATASETS / "pdf" / "HR8847_CNIMDT_AIGCE_STD_Act.pdf",
    ROOT / "tests" / "realdocs" / "nist-sp-800-63b.pdf",
)
PRECISIONS = ("float32", "bfloat16")


class TimedEmbedder:
    """A local embedder with the seconds in ``embed_documents`` counted and the inputs kept."""

    def __init__(self, model: LocalEmbedder) -> None:
        self.model = model
        self.seconds = 0.0
        self.inputs: list[EmbedInput] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.model, name)

    def embed_documents(self, inputs: list[EmbedInput]) -> list[np.ndarray]:
        self.inputs.extend(inputs)
        started = time.perf_counter()
        try:
            return self.model.embed_documents(inputs)
        finally:
            self.seconds += time.perf_counter() - started


def ingest_once(path: Path, model: LocalEmbedder) -> tuple[dict[str, float], list[EmbedInput]]:
    embedder = TimedEmbedder(model)
    with tempfile.TemporaryDirectory() as folder:
        index = Index.open(Path(folder) / "index", Settings(), embedder=embedder)  # type: ignore[arg-type]
        with index, redirect_stdout(io.StringIO()):
            started = time.perf_counter()
            report = index.ingest([path])
            wall = time.perf_counter() - started
    assert not report.problems, report.problems
    row = {"wall": wall, "embed": embedder.seconds, "windows": report.texts_embedded}
    return row, embedder.inputs


def ingest_table(models: dict[str, LocalEmbedder], repeat: int) -> tuple[list[str], list]:
    rows = [
        "| PDF | pages | precision | ingest s (each run) | embedding s | windows/s"
        " | s per 100 pages |",
        "|---|---:|---|---|---:|---:|---:|",
    ]
    inputs: list[EmbedInput] = []
    for path in PDFS:
        pages = len(pypdfium2.PdfDocument(str(path)))
        runs: dict[str, list[dict[str, float]]] = {p: [] for p in PRECISIONS}
        for _ in range(repeat):
            for precision in PRECISIONS:
                row, seen = ingest_once(path, models[precision])
                runs[precision].append(row)
        inputs += seen
        for precision in PRECISIONS:
            best = min(runs[precision], key=lambda r: r["wall"])
            walls = " / ".join(f"{r['wall']:.1f}" for r in runs[precision])
            rows.append(
                f"| {path.stem[:28]} | {pages} | {precision} | {walls} | {best['embed']:.1f}"
                f" | {best['windows'] / best['embed']:.1f} | {100 * best['wall'] / pages:.1f} |"
            )
    return rows, inputs


def fidelity_table(models: dict[str, LocalEmbedder], inputs: list[EmbedInput]) -> list[str]:
    full = np.vstack(models["float32"].embed_documents(inputs))
    half = np.vstack(models["bfloat16"].embed_documents(inputs))
    cosines = (full * half).sum(axis=1)
    top_full = np.argsort(-(full @ full.T), axis=1)[:, :10]
    top_half = np.argsort(-(half @ full.T), axis=1)[:, :10]
    kept = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(top_full, top_half, strict=True)])
    return [
        "| windows | cosine min | cosine 1st pct | cosine mean | float32 top 10 kept |",
        "|---:|---:|---:|---:|---:|",
        f"| {len(full)} | {cosines.min():.6f} | {np.percentile(cosines, 1):.6f}"
        f" | {cosines.mean():.6f} | {kept:.4f} |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="ingest rounds per precision")
    args = parser.parse_args()
    models = {p: LocalEmbedder(precision=p) for p in PRECISIONS}
    for model in models.values():
        model.embed_query("warm-up")
    lines = [
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.machine()},"
        f" {os.cpu_count()} cores, native bfloat16: {native_bfloat16()}",
        "",
    ]
    rows, inputs = ingest_table(models, args.repeat)
    lines += [*rows, "", *fidelity_table(models, inputs)]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
