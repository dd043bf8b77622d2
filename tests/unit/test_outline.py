"""Structure from numbering, on small texts written for each rule."""

from hierdoc.pipeline.structure import parse_sections


def _ids(text: str) -> list[str]:
    return [s.section_id for s in parse_sections(text, "Doc") if s.section_id != "preamble"]


def _headings(text: str) -> list[tuple[str, str]]:
    return [(s.section_id, s.heading) for s in parse_sections(text, "Doc")[1:]]


def test_plain_text_regulation_nests_chapter_section_article_paragraph_point() -> None:
    text = """CHAPTER I
General provisions

Article 1
Scope

1. This Act applies to:

(a)
goods;

(b)
services.

2. It does not apply to gifts.

CHAPTER II
Rights

Section 1
Access

Article 2
Right of access

The buyer may ask for a copy.
"""
    sections = {s.section_id: s for s in parse_sections(text, "Act")}
    assert list(sections)[1:] == [
        "chapter-1",
        "article-1",
        "article-1-1",
        "article-1-1-a",
        "article-1-1-b",
        "article-1-2",
        "chapter-2",
        "section-1",
        "article-2",
    ]
    assert sections["article-1-1-b"].path == ("chapter-1", "article-1", "article-1-1")
    assert sections["article-2"].parent_chain == (
        "CHAPTER II - Rights",
        "Section 1 - Access",
        "Article 2 - Right of access",
    )


def test_us_bill_sections_with_subsections() -> None:
    text = """TITLE I - GENERAL
SEC. 101. SHORT TITLE.
(a) IN GENERAL.—This Act may be cited as the Example Act.
(b) REFERENCES.—A reference to this Act includes:
(1) its regulations;
(2) its guidance, including—
(A) bulletins; and
(B) notices.
SEC. 102. FINDINGS.
Congress finds that examples help.
"""
    assert _ids(text) == [
        "title-1",
        "section-101",
        "section-101-a",
        "section-101-b",
        "section-101-b-1",
        "section-101-b-2",
        "section-101-b-2-a",
        "section-101-b-2-b",
        "section-102",
    ]
    heading = {s.section_id: s.heading for s in parse_sections(text, "Bill")}
    assert heading["section-101-a"] == "(a) IN GENERAL"


def test_no_false_sections() -> None:
    text = """Annual report

2020 was a year of change for the plan.
The fund returned 4.5 percent.
The steps were 1. collect, 2. review and 3. approve.

| year | 1.1 | 2.2 |
|------|-----|-----|
| 2019 | 3.5 | 4.5 |

(c) is not a start, and (2) neither.
Section 5 of the Act applies as before.
"""
    assert _ids(text) == []


def test_i_after_h_is_a_letter_and_i_after_a_list_item_is_roman() -> None:
    points = "\n".join(f"({c}) point {c};" for c in "abcdefghij")
    letters = _ids("Article 9\n\n1. Processing is allowed where:\n" + points + "\n")
    assert "article-9-1-i" in letters and "article-9-1-j" in letters
    roman = _ids(
        "Article 3\n\n1. The terms are:\n(a) first, which covers:\n(i) one;\n(ii) two;\n"
        "(iii) three;\n(b) second.\n"
    )
    assert roman == [
        "article-3",
        "article-3-1",
        "article-3-1-a",
        "article-3-1-a-i",
        "article-3-1-a-ii",
        "article-3-1-a-iii",
        "article-3-1-b",
    ]


def test_table_of_contents_is_not_structure() -> None:
    text = """TABLE OF CONTENTS
TITLE I - GENERAL
Chapter 1 - Scope
TITLE II - RULES
Chapter 1 - Duties

TITLE I - GENERAL
CHAPTER 1 - SCOPE
SEC. 101. SCOPE.
This Act covers examples.
TITLE II - RULES
CHAPTER 1 - DUTIES
SEC. 201. DUTIES.
Everyone shall comply.
"""
    assert _ids(text) == [
        "title-1",
        "title-1-chapter-1",
        "section-101",
        "title-2",
        "title-2-chapter-1",
        "section-201",
    ]


def test_markdown_headings_above_numbered_text() -> None:
    text = """# Services Agreement

## 1. Definitions

1.1 "Services" means the work in Schedule A.

1.2 "Fees" means the amounts in clause 4.

## 2. Payment

The Client pays within 30 days.
"""
    assert _ids(text) == ["section-1", "section-1-1", "section-1-2", "section-2"]


