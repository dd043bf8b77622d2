"""Definitions: GDPR Article 4, HR 8847 SEC. 110, a contract fixture with every style, noise."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hierdoc.pipeline.extract.definitions import (
    FoundDefinition,
    find_definitions,
    is_definitions_heading,
)
from hierdoc.text.normalize import normalize_term
from tests.datasets import GDPR_ARTICLE_4_TERMS, GDPR_MD, GDPR_TXT, HR8847_PDF, require
from tests.paths import TESTS

FIXTURES = TESTS / "fixtures" / "definitions"


def _between(text: str, first: str, last: str) -> str:
    start = re.search(first, text, re.MULTILINE)
    assert start, first
    end = re.compile(last, re.MULTILINE).search(text, start.end())
    assert end, last
    return text[start.start() : end.start()]


def _by_term(found: list[FoundDefinition]) -> dict[str, FoundDefinition]:
    return {item.term: item for item in found}


def _check_offsets(text: str, found: list[FoundDefinition]) -> None:
    """Each term sits at its start offset, spans are sane, results are in text order."""
    assert [f.start for f in found] == sorted(f.start for f in found)
    for item in found:
        assert 0 <= item.start < item.end <= len(text)
        written = text[item.start : item.start + len(item.term) + 20]
        assert normalize_term(" ".join(written.split())).startswith(normalize_term(item.term))


# --- GDPR Article 4 ----------------------------------------------------------------------


@pytest.fixture(scope="module", params=[GDPR_MD, GDPR_TXT], ids=["md", "txt"])
def gdpr_article_4(request: pytest.FixtureRequest) -> str:
    text = require(request.param).read_text(encoding="utf-8")
    return _between(text, r"^(?:#+ )?Article 4\b", r"^(?:#+ )?Article 5\b")


@pytest.mark.parametrize("in_section", [True, False])
def test_gdpr_article_4_has_all_26_terms(gdpr_article_4: str, in_section: bool) -> None:
    found = find_definitions(gdpr_article_4, in_definitions_section=in_section)
    means = [f.term for f in found if f.style == "means"]
    assert means == GDPR_ARTICLE_4_TERMS
    extras = {(f.term, f.style) for f in found if f.style != "means"}
    assert extras == {("data subject", "parenthetical")}
    _check_offsets(gdpr_article_4, found)


def test_gdpr_definitions_run_to_the_end_of_their_item(gdpr_article_4: str) -> None:
    found = _by_term(find_definitions(gdpr_article_4, in_definitions_section=True))
    personal = found["personal data"].definition
    assert personal.startswith("any information relating to an identified or identifiable")
    assert "; an identifiable natural person is one who can be identified" in personal
    assert personal.endswith("social identity of that natural person")
    main = found["main establishment"].definition
    assert main.startswith("(a) as regards a controller")
    assert "(b) as regards a processor" in main
    assert "representative" not in main
    assert found["consent"].definition.startswith("any freely given, specific, informed")
    assert found["group of undertakings"].definition == (
        "a controlling undertaking and its controlled undertakings"
    )
    assert found["international organisation"].definition.endswith("two or more countries")
    subject = found["data subject"]
    assert subject.definition == "an identified or identifiable natural person"
    assert subject.start > found["personal data"].start


# --- HR 8847, SEC. 110 -------------------------------------------------------------------


@pytest.fixture(scope="module")
def hr8847_sec_110() -> str:
    from hierdoc.pipeline.convert import convert_file

    text = convert_file(require(HR8847_PDF)).text
    return _between(text, r"^(?:#+ )?SEC\. 110\. DEFINITIONS\.", r"^(?:#+ )?CHAPTER 3\b")


def test_hr8847_every_numbered_definition(hr8847_sec_110: str) -> None:
    items = re.findall(r"^\((\d+)\) [A-Z]", hr8847_sec_110, re.MULTILINE)
    assert len(items) == 75
    found = find_definitions(hr8847_sec_110, in_definitions_section=True)
    pointers = {f.term for f in found if f.style == "pointer"}
    assert pointers == {
        "agency",
        "critical infrastructure",
        "Federal agency",
        "Indian Tribe",
        "information system",
    }
    assert {f.style for f in found} == {"means", "pointer"}
    aliases = {"AGI", "AI", "IoT device", "NLP"}
    assert len([f for f in found if f.term not in aliases]) == 75
    assert len(found) == 79
    assert found == find_definitions(hr8847_sec_110, in_definitions_section=False)
    _check_offsets(hr8847_sec_110, found)


def test_hr8847_aliases_share_the_definition(hr8847_sec_110: str) -> None:
    found = _by_term(find_definitions(hr8847_sec_110, in_definitions_section=True))
    for long, short in [
        ("artificial general intelligence", "AGI"),
        ("artificial intelligence", "AI"),
        ("Internet of Things device", "IoT device"),
        ("natural language processing", "NLP"),
    ]:
        assert found[short].definition == found[long].definition
        assert found[short].end == found[long].end
        assert found[short].start > found[long].start
    assert found["AGI"].definition.startswith("an artificial intelligence system that can")
    assert found["AI"].definition.endswith("formulate options for information or action")


def test_hr8847_item_boundaries(hr8847_sec_110: str) -> None:
    found = find_definitions(hr8847_sec_110, in_definitions_section=True)
    terms = _by_term(found)
    assert [f.term for f in found].count("agency") == 1  # not the 'agency' cited in (35)
    assert terms["child"].definition == "an individual who has not attained the age of 13 years"
    assert terms["Secretary"].definition == "the Secretary of Commerce"
    assert "appropriate congressional committees" in terms  # the term wraps a line
    assert "National Technology Governance Administration" in terms
    assert terms["agency"].definition.startswith("the meaning given such term in section 551")
    transparency = terms["algorithmic impact assessment"].definition  # a page break inside
    assert transparency.endswith("privacy, security, and transparency")
    assert terms["covered entity"].definition.endswith("located within the United States")
    assert terms["United States person"].definition.endswith(
        "any person located in the United States"
    )


# --- a contract with every style ---------------------------------------------------------


def _sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) pairs of a Markdown document."""
    parts = re.split(r"^#+ (.*)$", text, flags=re.MULTILINE)
    return list(zip(["", *parts[1::2]], parts[0::2], strict=True))


