"""`hierdoc eval --limit`: only the documents the selected queries need are indexed, and
the default variant set is the default settings alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hierdoc.cli import evaluate
from hierdoc.eval import runner
from hierdoc.eval.datasets import EvalCorpus, EvalQuery, load_beir
from hierdoc.eval.runner import DISTRACTORS_PER_QUERY, limit_corpus, run_eval
from hierdoc.eval.variants import resolve_variants
from hierdoc.pipeline.ingest import TextDocument
from tests.hash_embedder import HashEmbedder

DOCUMENTS = 300
QUERIES = 20


def _beir(root: Path) -> Path:
    """A BEIR folder: document i is about topic i; query i judges document i."""
    (root / "qrels").mkdir(parents=True)
    docs = [
        {"_id": f"d{i}", "title": f"Topic {i}", "text": f"Notes on subject{i} and its uses."}
        for i in range(DOCUMENTS)
    ]
    (root / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs))
    queries = [{"_id": f"q{i}", "text": f"what is subject{i}"} for i in range(QUERIES)]
    (root / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    rows = "".join(f"q{i}\td{i}\t1\n" for i in range(QUERIES))
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + rows)
    return root


def test_limit_indexes_the_judged_documents_and_a_bounded_sample(tmp_path) -> None:
    corpus = load_beir(_beir(tmp_path / "beir"))
    variants = resolve_variants("default")
    report = run_eval(corpus, variants, ["bm25"], tmp_path / "idx", HashEmbedder(), limit=2)
    indexed = 2 + 2 * DISTRACTORS_PER_QUERY
    assert [info.documents for info in report.indexes] == [indexed]
    assert report.documents == indexed and report.queries == 2
    assert any("limited to 2 queries" in note for note in report.notes)


def test_limit_keeps_the_judged_documents() -> None:
    corpus = EvalCorpus(
        "t",
        [TextDocument(f"d{i}", f"text {i}") for i in range(100)],
        [EvalQuery(f"q{i}", "x", {f"d{90 + i}": 1.0}) for i in range(5)],
        "document",
        ("nDCG@10",),
        "nDCG@10",
    )
    sliced = limit_corpus(corpus, 3, distractors=4)
    sources = {d.source for d in sliced.documents}
    assert {"d90", "d91", "d92"} <= sources and len(sources) == 7
    assert "d93" not in sources or "d94" not in sources


def test_queries_searched_within_their_document_need_no_distractors() -> None:
    documents = [TextDocument(f"nda/{i}", f"clause {i}") for i in range(50)]
    queries = [EvalQuery(f"q{i}", "x", [(0, 3)], f"nda/{i}") for i in range(10)]
    corpus = EvalCorpus("s", documents, queries, "span", ("SpanR@1",), "SpanR@1")
    sliced = limit_corpus(corpus, 3)
    assert sorted(d.source for d in sliced.documents) == ["nda/0", "nda/1", "nda/2"]


def test_cli_default_runs_the_default_variant_only(tmp_path, monkeypatch) -> None:
    """One row for hierdoc (hybrid at the defaults) beside the baselines, one index built,
    and a line on stderr before any work."""
    root = _beir(tmp_path / "beir")
    seen: dict[str, object] = {}

    def fake_run(corpus, variants, baselines, index_dir, **options):
        seen["variants"] = [v.name for v in variants]
        return run_eval(corpus, variants, baselines, index_dir, HashEmbedder(), **options)

    monkeypatch.setattr(evaluate, "run_eval", fake_run)
    args = ["--dataset", "beir", "--path", str(root), "--limit", "3"]
    args += ["--index-dir", str(tmp_path / "idx"), "--baselines", "bm25", "--json"]
    result = CliRunner().invoke(evaluate.eval_command, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert seen["variants"] == ["hybrid"]
    assert [r["name"] for r in report["results"]] == ["hybrid", "bm25"]
    assert [i["documents"] for i in report["indexes"]] == [3 + 3 * DISTRACTORS_PER_QUERY]
    assert result.stderr.splitlines()[0].startswith("[beir] loading the dataset")
    assert "ingest 63/63 documents" in result.stderr


def test_distractors_without_limit_is_refused(tmp_path) -> None:
    root = _beir(tmp_path / "beir")
    args = ["--dataset", "beir", "--path", str(root), "--distractors", "5"]
    result = CliRunner().invoke(evaluate.eval_command, args)
    assert result.exit_code == 2 and "--distractors needs --limit" in result.output


@pytest.mark.parametrize("limit", [QUERIES, QUERIES + 5])
def test_a_limit_past_the_queries_bounds_the_sample(limit: int, tmp_path) -> None:
    corpus = load_beir(_beir(tmp_path / "beir"))
    sliced = runner.limit_corpus(corpus, limit)
    assert len(sliced.queries) == QUERIES
    assert len(sliced.documents) == min(DOCUMENTS, QUERIES * (1 + DISTRACTORS_PER_QUERY))


def test_first_documents_keeps_the_queries_answered_within_them() -> None:
    from hierdoc.eval.datasets import first_documents

    documents = [
        TextDocument(f"doc{i}", f"text {i}", "", [f"passage {i}"], [f"{i}:1"]) for i in range(3)
    ]
    queries = [
        EvalQuery("inside", "?", {"0:1": 1.0, "1:1": 1.0}),
        EvalQuery("across", "?", {"1:1": 1.0, "2:1": 1.0}),
    ]
    corpus = EvalCorpus("c", documents, queries, "chunk", ("R@10",), "R@10")
    part = first_documents(corpus, 2)
    assert [d.source for d in part.documents] == ["doc0", "doc1"]
    assert [q.id for q in part.queries] == ["inside"] and part.name == "c-first2"
    contained = EvalCorpus(
        "t", documents, [EvalQuery("q", "?", {"text 1": 1.0})], "contains", (), ""
    )
    assert [q.id for q in first_documents(contained, 2).queries] == ["q"]
    assert first_documents(contained, 1).queries == []
