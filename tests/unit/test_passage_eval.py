"""The passage evaluation's measures and the splitters of its baselines."""

from __future__ import annotations

import math

import pytest

from hierdoc.eval.datasets import EvalQuery
from hierdoc.eval.passage_eval import (
    Returned,
    first_hit,
    mean_measures,
    measure,
    packed,
    within_budget,
)
from hierdoc.eval.splitters import fixed_spans, recursive_spans

TEXT = (
    "1. Definitions\n\n"
    "Confidential Information means all information disclosed by a party.\n\n"
    "2. Obligations\n\n"
    "The Recipient shall not disclose Confidential Information to any third party. "
    "The Recipient may share it with its employees who need to know.\n"
)


def query(gold: list[tuple[int, int]]) -> EvalQuery:
    return EvalQuery("q", "may the recipient share with employees", gold, "doc")


def test_precision_recall_and_budgets_count_characters():
    gold = [(100, 200)]
    items = [
        Returned("doc", (150, 250), 0, (0, 400)),  # half gold
        Returned("doc", (0, 100), 0, (0, 400)),  # no gold
        Returned("other", (0, 50), 1, (0, 60)),  # another document: returned, never gold
    ]
    values = measure(query(gold), items)
    assert values["P@1"] == pytest.approx(0.5)
    assert values["R@8"] == pytest.approx(0.5)
    assert values["chars@1"] == 100
    assert values["R@500"] == pytest.approx(0.5)
    assert values["Hit"] == 1.0


def test_budget_cuts_the_last_passage():
    items = [Returned("doc", (0, 300), 0), Returned("doc", (300, 900), 1)]
    kept = within_budget(items, 500)
    assert [i.span for i in kept] == [(0, 300), (300, 500)]
    values = measure(query([(600, 700)]), items)
    assert values["R@500"] == 0.0
    assert values["R@2k"] == 1.0


def test_packing_skips_a_passage_that_would_overflow_the_budget():
    items = [
        Returned("doc", (0, 1500), 0),
        Returned("doc", (2000, 2800), 1),  # 800 more would overflow 2,000
        Returned("doc", (3000, 3400), 2),
    ]
    assert [i.span for i in packed(items, 2000)] == [(0, 1500), (3000, 3400)]
    values = measure(query([(2000, 2100), (3000, 3100)]), items)
    assert values["R@2k"] == pytest.approx(0.5)  # the second passage read up to 2,000
    assert values["R@2k packed"] == pytest.approx(0.5)  # the third read whole instead
    whole = measure(query([(0, 100)]), [Returned("doc", (0, 2500), 0)])
    assert whole["R@2k"] == 1.0 and whole["R@2k packed"] == 0.0


def test_hit_is_about_the_first_result_holding_gold():
    gold = [(500, 600)]
    # the first result's chunk misses the gold; the second holds it, but its passage is elsewhere
    items = [
        Returned("doc", (0, 100), 0, (0, 400)),
        Returned("doc", (400, 450), 1, (400, 900)),
        Returned("doc", (550, 580), 2, (400, 900)),
    ]
    assert first_hit(items, gold, "doc") == 0.0
    items[1] = Returned("doc", (520, 560), 1, (400, 900))
    assert first_hit(items, gold, "doc") == 1.0
    assert math.isnan(first_hit(items, [(5000, 5100)], "doc"))
    whole = [Returned("doc", (400, 900), 0)]
    assert math.isnan(first_hit(whole, gold, "doc"))


def test_means_leave_out_questions_without_a_measure():
    rows = [measure(query([(0, 10)]), [Returned("doc", (0, 10), 0)])] * 2
    rows.append(measure(query([(0, 10)]), [Returned("doc", (0, 10), 0, (0, 50))]))
    means = mean_measures(rows)
    assert means["Hit"] == 1.0
    assert means["P@1"] == 1.0


def test_fixed_spans_tile_the_text():
    spans = fixed_spans(TEXT, 50)
    assert spans[0] == (0, 50)
    assert all(e - s <= 50 for s, e in spans)
    assert "".join(TEXT[s:e] for s, e in spans) == TEXT


def test_recursive_spans_split_on_paragraphs_first_and_fit_the_size():
    spans = recursive_spans(TEXT, 120)
    pieces = [TEXT[s:e] for s, e in spans]
    assert all(len(p) <= 120 for p in pieces)
    assert pieces[0].startswith("1. Definitions")
    # the paragraph too long to join is split apart from its neighbours, at spaces
    assert pieces[0].endswith("2. Obligations")
    assert pieces[1].startswith("The Recipient shall")
    assert all(TEXT[e] == " " for _, e in spans[1:-1])
    assert recursive_spans("x" * 250, 100) == [(0, 100), (100, 200), (200, 250)]
    with pytest.raises(ValueError):
        recursive_spans(TEXT, 0)