@pytest.fixture(scope="module")
def contract() -> str:
    return (FIXTURES / "escrow_agreement.md").read_text(encoding="utf-8")


def _contract_definitions(contract: str) -> list[FoundDefinition]:
    found = []
    for heading, body in _sections(contract):
        found += find_definitions(body, in_definitions_section=is_definitions_heading(heading))
        _check_offsets(body, find_definitions(body, is_definitions_heading(heading)))
    return found


def test_contract_every_style(contract: str) -> None:
    found = _contract_definitions(contract)
    expected = [
        ("Agreement", "parenthetical", "This Source Code Escrow Agreement"),
        (
            "Harbourline",
            "parenthetical",
            "Harbourline Analytics Ltd, a company registered in Scotland",
        ),
        ("i-Escrow", "parenthetical", "Vantage Deposit Services LLC"),
        ("Recipient", "parenthetical", "the Receiving Party"),
        (
            "Business Day",
            "means",
            "a day other than a Saturday, a Sunday or a public holiday in Edinburgh",
        ),
        (
            "Deposit Materials",
            "means",
            "the source code of the Licensed Software, with its build scripts and design notes;"
            " including every Update delivered under clause 4",
        ),
        ("Release Event", "means", "any of the events listed in clause 6.2"),
        ("Update", "means", "any patch, correction or new version of the Licensed Software"),
        ("Licensed Software", "means", "the programs listed in Schedule 1 and every Update"),
        ("Verification Test", "means", "the procedure set out in Schedule 2"),
        ("Beneficiary", "means", "the person named as licensee in Schedule 1"),
        ("Licensee", "means", "the person named as licensee in Schedule 1"),
        ("Confidential Information", "pointer", "the meaning given in clause 9"),
        ("Escrow Fee", "means", "the annual fee stated in Schedule 3"),
        ("Deposit Window", "glossary", "the ten Business Days after each Update is released"),
        (
            "Source Escrow Manager",
            "glossary",
            "the employee of i-Escrow who keeps the register of deposits",
        ),
        (
            "Integrity Check",
            "table",
            "A comparison of the checksum of the deposited archive with the one supplied by"
            " Harbourline",
        ),
        ("Storage Site", "table", "The fire-proof vault that i-Escrow operates in Livingston"),
    ]
    assert [(f.term, f.style, f.definition) for f in found] == expected


def test_contract_outside_a_definitions_section(contract: str) -> None:
    found = find_definitions(contract)
    styles = {f.term: f.style for f in found}
    # no glossary lines, and no unquoted "Escrow Fee means", outside a definitions section
    assert "Deposit Window" not in styles and "Escrow Fee" not in styles and "Note" not in styles
    # a table whose header names Term and Meaning counts anywhere
    assert styles["Integrity Check"] == "table"
    deposit = dict(_sections(contract))["2. Deposit"]
    assert find_definitions(deposit) == []


# --- small cases --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "This means that the first deposit is due before any Update ships.",
        "Notices may be sent by means of the portal. A failed test means the deposit was bad.",
        "Note: i-Escrow may charge a fee for each repeated deposit.",
        'The officer said "the deposit was made late and the fee was waived" means nothing.',
        "Payment terms: thirty days from the invoice date.",
        "| Name | Role |\n|---|---|\n| Ann Smith | Escrow officer |",
    ],
)
def test_no_definitions_in_ordinary_prose(text: str) -> None:
    assert find_definitions(text) == []


