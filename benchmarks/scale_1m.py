"""A 1,000,000-chunk index built through the Store API, then opened and searched.

The pipeline ingests ~80 chunks/s on this machine (3.5 hours for 1M chunks), so the
index is built from a template: ``--template`` synthetic acts of ``benchmarks/scale.py``
go through the whole pipeline once (its stand-in embedder), every ``write_document``
call is recorded, and the recorded documents are written again and again through
``LocalStore.write_document`` under new source names (``copy-00042/act-000007.md``:
chunk ids, definitions, acronyms and cross-references renamed with them) until the index
holds ``--chunks`` chunks. Texts, sections and extractions are thus the pipeline's own,
repeated ``copies`` times; each chunk gets a fresh vector (one window, as the stand-in
gives) from ``benchmarks/ann_recall.py``'s generator of vectors shaped like real MiniLM
ones, so that the HNSW graph is built and measured on a realistic distribution. The
store is flushed every ``--flush`` chunks (the pipeline flushes every 25 documents; a
bigger flush makes fewer, bigger segments).

Then, in a fresh process: ``Index.open`` and the first query, p50/p95 per mode
(stand-in query embedding: microseconds), vector recall@10 of the store's search against
brute force over the stored vectors, peak RSS. Build and search print one JSON line each.
``--cold`` first asks the kernel to drop the index's files from the page cache
(``posix_fadvise(DONTNEED)`` on each), so that open and the first query read from disk.

    python benchmarks/scale_1m.py build --work /tmp/hierdoc-ann/1m [--chunks 1000000]
    python benchmarks/scale_1m.py search --work /tmp/hierdoc-ann/1m [--queries 100] [--cold]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ann_recall  # noqa: E402
import scale  # noqa: E402

from hierdoc import Index, Settings  # noqa: E402
from hierdoc.models import DocumentRecord, Extraction, Section, StoredChunk  # noqa: E402
from hierdoc.pipeline.chunk import document_key  # noqa: E402
from hierdoc.store.local.store import LocalStore  # noqa: E402


@dataclass
class Written:
    """One recorded ``write_document`` call."""

    record: DocumentRecord
    sections: list[Section]
    chunks: list[StoredChunk]
    extraction: Extraction
    vectors: list[np.ndarray] = field(default_factory=list)


def record_template(work: Path, acts: int) -> list[Written]:
    """Ingest ``acts`` synthetic acts through the pipeline and keep what it wrote."""
    corpus = work / "template"
    corpus.mkdir(parents=True, exist_ok=True)
    scale.write_corpus(corpus, acts)
    recorded: list[Written] = []
    original = LocalStore.write_document

    def recording(store, record, sections, chunks, vectors, extraction=None):  # noqa: ANN001, ANN202
        recorded.append(Written(record, list(sections), list(chunks), extraction or Extraction()))
        return original(store, record, sections, chunks, vectors, extraction)

    LocalStore.write_document = recording  # type: ignore[method-assign]
    try:
        embedder = scale.StandInEmbedder()
        with Index.open(work / "template-index", Settings(), embedder=embedder, mode="w") as index:  # type: ignore[arg-type]
            index.ingest(corpus)
    finally:
        LocalStore.write_document = original  # type: ignore[method-assign]
    return recorded


def renamed(written: Written, copy: int) -> Written:
    """The same document under the source ``copy-NNNNN/<source>``."""
    old = written.record.source
    new = f"copy-{copy:05d}/{old}"
    old_key, new_key = document_key(old), document_key(new)

    def chunk_id(value: str) -> str:
        return new_key + value[len(old_key) :] if value.startswith(old_key) else value

    record = replace(
        written.record, source=new, content_hash=f"{copy}:{written.record.content_hash}"
    )
    chunks = [
        replace(s, chunk=replace(s.chunk, chunk_id=chunk_id(s.chunk.chunk_id), source=new))
        for s in written.chunks
    ]
    extraction = written.extraction
    extraction = Extraction(
        definitions=[
            replace(d, source=new, chunk_id=chunk_id(d.chunk_id)) for d in extraction.definitions
        ],
        acronyms=[
            replace(a, source=new, chunk_id=chunk_id(a.chunk_id)) for a in extraction.acronyms
        ],
        references=[
            replace(
                r,
                source=new,
                chunk_id=chunk_id(r.chunk_id),
                target_source=new if r.target_source == old else r.target_source,
            )
            for r in extraction.references
        ],
        chunk_terms=[(chunk_id(c), term) for c, term in extraction.chunk_terms],
    )
    return Written(record, written.sections, chunks, extraction)


def copies(template: list[Written], chunks: int) -> Iterator[tuple[int, list[Written]]]:
    """Renamed copies of the template, each chunk with one fresh vector (``vectors``), until
    ``chunks`` are made: (chunks made so far, the copy's documents)."""
    per_copy = sum(len(w.chunks) for w in template)
    base = ann_recall.real_vectors(ann_recall.REAL_ROWS).matrix
    made = copy = 0
    while made < chunks:
        vectors = copy_vectors(base, per_copy, copy)
        at, documents = 0, []
        for document in template:
            document = renamed(document, copy)
            document.vectors = [vectors[at + i : at + i + 1] for i in range(len(document.chunks))]
            at += len(document.chunks)
            documents.append(document)
        made += per_copy
        copy += 1
        yield made, documents


def copy_vectors(base: np.ndarray, per_copy: int, copy: int) -> np.ndarray:
    """The vectors of copy number ``copy``, one a chunk in template order."""
    return ann_recall.synthetic(base, per_copy, seed=1000 + copy)


def build(work: Path, chunks: int, acts: int, flush: int, minutes: float) -> dict:
    """Write copies of the template until ``chunks`` are written or, at a flush, more than
    ``minutes`` have passed (the index then holds what was flushed: fewer chunks)."""
    started = time.perf_counter()
    template = record_template(work, acts)
    per_copy = sum(len(w.chunks) for w in template)
    row: dict = {"template acts": acts, "template chunks": per_copy,
                 "template s": round(time.perf_counter() - started, 1)}  # fmt: skip
    embedder = scale.StandInEmbedder()
    started = time.perf_counter()
    written = since_flush = copy = 0
    with Index.open(work / "index", Settings(), embedder=embedder, mode="w") as index:  # type: ignore[arg-type]
        store = index.store
        with store.lock_writer():
            for written, documents in copies(template, chunks):
                for document in documents:
                    store.write_document(
                        document.record, document.sections, document.chunks, document.vectors,
                        document.extraction,
                    )  # fmt: skip
                since_flush += per_copy
                copy += 1
                if since_flush >= flush:
                    store.flush()
                    since_flush = 0
                    elapsed = time.perf_counter() - started
                    print(f"{written:,} chunks, {elapsed:.0f} s", flush=True)
                    if elapsed > minutes * 60:
                        break
        row["segments"] = len(store.vectors.segment_names)
    row |= {
        "copies": copy,
        "chunks": written,
        "build s": round(time.perf_counter() - started),
        "index MB": round(scale.folder_mb(work / "index")),
        "vectors MB": round(scale.folder_mb(work / "index" / "vectors")),
        "build peak RSS MB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    (work / "built.json").write_text(json.dumps(row))
    return row


def vector_recall(index: Index, count: int) -> dict:
    """Recall@10 of the store's vector search (through its graph) against brute force
    over the stored vectors, for held-out vectors from the same generator."""
    store = index.store
    segments = store.vectors._state.segments
    base = ann_recall.real_vectors(ann_recall.REAL_ROWS).matrix
    queries = ann_recall.synthetic(base, count, seed=2)
    best: list[list[tuple[float, str]]] = [[] for _ in queries]
    for segment in segments:
        gone = store.vectors._state.deleted.get(segment.name, frozenset())
        for first in range(0, segment.rows, 200_000):
            block = np.asarray(segment.matrix[first : first + 200_000])
            scores = block @ queries.T
            for q in range(len(queries)):
                top = (
                    np.argsort(-scores[:, q])[:10]
                    if len(block) <= 10
                    else np.argpartition(-scores[:, q], 10)[:10]
                )
                best[q] += [(float(scores[t, q]), segment.chunk_ids[first + t]) for t in top]
            del block
    found, samples = 0, []
    for q, query in enumerate(queries):
        truth = {c for _, c in sorted(best[q], reverse=True)[:10]}
        started = time.perf_counter()
        hits = store.vector_search(query, 10, None)
        samples.append((time.perf_counter() - started) * 1000)
        found += len(truth & {h.chunk_id for h in hits})
    assert not gone
    p50, p95 = np.percentile(samples, 50), np.percentile(samples, 95)
    return {
        "vector recall@10": round(found / (10 * count), 4),
        "vector search p50/p95 ms": f"{p50:.1f} / {p95:.1f}",
    }


def evict(directory: Path) -> int:
    """Drop every file under ``directory`` from the page cache; returns the bytes asked."""
    asked = 0
    for path in directory.rglob("*"):
        if path.is_file():
            fd = os.open(path, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
            asked += path.stat().st_size
    return asked


def search(work: Path, count: int, cold: bool = False) -> dict:
    embedder = scale.StandInEmbedder()
    if cold:
        evict(work / "index")
    started = time.perf_counter()
    index = Index.open(work / "index", Settings(), embedder=embedder, mode="r")  # type: ignore[arg-type]
    opened = time.perf_counter() - started
    built = json.loads((work / "built.json").read_text())
    acts = built["template acts"]
    texts = scale.queries(count, acts)
    started = time.perf_counter()
    index.search(texts[0])
    first = time.perf_counter() - started
    row = {
        "page cache": "dropped" if cold else "as found",
        "open ms": round(opened * 1000),
        "first query ms": round(first * 1000),
        "open + first query ms": round((opened + first) * 1000),
    }
    for mode in ("hybrid", "semantic", "keyword", "exact"):
        p50, p95 = scale.percentiles(lambda i, m=mode: index.search(texts[i], mode=m), count)
        row[f"{mode} p50/p95 ms"] = f"{p50:.1f} / {p95:.1f}"
    row["RSS after searches MB"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    row |= vector_recall(index, 100)
    row["peak RSS MB"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    index.close()
    return row


def arguments(description: str) -> argparse.ArgumentParser:
    """The arguments of a 1M benchmark: the step, the work folder, the size, the template."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("step", choices=["build", "search"])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--template", type=int, default=400, help="acts through the pipeline")
    parser.add_argument("--queries", type=int, default=100)
    return parser


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--flush", type=int, default=250_000, help="chunks between flushes")
    parser.add_argument("--minutes", type=float, default=600, help="stop at a flush after this")
    parser.add_argument("--cold", action="store_true", help="drop the index from the page cache")
    args = parser.parse_args()
    if args.step == "build":
        print(json.dumps(build(args.work, args.chunks, args.template, args.flush, args.minutes)))
    else:
        print(json.dumps(search(args.work, args.queries, args.cold)))


if __name__ == "__main__":
    main()
