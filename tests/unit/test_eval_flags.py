"""The ``no_match`` flag against relevance in an evaluation report."""

from __future__ import annotations

import pytest

from hierdoc.eval.report import EvalReport, FlagAgreement, MethodResult


def test_flag_agreement_counts_flags_on_unanswered_queries() -> None:
    flags = {"a": True, "b": True, "c": False, "d": False, "e": True}
    answered = {"a": False, "b": True, "c": False, "d": True}  # "e" was not judged
    agreement = FlagAgreement.of(flags, answered)
    assert agreement == FlagAgreement(queries=4, flagged=2, unanswered=2, flagged_unanswered=1)
    assert agreement.precision == pytest.approx(0.5) and agreement.recall == pytest.approx(0.5)
    assert agreement.to_dict()["precision"] == 0.5


def test_no_flags_or_no_misses_leave_precision_or_recall_undefined() -> None:
    none_raised = FlagAgreement.of({"a": False}, {"a": False})
    assert none_raised.precision is None and none_raised.recall == 0.0
    all_answered = FlagAgreement.of({"a": True}, {"a": True})
    assert all_answered.precision == 0.0 and all_answered.recall is None
    assert all_answered.row("hybrid") == ["hybrid", "1", "1", "0", "0.00", "–"]


def test_the_report_prints_and_serialises_the_flag_table() -> None:
    report = EvalReport("set", "a set", "document", ("MRR@10",), "MRR@10", 2, 3)
    flagged = FlagAgreement(queries=2, flagged=1, unanswered=1, flagged_unanswered=1)
    report.results = [
        MethodResult("hybrid", "hierdoc", "", {}, {"MRR@10": 0.5}, [], 2, 0.1, no_match=flagged),
        MethodResult("dense", "baseline", "", {}, {"MRR@10": 0.5}, [], 2, 0.1),
    ]
    table = report.table()
    assert "| no_match of | queries | flagged | unanswered@10 | precision | recall |" in table
    assert "| hybrid | 2 | 1 | 1 | 1.00 | 1.00 |" in table and "| dense | 2 |" not in table
    results = report.to_dict()["results"]
    assert results[0]["no_match"]["recall"] == 1.0 and results[1]["no_match"] is None