def test_two_definitions_in_one_paragraph() -> None:
    text = 'In this clause "Fee" means the annual charge; and "Term" means five years. Then more.'
    found = find_definitions(text)
    assert [(f.term, f.definition) for f in found] == [
        ("Fee", "the annual charge"),
        ("Term", "five years"),
    ]


def test_item_whose_points_were_split_off() -> None:
    """The caller may pass "16. ‘main establishment’ means:" without its points (a), (b)."""
    text = "16. ‘main establishment’ means:\n\n"
    found = find_definitions(text, in_definitions_section=True)
    assert [(f.term, f.definition, f.start) for f in found] == [
        ("main establishment", "", text.index("main"))
    ]


def test_roman_sub_items_stay_in_the_definition() -> None:
    text = (
        '(a) The term "Information" means\n(i) financial data; and\n(ii) technical notes.\n'
        '(h) "Party" means a signatory.\n(i) "Purpose" means the proposed joint venture.\n'
    )
    found = find_definitions(text, in_definitions_section=True)
    assert [(f.term, f.definition) for f in found] == [
        ("Information", "(i) financial data; and (ii) technical notes"),
        ("Party", "a signatory"),
        ("Purpose", "the proposed joint venture"),
    ]


def test_apostrophe_inside_a_curly_quoted_term() -> None:
    found = find_definitions("“Lender’s Agent” means the bank named in Schedule 4.")
    assert [(f.term, f.definition) for f in found] == [
        ("Lender’s Agent", "the bank named in Schedule 4")
    ]


def test_unquoted_numbered_term_only_in_definitions_section() -> None:
    text = (
        "(3) Controller means the person who decides why data is processed.\n(4) This means that."
    )
    found = find_definitions(text, in_definitions_section=True)
    assert [(f.term, f.definition) for f in found] == [
        ("Controller", "the person who decides why data is processed")
    ]
    assert find_definitions(text) == []


def test_glossary_dash_lines() -> None:
    text = (
        "- Custodian - the bank that holds the assets\n- **Escrow Term**: three years\n"
        "- Control: means holding most of the voting rights\n"
        "By: ______________\nName: Ann Smith\nNote: see clause 2.\n"
    )
    found = find_definitions(text, in_definitions_section=True)
    assert [(f.term, f.definition, f.style) for f in found] == [
        ("Custodian", "the bank that holds the assets", "glossary"),
        ("Escrow Term", "three years", "glossary"),
        ("Control", "holding most of the voting rights", "glossary"),
    ]


def test_parenthetical_forms() -> None:
    text = (
        "The parties (collectively, the “Parties”) appoint the Northwind Holdings Limited "
        "(each a 'Custodian') as escrow holder under this deed (hereinafter ‘the Deed’)."
    )
    found = find_definitions(text)
    assert [(f.term, f.style) for f in found] == [
        ("Parties", "parenthetical"),
        ("Custodian", "parenthetical"),
        ("Deed", "parenthetical"),
    ]
    assert found[1].definition == "the Northwind Holdings Limited"


@pytest.mark.parametrize(
    "heading",
    [
        "Definitions",
        "DEFINITIONS",
        "Glossary",
        "Terms",
        "Interpretation",
        "Defined terms",
        "Definitions and interpretation",
        "SEC. 110. DEFINITIONS.",
        "Article 4 - Definitions",
        "1. DEFINITIONS",
        "## 1.1 Definitions:",
        "Section 2 — Glossary of terms",
        "CHAPTER 2 - DEFINITIONS",
        "Schedule 1 Interpretation",
        "2: Terms, Definitions and Examples",
        "3 Terms, definitions, symbols and abbreviated terms",
        "Definitions; construction",
        "B. Relevant Terms",
    ],
)
def test_definitions_headings(heading: str) -> None:
    assert is_definitions_heading(heading)


@pytest.mark.parametrize(
    "heading",
    [
        "Terms and Conditions",
        "Article 5 - Principles",
        "Deposit",
        "Definition of done tasks",
        "",
        "Examples",
        "Terms of use",
    ],
)
def test_other_headings(heading: str) -> None:
    assert not is_definitions_heading(heading)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Personal  Data", "personal data"),
        ("‘personal data’", '"personal data"'),
        ("cross-border processing", "cross border processing"),
        ("Cross‑Border\nProcessing", "cross-border processing"),
        ("Lender’s Agent", "lender's agent"),
    ],
)
def test_normalize_term(left: str, right: str) -> None:
    assert normalize_term(left) == normalize_term(right)


# --- emphasis, pointers, the parenthetical rule's noise ----------------------------


