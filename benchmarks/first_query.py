"""Open + first query: what a new process pays before its first answer.

A CLI search or a fresh server opens the index and answers one query. Document names
are stored with their documents and read by key; built from every document record, the
glossary's names would take 6.8 of 9.1 s of that first query at 11,000 documents. This opens
each index read-only with the stand-in embedder of :mod:`scale` (its query embedding costs
microseconds) and times, in this process: opening, the glossary, the first hybrid query
after it, then the p50 of naming documents in a query and of hybrid search over the
queries of :mod:`scale` (acts' articles and terms, Zipf words).

``--migrate`` first opens the index for writing (what ``Index.open`` does by default),
which migrates an index written before (filling the name keys of every document), and
times that. Run it with another checkout's ``src`` on ``PYTHONPATH`` to time that version.

    python benchmarks/first_query.py INDEX [INDEX ...] [--migrate] [--queries 40]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale  # noqa: E402

from hierdoc import Index, Settings  # noqa: E402


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def migrate(directory: Path) -> float:
    """Seconds to open the index for writing (migrating it) and close it."""
    started = time.perf_counter()
    Index.open(directory, Settings(), embedder=scale.StandInEmbedder()).close()  # type: ignore[arg-type]
    return time.perf_counter() - started


def measure(directory: Path, count: int) -> dict[str, str]:
    started = time.perf_counter()
    index = Index.open(directory, Settings(), embedder=scale.StandInEmbedder(), mode="r")  # type: ignore[arg-type]
    opened = _ms(started)
    started = time.perf_counter()
    glossary = index.glossary()
    built = _ms(started)
    documents = index.store.stats().documents
    texts = scale.queries(count + 1, documents)
    started = time.perf_counter()
    index.search(texts[0])
    first = _ms(started)
    naming, hybrid = [], []
    for text in texts[1:]:
        started = time.perf_counter()
        glossary.names.named(text)
        naming.append(_ms(started))
        started = time.perf_counter()
        index.search(text)
        hybrid.append(_ms(started))
    index.close()
    return {
        "documents": f"{documents:,}",
        "names": type(glossary.names).__name__,
        "open ms": f"{opened:.0f}",
        "glossary ms": f"{built:.0f}",
        "first hybrid ms": f"{first:.0f}",
        "open + first ms": f"{opened + built + first:.0f}",
        "naming p50 ms": f"{statistics.median(naming):.2f}",
        "hybrid p50 ms": f"{statistics.median(hybrid):.1f}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("indexes", nargs="+", type=Path)
    parser.add_argument("--migrate", action="store_true", help="open for writing first")
    parser.add_argument("--queries", type=int, default=40)
    args = parser.parse_args()
    rows = []
    for directory in args.indexes:
        row = {"index": str(directory)}
        if args.migrate:
            row["open for writing s"] = f"{migrate(directory):.1f}"
        rows.append({**row, **measure(directory, args.queries)})
    columns = list(dict.fromkeys(k for row in rows for k in row))
    print(" | ".join(columns))
    for row in rows:
        print(" | ".join(row.get(c, "") for c in columns))


if __name__ == "__main__":
    main()
