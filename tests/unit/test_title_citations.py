"""A section cited by its title with its document's name (search/title_citations.py), and a
numbered list item whose text is a heading ("9. #### Indemnification", an HTML page's
``<ol><li><h4>``) titled by that heading."""

from __future__ import annotations

import pytest

from hierdoc import Index
from hierdoc.config import Settings
from hierdoc.models import TextDocument
from hierdoc.pipeline.outline import outline
from hierdoc.search.title_citations import strip_linking, title_forms
from tests.hash_embedder import HashEmbedder
from tests.unit.test_requirement_tables import STANDARD

TERMS = """\
# Acme Cloud Terms of Service

## Terms

1. #### Introduction

   These terms govern your use of the cloud service.
2. #### Indemnification

   You agree to defend and hold harmless Acme and its partners.
3. #### Termination

   Either party may end these terms at any time.
"""

GOVERNANCE = """\
# PEP 777 - Widget Foundation Governance

## Voting

Committers vote on each change by simple majority.

## Leaving the Foundation

A project may leave the foundation after a vote of its maintainers.

## Description

The first description.

## Other

### Description

The second description.
"""

NOTES = """\
# Gadget Handbook

## Indemnification

A note on indemnification in general, for gadgets.
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    directory = tmp_path_factory.mktemp("titles") / "index"
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as opened:
        opened.ingest_texts(
            [
                TextDocument("acme-cloud-terms.md", TERMS),
                TextDocument("pep-0777-governance.md", GOVERNANCE),
                TextDocument("gadget-handbook.md", NOTES),
                TextDocument("owasp-asvs-4.0.3.md", STANDARD),
                TextDocument("other-guide.md", "# Other Guide\n\n## V12.6 Notes\n\nText.\n"),
            ]
        )
        yield opened


def test_a_list_item_heading_titles_its_number() -> None:
    marks = [node.mark for node in outline(TERMS.split("## Terms\n", 1)[1], "heading")]
    assert [m.heading for m in marks] == ["1. Introduction", "2. Indemnification", "3. Termination"]


def test_a_title_in_a_named_document_is_pinned(index: Index) -> None:
    response = index.search("Indemnification in the Acme Cloud Terms of Service")
    first = response.results[0]
    assert first.pinned and first.source == "acme-cloud-terms.md"
    assert first.section_id.endswith("2") and "Indemnification" in first.heading
    assert response.citations[0]["text"] == "Indemnification"


@pytest.mark.parametrize(
    "query",
    [
        "Indemnification section of the Acme Cloud Terms of Service",
        "the Indemnification clause in the Acme Cloud Terms of Service",
        "section Indemnification of the Acme Cloud Terms of Service",
    ],
)
def test_a_title_framed_as_a_section_s_is_pinned_in_its_document(index: Index, query: str) -> None:
    response = index.search(query)
    first = response.results[0]
    assert first.pinned and first.source == "acme-cloud-terms.md"
    assert "Indemnification" in first.heading
    assert response.citations[0]["text"] == "Indemnification"


def test_a_framing_word_is_dropped_only_when_no_section_is_titled_with_it() -> None:
    assert title_forms("the Roles section of") == ["Roles section", "Roles"]
    assert title_forms("section Motions") == ["section Motions", "Motions"]
    assert title_forms("Voting") == ["Voting"]
    assert title_forms("the section") == ["section"]


@pytest.mark.parametrize(
    "query",
    [
        "PEP 777 Leaving the Foundation",
        "Leaving the Foundation of PEP 777",
        "the Leaving the Foundation section of PEP 777",
    ],
)
def test_a_heading_with_its_document_s_identifier_is_pinned(index: Index, query: str) -> None:
    first = index.search(query).results[0]
    assert first.pinned and first.source == "pep-0777-governance.md"
    assert first.heading == "Leaving the Foundation"


@pytest.mark.parametrize(
    "query",
    [
        "PEP 777 Description",  # two sections of that title: neither is cited
        "what is Indemnification in the Acme Cloud Terms of Service",  # a question
        "Indemnification",  # no document named
        "Gadget Voting",  # the heading is another document's
    ],
)
def test_no_title_citation_without_one_section_of_the_named_document(
    index: Index, query: str
) -> None:
    response = index.search(query)
    assert not any(r.pinned for r in response.results)
    assert not response.citations


def test_linking_words_are_dropped_at_either_end() -> None:
    assert strip_linking("Indemnification in the") == "Indemnification"
    assert strip_linking("of the Terms of Service") == "Terms of Service"


@pytest.mark.parametrize("query", ["V12.6 of the OWASP ASVS", "ASVS requirement 2.1.1"])
def test_a_requirement_or_a_chapter_label_is_cited_in_its_document(
    index: Index, query: str
) -> None:
    first = index.search(query).results[0]
    assert first.pinned and first.source == "owasp-asvs-4.0.3.md"
    assert first.heading.startswith(query.split()[-1] if "requirement" in query else "V12.6")
