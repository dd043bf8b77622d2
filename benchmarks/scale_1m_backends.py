"""The local and PostgreSQL backends on the same 1,000,000 chunks, from one run.

The chunks are those of ``benchmarks/scale_1m.py``: ``--template`` synthetic acts go
through the pipeline once, their ``write_document`` calls are replayed under new source
names, each chunk with a fresh MiniLM-like vector (``ann_recall``'s generator, seeded per
copy). ``build`` writes them to each backend in turn (one build at a time): the local
backend document by document as the pipeline does, PostgreSQL through its bulk load
(``PostgresStore.bulk_load``: COPY, postings per batch, the HNSW index built once at the
end). Both indexes are kept under ``--work`` (PostgreSQL in a server data directory of
its own there, or on ``--url``), so that ``search`` can be run again, alone, when the
machine is quieter.

``search`` measures, per backend, through the ``Store`` protocol: keyword (BM25 over the
query's terms, top 50), keyword within 1% of the sources, vector (top 50; HNSW on
PostgreSQL), vector within 1% of the sources, hybrid (keyword + vector, top 50, the query
vector given: no embedding), then ``Index.search`` hybrid with the stand-in embedder, and
recall@10 of the vector search against the exact top 10 computed here from the same
generator (every stored vector is known), with and without the source filter. ``--warm``
runs each mode's queries once, untimed, before timing them (an index read from disk
by the first mode measured is otherwise charged to that mode).

    python benchmarks/scale_1m_backends.py build --work DIR [--chunks 1000000]
    python benchmarks/scale_1m_backends.py search --work DIR [--queries 100]
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import ann_recall  # noqa: E402
import scale  # noqa: E402
import scale_1m  # noqa: E402
import store_backends  # noqa: E402

from hierdoc import Index, Settings  # noqa: E402
from hierdoc.config import DatabaseConfig  # noqa: E402
from hierdoc.models import SearchFilter  # noqa: E402
from hierdoc.store.base import Store  # noqa: E402
from hierdoc.store.postgres.writes import Written  # noqa: E402
from hierdoc.text.analyze import TEXT_ANALYZER  # noqa: E402

SCHEMA = "scale"
SERVER_SETTINGS = {
    "shared_buffers": "2GB",
    "max_wal_size": "8GB",
    "checkpoint_timeout": "30min",
}
"""Set on the server this benchmark starts (its data directory under ``--work``)."""
BUILD_MEMORY = "4GB"
"""``maintenance_work_mem`` of the HNSW build: 1M 384-d vectors' graph fits."""


def kept_server(work: Path) -> object:
    """A PostgreSQL server on the data directory ``work/pg`` (created the first time)."""
    import pgserver  # noqa: F401 - only to find its binaries

    from tests.contract.test_store_postgres_server import SERVER_USER, PostgresServer

    class KeptServer(PostgresServer):
        def __init__(self) -> None:
            super().__init__(Path(sys.modules["pgserver"].__file__).parent / "pginstall" / "bin")
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = work / "pg"

        def launch(self) -> None:
            settings = " ".join(f"-c {k}={v}" for k, v in SERVER_SETTINGS.items())
            options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 {settings}"
            data, log = str(self.directory / "data"), str(self.directory / "server.log")
            self._run("pg_ctl", "-D", data, "-o", options, "-l", log, "-w", "start")

    server = KeptServer()
    if (server.directory / "data").is_dir():
        server.launch()
    else:
        server.directory.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(server.directory, SERVER_USER)
        server.start()
    return server


def postgres_settings(url: str) -> Settings:
    return Settings(database=DatabaseConfig(provider="postgres", url=url, schema=SCHEMA))


def build(work: Path, chunks: int, acts: int, backends: list[str], url: str) -> dict:
    template = recorded_template(work, acts)
    built: dict = {"template acts": acts, "chunks asked": chunks}
    for backend in backends:
        if backend == "local":
            built["local"] = build_local(work, template, chunks)
        else:
            built["postgres"] = build_postgres(template, chunks, url)
        print(json.dumps(built[backend]), flush=True)
        (work / "backends.json").write_text(json.dumps(built))
    return built


