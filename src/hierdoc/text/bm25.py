"""BM25 as the index scores it (tantivy, Lucene): its two parameters and its idf, shared
by the backends that score in Python or SQL and by the passages that score sentences."""

from __future__ import annotations

import math

K1 = 1.2
"""How quickly a term's frequency in a text saturates."""
B = 0.75
"""How much a text's length, against the average, normalises its term frequencies."""


def idf(count: int, having: int) -> float:
    """The inverse document frequency of a term ``having`` of ``count`` texts hold."""
    return math.log(1 + (count - having + 0.5) / (having + 0.5))


def term_score(tf: int, length: float, average: float) -> float:
    """A term's BM25 weight, before its idf, in a text of ``length`` holding it ``tf``
    times, among texts of ``average`` length."""
    norm = K1 * (1 - B + B * length / average)
    return tf * (K1 + 1) / (tf + norm)
