"""The span sets of the passage evaluation and a run over a slice of one, real model."""

from __future__ import annotations

import json
import math
import re

import pytest

from hierdoc.eval.datasets import load_dataset, slice_corpus
from hierdoc.eval.passage_methods import run_passage_eval
from tests.datasets import DATASETS, require


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def test_obliqa_files_gold_is_the_passage_text_in_its_document() -> None:
    require(DATASETS / "obliqa" / "dev.json")
    dev, test = (
        load_dataset("obliqa-files", split="dev"),
        load_dataset("obliqa-files", split="test"),
    )
    assert dev.unit == test.unit == "span"
    assert {q.id for q in dev.queries}.isdisjoint({q.id for q in test.queries})
    assert len(dev.queries) > 100 and len(test.queries) > 100
    texts = {d.source: d.text for d in dev.documents}
    assert all(len(t) <= 60_000 for t in texts.values())
    rows = {r["QuestionID"]: r for r in json.loads((DATASETS / "obliqa" / "dev.json").read_text())}
    for query in dev.queries[:40]:
        assert query.source_filter is None and query.document in texts
        found = " ".join(texts[query.document][s:e] for s, e in query.relevant)
        gold = " ".join(p["Passage"] for p in rows[query.id]["Passages"])
        assert _words(found) == _words(gold) or set(_words(gold)) <= set(_words(found))
    with pytest.raises(ValueError, match="dev or test"):
        load_dataset("obliqa-files", split="train")


@pytest.mark.slow
def test_a_passage_run_scores_every_method(tmp_path, embedder) -> None:
    require(DATASETS / "contractnli" / "dev.json")
    corpus = slice_corpus(load_dataset("contractnli", split="dev"), 8, distractors=0)
    report = run_passage_eval(corpus, tmp_path, embedder)
    assert list(report.means) == [
        "hierdoc chunks",
        "hierdoc passage",
        "hierdoc passages",
        "random same-length",
        "hierdoc passage results",
        "fixed 500 + MiniLM",
        "recursive 500 + MiniLM",
    ]
    chunks, passage = report.means["hierdoc chunks"], report.means["hierdoc passage"]
    assert math.isnan(chunks["Hit"]) and 0 <= passage["Hit"] <= 1
    assert passage["chars@1"] < chunks["chars@1"]
    for means in report.means.values():
        assert 0 <= means["P@1"] <= 1 and means["R@500"] <= means["R@2k"] <= means["R@8k"]
    assert report.means["fixed 500 + MiniLM"]["chars@1"] <= 500
    assert "| hierdoc passage results |" in report.table()
