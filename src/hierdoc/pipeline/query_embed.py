"""Query embeddings without torch: all-MiniLM-L6-v2's forward pass in numpy.

A one-off ``hierdoc search`` spent most of its time importing torch and
sentence-transformers to embed a single query. :class:`NumpyQueryEmbedder`
reads the same ``model.safetensors`` with the ``safetensors`` numpy loader,
tokenizes with the ``tokenizers`` package (truncating at 256 word pieces, as
sentence-transformers does), runs the six BERT layers in numpy, then mean-pools
and normalizes as the model's pooling config says. Its vectors match
:meth:`LocalEmbedder.embed_query` within cosine 0.9999 (tests/test_query_embed.py);
ingest keeps the torch embedder, which batches documents far faster.

``HIERDOC_QUERY_EMBEDDER=torch`` makes :class:`hierdoc.api.Index` embed queries
with the torch model again (see :func:`query_embedder_choice`).
"""

from __future__ import annotations

import json
import math
import os
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..text.tokenizer import bundled_model_dir
from .embed import DEFAULT_MODEL

#: Environment variable choosing the query embedder of the local model: numpy or torch.
QUERY_EMBEDDER_ENV = "HIERDOC_QUERY_EMBEDDER"
QUERY_EMBEDDERS = ("numpy", "torch")


def query_embedder_choice() -> str:
    """``numpy`` (the default) or ``torch``, from :data:`QUERY_EMBEDDER_ENV`."""
    choice = os.environ.get(QUERY_EMBEDDER_ENV, "numpy").strip().lower() or "numpy"
    if choice not in QUERY_EMBEDDERS:
        from ..errors import ConfigError

        raise ConfigError(
            f"{QUERY_EMBEDDER_ENV}={choice!r}: choose one of {', '.join(QUERY_EMBEDDERS)}"
        )
    return choice


def local_query_embedder(model: str, path: Path | None = None) -> NumpyQueryEmbedder | None:
    """The torch-free query embedder for ``model`` (its files at ``path``, for a model
    tuned on the index), or ``None`` where the torch one must serve: another model, or
    ``HIERDOC_QUERY_EMBEDDER=torch``."""
    if query_embedder_choice() != "numpy" or (path is None and model != DEFAULT_MODEL):
        return None
    return NumpyQueryEmbedder(path, model) if path is not None else NumpyQueryEmbedder()


@dataclass(frozen=True)
class _Layer:
    """One transformer layer's weights, as stored (``out x in``: applied as ``x @ w.T``)."""

    query: tuple[np.ndarray, np.ndarray]
    key: tuple[np.ndarray, np.ndarray]
    value: tuple[np.ndarray, np.ndarray]
    attention_out: tuple[np.ndarray, np.ndarray]
    norm1: tuple[np.ndarray, np.ndarray]
    up: tuple[np.ndarray, np.ndarray]
    down: tuple[np.ndarray, np.ndarray]
    norm2: tuple[np.ndarray, np.ndarray]


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The float32 tensors of a ``.safetensors`` file, memory-mapped (read on first use).

    The format is an 8-byte little-endian header length, a JSON header giving each
    tensor's dtype, shape and byte range, then the data; tensors of other dtypes
    (all-MiniLM-L6-v2 stores ``position_ids`` as int64) are left out.
    """
    with path.open("rb") as file:
        length = int.from_bytes(file.read(8), "little")
        header = json.loads(file.read(length))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + length).view(np.ndarray)
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__" or entry["dtype"] != "F32":
            continue
        begin, stop = entry["data_offsets"]
        tensors[name] = data[begin:stop].view("<f4").reshape(entry["shape"])
    return tensors


def _linear(x: np.ndarray, weight_bias: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    return x @ weight_bias[0].T + weight_bias[1]


def _layer_norm(
    x: np.ndarray, weight_bias: tuple[np.ndarray, np.ndarray], eps: float
) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    variance = (centered * centered).mean(axis=-1, keepdims=True)
    return centered / np.sqrt(variance + eps) * weight_bias[0] + weight_bias[1]


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to within 1.5e-7 (Abramowitz and Stegun 7.1.26): numpy has none, scipy is heavy."""
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1.0 - poly * np.exp(-x * x))