def recorded_template(work: Path, acts: int) -> list[scale_1m.Written]:
    """The template of ``acts`` acts, recorded once and kept in ``work/template.pickle``."""
    kept = work / "template.pickle"
    if kept.is_file():
        recorded_acts, template = pickle.loads(kept.read_bytes())
        if recorded_acts == acts:
            return template
    template = scale_1m.record_template(work, acts)
    kept.write_bytes(pickle.dumps((acts, template)))
    return template


def build_local(work: Path, template: list[scale_1m.Written], chunks: int) -> dict:
    load = os.getloadavg()[0]
    started = time.perf_counter()
    written = 0
    embedder = scale.StandInEmbedder()
    with Index.open(work / "index", Settings(), embedder=embedder, mode="w") as index:  # type: ignore[arg-type]
        store = index.store
        with store.lock_writer():
            for _, documents in scale_1m.copies(template, chunks):
                written += sum(len(d.chunks) for d in documents)
                for d in documents:
                    store.write_document(d.record, d.sections, d.chunks, d.vectors, d.extraction)
            store.flush()
    return {"chunks": written, "ingest s": round(time.perf_counter() - started),
            "index MB": round(scale.folder_mb(work / "index")),
            "load at start / end": f"{load:.1f} / {os.getloadavg()[0]:.1f}"}  # fmt: skip


def build_postgres(template: list[scale_1m.Written], chunks: int, url: str) -> dict:
    load = os.getloadavg()[0]
    embedder = scale.StandInEmbedder()
    made = [0]
    started = time.perf_counter()

    def documents():  # noqa: ANN202
        for made[0], copy in scale_1m.copies(template, chunks):
            for d in copy:
                yield Written(d.record, d.sections, d.chunks, d.vectors, d.extraction)
            print(f"postgres: {made[0]:,} chunks read, {time.perf_counter() - started:.0f} s",
                  flush=True)  # fmt: skip

    settings = postgres_settings(url)
    with Index.open(None, settings, embedder=embedder, mode="w") as index:  # type: ignore[arg-type]
        report = index.store.bulk_load(documents(), build_memory=BUILD_MEMORY)
    return {"chunks": report.chunks, "ingest s (bulk load)": round(time.perf_counter() - started),
            "of which HNSW build s": report.hnsw_seconds,
            "index MB": round(store_backends.schema_mb(url, SCHEMA)),
            "load at start / end": f"{load:.1f} / {os.getloadavg()[0]:.1f}"}  # fmt: skip


