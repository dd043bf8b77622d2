"""The GDPR indexed on PostgreSQL and on the local backend (hash embedder, same settings):
each search mode's top 10 agree, BM25 scores within 1e-4 and exact vector hits identical."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hierdoc import Index, Settings
from hierdoc.pipeline.ingest import TextDocument
from hierdoc.text.analyze import TEXT_ANALYZER
from tests.contract.test_store_postgres_server import drop_schema, fresh_options
from tests.datasets import GDPR_MD, require
from tests.hash_embedder import HashEmbedder

pytestmark = pytest.mark.postgres

QUERIES = [
    "right to erasure",
    "data protection officer tasks",
    "consent of a child in relation to information society services",
    "Article 17",
    "supervisory authority independence",
    "transfers of personal data to third countries",
    "processing of special categories of personal data",
    "administrative fines",
    '"without undue delay"',
    "controller and processor",
]


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Index, Index]]:
    gdpr = require(GDPR_MD)
    options = fresh_options()
    document = [TextDocument("gdpr.md", gdpr.read_text(encoding="utf-8"), title="GDPR")]
    folder = tmp_path_factory.mktemp("parity")
    local = Index.open(folder / "local", Settings(), embedder=HashEmbedder())
    postgres_settings = Settings(database={"provider": "postgres", **options})
    postgres = Index.open(folder / "unused", postgres_settings, embedder=HashEmbedder())
    for index in (local, postgres):
        index.ingest_texts(document)
    yield local, postgres
    local.close()
    postgres.close()
    drop_schema(options)


def _ranked(hits: list) -> list[tuple[str, float]]:
    return [(h.chunk_id, h.score) for h in hits]


def _same_up_to_ties(a: list[tuple[str, float]], b: list[tuple[str, float]], tol: float) -> None:
    """Same scores rank by rank; the same ids, except that tied scores may swap places."""
    assert len(a) == len(b)
    for (_, score_a), (_, score_b) in zip(a, b, strict=True):
        assert score_a == pytest.approx(score_b, rel=tol, abs=tol)
    cut = a[-1][1] + tol if a else 0.0  # ids tied with the last may differ beyond the cut
    assert {i for i, s in a if s > cut} == {i for i, s in b if s > cut}


@pytest.mark.parametrize("query", QUERIES)
def test_bm25_and_exact_vectors_agree(indexes: tuple[Index, Index], query: str) -> None:
    local, postgres = indexes
    terms = TEXT_ANALYZER.terms(query)
    _same_up_to_ties(
        _ranked(local.store.keyword_search(terms, 10, None)),
        _ranked(postgres.store.keyword_search(terms, 10, None)),
        1e-4,
    )
    vector = HashEmbedder().embed_query(query)
    assert [h.chunk_id for h in local.store.vector_search(vector, 10, None)] == [
        h.chunk_id for h in postgres.store.vector_search(vector, 10, None)
    ]
    assert local.store.doc_freq(terms) == postgres.store.doc_freq(terms)


@pytest.mark.parametrize("mode", ["keyword", "semantic", "exact"])
def test_each_mode_top_10_agrees(indexes: tuple[Index, Index], mode: str) -> None:
    local, postgres = indexes
    for query in QUERIES:
        a = [(r.chunk_id, r.score) for r in local.search(query, mode=mode, top_k=10).results]
        b = [(r.chunk_id, r.score) for r in postgres.search(query, mode=mode, top_k=10).results]
        _same_up_to_ties(a, b, 1e-4)


def test_hybrid_top_10_agrees(indexes: tuple[Index, Index]) -> None:
    """tantivy scores BM25 in float32 and PostgreSQL in float64, so two keyword scores equal
    to 1e-6 may swap places deep in the candidate pool (ranks 26 and 28 were seen); fusion
    turns such a swap into a few thousandths of a hybrid score. The top 10 must still be the
    same chunks, in the same order down to where that noise reaches."""
    local, postgres = indexes
    for query in QUERIES:
        a = [(r.chunk_id, r.score) for r in local.search(query, top_k=10).results]
        b = [(r.chunk_id, r.score) for r in postgres.search(query, top_k=10).results]
        _same_up_to_ties(a, b, 0.01)
