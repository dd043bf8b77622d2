"""Vector search over immutable segments: exact in numpy, approximate (HNSW) in big ones.

A segment holds the window vectors of some chunks, a chunk's windows in consecutive
rows of a float32 matrix of unit rows; a chunk scores as its best window. Its files in
``vectors/`` never change once written: ``<name>.npy`` (memory-mapped when over 64 MB),
``<name>.ids`` (the chunk ids, UTF-8 in a fixed-width byte array) and ``<name>.starts``
(the row where each chunk's windows start), both ``.npy`` data memory-mapped like the
matrix, so that opening a big segment parses nothing and a search decodes only the ids
it returns (segments written before these files keep a ``<name>.json``, still read),
``<name>.crc`` (the CRC-32 of each :data:`CHECK_ROWS` rows of the matrix) and, for a
segment of at least :data:`ANN_ROWS` rows, ``<name>.usearch`` (an HNSW graph,
:mod:`.ann`). ``manifest.json`` lists the live segments in order with the chunk ids
deleted from each (tombstones) and their checksums, and is stamped with the record
store's generation; it is replaced
atomically, so a reader sees one consistent set.

What is checked when: on load, each segment's files against the manifest's checksums
(:func:`~.check.sampled_crc`: whole files up to 64 MB, so a matrix read into memory and
its ``.crc`` are checked in full, and 64 samples of a bigger, memory-mapped one); then,
before rows of a memory-mapped matrix are scored (a search) or copied (a merge), each
:data:`CHECK_ROWS`-row block they lie in is read and checked against ``<name>.crc``, once
per process. A block that fails is :class:`VectorDamageError`: the store rebuilds the
vectors from the records and searches again, so a damaged row never changes results.

A flush writes one new segment for the added chunks and tombstones for the removed:
its cost follows the change, not the index. Segments are merged by size tier (four
of a tier become one of the next) and a segment with many tombstones is rewritten, so
there are O(log N) segments. Below :data:`ANN_ROWS` rows in all, every segment is small
and search is exact; above, big segments answer through HNSW, and the candidates'
windows are rescored exactly, so scores are cosines whichever way a chunk was found.
"""

from __future__ import annotations

import heapq
import json
import mmap
import os
import shutil
import uuid
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import BinaryIO

import numpy as np

from ...errors import StoreError
from ...models import Hit
from . import ann
from .check import sampled_crc

MANIFEST = "manifest.json"
ANN_ROWS = 50_000
"""A segment of at least this many window rows gets an HNSW graph; smaller ones are
searched exactly (a product over 50k rows takes a few milliseconds)."""
TIER_FANOUT = 4
"""This many segments of one size tier are merged into one."""
MAX_DELETED_SHARE = 0.3
"""A segment with more of its chunks deleted than this is rewritten without them."""
BLOCK_ROWS = 65_536
"""Rows read or written at a time when a segment is streamed."""
MAP_BYTES = 64 << 20
"""A segment matrix bigger than this is memory-mapped; a smaller one is read into memory."""
CHECK_ROWS = 128
"""Rows per checksummed block of a segment matrix: 192 kB at 384 dimensions, checked in
about 0.1 ms the first time a search reads one of its rows (an HNSW search's candidates
lie in blocks all over the matrix, so a block is kept small)."""
READ_BLOCKS = 8
"""Consecutive blocks read at once when many are checked (an exact search, a merge): 1.5 MB
at 384 dimensions, which stays in the CPU's cache for the CRC (48 MB reads ran 2x slower)."""


class VectorDamageError(StoreError, ValueError):
    """Rows of a vector segment differ from what was written (a block fails its CRC)."""


