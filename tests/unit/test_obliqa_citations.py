"""Citation queries generated from ObliQA's passage numbers, and how they are judged."""

from __future__ import annotations

import json
from pathlib import Path

from hierdoc.eval.obliqa_citations import (
    FORMS,
    CitationQuery,
    citation_queries,
    cited_first,
    probe,
)
from hierdoc.eval.report import EvalReport, MethodResult

GEN = [
    ("5.3", "Compliance\nThe Compliance function of an Authorised Person"),
    ("5.3.6", "Compliance Officer: an Authorised Person must appoint an individual"),
    ("5.3.6.(1)", "The Compliance Officer must be resident in the State"),
    ("5.3.6.Guidance.2.", "The Regulator expects the Compliance Officer to be senior"),
    ("7.1", "A number that the passages repeat, written twice"),
    ("7.1", "A number that the passages repeat, written twice again"),
]
CRS = [("2.1.1", "Reporting Financial Institutions must keep records")]


def _folder(root: Path) -> Path:
    entries = {
        "1": {"file": "GEN.txt", "short_name": "GEN", "title": "General Rulebook (GEN)"},
        "2": {"file": "CRS-a.txt", "short_name": "CRS", "title": "CRS Regulations (CRS)"},
        "3": {"file": "CRS-b.txt", "short_name": "CRS", "title": "CRS Guidance Notes"},
    }
    (root / "passages").mkdir(parents=True)
    (root / "document_map.json").write_text(json.dumps(entries))
    for key, rows in (("1", GEN), ("2", CRS), ("3", CRS)):
        passages = [{"PassageID": n, "Passage": text} for n, text in rows]
        (root / "passages" / f"{key}.json").write_text(json.dumps(passages))
    return root


def test_every_form_cites_a_numbered_passage_of_its_document(tmp_path: Path) -> None:
    queries = citation_queries(_folder(tmp_path), {1: "gen", 2: "crs-a", 3: "crs-b"})
    texts = {q.text: q for q in queries}
    assert set(texts) >= {
        "Rule 5.3.6",
        "Rule 5.3.6(1)",
        "Guidance 2 under Rule 5.3.6",
        "GEN 5.3.6",
        "5.3.6 of GEN",
        "Rule 5.3.6 of GEN",
        "Rule 5.3.6(1) of GEN",
        "Guidance 2 under Rule 5.3.6 of GEN",
        "Rule 5.3.6 of the General Rulebook",
        "Section 5.3 of General Rulebook",
        "Section 2.1.1 of CRS Guidance Notes",
    }
    assert {q.form for q in queries} == set(FORMS)
    assert texts["Rule 5.3.6"].source_filter == "gen" and texts["GEN 5.3.6"].source_filter is None
    assert texts["Rule 5.3.6(1)"].probe == "The Compliance Officer must be resident in the State"
    assert texts["Section 5.3 of General Rulebook"].probe.startswith("The Compliance function")
    # "CRS" names two documents: no query names either by it; "7.1" numbers two passages
    assert not any(q.source != "gen" and "{short}" in q.form for q in queries)
    assert not any("7.1" in q.text for q in queries)
    assert not any("Rule 5.3 " in f"{q.text} " for q in queries)  # two parts: a section


def test_only_the_documents_indexed_are_cited_and_the_sample_is_fixed(tmp_path: Path) -> None:
    root = _folder(tmp_path)
    queries = citation_queries(root, {1: "gen"}, per_form=1)
    assert {q.source for q in queries} == {"gen"}
    assert len(queries) == len(FORMS)
    assert queries == citation_queries(root, {1: "gen"}, per_form=1)


def test_a_citation_is_right_when_the_first_result_holds_the_passage() -> None:
    wanted = CitationQuery("Rule 5.3.6", "Rule {n}", "gen", "Compliance Officer: an", "gen")
    other = CitationQuery("GEN 5.3.6", "{short} {n}", "gen", "Compliance Officer: an")
    answers = {
        "Rule 5.3.6": ("gen", "5.3.6 Compliance\u200e  Officer: an Authorised Person"),
        "GEN 5.3.6": ("cobs", "5.3.6 Compliance Officer: an Authorised Person"),
    }
    seen = []

    def first(text: str, source: str | None) -> tuple[str, str] | None:
        seen.append((text, source))
        return answers.get(text)

    result = cited_first(first, [wanted, other, other])
    assert seen[0] == ("Rule 5.3.6", "gen") and seen[1] == ("GEN 5.3.6", None)
    assert result.forms == {"Rule {n}": (1, 1), "{short} {n}": (0, 2)}
    assert result.total == (1, 3) and result.misses == {"GEN 5.3.6": "cobs"}
    report = EvalReport("c", "d", "span", ("R@1",), "R@1", 3, 1)
    report.results.append(MethodResult("hybrid", "hierdoc", "", {}, {}, [], 3, 0.1))
    report.results[0].citations = result
    assert "| hybrid | {short} {n} | 0.000 | 0/2 |" in report.table()
    assert "| hybrid | all | 0.333 | 1/3 |" in report.table()
    assert report.to_dict()["results"][0]["citations"]["cited_first"] == 0.3333


def test_a_passage_is_recognised_by_its_first_line_of_some_length() -> None:
    assert probe("(1)\n  Where a  Person\u200b is  authorised to carry on") == (
        "Where a Person is authorised to carry on"
    )
    assert probe("short\n\n") == ""


def test_run_eval_asks_the_citation_queries_of_a_corpus(tmp_path: Path) -> None:
    from hierdoc.eval.datasets import EvalCorpus, EvalQuery, slice_corpus
    from hierdoc.eval.runner import run_eval
    from hierdoc.eval.variants import VARIANTS
    from hierdoc.models import TextDocument
    from tests.hash_embedder import HashEmbedder
    from tests.unit.test_rulebooks import COBS, GEN

    documents = [TextDocument("GEN_VER08.txt", GEN), TextDocument("COBS_VER15.txt", COBS)]
    asked = EvalQuery("q1", "who keeps a ledger of introductions", [(0, 10)], "GEN_VER08.txt")
    citations = [
        CitationQuery("Rule 2.1.2 of GEN", "Rule {n} of {short}", "GEN_VER08.txt", "ledger of"),
        CitationQuery("Rule 2.1.2", "Rule {n}", "COBS_VER15.txt", "reclassified", "COBS_VER15.txt"),
    ]
    corpus = EvalCorpus(
        "citations", documents, [asked], "span", ("SpanR@10",), "SpanR@10", citations=citations
    )
    sliced = slice_corpus(corpus, 1, 0)  # the document the question is filtered to, alone
    assert [c.source for c in sliced.citations] == ["GEN_VER08.txt"]
    report = run_eval(corpus, [VARIANTS["hybrid"]], [], tmp_path, HashEmbedder())
    cited = report.results[0].citations
    assert cited is not None and cited.forms == {"Rule {n} of {short}": (1, 1), "Rule {n}": (1, 1)}
    assert "| hybrid | Rule {n} of {short} | 1.000 | 1/1 |" in report.table()
