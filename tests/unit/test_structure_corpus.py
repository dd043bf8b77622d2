"""The structure benchmark (benchmarks/structure.py) on its test subset, tests/structure_corpus:
real documents of five formats and five publishers whose gold comes from their structured
sources. The figures may rise; a fall below the floors measured on the subset fails."""

from __future__ import annotations

import json
import re
import sys

import pytest

from hierdoc.text.numbering import parse_heading
from tests.paths import REPOSITORY

BENCHMARKS = REPOSITORY / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from structure import SUBSET, Counts, DocumentResult, figures, measure, total  # noqa: E402
from structure_corpus_build import (  # noqa: E402
    gold_of,
    read_regml,
    read_rfc,
    read_spdx,
    read_uslm,
    render_txt,
)
from structure_gold import (  # noqa: E402
    glossary_rows,
    load_corpus,
    obliqa_documents,
    obliqa_references,
    obliqa_sections,
    passage_section_id,
)

#: Micro-averaged figures over the subset but its PDFs, as measured when the subset was made.
FLOORS = {
    "id_f1": 0.997,
    "tree_f1": 0.997,
    "heading": 1.0,
    "def_p": 1.0,
    "def_r": 0.96,
    "refs": 1.0,
    "cite1": 1.0,
}
#: Section-id F1 of each document of the subset, as measured.
DOCUMENT_FLOORS = {
    "ietf-rfc7233": 1.0,
    "cfpb-12cfr1009": 1.0,
    "cfpb-12cfr1014": 1.0,
    "cfr-27-vol3-part646": 1.0,
    "spdx-epl-2.0": 0.98,
    "uslm-h1037_rfs": 1.0,
    "uslm-s2245_is": 1.0,
    "cfpb-12cfr1014-pdf": 1.0,
    "uslm-s2245_is-pdf": 1.0,
}
#: Figures of the subset's PDF documents (HTML printed with running heads and page
#: numbers, one in two justified columns), as measured.
PDF_FLOORS = {"id_f1": 1.0, "tree_f1": 0.98, "heading": 0.87, "def_p": 1.0, "cite1": 1.0}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> list[DocumentResult]:
    return measure(load_corpus(SUBSET), tmp_path_factory.mktemp("structure"))


def test_the_subset_holds_five_formats_and_five_publishers() -> None:
    documents = load_corpus(SUBSET)
    assert {d.format for d in documents} == {"txt", "md", "html", "docx", "pdf"}
    assert len({d.publisher for d in documents}) == 5
    assert all(
        d.document.is_file() and d.source.startswith("https://") and d.licence for d in documents
    )


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_a_figure_stays_at_or_above_its_floor(results, name: str) -> None:
    value = figures(total(r for r in results if r.format != "pdf"))[name]
    assert value is not None and value >= FLOORS[name] - 1e-9, f"{name} fell to {value:.3f}"


def test_each_documents_section_ids_stay_at_or_above_their_floor(results) -> None:
    measured = {r.id: figures(r.counts)["id_f1"] for r in results}
    assert set(measured) == set(DOCUMENT_FLOORS)
    fallen = {
        i: round(v or 0, 3) for i, v in measured.items() if (v or 0) < DOCUMENT_FLOORS[i] - 1e-9
    }
    assert not fallen, f"section-id F1 fell: {fallen}"


@pytest.mark.parametrize("name", sorted(PDF_FLOORS))
def test_a_pdf_figure_stays_at_or_above_its_floor(results, name: str) -> None:
    value = figures(total(r for r in results if r.format == "pdf"))[name]
    assert value is not None and value >= PDF_FLOORS[name] - 1e-9, f"{name} fell to {value:.3f}"


#: Section-id F1 of two ObliQA documents (read in place from the datasets folder), as measured.
OBLIQA_FLOORS = {"obliqa-07-gen": 0.99, "obliqa-20-guidance": 1.0}
#: Cross-references resolved in GEN (75 gold "Rule 2.2" and "section 15(2)" references).
OBLIQA_REFS_FLOORS = {"obliqa-07-gen": 1.0}


