"""Ingest throughput: wall time, time inside the embedder and the share of
everything else, with the real model, on HR 8847 (a 78-page PDF) and a folder of real
contracts (the 123 ContractNLI test NDAs as text files).

Each variant runs in a process of its own, alternating, with the model loaded before the
clock starts: this checkout, and with ``--before SRC`` another checkout's ``src`` (e.g. a
``git worktree`` of the commit before a change), so that before and after share the
machine's load. ``--profile`` prints instead where the time goes besides embedding
(cProfile, a stand-in embedder that costs nothing).

    python benchmarks/ingest_profile.py [--before [NAME=]/tmp/before/src ...] [--repeat 2]
    python benchmarks/ingest_profile.py --free ...   # everything but embedding, same table
    python benchmarks/ingest_profile.py --profile [--corpus pdf]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

HR8847 = Path("pdf", "HR8847_CNIMDT_AIGCE_STD_Act.pdf")
CONTRACTNLI = Path("contractnli", "test.json")
CORPORA = ("pdf", "ndas")


class TimedEmbedder:
    """The embedder, with the seconds spent inside ``embed_documents`` counted."""

    def __init__(self, inner: object) -> None:
        self._inner = inner
        self.seconds = 0.0
        self.name = inner.name  # type: ignore[attr-defined]
        self.dimension = inner.dimension  # type: ignore[attr-defined]

    def embed_documents(self, inputs: Sequence[object]) -> list[np.ndarray]:
        started = time.perf_counter()
        try:
            return self._inner.embed_documents(inputs)  # type: ignore[attr-defined,no-any-return]
        finally:
            self.seconds += time.perf_counter() - started

    def embed_query(self, text: str) -> np.ndarray:
        return self._inner.embed_query(text)  # type: ignore[attr-defined,no-any-return]


class FreeEmbedder:
    """A stand-in that costs (almost) nothing: for profiling everything else."""

    name = "bench:free"
    dimension = 8

    def embed_documents(self, inputs: Sequence[object]) -> list[np.ndarray]:
        return [np.full((1, 8), 8**-0.5, dtype=np.float32) for _ in inputs]

    def embed_query(self, text: str) -> np.ndarray:
        return np.full(8, 8**-0.5, dtype=np.float32)


class InlineReadAhead:
    """Ingest's ReadAhead without its thread (cProfile sees one thread): every event of the
    reader is produced first, then handed over."""

    def __init__(self, produce: Callable[[Callable[[object], None]], None], *_: object) -> None:
        self._produce = produce

    def __enter__(self) -> InlineReadAhead:
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def __iter__(self) -> Iterator[object]:
        events: list[object] = []
        self._produce(events.append)
        return iter(events)


def default_datasets() -> Path:
    """The datasets folder as hierdoc finds it, imported only where needed: a child process
    may run another checkout's hierdoc, and is given the folder instead."""
    from hierdoc.eval.datasets import default_datasets as find

    return find()


def corpus(name: str, work: Path, datasets: Path) -> Path:
    """The input to ingest: the PDF itself, or a folder of NDAs written once."""
    if name == "pdf":
        return datasets / HR8847
    folder = work / "ndas"
    if not folder.is_dir():
        folder.mkdir(parents=True)
        for document in json.loads((datasets / CONTRACTNLI).read_text())["documents"]:
            (folder / f"nda-{document['id']}.txt").write_text(document["text"])
    return folder


