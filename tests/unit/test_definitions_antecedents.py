"""Terms named after a long antecedent: a parenthesis after a phrase with its own relative
clause, a parenthesis that names a noun of the sentence ("such date referred to as"), a
parenthesis that holds what it names, a sentence's opening noun phrase named by a
parenthesis, a clause set off by commas between a term and "means", "We call this X" after
the sentence that describes X, "Any ... is a *term*"; numbered sub-headings of a
definitions section; a front matter's list of links."""

from __future__ import annotations

import pytest

from hierdoc.pipeline.extract.definitions import find_definitions


def _pairs(text: str) -> dict[str, str]:
    return {d.term: d.definition for d in find_definitions(text)}


NAMED = [
    # a phrase with its relative clause
    (
        "The lender shall give written notice of the loan and, where relevant, any condition "
        'on which the payment is dependent (a "Payment Condition"). The notice is final.',
        "Payment Condition",
        "any condition on which the payment is dependent",
    ),
    # a noun of the sentence named back by "such ... referred to as"
    (
        "If the Fund at any time after the day on which the first unit of a class is sold by "
        'the Fund (such day referred to herein as the "Launch Day" for that class) splits its '
        "units, the price shall be adjusted.",
        "Launch Day",
        "the day on which the first unit of a class is sold by the Fund",
    ),
    # the parenthesis holds what it names, then the name
    (
        "On (a) the listing of the shares or (b) the date fixed by the board (the day of such "
        'listing or the date so fixed, the "Exchange Date"), every note is exchanged.',
        "Exchange Date",
        "the day of such listing or the date so fixed",
    ),
    # a sentence's opening noun phrase
    (
        '4.2 Reporting defects. Any malfunction of the Hosted Service (a "Service Defect"), '
        "once reported by the Customer, must be corrected.",
        "Service Defect",
        "Any malfunction of the Hosted Service",
    ),
    # an acronym whose initials are not the words before it
    (
        'This Reseller Agreement ("RSA") sets out the terms of the resale.',
        "RSA",
        "This Reseller Agreement",
    ),
    # a clause set off by commas between the term and its verb
    (
        "1.4 “**Writing**”, and its variants, means any text on paper or in an email.",
        "Writing",
        "any text on paper or in an email",
    ),
    (
        "5.2 *Board Quorum*, where it is required for a decision under these rules, means at "
        "least three Directors.",
        "Board Quorum",
        "at least three Directors",
    ),
    # a run-in list of noun phrases
    (
        "A matter known to (i) any officer of the Trust who is not paid by it, or (ii) any "
        "donor to the Trust or any other related party of a donor, other than a donor paid by "
        'it (an "Outside Party"), is free.',
        "Outside Party",
        "any officer of the Trust who is not paid by it, or (ii) any donor to the Trust or any "
        "other related party of a donor, other than a donor paid by it",
    ),
    # ... unless its last item writes the term's head word as the term does
    (
        "This Agreement consists of (1) the Key Terms on this Cover Page and (2) the Partner "
        "Standard Terms Version 1.3 posted at the site (“Standard Terms”).",
        "Standard Terms",
        "the Partner Standard Terms Version 1.3 posted at the site",
    ),
    # the term named after its description: "We call this ..."
    (
        "**If nobody objects within three days, you may merge the change yourself. We call "
        "this [silent approval](https://example.org/glossary#silent).** Nobody has to vote.",
        "silent approval",
        "If nobody objects within three days, you may merge the change yourself",
    ),
    (
        "A reviewer may block a change by voting -1 on it. We call this a *block*. Blocks need "
        "a reason.",
        "block",
        "A reviewer may block a change by voting -1 on it",
    ),
    # a term said of every subject of a kind
    (
        "Reviews are public. **Any edit made to a published page is a *content change* of the "
        "wiki. Editors may object.**",
        "content change",
        "Any edit made to a published page",
    ),
    (
        'Any failure to file the report on time is a "Reporting Breach".',
        "Reporting Breach",
        "Any failure to file the report on time",
    ),
]


@pytest.mark.parametrize(("text", "term", "definition"), NAMED)
def test_a_term_after_a_long_antecedent_is_defined_by_it(
    text: str, term: str, definition: str
) -> None:
    assert _pairs(text)[term] == definition


@pytest.mark.parametrize(
    ("text", "term"),
    [
        # the head word is the subject of a verb after its relative clause
        (
            'Some of the Customer Data which is stored is highly sensitive ("Restricted Data").',
            "Restricted Data",
        ),
        # a remark, not a noun phrase, before the name inside the parenthesis
        ('The Tax Code (as amended, the "Code") applies.', "Code"),
        # the sentence before the parenthesis has its verb: no noun phrase
        ('The reply was sent late ("Late Reply").', "Late Reply"),
        # a run-in list of acts names no list
        ('The Company shall (i) pay the fee and (ii) file it on time (the "Filing").', "Filing"),
        # "We call this" with no name after it
        ("We waited a long time for the release. We call this one finished.", "one finished"),
        # a list's lead: the events follow
        (
            'Each of the following acts is a "Prohibited Act" unless the board allows it:',
            "Prohibited Act",
        ),
    ],
)
def test_a_clause_before_a_parenthesis_is_no_antecedent(text: str, term: str) -> None:
    assert term not in _pairs(text)


# --- numbered sub-headings of a definitions section, a front matter's link list ---------------

SPEC_TERMS = """### 2.1 Service Document

A self-contained resource which describes a service or parts of a service. A Service Document
*MUST* name its version.
"""

SPEC_NAMED_TERMS = """### 2.4 Retry Headers

The Retry Headers are used to tell a client when to send its request again.
"""


@pytest.mark.parametrize(
    ("text", "term", "opening"),
    [
        (SPEC_TERMS, "Service Document", "A self-contained resource which describes"),
        (SPEC_NAMED_TERMS, "Retry Headers", "The Retry Headers are used to tell a client"),
    ],
)
def test_a_numbered_sub_heading_of_definitions_is_the_term_its_paragraph_defines(
    text: str, term: str, opening: str
) -> None:
    found = {d.term: d.definition for d in find_definitions(text, True)}
    assert found[term].startswith(opening)


def test_a_numbered_sub_heading_over_other_prose_is_no_term() -> None:
    text = "### 2.5 Interpretation\n\nIn these rules the singular includes the plural.\n"
    assert not find_definitions(text, True)


def test_a_description_made_only_of_links_defines_nothing() -> None:
    text = (
        "Participate\n:   [Issue tracker](https://example.org/issues)\n"
        ":   [Mailing list](https://example.org/list)\n\n"
        "Latest version\n:   <https://example.org/spec/latest>\n\n"
        "Wheel\n:   A [built](https://example.org/built) distribution format.\n"
    )
    assert _pairs(text) == {"Wheel": "A built distribution format"}
