"""Rulebooks in plain text, as Word exports them: every rule's whole number before a tab,
guidance numbered under its rule, invisible marks inside citations. The tree follows the
numbers; ids are the rule numbers; "Rule 2.1.1 of GEN", "GEN 2.1.1" find the rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from hierdoc import Index
from hierdoc.pipeline.convert import convert_file
from hierdoc.pipeline.rule_paths import local_id, path_ids, path_key
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.invisible import clean_text, clean_with_offsets
from tests.hash_embedder import hash_index

LRM = "\u200e"

GEN = f"""1.\tINTRODUCTION

1.1\tApplication

1.1.1\tThis Rulebook applies to every Authorised Person.

1.2\tOverview of the Rulebook

1.2.Guidance
1.2.Guidance.1.\tChapter {LRM}2 sets out the Principles for Authorised Persons.
1.2.Guidance.2.\tChapter {LRM}3 specifies the requirements upon senior management.

2.\tCORE PRINCIPLES

2.1\tPrinciples for Authorised Persons

2.1.1.(1)\tThe twelve Principles, set out in Rule {LRM}2.2, apply to every Authorised Person.
2.1.1.(2)\tFor the purposes of this Rule the term 'Activities' means:
(a)\ta Regulated Activity;
(b)\tactivities carried on in connection with a Regulated Activity.

2.1.1.Guidance.1\tThe Principles have the status of Rules.

2.1.2\tA Representative Office must keep its ledger of introductions in the ADGM.

2.2\tFees

2.2.1\tThe fees payable are:
1.\tApplication fee\t10,000
2.\tAnnual fee\t15,000
3.\tLate fee\t2,000

3.\tGENERAL PROVISIONS

3.1\tSoftware escrow: a Compliance Officer must hold the source escrow agreement.
"""

COBS = """1.\tAPPLICATION

1.1\tApplication

1.1.1\tThese Rules apply to conduct of business.

2.\tCLIENT CLASSIFICATION

2.1\tGeneral

2.1.1\tAn Authorised Person must classify each Client before it provides a service.

2.1.2\tA Client may ask to be reclassified.
"""


GLO = """1.\tINTERPRETATION

1.1\tThe terms defined here are used in the Conduct of Business Rules ("COBS") and in the
Market Infrastructure Rules ("MIR").
"""


def _tree(text: str) -> dict[str, tuple[str, ...]]:
    return {s.section_id: s.path for s in parse_sections(text, "GEN")}


def test_rule_numbers_are_ids_and_nest_by_their_prefix() -> None:
    tree = _tree(GEN)
    assert tree["section-1-1-1"] == ("section-1", "section-1-1")
    assert tree["section-1-2-guidance"] == ("section-1", "section-1-2")
    assert tree["section-1-2-guidance-2"][-1] == "section-1-2-guidance"
    # rule 2.1.1, written only with its paragraphs, opens where "2.1.1.(1)" does
    assert tree["section-2-1-1"] == ("section-2", "section-2-1")
    assert tree["section-2-1-1-1"] == ("section-2", "section-2-1", "section-2-1-1")
    assert tree["section-2-1-1-2-a"][-1] == "section-2-1-1-2"
    assert tree["section-2-1-1-guidance-1"][-1] == "section-2-1-1"
    assert tree["section-2-1-2"] == ("section-2", "section-2-1")
    assert tree["section-3-1"] == ("section-3",)


def test_a_table_numbered_from_one_inside_a_chapter_is_no_chapter() -> None:
    sections = parse_sections(GEN, "GEN")
    chapters = [(s.section_id, s.heading) for s in sections if s.level == 1]
    assert chapters == [
        ("section-1", "1. INTRODUCTION"),
        ("section-2", "2. CORE PRINCIPLES"),
        ("section-3", "3. GENERAL PROVISIONS"),
    ]
    fees = [s for s in sections if s.path[-1:] == ("section-2-2-1",)]
    assert [s.heading for s in fees] == ["1.", "2.", "3."]


PRU = """1\tAPPLICATION

1.1\tApplication

1.1.1\tThese Rules apply to every Authorised Person.

1.2\tGlossary

1.2.1\tIn these Rules:

