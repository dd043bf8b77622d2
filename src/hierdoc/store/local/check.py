"""Damage detection for a local index: the derived files checked against SQLite.

SQLite (``records.sqlite``) is the source of truth; the BM25 index and the vector cache
are derived from it, so damage to them is repaired by rebuilding them from it.

- At commit, the BM25 state file records a CRC-32 of each file of tantivy's current
  segments (:func:`bm25_checksums`), and the vector manifest one of each segment's
  matrix and chunk ids (:mod:`.vectors`). On open these are checked
  (:func:`bm25_damage`, and ``VectorIndex.load_cache``): a mismatch makes the writer
  rebuild the index on disk and a reader rebuild a private copy in memory, so damage
  never shows as wrong results.
- A ``records.sqlite`` that is gone while derived files remain cannot be rebuilt from
  them: opening the index is then a :class:`DamagedIndexError` (:func:`records_missing`),
  and nothing is wiped unless asked (``--force``).
- :func:`full_check` (``hierdoc check``) reads everything: SQLite's
  ``PRAGMA integrity_check``, then every value a search reads from SQLite (text decodes
  as UTF-8, JSON fields parse, offsets lie within their chunk: :func:`records_findings`,
  which ``integrity_check`` does not look at), every BM25 document and every vector,
  against SQLite. Damage to the records cannot be repaired from the derived files.

The functions take paths and arrays, not store objects, so that a change of the vector
storage format only changes what is passed in.
"""

from __future__ import annotations

import json
import os
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import NotFoundError
from .connection import DamagedIndexError, damage
from .records_check import record_problems
from .schema import stored_chunk_total

BM25_STATE_FILE = "hierdoc-bm25.json"
VECTOR_FILES = ("manifest.json",)
_CHUNK_BYTES = 1 << 20
#: Files up to this size are checksummed whole, larger ones by samples (:func:`sampled_crc`).
FULL_CHECK_BYTES = 64 << 20
#: BM25 files up to this size are checksummed whole; bigger ones by samples (tantivy's
#: files are many: at 1M chunks, 79 files of 856 MB, 350 MB of them under 64 MB).
BM25_WHOLE_BYTES = 4 << 20


@dataclass
class Finding:
    """One problem found by :func:`full_check`."""

    part: str
    """"records", "bm25" or "vectors"."""
    problem: str
    repairable: bool = True


@dataclass
class CheckReport:
    """What :func:`full_check` looked at and found."""

    directory: Path
    chunks: int = 0
    findings: list[Finding] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    def parts(self) -> set[str]:
        return {f.part for f in self.findings}


def crc32_file(path: Path) -> str:
    """The CRC-32 of a file, read in 1 MB pieces."""
    crc = 0
    with open(path, "rb") as handle:
        while piece := handle.read(_CHUNK_BYTES):
            crc = zlib.crc32(piece, crc)
    return f"{crc:08x}"


def _segment_files(directory: Path) -> Iterator[Path]:
    """tantivy's ``meta.json`` and the files of the segments it lists."""
    meta_file = directory / "meta.json"
    yield meta_file
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    for segment in meta.get("segments", []):
        prefix = str(segment["segment_id"]).replace("-", "")
        yield from sorted(directory.glob(prefix + ".*"))


