"""The torch-free query embedder: same vectors as the torch model, same results, no torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hierdoc.errors import ConfigError
from hierdoc.pipeline.embed import DEFAULT_MODEL
from hierdoc.pipeline.query_embed import (
    QUERY_EMBEDDER_ENV,
    NumpyQueryEmbedder,
    local_query_embedder,
    query_embedder_choice,
)
from tests.datasets import GDPR_MD, require
from tests.paths import TESTS

FIXTURES = TESTS / "fixtures" / "acronyms"

QUERIES = [
    "right to erasure",
    "What must a controller do when a personal data breach happens?",
    "DPO",
    "Article 17(3)(b)",
    "",
    "données à caractère personnel, consentement",
    "pseudonymisation " * 300,
]


@pytest.fixture(scope="module")
def numpy_embedder() -> NumpyQueryEmbedder:
    return NumpyQueryEmbedder()


def test_choice_from_the_environment(monkeypatch):
    monkeypatch.delenv(QUERY_EMBEDDER_ENV, raising=False)
    assert query_embedder_choice() == "numpy"
    monkeypatch.setenv(QUERY_EMBEDDER_ENV, " Torch ")
    assert query_embedder_choice() == "torch"
    assert local_query_embedder(DEFAULT_MODEL) is None
    monkeypatch.setenv(QUERY_EMBEDDER_ENV, "onnx")
    with pytest.raises(ConfigError, match="numpy, torch"):
        query_embedder_choice()


def test_only_the_bundled_model(monkeypatch):
    monkeypatch.delenv(QUERY_EMBEDDER_ENV, raising=False)
    assert local_query_embedder("openai:text-embedding-3-small") is None


def test_unit_vectors(numpy_embedder):
    vector = numpy_embedder.embed_query("lawfulness of processing")
    assert vector.dtype == np.float32 and vector.shape == (numpy_embedder.dimension,)
    assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5


@pytest.mark.slow
def test_same_vectors_as_the_torch_model(numpy_embedder, embedder):
    words = require(GDPR_MD).read_text().split()
    starts, lengths = range(0, 40000, 997), [4, 30, 400] * 14
    passages = [" ".join(words[i : i + n]) for i, n in zip(starts, lengths, strict=False)]
    for query in QUERIES + passages:
        cosine = float(numpy_embedder.embed_query(query) @ embedder.embed_query(query))
        assert cosine >= 0.999, query[:80]


@pytest.mark.slow
def test_same_results_as_the_torch_model(gdpr_index, numpy_embedder, monkeypatch):
    queries = ["right to be forgotten", "fines for infringements", "DPIA", "children consent"]
    for mode in ("hybrid", "semantic"):
        torch_ids = [_ids(gdpr_index.search(q, mode=mode, top_k=10)) for q in queries]
        with monkeypatch.context() as patch:
            patch.setattr(gdpr_index, "embed_query", numpy_embedder.embed_query)
            numpy_ids = [_ids(gdpr_index.search(q, mode=mode, top_k=10)) for q in queries]
        assert numpy_ids == torch_ids


def _ids(response) -> list[str]:
    return [hit.chunk_id for hit in response.results]


@pytest.fixture(scope="module")
def small_index_dir(tmp_path_factory, embedder) -> Path:
    from hierdoc import Index, Settings

    directory = tmp_path_factory.mktemp("query-embed") / "index"
    with Index.open(directory, Settings(), embedder=embedder) as index:
        assert not index.ingest([FIXTURES]).problems
    return directory


@pytest.mark.slow
def test_index_embeds_queries_without_torch(small_index_dir, embedder, monkeypatch):
    from hierdoc import Index, Settings

    monkeypatch.delenv(QUERY_EMBEDDER_ENV, raising=False)
    query = "automatic enrollment notice deadlines"
    with Index.open(small_index_dir, Settings()) as index:
        found = _ids(index.search(query, mode="semantic"))
        assert isinstance(index._query_model(), NumpyQueryEmbedder)
    with Index.open(small_index_dir, Settings(), embedder=embedder) as index:
        assert _ids(index.search(query, mode="semantic")) == found


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["hybrid", "semantic"])
def test_cli_search_does_not_import_torch(small_index_dir, mode):
    argv = ["--index", str(small_index_dir), "search", "hardship", "--mode", mode]
    script = (
        "import sys\n"
        "from hierdoc.cli import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit as stop:\n"
        "    assert not stop.code, stop.code\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False", done.stdout
