"""The PostgreSQL keyword search's score arrays, indexed by chunk number."""

from __future__ import annotations

import numpy as np

from hierdoc.store.postgres.keyword import _Tally


def part(nos: list[int], weights: list[float], norms: list[int]) -> tuple[np.ndarray, ...]:
    return np.array(nos, np.int32), np.array(weights), np.array(norms, np.int64)


def test_each_chunks_weights_are_summed_across_terms() -> None:
    tally = _Tally(10)
    tally.add([part([1, 4], [1.0, 2.0], [5, 6]), part([4, 9], [0.5, 3.0], [6, 7])])
    found = tally.candidates()
    assert found.nos.tolist() == [1, 4, 9]
    assert found.scores.tolist() == [1.0, 2.5, 3.0]
    assert found.norms.tolist() == [5, 6, 7]
    assert tally.candidates(np.array([4])).scores.tolist() == [2.5]


def test_chunks_numbered_past_the_size_known_at_the_start_are_kept() -> None:
    tally = _Tally(3)  # chunks written while the search reads
    tally.add([part([2], [1.0], [4])])
    tally.add([part([2, 8], [0.25, 2.0], [4, 9])])
    found = tally.candidates()
    assert found.nos.tolist() == [2, 8]
    assert found.scores.tolist() == [1.25, 2.0]
