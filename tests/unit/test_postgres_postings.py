"""The packed postings' encodings (no server needed): lengths, integer arrays, rows, ranges."""

from __future__ import annotations

import numpy as np

from hierdoc.store.postgres import postings
from hierdoc.store.postgres.lexical import fieldnorm


def test_every_scored_length_has_a_one_byte_id() -> None:
    lengths = [*range(2000), 65_535, 65_536, 1_000_003, 2**31 - 1]
    norms = np.array([fieldnorm(n) for n in lengths])
    assert len(postings.NORMS) <= 256
    assert (postings.NORMS[postings.norm_ids(norms)] == norms).all()


def test_integers_pack_in_the_smallest_type() -> None:
    for top, size in ((255, 1), (256, 2), (65_535, 2), (65_536, 4)):
        values = np.array([0, 3, top])
        data = postings.pack(values)
        assert len(data) == 3 * size
        assert postings.unpack(data, 3).tolist() == values.tolist()


def test_rows_are_per_term_by_chunk_number_at_most_a_block() -> None:
    count = postings.BLOCK + 5
    terms = np.array([7] * count + [3, 3])
    nos = np.array([*range(count, 0, -1), 9, 2])
    tfs = np.ones(len(terms), np.int64)
    norms = np.full(len(terms), 40)
    rows = list(postings.posting_rows(terms, nos, tfs, norms))
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        (3, 2, 9, 2),
        (7, 1, postings.BLOCK, postings.BLOCK),
        (7, postings.BLOCK + 1, count, 5),
    ]
    read = postings.TermPostings.of_rows([(r[4], r[5], r[6], r[3]) for r in rows[1:]])
    assert read.nos.tolist() == list(range(1, count + 1)) and set(read.norms) == {40}


def test_chunk_numbers_in_ranges() -> None:
    nos = np.array([0, 1, 5, 6, 10, 11, 20])
    inside = postings.in_ranges(nos, [(10, 11), (1, 5)])
    assert nos[inside].tolist() == [1, 5, 10, 11]
    assert not postings.in_ranges(nos, []).any()
