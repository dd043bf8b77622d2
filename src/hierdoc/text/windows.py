"""Window geometry: how a chunk is cut into the windows its vectors are computed from.

A chunk may be longer than the embedding model reads (all-MiniLM-L6-v2 reads 256 word
pieces; chunks default to 800 tokens). The embedder cuts each text into overlapping
windows that fit, each window prefixed with the chunk's structural context; the passage
scorer cuts the same windows again to know which part of a chunk each stored vector
covers. Both call :func:`cut_windows`, so the two cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from .tokenizer import Tokenizer

__all__ = ["WINDOW_OVERLAP", "WINDOW_TOKENS", "Windows", "cut_windows", "fitted_prefix"]

WINDOW_TOKENS = 254
"""The window of the default model: all-MiniLM-L6-v2 reads 256 word pieces, less [CLS]
and [SEP]."""
WINDOW_OVERLAP = 32
"""Tokens each window shares with the one before it."""


@dataclass(frozen=True)
class Windows:
    """The context prefix every window starts with, and the (start, end) of each window's
    text in the chunk; the spans cover the whole text."""

    prefix: str
    spans: tuple[tuple[int, int], ...]

    def texts(self, text: str) -> list[str]:
        """Prefix + window text, as the embedder reads them."""
        return [self.prefix + text[start:end] for start, end in self.spans]


def cut_windows(
    text: str,
    context: str,
    tokenizer: Tokenizer,
    limit: int = WINDOW_TOKENS,
    overlap: int = WINDOW_OVERLAP,
) -> Windows:
    """The windows of ``text``, each at most ``limit`` tokens with its context prefix, each
    after the first starting ``overlap`` tokens before the previous one ends."""
    prefix = fitted_prefix(context.strip(), tokenizer, limit // 2)
    budget = limit - tokenizer.count(prefix)
    offsets = tokenizer.offsets(text)
    if len(offsets) <= budget:
        return Windows(prefix, ((0, len(text)),))
    step = max(1, budget - overlap)
    spans = []
    for first in range(0, len(offsets), step):
        last = min(first + budget, len(offsets)) - 1
        spans.append((offsets[first][0], offsets[last][1]))
        if last == len(offsets) - 1:
            break
    return Windows(prefix, tuple(spans))


def fitted_prefix(context: str, tokenizer: Tokenizer, limit: int) -> str:
    """The context, cut to at most ``limit`` tokens so that each window keeps room for text."""
    if not context:
        return ""
    offsets = tokenizer.offsets(context)
    if len(offsets) > limit - 1:
        context = context[: offsets[limit - 2][1]]
    return f"{context}\n"
