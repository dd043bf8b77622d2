"""ContractNLI corpus-wide: each hypothesis named by its NDA's title and searched
over all NDAs; Doc@1 and span metrics judged only on the right NDA's chunks."""

from __future__ import annotations

from hierdoc.eval.datasets import EvalCorpus, EvalQuery, load_contractnli, load_dataset
from hierdoc.eval.judging import ChunkTable, judge
from hierdoc.eval.metrics import CUTOFFS
from tests.datasets import DATASETS, require

CONTRACTNLI = DATASETS / "contractnli" / "test.json"


def test_the_corpus_wide_set_names_each_nda_and_searches_them_all() -> None:
    within = load_contractnli(require(CONTRACTNLI))
    wide = load_dataset("contractnli-wide", require(CONTRACTNLI))
    assert wide.name == "contractnli-wide-test" and wide.metrics[0] == "Doc@1"
    assert len(wide.queries) == len(within.queries) == 1188
    assert len(wide.documents) == 123
    titles = {d.source: d.title for d in wide.documents}
    for asked, original in zip(wide.queries, within.queries, strict=True):
        assert asked.source_filter is None and asked.document == original.source_filter
        assert asked.text == f"Consider {titles[asked.document]}; {original.text}"
        assert asked.relevant == original.relevant


def test_another_ndas_chunk_covers_none_of_the_gold_spans() -> None:
    corpus = EvalCorpus("wide", [], [], "span", ("Doc@1", "SpanR@1", "SpanR@5"), "SpanR@1")
    query = EvalQuery("q", "Consider a.txt; x", [(0, 10)], None, "A")
    table = ChunkTable(
        {"a:0": "A", "b:0": "B"}, {"a:0": (0, 50), "b:0": (0, 50)}, {"A": ["a:0"], "B": ["b:0"]}
    )
    wrong_first = judge(corpus, query, dict.fromkeys(CUTOFFS, ["b:0", "a:0"]), table).values
    assert wrong_first["Doc@1"] == 0.0 and wrong_first["SpanR@1"] == 0.0
    assert wrong_first["SpanR@5"] == 1.0
    right_first = judge(corpus, query, dict.fromkeys(CUTOFFS, ["a:0"]), table).values
    assert right_first["Doc@1"] == 1.0 and right_first["SpanR@1"] == 1.0
