"""The evaluation embedding cache keeps query vectors on disk as well as document vectors."""

from __future__ import annotations

import numpy as np

from hierdoc.eval.embed_cache import CachingEmbedder
from tests.hash_embedder import HashEmbedder


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        self.queries: list[str] = []

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return super().embed_query(text)


def test_a_query_is_embedded_once_across_processes_sharing_the_file(tmp_path) -> None:
    first_model, second_model = CountingEmbedder(), CountingEmbedder()
    first = CachingEmbedder(first_model, tmp_path / "cache.sqlite")
    vector = first.embed_query("which rule applies?")
    first.embed_query("which rule applies?")
    first.close()
    second = CachingEmbedder(second_model, tmp_path / "cache.sqlite")
    again = second.embed_query("which rule applies?")
    other = second.embed_query("another question")
    second.close()
    assert first_model.queries == ["which rule applies?"]
    assert second_model.queries == ["another question"]
    assert np.array_equal(vector, again) and not np.array_equal(again, other)


def test_queries_are_embedded_in_batches_once(tmp_path) -> None:
    model = CountingEmbedder()
    cache = CachingEmbedder(model, tmp_path / "cache.sqlite")
    cache.embed_query("asked alone")
    cache.embed_queries(
        ["asked alone", "first of a batch", "second of a batch", "first of a batch"]
    )
    cache.close()
    again = CachingEmbedder(CountingEmbedder(), tmp_path / "cache.sqlite")
    again.embed_queries(["first of a batch", "second of a batch"])
    vector = again.embed_query("second of a batch")
    again.close()
    assert model.queries == ["asked alone"]  # the batch went through embed_documents
    assert again.inner.queries == []
    assert np.allclose(vector, HashEmbedder().embed_query("second of a batch"))
