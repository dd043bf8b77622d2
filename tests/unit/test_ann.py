"""HNSW graphs of big segments (store/local/ann.py): persisted with the parameters they
were built with, left alone by small changes, and searched with high recall unfiltered,
behind a filter that excludes the query's neighbourhood, and after deletions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hierdoc.store.local import ann, vectors
from hierdoc.store.local.vectors import VectorIndex

pytestmark = pytest.mark.skipif(not ann.available(), reason="usearch is not installed")

DIMENSION = 24
CENTRES = 40


def _clustered(rng: np.random.Generator, centres: np.ndarray, labels: np.ndarray) -> np.ndarray:
    rows = centres[labels] + 0.35 * rng.standard_normal((len(labels), DIMENSION))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Graphs at 2,000 rows, built by one thread: concurrent inserts give a different graph
    each build (filtered recall ranged 0.978-1.0 over runs of the test below), and a test
    must not pass or fail by the thread schedule."""
    monkeypatch.setattr(vectors, "ANN_ROWS", 2_000)
    monkeypatch.setattr(ann, "EXACT_ROWS", 100)
    monkeypatch.setattr(ann, "BUILD_THREADS", 1)


def _corpus(rng: np.random.Generator) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """3,000 one-window chunks around 40 centres; the label of each chunk."""
    centres = rng.standard_normal((CENTRES, DIMENSION))
    labels = rng.integers(0, CENTRES, 3_000)
    rows = _clustered(rng, centres, labels)
    ids = [f"c{i}" for i in range(len(rows))]
    return {c: rows[i : i + 1] for i, c in enumerate(ids)}, dict(
        zip(ids, labels.tolist(), strict=True)
    )


def _top(live: dict[str, np.ndarray], query: np.ndarray, k: int, allowed=None) -> set[str]:
    scores = {
        c: float(np.max(w @ query)) for c, w in live.items() if allowed is None or c in allowed
    }
    return set(sorted(scores, key=lambda c: -scores[c])[:k])


@pytest.mark.usefixtures("small_threshold")
def test_a_filter_away_from_the_query_keeps_recall(tmp_path: Path) -> None:
    """A tenth of the clusters allowed, queries taken from the others: the allowed top 10
    lie deep in the graph's order, past every chunk of the query's own cluster."""
    rng = np.random.default_rng(1)
    live, labels = _corpus(rng)
    index = VectorIndex(tmp_path, DIMENSION)
    index.rebuild(list(live.items()), generation=1)
    assert index._state.segments[0].graph is not None
    allowed = {c for c, label in labels.items() if label % 10 == 0}
    excluded = [c for c, label in labels.items() if label % 10 != 0]
    found = wanted = 0
    for chunk_id in excluded[:60]:
        query = live[chunk_id][0]
        hits = index.search(query, 10, allowed)
        assert {h.chunk_id for h in hits} <= allowed
        truth = _top(live, query, 10, allowed)
        found += len(truth & {h.chunk_id for h in hits})
        wanted += len(truth)
    assert found / wanted >= 0.98


@pytest.mark.usefixtures("small_threshold")
def test_graphs_persist_with_their_parameters_and_small_changes_leave_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(2)
    live, _ = _corpus(rng)
    monkeypatch.setattr(ann, "DTYPE", "f16")
    monkeypatch.setattr(ann, "CONNECTIVITY", 8)
    index = VectorIndex(tmp_path, DIMENSION)
    index.rebuild(list(live.items()), generation=1)
    (graph_file,) = tmp_path.glob("seg-*.usearch")
    built = graph_file.stat().st_mtime_ns
    # other defaults now: the saved graph still opens as built (f16, 8 edges)
    monkeypatch.setattr(ann, "DTYPE", "i8")
    monkeypatch.setattr(ann, "CONNECTIVITY", 32)
    added = {
        f"n{i}": w
        for i, w in enumerate(
            _clustered(rng, rng.standard_normal((3, DIMENSION)), rng.integers(0, 3, 50))
        )
    }
    removed = set(list(live)[:100])
    index.replace(removed, [(c, w[None, :]) for c, w in added.items()], generation=2)
    assert graph_file.stat().st_mtime_ns == built  # no rebuild for 50 added, 100 deleted
    for chunk_id in removed:
        live.pop(chunk_id)
    live.update({c: w[None, :] for c, w in added.items()})
    reader = VectorIndex(tmp_path, DIMENSION)
    assert reader.load_cache()
    graph = reader._state.segments[0].graph
    assert graph is not None and graph.connectivity == 8 and "F16" in str(graph.dtype).upper()
    found = 0
    queries = _clustered(
        rng, rng.standard_normal((CENTRES, DIMENSION)), rng.integers(0, CENTRES, 50)
    )
    for query in queries:
        hits = reader.search(query, 10)
        assert not {h.chunk_id for h in hits} & removed
        found += len(_top(live, query, 10) & {h.chunk_id for h in hits})
    assert found / (10 * len(queries)) >= 0.98


@pytest.mark.usefixtures("small_threshold")
def test_a_large_filter_is_not_looked_up_chunk_by_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A filter allowing most chunks costs a sample of lookups, not one per allowed chunk
    (at 1M chunks that loop took longer than the search), and keeps recall."""
    rng = np.random.default_rng(3)
    live, _ = _corpus(rng)
    index = VectorIndex(tmp_path, DIMENSION)
    index.rebuild(list(live.items()), generation=1)
    allowed = set(list(live)[::2]) | set(list(live)[1::4])
    monkeypatch.setattr(ann, "SHARE_SAMPLE", 200, raising=False)
    lookups = 0
    segment_class = type(index._state.segments[0])
    original = segment_class.position

    def counted(self, chunk_id: str) -> int | None:  # noqa: ANN001
        nonlocal lookups
        lookups += 1
        return original(self, chunk_id)

    monkeypatch.setattr(segment_class, "position", counted)
    found = 0
    queries = list(live.values())[:: len(live) // 30][:30]
    for window in queries:
        hits = index.search(window[0], 10, allowed)
        assert {h.chunk_id for h in hits} <= allowed
        found += len(_top(live, window[0], 10, allowed) & {h.chunk_id for h in hits})
    assert lookups <= 200 * len(queries)
    assert found / (10 * len(queries)) >= 0.98
