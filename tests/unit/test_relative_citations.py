"""Relative citations: "paragraph (k)", "subsection (b)(2)", "(k) of the AD" cite
the section whose own labels are those, in the document the query names or points at; a
citation no document is clearly meant for is looked up in each candidate, and one written
next to a numbered citation is part of it ("Article 17 paragraph (3)")."""

from __future__ import annotations

import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.errors import NotFoundError
from hierdoc.models import SectionRecord
from hierdoc.search.relative_citations import (
    find_relative_citations,
    labelled_sections,
    own_labels,
    pointed_document,
    ranked_documents,
)
from hierdoc.search.syntax import parse_query
from hierdoc.tools.logic import run_get_section
from tests.hash_embedder import HashEmbedder

DIRECTIVE = """# Airworthiness Directive for the Example 900 Jet

The agency proposes to amend part 39 for the Example 900 jet.

## § 39.13 [Amended]

(a) Comments Due Date

The agency must receive comments on this AD by October 5.

(b) Affected ADs

None.

(c) Applicability

This AD applies to Example 900 jets, as follows:

(1) Model 900-8 jets.

(2) Model 900-9 jets, when:

(i) the serial number is below 100; or

(ii) the jet was delivered before June.

(d) Subject

Air transport.

(e) Unsafe Condition

Runaway stabilizer trim on the jet.

(f) Compliance

Comply within 30 days.

(g) Software

Install the flight control software on each jet.

(h) Manual Revisions

Revise the jet flight manual.

(i) Minimum Equipment List Provisions

Operators must revise the minimum equipment list of each jet.

(j) Display Software

Install the display software.

(k) Horizontal Stabilizer Trim Wire Routing

Reroute the stabilizer trim wires of each jet.
"""

LEASE = """# Office Lease Agreement

## 5. Rent

(a) The tenant pays the rent monthly, in advance.

(b) Late rent bears interest at two percent.

## 6. Use of the Premises

(a) The tenant uses the premises as an office.

(b) The tenant keeps the premises clean.
"""

POLICY = """# Privacy Policy

## 1. Data We Collect

We collect your name and email address.
"""


@pytest.mark.parametrize(
    ("query", "written", "labels"),
    [
        ("paragraph (k) of the 737 MAX AD", "paragraph (k)", ("k",)),
        ("737 MAX AD paragraph (e)", "paragraph (e)", ("e",)),
        ("subsection (b)(2) of the lease", "subsection (b)(2)", ("b", "2")),
        ("what does clause (iii) require", "clause (iii)", ("iii",)),
        ("subparagraph (A)", "subparagraph (A)", ("A",)),
        ("sub-paragraph (a)", "sub-paragraph (a)", ("a",)),
        ("para. (2) of this Act", "para. (2)", ("2",)),
        ("item (4) of the list", "item (4)", ("4",)),
        ("(k) of the AD", "(k)", ("k",)),
    ],
)
def test_a_kind_word_and_labels_or_labels_of_something_are_a_relative_citation(
    query: str, written: str, labels: tuple[str, ...]
) -> None:
    (citation,) = find_relative_citations(query)
    assert (citation.text, citation.labels) == (written, labels)


@pytest.mark.parametrize(
    ("query", "cited"),
    [
        ("paragraphs (h) and (k) of it", [("paragraph (h)", ("h",)), ("paragraph (k)", ("k",))]),
        (
            "subsections (b)(2), (c), or (d)",
            [
                ("subsection (b)(2)", ("b", "2")),
                ("subsection (c)", ("c",)),
                ("subsection (d)", ("d",)),
            ],
        ),  # fmt: skip
        ("Paragraphs (j) of the rule", [("Paragraph (j)", ("j",))]),
    ],
)
def test_a_plural_kind_word_cites_each_group_of_labels(
    query: str, cited: list[tuple[str, tuple[str, ...]]]
) -> None:
    found = find_relative_citations(query)
    assert [(c.text, c.labels) for c in found] == cited
    assert found[0].start == 0
    assert all(a.end == b.start for a, b in zip(found, found[1:], strict=False))


def test_each_paragraph_of_a_plural_citation_is_pinned(index: Index) -> None:
    response = index.search("paragraphs (c) and (d) of the 900 jet directive")
    pinned = [r for r in response.results if r.pinned]
    assert {r.source for r in pinned} == {"jet_directive.md"}
    assert {c["section_id"] for c in response.citations} == {"section-39-13-c", "section-39-13-d"}
    assert all(c["resolved"] for c in response.citations)
    begins = {_begins(index, "jet_directive.md", f"section-39-13-{x}") for x in "cd"}
    assert {r.chunk_id for r in pinned} == begins