@pytest.mark.parametrize(
    "text",
    [
        '**"Confidential Information"** means all non-public information.',
        "**“Confidential Information”** means all non-public information.",
        '"**Confidential Information**" means all non-public information.',
        "**Confidential Information** means all non-public information.",
        "*Confidential Information* means all non-public information.",
        "_Confidential Information_ means all non-public information.",
        "<u>Confidential Information</u> means all non-public information.",
        "‘Confidential Information’ means all non-public information.",
        'As used in this Agreement, "Confidential Information" means all non-public information.',
    ],
)
def test_emphasised_and_quoted_terms(text: str) -> None:
    found = find_definitions(text, in_definitions_section=True)
    assert [(f.term, f.definition, f.style) for f in found] == [
        ("Confidential Information", "all non-public information", "means")
    ]
    assert text[found[0].start :].startswith("Confidential Information")


def test_markup_stays_out_of_definitions() -> None:
    found = find_definitions('**"Services"** means the cloud services in **Schedule I**.')
    assert [(f.term, f.definition) for f in found] == [
        ("Services", "the cloud services in Schedule I")
    ]


def test_emphasised_glossary_and_table_terms() -> None:
    text = (
        "- **Escrow Term**: three years\n\n| Term | Meaning |\n|---|---|\n"
        '| **"Storage Site"** | The vault in Livingston. |\n'
    )
    found = find_definitions(text, in_definitions_section=True)
    assert [(f.term, f.definition, f.style) for f in found] == [
        ("Escrow Term", "three years", "glossary"),
        ("Storage Site", "The vault in Livingston", "table"),
    ]


def test_aliases_by_comma_and_or() -> None:
    text = "1. “GitHub,” “We,” and “Us” refer to GitHub, Inc. and its affiliates."
    found = find_definitions(text, in_definitions_section=True)
    assert [f.term for f in found] == ["GitHub", "We", "Us"]
    assert {f.definition for f in found} == {"GitHub, Inc. and its affiliates"}


def test_copula_definitions_in_a_definitions_section() -> None:
    text = (
        '1. An "Account" represents your legal relationship with GitHub. “Organizations” are '
        'shared workspaces.\n\n**"Effective Date"** is the earlier of signing and first use.\n\n'
        '"Customer" is responsible for all taxes.\n'
    )
    found = find_definitions(text, in_definitions_section=True)
    assert [(f.term, f.definition) for f in found] == [
        ("Account", "represents your legal relationship with GitHub"),
        ("Organizations", "are shared workspaces"),
        ("Effective Date", "is the earlier of signing and first use"),
    ]
    assert find_definitions(text) == []


@pytest.mark.parametrize(
    "text",
    [
        '"Confidential Information" has the meaning given in Section 3.2.',
        '"Confidential Information" shall have the meaning set forth in Section 3.2.',
    ],
)
def test_pointer_style(text: str) -> None:
    found = find_definitions(text, in_definitions_section=True)
    assert [(f.term, f.style) for f in found] == [("Confidential Information", "pointer")]
    assert found[0].definition.startswith("the meaning") and "Section 3.2" in found[0].definition


def test_pointer_resolved_to_the_cited_section(tmp_path: Path) -> None:
    from hierdoc.pipeline.chunk import chunk_document
    from hierdoc.pipeline.convert import convert_file
    from hierdoc.pipeline.extract.document import extract_document
    from hierdoc.pipeline.structure import parse_sections
    from hierdoc.text.tokenizer import default_tokenizer

    text = (
        "# Services Agreement\n\n## 1. Definitions\n\n"
        '1.1 **"Confidential Information"** has the meaning given in Section 3.2.\n\n'
        '1.2 "Affiliate" shall have the meaning set forth in the DPA.\n\n'
        "## 3. Confidentiality\n\n3.1 Each party protects the other's data.\n\n"
        '3.2 "Confidential Information" means all non-public information of a party.\n'
    )
    (tmp_path / "agreement.md").write_text(text, encoding="utf-8")
    document = convert_file(tmp_path / "agreement.md")
    sections = parse_sections(document.text, document.title)
    chunks = chunk_document(document, sections, default_tokenizer())
    _, extraction = extract_document(sections, chunks)
    pointers = {d.term: d for d in extraction.definitions if d.style == "pointer"}
    resolved = pointers["Confidential Information"].definition
    assert resolved.startswith("the meaning given in Section 3.2 [")
    assert resolved.endswith("]: all non-public information of a party")
    assert pointers["Affiliate"].definition == "the meaning set forth in the DPA"


@pytest.mark.parametrize(
    ("text", "term"),
    [
        (
            "The European Data Protection Board established by this Regulation (the ‘Board’) "
            "should be able to issue guidance.",
            "Board",
        ),
        (
            "(c) adequate, relevant and limited to what is necessary in relation to the purposes "
            "for which they are processed (‘data minimisation’);\n",
            "data minimisation",
        ),
    ],
)
def test_parenthetical_noise_of_the_old_rule_is_gone(text: str, term: str) -> None:
    """The old rule named "this Regulation" and "the purposes for which they are processed"."""
    found = [f for f in find_definitions(text) if f.term == term]
    assert len(found) == 1
    assert found[0].definition not in (
        "this Regulation",
        "the purposes for which they are processed",
    )


