"""Hybrid search searches the vectors in a worker thread beside BM25
(``Searcher._rank_modalities``): the results are those of running both in turn, searches
from many threads at once agree, the embedder is called from the caller's thread, its
error and the worker's reach the caller, and a forked child (which inherits the pool
object but not its threads) still searches."""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from hierdoc import Index, Settings
from hierdoc.search import searcher
from tests.hash_embedder import HashEmbedder, hash_index

ACT = """# Data Act

## Article 1 Definitions

“Record” means any information kept by the holder.

## Article 2 Retention

1. The holder keeps each record for five years after its creation.
2. A record may be erased earlier at the request of the person it concerns.

## Article 3 Access

The person concerned may ask for a copy of every record about them.
"""

QUERIES = ["how long are records kept", "Article 2(2)", "copy of a record", "what is a Record"]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    with hash_index(tmp_path_factory.mktemp("threads") / "index", {"act.md": ACT}) as opened:
        yield opened


def _ranked(index: Index, query: str, mode: str = "hybrid") -> list[tuple[str, float]]:
    return [(r.chunk_id, r.score) for r in index.search(query, mode=mode).results]


def test_hybrid_fuses_the_same_rankings_as_each_modality_alone(index: Index) -> None:
    for query in QUERIES:
        response = index.search(query)
        for mode in ("semantic", "keyword"):
            alone = {r.chunk_id: r.scores[mode] for r in index.search(query, mode=mode).results}
            fused = {r.chunk_id: r.scores[mode] for r in response.results if r.scores[mode]}
            assert fused, (query, mode)
            assert all(alone.get(c, s) == s for c, s in fused.items()), (query, mode)
        assert _ranked(index, query) == [(r.chunk_id, r.score) for r in response.results]


def test_searches_from_many_threads_agree_with_one_at_a_time(index: Index) -> None:
    expected = {q: _ranked(index, q) for q in QUERIES}
    with ThreadPoolExecutor(max_workers=8) as pool:
        found = list(pool.map(lambda q: (q, _ranked(index, q)), QUERIES * 10))
    assert all(ranked == expected[q] for q, ranked in found)


class _FailingEmbedder(HashEmbedder):
    def embed_query(self, text: str) -> np.ndarray:
        raise RuntimeError("the embedding service is down")


def test_an_embedding_error_reaches_the_caller(tmp_path: Path) -> None:
    with hash_index(tmp_path / "index", {"act.md": ACT}):
        pass
    reader = Index.open(tmp_path / "index", Settings(), embedder=_FailingEmbedder(), mode="r")
    with reader, pytest.raises(RuntimeError, match="service is down"):
        reader.search("records")


def test_a_vector_search_error_in_the_worker_reaches_the_caller(
    index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(*args: object) -> list:
        raise OSError("a vector segment cannot be read")

    monkeypatch.setattr(index.store, "vector_search", failing)
    with pytest.raises(OSError, match="cannot be read"):
        index.search("records")


class _ThreadBoundEmbedder(HashEmbedder):
    """Like an embedder holding a sqlite connection or a session made in its thread."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()

    def embed_query(self, text: str) -> np.ndarray:
        assert threading.get_ident() == self.thread, "embedded in another thread"
        return super().embed_query(text)


def test_the_query_is_embedded_in_the_callers_thread(tmp_path: Path) -> None:
    with hash_index(tmp_path / "index", {"act.md": ACT}):
        pass
    reader = Index.open(tmp_path / "index", Settings(), embedder=_ThreadBoundEmbedder(), mode="r")
    with reader:
        assert reader.search("how long are records kept").results


def _search_in_child(index: Index, queue: multiprocessing.Queue) -> None:
    queue.put(_ranked(index, QUERIES[0]))


def test_a_forked_child_searches_with_a_pool_of_its_own(index: Index) -> None:
    expected = _ranked(index, QUERIES[0])
    assert searcher._WORKERS, "the parent's search made the pool"
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_search_in_child, args=(index, queue))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child's search hung on the parent's pool")
    assert child.exitcode == 0
    assert queue.get(timeout=5) == expected