@pytest.mark.parametrize(
    "query",
    [
        "Article 17(3) of the GDPR",
        "the list (MEL) of the AD",
        "the jet (k) and more",
        "section 5(a)",
        "paragraph 3",
    ],
)
def test_labels_after_a_number_an_acronym_or_without_kind_or_of_are_none(query: str) -> None:
    spans = [(0, len("Article 17(3)"))] if query.startswith("Article") else []
    assert find_relative_citations(query, spans) == []


@pytest.mark.parametrize(
    ("query", "ids"),
    [
        ("Article 17 paragraph (3)", ("article-17-3", "article-17")),
        ("Article 17 paragraph (3) point (b)", ("article-17-3-b", "article-17-3", "article-17")),
        ("Section 5, subsection (b)(2)", ("section-5-b-2", "section-5-b", "section-5")),
        ("paragraph (a) of § 39.13", ("section-39-13-a", "section-39-13", "section-39")),
    ],
)
def test_a_relative_citation_next_to_a_numbered_one_is_part_of_it(
    query: str, ids: tuple[str, ...]
) -> None:
    parsed = parse_query(query)
    assert parsed.cited == ((query, ids),)
    assert parsed.relative == ()


def test_the_rest_of_the_query_is_what_the_citations_leave() -> None:
    parsed = parse_query("paragraph (k) of the 737 MAX AD")
    assert parsed.cited == ()
    assert [c.labels for c in parsed.relative] == [("k",)]
    assert parsed.remainder == "of the 737 MAX AD"
    assert parse_query("§ 39.13 of the 737 MAX proposed rule").cited[0][1][0] == "section-39-13"


@pytest.mark.parametrize(
    ("heading", "labels"),
    [("(k)", ("k",)), ("(k) Wire Routing", ("k",)), ("(b)(2) Fees", ("b", "2")), ("5. Rent", ())],
)
def test_own_labels_are_the_parentheses_a_heading_opens_with(
    heading: str, labels: tuple[str, ...]
) -> None:
    assert own_labels(heading) == labels


def _section(section_id: str, heading: str, level: int, parent: str | None, ordinal: int):
    return SectionRecord("d", section_id, heading, level, parent, ordinal, "enum", "c", "")


def test_the_shallowest_section_with_the_labels_comes_first_and_paths_match_from_the_end() -> None:
    sections = [
        _section("section-1", "1. Scope", 1, None, 0),
        _section("section-1-a", "(a)", 2, "section-1", 1),
        _section("section-1-a-i", "(i)", 3, "section-1-a", 2),
        _section("section-1-i", "(i)", 2, "section-1", 3),
        _section("section-1-b", "(b)", 2, "section-1", 4),
        _section("section-1-b-2", "(2)", 3, "section-1-b", 5),
    ]
    found = [s.record.section_id for s in labelled_sections(sections, ["i"])]
    assert found == ["section-1-i", "section-1-a-i"]
    assert [s.record.section_id for s in labelled_sections(sections, ["b", "2"])] == [
        "section-1-b-2"
    ]
    assert labelled_sections(sections, ["a", "2"]) == []


def test_a_label_in_the_cited_case_comes_before_a_shallower_one_in_the_other() -> None:
    sections = [
        _section("section-5", "Sec. 5. Grants", 1, None, 0),
        _section("section-5-a", "(a)", 2, "section-5", 1),
        _section("section-5-a-1", "(1)", 3, "section-5-a", 2),
        _section("section-5-a-1-a", "(A)", 4, "section-5-a-1", 3),
    ]
    assert [s.record.section_id for s in labelled_sections(sections, ["A"])] == [
        "section-5-a-1-a",
        "section-5-a",
    ]
    assert labelled_sections(sections, ["a"])[0].record.section_id == "section-5-a"


def test_a_ranking_points_at_a_document_only_when_it_holds_most_of_it() -> None:
    sources = {"1": "ad", "2": "ad", "3": "lease", "4": "ad", "5": "lease"}
    clear = ranked_documents({"keyword": ["1", "2", "3"], "semantic": ["4", "1"]}, sources)
    assert pointed_document(clear) == "ad"
    split = ranked_documents({"keyword": ["1", "3"], "semantic": ["5", "2"]}, sources)
    assert pointed_document(split) is None


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    directory = tmp_path_factory.mktemp("relative") / "index"
    documents = {"jet_directive.md": DIRECTIVE, "office_lease.md": LEASE, "privacy.md": POLICY}
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as opened:
        opened.ingest_texts([TextDocument(name, text) for name, text in documents.items()])
        yield opened


def _begins(index: Index, source: str, section_id: str) -> str | None:
    (record,) = index.store.sections(section_id, source)
    return record.chunk_id


