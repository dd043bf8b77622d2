"""The sample corpus of samples/documents, which `make run` indexes and searches: every
document converts into sections and definitions, its sources are documented, and the
Makefile's query finds the section it asks about."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hierdoc import Index, Settings
from hierdoc.views import DocumentSummary
from tests.hash_embedder import HashEmbedder
from tests.paths import REPOSITORY

SAMPLES = REPOSITORY / "samples"
DOCUMENTS = SAMPLES / "documents"
REGULATION = "12-cfr-part-1016-regulation-p.md"
CONTRACT = "common-paper-business-associate-agreement.docx"
STANDARD = "nist-fips-199.pdf"


def make_run_query() -> str:
    """The query `make run` searches for (the Makefile's QUERY default)."""
    found = re.search(r"^QUERY \?= (.+)$", (REPOSITORY / "Makefile").read_text(), re.MULTILINE)
    assert found, "the Makefile has no QUERY default"
    return found.group(1).strip()


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory):
    """The sample corpus, ingested as `make run` does, embedded by the hash embedder."""
    folder = tmp_path_factory.mktemp("samples")
    with Index.open(folder / "index", Settings(), embedder=HashEmbedder()) as index:
        report = index.ingest([DOCUMENTS])
        assert not report.problems, report.problems
        yield index


def summaries(index: Index) -> dict[str, DocumentSummary]:
    return {Path(s.source).name: s for s in index.document_summaries()}


def test_the_samples_are_a_regulation_a_contract_and_a_standard_in_three_formats(
    sample_index: Index,
) -> None:
    found = summaries(sample_index)
    assert sorted(found) == sorted([REGULATION, CONTRACT, STANDARD])
    assert {name: s.format for name, s in found.items()} == {
        REGULATION: "markdown",
        CONTRACT: "docx",
        STANDARD: "pdf",
    }
    assert found[STANDARD].pages == 13
    assert sum(path.stat().st_size for path in DOCUMENTS.iterdir()) < 1_500_000


def test_every_sample_yields_numbered_sections_and_definitions(sample_index: Index) -> None:
    found = summaries(sample_index)
    for name, summary in found.items():
        assert summary.sections >= 20, (name, summary.sections)
        assert summary.definitions >= 10, (name, summary.definitions)
    regulation = str(DOCUMENTS / REGULATION)
    paragraphs = [s.section_id for s in sample_index.children(regulation, "section-1016-3")]
    letters = [f"section-1016-3-{letter}" for letter in "abcdefghijklmnopqrs"]
    assert paragraphs == letters  # § 1016.3 (a) to (s): "(i)" and "(v)" read as letters


@pytest.mark.parametrize(
    ("term", "document", "section_id", "starts"),
    [
        ("nonpublic personal information", REGULATION, "section-1016-3-p-1", "(i) Personally"),
        ("PHI", CONTRACT, "section-6-13", "the meaning given to it under HIPAA"),
        ("security category", STANDARD, "appendix-a", "The characterization of information"),
    ],
)
def test_a_defined_term_of_each_sample_is_found_where_it_is_defined(
    sample_index: Index, term: str, document: str, section_id: str, starts: str
) -> None:
    definitions = sample_index.define(term).definitions
    assert definitions, term
    first = definitions[0]
    assert (Path(first.source).name, first.section_id) == (document, section_id)
    assert first.definition.startswith(starts)


def test_a_regulation_section_cites_its_neighbours(sample_index: Index) -> None:
    outgoing = sample_index.references("section-1016-10").outgoing
    targets = {ref.target_section_id for ref in outgoing}
    assert {"section-1016-4", "section-1016-7", "section-1016-13"} <= targets


def test_the_make_run_query_finds_the_section_it_asks_about(sample_index: Index) -> None:
    query = make_run_query()
    results = sample_index.search(query, mode="keyword", top_k=3).results
    assert results and results[0].section_id == "section-1016-12"
    assert Path(results[0].source).name == REGULATION


@pytest.mark.slow
def test_make_run_puts_that_section_first_with_the_real_model(tmp_path, embedder) -> None:
    with Index.open(tmp_path / "index", Settings(), embedder=embedder) as index:
        assert not index.ingest([DOCUMENTS]).problems
        results = index.search(make_run_query(), top_k=3).results
    assert results[0].section_id == "section-1016-12"
    assert results[0].ranks["semantic"] == 1 and results[0].ranks["keyword"] == 1


def test_samples_readme_gives_source_publisher_and_licence_of_each_document() -> None:
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    blocks = re.split(r"^## ", readme, flags=re.MULTILINE)[1:]
    described = {block.splitlines()[0].strip(): block for block in blocks}
    assert sorted(described) == sorted(path.name for path in DOCUMENTS.iterdir())
    for name, block in described.items():
        for field in ("Source: https://", "Publisher:", "Licence:"):
            assert field in block, (name, field)
