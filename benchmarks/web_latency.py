"""The web page's latency: time to first byte and to the full page, for search pages and
section pages, over a real loopback socket (uvicorn serving ``hierdoc.web.build_app`` in
this process, one keep-alive client, requests one after another).

Two indexes: the GDPR (``$HIERDOC_DATASETS/gdpr/gdpr.md``, the real model; built in
``--work`` the first time) and the synthetic acts of :mod:`scale` (built by ``scale.py
--keep DIR``; opened with its stand-in embedder, whose query embedding costs
microseconds). The query embedding's time inside each search page is measured and
taken out in the "excl. embedding" column; each page is requested once before the timed
rounds. After each page the same run makes the API calls behind it in-process
(``Index.search``; ``Index.show`` and ``Index.view_references``): the baseline, under the
same load, that says what the page itself adds. A page is rendered whole before it is
sent, so its first byte comes when the page is ready.

    python benchmarks/scale.py --sizes 100000 --baseline-sizes 0 --queries 5 --keep DIR
    python benchmarks/web_latency.py --work WORK --synthetic DIR/100000/index [--rounds 3]
"""

from __future__ import annotations

import argparse
import http.client
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import scale  # noqa: E402

from hierdoc import Index, Settings  # noqa: E402
from hierdoc.eval.datasets import default_datasets  # noqa: E402
from hierdoc.web import build_app  # noqa: E402

GDPR_QUERIES = [
    "right to be forgotten", "Article 17(3)(b)", '"without undue delay"',
    "data protection officer tasks", "transfers to third countries adequacy decision",
    "consent of a child information society services", "Art. 83(5)", "supervisory authority",
    "processing of special categories of personal data", "personal data breach notification",
]  # fmt: skip
SECTIONS_PER_INDEX = 20


class TimedEmbedding:
    """Wraps an index's query embedding and adds up the time it takes."""

    def __init__(self, index: Index) -> None:
        self.embed = index.embed_query
        self.seconds = 0.0
        index.embed_query = self  # type: ignore[method-assign]

    def __call__(self, text: str) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self.embed(text)
        finally:
            self.seconds += time.perf_counter() - started


@contextmanager
def served(index: Index) -> Iterator[int]:
    """The web page over ``index`` on a free loopback port, until the block ends."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(build_app(index), host="127.0.0.1", port=port, log_level="error")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join()


def fetch(connection: http.client.HTTPConnection, path: str) -> tuple[float, float, int, int]:
    """(seconds to the first byte, seconds to the whole page, status, bytes)."""
    started = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    first = time.perf_counter() - started
    body = response.read()
    return first, time.perf_counter() - started, response.status, len(body)


def measure(index: Index, pages: list[tuple[str, Callable[[], object]]], rounds: int) -> dict:
    """Each page fetched over HTTP, then the API calls behind it run in this process, in
    turn (so that both see the same load); ms figures with the query embedding left out
    where it says so."""
    timer = index.embed_query
    if not isinstance(timer, TimedEmbedding):
        timer = TimedEmbedding(index)
    with served(index) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port)
        for path, call in pages:
            fetch(connection, path)
            call()
        firsts, fulls, without, alone, sizes = [], [], [], [], []
        for _ in range(rounds):
            for path, call in pages:
                before = timer.seconds
                first, full, status, size = fetch(connection, path)
                if status != 200:
                    raise SystemExit(f"{path} answered {status}")
                firsts.append(first)
                fulls.append(full)
                without.append(full - (timer.seconds - before))
                sizes.append(size)
                before, started = timer.seconds, time.perf_counter()
                call()
                alone.append(time.perf_counter() - started - (timer.seconds - before))
        connection.close()

    def ms(values: list[float], q: int) -> float:
        return round(float(np.percentile(values, q)) * 1000, 1)

    return {
        "requests": len(fulls),
        "first byte p50 ms": ms(firsts, 50),
        "full page p50 ms": ms(fulls, 50),
        "full page p95 ms": ms(fulls, 95),
        "excl. embedding p50 ms": ms(without, 50),
        "excl. embedding p95 ms": ms(without, 95),
        "API alone p50 ms": ms(alone, 50),
        "page KB p50": round(float(np.median(sizes)) / 1024, 1),
    }


def search_pages(index: Index, queries: list[str]) -> list[tuple[str, Callable[[], object]]]:
    """Each query's search page, with the ``Index.search`` call behind it."""
    return [
        ("/?" + urlencode({"q": q, "k": 10}), lambda q=q: index.search(q, top_k=10))
        for q in queries
    ]


def section_pages(index: Index, count: int) -> list[tuple[str, Callable[[], object]]]:
    """Sections spread over the index's documents, with the ``Index.show`` and
    ``Index.view_references`` calls behind each page."""
    documents = index.documents()
    rng = np.random.default_rng(3)
    pages = []
    for position in rng.choice(len(documents), size=count, replace=len(documents) < count):
        source = documents[int(position)].source
        sections = index.store.sections_of_source(source)
        section_id = sections[int(rng.integers(0, len(sections)))].section_id
        path = "/section?" + urlencode({"doc": source, "id": section_id})
        call = lambda s=section_id, d=source: index.view_references(index.show(s, d))  # noqa: E731
        pages.append((path, call))
    return pages


def gdpr_index(work: Path) -> Index:
    directory = work / "gdpr-index"
    if not (directory / "records.sqlite").is_file():
        with Index.open(directory, Settings(), mode="w") as index:
            index.ingest([default_datasets() / "gdpr" / "gdpr.md"])
    return Index.open(directory, Settings(), mode="r")


def synthetic_index(directory: Path) -> Index:
    return Index.open(directory, Settings(), embedder=scale.StandInEmbedder(), mode="r")  # type: ignore[arg-type]


def report(name: str, index: Index, queries: list[str], rounds: int) -> None:
    chunks = index.stats().chunks
    rows = {
        "search": measure(index, search_pages(index, queries), rounds),
        "section": measure(index, section_pages(index, SECTIONS_PER_INDEX), rounds),
    }
    keys = list(rows["search"])
    print(f"\n{name} ({chunks:,} chunks)\n")
    print("| page | " + " | ".join(keys) + " |")
    print("|---|" + "---:|" * len(keys))
    for page, row in rows.items():
        print(f"| {page} | " + " | ".join(f"{row[k]:,}" for k in keys) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True, help="where the GDPR index is kept")
    parser.add_argument("--synthetic", type=Path, help="an index built by scale.py --keep")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=40, help="synthetic queries")
    args = parser.parse_args()
    with gdpr_index(args.work) as index:
        report("GDPR", index, GDPR_QUERIES, args.rounds)
    if args.synthetic:
        with synthetic_index(args.synthetic) as index:
            acts = len(index.documents())
            report("synthetic acts", index, scale.queries(args.queries, acts), args.rounds)


if __name__ == "__main__":
    main()
