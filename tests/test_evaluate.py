"""The evaluation harness: metrics by hand, loaders on the real files, a SciFact slice."""

from __future__ import annotations

import json
import math

import pytest

from hierdoc.eval.evaluate import (
    VARIANTS,
    ChunkTable,
    EvalCorpus,
    EvalQuery,
    judge,
    load_anthropic_codebase,
    load_beir,
    load_contractnli,
    load_scifact,
    locate,
    mrr_at_k,
    ndcg_at_k,
    pass_at_k,
    recall_at_k,
    resolve_variants,
    run_eval,
    slice_corpus,
    span_recall_at_k,
    spans_overlap,
)

from .datasets import DATASETS, require

SCIFACT = DATASETS / "scifact"
CODEBASE = DATASETS / "anthropic-codebase"
CONTRACTNLI = DATASETS / "contractnli" / "test.json"

# -- metrics, by hand -----------------------------------------------------------


def test_recall_counts_relevant_items_in_the_top_k() -> None:
    relevant = {"b": 1.0, "d": 2.0, "x": 1.0, "z": 0.0}  # grade 0 is not relevant
    assert recall_at_k(["a", "b", "c", "d"], relevant, 2) == pytest.approx(1 / 3)
    assert recall_at_k(["a", "b", "c", "d"], relevant, 4) == pytest.approx(2 / 3)
    assert recall_at_k(["z"], {"z": 0.0}, 1) == 0.0


def test_mrr_is_the_reciprocal_rank_of_the_first_relevant_item() -> None:
    assert mrr_at_k(["a", "b", "c"], {"b": 1.0, "c": 1.0}) == 0.5
    assert mrr_at_k(["a"] * 10 + ["b"], {"b": 1.0}, 10) == 0.0


def test_ndcg_graded_with_log2_discount() -> None:
    # DCG = 0/log2(2) + 1/log2(3) + 2/log2(4) = 1.6309; ideal = 2/log2(2) + 1/log2(3) = 2.6309
    value = ndcg_at_k(["a", "b", "c"], {"b": 1.0, "c": 2.0}, 10)
    assert value == pytest.approx(1.6309298 / 2.6309298, abs=1e-6)
    assert value == pytest.approx(0.619906, abs=1e-6)
    assert ndcg_at_k(["c", "b"], {"b": 1.0, "c": 2.0}) == pytest.approx(1.0)


def test_ndcg_counts_a_repeated_document_at_its_first_rank_only() -> None:
    # d1 twice (two chunks of one document): d2 is the second document
    assert ndcg_at_k(["d1", "d1", "d2"], {"d2": 1.0}) == pytest.approx(1 / math.log2(3))


def test_pass_at_k_as_the_cookbook_computes_it() -> None:
    golden = ["g1", "g2"]
    assert pass_at_k(["x", "g2", "y", "g1"], golden, 2) == 0.5
    assert pass_at_k(["x", "g2", "y", "g1"], golden, 4) == 1.0
    assert pass_at_k(["x"], golden, 5) == 0.0
    # two queries of 1/2 and 1/1 average to 75.0 once multiplied by 100
    assert 100 * (pass_at_k(["g1"], golden, 1) + pass_at_k(["g1"], ["g1"], 1)) / 2 == 75.0


def test_pass_at_k_matches_duplicate_contents_through_aliases() -> None:
    corpus = EvalCorpus(
        "t",
        [],
        [],
        "chunk",
        ("Pass@1", "Pass@5", "Pass@10", "Pass@20", "MRR@10", "nDCG@10"),
        "Pass@10",
        aliases={"doc:0": "doc:0", "other:3": "doc:0", "x:1": "x:1"},
    )
    query = EvalQuery("q", "licence", {"doc:0": 1.0})
    # the retrieved chunk has the golden chunk's content under another id: found
    rankings = dict.fromkeys((1, 5, 10, 20), ["x:1", "other:3"])
    judged = judge(corpus, query, rankings, ChunkTable({}, {}, {}))
    assert judged.values["Pass@1"] == 0.0
    assert judged.values["Pass@5"] == 100.0
    assert judged.values["MRR@10"] == 0.5
    assert judged.miss is None


def test_span_overlap_and_recall() -> None:
    assert spans_overlap((0, 10), (9, 20))
    assert not spans_overlap((0, 10), (10, 20))  # half-open
    gold = [(0, 10), (20, 30)]
    ranked = [(5, 15), (40, 50), (25, 26)]
    assert span_recall_at_k(ranked, gold, 1) == 0.5
    assert span_recall_at_k(ranked, gold, 2) == 0.5
    assert span_recall_at_k(ranked, gold, 3) == 1.0
    assert span_recall_at_k([None, (0, 1)], gold, 2) == 0.5


def test_locate_finds_chunks_in_reading_order_and_across_whitespace() -> None:
    text = "Term. Same words.\n\nSame words.\nNext  part\nhere."
    first = locate(text, "Same words.")
    assert first == (6, 17)
    assert locate(text, "Same words.", first[0] + 1) == (19, 30)
    start, end = locate(text, "Next part here.")
    assert text[start:end] == "Next  part\nhere."
    assert locate(text, "absent") is None


def test_document_unit_ranks_a_document_by_its_first_chunk() -> None:
    corpus = EvalCorpus("t", [], [], "document", ("nDCG@10", "R@1", "R@5", "MRR@10"), "nDCG@10")
    table = ChunkTable({"a:0": "A", "a:1": "A", "b:0": "B"}, {}, {})
    query = EvalQuery("q", "text", {"B": 1.0, "C": 1.0})
    rankings = dict.fromkeys((1, 5, 10, 20), ["a:0", "a:1", "b:0"])
    judged = judge(corpus, query, rankings, table)
    assert judged.values["R@1"] == 0.0
    assert judged.values["R@5"] == 0.5
    assert judged.values["MRR@10"] == 0.5  # B is the second document
    assert judged.miss["missed"] == [{"id": "C", "grade": 1.0, "rank": None}]