def test_obliqa_documents_section_ids_stay_at_or_above_their_floor(tmp_path) -> None:
    documents = [d for d in obliqa_documents() if d.id in OBLIQA_FLOORS]
    if not documents:
        pytest.skip("the ObliQA dataset is not in the datasets folder")
    results = measure(documents, tmp_path)
    measured = {r.id: figures(r.counts)["id_f1"] or 0 for r in results}
    fallen = {i: round(v, 3) for i, v in measured.items() if v < OBLIQA_FLOORS[i] - 1e-9}
    assert set(measured) == set(OBLIQA_FLOORS) and not fallen, f"section-id F1 fell: {fallen}"
    refs = {r.id: figures(r.counts)["refs"] or 0 for r in results if r.id in OBLIQA_REFS_FLOORS}
    fallen = {i: round(v, 3) for i, v in refs.items() if v < OBLIQA_REFS_FLOORS[i] - 1e-9}
    assert not fallen, f"cross-references resolved fell: {fallen}"


def test_a_document_without_sections_found_scores_zero_not_nothing() -> None:
    counts = Counts(gold_sections=10, stored_sections=0, citations=2)
    values = figures(counts)
    assert values["id_r"] == 0 and values["id_p"] is None and values["cite1"] == 0


def test_gold_ids_are_the_ids_hierdocs_numbering_gives_the_printed_numbers() -> None:
    checked = 0
    for document in load_corpus(SUBSET):
        gold = json.loads((SUBSET / "gold" / f"{document.id}.json").read_text(encoding="utf-8"))
        for section in gold["sections"]:
            number = section["number"]
            if re.fullmatch(r"(?:§ )?\d+(?:\.\d+)*", number):
                assert parse_heading(f"{number} Title").section_id() == section["id"], number
                checked += 1
    assert checked >= 40


@pytest.mark.parametrize(
    ("passage", "expected"),
    [
        ("5.3.6", ("section-5-3-6", "5.3.6")),
        ("2.1.1.(1)", ("section-2-1-1-1", "2.1.1(1)")),
        ("Part 2.4.(1)", ("section-4-1", "4(1)")),
        ("Part 1.Chapter 1.1.(3)", ("section-1-3", "1(3)")),
        ("PART 2.2.1.11.(a)", ("section-2-1-11-a", "2.1.11(a)")),
        ("26)", ("section-26", "26")),
        ("1.2.Guidance.1.", ("section-1-2-guidance-1", "1.2.Guidance.1")),
        ("5.4.1.Guidance.(i)", ("section-5-4-1-guidance-i", "5.4.1.Guidance.i")),
        ("APP2.A2.1.1", ("section-a2-1-1", "A2.1.1")),
        ("APP 7.A7.1.5.Guidance", ("section-a7-1-5-guidance", "A7.1.5.Guidance")),
        ("SECTION VIII.C.1.", ("section-8-c-1", "SECTION VIII.C.1")),
        ("Part 2", None),
        ("APP 1.1.", None),
    ],
)
def test_obliqa_passage_numbers_become_canonical_ids(passage: str, expected) -> None:
    assert passage_section_id(passage) == expected


def test_a_glossary_rows_points_and_wrapped_lines_continue_its_definition() -> None:
    table = (
        "1P\tMeans the low estimate scenario.\n"
        "Accounting Records\tMeans records such as:\n(a)\tcheques;\n(b)\tinvoices.\n"
        "Close Links\tA Person has Close Links if:\n(A)\tit is a Subsidiary;\n"
        "uses credible standards.\n"
        "Payment Service Provider\nHas the meaning given in section 258 of FSMR.\n"
        "Chief Executive (CEO)\tIn relation to a Body Corporate, the chief executive.\n"
    )
    assert glossary_rows(table) == [
        ("1P", "Means the low estimate scenario."),
        ("Accounting Records", "Means records such as: (a) cheques; (b) invoices."),
        (
            "Close Links",
            "A Person has Close Links if: (A) it is a Subsidiary; uses credible standards.",
        ),
        ("Payment Service Provider", "Has the meaning given in section 258 of FSMR."),
        ("Chief Executive", "In relation to a Body Corporate, the chief executive."),
    ]


