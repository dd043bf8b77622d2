"""A numbered citation of a clause numbered under an unnumbered heading ("10." under "Terms
and Conditions"), in a search that covers the document (named in the query or filtered to)."""

from __future__ import annotations

import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.models import SectionRecord
from hierdoc.search.citations import headed_clause
from tests.hash_embedder import HashEmbedder

TRANSFER = """# Widget Data Transfer Agreement

## Background

1. The Provider holds imaging data.
2. The Recipient wants to study it.

## Terms and Conditions

1. The Recipient will only use the Data for the Research.
2. The Data are non-personal.
3. The Recipient keeps the Data safe.
4. The Provider may end this agreement by written notice.

## Schedule

The data set.
"""

POLICY = """# Widget Data Sharing Policy

## Roles

The data owner decides who may see the data.

## Tools

The hub stores the data.
"""


DOCUMENTS = {
    "widget-data-transfer-agreement.md": TRANSFER,
    "widget-data-sharing-policy.md": POLICY,
}
"""Two documents of one publisher, whose names share their first words."""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    documents = [TextDocument(name, text) for name, text in DOCUMENTS.items()]
    folder = tmp_path_factory.mktemp("headed")
    with Index.open(folder / "index", Settings(), embedder=HashEmbedder()) as opened:
        opened.ingest_texts(documents)
        yield opened


CITED = {
    "Section 4 of the Widget Data Transfer Agreement": "terms-and-conditions-4",
    "clause 3 of the widget data transfer agreement": "terms-and-conditions-3",
    "Section 1 of the Widget Data Transfer Agreement": "terms-and-conditions-1",
}
"""Each query, with the clause it cites: the longer list's when two headings number one."""


@pytest.mark.parametrize("query", sorted(CITED))
def test_a_clause_numbered_under_a_heading_answers_its_number(index: Index, query: str) -> None:
    response = index.search(query)
    first = response.results[0]
    assert (first.source, first.section_id) == ("widget-data-transfer-agreement.md", CITED[query])
    assert first.pinned
    cited = {"text": " ".join(query.split()[:2]), "section_id": CITED[query], "resolved": True}
    assert response.citations[0] == cited


def test_a_source_filter_reads_the_clauses_under_its_headings_too(index: Index) -> None:
    response = index.search("Section 2", source="widget-data-transfer-agreement.md")
    assert response.results[0].section_id == "terms-and-conditions-2"


def test_without_a_narrow_scope_no_document_is_read_for_it(index: Index) -> None:
    response = index.search("Section 4")
    assert not any(r.pinned for r in response.results)
    assert response.citations[0]["section_id"] is None


def _record(section_id: str, kind: str, parent: str | None = None) -> SectionRecord:
    return SectionRecord("doc", section_id, section_id, 1, parent, 0, kind, None, "")


def test_two_lists_as_long_under_two_headings_leave_the_number_unanswered() -> None:
    sections = [
        _record("recitals", "heading"),
        _record("recitals-1", "enum", "recitals"),
        _record("terms", "heading"),
        _record("terms-1", "enum", "terms"),
    ]
    assert headed_clause(sections, "1") is None
    longer = [*sections, _record("terms-2", "enum", "terms")]
    assert headed_clause(longer, "1") == "terms-1"
    assert headed_clause(longer, "7") is None