@pytest.mark.parametrize(
    "text",
    [
        "Notices go by courier (as set out in “Schedule 2”).",
        "Click the button (e.g. “I AGREE”) to accept.",
        "Pay within thirty days of notice of any Modification (the “Period”) or stop use.",
        "GitHub may change the ToS from time to time (each a “Modification”) and notify.",
        "The Customer is controller from that date (the “Coverage Date”) onwards.",
        "Cal. Civ. Code §§1798.100 et seq. (“CCPA”), as amended.",
    ],
)
def test_parentheses_that_define_nothing(text: str) -> None:
    assert [f for f in find_definitions(text) if f.style == "parenthetical"] == []


@pytest.mark.parametrize(
    ("text", "term", "definition"),
    [
        (
            "Article 8(1) of the Charter of Fundamental Rights of the European Union "
            "(the ‘Charter’) provides that",
            "Charter",
            "the Charter of Fundamental Rights of the European Union",
        ),
        (
            "This Mutual Non-Disclosure Agreement (which incorporates the Cover Page) "
            "(“**MNDA**”) allows",
            "MNDA",
            "This Mutual Non-Disclosure Agreement",
        ),
        (
            "to access, collect, or otherwise use (“Access”) any content",
            "Access",
            "access, collect, or otherwise use",
        ),
        (
            "any ideas, know-how, suggestions, recommendations or any other feedback "
            "(collectively, “Feedback”), you agree",
            "Feedback",
            "any ideas, know-how, suggestions, recommendations or any other feedback",
        ),
        (
            "a separate end user license agreement (“EULA”).",
            "EULA",
            "end user license agreement",
        ),
    ],
)
def test_parenthetical_names(text: str, term: str, definition: str) -> None:
    found = [(f.term, f.definition) for f in find_definitions(text) if f.style == "parenthetical"]
    assert found == [(term, definition)]