def test_the_adgm_glossary_definitions_are_found(tmp_path) -> None:
    documents = [d for d in obliqa_documents() if d.id == "obliqa-08-glo"]
    if not documents:
        pytest.skip("the ObliQA dataset is not in the datasets folder")
    values = figures(measure(documents, tmp_path)[0].counts)
    assert values["def_p"] >= 0.99 and values["def_r"] >= 0.99, values


def test_obliqa_part_and_appendix_headings_are_the_parents_of_their_top_sections() -> None:
    passages = [
        {"PassageID": "PART 2", "Passage": "DEFINITIONAL_PROVISIONS"},
        {"PassageID": "PART 2.2", "Passage": "ARRANGEMENTS NOT CONSTITUTING A FUND"},
        {"PassageID": "PART 2.2.1.1", "Passage": "The Regulator prescribes that ..."},
        {"PassageID": "APP1", "Passage": "GUIDE TO THE APPENDICES"},
        {"PassageID": "APP1.A1.1.1", "Passage": "This appendix ..."},
    ]
    parents = {s.id: s.parent for s in obliqa_sections(passages)[0]}
    assert parents == {
        "part-2": None,
        "section-2": "part-2",
        "section-2-1": "section-2",
        "section-2-1-1": "section-2-1",
        "appendix-1": None,
        "section-a1-1": "appendix-1",
        "section-a1-1-1": "section-a1-1",
    }


OBLIQA_KNOWN = {
    "section-2",
    "section-2-4",
    "section-2-4-1",
    "section-3",
    "section-15",
    "section-25",
}


@pytest.mark.parametrize(
    ("text", "targets"),
    [
        ("the conditions in Rule \u200e2.4.1 below", ["section-2-4-1"]),
        ("as specified in COBS Rule 2.4.1, and", []),  # a rule of another rulebook
        ("required under GEN Rule 2.4.1(a)", []),
        ("see Rule 2.4.1 of COBS", []),
        ("for the purposes of section 15(2), the", ["section-15"]),
        ("has the meaning given in section 258 of FSMR", []),  # not "section 25"
        ("the meaning given in section 15(2) of FSMR", []),  # not "section 1"
        ("under section 9(5) of FSMR, we may", []),
        ("under section 24 of those Regulations", []),
        ("as set out in section 2.4 below", ["section-2-4"]),
        ("(section 2.4 of the PRMS);", []),  # not "section 2"
        ("the requirements set out in COBS section 2.4 will not apply", []),
    ],
)
def test_obliqa_gold_references_are_this_documents_rules_and_sections(text, targets) -> None:
    found = obliqa_references({"section-3": text}, OBLIQA_KNOWN)
    assert [r.target for r in found] == targets


RFC = b"""<rfc number="9999"><front><title>Test</title></front><middle>
<section anchor="intro" title="Introduction"><t>See <xref target="ok"/> and the
<xref target="ok" format="none">OK status</xref>; as <xref target="ok">Section 2</xref> says.</t>
</section>
<section anchor="ok" title="OK"><t>Back to <xref target="intro">the introduction</xref>.</t>
</section></middle></rfc>"""


def test_rfc_gold_references_are_the_xrefs_the_rendered_text_shows() -> None:
    source = read_rfc(RFC, "rfc-9999", "https://example.org/rfc9999.xml")
    assert source.references == [("section-1", "section-2"), ("section-1", "section-2")]


RFC_PROSE = b"""<rfc><front><title>Prose</title></front><middle>
<section anchor="a" title="Terms"><t>The terms "inbound" and "outbound" are used to describe
directions: "inbound" means toward the origin server and "outbound" means toward the user
agent.</t>
<t>A "transparent proxy" is a proxy that does not modify the request. "Quality values" is a
misnomer. Each part of a "multipart/byteranges" is around 80 bytes.</t>
<t>The result of this process is called the "effective request URI". This is called "double
keying". Messages hold a start-line, zero or more header fields (also known as "headers").</t>
</section></middle></rfc>"""


