"""Passages and highlights of search results (search/passages.py): whole sentences of the
chunk within the budget, chosen by the cited point, the quoted phrase, sentence BM25 and the
best embedding window; highlights pointing at what matched."""

from __future__ import annotations

import re

import pytest

from hierdoc import Index
from hierdoc.search.passages import QueryEvidence, match_chunk, sentence_units
from hierdoc.text.analyze import analyze
from tests.datasets import GDPR_MD, require
from tests.hash_embedder import HashEmbedder


@pytest.fixture(scope="module")
def gdpr(tmp_path_factory):
    """The GDPR with a bag-of-words embedder: passages are about text, not vector quality."""
    index = Index.open(tmp_path_factory.mktemp("passages") / "index", embedder=HashEmbedder())
    report = index.ingest([require(GDPR_MD)])
    assert not report.problems
    yield index
    index.close()


QUERIES = (
    "Art. 17(3)(b)",
    '"without undue delay"',
    "right to erasure of personal data",
    "processing of data concerning health",
    "Article 83 administrative fines",
)


def _assert_whole_sentences(content: str, start: int, end: int) -> None:
    units = sentence_units(content)
    assert start in {s for s, _ in units}, content[max(0, start - 40) : start + 40]
    assert end in {e for _, e in units}, content[max(0, end - 40) : end + 40]


@pytest.mark.parametrize("query", QUERIES)
def test_passages_are_whole_sentences_of_content_within_the_budget(gdpr, query) -> None:
    response = gdpr.search(query, top_k=5)
    assert response.results
    for result in response.results:
        passage = result.passage
        assert passage is not None
        assert result.content[passage.start : passage.end] == passage.text
        _assert_whole_sentences(result.content, passage.start, passage.end)
        one_sentence = (
            sum(
                1
                for s, e in sentence_units(result.content)
                if s >= passage.start and e <= passage.end
            )
            == 1
        )
        assert len(passage.text) <= gdpr.settings.passage_chars or one_sentence


def test_a_smaller_budget_gives_shorter_passages(gdpr) -> None:
    wide = gdpr.search("right to erasure of personal data", top_k=5)
    narrow = gdpr.search("right to erasure of personal data", top_k=5, passage_chars=200)
    for w, n in zip(wide.results, narrow.results, strict=True):
        assert n.passage and w.passage
        assert len(n.passage.text) <= max(200, len(w.passage.text))
    assert sum(len(r.passage.text) for r in narrow.results) < sum(
        len(r.passage.text) for r in wide.results
    )


def test_the_cited_point_is_the_passage_and_is_highlighted(gdpr) -> None:
    first = gdpr.search("Art. 17(3)(b)", top_k=3).results[0]
    assert first.section_id == "article-17-3-b"
    assert first.sections[0] == "article-17" and "article-17-3-b" in first.sections
    assert first.passage.text.startswith("(b) for compliance with a legal obligation")
    assert first.passage.text.endswith("vested in the controller;")
    marked = [first.content[s:e] for s, e in first.highlights]
    assert any(m.startswith("(b) for compliance") for m in marked)


def test_a_cited_paragraph_gives_its_points_within_the_budget(gdpr) -> None:
    first = gdpr.search("Article 17(3)", top_k=1).results[0]
    assert first.passage.text.startswith("3. Paragraphs 1 and 2 shall not apply")
    assert "(a) for exercising the right of freedom of expression" in first.passage.text


def test_the_quoted_phrase_is_in_the_passage_and_highlighted(gdpr) -> None:
    response = gdpr.search('"without undue delay"', top_k=5, mode="exact")
    assert response.results
    for result in response.results:
        assert "without undue delay" in result.passage.text.lower()
        marked = [result.content[s:e].lower() for s, e in result.highlights]
        assert "without undue delay" in marked