@pytest.mark.parametrize(
    ("query", "section_id"),
    [
        ("paragraph (k) of the Example 900 jet AD", "section-39-13-k"),
        ("jet AD paragraph (e)", "section-39-13-e"),
        ("(g) of the jet directive", "section-39-13-g"),
        ("subsection (c)(1) of the 900 jet directive", "section-39-13-c-1"),
    ],
)
def test_the_rest_of_the_query_points_at_the_document_whose_section_is_cited(
    index: Index, query: str, section_id: str
) -> None:
    response = index.search(query)
    first = response.results[0]
    assert first.pinned and first.source == "jet_directive.md"
    assert first.chunk_id == _begins(index, "jet_directive.md", section_id)
    text = query.split(" of ")[0].removeprefix("jet AD ")
    assert response.citations[0] == {"text": text, "section_id": section_id, "resolved": True}
    assert first.pin == f"cites {text}: {section_id}"
    assert all(r.source == "jet_directive.md" for r in response.results if r.pinned)


def test_of_several_sections_labelled_alike_the_shallowest_is_cited_and_said(
    index: Index,
) -> None:
    response = index.search("paragraph (i) of the Example 900 jet AD")
    assert response.citations[0]["section_id"] == "section-39-13-i"
    assert response.results[0].chunk_id == _begins(index, "jet_directive.md", "section-39-13-i")
    assert any("section-39-13-c-2-i" in note for note in response.notes)


def test_a_citation_no_document_is_meant_for_is_shown_in_each_document_that_has_it(
    index: Index,
) -> None:
    response = index.search("paragraph (b)")
    pinned = {r.source for r in response.results if r.pinned}
    assert pinned == {"jet_directive.md", "office_lease.md"}
    assert any("each is shown" in note for note in response.notes)


def test_a_document_that_is_meant_but_lacks_the_label_lends_no_other_s_section(
    index: Index,
) -> None:
    response = index.search("paragraph (k) of the office lease agreement")
    assert not any(r.pinned for r in response.results)
    assert response.citations[0]["resolved"] is False
    assert any("no section labelled (k)" in note for note in response.notes)


def test_a_filter_to_one_document_is_where_the_citation_is_looked_for(index: Index) -> None:
    response = index.search("paragraph (b)", source="office_lease.md")
    pinned = [r for r in response.results if r.pinned]
    assert [r.chunk_id for r in pinned] == [_begins(index, "office_lease.md", "section-5-b")]
    assert any("section-6-b" in note for note in response.notes)


def test_a_document_named_in_the_query_is_where_the_citation_is_looked_for(
    index: Index,
) -> None:
    response = index.search("paragraph (b) of office_lease.md")
    pinned = [r.chunk_id for r in response.results if r.pinned]
    assert pinned == [_begins(index, "office_lease.md", "section-5-b")]
    assert any("named in the query" in note for note in response.notes)


def test_with_many_documents_and_no_other_words_those_headed_by_the_label_are_read(
    index: Index,
) -> None:
    response = index.search("paragraph (b)", policy={"relative_documents": 1})
    assert len({r.source for r in response.results if r.pinned}) == 1
    assert any("the first 1 of 2 documents" in note for note in response.notes)


def test_show_and_get_section_read_a_relative_citation_where_search_resolves_it(
    index: Index,
) -> None:
    asked = "subsection (c)(2) of the 900 jet directive"
    view = index.show(asked)
    assert view.section is not None and view.section.section_id == "section-39-13-c-2"
    assert view.chunk.chunk.source == "jet_directive.md"
    assert any("resolved to section section-39-13-c-2 of jet_directive.md" in n for n in view.notes)
    output = run_get_section(index, asked)
    assert output.structured["section"]["section_id"] == "section-39-13-c-2"
    assert output.structured["source"] == "jet_directive.md"
    with pytest.raises(NotFoundError):
        index.show("paragraph (zz) of the 900 jet directive")
    assert index.cited_section("the unsafe condition of the jet") is None


def test_a_citation_is_resolved_without_a_search(
    index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Index.cited_section``, ``Index.show`` and the agent tools' ``get_section`` resolve a
    citation from its query plan: nothing is embedded, no search is run."""
    from hierdoc.search.searcher import Searcher

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("a citation was resolved by running a search")

    monkeypatch.setattr(Searcher, "run", refused)
    monkeypatch.setattr(index, "embed_query", refused)
    asked = "subsection (c)(2) of the 900 jet directive"
    assert index.cited_section(asked) == ("jet_directive.md", "section-39-13-c-2")
    assert index.cited_section("paragraph (b) of office_lease.md") == (
        "office_lease.md",
        "section-5-b",
    )
    assert index.show(asked).chunk.chunk.source == "jet_directive.md"
    assert run_get_section(index, asked).structured["section"]["section_id"] == "section-39-13-c-2"
