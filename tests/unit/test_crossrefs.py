"""Cross-references: detection (internal, external, lists, ranges, relative) and resolution."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from hierdoc.pipeline.extract.crossref_resolve import resolve
from hierdoc.pipeline.extract.crossrefs import FoundReference, find_references
from hierdoc.text.numbering import roman_to_int
from tests.datasets import DATASETS, require

GDPR_JSON = DATASETS / "gdpr" / "gdpr.json"


def refs(text: str) -> list[FoundReference]:
    return find_references(text)


def first_ids(text: str) -> list[str]:
    """The most specific candidate id of every internal absolute reference."""
    return [r.candidate_ids[0] for r in refs(text) if r.candidate_ids]


# --------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("as required by Section 203.", ["section-203"]),
        ("see sec. 203(a)(1)", ["section-203-a-1"]),
        ("defined in § 4.2 above", ["section-4-2"]),
        ("§§ 4.2 and 4.3 apply", ["section-4-2", "section-4-3"]),
        ("pursuant to Article 6(1)", ["article-6-1"]),
        ("referred to in Article 6(1)(a)", ["article-6-1-a"]),
        ("Article 17 paragraph 3 applies", ["article-17-3"]),
        ("in accordance with Chapter V", ["chapter-5"]),
        ("under Article 22(1) and (4)", ["article-22-1", "article-22-4"]),
        ("Article 60(7), (8) and (9)", ["article-60-7", "article-60-8", "article-60-9"]),
        ("Article 45 or 46", ["article-45", "article-46"]),
        ("Articles 82, 83 and 84", ["article-82", "article-83", "article-84"]),
        ("Articles 16, 17 and 18 and the notification", ["article-16", "article-17", "article-18"]),
        ("Chapters II and III", ["chapter-2", "chapter-3"]),
        ("Article 58(2)(a) to (c)", ["article-58-2-a", "article-58-2-b", "article-58-2-c"]),
        ("Article 17(3), point (b)", ["article-17-3-b"]),
        ("sections 201 through 203", ["section-201", "section-202", "section-203"]),
        ("Annex II", ["annex-2"]),
    ],
)
def test_absolute_references(text: str, expected: list[str]) -> None:
    assert first_ids(text) == expected
    assert not any(r.external for r in refs(text))


def test_range_gives_one_reference_per_article_with_the_span_text() -> None:
    found = refs("the rights in Articles 15 to 22 and 34 shall")
    assert [r.candidate_ids[0] for r in found] == [f"article-{n}" for n in [*range(15, 23), 34]]
    assert {r.text for r in found} == {"Articles 15 to 22 and 34"}
    assert {(r.start, r.end) for r in found} == {(14, 38)}


def test_long_ranges_keep_only_their_ends() -> None:
    assert first_ids("Articles 1 to 99") == ["article-1", "article-99"]


def test_candidates_go_from_most_to_least_specific() -> None:
    (ref,) = refs("point (a) of Article 6(1)")
    assert ref.candidate_ids == ("article-6-1-a", "article-6-1", "article-6")
    assert ref.kind == "point"
    assert ref.text == "point (a) of Article 6(1)"
    assert ref.relative == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("point (b) of Article 9(2)", ["article-9-2-b"]),
        ("points (h) and (i) of Article 9(2)", ["article-9-2-h", "article-9-2-i"]),
        ("point (a) of the first subparagraph of Article 6(1)", ["article-6-1-a"]),
        ("the second subparagraph of Article 49(1)", ["article-49-1"]),
        ("paragraph 3 of Article 17", ["article-17-3"]),
        ("Section 3 of Chapter IV", ["chapter-4-section-3"]),
    ],
)
def test_chained_references(text: str, expected: list[str]) -> None:
    assert first_ids(text) == expected


def test_nested_block_falls_back_to_its_parts() -> None:
    (ref,) = refs("Section 3 of Chapter IV")
    assert ref.candidate_ids == ("chapter-4-section-3", "section-3", "chapter-4")


@pytest.mark.parametrize(
    ("text", "kind", "relative"),
    [
        ("paragraph 3", "paragraph", [("3",)]),
        ("paragraphs 1 and 2", "paragraph", [("1",), ("2",)]),
        ("Paragraphs 1 to 4 shall not apply", "paragraph", [("1",), ("2",), ("3",), ("4",)]),
        ("paragraph 3 or 5 of this Article", "paragraph", [("3",), ("5",)]),
        ("the first subparagraph of paragraph 1", "paragraph", [("1",)]),
        ("point (b)", "point", [("b",)]),
        ("point (b) of paragraph 3", "point", [("3", "b")]),
        ("points (a) to (c)", "point", [("a",), ("b",), ("c",)]),
        ("point (c) and (e) of paragraph 1", "point", [("1", "c"), ("1", "e")]),
        ("Point (f) of the first subparagraph shall not apply", "point", [("f",)]),
        (
            "Points (a), (b) and (c) of the first subparagraph of paragraph 1 and the second",
            "point",
            [("1", "a"), ("1", "b"), ("1", "c")],
        ),
        ("paragraph 1 of this Article", "paragraph", [("1",)]),
        ("point (e) of this paragraph", "point", [("e",)]),
        ("subsection (a)", "subsection", [("a",)]),
        ("paragraph (2)", "paragraph", [("2",)]),
        ("paragraph (2) of subsection (a)", "paragraph", [("a", "2")]),
        ("subparagraph (A)", "subparagraph", [("A",)]),
        ("this Article", "article", [()]),
    ],
)
def test_relative_references(text: str, kind: str, relative: list[tuple[str, ...]]) -> None:
    found = refs(text)
    assert [r.relative for r in found] == relative
    assert {r.kind for r in found} == {kind}
    assert not any(r.candidate_ids or r.external for r in found)


@pytest.mark.parametrize(
    "text",
    [
        "Article 16 of the Treaty",
        "Article 8(1) of the Charter",
        "Article 16(2) TFEU",
        "Articles 12 to 15 of that Directive",
        "Article 2 of the Annex to Commission Recommendation 2003/361/EC",
        "section 551 of title 5, United States Code",
        "Article 28(2) of Regulation (EC) No 45/2001",
        "Chapter 2 of Title V of the TEU",
        "Regulation (EC) No 45/2001",
        "Directive 95/46/EC",
        "Directive (EU) 2016/680",
        "42 U.S.C. 1395",
    ],
)
def test_external_references(text: str) -> None:
    found = refs(f"as laid down in {text}, the")
    assert found
    assert all(r.external and not r.candidate_ids for r in found)
    assert found[0].text.startswith(text.split()[0])


def test_external_reference_text_and_kind() -> None:
    (ref,) = refs("Article 16 of the Treaty on the Functioning of the European Union")
    assert (ref.text, ref.kind) == ("Article 16 of the Treaty", "article")
    acts = refs("repealing Directive 95/46/EC and Regulation (EC) No 45/2001.")
    assert [(a.text, a.kind) for a in acts] == [
        ("Directive 95/46/EC", "directive"),
        ("Regulation (EC) No 45/2001", "regulation"),
    ]


def test_external_qualifier_covers_coordinated_citations() -> None:
    found = refs("on the basis of Article 25(6) or Article 26(4) of Directive 95/46/EC")
    assert len(found) == 2
    assert all(r.external for r in found)


def test_coordination_with_an_unrelated_citation_stays_internal() -> None:
    found = refs("Article 6(1), the Member State referred to in Article 16(2) TFEU")
    assert [r.external for r in found] == [False, True]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("section 901 of this Act", "section-901"),
        ("section 5 of this title", "section-5"),
        ("Article 6 of this Regulation", "article-6"),
        ("Section 4.2 of this Agreement", "section-4-2"),
    ],
)
def test_internal_qualifiers(text: str, expected: str) -> None:
    (ref,) = refs(text)
    assert not ref.external
    assert ref.candidate_ids[0] == expected
    assert ref.text == text


@pytest.mark.parametrize(
    "text",
    [
        "each 5 members",
        "a counterpart 4 of it",
        "subsection 3",
        "the subparagraph",
        "the first subparagraph",
        "Member States may provide by law for a lower age, 13 years",
        "in point of fact",
    ],
)
def test_no_false_references(text: str) -> None:
    assert refs(text) == []


@pytest.mark.parametrize(
    ("text", "external"),
    [
        ("as specified in COBS Rule 2.4.1, and", True),  # a rule of another rulebook
        ("required under GEN Rule 3.3.20(a) to", True),
        ("the exemption in FSMR section 58 applies", True),
        ("see Rule 2.4.1 below", False),
        ("EXCEPT AS PROVIDED IN SECTION 9", False),  # all capitals: no name before it
        ("PART 2 Section 3", False),
        ("amending 14 CFR Part 39 as follows", False),  # a rule names its own parts so
    ],
)
def test_a_citation_after_another_texts_short_name_is_external(text: str, external) -> None:
    assert [r.external for r in refs(text)][-1] is external


def test_heading_numbers_are_not_references() -> None:
    text = "### Article 6 - Lawfulness\n\n1. Paragraph 2 and Article 9(2) apply.\n"
    assert [r.text for r in refs(text)] == ["Paragraph 2", "Article 9(2)"]
    plain = "SEC. 2. DEFINITIONS.\nIn section 3 the term"
    assert [r.text for r in refs(plain)] == ["section 3"]


def test_lead_ins_are_not_part_of_the_text() -> None:
    for lead in ("see", "as defined in", "pursuant to", "referred to in", "in accordance with"):
        (ref,) = refs(f"{lead} Article 6(1)")
        assert ref.text == "Article 6(1)"
        assert ref.start == len(lead) + 1


def test_references_come_in_reading_order() -> None:
    text = "Directive 95/46/EC; paragraph 2; Article 9 and point (b) of Article 6(1)."
    found = refs(text)
    assert [r.start for r in found] == sorted(r.start for r in found)
    assert [r.text for r in found] == [
        "Directive 95/46/EC",
        "paragraph 2",
        "Article 9",
        "point (b) of Article 6(1)",
    ]


# --------------------------------------------------------------------------- resolution

KNOWN = {
    "chapter-3",
    "chapter-3-section-3",
    "chapter-4",
    "chapter-4-section-1",
    "chapter-4-section-3",
    "article-6",
    "article-6-1",
    "article-6-1-a",
    "article-6-1-f",
    "article-9",
    "article-9-2",
    "article-9-2-b",
    "article-17",
    "article-17-1",
    "article-17-2",
    "article-17-3",
    "article-17-3-b",
    "article-17-3-c",
    "article-50",
    "article-50-a",
    "article-50-b",
}
IN_17_3_C = ("chapter-3", "chapter-3-section-3", "article-17", "article-17-3", "article-17-3-c")
IN_17_3 = IN_17_3_C[:-1]


def resolve_one(text: str, context: tuple[str, ...], known: set[str] = KNOWN) -> str | None:
    (ref,) = refs(text)
    return resolve(ref, context, known)


@pytest.mark.parametrize(
    ("text", "context", "expected"),
    [
        ("Article 6(1)", IN_17_3, "article-6-1"),
        ("point (a) of Article 6(1)", IN_17_3, "article-6-1-a"),
        ("Article 6(1)(c)", IN_17_3, "article-6-1"),  # no such point: most specific known
        ("Article 9(4)", IN_17_3, "article-9"),
        ("Article 99", IN_17_3, None),
        ("paragraph 2", IN_17_3_C, "article-17-2"),
        ("paragraph 1 of this Article", IN_17_3_C, "article-17-1"),
        ("point (b)", IN_17_3_C, "article-17-3-b"),
        ("point (b)", IN_17_3, "article-17-3-b"),
        ("point (b) of paragraph 3", ("article-17",), "article-17-3-b"),
        ("point (b)", ("article-17",), "article-17"),  # no paragraph in context
        ("point (z) of paragraph 3", IN_17_3_C, "article-17-3"),
        ("point (b)", ("chapter-5", "article-50", "article-50-a"), "article-50-b"),
        ("this Article", IN_17_3_C, "article-17"),
        ("this Section", IN_17_3_C, "chapter-3-section-3"),
        ("this Chapter", IN_17_3_C, "chapter-3"),
        ("this paragraph", IN_17_3_C, "article-17-3"),
        ("Section 3 of Chapter IV", IN_17_3, "chapter-4-section-3"),
        ("Section 1", ("chapter-4", "chapter-4-section-3"), "chapter-4-section-1"),
        ("Chapter IV", IN_17_3, "chapter-4"),
    ],
)
def test_resolution(text: str, context: tuple[str, ...], expected: str | None) -> None:
    assert resolve_one(text, context) == expected


def test_a_whole_clause_number_reaches_its_n_0_heading() -> None:
    """A document numbering its clauses "3.0. Attack Vectors" cites them "Section 3"."""
    known = {"section-3-0", "section-3-1", "section-5-0"}
    assert resolve_one("described in Section 3", ("section-1-0",), known) == "section-3-0"
    assert resolve_one("Section 3.1", ("section-1-0",), known) == "section-3-1"
    assert resolve_one("Section 4", ("section-1-0",), known) is None


def test_external_references_never_resolve() -> None:
    (ref,) = refs("Article 6 of the Treaty")
    assert resolve(ref, IN_17_3, KNOWN | {"article-6"}) is None


US_KNOWN = {
    "title-1",
    "section-203",
    "section-203-a",
    "section-203-a-1",
    "section-203-a-2",
    "section-203-a-1-a",
    "section-203-b",
    "section-901",
}
US_CONTEXT = ("title-1", "section-203", "section-203-a", "section-203-a-1", "section-203-a-1-a")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("subsection (b)", "section-203-b"),
        ("subsection (a)", "section-203-a"),
        ("paragraph (2)", "section-203-a-2"),
        ("paragraph (2) of subsection (a)", "section-203-a-2"),
        ("subsection (a)(2)", "section-203-a-2"),
        ("section 901 of this Act", "section-901"),
        ("sec. 203(a)(1)", "section-203-a-1"),
        ("this section", "section-203"),
        ("this paragraph", "section-203-a-1"),  # a statute's paragraphs are numbered
    ],
)
def test_us_resolution(text: str, expected: str) -> None:
    assert resolve_one(text, US_CONTEXT, US_KNOWN) == expected


CFR_KNOWN = {
    "section-1002-2",
    "section-1002-2-p",
    "section-1002-2-p-1",
    *(f"section-1002-2-p-1-{n}" for n in ("i", "ii", "iii", "iv")),
    "section-1002-2-p-2",
    "section-1002-14",
    "section-1002-14-d",
    "section-1002-14-d-1",
    "section-1002-14-d-3",
}
IN_14_D_1 = ("section-1002-14", "section-1002-14-d", "section-1002-14-d-1")


@pytest.mark.parametrize(
    ("text", "context", "expected"),
    [
        # "this paragraph (d)(3)": US rules' words for "paragraph (d)(3) of this section"
        ("under this paragraph (d)(3) remains", IN_14_D_1, ["section-1002-14-d-3"]),
        # every level of a US rule is a paragraph: "this paragraph" is the one the text is in
        ("as permitted by this paragraph", IN_14_D_1, ["section-1002-14-d-1"]),
        (
            "paragraph (p)(1)(i) through (iv) of this section",
            ("section-1002-2", "section-1002-2-p", "section-1002-2-p-2"),
            [f"section-1002-2-p-1-{n}" for n in ("i", "ii", "iii", "iv")],
        ),
    ],
)
def test_us_rule_paragraphs(text: str, context: tuple[str, ...], expected: list[str]) -> None:
    assert [resolve(r, context, CFR_KNOWN) for r in refs(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("paragraphs (e)(3)(ii)(A) and (B)", [("e", "3", "ii", "A"), ("e", "3", "ii", "B")]),
        ("paragraphs (b)(1)(ii) and (iv)", [("b", "1", "ii"), ("b", "1", "iv")]),
        ("paragraphs (b)(2) through\n  (4)", [("b", "2"), ("b", "3"), ("b", "4")]),
        ("paragraphs (a)(1) and (b)", [("a", "1"), ("b",)]),  # (b) is numbered as (a), not (1)
        ("paragraphs (a)(1)(i) and (b)", [("a", "1", "i"), ("b",)]),
        ("points (a) and (b)", [("a",), ("b",)]),
        (
            "paragraphs (c)(2)(iv), (vi), and (ix)(A) and (B)",
            [("c", "2", "iv"), ("c", "2", "vi"), ("c", "2", "ix", "A"), ("c", "2", "ix", "B")],
        ),
    ],
)
def test_a_shorter_list_item_is_completed_from_the_one_before(text: str, expected) -> None:
    assert [r.relative for r in refs(text)] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("§ 1013.2(e)(1) and (h)", ["section-1013-2-e-1", "section-1013-2-h"]),
        (
            "§§ 1013.4(g)(2), (h)(3), (i)(1), (j), and (k)",
            [f"section-1013-4-{p}" for p in ("g-2", "h-3", "i-1", "j", "k")],
        ),
        ("Article 9(2)(a) and (3)", ["article-9-2-a", "article-9-3"]),
        ("Article 60(7), (8) and (9)", ["article-60-7", "article-60-8", "article-60-9"]),
    ],
)
def test_a_block_lists_parentheses_join_the_part_numbered_alike(text, expected) -> None:
    assert first_ids(text) == expected


def test_capital_points_resolve_to_lower_case_ids() -> None:
    context = ("section-1010-212", "section-1010-212-j", "section-1010-212-j-1")
    known = {*context, "section-1010-212-e-3-ii", "section-1010-212-e-3-ii-c"}
    (ref,) = refs("paragraph (e)(3)(ii)(C) of this section")
    assert resolve(ref, context, known) == "section-1010-212-e-3-ii-c"


@pytest.mark.parametrize(
    "text",
    [
        "   messages while they are being forwarded, as described in\n   Section 5.7.2.\n",
        "   They are defined in the registry of transfer codings found at\n   Section 8.4. They",
        "subject to the limits the parties agreed to in writing,\nSection 4. It applies",
    ],
)
def test_a_citation_that_a_wrapped_line_begins_with_is_a_reference(text: str) -> None:
    assert len(refs(text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "SEC. 2. DEFINITIONS.\nText",
        "Terms\n\nSection 2. Scope\nText",
        "Terms\nSection 2. Scope",
        "Part 6.50.(1)\tThe Regulator must maintain the Official List.",
        "Part 6.Chapter 1.61.(5)\tA Prospectus must include",
        "Schedule 1.Part 2.Chapter 14.67.(1)\tOperating a Representative Office",
        "PART 5.12.3.9.Guidance.1\tIf the prime broker",
        "SECTION VIII.A.8.\tThe term",
    ],
)
def test_a_heading_or_rule_number_opening_a_line_is_no_reference(text: str) -> None:
    assert refs(text) == []


def test_us_external_does_not_resolve() -> None:
    found = refs("section 551 of title 5, United States Code")
    assert [resolve(r, US_CONTEXT, US_KNOWN | {"section-551"}) for r in found] == [None]


# --------------------------------------------------------------------------- GDPR end to end

Unit = tuple[str, tuple[str, ...]]  # a text and the ids of where it sits, outermost first


def gdpr_structure(data: dict) -> tuple[set[str], list[Unit]]:
    """Section ids and texts with their contexts, by hierdoc's id conventions.

    Chapters ``chapter-N`` (Roman numerals as integers); sections repeat across
    chapters, so they are qualified (``chapter-3-section-2``); articles
    ``article-N``; numbered paragraphs ``article-N-P`` and their points
    ``article-N-P-x``; an unnumbered text is a further subparagraph of the
    paragraph before it (or the article's own text), and its points hang there.
    """
    known: set[str] = set()
    units: list[Unit] = []
    for chapter in data["chapters"]:
        chapter_id = f"chapter-{roman_to_int(chapter['number'])}"
        known.add(chapter_id)
        for block in chapter["contents"]:
            if block["type"] == "article":
                walk = [((chapter_id,), block)]
            else:
                section_id = f"{chapter_id}-section-{block['number']}"
                known.add(section_id)
                walk = [((chapter_id, section_id), a) for a in block["contents"]]
            for outer, article in walk:
                units.extend(_article_units(article, outer, known))
    return known, units


def _article_units(article: dict, outer: tuple[str, ...], known: set[str]) -> Iterator[Unit]:
    article_id = f"article-{article['number']}"
    known.add(article_id)
    context = (*outer, article_id)
    for item in article["contents"]:
        if item["number"]:
            context = (*outer, article_id, f"{article_id}-{item['number']}")
            known.add(context[-1])
        yield item["text"], context
        for point in item["subpoints"]:
            point_context = context
            if point["number"]:
                point_context = (*context, f"{context[-1]}-{point['number']}")
                known.add(point_context[-1])
            yield point["text"], point_context


_GOLD_GROUP = re.compile(
    r"\bArticles?\s+\d+(?:\(\w+\))*"
    r"(?:(?:(?:,\s*|\s+(?:and|or|to)\s+)(?:\d+|\(\w+\))|\s+(?:and|or)\s+Article\s+\d+)(?:\(\w+\))*)*"
)
_GOLD_NUMBER = re.compile(r"(?:Articles?\s+|,\s*|\s(?:and|or)\s+|\s(?P<to>to)\s+)(?P<n>\d+)")
_GOLD_EXTERNAL = re.compile(r",?\s+of\s+(?!this\b)(?:the\s+|that\s+)?[A-Z]|\s+(?:TFEU|TEU)\b")


def gold_article_mentions(text: str) -> Iterator[tuple[int, int]]:
    """(offset, article number) of each citation of the GDPR's own articles.

    A deliberately plain oracle, independent of the grammar under test: an
    "Article(s) N" group with its lists and ranges, external when "of the ..."
    / "of Directive ..." / "TFEU" follows the group.
    """
    for group in _GOLD_GROUP.finditer(text):
        if _GOLD_EXTERNAL.match(text, group.end()):
            continue
        previous = None
        for number in _GOLD_NUMBER.finditer(group[0]):
            value = int(number["n"])
            offset = group.start() + number.start("n")
            if number["to"] and previous is not None:
                for between in range(previous + 1, value):
                    yield offset, between
            yield offset, value
            previous = value


def test_gdpr_gold_oracle_reads_lists_and_ranges() -> None:
    text = "Articles 15 to 17 and 34, Article 25(6) of Directive 95/46/EC, Article 6(1) or 9"
    assert [n for _, n in gold_article_mentions(text)] == [15, 16, 17, 34, 6, 9]


def test_gdpr_internal_article_references_resolve_to_the_right_article() -> None:
    data = json.loads(require(GDPR_JSON).read_text(encoding="utf-8"))
    known, units = gdpr_structure(data)
    assert len([i for i in known if re.fullmatch(r"article-\d+", i)]) == 99
    assert len([i for i in known if re.fullmatch(r"chapter-\d+", i)]) == 11
    hits, misses = 0, []
    for text, context in units:
        found = [r for r in find_references(text) if not r.external]
        for offset, article in gold_article_mentions(text):
            covering = [r for r in found if r.start <= offset < r.end]
            resolved = [resolve(r, context, known) for r in covering]
            if any(_under(i, article) for i in resolved):
                hits += 1
            else:
                misses.append((text[max(0, offset - 40) : offset + 30], article, resolved))
    total = hits + len(misses)
    assert total > 300  # the GDPR's articles cite each other a few hundred times
    assert hits / total >= 0.95, misses[:20]


def _under(section_id: str | None, article: int) -> bool:
    return section_id is not None and (
        section_id == f"article-{article}" or section_id.startswith(f"article-{article}-")
    )


def test_gdpr_relative_references_resolve_inside_their_article() -> None:
    data = json.loads(require(GDPR_JSON).read_text(encoding="utf-8"))
    known, units = gdpr_structure(data)
    relative = resolved = 0
    for text, context in units:
        article = next(c for c in context if c.startswith("article-"))
        for ref in find_references(text):
            if ref.relative:
                relative += 1
                target = resolve(ref, context, known)
                resolved += target is not None and target.startswith(f"{article}-")
    assert relative > 150
    assert resolved / relative >= 0.9


@pytest.mark.parametrize(
    ("text", "known", "expected"),
    [
        ("subject to Clause 14.2(b)", {"section-14", "section-14-2-b"}, "section-14-2-b"),
        ("as Requirement 8.2.3 sets out", {"section-8-2-3", "requirement-8"}, "section-8-2-3"),
        ("see Section K.3", {"section-k", "section-k-3"}, "section-k-3"),
    ],
)
def test_clause_kinds_resolve_to_bare_numbered_clauses(text, known, expected) -> None:
    (ref,) = refs(text)
    assert resolve(ref, ("section-1",), known) == expected


def _act_with_references(number: int) -> str:
    return (
        f"# Act {number}\n\n## Article 1 Scope\n\nThis Act {number} applies as set out in "
        "Article 2.\n\n## Article 2 Duties\n\n1. Each bank shall report.\n\n2. The report "
        "referred to in paragraph 1 is yearly, as Article 1 says.\n"
    )


def test_references_stay_in_the_document_the_id_is_looked_at_in(tmp_path) -> None:
    """Every act has "article-2": the references of one act's Article 2 are its own, the
    subtree and the incoming references of that act only, whichever act is named."""
    from tests.hash_embedder import hash_index

    documents = {f"act-{n}.md": _act_with_references(n) for n in range(3)}
    with hash_index(tmp_path / "index", documents) as index:
        for source in documents:
            lookup = index.references("article-2", source)
            assert lookup.section_id == "article-2"
            assert lookup.outgoing and {r.source for r in lookup.outgoing} == {source}
            assert lookup.incoming and {r.source for r in lookup.incoming} == {source}
            assert any(r.section_id == "article-1" for r in lookup.incoming)
        first = index.references("article-2")
        assert {r.source for r in first.outgoing + first.incoming} == {"act-0.md"}


def test_references_of_more_ids_than_one_statement_takes(tmp_path) -> None:
    """SQLite caps a statement's parameters: thousands of chunk or section ids are looked
    up in batches, in (source, insertion) order, without an error."""
    from tests.hash_embedder import hash_index

    documents = {f"act-{n}.md": _act_with_references(n) for n in range(3)}
    with hash_index(tmp_path / "index", documents) as index:
        records = index.store.records
        chunk_ids = [s.chunk.chunk_id for d in documents for s in index.chunks_of_source(d)]
        padded = [f"missing-{i}" for i in range(40_000)] + chunk_ids
        assert records.references_from(padded) == records.references_from(chunk_ids)
        assert len(records.references_from(chunk_ids)) >= 9
        targets = [f"missing-{i}" for i in range(40_000)] + ["article-1", "article-2"]
        found = records.references_to(targets)
        assert found == sorted(found, key=lambda r: r.source) and len(found) >= 6


def test_a_listed_clause_may_carry_its_title_in_parentheses() -> None:
    """Contracts name the clauses they cite: "Sections 8.1 (Damages Waiver) and 8.2
    (Liability Cap)" cites 8.2 too; a title does not make a list of a single citation."""
    found = find_references("The waivers in Sections 8.1 (Damages Waiver) and 8.2 (Liability Cap).")
    assert [r.candidate_ids[0] for r in found] == ["section-8-1", "section-8-2"]
    single = find_references("according to Section 2 (Payment & Taxes). Then 3 days pass.")
    assert [(r.text, r.candidate_ids[0]) for r in single] == [("Section 2", "section-2")]