def test_decimal_clauses_in_plain_text_are_sections() -> None:
    text = (
        "1. DEFINITIONS\n1.1 Agreement means this document.\n1.2 Party means a signatory.\n"
        "2. TERM\n2.1 This Agreement lasts one year.\n"
    )
    assert _ids(text) == ["section-1", "section-1-1", "section-1-2", "section-2", "section-2-1"]


def test_an_item_or_two_missing_does_not_end_the_list() -> None:
    """ "(k)" lost in conversion (or reserved): "(l)" and "(m)" are still the paragraphs
    after "(j)"; further apart, an item is text."""
    items = "\n".join(f"({c}) Paragraph {c}." for c in "abcdefghij")
    ids = _ids(f"§ 39.13 Directives\n\n{items}\n(l) Sensor test.\n(m) Reporting.\n")
    assert ids[-3:] == ["section-39-13-j", "section-39-13-l", "section-39-13-m"]
    ids = _ids("Article 4\n\n1. The terms are:\n(a) first;\n(b) second;\n(e) fifth;\n(f) sixth.\n")
    assert ids == ["article-4", "article-4-1", "article-4-1-a", "article-4-1-b", "article-4-1-e",
                   "article-4-1-f"]  # fmt: skip
    far = _ids("Article 4\n\n1. The terms are:\n(a) first;\n(b) second;\n(f) sixth.\n")
    assert far == ["article-4", "article-4-1", "article-4-1-a", "article-4-1-b"]


def test_an_i_followed_by_ii_opens_a_roman_list_even_where_it_could_follow_h() -> None:
    items = "\n".join(f"({c}) Paragraph {c}." for c in "abcdefgh")
    ids = _ids(
        f"§ 39.13 Directives\n\n{items}\n(1) one under h;\n(i) roman one;\n(ii) roman two.\n"
        "(i) Minimum equipment list.\n(j) Jay.\n"
    )
    assert ids[-6:] == [
        "section-39-13-h",
        "section-39-13-h-1",
        "section-39-13-h-1-i",
        "section-39-13-h-1-ii",
        "section-39-13-i",
        "section-39-13-j",
    ]


def test_a_short_title_on_a_numbers_line_is_the_heading_and_body_text_is_not() -> None:
    """As an RFC or a licence writes its sections: "1.  Introduction" alone on its line is
    the heading of section 1; "2.1 The licensee shall..." running on, or a sentence, is a
    numbered paragraph whose heading is its number."""
    text = (
        "1.  Introduction\n\n   This document defines HTTP.\n\n"
        "1.1.  Requirements Notation\n\n   The key words are defined in RFC 2119.\n\n"
        "2.  Conformance\n\n"
        "2.1 The licensee shall pay the fees in the table below within thirty\n"
        "    days of the invoice.\n\n"
        "2.2 Notices are given in writing.\n\n"
        "3. Termination\n"
    )
    assert _headings(text) == [
        ("section-1", "1. Introduction"),
        ("section-1-1", "1.1 Requirements Notation"),
        ("section-2", "2. Conformance"),
        ("section-2-1", "2.1"),
        ("section-2-2", "2.2"),
        ("section-3", "3. Termination"),
    ]
    sections = parse_sections(text, "RFC")[1:]
    assert sections[0].heading_line == "1.  Introduction\n"
    assert sections[0].body.startswith("\n   This document defines HTTP.")
    assert sections[3].heading_line == "" and sections[3].body.startswith("2.1 The licensee")
    assert "".join(s.heading_line + s.body for s in parse_sections(text, "RFC")) == text


def test_titles_may_start_with_a_digit_or_lower_case_and_clauses_may_count_from_zero() -> None:
    text = (
        '0.  Definitions\n\n   "Software" means the program.\n\n'
        "1.  Status Codes\n\n"
        "1.1.  100 Continue\n\n   The server has received the request headers.\n\n"
        "1.2.  https URI Scheme\n\n   The scheme is defined here.\n\n"
        "2.  Scope\n"
    )
    assert _headings(text) == [
        ("section-0", "0. Definitions"),
        ("section-1", "1. Status Codes"),
        ("section-1-1", "1.1 100 Continue"),
        ("section-1-2", "1.2 https URI Scheme"),
        ("section-2", "2. Scope"),
    ]


