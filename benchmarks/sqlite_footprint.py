"""SQLite footprint: bytes per chunk and per section of each table and index of
an index's ``records.sqlite``, from SQLite's ``dbstat`` virtual table.

``pages`` is what a table or index occupies on disk (whole pages, free space included);
``payload`` is the bytes of its rows. The file's free pages (left by deletions, reused by
later writes) are counted apart. The index is opened read-only; ``--compact`` measures a
VACUUMed copy in a temporary directory instead (what the same rows need, free pages gone).

    python benchmarks/sqlite_footprint.py PATH [--compact] [--top 20]

PATH is an index directory or its ``records.sqlite``.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Footprint:
    """One table or index: its name, what it is, bytes on disk and bytes of rows."""

    name: str
    kind: str
    pages: int
    payload: int


@dataclass(frozen=True)
class FileFootprint:
    path: Path
    file_bytes: int
    page_size: int
    free_bytes: int
    chunks: int
    sections: int
    objects: list[Footprint]


def records_file(path: Path) -> Path:
    return path / "records.sqlite" if path.is_dir() else path


def measure(path: Path) -> FileFootprint:
    """The footprint of ``path`` (a ``records.sqlite``), read-only."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        kinds = dict(db.execute("SELECT name, type FROM sqlite_master").fetchall())
        rows = db.execute(
            "SELECT name, sum(pgsize), sum(payload) FROM dbstat GROUP BY name "
            "ORDER BY sum(pgsize) DESC, name"
        ).fetchall()
        page_size = db.execute("PRAGMA page_size").fetchone()[0]
        page_count = db.execute("PRAGMA page_count").fetchone()[0]
        free = db.execute("PRAGMA freelist_count").fetchone()[0]
        chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
        sections = db.execute("SELECT count(*) FROM sections").fetchone()[0]
    finally:
        db.close()
    objects = [
        Footprint(name, kinds.get(name, "table"), pages, payload) for name, pages, payload in rows
    ]
    return FileFootprint(
        path, page_size * page_count, page_size, free * page_size, chunks, sections, objects
    )


def compacted(path: Path, folder: Path) -> Path:
    """A VACUUMed copy of ``path`` in ``folder`` (the source is only read)."""
    target = folder / "records.sqlite"
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        db.execute("VACUUM INTO ?", (str(target),))
    finally:
        db.close()
    return target


def per(value: int, count: int) -> str:
    return f"{value / count:,.0f}" if count else "-"


def table(found: FileFootprint, top: int) -> str:
    lines = [
        f"{found.path}: {found.file_bytes / 1e6:.1f} MB, page size {found.page_size}, "
        f"{found.chunks:,} chunks, {found.sections:,} sections, "
        f"{per(found.file_bytes, found.chunks)} B/chunk, "
        f"free pages {found.free_bytes / 1e6:.1f} MB",
        "",
        f"| {'table or index':<32} | {'kind':<5} | {'MB':>6} | {'B/chunk':>7} | "
        f"{'B/section':>9} | {'payload B/chunk':>15} |",
        f"|{'-' * 34}|{'-' * 7}|{'-' * 8}|{'-' * 9}|{'-' * 11}|{'-' * 17}|",
    ]
    for item in found.objects[:top]:
        lines.append(
            f"| {item.name:<32} | {item.kind:<5} | {item.pages / 1e6:>6.2f} | "
            f"{per(item.pages, found.chunks):>7} | {per(item.pages, found.sections):>9} | "
            f"{per(item.payload, found.chunks):>15} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="index directory or records.sqlite")
    parser.add_argument("--compact", action="store_true", help="measure a VACUUMed copy")
    parser.add_argument("--top", type=int, default=20, help="tables and indexes shown")
    args = parser.parse_args()
    path = records_file(args.path)
    if not args.compact:
        print(table(measure(path), args.top))
        return
    with tempfile.TemporaryDirectory() as folder:
        print(table(measure(compacted(path, Path(folder))), args.top))


if __name__ == "__main__":
    main()
