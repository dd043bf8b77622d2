"""The segmented vector index: changes cost what changed, search equals brute force over
the live vectors (tombstones, filters, merges), big segments answer through HNSW with
high recall, and a damaged segment is refused."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from hierdoc.store.local import ann, vectors
from hierdoc.store.local.check import sampled_crc
from hierdoc.store.local.vectors import MANIFEST, VectorIndex

DIMENSION = 16


def _windows(rng: np.random.Generator, count: int, centers: np.ndarray | None = None) -> np.ndarray:
    if centers is None:
        rows = rng.standard_normal((count, DIMENSION))
    else:
        rows = centers[rng.integers(0, len(centers), count)]
        rows = rows + 0.3 * rng.standard_normal(rows.shape)
    rows = rows.astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def _document(rng: np.random.Generator, name: str, chunks: int, centers=None) -> list:
    return [(f"{name}#{i}", _windows(rng, 1 + i % 3, centers)) for i in range(chunks)]


def _brute_force(live: dict[str, np.ndarray], query: np.ndarray, k: int, allowed=None) -> list:
    scores = {
        c: float(np.max(w @ query)) for c, w in live.items() if allowed is None or c in allowed
    }
    return sorted(scores, key=lambda c: -scores[c])[:k]


def test_a_change_writes_one_segment_and_tombstones(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    index = VectorIndex(tmp_path, DIMENSION)
    first = _document(rng, "a", 40)
    index.replace(set(), first, generation=1)
    (segment,) = tmp_path.glob("seg-*.npy")
    before = segment.stat().st_mtime_ns
    second = _document(rng, "b", 5)
    index.replace({"a#3", "a#7"}, second, generation=2)
    assert segment.stat().st_mtime_ns == before  # the old segment was not rewritten
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert manifest["generation"] == 2 and len(manifest["segments"]) == 2
    assert manifest["segments"][0]["deleted"] == ["a#3", "a#7"]
    assert len(index) == 43
    live = {c: w for c, w in first + second if c not in {"a#3", "a#7"}}
    for query in _windows(rng, 10):
        hits = index.search(query, 8)
        assert [h.chunk_id for h in hits] == _brute_force(live, query, 8)
        assert hits[0].score == pytest.approx(float(np.max(live[hits[0].chunk_id] @ query)))


def test_search_equals_brute_force_through_merges_and_compaction(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    index = VectorIndex(tmp_path, DIMENSION)
    live: dict[str, np.ndarray] = {}
    for step in range(30):
        added = _document(rng, f"d{step}", 60)
        removed = {c for c in live if rng.random() < 0.15}
        index.replace(removed, added, generation=step + 1)
        for chunk_id in removed:
            live.pop(chunk_id)
        live.update(added)
    assert len(index) == len(live)
    assert len(index.segment_names) < 12  # merged by tier, not one segment per change
    reader = VectorIndex(tmp_path, DIMENSION)
    assert reader.load_cache() and reader.generation == 30
    allowed = set(list(live)[::7])
    for query in _windows(rng, 20):
        for store in (index, reader):
            assert [h.chunk_id for h in store.search(query, 10)] == _brute_force(live, query, 10)
            filtered = [h.chunk_id for h in store.search(query, 5, allowed)]
            assert filtered == _brute_force(live, query, 5, allowed)
    files = {p.name.split(".")[0] for p in tmp_path.glob("seg-*")}
    assert files == set(index.segment_names)  # merged-away segments' files are gone


def test_a_reader_maps_only_new_segments(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    writer = VectorIndex(tmp_path, DIMENSION)
    writer.replace(set(), _document(rng, "a", 20), generation=1)
    reader = VectorIndex(tmp_path, DIMENSION)
    assert reader.load_cache()
    kept = reader._state.segments[0]
    writer.replace(set(), _document(rng, "b", 20), generation=2)
    assert reader.load_cache() and reader.generation == 2
    assert reader._state.segments[0] is kept and len(reader) == 40


def test_a_damaged_segment_is_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    index = VectorIndex(tmp_path, DIMENSION)
    index.replace(set(), _document(rng, "a", 20), generation=1)
    (segment,) = tmp_path.glob("seg-*.npy")
    matrix = np.load(segment)
    matrix[::2] = 0
    np.save(segment, matrix)
    assert not VectorIndex(tmp_path, DIMENSION).load_cache()


@pytest.mark.skipif(not ann.available(), reason="usearch (the local extra) is not installed")
def test_big_segments_answer_through_hnsw_with_high_recall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "ANN_ROWS", 2_000)
    monkeypatch.setattr(ann, "EXACT_ROWS", 100)
    rng = np.random.default_rng(5)
    centers = _windows(rng, 40)
    index = VectorIndex(tmp_path, DIMENSION)
    documents = [_document(rng, f"d{i}", 500, centers) for i in range(3)]
    index.rebuild([row for d in documents for row in d], generation=1)
    assert list(tmp_path.glob("seg-*.usearch"))  # the one big segment has a graph
    live = {c: w for d in documents for c, w in d}
    removed = set(list(live)[::10])
    index.replace(removed, [], generation=2)
    for chunk_id in removed:
        live.pop(chunk_id)
    allowed = set(list(live)[::3])
    recall = filtered_recall = 0.0
    queries = _windows(rng, 50, centers)
    for query in queries:
        hits = index.search(query, 10)
        assert not {h.chunk_id for h in hits} & removed
        truth = set(_brute_force(live, query, 10))
        recall += len(truth & {h.chunk_id for h in hits}) / 10
        for hit in hits:  # scores are exact cosines of the best window
            assert hit.score == pytest.approx(float(np.max(live[hit.chunk_id] @ query)), abs=1e-5)
        filtered = index.search(query, 10, allowed)
        assert {h.chunk_id for h in filtered} <= allowed
        truth = set(_brute_force(live, query, 10, allowed))
        filtered_recall += len(truth & {h.chunk_id for h in filtered}) / 10
    assert recall / len(queries) >= 0.98
    assert filtered_recall / len(queries) >= 0.98


def test_merges_stream_mapped_segments_and_keep_exact_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every segment memory-mapped and read back in small blocks while merging: the merged
    segments hold exactly the live windows (search equals brute force)."""
    monkeypatch.setattr(vectors, "MAP_BYTES", 0)
    monkeypatch.setattr(vectors, "BLOCK_ROWS", 7)
    rng = np.random.default_rng(6)
    index = VectorIndex(tmp_path, DIMENSION)
    live: dict[str, np.ndarray] = {}
    for step in range(12):
        added = _document(rng, f"d{step}", 300)
        removed = {c for c in live if rng.random() < 0.4}
        index.replace(removed, added, generation=step + 1)
        for chunk_id in removed:
            live.pop(chunk_id)
        live.update(added)
    assert all(isinstance(s.matrix, np.memmap) for s in index._state.segments)
    assert len(index.segment_names) < 12
    reader = VectorIndex(tmp_path, DIMENSION)
    assert reader.load_cache()
    for query in _windows(rng, 10):
        for store in (index, reader):
            assert [h.chunk_id for h in store.search(query, 10)] == _brute_force(live, query, 10)


