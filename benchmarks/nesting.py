"""Ingest cost of deeply nested numbering: time and SQLite bytes per KB of input.

A clause numbered ``1.1.1...1`` at depth k has a label of about 2k characters, so a file
nested 1,000 deep is about 1 MB. The shallow row is the same clauses 10 deep, repeated to
300 KB. Hash embedder (tests/hash_embedder.py): what is measured is structure, chunking,
extraction and storage, not the model.

    python benchmarks/nesting.py [DEPTH ...]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hierdoc import Index  # noqa: E402
from hierdoc.config import Settings  # noqa: E402
from tests.hash_embedder import HashEmbedder  # noqa: E402
from tests.unit.test_nesting_scale import nested, shallow  # noqa: E402


def measure(text: str) -> tuple[float, float, float, int]:
    """KB of input, ms per KB, SQLite KB per KB, chunks."""
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root) / "docs"
        folder.mkdir()
        (folder / "deep.txt").write_text(text)
        started = time.perf_counter()
        with Index.open(Path(root) / "index", Settings(), embedder=HashEmbedder()) as index:
            index.ingest([folder])
            chunks = index.store.stats().chunks
        elapsed = time.perf_counter() - started
        size = sum(f.stat().st_size for f in (Path(root) / "index").glob("records.sqlite*"))
    kb = len(text) / 1024
    return kb, elapsed * 1000 / kb, size / 1024 / kb, chunks


def main(depths: list[int]) -> None:
    print(f"{'input':<22} {'KB':>7} {'ms/KB':>7} {'SQLite KB/KB':>13} {'chunks':>7}")
    rows = [("depth 10, repeated", shallow(300_000))]
    rows += [(f"depth {depth}", nested(depth)) for depth in depths]
    for label, text in rows:
        kb, ms, ratio, chunks = measure(text)
        print(f"{label:<22} {kb:>7.0f} {ms:>7.1f} {ratio:>13.1f} {chunks:>7}", flush=True)


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [100, 300, 500, 1000])
