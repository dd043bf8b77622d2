"""What reading every value of the records costs ``hierdoc check`` (text decodes, JSON
fields parse, offsets within their chunk: ``records_findings``), at each size given.

The records are ``store_backends.py``'s synthetic corpus (documents of 100 chunks of 120
Zipf-distributed words) written straight to a record store: no BM25 index, no vectors.

    python benchmarks/check_records.py [--chunks 100000] [--work /tmp/dir]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from store_backends import CHUNKS_PER_DOCUMENT, corpus  # noqa: E402

from hierdoc.store.local.check import records_findings  # noqa: E402
from hierdoc.store.local.records import RecordStore  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(dir=args.work))
    try:
        records = RecordStore(work / "records.sqlite")
        records.set_up()
        documents = corpus(np.random.default_rng(1), args.chunks // CHUNKS_PER_DOCUMENT)
        for record, chunks, vectors in documents:
            records.replace_document(record, [], chunks, vectors)
        records.close()
        db = sqlite3.connect(f"file:{work / 'records.sqlite'}?mode=ro", uri=True)
        for _ in range(2):  # the first run warms the page cache
            start = time.perf_counter()
            findings = records_findings(db)
            seconds = time.perf_counter() - start
        print(f"{args.chunks:,} chunks: {seconds:.2f} s, {len(findings)} findings")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