def test_point_zero_clauses_head_their_decimal_clauses() -> None:
    text = (
        "1.0  DEFINITIONS\n\n   1.1 Commercial Use means distribution of the\n   Original Code."
        "\n\n   1.2 Contributor means each entity.\n\n2.0  SOURCE CODE LICENSE\n\n"
        "   2.1 The Original Code: a grant.\n"
    )
    sections = parse_sections(text, "Licence")[1:]
    assert [(s.section_id, s.path) for s in sections] == [
        ("section-1-0", ()),
        ("section-1-1", ("section-1-0",)),
        ("section-1-2", ("section-1-0",)),
        ("section-2-0", ()),
        ("section-2-1", ("section-2-0",)),
    ]


def test_a_reserved_range_of_sections_is_one_section() -> None:
    text = (
        "§ 41.116  Deferred payment\n\n   Text here.\n\n§§ 41.117–41.118  [Reserved]\n\n"
        "§ 41.119  Corporate surety\n\n   More text.\n\n   Section 6 [defines 426]\n"
    )
    assert _ids(text) == ["section-41-116", "section-41-117-41-118", "section-41-119"]


def test_capital_letter_points_and_a_skipped_letter_go_on_as_letters() -> None:
    text = """1.  APPLICABILITY

This License applies to any manual.

2.  MODIFICATIONS

You must do these things in the Modified Version:

   A. Use in the Title Page a title distinct from that of the Document.

   B. List on the Title Page, as authors, one or more persons.

   C. State on the Title page the name of the publisher.

   D. Preserve all the copyright notices of the Document.

   E. Add an appropriate copyright notice for your modifications.

   F. Include a license notice.

   G. Preserve in that license notice the full lists of Invariant Sections.

   I. Preserve the section Entitled "History".

   J. Preserve the network location, if any.

3.  COMBINING DOCUMENTS

You may combine the Document with other documents.
"""
    assert _ids(text) == [
        "section-1",
        "section-2",
        "section-2-a",
        "section-2-b",
        "section-2-c",
        "section-2-d",
        "section-2-e",
        "section-2-f",
        "section-2-g",
        "section-2-i",
        "section-2-j",
        "section-3",
    ]


def test_lettered_recitals_before_the_clauses_are_no_points() -> None:
    text = """NON-DISCLOSURE AGREEMENT
(1) NSK Europe Limited, whose registered office is at Belmont Place.
(2) The Supplier, whose registered office is at its address.
BACKGROUND
A. The Parties intend to enter into discussions relating to the Purpose.
B. The Parties have agreed to comply with this Agreement.
THE PARTIES AGREE AS FOLLOWS:
1. DEFINITIONS
Affiliate: any entity that controls a Party.
2. CONFIDENTIALITY
The Receiving Party shall keep the Confidential Information secret.
"""
    ids = _ids(text)
    assert not [i for i in ids if i.endswith(("-a", "-b"))], ids


def test_titles_nest_in_divisions_and_a_contents_line_naming_a_section_is_no_block() -> None:
    text = """DIVISION A— BUDGET AGREEMENT

SECTION 1. SHORT TITLE AND TABLE OF CONTENTS

(b) Table of Contents The table of contents for this Act is as
follows: DIVISION A— BUDGET Sec. 1. Short title. TITLE I— BUDGET
ENFORCEMENT Sec. 101. Amendments. Sec. 111. Resolution.
Subtitle B— Establishing a Congressional Budget Sec. 111.
Fiscal year 2014 budget resolution. Sec. 112. Limitation.
Subtitle C— Technical Corrections and
Other Amendments Sec. 121. Corrections.

TITLE I— BUDGET ENFORCEMENT

Subtitle A— Amendments

SEC. 101. AMENDMENTS

Text of the section.

Subtitle B— Establishing a Congressional Budget

SEC. 111. FISCAL YEAR 2014 BUDGET RESOLUTION

Text of the section.

DIVISION B— MEDICARE

TITLE I— MEDICARE EXTENDERS

SEC. 1101. EXTENSION

Text of the section.
"""
    tree = {s.section_id: s.path for s in parse_sections(text, "Act")}
    assert tree["section-101"] == ("division-a", "division-a-title-1", "subtitle-a")
    assert tree["section-111"] == ("division-a", "division-a-title-1", "subtitle-b")
    assert tree["section-1101"] == ("division-b", "division-b-title-1")
    assert not {"division-a-subtitle-b", "subtitle-c"} & set(tree)  # lines of the contents