def test_rows_of_a_mapped_matrix_are_prefetched_without_changing_them(tmp_path: Path) -> None:
    """The read-ahead hint covers any run of rows up to the file's last byte, and is a
    no-op on a matrix held in memory."""
    rows = np.random.default_rng(3).standard_normal((5000, 384)).astype(np.float32)
    np.save(tmp_path / "m.npy", rows)
    mapped = np.load(tmp_path / "m.npy", mmap_mode="r")
    first, lengths = np.array([0, 17, 2500, 4998]), np.array([3, 1, 40, 2])
    assert vectors._prefetch(mapped, first, lengths) == 4
    assert vectors._prefetch(rows, first, lengths) == 0
    assert np.array_equal(mapped[[0, 17, 2539, 4999]], rows[[0, 17, 2539, 4999]])


def test_ids_and_starts_are_read_without_parsing(tmp_path: Path, monkeypatch) -> None:
    """A segment's ids and window starts are ``.npy`` arrays, memory-mapped in a big
    segment like its matrix; ids of any width and script come back as written."""
    monkeypatch.setattr(vectors, "MAP_BYTES", 256)
    rng = np.random.default_rng(7)
    names = ["a#1", "Überlassungsvertrag § 3 (2)#0", "契約#12", "x" * 300]
    added = [(name, _windows(rng, 1 + i)) for i, name in enumerate(names)]
    added += _document(rng, "long", 60)
    VectorIndex(tmp_path, DIMENSION).replace(set(), added, generation=1)
    assert not list(tmp_path.glob("seg-*.json"))
    reader = VectorIndex(tmp_path, DIMENSION)
    assert reader.load_cache()
    (segment,) = reader._state.segments
    assert isinstance(segment.chunk_ids.raw, np.memmap) and isinstance(segment.starts, np.memmap)
    assert list(segment.chunk_ids) == [c for c, _ in added]
    assert segment.chunk_ids[2] == "契約#12" and segment.position("x" * 300) == 3
    query = added[1][1][1]
    assert reader.search(query, 1)[0].chunk_id == names[1]
    assert [h.chunk_id for h in reader.search(query, 3, {names[0], names[3]})] == _brute_force(
        dict(added), query, 3, {names[0], names[3]}
    )


