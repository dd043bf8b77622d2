"""Embed stage: texts to unit vectors, behind one small interface.

A chunk may be longer than the model reads (all-MiniLM-L6-v2 reads 256 word
pieces; chunks default to 800 tokens). Rather than let the model silently
truncate, the local embedder cuts each text into overlapping windows that fit,
each window prefixed with the chunk's structural context
(:mod:`hierdoc.text.windows`), and returns one vector per window; the vector
index scores a chunk by its best window (see BENCHMARKS.md for the measurement
behind this choice).

On a CPU with native bfloat16 arithmetic (AVX512-BF16 or AMX) the model runs under
bfloat16 autocast: about twice the throughput, with vectors within cosine 0.9999 of
float32 ones (BENCHMARKS.md, "Embedding precision"). ``HIERDOC_EMBED_PRECISION``
(``auto``, ``float32``, ``bfloat16``) overrides the choice.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ..models import EmbedInput
from ..text.tokenizer import WordPieceTokenizer, bundled_model_dir
from ..text.windows import WINDOW_OVERLAP, cut_windows

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

#: Environment variable choosing the local model's arithmetic: auto, float32 or bfloat16.
PRECISION_ENV = "HIERDOC_EMBED_PRECISION"
PRECISIONS = ("auto", "float32", "bfloat16")


class Embedder(Protocol):
    name: str
    dimension: int

    def embed_documents(self, inputs: Sequence[EmbedInput]) -> list[np.ndarray]:
        """One (windows, dimension) float32 array of unit vectors per input."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """One unit vector."""
        ...


def window_texts(
    item: EmbedInput, tokenizer: WordPieceTokenizer, limit: int, overlap: int
) -> list[str]:
    """Context + window strings, each at most ``limit`` tokens, covering the whole text."""
    return cut_windows(item.text, item.context, tokenizer, limit, overlap).texts(item.text)


class LocalEmbedder:
    """sentence-transformers on the CPU; default all-MiniLM-L6-v2 shipped in a package."""

    def __init__(
        self,
        model_path: str | None = None,
        name: str = DEFAULT_MODEL,
        batch_size: int = 32,
        window_overlap: int = WINDOW_OVERLAP,
        precision: str | None = None,
    ) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging
        except ImportError as error:
            raise RuntimeError(
                "the local embedder needs sentence-transformers: pip install 'hierdoc[local]'"
            ) from error
        transformers_logging.disable_progress_bar()
        transformers_logging.set_verbosity_error()
        path = model_path or str(bundled_model_dir())
        self._model = SentenceTransformer(path, device="cpu")
        self.name = name
        dimension = (
            getattr(self._model, "get_embedding_dimension", None)
            or self._model.get_sentence_embedding_dimension
        )
        self.dimension = int(dimension())
        self.max_input_tokens = int(self._model.max_seq_length) - 2
        self._tokenizer = WordPieceTokenizer(self._tokenizer_file(path))
        self._batch_size = batch_size
        self._window_overlap = window_overlap
        self.precision = resolved_precision(precision or os.environ.get(PRECISION_ENV, "auto"))
        self.texts_embedded = 0

    @staticmethod
    def _tokenizer_file(path: str) -> str:
        from pathlib import Path

        return str(Path(path) / "tokenizer.json")

    def _encode(self, texts: list[str]) -> np.ndarray:
        import torch

        self.texts_embedded += len(texts)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.precision == "bfloat16"):
            vectors = self._model.encode(
                texts,
                batch_size=self._batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        vectors = np.asarray(vectors, dtype=np.float32)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)

    def embed_documents(self, inputs: Sequence[EmbedInput]) -> list[np.ndarray]:
        per_input = [
            window_texts(item, self._tokenizer, self.max_input_tokens, self._window_overlap)
            for item in inputs
        ]
        flat = [text for windows in per_input for text in windows]
        if not flat:
            return []
        vectors = self._encode(flat)
        result, start = [], 0
        for windows in per_input:
            result.append(vectors[start : start + len(windows)])
            start += len(windows)
        return result

    def embed_query(self, text: str) -> np.ndarray:
        return self._encode([text])[0]


def resolved_precision(choice: str) -> str:
    """``float32`` or ``bfloat16``: ``auto`` takes bfloat16 only where the CPU computes it
    natively; elsewhere oneDNN emulates it and it is slower than float32."""
    choice = choice.strip().lower() or "auto"
    if choice not in PRECISIONS:
        from ..errors import ConfigError

        raise ConfigError(f"{PRECISION_ENV}={choice!r}: choose one of {', '.join(PRECISIONS)}")
    if choice != "auto":
        return choice
    return "bfloat16" if native_bfloat16() else "float32"


def native_bfloat16() -> bool:
    """Whether this CPU has bfloat16 instructions torch's CPU kernels use (AVX512-BF16, AMX)."""
    import torch

    checks = ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    return any(getattr(torch.cpu, name, lambda: False)() for name in checks)
