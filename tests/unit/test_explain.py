"""``explain``: how a search reached its results (the plan's trace, each modality's ranks
and scores, the fusion, the pins), from the API and ``hierdoc search --explain``; and a
search reads the query's syntax once, passages included."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.cli import commands
from hierdoc.errors import InputError
from tests.hash_embedder import HashEmbedder
from tests.unit.test_cli_small import HashState

LEASE = """# Office Lease

## Section 1 Rent

The tenant shall pay the rent on the first day of each month. A late fee of five percent
applies to rent paid after the fifth day.

## Section 2 Termination

Either party may terminate this lease on ninety days' written notice.
"""
NDA = """# Mutual NDA

## Section 1 Confidential Information

Each party shall keep the other party's confidential information secret.

## Section 2 Term

This agreement lasts two years; the duty of confidentiality survives termination.
"""
FIPS = """# FIPS 200 Minimum Security Controls

## Access control

Passwords are at least twelve characters long and are changed after a compromise.
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    directory = tmp_path_factory.mktemp("explain") / "index"
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as opened:
        opened.ingest_texts(
            [
                TextDocument("office_lease.md", LEASE),
                TextDocument("mutual_nda.md", NDA),
                TextDocument("nist-fips-200.md", FIPS),
            ]
        )
        yield opened


@pytest.mark.parametrize("fusion", ["rrf", "score"])
def test_explain_gives_the_trace_ranks_fusion_and_pins(index: Index, fusion: str) -> None:
    response = index.search("Section 2 termination notice", explain=True, fusion=fusion)
    explained = response.explain
    assert explained is not None and response.to_dict()["explain"] == explained
    trace = explained["plan"]["trace"]
    assert [step["analyser"] for step in trace] == ["naming", "syntax", "vocabulary"]
    assert trace[1]["decision"] == "cites Section 2 (section-2)"
    assert explained["citations"] == response.citations
    assert response.citations[0]["section_id"] == "section-2"
    assert explained["modalities"]["keyword"]["searched"] == "Section 2 termination notice"
    fused = explained["fusion"]
    assert fused["rule"] == fusion
    assert fused["weights"] == {"exact": 1, "semantic": 1, "keyword": 1}
    assert len(explained["results"]) == len(response.results)
    for entry, result in zip(explained["results"], response.results, strict=True):
        assert entry["chunk_id"] == result.chunk_id and entry["score"] == result.score
        assert entry["ranks"] == {m: r for m, r in result.ranks.items() if r is not None}
        if fusion == "rrf":
            rrf = {m: round(1 / (60 + r), 6) for m, r in entry["ranks"].items()}
            assert entry["fused"] == rrf
        total = sum(entry["fused"].values())
        assert entry["fusion_score"] == pytest.approx(total / fused["best_possible"], abs=1e-4)
        assert entry["pin"] == result.pin
    pinned = [e for e in explained["results"] if e["pin"]]
    assert {e["pin"] for e in pinned} == {"cites Section 2"} and len(pinned) == 2
    if fusion == "score":
        applied, confidence = fused["applied_weights"], fused["confidence"]
        assert applied["keyword"] + applied["semantic"] == pytest.approx(2.0)
        ratio = confidence["keyword"] / confidence["semantic"]
        assert applied["keyword"] / applied["semantic"] == pytest.approx(ratio, rel=1e-3)
        assert applied["exact"] == 1


def test_explain_without_fusion_says_which_ranking_alone(index: Index) -> None:
    explained = index.search("rent late fee", mode="keyword", explain=True).explain
    assert explained is not None
    assert explained["fusion"] == {"method": "the keyword ranking alone"}
    assert set(explained["modalities"]) == {"keyword"}
    assert all("fused" not in entry for entry in explained["results"])


def test_no_explain_unless_asked(index: Index) -> None:
    response = index.search("rent")
    assert response.explain is None and "explain" not in response.to_dict()
    with pytest.raises(InputError, match="explain"):
        index.search("rent", explain="yes")  # type: ignore[arg-type]


def test_the_document_a_query_names_is_in_the_trace(index: Index) -> None:
    explained = index.search("Section 1 of office_lease.md", explain=True).explain
    assert explained is not None
    naming = explained["plan"]["trace"][0]
    assert naming["analyser"] == "naming" and "office_lease.md" in naming["decision"]
    assert explained["plan"]["sources"] == ["office_lease.md"]
    assert explained["plan"]["text"] == "Section 1 of"


READERS = ("find_citations", "find_relative_citations")
"""The readers of a query's citations: whoever calls one reads the query's syntax."""


