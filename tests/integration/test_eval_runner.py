"""Evaluation runs end to end: variants, baselines, cached indexes and embeddings."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hierdoc.api import Index
from hierdoc.config import Settings
from hierdoc.eval import indexes
from hierdoc.eval.baselines import Bm25NumpyRrf, ChunkData
from hierdoc.eval.datasets import EvalQuery, load_beir, load_scifact, slice_corpus
from hierdoc.eval.report import FlagAgreement
from hierdoc.eval.runner import run_eval
from hierdoc.eval.variants import VARIANTS, hierdoc_method, resolve_variants
from hierdoc.pipeline.ingest import TextDocument
from tests.datasets import DATASETS, require

SCIFACT = DATASETS / "scifact"


def test_variant_presets() -> None:
    names = [v.name for v in resolve_variants("quick,hybrid-rrf20")]
    assert names == ["hybrid", "semantic", "keyword", "hybrid-rrf20"]
    assert VARIANTS["hybrid-kw2"].settings().keyword_weight == 2.0
    assert VARIANTS["hybrid-noctx"].settings().contextual_embeddings is False
    with pytest.raises(ValueError, match="unknown variant"):
        resolve_variants("nope")


@pytest.mark.slow
def test_scifact_slice_end_to_end(tmp_path, embedder) -> None:
    """30 claims over their judged abstracts plus 100 distractors: hybrid vs dense."""
    corpus = slice_corpus(load_scifact(require(SCIFACT)), 30, distractors=100)
    assert len(corpus.queries) == 30 and 100 < len(corpus.documents) <= 140
    report = run_eval(corpus, [VARIANTS["hybrid"]], ["dense", "bm25-numpy-rrf"], tmp_path, embedder)
    assert [r.name for r in report.results] == ["hybrid", "dense", "bm25-numpy-rrf"]
    for result in report.results:
        assert 0 < result.metrics["nDCG@10"] <= 1
        assert 0 < result.metrics["R@10"] <= 1
        assert result.metrics["R@1"] <= result.metrics["R@5"] <= result.metrics["R@20"]
        assert result.queries == 30
        for miss in result.misses:
            assert miss["query_id"] and miss["missed"]
    assert report.result("hybrid").misses or report.result("dense").misses
    data = json.loads(json.dumps(report.to_dict()))
    assert data["results"][0]["misses"] == report.result("hybrid").misses
    assert "| hybrid |" in report.table() and "| dense |" in report.table()


@pytest.mark.slow
def test_rerun_reuses_the_index_and_the_embeddings(tmp_path, embedder) -> None:
    (tmp_path / "beir" / "qrels").mkdir(parents=True)
    docs = [
        {"_id": "d1", "title": "Cats", "text": "Cats purr when they are content."},
        {"_id": "d2", "title": "Rivers", "text": "A river floods after heavy rain."},
        {"_id": "d3", "title": "Stars", "text": "Stars fuse hydrogen into helium."},
    ]
    lines = "\n".join(json.dumps(d) for d in docs)
    (tmp_path / "beir" / "corpus.jsonl").write_text(lines)
    (tmp_path / "beir" / "queries.jsonl").write_text(
        json.dumps({"_id": "q1", "text": "why do cats purr"})
    )
    (tmp_path / "beir" / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    corpus = load_beir(tmp_path / "beir")
    first = run_eval(corpus, resolve_variants("quick"), ["dense"], tmp_path / "idx", embedder)
    again = run_eval(corpus, resolve_variants("quick"), ["dense"], tmp_path / "idx", embedder)
    assert first.indexes[0].windows_embedded == 3
    assert again.indexes[0].windows_embedded == 0
    assert again.result("hybrid").metrics == first.result("hybrid").metrics
    assert first.result("semantic").metrics["MRR@10"] == 1.0
    # the hybrid search of an answered question does not say no_match; baselines have no flag
    assert first.result("hybrid").no_match == FlagAgreement(1, 0, 0, 0)
    assert first.result("dense").no_match is None
    assert "| no_match of |" in first.table() and "| hybrid | 1 | 0 | 0 | – | – |" in first.table()


def test_other_pipeline_code_builds_a_new_index(tmp_path, embedder, monkeypatch) -> None:
    """An index built by other ingest code is never measured as if it were this code's;
    the embedding cache still serves the unchanged windows."""
    (tmp_path / "beir" / "qrels").mkdir(parents=True)
    (tmp_path / "beir" / "corpus.jsonl").write_text(
        json.dumps({"_id": "d1", "title": "Cats", "text": "Cats purr when they are content."})
    )
    (tmp_path / "beir" / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "purr"}))
    (tmp_path / "beir" / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    corpus = load_beir(tmp_path / "beir")
    first = run_eval(corpus, resolve_variants("semantic"), [], tmp_path / "idx", embedder)
    monkeypatch.setattr(indexes, "pipeline_digest", lambda: "other-code")
    second = run_eval(corpus, resolve_variants("semantic"), [], tmp_path / "idx", embedder)
    assert first.indexes[0].directory != second.indexes[0].directory
    assert second.indexes[0].windows_embedded == 0


def test_the_digest_covers_the_ingest_side_by_rule() -> None:
    """Every module that decides what an ingest writes, however deep; nothing that only
    searches, serves or evaluates."""
    root = indexes._PACKAGE_ROOT
    covered = {f.relative_to(root).as_posix() for f in indexes.ingest_side_files()}
    on_disk = {f.relative_to(root).as_posix() for f in root.rglob("*.py")}
    ingest_side = {
        f
        for f in on_disk
        if f.startswith(("pipeline/", "store/", "text/")) or f in {"models.py", "config.py"}
    }
    assert covered == ingest_side
    assert {"pipeline/ingest.py", "pipeline/code_outline.py", "pipeline/embed.py"} <= covered
    assert not {"search/searcher.py", "search/fuse.py", "api.py", "cli.py"} & covered
    assert not any(f.startswith("eval/") for f in covered)


def test_a_variant_searches_with_its_own_settings_and_leaves_the_index_alone(
    tmp_path, embedder
) -> None:
    documents = [
        TextDocument("a", "Cats purr when they are content.", "Cats"),
        TextDocument("b", "A river floods after heavy rain.", "Rivers"),
    ]
    with Index.open(tmp_path / "idx", Settings(), embedder=embedder) as index:
        index.ingest_texts(documents)
        before = index.settings.model_dump()
        method = hierdoc_method(index, VARIANTS["hybrid-kw2"])
        ranked = method.rank(EvalQuery("q", "why do cats purr", {"a": 1.0}), 2)
        expected = index.search("why do cats purr", top_k=2, keyword_weight=2.0)
        assert ranked == [r.chunk_id for r in expected.results]
        assert index.settings.model_dump() == before


def test_bm25_numpy_rrf_fusion_keeps_its_tie_order() -> None:
    """rank_bm25 + numpy + RRF fuses with weighted_rrf's sums but breaks ties by first
    appearance (its semantic side first), not by chunk id."""
    data = ChunkData(
        ["z", "a"],
        ["s", "s"],
        ["zebra", "apple"],
        np.eye(2, dtype=np.float32),
        np.arange(2),
        {"s": np.arange(2)},
    )
    rrf = Bm25NumpyRrf(data, lambda text: np.array([1.0, 0.0], dtype=np.float32), (1.0, 1.0))
    rrf.semantic = lambda query, k: ["z"]
    rrf.keyword = lambda query, k: ["a"]
    assert rrf.hybrid(EvalQuery("q", "apple", {}), 2) == ["z", "a"]
