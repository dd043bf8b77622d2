"""The window geometry the embedder and the passage scorer share: each window fits the
model with its context prefix, consecutive windows overlap, and together they cover the text."""

from __future__ import annotations

import pytest

from hierdoc.models import EmbedInput
from hierdoc.pipeline.embed import window_texts
from hierdoc.search.passages import window_spans
from hierdoc.text.tokenizer import WordPieceTokenizer, default_tokenizer
from hierdoc.text.windows import WINDOW_OVERLAP, WINDOW_TOKENS, cut_windows, fitted_prefix

CONTEXT = "Data Protection Act > Chapter III > Article 17 Right to erasure"
TEXT = " ".join(f"Clause {n} obliges the controller to erase data item {n}." for n in range(120))


@pytest.fixture(scope="module")
def tokenizer() -> WordPieceTokenizer:
    return default_tokenizer()


def test_a_short_text_is_one_window_with_its_context(tokenizer) -> None:
    windows = cut_windows("Short clause.", CONTEXT, tokenizer)
    assert windows.prefix == f"{CONTEXT}\n"
    assert windows.spans == ((0, len("Short clause.")),)
    assert windows.texts("Short clause.") == [f"{CONTEXT}\nShort clause."]


def test_long_text_windows_fit_overlap_and_cover_it(tokenizer) -> None:
    """Counted in the text's own tokens (a window may start inside a word, whose pieces
    the model then reads as the text's tokenizer cut them)."""
    windows = cut_windows(TEXT, CONTEXT, tokenizer)
    offsets = tokenizer.offsets(TEXT)

    def tokens(start: int, end: int) -> int:
        return sum(1 for s, e in offsets if start <= s and e <= end)

    budget = WINDOW_TOKENS - tokenizer.count(windows.prefix)
    assert len(windows.spans) > 2
    assert windows.spans[0][0] == 0 and windows.spans[-1][1] == len(TEXT)
    assert all(tokens(start, end) <= budget for start, end in windows.spans)
    assert all(tokens(start, end) == budget for start, end in windows.spans[:-1])
    for (_, end), (start, _) in zip(windows.spans, windows.spans[1:], strict=False):
        assert tokens(start, end) == WINDOW_OVERLAP


def test_a_long_context_keeps_at_most_half_the_window(tokenizer) -> None:
    context = " ".join(["Part"] * 400)
    prefix = fitted_prefix(context, tokenizer, WINDOW_TOKENS // 2)
    assert tokenizer.count(prefix) < WINDOW_TOKENS // 2
    assert context.startswith(prefix.rstrip("\n"))
    assert fitted_prefix("", tokenizer, WINDOW_TOKENS // 2) == ""


def test_the_embedder_and_the_passages_cut_the_same_windows(tokenizer) -> None:
    item = EmbedInput(CONTEXT, TEXT)
    texts = window_texts(item, tokenizer, WINDOW_TOKENS, WINDOW_OVERLAP)
    spans = window_spans(TEXT, CONTEXT, tokenizer)
    assert texts == [f"{CONTEXT}\n{TEXT[start:end]}" for start, end in spans]