@pytest.mark.parametrize(
    "query",
    [
        "late fee for rent",
        "Section 2 termination",
        '"written notice" Section 2',
        "late fee in office_lease.md",
        "Section 1 of office_lease.md",
        "what does the Office Lease say about rent",
        "password length under FIPS 200",
        "password length in the FIPS 200",
        "paragraph (b) of the lease",
        "`rentDue` and late_fee",
        '"late fee"',
    ],
)
@pytest.mark.parametrize(
    "options", [{}, {"explain": True}, {"mode": "keyword"}, {"passage_results": True}]
)
def test_a_search_reads_the_query_s_syntax_once(
    index: Index, query: str, options: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: dict[str, list[str]] = {reader: [] for reader in READERS}
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("hierdoc."):
            continue
        for reader in READERS:
            found = getattr(module, reader, None)
            if callable(found):
                monkeypatch.setattr(module, reader, _counted(found, calls[reader]))
    index.search(query, **options)
    assert [len(texts) for texts in calls.values()] == [1, 1], calls


def _counted(reader: Callable[..., Any], calls: list[str]) -> Callable[..., Any]:
    def counted(text: str, *args: Any) -> Any:
        calls.append(text)
        return reader(text, *args)

    return counted


def test_hierdoc_search_explain_prints_it_after_the_results(
    index: Index, capsys: pytest.CaptureFixture[str]
) -> None:
    state = HashState(str(index.directory))
    run = commands.search.main
    with pytest.raises(SystemExit) as stop:
        run(["Section 2 termination", "--explain"], obj=state)
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.index("office_lease.md") < out.index("plan:")
    assert "  syntax      cites Section 2 (section-2)" in out
    assert "  citation Section 2 -> section-2 (found)" in out
    assert "fusion: score fusion, weights exact 1, keyword 1, semantic 1" in out
    assert "  applied by confidence: keyword " in out and "(confidence 0." in out
    assert "pinned: cites Section 2" in out and "exact #1 (1)" in out
    with pytest.raises(SystemExit):
        run(["Section 2 termination", "--explain", "--format", "json"], obj=state)
    data = json.loads(capsys.readouterr().out)
    assert data["explain"]["results"][0]["pin"] == "cites Section 2"


def test_the_search_tool_explains_when_asked(index: Index) -> None:
    from hierdoc.tools.logic import run_search

    output = run_search(index, "Section 2 termination", explain=True)
    assert output.structured["explain"]["plan"]["trace"][1]["analyser"] == "syntax"
    assert "How these ranked:" in output.text and "pinned: cites Section 2" in output.text
    assert run_search(index, "Section 2 termination").structured["explain"] is None


def test_a_policy_set_for_one_search_is_validated(index: Index) -> None:
    with pytest.raises(InputError, match="policy"):
        index.search("rent", policy={"no_such_threshold": 1})
    with pytest.raises(InputError, match="policy"):
        index.search("rent", policy={"pointing_margin": 0.5})


class ReversedReranker:
    """A reranker that reverses the order it is given: one that disagrees with fusion."""

    name = "reversed"

    def rerank(self, query: str, texts: list[str]) -> list[tuple[int, float]]:
        return [(i, float(i)) for i in reversed(range(len(texts)))]


def test_explain_shows_the_reranking(index: Index) -> None:
    from hierdoc.config import RerankerSettings
    from hierdoc.search.explain import explain, explain_lines
    from hierdoc.search.searcher import Searcher

    settings = index.settings.search_settings(
        top_k=3, reranker=RerankerSettings(provider="cohere", name="x", top_n=3)
    )
    searcher = Searcher(index.store, index.embed_query, index.glossary(), ReversedReranker())
    execution = searcher.run("rent late fee notice", settings)
    explained = explain(execution)
    assert explained["reranker"] == "reversed"
    fused = sorted(execution.fused, key=execution.fused.__getitem__, reverse=True)[:3]
    assert [e["chunk_id"] for e in explained["results"]] == fused[::-1]
    assert [e["rerank"] for e in explained["results"]] == [2.0, 1.0, 0.0]
    text = "\n".join(explain_lines(explained))
    assert "reranked by reversed" in text and "-> rerank 2" in text


@pytest.mark.parametrize("mode", ["keyword", "semantic"])
def test_one_modality_fuses_the_ranking_within_a_named_document(index: Index, mode: str) -> None:
    response = index.search("termination notice in mutual_nda.md", mode=mode, explain=True)
    assert response.results[0].source == "mutual_nda.md"
    explained = response.explain
    assert explained is not None
    assert set(explained["modalities"]) == {mode, "named"}
    assert explained["fusion"]["weights"] == {mode: 1.0, "named": 3.0}
    assert all("fused" in entry for entry in explained["results"])