def exact_top(template: list[scale_1m.Written], chunks: int, queries: np.ndarray,
              keep: Callable[[str], bool]) -> list[set[str]]:  # fmt: skip
    """The exact top 10 chunks of each query among those of sources ``keep`` accepts, from
    the generator (a chunk's only vector is its copy's row)."""
    base = ann_recall.real_vectors(ann_recall.REAL_ROWS).matrix
    per_copy = sum(len(w.chunks) for w in template)
    best: list[list[tuple[float, str]]] = [[] for _ in queries]
    for copy in range((chunks + per_copy - 1) // per_copy):
        names = [c.chunk.chunk_id for w in template for c in scale_1m.renamed(w, copy).chunks]
        sources = [w.record.source for w in template for _ in w.chunks]
        wanted = np.array([keep(f"copy-{copy:05d}/{s}") for s in sources])
        if not wanted.any():
            continue
        scores = (scale_1m.copy_vectors(base, per_copy, copy)[wanted] @ queries.T).T
        kept = [n for n, w in zip(names, wanted, strict=True) if w]
        for q, row in enumerate(scores):
            top = np.argsort(-row)[:10]
            best[q] = sorted(best[q] + [(float(row[t]), kept[t]) for t in top], reverse=True)[:10]
    return [{name for _, name in found} for found in best]


def one_percent(template: list[scale_1m.Written], chunks: int) -> SearchFilter:
    """Every hundredth document's source."""
    per_copy = sum(len(w.chunks) for w in template)
    sources = [f"copy-{c:05d}/{w.record.source}"
               for c in range((chunks + per_copy - 1) // per_copy) for w in template]  # fmt: skip
    return SearchFilter(sources=tuple(sources[::100]))


def measure(name: str, index: Index, texts: list[str], vectors: np.ndarray, filt: SearchFilter,
            truth: dict[str, list[set[str]]], warm: bool) -> list[str]:  # fmt: skip
    store: Store = index.store
    terms = [TEXT_ANALYZER.terms(text) for text in texts]
    modes: dict[str, Callable[[int], object]] = {
        "keyword (BM25, top 50)": lambda i: store.keyword_search(terms[i], 50, None),
        "keyword, 1% of sources": lambda i: store.keyword_search(terms[i], 50, filt),
        "vector (top 50)": lambda i: store.vector_search(vectors[i], 50, None),
        "vector, 1% of sources": lambda i: store.vector_search(vectors[i], 50, filt),
        "hybrid (keyword + vector, top 50)": lambda i: (
            store.keyword_search(terms[i], 50, None), store.vector_search(vectors[i], 50, None)),
        "Index.search hybrid (stand-in embedder)": lambda i: index.search(texts[i]),
    }  # fmt: skip
    rows = []
    for mode, run in modes.items():
        if warm:  # each query once, untimed: the index's pages in memory
            for i in range(len(texts)):
                run(i)
        load = os.getloadavg()[0]
        p50, p95 = scale.percentiles(run, len(texts))
        rows.append(f"| {name} | {mode} | {p50:.1f} | {p95:.1f} | load {load:.1f} |")
    for label, filt_or_none in (("", None), (", 1% of sources", filt)):
        found = [{h.chunk_id for h in store.vector_search(v, 10, filt_or_none)} for v in vectors]
        want = truth[label]
        recall = sum(len(f & w) / max(len(w), 1) for f, w in zip(found, want, strict=True))
        rows.append(f"| {name} | vector recall@10 vs exact{label} | {recall / len(want):.4f} | | |")
    return rows


def search(work: Path, count: int, backends: list[str], url: str, warm: bool) -> list[str]:
    built = json.loads((work / "backends.json").read_text())
    template = recorded_template(work, built["template acts"])
    texts = scale.queries(count, built["template acts"])
    base = ann_recall.real_vectors(ann_recall.REAL_ROWS).matrix
    vectors = ann_recall.synthetic(base, count, seed=2)
    rows = ["| backend | what | p50 ms | p95 ms | |", "| --- | --- | --- | --- | --- |"]
    embedder = scale.StandInEmbedder()
    for backend in backends:
        settings = Settings() if backend == "local" else postgres_settings(url)
        path = work / "index" if backend == "local" else None
        chunks = built[backend]["chunks"]
        filt = one_percent(template, chunks)
        allowed = set(filt.sources or ())
        truth = {
            "": exact_top(template, chunks, vectors, lambda s: True),
            ", 1% of sources": exact_top(template, chunks, vectors, allowed.__contains__),
        }
        with Index.open(path, settings, embedder=embedder, mode="r") as index:  # type: ignore[arg-type]
            index.search(texts[0])
            name = f"{backend}, {chunks:,} chunks"
            rows += measure(name, index, texts, vectors, filt, truth, warm)
        print("\n".join(rows), file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = scale_1m.arguments(__doc__.splitlines()[0])
    parser.add_argument("--backends", default="local,postgres", help="which, in this order")
    parser.add_argument("--url", help="a PostgreSQL server (default: one kept under --work)")
    parser.add_argument("--warm", action="store_true", help="run each mode once before timing")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    server = None if args.url else kept_server(args.work)
    url = args.url or server.url  # type: ignore[attr-defined]
    backends = args.backends.split(",")
    try:
        if args.step == "build":
            print(json.dumps(build(args.work, args.chunks, args.template, backends, url)))
        else:
            print("\n".join(search(args.work, args.queries, backends, url, args.warm)))
    finally:
        if server is not None:
            server.halt()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
