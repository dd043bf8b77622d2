"""Retrieval on the GDPR with the real model (index built once per session)."""

import re

import pytest

from hierdoc import InputError
from hierdoc.models import SearchFilter
from hierdoc.search.analyze import analyze

pytestmark = pytest.mark.slow


def test_article_17_first_with_its_parent_chain(gdpr_index) -> None:
    response = gdpr_index.search("Article 17")
    first = response.results[0]
    assert first.section_id == "article-17"
    assert [part.split(" - ")[0] for part in first.parent_chain] == [
        "Chapter III",
        "Section 3",
        "Article 17",
    ]
    assert not response.no_match


def test_every_article_is_found_by_its_number(gdpr_index) -> None:
    misses = []
    for number in range(1, 100):
        first = gdpr_index.search(f"Article {number}", top_k=3).results[0]
        if first.section_id != f"article-{number}":
            misses.append((number, first.section_id))
    assert misses == []


def test_right_to_be_forgotten_finds_article_17(gdpr_index) -> None:
    results = gdpr_index.search("right to be forgotten", top_k=3).results
    assert "article-17" in [r.sections[0] for r in results]


def test_keyword_mode_returns_only_chunks_with_the_terms(gdpr_index) -> None:
    results = gdpr_index.search("supervisory authority", mode="keyword", top_k=50).results
    assert results
    wanted = set(analyze("supervisory authority"))
    for result in results:
        assert wanted & set(analyze(result.content)), result.chunk_id
    assert all(r.scores["semantic"] is None for r in results)


def test_result_fields_and_modalities(gdpr_index) -> None:
    result = gdpr_index.search("lawfulness of processing consent", top_k=5).results[0]
    data = result.to_dict()
    assert set(data) >= {
        "chunk_id",
        "source",
        "title",
        "parent_chain",
        "section_id",
        "heading",
        "chunk_type",
        "content",
        "score",
        "scores",
        "ranks",
    }
    assert set(data["scores"]) == {"semantic", "keyword", "exact"}
    assert data["source"].endswith("gdpr.md")
    assert 0 < data["score"] <= 1


def test_quoted_phrase_is_an_exact_match(gdpr_index) -> None:
    response = gdpr_index.search('"without undue delay"', mode="exact", top_k=100)
    assert len(response.results) > 5
    for result in response.results:
        assert re.search(r"without\s+undue\s+delay", result.content, re.IGNORECASE)


def test_unrelated_query_is_no_match(gdpr_index) -> None:
    assert gdpr_index.search("quantum chromodynamics lattice gauge theory").no_match


def test_missing_citation_is_reported(gdpr_index) -> None:
    response = gdpr_index.search("Article 120")
    assert response.no_match
    assert response.results == []
    assert any("Article 120" in note for note in response.notes)


def test_top_k_limits(gdpr_index) -> None:
    assert len(gdpr_index.search("controller", top_k=100).results) <= 100
    with pytest.raises(InputError):
        gdpr_index.search("controller", top_k=101)
    with pytest.raises(InputError):
        gdpr_index.search("   ")


def test_min_score_filters(gdpr_index) -> None:
    results = gdpr_index.search("data protection officer", min_score=0.5).results
    assert results and all(r.score >= 0.5 for r in results)


def test_filters_by_section_subtree(gdpr_index) -> None:
    results = gdpr_index.search("right of access", section="chapter-3", top_k=20).results
    assert results
    chunks = gdpr_index.store.get_chunks([r.chunk_id for r in results])
    under = SearchFilter(section_prefix="chapter-3")
    # a section path keeps the ids a filter needs: "chapter-3-section-2" stands for its
    # ancestor "chapter-3" (SearchFilter.matches is the one rule every backend follows)
    assert all(under.matches(chunks[r.chunk_id].chunk) for r in results)
    assert all(chunks[r.chunk_id].chunk.parent_chain[0].startswith("Chapter III") for r in results)


def test_async_search(gdpr_index) -> None:
    import asyncio

    response = asyncio.run(gdpr_index.asearch("Article 5", top_k=1))
    assert response.results[0].section_id == "article-5"


def test_show_gives_neighbours(gdpr_index) -> None:
    view = gdpr_index.show("article-17")
    assert view.chunk.chunk.section_id == "article-17"
    assert view.previous.chunk.section_id == "article-16"
    assert view.next is not None


CODE_FILES = {
    "scheduler.py": (
        "class Scheduler:\n    def tick(self):\n        target = self.getTarget()\n"
        "        return target.run(self.frame_timer)\n"
    ),
    "notes.md": "# Notes\n\nThe scheduler picks a target for each tick of the clock.\n",
    "test_image.java": (
        "public class ReproducibleImageTest {\n  @Test\n  public void layers() {}\n}\n"
    ),
}


@pytest.fixture(scope="module")
def code_index(tmp_path_factory, embedder):
    from hierdoc import Index, Settings, TextDocument

    index = Index.open(tmp_path_factory.mktemp("code") / "index", Settings(), embedder=embedder)
    index.ingest_texts([TextDocument(name, text) for name, text in CODE_FILES.items()])
    yield index
    index.close()


@pytest.mark.parametrize(
    ("query", "source"),
    [
        ("What is the purpose of the getTarget method?", "scheduler.py"),
        ("where is frame_timer passed", "scheduler.py"),
        ("What does the `ReproducibleImageTest` test class verify?", "test_image.java"),
    ],
)
def test_code_identifiers_are_exact_hits(code_index, query, source) -> None:
    top = code_index.search(query, top_k=3).results[0]
    assert top.source == source
    assert top.ranks["exact"] == 1


def test_plain_words_are_not_identifiers(code_index) -> None:
    from hierdoc.search.syntax import parse_query

    assert parse_query("what does the scheduler pick").identifiers == ()
    assert parse_query("call `tick()` and getTarget").identifiers == ("getTarget", "tick")
