"""What hostile inputs cost: query times, and the peak memory and time of ingesting a
folder of bad and odd files (RELIABILITY.md).

    python benchmarks/hostile_inputs.py queries [--corpus GDPR.md]
    python benchmarks/hostile_inputs.py folder [--scale 1.0] [--each]

``queries``: milliseconds of pathological queries (3,000 combining accents U+0301, runs
of punctuation, megabyte-long tokens cut to the query limit) beside an ordinary query, in
each mode, on a 30-document index or the Markdown of ``--corpus`` (median of 3).

``folder``: the files of ``tests/reliability/odd_files.py`` at ``--scale`` (1.0: junk of
2 MB, single lines of 8 MB, numbering nested 5,000 deep in 25 MB, 300 MB zip bombs) and
the 1,018 entries of ``tests/reliability/test_bad_files.py`` are written to a temporary
folder and ingested by a child process; its peak RSS (``ru_maxrss`` from ``wait4``) and
wall time are printed. ``--each`` also ingests each large odd file alone, one child each.

The hash embedder (tests/hash_embedder.py) stands in for the model throughout: what is
measured is conversion, structure, chunking, extraction and storage.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.hash_embedder import hash_index  # noqa: E402
from tests.reliability.odd_files import odd_folder  # noqa: E402
from tests.reliability.test_bad_files import bad_folder  # noqa: E402

MODES = ("keyword", "exact", "semantic", "hybrid")
QUERIES = {
    "ordinary": "escrow agent holds the funds",
    "3,000 U+0301": "\u0301" * 3000,
    "e + 2,999 U+0301": "e" + "\u0301" * 2999,
    "3,000 '!'": "!" * 3000,
    "'a!' x 1,500": "a!" * 1500,
    "'1.' x 2,000": "1." * 2000,
    "'(a)' x 1,300": "(a)" * 1300,
    "'data ' x 800": "data " * 800,
}
CHILD = """
import json, sys
from pathlib import Path
from hierdoc import Index, Settings
from tests.hash_embedder import HashEmbedder
with Index.open(Path(sys.argv[1]), Settings(), embedder=HashEmbedder()) as index:
    report = index.ingest([Path(sys.argv[2])])
print(json.dumps({"added": len(report.added), "problems": len(report.problems)}))
"""


def time_queries(corpus: Path | None) -> None:
    documents = {
        f"doc{n}.md": f'# Agreement {n}\n\n## Article {n}\n\n"Escrow Agent" means the agent '
        f"that holds the funds of party {n} (EA) under Article {n}(1)(a).\n"
        for n in range(30)
    }
    if corpus is not None:
        documents = {path.name: path.read_text() for path in _files(corpus)}
    with tempfile.TemporaryDirectory() as root, hash_index(Path(root), documents) as index:
        index.search("escrow")
        print(f"{len(documents)} documents")
        print(f"{'query':<18}" + "".join(f"{mode + ' ms':>14}" for mode in MODES))
        for label, query in QUERIES.items():
            row = []
            for mode in MODES:
                times = []
                for _ in range(3):
                    started = time.perf_counter()
                    index.search(query, mode=mode)
                    times.append(time.perf_counter() - started)
                row.append(statistics.median(times) * 1000)
            print(f"{label:<18}" + "".join(f"{ms:>14.1f}" for ms in row), flush=True)


def _files(corpus: Path) -> list[Path]:
    return [corpus] if corpus.is_file() else sorted(p for p in corpus.rglob("*.md"))


ADDRESS_SPACE_CAP = 16 << 30
"""The child's address space is capped (it fails instead of exhausting a shared machine)."""


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_CAP, ADDRESS_SPACE_CAP))


def ingest_child(folder: Path, index: Path) -> tuple[float, int, dict[str, int]]:
    """Seconds, peak RSS in MB and the report counts of an ingest in a child process."""
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": f"{repo / 'src'}{os.pathsep}{repo}"}
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(index), str(folder)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        preexec_fn=_cap_memory,
    )
    assert child.stdout is not None
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    counts = json.loads(output) if child.returncode == 0 else {"exit": child.returncode}
    return seconds, usage.ru_maxrss // 1024, counts


def ingest_folder(scale: float, each: bool) -> None:
    with tempfile.TemporaryDirectory() as root:
        folder, outside = Path(root) / "bad", Path(root) / "outside"
        outside.mkdir()
        bad, good = bad_folder(folder, outside)
        odd = odd_folder(folder / "odd", scale)
        entries = len(bad) + len(good) + len(odd)
        size = sum(f.stat().st_size for f in (folder / "odd").iterdir()) / (1 << 20)
        print(f"{entries} entries ({len(odd)} odd files, {size:.0f} MB, scale {scale})")
        seconds, peak, counts = ingest_child(folder, Path(root) / "index")
        print(f"folder: {seconds:.0f} s, peak RSS {peak} MB, {counts}", flush=True)
        if each:
            large = sorted(
                (f for f in (folder / "odd").iterdir() if f.stat().st_size > 1 << 20),
                key=lambda f: -f.stat().st_size,
            )
            for path in large:
                alone = Path(root) / "alone" / path.name
                alone.mkdir(parents=True)
                os.link(path, alone / path.name)
                seconds, peak, counts = ingest_child(alone, Path(root) / f"index-{path.name}")
                megabytes = path.stat().st_size / (1 << 20)
                print(f"  {path.name:<24} {megabytes:>6.1f} MB {seconds:>6.1f} s {peak:>6} MB RSS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("queries", "folder"))
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--each", action="store_true", help="also each large odd file alone")
    parser.add_argument("--corpus", type=Path, help="queries: a Markdown file or folder to index")
    args = parser.parse_args()
    if args.what == "queries":
        time_queries(args.corpus)
    else:
        ingest_folder(args.scale, args.each)


if __name__ == "__main__":
    main()