def sampled_crc(path: Path, whole_up_to: int | None = None) -> str:
    """A CRC-32 of the whole file when small (up to ``whole_up_to``, by default
    :data:`FULL_CHECK_BYTES`), else of its size and 64 blocks spread over it."""
    size = path.stat().st_size
    crc = zlib.crc32(str(size).encode())
    with open(path, "rb") as handle:
        if size <= (FULL_CHECK_BYTES if whole_up_to is None else whole_up_to):
            return f"{zlib.crc32(handle.read(), crc):08x}"
        piece = min(65536, size)
        offsets = [block * (size - piece) // 63 for block in range(64)]
        _ask_ahead(handle.fileno(), offsets, piece)
        for offset in offsets:
            handle.seek(offset)
            crc = zlib.crc32(handle.read(piece), crc)
    return f"{crc:08x}"


def _ask_ahead(fd: int, offsets: list[int], length: int) -> None:
    """Tell the kernel every block about to be read (``POSIX_FADV_WILLNEED``), so that on a
    cold page cache the 64 reads go to the disk together rather than one after another."""
    advise = getattr(os, "posix_fadvise", None)
    if advise is None:
        return
    for offset in offsets:
        try:
            advise(fd, offset, length, os.POSIX_FADV_WILLNEED)
        except OSError:
            return


def bm25_checksum(path: Path) -> str:
    """The CRC-32 of a BM25 file; of a file over :data:`BM25_WHOLE_BYTES`, the
    :func:`sampled_crc` marked ``s:``, so that opening a large index does not read it all."""
    if path.stat().st_size > BM25_WHOLE_BYTES:
        return f"s:{sampled_crc(path, BM25_WHOLE_BYTES)}"
    return crc32_file(path)


def bm25_checksums(directory: Path, recorded: Any = None) -> dict[str, str]:
    """File name -> :func:`bm25_checksum` for tantivy's current files in ``directory``
    (written at commit). A file the last commit ``recorded`` keeps its checksum: tantivy
    never rewrites a segment's file (a change writes new ones), so a commit reads only the
    new files and ``meta.json``, not the whole index."""
    known = recorded if isinstance(recorded, dict) else {}
    return {
        path.name: known[path.name] if _kept(path, known) else bm25_checksum(path)
        for path in _segment_files(directory)
    }


def _kept(path: Path, known: dict[str, str]) -> bool:
    """Whether the recorded checksum of ``path`` still serves: a segment file recorded in the
    form its size calls for (a big file recorded whole by an earlier version is sampled
    anew, so that opening stops reading all of it)."""
    recorded = known.get(path.name)
    if recorded is None or path.name == "meta.json":
        return False
    return recorded.startswith("s:") == (path.stat().st_size > BM25_WHOLE_BYTES)


def bm25_damage(directory: Path, recorded: Any) -> str | None:
    """Why the BM25 files in ``directory`` differ from the checksums recorded at commit,
    or None (also when nothing was recorded: an index written before checksums)."""
    if not isinstance(recorded, dict):
        return None
    for name, expected in recorded.items():
        path = directory / name
        try:
            actual = bm25_checksum(path) if expected.startswith("s:") else crc32_file(path)
        except OSError:
            return f"{name} is missing"
        if actual != expected:
            return f"{name} does not match its checksum"
    return None


def records_missing(directory: Path, records_file: str) -> DamagedIndexError | None:
    """The error to raise when ``records_file`` is gone but derived indexes remain."""
    if (directory / records_file).exists():
        return None
    derived = [
        directory / "bm25" / BM25_STATE_FILE,
        *(directory / "vectors" / name for name in VECTOR_FILES),
    ]
    if not any(path.exists() for path in derived):
        return None
    return DamagedIndexError(
        f"{records_file} is missing from {directory} but its BM25 and vector indexes are "
        "there; they cannot give the records back: restore the file, or rebuild the index "
        "with: hierdoc ingest PATH --force"
    )


def full_check(directory: Path, records_file: str, bm25_reader: Any) -> CheckReport:
    """Check every part of the index in ``directory`` against its records; nothing is written.

    ``bm25_reader`` opens the BM25 directory read-only (a callable taking the path), so
    that this module needs no analyzer.
    """
    report = CheckReport(directory)
    missing = records_missing(directory, records_file)
    if missing is not None:
        report.findings.append(Finding("records", str(missing), repairable=False))
        return report
    db = _read_only(directory, records_file)
    try:
        report.findings += _records_damage(db, report)
        if report.findings:
            return report
        generation = int(_meta(db, "generation") or 0)
        chunk_ids = [row[0] for row in db.execute("SELECT chunk_id FROM chunks")]
        report.chunks = len(chunk_ids)
        kept = stored_chunk_total(db)
        if kept is not None and kept != len(chunk_ids):
            problem = f"kept as {kept:,} rows, the chunks table holds {len(chunk_ids):,}"
            report.findings.append(Finding("chunk total", problem))
        report.findings += _check_bm25(directory / "bm25", generation, set(chunk_ids), bm25_reader)
        report.findings += _check_vectors(directory / "vectors", generation, db)
    finally:
        db.close()
    return report


def _records_damage(db: sqlite3.Connection, report: CheckReport) -> list[Finding]:
    """SQLite's integrity check, then every value a search reads (counting the chunks)."""
    try:
        integrity = [row[0] for row in db.execute("PRAGMA integrity_check")]
        if integrity != ["ok"]:
            problem = "integrity_check: " + "; ".join(integrity[:3])
            return [Finding("records", problem, repairable=False)]
        report.chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return records_findings(db)
    except sqlite3.DatabaseError as error:
        return [Finding("records", damage(error) or f"unreadable ({error})", repairable=False)]


def records_findings(db: sqlite3.Connection) -> list[Finding]:
    """What in the records a search would fail on or misread (:mod:`.records_check`)."""
    return [Finding("records", problem, repairable=False) for problem in record_problems(db)]


def _read_only(directory: Path, records_file: str) -> sqlite3.Connection:
    if not (directory / records_file).is_file():
        raise NotFoundError(f"no index at {directory}: run `hierdoc ingest PATH`")
    return sqlite3.connect(f"file:{directory / records_file}?mode=ro", uri=True)


def stored_dimension(directory: Path, records_file: str) -> int:
    """The vector dimension the index was built with (0 when unrecorded)."""
    db = _read_only(directory, records_file)
    try:
        return int(_meta(db, "dimension") or 0)
    finally:
        db.close()


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def _check_bm25(
    directory: Path, generation: int, chunk_ids: set[str], bm25_reader: Any
) -> list[Finding]:
    try:
        state = json.loads((directory / BM25_STATE_FILE).read_text(encoding="utf-8"))
        damage = bm25_damage(directory, state.get("files"))
        if damage:
            return [Finding("bm25", damage)]
        if state.get("generation") != generation:
            return [Finding("bm25", f"generation {state.get('generation')}, records {generation}")]
        indexed = bm25_reader(directory).stored_chunk_ids()
    except Exception as error:  # any failure to read a derived index is damage to report
        return [Finding("bm25", f"unreadable ({type(error).__name__}: {error})")]
    return _id_findings("bm25", indexed, chunk_ids)


def _id_findings(part: str, found: list[str], expected: set[str]) -> list[Finding]:
    findings = []
    if len(found) != len(set(found)):
        findings.append(Finding(part, f"{len(found) - len(set(found))} duplicate chunk(s)"))
    if missing := expected - set(found):
        findings.append(Finding(part, f"{len(missing)} chunk(s) of the records missing"))
    if extra := set(found) - expected:
        findings.append(Finding(part, f"{len(extra)} chunk(s) not in the records"))
    return findings


def _check_vectors(directory: Path, generation: int, db: sqlite3.Connection) -> list[Finding]:
    from .vectors import VectorIndex

    try:
        vectors = VectorIndex(directory, int(_meta(db, "dimension") or 0))
        if not vectors.load_cache():
            return [Finding("vectors", "a segment is missing, unreadable or fails its checksum")]
        if vectors.generation != generation:
            return [Finding("vectors", f"generation {vectors.generation}, records {generation}")]
        matrix, chunk_ids, owners = vectors.materialize()
    except Exception as error:  # any failure to read a derived index is damage to report
        return [Finding("vectors", f"unreadable ({type(error).__name__}: {error})")]
    expected: dict[str, list[np.ndarray]] = {}
    for chunk_id, blob in db.execute(
        "SELECT chunk_id, vector FROM vectors ORDER BY chunk_id, window"
    ):
        expected.setdefault(chunk_id, []).append(np.frombuffer(blob, dtype=np.float32))
    return _vector_findings(chunk_ids, owners, matrix, expected)


def _vector_findings(
    chunk_ids: list[str], owners: np.ndarray, matrix: np.ndarray, expected: dict[str, list]
) -> list[Finding]:
    findings = _id_findings("vectors", chunk_ids, set(expected))
    if findings:
        return findings
    order = np.argsort(owners, kind="stable")
    bounds = np.searchsorted(owners[order], np.arange(len(chunk_ids) + 1))
    differing = 0
    for index, chunk_id in enumerate(chunk_ids):
        rows = matrix[order[bounds[index] : bounds[index + 1]]]
        windows = np.vstack(expected[chunk_id])
        differing += rows.shape != windows.shape or not np.array_equal(rows, windows)
    if differing:
        return [Finding("vectors", f"the vectors of {differing} chunk(s) differ from the records")]
    return []