Defined Terms\tDefinitions
1P\tMeans the low estimate scenario of Petroleum Reserves.
C1\tMeans the Low Estimate scenario of Contingent Resources.
DvP\tDelivery versus Payment.
E\tAn Exposure value or amount.
T\tTrade date.

2\tGENERAL REQUIREMENTS

2.1\tApplication

2.1.1\tThis Chapter applies to an Authorised Person in any Category.

2.1.2\tThe amounts are:
1\t10 million
2\t2 million
3A\t500,000
3B\t4 million
4\t10,000

3\tCAPITAL AND LEVERAGE

3.1\tApplication

3.1.1\tThis Chapter applies to every Authorised Person.

4\tCREDIT RISK

4.1\tApplication

4.1.1\tThis Chapter applies to every Authorised Person.
"""


def test_glossary_rows_and_table_rows_are_no_chapters() -> None:
    sections = parse_sections(PRU, "PRU")
    chapters = [s.section_id for s in sections if s.level == 1]
    assert chapters == ["section-1", "section-2", "section-3", "section-4"]
    assert not {"section-1p", "section-c1"} & {s.section_id for s in sections}


def test_a_rule_written_only_with_its_paragraphs_holds_them_and_no_text_is_lost() -> None:
    sections = parse_sections(GEN, "GEN")
    rule = next(s for s in sections if s.section_id == "section-2-1-1")
    assert (rule.heading, rule.heading_line, rule.body) == ("2.1.1", "", "")
    assert "".join(s.heading_line + s.body for s in sections) == GEN


def test_headings_are_the_number_and_its_title() -> None:
    headings = {s.section_id: s.heading for s in parse_sections(GEN, "GEN")}
    assert headings["section-1-1"] == "1.1 Application"
    assert headings["section-2"] == "2. CORE PRINCIPLES"
    assert headings["section-2-1-2"] == "2.1.2"


def test_a_heading_shows_the_number_its_id_is_made_of_not_its_containers() -> None:
    """The part and chapter a number begins with are its ancestors' headings."""
    text = "".join(
        f"{label}\t{title}\n"
        for label, title in [
            ("Part 1", "Introduction"),
            ("Part 1.1.", "Definitions"),
            ("Part 1.1.(1)", "In these Regulations capitalised terms have their meanings."),
            ("Part 2", "Recovery"),
            ("Part 2.Chapter 1", "Recovery Plans"),
            ("Part 2.Chapter 1.7.", "Individual Recovery Plans"),
            ("Part 2.Chapter 1.7.(1)", "A Firm shall prepare a plan."),
            ("APP2.A2.1.1", "Scope of the appendix"),
        ]
    )
    sections = {s.section_id: s for s in parse_sections(text, "BRR")}
    assert sections["section-1"].heading == "1. Definitions"
    assert sections["section-7"].heading == "7. Individual Recovery Plans"
    assert sections["section-7"].parent_chain[:2] == (
        "Part 2 Recovery",
        "Part 2.Chapter 1 Recovery Plans",
    )
    assert sections["section-a2-1-1"].heading == "A2.1.1 Scope of the appendix"
    assert sections["part-1"].heading == "Part 1 Introduction"


def test_containers_leave_the_rule_number_alone_and_a_repeated_number_is_qualified() -> None:
    keys = [
        path_key("Part 12"),
        path_key("Part 12.Chapter 1"),
        path_key("Part 12.Chapter 1.119.(1)"),
        path_key("Schedule 1.Part 1.119."),
        path_key("SECTION VIII.C.1."),
        path_key("APP2.A2.1.1"),
    ]
    assert keys[2] == ("part 12", "chapter 1", "119", "1")
    assert path_ids(keys) == [
        "part-12",
        "chapter-1",
        "section-119-1",
        "section-119",
        "section-8-c-1",
        "section-a2-1-1",
    ]
    assert local_id(path_key("Schedule 1.Part 1.119.(1)")) == "section-119-1"
    assert path_ids([path_key("1.1."), path_key("Schedule 1.1.1.")])[1] == "schedule-1-section-1-1"


def test_a_text_with_a_few_tabbed_numbers_keeps_the_outline_reading() -> None:
    text = "1. Scope\n\nThe scope.\n\n2. Fees\n\n2.1\tInvoices are monthly.\n\n(a) in arrears.\n"
    assert [s.section_id for s in parse_sections(text, "T")][1:] == [
        "section-1",
        "section-2",
        "section-2-1",
        "section-2-1-a",
    ]