def test_a_title_closed_by_a_full_stop_is_the_clause_heading() -> None:
    """A licence in plain text writes "1. Definitions." alone and "2. Grant of Copyright
    License. Subject to ..." running on: the words before the full stop are the title. A
    sentence ("Name of the licensor.") or an abbreviation ("No.") is no title."""
    text = (
        "Example Licence\n\n"
        "   1. Definitions.\n\n"
        '      "Work" shall mean the work.\n\n'
        "   2. Grant of Copyright License. Subject to the terms of this\n"
        "      License, each Contributor grants a licence.\n\n"
        "   3. Name of the licensor. It is given below.\n\n"
        "   4. No. 5 of the schedule applies.\n"
    )
    assert _headings(text) == [
        ("section-1", "1. Definitions"),
        ("section-2", "2. Grant of Copyright License"),
        ("section-3", "3."),
        ("section-4", "4."),
    ]
    sections = parse_sections(text, "Licence")
    assert "".join(s.heading_line + s.body for s in sections) == text
    assert sections[2].body.startswith("   2. Grant of Copyright License. Subject to")


def test_points_in_a_block_quote_are_points() -> None:
    """An HTML page indents its points in a block quote: "> a. ..." is point (a)."""
    text = (
        "## Section 2 - Scope.\n\n"
        "> a. **License grant**.\n>\n> > 1. The Licensor grants You a licence.\n"
        ">\n> b. **Other rights**. Moral rights are not licensed.\n"
    )
    ids = [s.section_id for s in parse_sections(text, "Licence")]
    assert ids[-3:] == ["section-2-a", "section-2-a-1", "section-2-b"]


def test_an_indented_list_item_does_not_go_on_from_titled_clauses() -> None:
    """RFC 6455's "4.1. Client Requirements" lists "   1.   The handshake MUST ..." up to
    "   17.": item 5 is no sibling of "4.  Opening Handshake"; the next clause is "5.  Data
    Framing", set at the clauses' indent with a title."""
    items = "".join(
        f"   {n}.   The request MUST carry field {n} of the handshake as\n        shown.\n\n"
        for n in range(1, 6)
    )
    text = (
        "1.  Introduction\n\n   Text.\n\n2.  Requirements\n\n   Text.\n\n"
        f"2.1.  Client Requirements\n\n   The client must:\n\n{items}"
        "2.2.  Server Requirements\n\n   Text.\n\n3.  Data Framing\n\n   Text.\n"
    )
    assert _headings(text) == [
        ("section-1", "1. Introduction"),
        ("section-2", "2. Requirements"),
        ("section-2-1", "2.1 Client Requirements"),
        ("section-2-2", "2.2 Server Requirements"),
        ("section-3", "3. Data Framing"),
    ]


def test_a_clause_title_over_a_rule_is_its_heading() -> None:
    """The SPDX text of the MPL underlines "1. Definitions" with dashes and closes the
    boxed "6. Disclaimer of Warranty" with a row of asterisks: both are titles."""
    text = (
        '1. Definitions\n--------------\n\n1.1. "Contributor" means each person.\n\n'
        "*****************\n* * *\n2. Disclaimer of Warranty\n* * * * * * * *\n\n"
        "Covered Software is provided as is.\n"
    )
    assert _headings(text) == [
        ("section-1", "1. Definitions"),
        ("section-1-1", "1.1"),
        ("section-2", "2. Disclaimer of Warranty"),
    ]


CHARTER = """**Technical Charter (the "Charter")**

1.  **Mission and Scope of the Project**

    1.  The mission of the Project is to build a platform.

    2.  The scope of the Project includes collaborative development.

2.  **Ecosystem Committee**

    1. The Ecosystem Committee will be responsible for:

        1. coordinating collaboration among Sub-projects;

        2. approving new, and archiving existing, Sub-projects;

        3. coordinating any marketing, events, or communications regarding the Project;

        4. creating, maintaining and amending project lifecycle procedures and processes; and

        5. such other matters related to the technical role of the EC.

3. **Technical Steering Committees**

    1. A Technical Steering Committee will oversee each Sub-project.

4. **General Rules and Operations.**

    1. The Project will engage in the work of the Project in a professional manner.
"""