def _as_legacy(directory: Path) -> None:
    """Rewrite each segment's ids and starts as the ``<name>.json`` indexes before the
    ``.ids``/``.starts`` files had, its checksum in the manifest to match."""
    manifest = json.loads((directory / MANIFEST).read_text())
    for entry in manifest["segments"]:
        name = entry["name"]
        ids = [i.decode() for i in np.load(directory / f"{name}.ids").tolist()]
        counts = np.diff(np.load(directory / f"{name}.starts")).tolist()
        meta = json.dumps({"chunk_ids": ids, "counts": counts})
        (directory / f"{name}.json").write_text(meta)
        for part in ("ids", "starts"):
            (directory / f"{name}.{part}").unlink()
        matrix_crc = sampled_crc(directory / f"{name}.npy")
        entry["checksum"] = f"{matrix_crc}:{zlib.crc32(meta.encode()):08x}"
    (directory / MANIFEST).write_text(json.dumps(manifest))


def test_a_segment_written_with_json_ids_is_read_then_upgraded(tmp_path: Path) -> None:
    """A segment described by a ``<name>.json`` of ids and window counts (no ``.ids`` or
    ``.starts`` files) loads, searches and takes changes, and ``upgrade_legacy`` moves it to
    the new files without rewriting the matrix."""
    rng = np.random.default_rng(8)
    first = _document(rng, "a", 30)
    VectorIndex(tmp_path, DIMENSION).replace(set(), first, generation=1)
    _as_legacy(tmp_path)
    (matrix_file,) = tmp_path.glob("seg-*.npy")
    matrix_inode = matrix_file.stat().st_ino

    legacy = VectorIndex(tmp_path, DIMENSION)
    assert legacy.load_cache() and len(legacy) == 30
    second = _document(rng, "b", 4)
    legacy.replace({"a#5"}, second, generation=2)
    live = {c: w for c, w in first + second if c != "a#5"}
    assert legacy.upgrade_legacy() == 1 and legacy.upgrade_legacy() == 0
    assert not list(tmp_path.glob("seg-*.json"))
    assert matrix_inode in {p.stat().st_ino for p in tmp_path.glob("seg-*.npy")}
    reader = VectorIndex(tmp_path, DIMENSION)
    assert reader.load_cache() and reader.generation == 2
    for query in _windows(rng, 5):
        for store in (legacy, reader):
            assert [h.chunk_id for h in store.search(query, 6)] == _brute_force(live, query, 6)


def test_the_next_ingest_upgrades_legacy_segments(tmp_path: Path) -> None:
    from hierdoc import Index, Settings
    from hierdoc.models import TextDocument
    from tests.hash_embedder import HashEmbedder, hash_index

    documents = {
        f"act-{i}.md": f"# Act {i}\n\n## Article 1\n\nText {i} of the act." for i in range(5)
    }
    with hash_index(tmp_path, documents) as index:
        before = [h.chunk_id for h in index.search("Text 3 of the act", top_k=5).results]
    _as_legacy(tmp_path / "vectors")
    with Index.open(tmp_path, Settings(), embedder=HashEmbedder(), mode="r") as reader:
        assert [h.chunk_id for h in reader.search("Text 3 of the act", top_k=5).results] == before
    assert list((tmp_path / "vectors").glob("seg-*.json"))
    with Index.open(tmp_path, Settings(), embedder=HashEmbedder()) as writer:
        writer.ingest_texts([TextDocument("act-9.md", "# Act 9\n\n## Article 1\n\nUnrelated.")])
    assert not list((tmp_path / "vectors").glob("seg-*.json"))
    with Index.open(tmp_path, Settings(), embedder=HashEmbedder(), mode="r") as reader:
        assert [h.chunk_id for h in reader.search("Text 3 of the act", top_k=5).results] == before