def test_invisible_marks_are_removed_and_offsets_follow() -> None:
    text = f"Rule {LRM}5.5.4\u00a0applies\u00ad.\ufeff Next"
    cleaned, (at_next,) = clean_with_offsets(text, [text.index("Next")])
    assert cleaned == "Rule 5.5.4 applies. Next"
    assert cleaned[at_next:] == "Next"
    assert clean_text("plain") == "plain"


def test_a_converted_text_file_has_no_invisible_marks(tmp_path: Path) -> None:
    path = tmp_path / "GEN_VER01.txt"
    path.write_text(GEN.replace("\n", "\r\n"), encoding="utf-8")
    text = convert_file(path).text
    assert LRM not in text and "set out in Rule 2.2, apply" in text


@pytest.fixture(scope="module")
def rulebooks(tmp_path_factory: pytest.TempPathFactory) -> Index:
    documents = {
        "GEN_VER01.txt": GEN,
        "COBS_VER15.txt": COBS,
        "UAE_CRS_Notes.txt": COBS,
        "GLO_VER01.txt": GLO,
    }
    with hash_index(tmp_path_factory.mktemp("rulebooks"), documents) as index:
        yield index


@pytest.mark.parametrize(
    ("query", "source"),
    [
        ("Rule 2.1.1(2) of GEN", None),
        (f"Rule {LRM}2.1.1(2) of GEN", None),
        ("GEN 2.1.1(2)", None),
        ("what does GEN 2.1.1(2) say about Activities", None),
        ("2.1.1(2) of GEN", None),
        ("What does 2.1.1(2) in GEN say about Activities", None),
        ("Rule 2.1.1(2)", "GEN_VER01.txt"),
        ("section 2.1.1(2)", "GEN_VER01.txt"),
    ],
)
def test_a_rule_citation_finds_the_rule(rulebooks: Index, query: str, source: str | None) -> None:
    first = rulebooks.search(query, source=source).results[0]
    assert (first.source, first.section_id) == ("GEN_VER01.txt", "section-2-1-1-2")
    assert first.pinned


def test_the_abbreviation_names_its_rulebook_only_in_a_citation(rulebooks: Index) -> None:
    cited = rulebooks.search("Rule 2.1.1 of COBS")
    assert cited.results[0].source == "COBS_VER15.txt"
    assert any("COBS_VER15.txt" in note for note in cited.notes), cited.notes
    for query in ("UAE escrow agreement for a Compliance Officer", "UAE 2020 escrow agreement"):
        topic = rulebooks.search(query)
        assert not any("named in the query" in note for note in topic.notes), topic.notes
        assert topic.results[0].source == "GEN_VER01.txt"


@pytest.mark.parametrize(
    ("query", "source"),
    [
        ("Guidance 2 under Rule 1.2 of GEN", None),
        ("guidance note 2 to Rule 1.2", "GEN_VER01.txt"),
        ("What does Guidance 2 under GEN 1.2 say?", None),
    ],
)
def test_a_guidance_note_under_a_rule_is_cited_before_the_rule(
    rulebooks: Index, query: str, source: str | None
) -> None:
    first = rulebooks.search(query, source=source).results[0]
    assert (first.source, first.section_id) == ("GEN_VER01.txt", "section-1-2-guidance-2")
    assert first.pinned


def test_a_number_after_a_kind_word_is_no_bare_number_of_a_document(rulebooks: Index) -> None:
    from hierdoc.search.names import Naming

    naming = Naming(("GEN_VER01.txt",), "by a short name", ((9, 12),))
    assert naming.rest("2.1.1 of GEN") == "section 2.1.1 of"
    naming = Naming(("GEN_VER01.txt",), "by a short name", ((14, 17),))
    assert naming.rest("Rule 2.1.1 of GEN") == "Rule 2.1.1 of"


