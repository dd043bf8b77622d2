"""The web page's latency: time to first byte and to the full page, for search pages and
section pages, over a real loopback socket (uvicorn serving ``hierdoc.web.build_app`` in
this process, one keep-alive client, requests one after another).

Two indexes: the GDPR (``$HIERDOC_DATASETS/gdpr/gdpr.md``, the real model; built in
``--work`` the first time) and the synthetic acts of :mod:`scale` (built by ``scale.py
--keep DIR``; opened with its stand-in embedder, whose query embedding costs
microseconds). The query embedding's time inside each search page is measured and
taken out in the "excl. embedding" column; each page is requested once before the timed
rounds. Beside them, the same run times the API calls behind the pages in-process
(``Index.search``; ``Index.show`` and ``Index.references``), the baseline that says what
the page itself adds. A page is rendered whole before it is sent, so its first byte comes
when the page is ready.

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
from collections.abc import Iterator
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


def measure(index: Index, paths: list[str], rounds: int) -> dict[str, float]:
    timer = index.embed_query
    if not isinstance(timer, TimedEmbedding):
        timer = TimedEmbedding(index)
    with served(index) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port)
        for path in paths:
            fetch(connection, path)
        firsts, fulls, without, sizes = [], [], [], []
        for _ in range(rounds):
            for path in paths:
                before = timer.seconds
                first, full, status, size = fetch(connection, path)
                if status != 200:
                    raise SystemExit(f"{path} answered {status}")
                firsts.append(first)
                fulls.append(full)
                without.append(full - (timer.seconds - before))
                sizes.append(size)
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
        "page KB p50": round(float(np.median(sizes)) / 1024, 1),
    }


def api_alone(index: Index, calls: list, rounds: int) -> float:
    """p50 ms of the API calls behind the pages, in this process, query embedding excluded:
    the baseline each page's figures stand beside."""
    timer = index.embed_query
    assert isinstance(timer, TimedEmbedding)
    times = []
    for _ in range(rounds):
        for call in calls:
            before, started = timer.seconds, time.perf_counter()
            call()
            times.append(time.perf_counter() - started - (timer.seconds - before))
    return round(float(np.percentile(times, 50)) * 1000, 1)


def search_calls(index: Index, queries: list[str]) -> list:
    return [lambda q=q: index.search(q, top_k=10) for q in queries]


def section_calls(index: Index, paths: list[str]) -> list:
    from urllib.parse import parse_qs, urlparse

    pairs = [parse_qs(urlparse(p).query) for p in paths]
    return [
        lambda doc=q["doc"][0], sid=q["id"][0]: (index.show(sid, doc), index.references(sid, doc))
        for q in pairs
    ]


def search_paths(queries: list[str]) -> list[str]:
    return ["/?" + urlencode({"q": q, "k": 10}) for q in queries]


def section_paths(index: Index, count: int) -> list[str]:
    """Sections spread over the index's documents: ``count`` (document, section) pairs."""
    documents = index.documents()
    rng = np.random.default_rng(3)
    paths = []
    for position in rng.choice(len(documents), size=count, replace=len(documents) < count):
        source = documents[int(position)].source
        sections = index.store.sections_of_source(source)
        section = sections[int(rng.integers(0, len(sections)))]
        paths.append("/section?" + urlencode({"doc": source, "id": section.section_id}))
    return paths


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
    sections = section_paths(index, SECTIONS_PER_INDEX)
    rows = {
        "search": measure(index, search_paths(queries), rounds),
        "section": measure(index, sections, rounds),
    }
    rows["search"]["API alone p50 ms"] = api_alone(index, search_calls(index, queries), rounds)
    rows["section"]["API alone p50 ms"] = api_alone(index, section_calls(index, sections), rounds)
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
