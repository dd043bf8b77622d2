"""PostgreSQL filtered vector search: through HNSW a filter still fills ``k`` (the
iterative scan walks on), and a source filter of few chunks is searched exactly."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from hierdoc.models import Chunk, DocumentRecord, SearchFilter, StoredChunk
from hierdoc.store.base import Store
from hierdoc.store.testing import DIMENSION
from tests.contract.test_store_postgres import open_pg
from tests.contract.test_store_postgres_server import drop_schema, fresh_options

pytestmark = pytest.mark.postgres


@pytest.fixture
def options() -> Iterator[dict[str, Any]]:
    options = fresh_options()
    yield options
    drop_schema(options)


def _random_corpus(store: Store, documents: int, per_document: int = 8) -> None:
    """``documents`` documents of ``per_document`` chunks with random unit vectors."""
    rng = np.random.default_rng(11)
    for number in range(documents):
        source = f"d{number}.md"
        chunks = [
            StoredChunk(
                Chunk(f"{source}#{c}", source, f"D {number}", f"s-{c}", f"S {c}", ("S",),
                      (f"s-{c}",), f"text {number} {c}", c, 3),  # fmt: skip
                f"D {number}",
            )
            for c in range(per_document)
        ]
        record = DocumentRecord(source, source, "h", "md", 100, len(chunks))
        vectors = rng.standard_normal((len(chunks), DIMENSION)).astype(np.float32)
        rows = [(v / np.linalg.norm(v))[None, :] for v in vectors]
        store.write_document(record, [], chunks, rows)


def test_a_filtered_vector_search_fills_k_and_a_narrow_one_is_exact(
    options: dict[str, Any],
) -> None:
    """Through HNSW (``exact_below: 0``) a filter keeping 16 of 160 chunks still gets its
    10 hits; when the filter's chunks are under ``exact_below`` they are searched exactly,
    though the index as a whole is not."""
    exact = open_pg({**options, "exact_below": 1 << 30})
    graph = open_pg({**options, "exact_below": 0})
    narrow = open_pg({**options, "exact_below": 40})
    stores = [exact, graph, narrow]
    try:
        _random_corpus(exact, 20)
        filt = SearchFilter(sources=("d3.md", "d17.md"))
        rng = np.random.default_rng(2)
        for _ in range(5):
            query = rng.standard_normal(DIMENSION).astype(np.float32)
            query /= np.linalg.norm(query)
            truth = exact.vector_search(query, 10, filt)
            assert len(graph.vector_search(query, 10, filt)) == 10
            assert narrow.vector_search(query, 10, filt) == truth
            assert {h.chunk_id.split("#")[0] for h in truth} <= {"d3.md", "d17.md"}
    finally:
        for store in stores:
            store.close()