def test_gdpr_parentheticals_right_and_complete() -> None:
    text = require(GDPR_MD).read_text(encoding="utf-8")
    boards = [f.definition for f in find_definitions(text) if f.term == "Board"]
    assert boards and all(b.startswith("The European Data Protection Board") for b in boards)
    by_term = {f.term: f.definition for f in find_definitions(text) if f.style == "parenthetical"}
    assert by_term["data minimisation"].startswith("adequate, relevant and limited")
    assert by_term["storage limitation"].startswith("kept in a form which permits")
    assert by_term["Charter"] == "the Charter of Fundamental Rights of the European Union"
    assert by_term["data subject"] == "an identified or identifiable natural person"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "A “contributor” is a copyright holder who authorizes use of the Program.",
            [("contributor", "is a copyright holder who authorizes use of the Program")],
        ),
        (
            "A contributor's “essential patent claims” are all patent claims owned by it.",
            [("essential patent claims", "are all patent claims owned by it")],
        ),
        (
            "“Additional permissions” are terms that supplement the terms of this License.",
            [("Additional permissions", "are terms that supplement the terms of this License")],
        ),
        (
            "This License is a kind of “copyleft”, which means that derivative works must be free.",
            [("copyleft", "that derivative works must be free")],
        ),
        (
            "Each licensee is addressed as “you”. Licensees may be individuals.",
            [("you", "Each licensee")],
        ),
        (
            "Rights granted against the Participant Software (meaning the Contributor Version"
            " where the Participant is a Contributor) shall terminate.",
            [
                (
                    "Participant Software",
                    "the Contributor Version where the Participant is a Contributor",
                )
            ],
        ),
        (
            "If You assert a patent claim against a Contributor (the Contributor against whom"
            ' You assert such claim is referred to as "Participant") alleging infringement.',
            [("Participant", "the Contributor against whom You assert such claim")],
        ),
        (
            "Terms apply. A compilation of a work with other separate works, in or on a volume"
            " of a\nstorage medium, is called an “aggregate” if the copyright is not used.",
            [
                (
                    "aggregate",
                    "A compilation of a work with other separate works, in or on a volume of a"
                    " storage medium if the copyright is not used",
                )
            ],
        ),
        (
            'An HTTP-to-HTTP proxy is called a "transforming proxy" if it is designed to modify'
            " messages. For example, a malware filter.",
            [("transforming proxy", "An HTTP-to-HTTP proxy if it is designed to modify messages")],
        ),
        (
            'HTTP is a protocol. An HTTP "client" is a program that establishes a connection.'
            ' The TLS "server" is a program that accepts it.',
            [
                ("client", "is a program that establishes a connection"),
                ("server", "is a program that accepts it"),
            ],
        ),
        (
            "To “grant” such a patent license to a party means to make such an agreement.",
            [("grant", "to make such an agreement")],
        ),
        (
            'The terms "SHALL" and "SHALL NOT" indicate requirements to be followed strictly.',
            [
                ("SHALL", "requirements to be followed strictly"),
                ("SHALL NOT", "requirements to be followed strictly"),
            ],
        ),
        (
            'The term "age_value" denotes the value of the Age header field.',
            [("age_value", "the value of the Age header field")],
        ),
        (
            "Header fields that describe the payload are referred to as "
            '"payload header fields". This is called "double keying".',
            [("payload header fields", "Header fields that describe the payload")],
        ),
        (
            'The terms "SHOULD" and "SHOULD NOT" indicate that one option is recommended.',
            [
                ("SHOULD", "that one option is recommended"),
                ("SHOULD NOT", "that one option is recommended"),
            ],
        ),
        (
            '"Massive Multiauthor Collaboration Site" (or "MMC Site") means any web server.',
            [
                ("Massive Multiauthor Collaboration Site", "any web server"),
                ("MMC Site", "any web server"),
            ],
        ),
    ],
)
def test_prose_definitions_of_licences_and_standards(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert [(f.term, f.definition) for f in find_definitions(text)] == expected


@pytest.mark.parametrize(
    "text",
    [
        "The **Agreement** includes an additional claim for any action.",
        "**Customer** is responsible for all taxes that apply to any Fee.",
        '"Customer" represents and warrants that it is not a resident of an embargoed country.',
        "The Customer “Account” is locked after five attempts.",
        'The presence of the keyword "trailers" indicates that the client accepts trailers.',
        'A "Trailer" field value denotes whether the sender will send the fields.',
        'Some servers implement the explicitly negotiated ("Keep-Alive") version of it.',
        'Some servers implement the explicitly negotiated\n   ("Keep-Alive") version of it.',
        'Proxies remove any non-identity CTE ("quoted-printable" or "base64") encoding.',
    ],
)
def test_sentences_about_a_term_are_no_definitions(text: str) -> None:
    assert find_definitions(text) == []


def test_a_later_definition_in_an_item_ends_with_its_sentence() -> None:
    text = (
        "1. “Content” refers to content featured on the Website. "
        '"Content" also includes Services. “User-Generated Content” is Content written by'
        " our Users.\n"
    )
    found = find_definitions(text, in_definitions_section=True)
    assert [(f.term, f.definition) for f in found][1:] == [
        ("Content", "Services"),
        ("User-Generated Content", "is Content written by our Users"),
    ]


def test_a_definitions_title_opening_the_text_counts_as_a_definitions_section() -> None:
    text = "APPENDIX A\n\nTERMS AND DEFINITIONS\n\nACCREDITATION: The official decision.\n"
    assert [(f.term, f.style) for f in find_definitions(text)] == [("ACCREDITATION", "glossary")]
    assert find_definitions("Some text.\n\nACCREDITATION: The official decision.\n") == []


@pytest.mark.parametrize(
    ("text", "term", "definition"),
    [
        (
            "To the extent the California Consumer Privacy Act, Cal. Civ. Code § 1798.100 et seq"
            " (“**CCPA**”) applies, the parties agree.",
            "CCPA",
            "the California Consumer Privacy Act, Cal. Civ. Code § 1798.100 et seq",
        ),
        (
            "You agree that any non-public Beta Preview information we give you, such as"
            " information about a private Beta Preview, will be considered GitHub’s"
            " confidential information (collectively, “Confidential Information”), regardless.",
            "Confidential Information",
            "any non-public Beta Preview information we give you, such as information about a"
            " private Beta Preview, will be considered GitHub’s confidential information",
        ),
        (
            "This Agreement applies to the following GitHub offerings, as further defined below"
            " (collectively, the **“Products”**):\n\n- the Service\n",
            "Products",
            "the following GitHub offerings",
        ),
        (
            "the lead authority should decide whether it will handle the case pursuant to the"
            " provision on cooperation between the lead supervisory authority and other"
            " supervisory authorities concerned (‘one-stop-shop mechanism’), or whether",
            "one-stop-shop mechanism",
            "the provision on cooperation between the lead supervisory authority and other"
            " supervisory authorities concerned",
        ),
    ],
)
def test_parenthetical_names_in_real_documents(text: str, term: str, definition: str) -> None:
    found = [(f.term, f.definition) for f in find_definitions(text) if f.style == "parenthetical"]
    assert found == [(term, definition)]


@pytest.mark.parametrize(
    "text",
    [
        "BUSINESS SALE NON-DISCLOSURE AGREEMENT between Acme Ltd and the buyer of the"
        " Business (the “Business”)\nAND the seller",
        "NON-DISCLOSURE AGREEMENT made this day between Nordic Partners ApS, Copenhagen\n"
        "WHEREAS the Recipient wishes to view _ _ _ _ documents regarding _ _ _ _ _ _"
        " (the “Transaction”)\n",
    ],
)
def test_preamble_titles_and_blanks_name_nothing(text: str) -> None:
    for item in find_definitions(text):
        assert "AGREEMENT" not in item.definition and "_ _" not in item.definition


def test_define_shows_what_a_pointer_points_to(tmp_path: Path) -> None:
    """`hierdoc define` on a bold-quoted contract term: the definition and the pointer to it."""
    from hierdoc import Index
    from hierdoc.config import Settings
    from tests.hash_embedder import HashEmbedder

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "agreement.md").write_text(
        "# Services Agreement\n\n## 1. Definitions\n\n"
        '1.1 **"Confidential Information"** has the meaning given in Section 3.2.\n\n'
        "## 3. Confidentiality\n\n3.1 Each party protects the other's data.\n\n"
        '3.2 **"Confidential Information"** means all non-public information of a party.\n',
        encoding="utf-8",
    )
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:  # type: ignore[arg-type]
        index.ingest([tmp_path / "docs"])
        lookup = index.define("confidential information")
    texts = sorted(d.definition for d in lookup.definitions)
    assert texts[0] == "all non-public information of a party"
    assert texts[1].startswith("the meaning given in Section 3.2 [")
    assert texts[1].endswith("]: all non-public information of a party")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "This Agreement is made by TROY HOLDINGS INTERNATIONAL, INC. (“Seller”) and the buyer.",
            [("Seller", "TROY HOLDINGS INTERNATIONAL, INC.")],
        ),
        (
            "between X Vision Incorporation and SUN PHARMA LTD., a company registered in India,"
            " with its office at Andheri, Mumbai, India (the “Potential Relationship Party”). Each",
            [("Potential Relationship Party", "SUN PHARMA LTD.")],
        ),
        (
            "Microsoft Corporation, a Washington corporation (“Microsoft”), and you agree.",
            [("Microsoft", "Microsoft Corporation, a Washington corporation")],
        ),
        (
            "WHEREAS, in connection with its operations, each of the Company and Investor (each"
            ' a "Party" and, collectively, the "Parties") may disclose information.',
            [("Party", "the Company and Investor"), ("Parties", "the Company and Investor")],
        ),
        (
            "Information disclosed by one Party (“Disclosing Party”) to the other (“Receiving"
            " Party”) is protected.",
            [("Disclosing Party", "one Party"), ("Receiving Party", "the other")],
        ),
        (
            "If CSPs process attributes for purposes other than identity proofing,"
            " authentication, or attribute assertion (collectively “identity service”), they"
            " shall.",
            [("identity service", "identity proofing, authentication, or attribute assertion")],
        ),
    ],
)
def test_parties_and_collective_names_of_ndas(text: str, expected: list[tuple[str, str]]) -> None:
    found = [(f.term, f.definition) for f in find_definitions(text) if f.style == "parenthetical"]
    assert found == expected


