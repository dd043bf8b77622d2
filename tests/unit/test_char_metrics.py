"""Character-level precision@k and recall@k (LegalBench-RAG), for chunks and for passages,
as ``hierdoc eval`` reports them on span corpora."""

from __future__ import annotations

import pytest

from hierdoc.eval.datasets import EvalCorpus, EvalQuery
from hierdoc.eval.judging import ChunkTable, judge
from hierdoc.eval.metrics import CHAR_METRICS, char_precision_at_k, char_recall_at_k
from hierdoc.eval.runner import run_eval
from hierdoc.eval.variants import VARIANTS
from hierdoc.pipeline.ingest import TextDocument
from tests.hash_embedder import HashEmbedder


def _legalbench_precision(returned: list[tuple[int, int]], gold: list[tuple[int, int]]) -> float:
    """``QAResult.precision`` of zeroentropy-ai/legalbenchrag, transcribed."""
    total_retrieved_len = relevant_retrieved_len = 0
    for snippet in returned:
        total_retrieved_len += snippet[1] - snippet[0]
        for gt in gold:
            common_min, common_max = max(snippet[0], gt[0]), min(snippet[1], gt[1])
            if common_max > common_min:
                relevant_retrieved_len += common_max - common_min
    return relevant_retrieved_len / total_retrieved_len if total_retrieved_len else 0


def _legalbench_recall(returned: list[tuple[int, int]], gold: list[tuple[int, int]]) -> float:
    """``QAResult.recall`` of zeroentropy-ai/legalbenchrag, transcribed."""
    total_relevant_len = relevant_retrieved_len = 0
    for gt in gold:
        total_relevant_len += gt[1] - gt[0]
        for snippet in returned:
            common_min, common_max = max(snippet[0], gt[0]), min(snippet[1], gt[1])
            if common_max > common_min:
                relevant_retrieved_len += common_max - common_min
    return relevant_retrieved_len / total_relevant_len if total_relevant_len else 0


GOLD = [(100, 200), (500, 540)]


@pytest.mark.parametrize(
    "returned",
    [
        [(0, 1000)],
        [(150, 250), (0, 50), (510, 600)],
        [(300, 400)],
        [(100, 200), (500, 540)],
        [],
    ],
)
def test_char_metrics_equal_the_reference_on_disjoint_spans(returned) -> None:
    for k in (1, 2, 8):
        top = returned[:k]
        assert char_precision_at_k(returned, GOLD, k) == pytest.approx(
            _legalbench_precision(top, GOLD)
        )
        assert char_recall_at_k(returned, GOLD, k) == pytest.approx(_legalbench_recall(top, GOLD))


def test_char_metrics_by_hand() -> None:
    assert char_precision_at_k([(150, 250)], GOLD, 1) == 0.5
    assert char_recall_at_k([(150, 250)], GOLD, 1) == pytest.approx(50 / 140)
    assert char_recall_at_k([(150, 250), (100, 160)], GOLD, 2) == pytest.approx(100 / 140)
    assert char_recall_at_k([(150, 250), (100, 200)], GOLD, 2) == pytest.approx(100 / 140)
    assert char_precision_at_k([None, (100, 200)], GOLD, 2) == 1.0


FILLER = "The parties shall meet once a year to review this agreement in good faith. " * 12
CLAUSE = (
    "The Receiving Party shall not reverse engineer, decompile or disassemble any "
    "prototype or software provided by the Disclosing Party."
)


def _corpus() -> EvalCorpus:
    documents, queries = [], []
    for n in range(3):
        text = f"{FILLER}\n\n{CLAUSE}\n\n{FILLER}\n\nThis agreement is governed by law {n}."
        source = f"nda/{n}"
        documents.append(TextDocument(source, text, f"NDA {n}"))
        start = text.index(CLAUSE)
        queries.append(
            EvalQuery(
                f"{n}/reverse",
                "Receiving Party shall not reverse engineer the prototype",
                [(start, start + len(CLAUSE))],
                source,
            )
        )
    return EvalCorpus(
        "spans",
        documents,
        queries,
        "span",
        ("SpanR@1", "SpanR@5", "SpanR@10", "SpanR@20", "MRR@10", "nDCG@10", *CHAR_METRICS),
        "SpanR@1",
    )


def test_eval_reports_passage_precision_beside_chunk_precision(tmp_path) -> None:
    report = run_eval(_corpus(), [VARIANTS["hybrid"]], ["dense"], tmp_path, HashEmbedder())
    hybrid, dense = report.result("hybrid"), report.result("dense")
    assert hybrid and dense
    assert hybrid.metrics["SpanR@1"] == 1.0
    assert hybrid.metrics["PsgP@1"] > 3 * hybrid.metrics["CharP@1"]
    assert hybrid.metrics["PsgR@8"] == pytest.approx(1.0)
    assert hybrid.metrics["CharR@8"] == pytest.approx(1.0)
    assert "PsgP@1" not in dense.metrics and "CharP@1" in dense.metrics
    row = next(line for line in report.table().splitlines() if line.startswith("| dense |"))
    assert "| – | – |" in row


def test_characters_from_another_document_are_returned_but_never_gold() -> None:
    """Corpus-wide: a chunk of the wrong NDA counts in precision's denominator, as
    LegalBench-RAG compares file paths before offsets."""
    table = ChunkTable(
        {"a:0": "a", "b:0": "b"},
        {"a:0": (0, 100), "b:0": (0, 300)},
        {"a": ["a:0"], "b": ["b:0"]},
    )
    query = EvalQuery("q", "Consider A; text", [(0, 50)], None, "a")
    corpus = EvalCorpus("wide", [], [query], "span", ("CharP@1", "CharP@8", "CharR@8"), "CharR@8")
    ranked = ["b:0", "a:0"]
    values = judge(corpus, query, {k: ranked for k in (1, 5, 10, 20)}, table).values
    assert values["CharP@1"] == 0.0
    assert values["CharP@8"] == pytest.approx(50 / 400)
    assert values["CharR@8"] == 1.0