def test_variant_presets() -> None:
    names = [v.name for v in resolve_variants("quick,hybrid-rrf20")]
    assert names == ["hybrid", "semantic", "keyword", "hybrid-rrf20"]
    assert VARIANTS["hybrid-kw2"].settings().keyword_weight == 2.0
    assert VARIANTS["hybrid-noctx"].settings().contextual_embeddings is False
    with pytest.raises(ValueError, match="unknown variant"):
        resolve_variants("nope")


# -- loaders on the real files ----------------------------------------------------


def test_scifact_loader() -> None:
    corpus = load_scifact(require(SCIFACT))
    assert (len(corpus.documents), len(corpus.queries)) == (5183, 300)
    sources = {d.source for d in corpus.documents}
    assert all(set(q.relevant) <= sources for q in corpus.queries)
    assert sum(len(q.relevant) for q in corpus.queries) == 339
    assert all(d.title for d in corpus.documents[:100])
    assert corpus.unit == "document" and corpus.main_metric == "nDCG@10"


def test_anthropic_codebase_loader() -> None:
    corpus = load_anthropic_codebase(require(CODEBASE))
    assert len(corpus.documents) == 90 and len(corpus.queries) == 248
    ids = {c for d in corpus.documents for c in d.chunk_ids}
    assert len(ids) == 737 and corpus.prechunked
    assert all(set(q.relevant) <= ids for q in corpus.queries)
    # licence headers repeated across files are judged as one content
    assert len(set(corpus.aliases.values())) < len(ids)
    assert corpus.main_metric == "Pass@10"


def test_contractnli_loader() -> None:
    corpus = load_contractnli(require(CONTRACTNLI))
    data = json.loads(CONTRACTNLI.read_text())
    expected = sum(
        1
        for doc in data["documents"]
        for a in doc["annotation_sets"][0]["annotations"].values()
        if a["choice"] in ("Entailment", "Contradiction") and a["spans"]
    )
    assert len(corpus.documents) == 123 and len(corpus.queries) == expected
    texts = {d.source: d.text for d in corpus.documents}
    for query in corpus.queries:
        assert query.source_filter in texts
        assert all(0 <= s < e <= len(texts[query.source_filter]) for s, e in query.relevant)


# -- end to end ---------------------------------------------------------------------


@pytest.mark.slow
def test_scifact_slice_end_to_end(tmp_path, embedder) -> None:
    """30 claims over their judged abstracts plus 100 distractors: hybrid vs dense."""
    corpus = slice_corpus(load_scifact(require(SCIFACT)), 30, distractors=100)
    assert len(corpus.queries) == 30 and 100 < len(corpus.documents) <= 140
    report = run_eval(corpus, [VARIANTS["hybrid"]], ["dense", "seed"], tmp_path, embedder)
    assert [r.name for r in report.results] == ["hybrid", "dense", "seed"]
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


def test_other_pipeline_code_builds_a_new_index(tmp_path, embedder, monkeypatch) -> None:
    """An index built by other ingest code is never measured as if it were this code's;
    the embedding cache still serves the unchanged windows."""
    import hierdoc.eval.evaluate as evaluate

    (tmp_path / "beir" / "qrels").mkdir(parents=True)
    (tmp_path / "beir" / "corpus.jsonl").write_text(
        json.dumps({"_id": "d1", "title": "Cats", "text": "Cats purr when they are content."})
    )
    (tmp_path / "beir" / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "purr"}))
    (tmp_path / "beir" / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    corpus = load_beir(tmp_path / "beir")
    first = run_eval(corpus, resolve_variants("semantic"), [], tmp_path / "idx", embedder)
    monkeypatch.setattr(evaluate, "pipeline_digest", lambda: "other-code")
    second = run_eval(corpus, resolve_variants("semantic"), [], tmp_path / "idx", embedder)
    assert first.indexes[0].directory != second.indexes[0].directory
    assert second.indexes[0].windows_embedded == 0


def test_ingest_modules_are_never_counted_as_search_modules() -> None:
    import hierdoc.eval.evaluate as evaluate

    assert {"search", "fuse", "evaluate"} <= evaluate.SEARCH_MODULES
    assert not {"ingest", "code_outline", "analyze", "embed"} & evaluate.SEARCH_MODULES


def test_contractnli_chunks_are_located_in_their_documents() -> None:
    """Chunk character offsets come from hierdoc's own chunker output."""
    from hierdoc.models import ConvertedDocument
    from hierdoc.pipeline.chunk import ChunkingOptions, chunk_document
    from hierdoc.pipeline.structure import parse_sections
    from hierdoc.pipeline.tokenizer import default_tokenizer

    corpus = load_contractnli(require(CONTRACTNLI))
    tokenizer = default_tokenizer()
    for document in corpus.documents[:10]:
        converted = ConvertedDocument(document.source, document.title, document.text, "h", "text")
        sections = parse_sections(converted.text, converted.title)
        chunks = chunk_document(converted, sections, tokenizer, ChunkingOptions(max_tokens=256))
        cursor = 0
        for chunk in chunks:
            found = locate(document.text, chunk.content, cursor)
            assert found is not None and found[0] >= cursor
            cursor = found[0] + 1
