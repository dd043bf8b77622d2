"""What the lexical index keeps of a chunk, and exact phrases in SQL, scored as tantivy
scores them in the local backend.

A chunk's terms (``analyzer.terms(context + "\\n" + content)``) become its postings
(:mod:`.postings`, searched by :mod:`.keyword`); its length, its length as tantivy's
one-byte *fieldnorm* encodes it (:func:`fieldnorm`), and its unstemmed words (a
``text[]``, for phrases) sit on the chunk row. ``term_stats`` and the ``state`` row
(chunk count, total length) change in the same transaction as the chunks, so a query
reads consistent statistics. Scores: :data:`~hierdoc.text.bm25.K1` and ``B``, idf =
ln(1 + (N - n + 0.5) / (n + 0.5)), the average length over the indexed chunks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import psycopg

from ...models import Hit, SearchFilter, StoredChunk
from ...text import bm25
from ...text.analyze import TextAnalyzer
from .filters import filter_sql


def fieldnorm(length: int) -> int:
    """The length tantivy (like Lucene) scores with: the largest value of its one-byte
    scale (exact below 24, then 3 significant bits) not above ``length``."""
    if length < 24:
        return max(length, 0)
    rest = length - 24
    if rest < 8:
        return length
    shift = rest.bit_length() - 4
    return 24 + ((rest >> shift) << shift)


@dataclass(frozen=True)
class LexicalRow:
    """What the lexical index keeps of one chunk."""

    chunk_id: str
    terms: Counter[str]
    length: int
    words: list[str]


def lexical_row(stored: StoredChunk, analyzer: TextAnalyzer) -> LexicalRow:
    chunk = stored.chunk
    text = f"{stored.context}\n{chunk.content}" if stored.context else chunk.content
    terms = analyzer.terms(text)
    return LexicalRow(chunk.chunk_id, Counter(terms), len(terms), analyzer.words(chunk.content))


_PHRASE = """
WITH corpus AS (SELECT chunks, words FROM state WHERE chunks > 0),
idf AS (
    SELECT sum(ln(1 + (corpus.chunks - n.df + 0.5) / (n.df + 0.5))) AS weight
    FROM unnest(%(words)s::text[]) AS asked(word) CROSS JOIN corpus
    CROSS JOIN LATERAL (SELECT count(*) AS df FROM chunks WHERE words @> ARRAY[asked.word]) n
), found AS (
    SELECT c.chunk_id, c.source, c.ordinal, c.words_norm,
           (SELECT count(*) FROM generate_subscripts(c.words, 1) AS i
            WHERE c.words[i:i + %(n)s - 1] = %(words)s::text[]) AS freq
    FROM chunks c
    WHERE c.words @> %(words)s::text[] AND {where}
)
SELECT f.chunk_id,
       idf.weight * f.freq * (%(k1)s + 1)
       / (f.freq + %(k1)s * (1 - %(b)s + %(b)s * f.words_norm
          / (corpus.words::float8 / corpus.chunks))) AS score
FROM found f CROSS JOIN idf CROSS JOIN corpus
WHERE f.freq > 0
ORDER BY score DESC, f.chunk_id
LIMIT %(k)s
"""


def phrase_search(
    conn: psycopg.Connection, words: Sequence[str], k: int, filt: SearchFilter | None
) -> list[Hit]:
    if k <= 0 or not words:
        return []
    where, params = filter_sql(filt, "c")
    values = {**params, "words": list(words), "n": len(words), "k": k, "k1": bm25.K1, "b": bm25.B}
    rows = conn.execute(_PHRASE.format(where=where), values).fetchall()
    return [Hit(chunk_id, float(score)) for chunk_id, score in rows]