@pytest.mark.parametrize(
    "query",
    ["Rule 2.1.1 of the Conduct of Business Rules", "conduct of business rules 2.1.1"],
)
def test_a_rulebook_is_cited_by_the_long_form_another_document_gives_it(
    rulebooks: Index, query: str
) -> None:
    """GLO spells out "COBS", the abbreviation COBS_VER15.txt is filed under: the long form
    names that file, not the copy of its text filed as UAE_CRS_Notes.txt."""
    cited = rulebooks.search(query)
    first = cited.results[0]
    assert (first.source, first.section_id) == ("COBS_VER15.txt", "section-2-1-1")
    assert any("searched only COBS_VER15.txt" in note for note in cited.notes), cited.notes
    topic = rulebooks.search("how does the Conduct of Business Rules classify a Client")
    assert not any("named in the query" in note for note in topic.notes), topic.notes


def test_a_document_given_as_text_is_named_by_the_name_its_text_gives_it(
    tmp_path: Path,
) -> None:
    manual = COBS.replace(
        "These Rules apply to conduct of business.",
        "This document is called the Guidance and Policies Manual (“GPM”).",
    ).replace("An Authorised Person must classify", "We expect an Authorised Person to classify")
    documents = {"Manual_2023.txt": manual, "COBS_VER15.txt": COBS}
    with hash_index(tmp_path, documents) as index:
        named = {d.source: d.metadata.get("names") for d in index.documents()}
        assert named["Manual_2023.txt"] == ["Guidance and Policies Manual (GPM)"]
        first = index.search("Section 2.1.1 of the Guidance and Policies Manual").results[0]
        assert (first.source, first.section_id) == ("Manual_2023.txt", "section-2-1-1")


def test_an_appendix_holds_the_rules_its_letter_numbers() -> None:
    text = GEN + (
        "APP1\tGUIDE TO THE APPENDICES\n"
        "A1.1\tGuide to the appendices\n"
        "A1.1.Guidance.1.\tIn PIN, appendices present detailed material.\n"
        "APP2\tMANAGEMENT AND CONTROL OF RISK\n"
        "A2.1\tIntroduction\n"
        "A2.1.1\tThis appendix applies to every Insurer.\n"
    )
    tree = _tree(text)
    assert tree["section-a1-1"] == ("appendix-1",)
    assert tree["section-a1-1-guidance-1"][-1] == "section-a1-1"
    assert tree["section-a2-1-1"] == ("appendix-2", "section-a2-1")


def test_the_rows_of_a_marked_table_are_no_sections() -> None:
    text = GEN.replace(
        "2.\tCORE PRINCIPLES\n",
        "/Table Start\nPrudential Category\tBase Capital Requirement\n"
        "3C\t$250,000\t\tHolding Client Assets\n\n4\t$10,000\t\t6/52nds of Expenditure\n"
        "1.\tINFORMATION ABOUT THE ISSUER\n/Table End\n\n2.\tCORE PRINCIPLES\n",
    )
    tree = _tree(text)
    assert not {"section-3c", "section-4", "section-1-2-guidance-2-1"} & set(tree)
    assert tree["section-2-1-1"] == ("section-2", "section-2-1")
    assert "Holding Client Assets" in "".join(s.body for s in parse_sections(text, "GEN"))


def test_a_number_that_goes_on_with_a_word_opens_no_part() -> None:
    text = GEN.replace(
        "1.2\tOverview of the Rulebook\n",
        "1.2\tOverview of the Rulebook\nPART 1.2.Withdrawal_of_registration\n"
        "PART 1.2.Withdrawal_of_registration.Guidance.1 Under Section 111 of the FSMR, ...\n",
    )
    tree = _tree(text)
    assert not [i for i in tree if i.startswith("part-")]
    assert tree["section-1-2-guidance-2"][-1] == "section-1-2-guidance"
    assert tree["section-2-1-1"] == ("section-2", "section-2-1")


def test_a_rule_after_a_stray_number_goes_back_into_the_rule_its_number_extends() -> None:
    text = GEN + (
        "APP2\tMANAGEMENT AND CONTROL OF RISK\n"
        "A2.1\tIntroduction\n"
        "A2.1.1\tThis appendix applies to every Insurer.\n"
        "A2.1.1.Guidance\t\n"
        "APP2.1.\tOffsetting is not permitted.\n"
        "A2.1.2\tThe Insurer must keep records.\n"
    )
    assert _tree(text)["section-a2-1-2"] == ("appendix-2", "section-a2-1")
