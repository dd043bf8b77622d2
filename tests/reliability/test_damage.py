"""Damaged derived files: random damage to the BM25 index and the vector
segments never gives wrong results with exit 0. A reader answers as the intact index
did (or with a clear error); the next writer repairs the files from SQLite, after which
``hierdoc check`` finds nothing.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from hierdoc.errors import HierdocError

from .harness import EXIT_OK, Figures, check_report, open_index, start_ingest, write_corpus

pytestmark = [pytest.mark.reliability, pytest.mark.slow]

QUERIES = ("fees", "notices in writing", "liability capped", "zqmark0003", '"thirty days"')
TRIALS_PER_KIND = 4


def _answers(index: Path) -> dict[tuple[str, str], list[str]]:
    with open_index(index, "r") as reader:
        return {
            (mode, query): [r.chunk_id for r in reader.search(query, mode=mode, top_k=8).results]
            for mode in ("keyword", "semantic", "exact")
            for query in QUERIES
            if (mode == "exact") == query.startswith('"')
        }


def _files(index: Path, part: str, pattern: str) -> list[Path]:
    return sorted(p for p in (index / part).glob(pattern) if p.is_file())


def _flip_bytes(rng: random.Random, index: Path) -> None:
    path = rng.choice(_files(index, "bm25", "*.*[!k]"))  # a segment file or meta.json
    data = bytearray(path.read_bytes())
    for _ in range(rng.randint(1, 8)):
        data[rng.randrange(len(data))] ^= 0xFF
    path.write_bytes(bytes(data))


def _truncate(rng: random.Random, index: Path) -> None:
    path = rng.choice(_files(index, "bm25", "*.*[!k]") + _files(index, "vectors", "seg-*"))
    data = path.read_bytes()
    path.write_bytes(data[: rng.randrange(len(data))])


def _delete(rng: random.Random, index: Path) -> None:
    rng.choice(_files(index, "bm25", "*.*[!k]") + _files(index, "vectors", "*")).unlink()


def _zero_vectors(rng: random.Random, index: Path) -> None:
    path = rng.choice(_files(index, "vectors", "seg-*.npy"))
    matrix = np.load(path)
    matrix[rng.randrange(len(matrix))] = 0
    np.save(path, matrix)


def _shuffle_ids(rng: random.Random, index: Path) -> None:
    path = rng.choice(_files(index, "vectors", "seg-*.ids"))
    ids = np.load(path).tolist()
    rng.shuffle(ids)
    with open(path, "wb") as handle:
        np.save(handle, np.array(ids))


def _garbage_state(rng: random.Random, index: Path) -> None:
    path = rng.choice([index / "bm25" / "hierdoc-bm25.json", index / "vectors" / "manifest.json"])
    path.write_bytes(rng.randbytes(rng.randint(0, 64)))


DAMAGE: dict[str, Callable[[random.Random, Path], None]] = {
    "flipped BM25 bytes": _flip_bytes,
    "truncated file": _truncate,
    "deleted file": _delete,
    "zeroed vector row": _zero_vectors,
    "shuffled vector ids": _shuffle_ids,
    "garbage state file": _garbage_state,
}


def test_random_damage_never_gives_wrong_results(tmp_path: Path) -> None:
    folder, intact = tmp_path / "docs", tmp_path / "intact"
    write_corpus(folder, 40)
    code, _ = start_ingest(intact, [folder]).wait()
    assert code == EXIT_OK
    expected = _answers(intact)
    rng = random.Random(16)
    trials, clear_errors, wrong = 0, 0, []
    for kind, damage in DAMAGE.items():
        for n in range(TRIALS_PER_KIND):
            index = tmp_path / f"damaged-{trials}"
            shutil.copytree(intact, index)
            damage(rng, index)
            trials += 1
            try:
                if _answers(index) != expected:
                    wrong.append((kind, n, "reader"))
            except HierdocError as error:  # a clear error, not wrong results
                clear_errors += 1
                assert "\n" not in str(error)
            open_index(index, "w").close()  # the writer repairs from SQLite
            if check_report(index) or _answers(index) != expected:
                wrong.append((kind, n, "after repair"))
            shutil.rmtree(index)
    figures = {"trials": trials, "wrong_results": len(wrong), "clear_errors": clear_errors}
    Figures("damage", figures).save()
    assert not wrong, wrong
