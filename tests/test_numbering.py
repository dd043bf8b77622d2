import pytest

from hierdoc.pipeline.numbering import find_citations, parse_heading, roman_to_int


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
        ("Annex II", "annex-2"),
    ],
)
def test_heading_ids(heading: str, expected: str) -> None:
    label = parse_heading(heading)
    assert label is not None
    assert label.section_id() == expected


@pytest.mark.parametrize("heading", ["Recitals", "2020 was a year", "Definitions", "Part of it"])
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


def test_roman_numerals() -> None:
    assert roman_to_int("XIV") == 14
    assert roman_to_int("IIII") is None
    assert roman_to_int("abc") is None