def measure(name: str, work: Path, datasets: Path, free: bool = False) -> dict:
    """One fresh ingest of corpus ``name`` with the real model, or with ``free`` the
    stand-in that costs nothing (in this process)."""
    from hierdoc import Index, Settings
    from hierdoc.pipeline.embed import LocalEmbedder

    embedder = TimedEmbedder(FreeEmbedder() if free else LocalEmbedder())
    embedder.embed_documents([])  # loaded before the clock starts
    source = corpus(name, work, datasets)
    directory = Path(tempfile.mkdtemp(prefix="ingest-profile-", dir=work))
    with Index.open(directory, Settings(), embedder=embedder, mode="w") as index:  # type: ignore[arg-type]
        index.tokenizer()
        cpu, started = time.process_time(), time.perf_counter()
        report = index.ingest([source])
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        stats = index.stats()
    shutil.rmtree(directory, ignore_errors=True)
    assert not report.problems, report.problems[:3]
    pages = _pages(source) if name == "pdf" else 0
    return {
        "wall s": round(wall, 2),
        "CPU s": round(cpu, 2),
        "embedder s": round(embedder.seconds, 2),
        "other s": round(wall - embedder.seconds, 2),
        "other share": round((wall - embedder.seconds) / wall, 3),
        "pages/s": round(pages / wall, 2) if pages else "",
        "documents": stats.documents,
        "chunks": stats.chunks,
    }


def _pages(path: Path) -> int:
    import pypdfium2

    document = pypdfium2.PdfDocument(str(path))
    try:
        return len(document)
    finally:
        document.close()


def profile(name: str, work: Path, datasets: Path, top: int) -> None:
    """cProfile of one ingest with the free embedder: where the non-embedding time goes."""
    from hierdoc import Index, Settings
    from hierdoc.pipeline import ingest

    ingest.ReadAhead = InlineReadAhead  # type: ignore[assignment,misc]
    source = corpus(name, work, datasets)
    directory = Path(tempfile.mkdtemp(prefix="ingest-profile-", dir=work))
    with Index.open(directory, Settings(), embedder=FreeEmbedder(), mode="w") as index:  # type: ignore[arg-type]
        index.tokenizer()
        profiler = cProfile.Profile()
        started = time.perf_counter()
        profiler.enable()
        index.ingest([source])
        profiler.disable()
        print(f"{name}: {time.perf_counter() - started:.2f} s, {index.stats().chunks} chunks")
    shutil.rmtree(directory, ignore_errors=True)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(top)


def run_one(
    variant: str, src: str | None, name: str, work: Path, datasets: Path, free: bool
) -> dict:
    """One measurement in a fresh process, importing hierdoc from ``src`` when given."""
    environment = dict(os.environ, HF_HUB_OFFLINE="1")
    if src:
        environment["PYTHONPATH"] = src
    command = [sys.executable, __file__, "--one", name, "--work", str(work)]
    command += ["--datasets", str(datasets)]
    command += ["--free"] if free else []
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    return {"variant": variant, "corpus": name, **json.loads(done.stdout.strip().splitlines()[-1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--before",
        action="append",
        default=[],
        metavar="[NAME=]SRC",
        help="src folder of a checkout to compare with (repeatable)",
    )
    parser.add_argument("--corpus", action="append", choices=CORPORA)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--free", action="store_true", help="a stand-in embedder that costs nothing"
    )
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument(
        "--datasets", type=Path, help="folder with pdf/ and contractnli/ [$HIERDOC_DATASETS]"
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    datasets = args.datasets or default_datasets()
    if args.one:
        print(json.dumps(measure(args.one, args.work, datasets, args.free)))
        return
    work = Path(tempfile.mkdtemp(prefix="ingest-profile-"))
    names = args.corpus or list(CORPORA)
    try:
        if args.profile:
            for name in names:
                profile(name, work, datasets, args.top)
            return
        variants: list[tuple[str, str | None]] = [_variant(given) for given in args.before]
        variants.append(("after", None))
        rows = []
        for _ in range(args.repeat):
            for name in names:
                for variant, src in variants:
                    rows.append(run_one(variant, src, name, work, datasets, args.free))
                    print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
        _table(rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _variant(given: str) -> tuple[str, str | None]:
    name, _, src = given.rpartition("=")
    return name or "before", src


def _table(rows: list[dict]) -> None:
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + " --- |" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")


if __name__ == "__main__":
    main()