class BlockChecks:
    """The CRC-32 of each :data:`CHECK_ROWS` rows of a memory-mapped segment matrix, each
    block checked the first time rows of it are about to be read (:meth:`verify`)."""

    def __init__(self, path: Path, crcs: np.ndarray, matrix: np.ndarray) -> None:
        self._path = path
        self._crcs = crcs
        self._rows = len(matrix)
        self._row_bytes = matrix.shape[1] * matrix.itemsize
        self._data_start = int(getattr(matrix, "offset", 0))
        self._checked = np.zeros(len(crcs), dtype=bool)
        if len(crcs) != -(-self._rows // CHECK_ROWS):
            raise VectorDamageError(f"{path.name}: {len(crcs)} block checksums, {self._rows} rows")

    def verify(self, rows: np.ndarray | None = None) -> None:
        """Check the blocks holding ``rows`` (None: every block) not checked yet."""
        blocks = np.arange(len(self._crcs)) if rows is None else np.unique(rows // CHECK_ROWS)
        todo = blocks[~self._checked[blocks]]
        if not len(todo):
            return
        size = CHECK_ROWS * self._row_bytes
        buffer = memoryview(bytearray(READ_BLOCKS * size))  # reused: no fresh pages per read
        with open(self._path, "rb") as handle:
            for run in np.split(todo, np.flatnonzero(np.diff(todo) != 1) + 1):
                for start in range(0, len(run), READ_BLOCKS):
                    count = min(READ_BLOCKS, len(run) - start)
                    self._verify_run(handle, buffer, int(run[start]), count)

    def _verify_run(self, handle: BinaryIO, buffer: memoryview, first: int, count: int) -> None:
        """Check ``count`` consecutive blocks from block ``first``, read at once."""
        size = CHECK_ROWS * self._row_bytes
        handle.seek(self._data_start + first * size)
        data = buffer[: handle.readinto(buffer[: count * size])]  # the last block may be short
        for offset in range(count):
            if zlib.crc32(data[offset * size : (offset + 1) * size]) != self._crcs[first + offset]:
                row = (first + offset) * CHECK_ROWS
                raise VectorDamageError(
                    f"{self._path.name}: rows {row:,}-{row + CHECK_ROWS - 1:,} differ from "
                    "what was written"
                )
        self._checked[first : first + count] = True


class _RowCrcs:
    """CRC-32s of consecutive :data:`CHECK_ROWS`-row blocks, fed rows in blocks of any size."""

    def __init__(self) -> None:
        self.values: list[int] = []
        self._crc = 0
        self._rows = 0

    def add(self, block: np.ndarray) -> None:
        while len(block):
            part, block = block[: CHECK_ROWS - self._rows], block[CHECK_ROWS - self._rows :]
            self._crc = zlib.crc32(memoryview(np.ascontiguousarray(part)).cast("B"), self._crc)
            self._rows += len(part)
            if self._rows == CHECK_ROWS:
                self.values.append(self._crc)
                self._crc, self._rows = 0, 0

    def finish(self) -> np.ndarray:
        if self._rows:
            self.values.append(self._crc)
        return np.asarray(self.values, dtype=np.uint32)


class ChunkIds(Sequence[str]):
    """A segment's chunk ids as stored: UTF-8 bytes in a fixed-width array (memory-mapped
    in a big segment), decoded one at a time as they are read."""

    def __init__(self, raw: np.ndarray) -> None:
        self.raw = raw

    @classmethod
    def of(cls, chunk_ids: Sequence[str]) -> ChunkIds:
        encoded = [c.encode() for c in chunk_ids]
        return cls(np.array(encoded, dtype=f"S{max([1, *map(len, encoded)])}"))

    def __len__(self) -> int:
        return len(self.raw)

    def __getitem__(self, position: int) -> str:  # type: ignore[override]
        return bytes(self.raw[position]).decode()

    def __iter__(self) -> Iterator[str]:
        for block in range(0, len(self.raw), BLOCK_ROWS):
            yield from (b.decode() for b in self.raw[block : block + BLOCK_ROWS].tolist())

    def positions(self) -> dict[bytes, int]:
        """Each id's position, keyed by its bytes: not decoding them builds the map of a
        million ids in 0.30 s instead of 0.50."""
        return dict(zip(self.raw.tolist(), range(len(self.raw)), strict=True))


@dataclass(frozen=True)
class Segment:
    """One immutable segment, loaded (its matrix memory-mapped)."""

    name: str
    matrix: np.ndarray
    chunk_ids: Sequence[str]
    starts: np.ndarray
    """Row where each chunk's windows start; ``starts[-1]`` is the row count."""
    graph: ann.Graph | None = None
    positions: dict[str | bytes, int] = field(default_factory=dict, compare=False, repr=False)
    checks: BlockChecks | None = field(default=None, compare=False, repr=False)
    """Block checksums still to verify before rows are read (a memory-mapped matrix)."""

    def verify(self, rows: np.ndarray | None = None) -> None:
        """Raise :class:`VectorDamageError` if a block holding ``rows`` (None: all) is damaged."""
        if self.checks is not None:
            self.checks.verify(rows)

    @property
    def rows(self) -> int:
        return int(self.starts[-1])

    @cached_property
    def one_window_each(self) -> bool:
        """Every chunk has exactly one window: rows are chunks, no best-window reduction."""
        return bool(np.all(np.diff(self.starts) == 1))

    def position(self, chunk_id: str) -> int | None:
        """Where ``chunk_id`` is in the segment; the first call maps every id (once)."""
        ids = self.chunk_ids
        if isinstance(ids, ChunkIds):
            if not self.positions:
                self.positions.update(ids.positions())
            return self.positions.get(chunk_id.encode())
        if not self.positions:
            self.positions.update(zip(ids, range(len(ids)), strict=True))
        return self.positions.get(chunk_id)

    def mask(self, chunk_ids: Iterable[str]) -> np.ndarray:
        """Which of the segment's chunks are among ``chunk_ids``, by position."""
        found = np.zeros(len(self.chunk_ids), dtype=bool)
        positions = [p for p in map(self.position, chunk_ids) if p is not None]
        found[np.asarray(positions, dtype=np.int64)] = True
        return found


@dataclass(frozen=True)
class _State:
    segments: tuple[Segment, ...]
    deleted: dict[str, frozenset[str]]
    generation: int | None
    checksums: dict[str, str]
    _alive: dict[str, np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    def alive(self, segment: Segment) -> np.ndarray | None:
        """Which chunks of ``segment`` are not deleted (None: all), computed once per state."""
        gone = self.deleted.get(segment.name)
        if not gone:
            return None
        if segment.name not in self._alive:
            self._alive[segment.name] = ~segment.mask(gone)
        return self._alive[segment.name]


def _starts(counts: Sequence[int]) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(np.asarray(counts, dtype=np.int64)))).astype(np.int64)


class VectorIndex:
    """The vectors of a store. Each change builds a new state and swaps it in with one
    assignment, so a search in another thread sees the old state or the new, never a mix."""

    def __init__(self, directory: Path, dimension: int) -> None:
        self._directory = directory
        self.dimension = dimension
        self._state = _State((), {}, None, {})
        self.saved = False
        """The state in memory is the one in ``manifest.json`` (loaded from or saved to it)."""

    @property
    def directory(self) -> Path:
        return self._directory

    @property
    def generation(self) -> int | None:
        return self._state.generation

    def __len__(self) -> int:
        state = self._state
        return sum(len(s.chunk_ids) - len(state.deleted.get(s.name, ())) for s in state.segments)

    @property
    def rows(self) -> int:
        return sum(s.rows for s in self._state.segments)

    @property
    def nbytes(self) -> int:
        return sum(int(s.matrix.nbytes) for s in self._state.segments)

    @property
    def segment_names(self) -> list[str]:
        return [s.name for s in self._state.segments]

    # loading

    def load_cache(self) -> bool:
        """Load the segments the manifest lists (re-using those already loaded); False when
        there is no manifest or a segment is missing, unreadable or fails its checksum."""
        try:
            manifest = json.loads((self._directory / MANIFEST).read_text())
            if manifest.get("dimension") != self.dimension:
                return False
            loaded = {s.name: s for s in self._state.segments}
            segments = []
            for entry in manifest["segments"]:
                name = entry["name"]
                if name in loaded and self._state.checksums.get(name) == entry["checksum"]:
                    segments.append(loaded[name])
                else:
                    segments.append(self._load_segment(name, entry["checksum"]))
        except (OSError, ValueError, KeyError, TypeError):
            return False
        deleted = {e["name"]: frozenset(e.get("deleted", ())) for e in manifest["segments"]}
        checksums = {e["name"]: e["checksum"] for e in manifest["segments"]}
        self._state = _State(tuple(segments), deleted, int(manifest["generation"]), checksums)
        self.saved = True
        return True

    def _load_segment(self, name: str, checksum: str) -> Segment:
        if self._checksum(name) != checksum:
            raise ValueError(f"segment {name} does not match its checksum")
        matrix = _load_array(self._directory / f"{name}.npy")
        legacy = self._directory / f"{name}.json"
        if legacy.exists():
            meta = json.loads(legacy.read_text())
            chunk_ids: Sequence[str] = meta["chunk_ids"]
            starts = _starts(meta["counts"])
        else:
            chunk_ids = ChunkIds(_load_array(self._directory / f"{name}.ids"))
            starts = _load_array(self._directory / f"{name}.starts")
        if (
            matrix.shape != (int(starts[-1]), self.dimension)
            or len(chunk_ids) != len(starts) - 1
            or starts.dtype != np.int64
        ):
            raise ValueError(f"segment {name} has the wrong shape")
        graph_file = self._directory / f"{name}.usearch"
        graph = ann.open_graph(graph_file) if graph_file.exists() else None
        return Segment(name, matrix, chunk_ids, starts, graph, checks=self._checks(name, matrix))

    def _checks(self, name: str, matrix: np.ndarray) -> BlockChecks | None:
        """The block checks of a memory-mapped matrix (one read into memory was checked
        whole on load); None for a segment written without them."""
        crc_file = self._directory / f"{name}.crc"
        if not isinstance(matrix, np.memmap) or not crc_file.exists():
            return None
        return BlockChecks(self._directory / f"{name}.npy", _load_array(crc_file), matrix)

    def materialize(self) -> tuple[np.ndarray, list[str], np.ndarray]:
        """Every live vector as one (matrix, chunk ids, row owners), in segment order: what
        ``hierdoc check`` compares with the records."""
        blocks, ids, owners = [], [], []
        state = self._state
        for segment in state.segments:
            gone = state.deleted.get(segment.name, frozenset())
            for position, chunk_id in enumerate(segment.chunk_ids):
                if chunk_id in gone:
                    continue
                rows = segment.matrix[segment.starts[position] : segment.starts[position + 1]]
                owners.append(np.full(len(rows), len(ids), dtype=np.int64))
                ids.append(chunk_id)
                blocks.append(np.asarray(rows, dtype=np.float32))
        if not blocks:
            return np.zeros((0, self.dimension), np.float32), [], np.zeros(0, np.int64)
        return np.vstack(blocks), ids, np.concatenate(owners)

    # writing

    def rebuild(
        self, rows: Iterable[tuple[str, np.ndarray]], generation: int, save: bool = True
    ) -> None:
        """Rebuild from (chunk_id, windows) rows in document order: one segment, on disk
        when ``save`` (streamed: one block in memory at a time), else in memory only, for a
        reader's private copy."""
        if save:
            segment = self._streamed(rows)
            segments: tuple[Segment, ...] = (segment,) if segment.chunk_ids else ()
        else:
            added = list(rows)
            segments = (self._new_segment(added, save),) if added else ()
        self._state = _State(segments, {}, generation, {})
        self.saved = False
        if save:
            self._commit(self._state, obsolete=True)

    def _streamed(self, rows: Iterable[tuple[str, np.ndarray]]) -> Segment:
        chunk_ids: list[str] = []
        counts: list[int] = []

        def blocks() -> Iterator[np.ndarray]:
            pending: list[np.ndarray] = []
            for chunk_id, windows in rows:
                matrix = np.asarray(windows, dtype=np.float32).reshape(-1, self.dimension)
                chunk_ids.append(chunk_id)
                counts.append(len(matrix))
                pending.append(matrix)
                if len(pending) >= BLOCK_ROWS // 4:
                    yield np.vstack(pending)
                    pending = []
            if pending:
                yield np.vstack(pending)

        return self._written(chunk_ids, counts, blocks())

    def replace(
        self, removed: set[str], added: list[tuple[str, np.ndarray]], generation: int
    ) -> None:
        """Tombstone the ``removed`` chunks, add the ``added`` (chunk id, windows) as one new
        segment, merge or compact what the policy says, and save the manifest."""
        old = self._state
        deleted = dict(old.deleted)
        for segment in old.segments:
            gone = {c for c in removed if segment.position(c) is not None}
            if gone:
                deleted[segment.name] = deleted.get(segment.name, frozenset()) | gone
        segments = list(old.segments)
        if added:
            segments.append(self._new_segment(added, save=True))
        state = _State(tuple(segments), deleted, generation, old.checksums)
        self._state = self._maintain(state)
        self._commit(self._state, obsolete=False)

    def _new_segment(self, added: Sequence[tuple[str, np.ndarray]], save: bool) -> Segment:
        blocks = [np.asarray(w, dtype=np.float32).reshape(-1, self.dimension) for _, w in added]
        chunk_ids = [chunk_id for chunk_id, _ in added]
        counts = [len(b) for b in blocks]
        if save:
            return self._written(chunk_ids, counts, blocks)
        matrix = np.ascontiguousarray(np.vstack(blocks), dtype=np.float32)
        return Segment(f"seg-{uuid.uuid4().hex[:12]}", matrix, chunk_ids, _starts(counts))

    def _written(
        self, chunk_ids: list[str], counts: list[int], blocks: Iterable[np.ndarray]
    ) -> Segment:
        """Write a segment from its rows in consecutive blocks (``chunk_ids`` and ``counts``
        may be filled while the blocks are produced), build its graph when it is big, and
        return it loaded. Rows stream from block to file to graph: memory holds one block
        and the graph, never the whole matrix."""
        name = f"seg-{uuid.uuid4().hex[:12]}"
        self._directory.mkdir(parents=True, exist_ok=True)
        matrix_file = self._directory / f"{name}.npy"
        rows, crcs = _write_matrix(matrix_file, blocks, self.dimension)
        _save_array(self._directory / f"{name}.crc", crcs)
        ids, starts = self._written_ids(name, chunk_ids, _starts(counts))
        graph = None
        if rows >= ANN_ROWS and ann.available():
            graph_file = self._directory / f"{name}.usearch"
            graph = ann.build_graph(graph_file, _file_blocks(matrix_file), self.dimension)
        matrix = _load_array(matrix_file)
        return Segment(name, matrix, ids, starts, graph, checks=self._checks(name, matrix))

    def _written_ids(
        self, name: str, chunk_ids: Sequence[str], starts: np.ndarray
    ) -> tuple[ChunkIds, np.ndarray]:
        """Write a segment's ``.ids`` and ``.starts`` files and return them loaded."""
        ids_file, starts_file = (self._directory / f"{name}.{part}" for part in ("ids", "starts"))
        _save_array(ids_file, ChunkIds.of(chunk_ids).raw)
        _save_array(starts_file, np.asarray(starts, np.int64))
        return ChunkIds(_load_array(ids_file)), _load_array(starts_file)

    def upgrade_legacy(self) -> int:
        """Give each segment still described by ``<name>.json`` its ``.ids`` and ``.starts``
        files under a new name (the matrix and graph hard-linked, not copied) and commit the
        manifest; returns how many. Readers see it as they see a merge: a new segment
        name in the manifest, the old files removed once they are out of it."""
        state = self._state
        renamed = {
            segment.name: self._relinked(segment)
            for segment in state.segments
            if (self._directory / f"{segment.name}.json").exists()
        }
        if not renamed:
            return 0
        segments = tuple(renamed.get(s.name, s) for s in state.segments)
        deleted = {(renamed[n].name if n in renamed else n): g for n, g in state.deleted.items()}
        checksums = {n: c for n, c in state.checksums.items() if n not in renamed}
        self._commit(_State(segments, deleted, state.generation, checksums), obsolete=False)
        return len(renamed)

    def _relinked(self, segment: Segment) -> Segment:
        name = f"seg-{uuid.uuid4().hex[:12]}"
        for suffix in ("npy", "usearch", "crc"):
            source = self._directory / f"{segment.name}.{suffix}"
            if source.exists():
                _link(source, self._directory / f"{name}.{suffix}")
        ids, starts = self._written_ids(name, segment.chunk_ids, segment.starts)
        return Segment(name, segment.matrix, ids, starts, segment.graph, checks=segment.checks)

    def _maintain(self, state: _State) -> _State:
        """Rewrite segments with many tombstones, then merge full size tiers."""
        segments = list(state.segments)
        deleted = dict(state.deleted)
        for index, segment in enumerate(segments):
            gone = deleted.get(segment.name, frozenset())
            if gone and len(gone) > MAX_DELETED_SHARE * len(segment.chunk_ids):
                segments[index] = self._merged([segment], deleted)
                deleted.pop(segment.name, None)
        merged = True
        while merged:
            merged = False
            tiers: dict[int, list[int]] = {}
            for index, segment in enumerate(segments):
                tiers.setdefault(_tier(segment.rows), []).append(index)
            for members in tiers.values():
                if len(members) >= TIER_FANOUT:
                    first = members[0]
                    together = self._merged([segments[i] for i in members], deleted)
                    for i in members:
                        deleted.pop(segments[i].name, None)
                    segments = [
                        together if i == first else s
                        for i, s in enumerate(segments)
                        if i == first or i not in members
                    ]
                    merged = True
                    break
        return _State(tuple(s for s in segments if s.rows), deleted, state.generation, {})

    def _merged(self, parts: list[Segment], deleted: dict[str, frozenset[str]]) -> Segment:
        chunk_ids: list[str] = []
        counts: list[int] = []

        for segment in parts:
            segment.verify()  # damaged rows are not copied into a segment with new checksums

        def live_blocks() -> Iterator[np.ndarray]:
            for segment in parts:
                keep = ~segment.mask(deleted.get(segment.name, frozenset()))
                lengths = np.diff(segment.starts)
                chunk_ids.extend(c for c, kept in zip(segment.chunk_ids, keep, strict=True) if kept)
                counts.extend(int(n) for n in lengths[keep])
                rows_kept = np.repeat(keep, lengths)
                first = 0
                for block in self._blocks_of(segment):
                    yield block[rows_kept[first : first + len(block)]]
                    first += len(block)

        merged = self._written(chunk_ids, counts, live_blocks())
        if not chunk_ids:
            return Segment("empty", np.zeros((0, self.dimension), np.float32), [], _starts([]))
        return merged

    def _blocks_of(self, segment: Segment) -> Iterator[np.ndarray]:
        """A segment's rows in blocks: read from its file when it is memory-mapped (reading
        through the mapping would keep every page in this process's resident memory)."""
        if isinstance(segment.matrix, np.memmap):
            yield from _file_blocks(self._directory / f"{segment.name}.npy")
        else:
            for first in range(0, len(segment.matrix), BLOCK_ROWS):
                yield segment.matrix[first : first + BLOCK_ROWS]

    def _commit(self, state: _State, obsolete: bool) -> None:
        """Write the manifest atomically, then remove files no segment uses any more."""
        entries = []
        checksums = {}
        for segment in state.segments:
            checksum = state.checksums.get(segment.name) or self._checksum(segment.name)
            checksums[segment.name] = checksum
            gone = sorted(state.deleted.get(segment.name, ()))
            entries.append({"name": segment.name, "checksum": checksum, "deleted": gone})
        manifest = {
            "generation": state.generation,
            "dimension": self.dimension,
            "segments": entries,
        }
        self._directory.mkdir(parents=True, exist_ok=True)
        temporary = self._directory / f"{MANIFEST}.tmp"
        temporary.write_text(json.dumps(manifest))
        os.replace(temporary, self._directory / MANIFEST)
        self._state = _State(state.segments, state.deleted, state.generation, checksums)
        self.saved = True
        self._remove_unused({s.name for s in state.segments})

    def _checksum(self, name: str) -> str:
        """The matrix's sampled CRC, then the ids', starts' and block CRCs' (or the legacy
        JSON's CRC)."""
        matrix = sampled_crc(self._directory / f"{name}.npy")
        legacy = self._directory / f"{name}.json"
        if legacy.exists():
            return f"{matrix}:{zlib.crc32(legacy.read_bytes()):08x}"
        files = [self._directory / f"{name}.{part}" for part in ("ids", "starts", "crc")]
        parts = (sampled_crc(path) for path in files if path.suffix != ".crc" or path.exists())
        return ":".join((matrix, *parts))

    def _remove_unused(self, live: set[str]) -> None:
        """Files of segments the manifest no longer lists (a reader that still maps one
        keeps reading it: unlinking does not take an open mapping away)."""
        for path in self._directory.glob("seg-*"):
            if path.name.split(".", 1)[0] not in live:
                path.unlink(missing_ok=True)
        for legacy in ("vectors.npy", "vectors.json"):
            (self._directory / legacy).unlink(missing_ok=True)

    # searching

    def search(self, query: np.ndarray, k: int, allowed: set[str] | None = None) -> list[Hit]:
        """Top ``k`` chunks by cosine similarity of their best window."""
        state = self._state
        if k <= 0 or not state.segments:
            return []
        query = np.asarray(query, dtype=np.float32)
        found: list[tuple[float, int, int]] = []
        for order, segment in enumerate(state.segments):
            gone = state.deleted.get(segment.name, frozenset())
            alive = state.alive(segment)
            for score, position in _search_segment(segment, query, k, allowed, gone, alive):
                found.append((-score, order, position))
        best = heapq.nsmallest(k, found)
        return [
            Hit(state.segments[order].chunk_ids[position], -negative)
            for negative, order, position in best
        ]


def _write_matrix(
    path: Path, blocks: Iterable[np.ndarray], dimension: int
) -> tuple[int, np.ndarray]:
    """Write float32 blocks as one ``.npy``; return its row count and the CRC-32 of each
    :data:`CHECK_ROWS` rows of its data (:class:`BlockChecks`). The header is written
    first for zero rows and again at the end for the real count: numpy pads a header to 64
    bytes, and the shape's digits do not cross that bound (checked)."""
    rows = 0
    crcs = _RowCrcs()
    with open(path, "wb") as handle:
        _write_header(handle, 0, dimension)
        data_start = handle.tell()
        for block in blocks:
            block = np.ascontiguousarray(block, dtype="<f4").reshape(-1, dimension)
            if len(block):
                handle.write(memoryview(block).cast("B"))
                crcs.add(block)
                rows += len(block)
        handle.seek(0)
        _write_header(handle, rows, dimension)
        if handle.tell() != data_start:
            raise ValueError(f"the header of {path.name} changed length")
    return rows, crcs.finish()


def _link(source: Path, target: Path) -> None:
    """``target`` as a hard link to ``source``, or a copy where links are not supported."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _save_array(path: Path, array: np.ndarray) -> None:
    """``array`` as ``.npy`` data at ``path`` (no ``.npy`` suffix added)."""
    with open(path, "wb") as handle:
        np.save(handle, array, allow_pickle=False)


def _load_array(path: Path) -> np.ndarray:
    """A ``.npy`` array, memory-mapped when over :data:`MAP_BYTES`."""
    mapped = path.stat().st_size > MAP_BYTES
    return np.load(path, mmap_mode="r" if mapped else None, allow_pickle=False)


def _write_header(handle: BinaryIO, rows: int, dimension: int) -> None:
    header = {"descr": "<f4", "fortran_order": False, "shape": (rows, dimension)}
    np.lib.format.write_array_header_1_0(handle, header)


def _file_blocks(path: Path) -> Iterator[np.ndarray]:
    """The rows of a float32 ``.npy`` matrix, :data:`BLOCK_ROWS` at a time, by plain reads
    (the page cache holds them, not this process)."""
    with open(path, "rb") as handle:
        version = np.lib.format.read_magic(handle)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(handle)
        else:
            shape, _, dtype = np.lib.format.read_array_header_2_0(handle)
        rows, dimension = shape
        for first in range(0, rows, BLOCK_ROWS):
            count = min(BLOCK_ROWS, rows - first)
            data = handle.read(count * dimension * dtype.itemsize)
            yield np.frombuffer(data, dtype=dtype).reshape(count, dimension)


def _dot(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Each row's dot product with ``query``, in this thread: a BLAS product spreads one
    query over every core, and under load (or beside other searches) that ran 3-6x slower
    than one thread on a 2-core machine."""
    return np.einsum("ij,j->i", matrix, query)


def _tier(rows: int) -> int:
    """Size tiers by powers of :data:`TIER_FANOUT` from 1,024 rows."""
    tier = 0
    while rows >= 1024 * TIER_FANOUT ** (tier + 1):
        tier += 1
    return tier


def _search_segment(
    segment: Segment,
    query: np.ndarray,
    k: int,
    allowed: set[str] | None,
    gone: frozenset[str],
    alive: np.ndarray | None,
) -> list[tuple[float, int]]:
    """(score, position) of the segment's best ``k`` live, allowed chunks."""
    if not segment.chunk_ids:
        return []
    if segment.graph is not None:
        return _rescored(segment, query, ann.candidates(segment, query, k, allowed, gone), k)
    segment.verify()
    scores = _dot(segment.matrix, query)
    if not segment.one_window_each:
        scores = np.maximum.reduceat(scores, segment.starts[:-1])
    live = len(scores)
    if alive is not None:
        scores[~alive] = -np.inf
    if allowed is not None:
        scores[~segment.mask(allowed)] = -np.inf
    if alive is not None or allowed is not None:
        live = int(np.isfinite(scores).sum())
    count = min(k, live)
    if count == 0:
        return []
    top = np.argpartition(scores, len(scores) - count)[len(scores) - count :]
    top = top[np.lexsort((top, -scores[top]))]
    return list(zip(scores[top].tolist(), top.tolist(), strict=True))


def _prefetch(matrix: np.ndarray, first: np.ndarray, lengths: np.ndarray) -> int:
    """Ask the kernel for the pages of the rows about to be read from a memory-mapped
    matrix (``MADV_WILLNEED``, one call per run of rows): on a cold page cache the reads
    then go out together instead of one page fault after another. Returns the runs asked
    for (0 for a matrix in memory; it stops at the first the kernel refuses)."""
    mapping = getattr(matrix, "_mmap", None)
    if mapping is None or not hasattr(mmap, "MADV_WILLNEED"):
        return 0
    row_bytes = matrix.shape[1] * matrix.itemsize
    data_start = matrix.offset % mmap.ALLOCATIONGRANULARITY  # where numpy's mapping starts
    asked = 0
    for row, count in zip(first.tolist(), lengths.tolist(), strict=True):
        start = data_start + row * row_bytes
        aligned = start - start % mmap.PAGESIZE
        try:
            mapping.madvise(mmap.MADV_WILLNEED, aligned, start - aligned + count * row_bytes)
        except (OSError, ValueError):
            break
        asked += 1
    return asked


def _rescored(
    segment: Segment, query: np.ndarray, positions: np.ndarray, k: int
) -> list[tuple[float, int]]:
    """Exact best-window scores of candidate chunks (every window of each, not only the
    ones the graph returned), in one product over their gathered rows."""
    if len(positions) == 0:
        return []
    positions = np.unique(positions)
    first, lengths = segment.starts[positions], np.diff(segment.starts)[positions]
    offsets = np.cumsum(lengths) - lengths
    rows = np.repeat(first - offsets, lengths) + np.arange(int(lengths.sum()))
    segment.verify(rows)
    _prefetch(segment.matrix, first, lengths)
    scores = np.maximum.reduceat(_dot(segment.matrix[rows], query), offsets)
    order = np.lexsort((positions, -scores))[:k]
    return [(float(scores[i]), int(positions[i])) for i in order]
