"""Sentence boundaries found on several threads at once (ingest's reading thread and a
search) are each thread's own."""

import sys
from concurrent.futures import ThreadPoolExecutor

from hierdoc.text.sentences import block_cuts

BLOCKS = [
    f"Rule {n} applies under Sec. {n}(b) of title {n}, U.S.C. to employers. "
    + "Each employer files a return. " * (n % 7 + 1)
    + f"See e.g. part {n}. The end of block {n}."
    for n in range(40)
]


def test_threads_segmenting_at_once_get_their_own_boundaries() -> None:
    segment = block_cuts.__wrapped__  # past the cache: every call segments
    expected = [segment(block) for block in BLOCKS]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns often, inside each segmentation
    try:
        with ThreadPoolExecutor(4) as pool:
            found = list(pool.map(segment, BLOCKS * 5))
    finally:
        sys.setswitchinterval(interval)
    assert found == expected * 5
