"""ObliQA in the evaluation harness, on a small slice of its development split."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from hierdoc.eval.datasets import EvalCorpus, load_dataset
from hierdoc.eval.obliqa import PUBLISHED, load_obliqa_documents, load_obliqa_passages
from hierdoc.eval.runner import run_eval
from hierdoc.eval.variants import VARIANTS
from hierdoc.models import TextDocument
from tests.datasets import DATASETS, require

OBLIQA = DATASETS / "obliqa"


def _slice(corpus: EvalCorpus, questions: int, others: int) -> EvalCorpus:
    """The first questions over their gold passages and ``others`` random passages."""
    kept = corpus.queries[:questions]
    gold = {c for q in kept for c in q.relevant}
    every = [c for d in corpus.documents for c in d.chunk_ids or ()]
    picked = gold | set(random.Random(5).sample(sorted(set(every) - gold), others))
    documents = []
    for document in corpus.documents:
        pairs = [
            (t, c) for t, c in zip(document.chunks, document.chunk_ids, strict=True) if c in picked
        ]
        if pairs:
            texts, ids = [list(x) for x in zip(*pairs, strict=True)]
            documents.append(
                TextDocument(document.source, "\n\n".join(texts), document.title, texts, ids)
            )
    return replace(corpus, name="obliqa-slice", documents=documents, queries=kept)


def test_both_forms_load_the_same_questions() -> None:
    passages = load_obliqa_passages(require(OBLIQA))
    documents = load_obliqa_documents(OBLIQA)
    assert len(passages.queries) == len(documents.queries) > 2000
    assert sum(len(d.chunk_ids) for d in passages.documents) == 13012
    assert len(documents.documents) == 40 and documents.unit == "contains"
    first = passages.queries[0]
    assert all(":" in c for c in first.relevant) and first.group in (
        "one passage",
        "several passages",
    )
    assert {q.group for q in passages.queries} == {"one passage", "several passages"}
    assert load_dataset("obliqa").name == "obliqa-passages"


def test_one_reader_gives_both_document_forms_the_same_texts() -> None:
    contained = load_obliqa_documents(require(OBLIQA))
    spanned = load_obliqa_documents(OBLIQA, "dev", judged="spans")
    assert spanned == load_dataset("obliqa-files", split="dev")
    assert [d.source for d in contained.documents] == sorted(d.source for d in contained.documents)
    by_file = {d.source: d.text for d in contained.documents}
    assert len(spanned.documents) == 19 and spanned.unit == "span"
    for document in spanned.documents:
        assert document.title and by_file[document.source.removeprefix("obliqa/")] == document.text
    assert not any(d.title for d in contained.documents)  # hierdoc chooses the title
    with pytest.raises(ValueError, match="contains or spans"):
        load_obliqa_documents(OBLIQA, judged="passages")  # type: ignore[arg-type]


@pytest.mark.slow
def test_passage_slice_end_to_end(tmp_path, embedder) -> None:
    corpus = _slice(load_obliqa_passages(require(OBLIQA)), 12, 150)
    report = run_eval(
        corpus, [VARIANTS["hybrid"], VARIANTS["keyword"]], ["bm25"], tmp_path, embedder
    )
    assert [r.name for r in report.results] == ["hybrid", "keyword", "bm25"]
    for result in report.results:
        assert 0 < result.metrics["MAP@10"] <= result.metrics["R@10"] <= 1
        assert result.metrics["R@1"] <= result.metrics["R@10"]
        assert sum(int(g.split("(")[1].rstrip(")")) for g in result.groups) == 12
    table = report.table()
    assert next(iter(PUBLISHED)) in table and "| 0.820 | 0.665 |" in table
    assert "group (queries)" in table and "one passage" in table