def test_highlights_point_at_the_query_terms_as_bm25_analyses_them(gdpr) -> None:
    response = gdpr.search("erasure of personal data", top_k=5, mode="keyword")
    wanted = {"erasur", "person", "data"}
    for result in response.results:
        assert result.highlights
        for start, end in result.highlights:
            assert set(analyze(result.content[start:end])) & wanted, result.content[start:end]
        assert result.highlights == sorted(result.highlights)
        assert all(
            a[1] < b[0] for a, b in zip(result.highlights, result.highlights[1:], strict=False)
        )
        assert any(result.passage.start <= s < result.passage.end for s, _ in result.highlights)


def test_results_json_carries_passage_and_highlights(gdpr) -> None:
    data = gdpr.search("erasure", top_k=2).to_dict()
    result = data["results"][0]
    assert set(result["passage"]) == {"text", "start", "end"}
    content = result["content"]
    assert (
        content[result["passage"]["start"] : result["passage"]["end"]] == result["passage"]["text"]
    )
    assert all(content[s:e].lower().startswith("erasur") for s, e in result["highlights"])


# -- the choice inside one chunk, from each kind of evidence ------------------------------

FILLER = "The parties agree on the general terms set out in this agreement. " * 3
CONTENT = (
    f"{FILLER.strip()}\n\n"
    "The Receiving Party may retain one archival copy of the Confidential Information "
    "for compliance purposes only.\n\n"
    f"{FILLER.strip()}\n\n"
    "Archival copies of Confidential Information held by the Receiving Party remain "
    "subject to this agreement, and the archival copy shall be kept in a secure archive.\n\n"
    f"{FILLER.strip()}"
)


def _evidence(**idf: float) -> QueryEvidence:
    return QueryEvidence(idf, (), ())


def test_sentence_bm25_prefers_the_denser_sentence() -> None:
    match = match_chunk(CONTENT, _evidence(archiv=5.0, copi=2.0), budget=200)
    assert match.passage.text.startswith("Archival copies of Confidential Information")
    assert len(match.passage.text) <= 200 or match.passage.text.count(". ") == 0


def test_a_rare_term_outweighs_a_common_one() -> None:
    content = (
        f"{FILLER.strip()}\n\nEach copy shall be marked by the party.\n\n"
        f"{FILLER.strip()}\n\nEach archive shall be marked by the party."
    )
    match = match_chunk(content, _evidence(copi=0.5, archiv=4.0), budget=100)
    assert match.passage.text == "Each archive shall be marked by the party."


def test_the_best_embedding_window_decides_without_terms() -> None:
    second = CONTENT.index("Archival copies")
    windows = [((0, second - 2), 0.1), ((second, len(CONTENT)), 0.6)]
    match = match_chunk(CONTENT, _evidence(), budget=200, windows=windows)
    assert match.passage.start == second
    windows = [
        ((0, CONTENT.index("The Receiving Party may") + 20), 0.7),
        ((second, len(CONTENT)), 0.2),
    ]
    match = match_chunk(CONTENT, _evidence(), budget=200, windows=windows)
    assert match.passage.start < second


def test_a_phrase_anchors_the_passage_over_term_density() -> None:
    pattern = re.compile(r"(?<!\w)one\W+archival\W+copy(?!\w)", re.I)
    evidence = QueryEvidence({"archiv": 5.0}, (pattern,), ())
    match = match_chunk(CONTENT, evidence, budget=150)
    assert "one archival copy" in match.passage.text
    start = CONTENT.index("one archival copy")
    assert (start, start + len("one archival copy")) in match.highlights


def test_no_evidence_gives_the_opening_sentences() -> None:
    match = match_chunk(CONTENT, _evidence(), budget=300)
    assert match.passage.start == 0 and len(match.passage.text) <= 300
    assert match.highlights == []


def test_adjacent_term_highlights_join_into_one(gdpr) -> None:
    result = gdpr.search("without undue delay", top_k=1, mode="keyword").results[0]
    marked = [result.content[s:e].lower() for s, e in result.highlights]
    assert "without undue delay" in marked
    assert "undue" not in marked
