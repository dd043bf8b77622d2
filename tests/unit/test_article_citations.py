"""An "Article N" citation reaches a clause numbered just "N." in a document that has no
Article N (a licence that cites its own clauses so), while a document that has Article N
keeps it: a bare clause answers only where no document in scope has the article."""

from __future__ import annotations

import pytest

from hierdoc import Index, Settings, TextDocument
from tests.hash_embedder import HashEmbedder

LICENCE = "Public Licence v1.2\n\n" + "\n".join(
    f"{n}. Clause {n} heading\n\nShort clause {n} body text.\n" for n in range(1, 9)
)

ACT = """# Regulation

## Article 5 - Principles

Personal data shall be processed lawfully.

## Article 6 - Lawfulness

Processing is lawful only if a condition applies.
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    directory = tmp_path_factory.mktemp("articles") / "index"
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as opened:
        opened.ingest_texts([TextDocument("licence.txt", LICENCE), TextDocument("act.md", ACT)])
        yield opened


def test_an_article_citation_falls_back_to_the_bare_numbered_clause(index: Index) -> None:
    response = index.search("Article 5", source="licence.txt")
    (citation,) = response.citations
    assert citation["resolved"]
    assert response.results[0].pinned
    assert "Short clause 5 body" in response.results[0].content


def test_a_document_with_the_article_keeps_it_first(index: Index) -> None:
    response = index.search("Article 5")
    (citation,) = response.citations
    assert citation["section_id"] == "article-5"
    pinned = {r.source: r.section_id for r in response.results if r.pinned}
    assert pinned == {"act.md": "article-5"}