@pytest.mark.parametrize(
    "text",
    [
        "HopFed shall be merged with and into First Financial (the “Merger”) effective today.",
        "information regarding your review of or interest in, the Company (the “Materials”)"
        " and more.",
        "Company acknowledges that certain Confidential Information is extremely sensitive for"
        ' Fox ("Highly Confidential Information") and shall be protected.',
        'and\nMr./Mrs. …\n(hereinafter referred to as "Mr./Mrs. …")\nWHEREAS, the parties.',
        'studies or documents that reflect such information (the "Confidential Information,"'
        " which shall include this Agreement). The parties agree.",
    ],
)
def test_nda_parentheses_that_name_nothing_they_hold(text: str) -> None:
    assert find_definitions(text) == []


def test_a_parenthesis_closing_a_definition_names_its_noun_phrase() -> None:
    text = (
        "1. 'personal data' means any information relating to an identified or identifiable"
        " natural person ('data subject');\n2. 'processing' means any operation.\n"
    )
    parenthetical = [(f.term, f.definition) for f in find_definitions(text) if f.style != "means"]
    assert parenthetical == [("data subject", "an identified or identifiable natural person")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'A "Transparent" copy of the Document means a machine-readable copy.',
            [("Transparent", "a machine-readable copy")],
        ),
        (
            '"Massive Multiauthor Collaboration" (or "MMC") contained in the site means any set'
            " of works.",
            [
                ("Massive Multiauthor Collaboration", "any set of works"),
                ("MMC", "any set of works"),
            ],
        ),
        (
            'An MMC is "eligible for relicensing" if it is licensed under this License. Then more.',
            [("eligible for relicensing", "if it is licensed under this License")],
        ),
    ],
)
def test_licence_definitions(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(f.term, f.definition) for f in find_definitions(text)] == expected


