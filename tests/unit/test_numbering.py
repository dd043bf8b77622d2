import pytest

from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.numbering import (
    equivalent_ids,
    fallback_ids,
    find_citations,
    parse_heading,
    roman_to_int,
)


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Article 17 - Right to erasure (‘right to be forgotten’)", "article-17"),
        ("Section 203(a)", "section-203-a"),
        ("SEC. 2. DEFINITIONS.", "section-2"),
        ("Sec. 101. Short title.", "section-101"),
        ("Chapter III - Rights of the data subject", "chapter-3"),
        ("CHAPTER I", "chapter-1"),
        ("Title IV", "title-4"),
        ("PART II", "part-2"),
        ("Subpart B—General", "subpart-b"),
        ("§ 4.2 Payment", "section-4-2"),
        ("4.2 Payment terms", "section-4-2"),
        ("1. Scope", "section-1"),
        ("1 Scope", "section-1"),
        ("1: Scope", "section-1"),  # a colon or a dash may set the number off
        ("3 - Requirements", "section-3"),
        ("10 – Term and Termination", "section-10"),
        ("3.1: Policy", "section-3-1"),
        ("Annex II", "annex-2"),
    ],
)
def test_heading_ids(heading: str, expected: str) -> None:
    label = parse_heading(heading)
    assert label is not None
    assert label.section_id() == expected


@pytest.mark.parametrize(
    "heading",
    ["Recitals", "2020 was a year", "Definitions", "Part of it", "2020: A year", "1:30 pm"],
)
def test_headings_without_numbering(heading: str) -> None:
    assert parse_heading(heading) is None


@pytest.mark.parametrize(
    "query",
    [
        "Section 203(a)(1)",
        "sec. 203(a)(1)",
        "§203(a)(1)",
        "§ 203(a)(1)",
        "SEC. 203(a)(1)",
    ],
)
def test_section_citation_spellings(query: str) -> None:
    (citation,) = find_citations(query)
    assert citation.label.candidate_ids() == ["section-203-a-1", "section-203-a", "section-203"]


@pytest.mark.parametrize(
    "query",
    [
        "Art. 17(3)(b)",
        "Article 17 paragraph 3 point (b)",
        "Article 17(3), point (b)",
        "what does Article 17(3)(b) say",
    ],
)
def test_article_citation_spellings(query: str) -> None:
    (citation,) = find_citations(query)
    assert citation.label.section_id() == "article-17-3-b"


def test_plain_words_are_not_citations() -> None:
    assert find_citations("part of the deal in this chapter of life") == []


@pytest.mark.parametrize(
    "text",
    [
        "antibodies which cross-react with the antigen",  # "ch c": chapter C (100)
        "PPAR ligands reduce inflammation",  # "PAR li": part LI (51)
        "the approach c is taken",
        "Such c. 5 rules apply",
    ],
)
def test_a_kind_word_inside_another_word_cites_nothing(text: str) -> None:
    """A citation's kind word begins a word: before, the tail of "which" or "PPAR" read as
    "ch."/"par." and the query lost those characters to the citation."""
    assert find_citations(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [("see ch. 3", "chapter-3"), ("(Article 5)", "article-5"), ("1Article 5", "article-5")],
)
def test_a_kind_word_after_a_bracket_or_a_digit_still_cites(text: str, expected: str) -> None:
    (citation,) = find_citations(text)
    assert citation.label.section_id() == expected


def test_roman_numerals() -> None:
    assert roman_to_int("XIV") == 14
    assert roman_to_int("IIII") is None
    assert roman_to_int("abc") is None


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Section K.3", "section-k-3"),
        ("Requirement 8.2.3", "requirement-8-2-3"),
        ("Clause 14.2(b)", "clause-14-2-b"),
        ("Schedule 2", "schedule-2"),
        ("Annex III", "annex-3"),
        ("Appendix A", "appendix-a"),
        ("Appendix A.1", "appendix-a-1"),
        ("Appendix A-2", "appendix-a-2"),
        ("condition 3", "condition-3"),
    ],
)
def test_lettered_and_mixed_labels_are_citations(query: str, expected: str) -> None:
    (citation,) = find_citations(f"what does {query} say")
    assert citation.text == query
    assert citation.label.section_id() == expected


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Section K.3 Lettered clauses", "section-k-3"),
        ("Requirement 8: Identify users", "requirement-8"),
        ("Requirement 8.2.3", "requirement-8-2-3"),
        ("Appendix A-1: Individual Agreement", "appendix-a-1"),
    ],
)
def test_lettered_and_requirement_headings(heading: str, expected: str) -> None:
    label = parse_heading(heading)
    assert label is not None and label.section_id() == expected


def test_clause_kinds_are_tried_under_each_other_level_by_level() -> None:
    (citation,) = find_citations("Clause 8.4")
    assert citation.label.candidate_levels() == [
        ("clause-8-4", "section-8-4", "requirement-8-4", "rule-8-4", "condition-8-4"),
        ("clause-8", "section-8", "requirement-8", "rule-8", "condition-8", "section-8-0"),
    ]
    assert equivalent_ids("rule-5-3-6") == [
        "section-5-3-6",
        "clause-5-3-6",
        "requirement-5-3-6",
        "condition-5-3-6",
    ]
    assert equivalent_ids("article-8") == []
    assert fallback_ids("article-8") == ["section-8"]
    assert fallback_ids("section-7") == ["section-7-0"]  # "7.0. Testing Schedule"
    assert fallback_ids("section-7-2") == []
    assert equivalent_ids("chapter-8") == []
    assert "section-3" in equivalent_ids("condition-3")  # a licence's "condition 3"


def test_plain_text_lines_open_lettered_and_requirement_sections() -> None:
    text = (
        "Intro.\n\nSection K.3 Lettered clauses\n\nBody.\n\n"
        "Requirement 8: Identify users\n\nText.\n"
    )
    ids = [s.section_id for s in parse_sections(text, "T")]
    assert ids == ["preamble", "section-k-3", "requirement-8"]


def test_an_appendixs_decimal_headings_are_its_clauses() -> None:
    text = (
        "# Draft\n\n## 1. Introduction\n\nText.\n\n## Appendix B. Change Log\n\n"
        "### B.1. Since RFC 2616\n\nChanges.\n\n### B.2. Since draft-00\n\nMore.\n"
    )
    sections = {s.section_id: s.path for s in parse_sections(text, "Draft")}
    assert sections["appendix-b-1"] == ("appendix-b",)
    assert sections["appendix-b-2"] == ("appendix-b",)
