"""The local embedder's precision: bfloat16 where the CPU has it, float32 on request."""

from __future__ import annotations

import numpy as np
import pytest

from hierdoc.errors import ConfigError
from hierdoc.models import EmbedInput
from hierdoc.pipeline import embed
from hierdoc.pipeline.embed import PRECISION_ENV, LocalEmbedder, resolved_precision
from tests.datasets import GDPR_MD, require


def test_auto_takes_bfloat16_only_where_the_cpu_has_it(monkeypatch):
    monkeypatch.setattr(embed, "native_bfloat16", lambda: True)
    assert resolved_precision("auto") == "bfloat16"
    monkeypatch.setattr(embed, "native_bfloat16", lambda: False)
    assert resolved_precision("auto") == "float32"
    assert resolved_precision(" BFloat16 ") == "bfloat16"
    assert resolved_precision("float32") == "float32"


def test_an_unknown_precision_is_refused():
    with pytest.raises(ConfigError, match=f"{PRECISION_ENV}='fp8': choose one of auto"):
        resolved_precision("fp8")


@pytest.fixture(scope="module")
def float32_embedder() -> LocalEmbedder:
    return LocalEmbedder(precision="float32")


@pytest.mark.slow
def test_the_environment_chooses(monkeypatch, float32_embedder):
    monkeypatch.setenv(PRECISION_ENV, "float32")
    assert LocalEmbedder().precision == "float32"
    assert LocalEmbedder(precision="bfloat16").precision == "bfloat16"


@pytest.mark.slow
def test_bfloat16_vectors_are_float32_ones_within_rounding(float32_embedder):
    words = require(GDPR_MD).read_text().split()
    inputs = [
        EmbedInput("Regulation (EU) 2016/679 > Chapter III", " ".join(words[i : i + n]))
        for i, n in zip(range(0, 60000, 4001), [5, 60, 180, 700] * 4, strict=False)
    ]
    half = LocalEmbedder(precision="bfloat16")
    full_vectors = np.vstack(float32_embedder.embed_documents(inputs))
    half_vectors = np.vstack(half.embed_documents(inputs))
    assert half_vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(half_vectors, axis=1), 1.0, atol=1e-5)
    cosines = (full_vectors * half_vectors).sum(axis=1)
    assert cosines.min() >= 0.999
    assert not np.array_equal(full_vectors, half_vectors), "bfloat16 was not used"
    ranks_full = np.argsort(-(full_vectors @ full_vectors.T), axis=1)[:, :3]
    ranks_half = np.argsort(-(half_vectors @ full_vectors.T), axis=1)[:, :3]
    assert (ranks_full[:, 0] == ranks_half[:, 0]).all()