def test_rfc_gold_definitions_are_the_terms_its_prose_introduces() -> None:
    source = read_rfc(RFC_PROSE, "rfc-prose", "https://example.org/prose.xml")
    expected = [
        ("inbound", "toward the origin server"),
        ("outbound", "toward the user agent."),
        ("transparent proxy", "a proxy that does not modify the request."),
        ("effective request URI", "The result of this process"),
        ("headers", "zero or more header fields"),
    ]
    assert [term for term, _ in source.definitions] == [term for term, _ in expected]
    for (_, text), (_, start) in zip(source.definitions, expected, strict=True):
        assert text.startswith(start)
    assert source.definitions[0][1] == "toward the origin server"  # ends where "outbound" opens


USLM = """<bill xmlns="http://schemas.gpo.gov/xml/uslm"><main><collection>
<component changed="deleted"><main><section><num value="1">SECTION 1. </num>
<heading>STRUCK.</heading><content>Struck text.</content></section></main></component>
<component changed="added"><main>
<title><num value="I">TITLE I—</num><heading>FIRST</heading>
<subtitle><num value="A">Subtitle A—</num><heading>Alpha</heading>
<section><num value="101">SEC. 101. </num><heading>ONE.</heading>
<subsection><num value="a">(a) </num><content>Text.</content></subsection></section></subtitle>
<subtitle><num value="B">Subtitle B—</num><heading>Beta</heading>
<part><num value="1">PART 1—</num><heading>Only part</heading>
<section><num value="102.5">§ 102.5a</num><heading>Added.</heading>
<paragraph><num value="a">(a) </num><content>Text.</content></paragraph></section></part>
</subtitle></title>
<title><num value="II">TITLE II—</num><heading>SECOND</heading>
<subtitle><num value="A">Subtitle A—</num><heading>Gamma</heading>
<paragraph><num value="1">(1) </num><content>An appropriation.</content></paragraph>
<section><num value="201">SEC. 201. </num><heading>TWO.</heading></section></subtitle>
</title></main></component></collection></main></bill>""".encode()


def gold_parents(source) -> dict[str, str | None]:
    """Each gold section's parent, by id."""
    return {s["id"]: s["parent"] for s in gold_of(source)["sections"]}


def test_uslm_gold_names_blocks_as_hierdoc_numbers_them_and_keeps_one_version() -> None:
    source = read_uslm(USLM, "uslm-test", "https://example.org/bill.xml")
    assert gold_parents(source) == {
        "title-1": None,
        "title-1-subtitle-a": "title-1",
        "section-101": "title-1-subtitle-a",
        "section-101-a": "section-101",
        "subtitle-b": "title-1",
        "part-1": "subtitle-b",
        "section-102-5a": "part-1",
        "section-102-5a-a": "section-102-5a",
        "title-2": None,
        "title-2-subtitle-a": "title-2",
        "section-201": "title-2-subtitle-a",
    }
    assert [parse_heading(h).section_id() for h in ("TITLE II", "Subtitle B", "PART 1")] == [
        "title-2",
        "subtitle-b",
        "part-1",
    ]


USLM_TERMS = """<bill xmlns="http://schemas.gpo.gov/xml/uslm"><main>
<section><num value="1">SEC. 1. </num><heading>ENTRY.</heading>
<subsection><num value="a">(a) </num><content>In this section, the terms “enter” and
“entry” mean the entry of merchandise.</content></subsection>
<subsection><num value="b">(b) </num><content>The Secretary shall enter it.</content>
</subsection></section></main></bill>""".encode()


def test_uslm_gold_takes_the_statute_formula_without_term_markup() -> None:
    source = read_uslm(USLM_TERMS, "uslm-terms", "https://example.org/bill.xml")
    assert source.definitions == [
        ("enter", "the entry of merchandise."),
        ("entry", "the entry of merchandise."),
    ]


def uslm_blocks(*blocks: tuple[str, str]) -> bytes:
    levels = "".join(
        f'<{kind}><num value="{value}">{kind.upper()} {value}—</num><heading>H</heading>'
        f'<section><num value="{n}">SEC. {n}. </num><heading>S.</heading></section></{kind}>'
        for n, (kind, value) in enumerate(blocks, 1)
    )
    return f'<bill xmlns="http://schemas.gpo.gov/xml/uslm"><main>{levels}</main></bill>'.encode()