def test_a_definition_ends_before_the_next_item_of_a_flattened_list() -> None:
    text = (
        "e) “City” means The City of Winnipeg. f) “Permitted Use” means private evaluation by"
        " the Confidant. g) “Third Party” means any Person other than City or Confidant. 2."
        " Access/Use of Confidential Information: Subject to the terms, the Confidant may."
    )
    found = [(f.term, f.definition) for f in find_definitions(text)]
    assert found == [
        ("City", "The City of Winnipeg"),
        ("Permitted Use", "private evaluation by the Confidant"),
        ("Third Party", "any Person other than City or Confidant"),
    ]


def test_capitalised_sub_items_stay_in_their_definition() -> None:
    text = (
        '1. "Confidential Information" means: (a) Technical data; (b) Business plans; and (c)'
        " Customer lists.\n"
    )
    (found,) = find_definitions(text)
    assert found.definition == "(a) Technical data; (b) Business plans; and (c) Customer lists"


def test_a_clause_opening_a_numbered_item_is_no_unquoted_term() -> None:
    text = (
        "(1) Adverse action means a refusal to grant credit.\n\n"
        "(2) The term does not include a change in the terms of an account.\n\n"
        "(3) Nonpublic personal information does not include publicly available data.\n\n"
        "(4) In communications disseminated through video, means that the disclosures appear.\n"
    )
    found = find_definitions(text, in_definitions_section=True)
    assert [(f.term, f.definition) for f in found] == [
        ("Adverse action", "a refusal to grant credit")
    ]


def test_a_definition_given_by_the_points_after_its_dash_runs_through_them() -> None:
    text = (
        "In this division, the term “preservation” or “historic preservation” includes—\n\n"
        "(1) identification, evaluation and documentation;\n\n"
        "(2) education and training; or\n\n"
        "(3) any combination of the foregoing activities.\n\n"
        "The Secretary shall report each year.\n"
    )
    found = {f.term: f.definition for f in find_definitions(text)}
    expected = (
        "(1) identification, evaluation and documentation; (2) education and training; "
        "or (3) any combination of the foregoing activities"
    )
    assert found == {"preservation": expected, "historic preservation": expected}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '"inbound" means "traveling toward the origin server", and "outbound" means '
            '"traveling toward the user agent".',
            [
                ("inbound", '"traveling toward the origin server"'),
                ("outbound", '"traveling toward the user agent"'),
            ],
        ),
        ('All 1xx and 204 responses "MUST NOT" include a message-body.', []),
        ('Status codes beginning with the digit "5" indicate cases in which the server erred.', []),
        ('The octets ("and") denote a separator.', []),
    ],
)
def test_quoted_words_that_are_no_terms(text: str, expected: list[tuple[str, str]]) -> None:
    assert [(f.term, f.definition) for f in find_definitions(text)] == expected


def test_a_dotted_abbreviation_does_not_end_the_definition() -> None:
    text = (
        "(3) Commissioner The term “Commissioner” means the Commissioner of U.S. Customs and "
        "Border "
        "Protection, as described in section 411. The Secretary shall report.\n"
    )
    found = find_definitions(text)
    assert [(f.term, f.definition) for f in found] == [
        (
            "Commissioner",
            "the Commissioner of U.S. Customs and Border Protection, as described in section 411",
        )
    ]


def test_the_term_with_its_acronym_in_parentheses_refers_to() -> None:
    """RFC 3986: 'The term "Uniform Resource Locator" (URL) refers to the subset of URIs
    that ...': the acronym in parentheses, unquoted, does not hide the definition."""
    text = (
        'A URI can be a locator, a name, or both.  The term "Uniform Resource Locator"\n'
        "   (URL) refers to the subset of URIs that provide a means of locating the\n"
        "   resource.\n"
    )
    found = _by_term(find_definitions(text))
    assert found["Uniform Resource Locator"].definition.startswith("the subset of URIs that")


VALUES = {
    "The “Discount Rate” is [100 minus the discount]%.": [
        ("Discount Rate", "is [100 minus the discount]%")
    ],
    'The "Valuation Cap" is $10,000,000.': [("Valuation Cap", "is $10,000,000")],
    "The “Discount Rate” is 80%.": [("Discount Rate", "is 80%")],
}


def test_a_quoted_term_is_a_value_or_an_amount() -> None:
    found = {text: [(d.term, d.definition) for d in find_definitions(text)] for text in VALUES}
    assert found == VALUES


def test_a_quoted_word_followed_by_a_count_is_no_definition() -> None:
    assert find_definitions('The word "Section" is 7 letters long.\n') == []
    assert find_definitions('The "Extension data" is 0 bytes unless negotiated.\n') == []