def _gelu(x: np.ndarray) -> np.ndarray:
    """The exact (erf) GELU that BERT's ``hidden_act: gelu`` names."""
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _softmax(x: np.ndarray) -> np.ndarray:
    x = np.exp(x - x.max(axis=-1, keepdims=True))
    return x / x.sum(axis=-1, keepdims=True)


class NumpyQueryEmbedder:
    """``embed_query`` of all-MiniLM-L6-v2 in numpy: no torch, loads in a fraction of a second."""

    def __init__(self, model_path: str | Path | None = None, name: str = DEFAULT_MODEL) -> None:
        from tokenizers import Tokenizer

        path = Path(model_path) if model_path else bundled_model_dir()
        config = json.loads((path / "config.json").read_text())
        self.name = name
        self.dimension = int(config["hidden_size"])
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config["layer_norm_eps"])
        max_length = _max_seq_length(path)
        self._tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length)
        weights = read_safetensors(path / "model.safetensors")
        self._words = weights["embeddings.word_embeddings.weight"]
        self._positions = weights["embeddings.position_embeddings.weight"][:max_length]
        self._token_type = weights["embeddings.token_type_embeddings.weight"][0]
        self._embed_norm = _pair(weights, "embeddings.LayerNorm")
        self._layers = [
            _load_layer(weights, f"encoder.layer.{i}") for i in range(config["num_hidden_layers"])
        ]

    def embed_query(self, text: str) -> np.ndarray:
        """The unit vector of ``text``: mean of the last layer over its word pieces."""
        with _one_blas_thread():
            return self._embed(text)

    def _embed(self, text: str) -> np.ndarray:
        ids = np.asarray(self._tokenizer.encode(text).ids, dtype=np.int64)
        x = self._words[ids] + self._positions[: len(ids)] + self._token_type
        x = _layer_norm(x, self._embed_norm, self._eps)
        for layer in self._layers:
            x = self._layer(x, layer)
        pooled = x.mean(axis=0)
        return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)

    def _layer(self, x: np.ndarray, layer: _Layer) -> np.ndarray:
        x = _layer_norm(x + self._attention(x, layer), layer.norm1, self._eps)
        hidden = _gelu(_linear(x, layer.up))
        return _layer_norm(x + _linear(hidden, layer.down), layer.norm2, self._eps)

    def _attention(self, x: np.ndarray, layer: _Layer) -> np.ndarray:
        length, width = x.shape
        size = width // self._heads
        q, k, v = (
            _linear(x, part).reshape(length, self._heads, size).transpose(1, 0, 2)
            for part in (layer.query, layer.key, layer.value)
        )
        scores = _softmax(q @ k.transpose(0, 2, 1) / math.sqrt(size))
        context = (scores @ v).transpose(1, 0, 2).reshape(length, width)
        return _linear(context, layer.attention_out)


def _one_blas_thread() -> AbstractContextManager[object]:
    """BLAS limited to one thread: a query's small products run 2-10x faster single-threaded
    on a busy machine, where OpenBLAS threads wait for cores. A no-op without threadpoolctl."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _max_seq_length(path: Path) -> int:
    """sentence-transformers' input limit (``sentence_bert_config.json``), 256 by default."""
    config = path / "sentence_bert_config.json"
    if config.exists():
        return int(json.loads(config.read_text()).get("max_seq_length", 256))
    return 256


def _pair(weights: dict[str, np.ndarray], prefix: str) -> tuple[np.ndarray, np.ndarray]:
    return weights[f"{prefix}.weight"], weights[f"{prefix}.bias"]


def _load_layer(weights: dict[str, np.ndarray], prefix: str) -> _Layer:
    return _Layer(
        query=_pair(weights, f"{prefix}.attention.self.query"),
        key=_pair(weights, f"{prefix}.attention.self.key"),
        value=_pair(weights, f"{prefix}.attention.self.value"),
        attention_out=_pair(weights, f"{prefix}.attention.output.dense"),
        norm1=_pair(weights, f"{prefix}.attention.output.LayerNorm"),
        up=_pair(weights, f"{prefix}.intermediate.dense"),
        down=_pair(weights, f"{prefix}.output.dense"),
        norm2=_pair(weights, f"{prefix}.output.LayerNorm"),
    )