@pytest.mark.parametrize(
    ("blocks", "expected"),
    [
        ((("title", "IV"), ("title", "V")), ["title-4", "title-5"]),
        ((("subtitle", "H"), ("subtitle", "I")), ["subtitle-h", "subtitle-i"]),
        ((("division", "C"),), ["division-c"]),
        ((("chapter", "1001"), ("chapter", "1003")), ["chapter-1001", "chapter-1003"]),
    ],
)
def test_uslm_block_numbers_are_roman_only_in_a_roman_sequence(blocks, expected) -> None:
    source = read_uslm(uslm_blocks(*blocks), "uslm-test", "https://example.org/bill.xml")
    ids = [s["id"] for s in gold_of(source)["sections"] if not s["id"].startswith("section-")]
    assert ids == expected


REGML_UNNUMBERED = """<regulation xmlns="eregs"><part label="1012"><content>
<section label="1012-215"><subject>§ 1012.215 Notice of proceedings.</subject>
<paragraph label="1012-215-p1" marker="none"><content>A notice shall contain:</content>
<paragraph label="1012-215-a" marker="(a)"><content>The filings.</content></paragraph>
<paragraph label="1012-215-b" marker="(b)"><content>The facts.</content></paragraph>
</paragraph></section>
<section label="1012-205"><subject>§ 1012.205 Notice of suspension.</subject>
<paragraph label="1012-205-p1" marker="none"><content>The notice shall state:</content>
<paragraph label="1012-205-p1-a" marker="(a)"><content>The grounds;</content>
<paragraph label="1012-205-a-1" marker="(1)"><content>The first.</content>
<paragraph label="1012-205-a-2" marker="(2)"><content>The second.</content></paragraph>
</paragraph></paragraph>
<paragraph label="1012-205-p1-b" marker="(b)"><content>The date.</content></paragraph>
</paragraph></section></content></part></regulation>""".encode()


def test_a_regml_paragraph_marked_none_is_unnumbered_text_of_its_section() -> None:
    source = read_regml(REGML_UNNUMBERED, "cfpb-test", "https://example.org/reg.xml")
    section, other = "section-1012-215", "section-1012-205"
    assert gold_parents(source) == {
        section: None,
        f"{section}-a": section,
        f"{section}-b": section,
        other: None,
        f"{other}-a": other,  # label 1012-205-p1-a: printed and cited § 1012.205(a)
        f"{other}-a-1": f"{other}-a",
        f"{other}-a-2": f"{other}-a",  # nested in (1) by the XML, its label says (a)(2)
        f"{other}-b": other,
    }
    assert source.nodes[0].body[0] == "A notice shall contain:"
    text = render_txt(source).decode()
    assert text.index("The second.") < text.index("The date.")


SPDX_LISTS = b"""<SPDXLicenseCollection xmlns="http://www.spdx.org/license">
<license licenseId="X-1.0" name="X License 1.0"><text><list>
<item><bullet>1.</bullet> Definitions. As used in this License:</item>
<item><list>
<item><bullet>1.1</bullet> "Code" means the code.</item>
<item><bullet>1.2</bullet> "You" means you.</item>
</list></item>
<item><bullet>2.0</bullet> Grant</item>
<item><bullet>2.1</bullet> You may copy the Code.</item>
<item><bullet>A.</bullet> in source form; or</item>
<item><bullet>2.2</bullet> You may not sell the Code.</item>
<item><bullet>3.</bullet> Termination</item>
</list></text></license></SPDXLicenseCollection>"""


def test_spdx_gold_nests_a_licences_clauses_as_their_numbers_say() -> None:
    source = read_spdx(SPDX_LISTS, "spdx-x", "https://example.org/x.xml")
    assert gold_parents(source) == {
        "section-1": None,
        "section-1-1": "section-1",  # the list of an item with no bullet after "1."
        "section-1-2": "section-1",
        "section-2-0": None,
        "section-2-1": "section-2-0",  # beside "2.0" in the XML's list
        "section-2-2": "section-2-0",
        "section-3": None,
    }
    text = render_txt(source).decode()
    assert text.index("in source form") < text.index("You may not sell")