def test_bold_titles_of_a_nested_markdown_list_are_its_clauses() -> None:
    """A charter written as one nested Markdown list: "1.  **Mission and Scope**" is clause
    1 titled in bold, and the indented items under it, even one whose text reads like a
    title and skips values ("4. creating, maintaining ...; and"), are its text."""
    sections = parse_sections(CHARTER, "Technical Charter")
    headings = {s.section_id: s.heading for s in sections}
    assert headings["section-1"] == "1. Mission and Scope of the Project"
    assert headings["section-2"] == "2. Ecosystem Committee"
    assert headings["section-3"] == "3. Technical Steering Committees"
    assert headings["section-4"] == "4. General Rules and Operations"
    assert "coordinating" not in " ".join(headings.values())


TERMS = """# Terms & Conditions

### 2. Use of the Materials

The license granted herein is nonexclusive.

   *   **2.1.** Except as you may be expressly permitted, you may not use any Materials.

   *   **2.2.** You may include insubstantial portions of Materials in reports.

### 7. Limitation of Liability

   *   **7.1.** UNDER NO CIRCUMSTANCES SHALL WE BE LIABLE TO YOU.

   *   **7.2** If we were held liable, our liability is limited to the fees you paid.
"""


def test_bulleted_clauses_with_bold_numbers_are_subsections() -> None:
    """Terms of service in Markdown write each clause as a bullet opening with its number in
    bold: "*   **2.1.** Except ..." is clause 2.1 of "### 2. Use of the Materials"."""
    sections = {s.section_id: s for s in parse_sections(TERMS, "Terms & Conditions")}
    assert {"section-2-1", "section-2-2", "section-7-1", "section-7-2"} <= set(sections)
    assert sections["section-2-2"].path[-1] == "section-2"
    assert sections["section-7-2"].path[-1] == "section-7"


POINTS = """# Example Public License

## 2. GRANT OF RIGHTS

* a) Subject to the terms of this Agreement, each Contributor grants a copyright licence.
* b) Subject to the terms of this Agreement, each Contributor grants a patent licence.

## 3. REQUIREMENTS

3.1 If a Contributor Distributes the Program in any form, then:

* a) the Program must also be made available as Source Code; and
* b) the Contributor may Distribute the Program under another license.
"""


def test_bullets_that_open_with_a_points_label_are_points() -> None:
    """A licence page hides its list bullets and types the labels ("a)", "b)"); converted,
    each item is "* a) ...": point 2(a), and 3.1(a) under a numbered paragraph."""
    ids = {s.section_id for s in parse_sections(POINTS, "Example Public License")}
    assert {"section-2-a", "section-2-b", "section-3-1-a", "section-3-1-b"} <= ids


RULES = """# Example Project Rules

## 9. Records and Permanence

**9.1** *Records*. All decisions of the Board are kept on the project's tools.

**9.2** *Archival Permanence*. The Foundation keeps every record, but is not bound to:

(a) keep its own existence, nor

(b) keep any record of a closed project for ever.

**9.3** [*Minimum Membership*][terms], where the rules require it, means two Sponsors.

**9.4** [**Meetings**](https://example.org/meetings#calls) of the Board are called by the Chair.

**9.5**. Each person making a contribution must be bound by the agreement.

## Appendix A-1: Individual Agreement

The form of the individual agreement.

[terms]: https://example.org/terms
"""


def test_markdown_clauses_with_emphasis_or_links_after_their_bold_number_are_clauses() -> None:
    """A bold clause number followed by an italic run-in title, a link around the opening
    words, or a full stop after the bold: clauses 9.1 to 9.5 of clause 9, titled when the
    text opens with a title, and their points under them."""
    sections = {s.section_id: s for s in parse_sections(RULES, "Example Project Rules")}
    assert {f"section-9-{n}" for n in range(1, 6)} <= set(sections)
    assert sections["section-9-1"].heading == "9.1 Records"
    assert sections["section-9-2"].heading == "9.2 Archival Permanence"
    assert sections["section-9-2-b"].path[-2:] == ("section-9", "section-9-2")
    assert sections["section-9-3"].body.startswith("**9.3** [*Minimum")  # text as written
    assert "appendix-a-1" in sections
