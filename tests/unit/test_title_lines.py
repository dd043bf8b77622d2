"""Plain texts whose sections are titled by unnumbered lines, and lines that stay text."""

from hierdoc.pipeline.structure import parse_sections
from hierdoc.pipeline.title_lines import is_title_line, title_lines


def _headings(text: str) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(s.section_id, s.heading, s.path) for s in parse_sections(text, "Doc")[1:]]


LICENCE = """The Example Public Licence
Version 1.0

Preamble

This licence lets anyone use the software. Read it before you use it.

Definitions

"Software" means the program released under this licence.

Grant of Rights

The Licensor grants You a world-wide licence to use the Software.

NO WARRANTY

The Software is provided as is, without warranty of any kind.
"""


def test_unnumbered_title_lines_head_the_sections_of_a_plain_text() -> None:
    assert [(i, h) for i, h, _ in _headings(LICENCE)] == [
        ("preamble-2", "Preamble"),
        ("definitions", "Definitions"),
        ("grant-of-rights", "Grant of Rights"),
        ("no-warranty", "NO WARRANTY"),
    ]
    grant = next(s for s in parse_sections(LICENCE, "Doc") if s.heading == "Grant of Rights")
    assert grant.body.strip() == "The Licensor grants You a world-wide licence to use the Software."


def test_numbered_paragraphs_go_on_across_title_lines_and_nest_under_theirs() -> None:
    text = """The Example Licence 2.0

Permissions Without Distribution

(1)  You may use the Standard Version for any purpose.

(2)  You may make copies of the Standard Version.

Permissions for Redistribution

(3)  You may distribute verbatim copies of the Source form.

(4)  You may apply bug fixes from the Copyright Holder.

General Provisions

(5)  Any use of the Package is subject to this licence.
"""
    found = _headings(text)
    assert [h for _, h, _ in found] == [
        "Permissions Without Distribution",
        "(1)",
        "(2)",
        "Permissions for Redistribution",
        "(3)",
        "(4)",
        "General Provisions",
        "(5)",
    ]
    by_heading = {h: path for _, h, path in found}
    assert [i for i, h, _ in found if h == "(4)"] == ["section-4"]  # cited "Section 4"
    assert by_heading["(4)"] == ("permissions-for-redistribution",)
    assert by_heading["(5)"] == ("general-provisions",)


def test_a_text_with_numbered_headings_keeps_them_as_its_outline() -> None:
    text = """Example Protocol

Status of This Memo

This document is an example.

Copyright Notice

Copyright (c) the authors.

Abstract

The protocol does little.

1.  Introduction

The protocol is described here.

2.  Terminology

Words are used as usual.
"""
    assert [i for i, _, _ in _headings(text)] == ["section-1", "section-2"]


def test_markdown_headings_win_over_title_lines() -> None:
    text = "# Terms\n\n## Scope\n\nText.\n\nFees\n\nText.\n\nPayment\n\nText.\n\nTaxes\n\nText.\n"
    assert [h for _, h, _ in _headings(text)] == ["Scope"]


def test_fewer_than_three_title_lines_stay_text() -> None:
    text = "Memo\n\nNote\n\nThe meeting moves to Friday.\n\nAgenda\n\nBudget and staffing.\n"
    assert _headings(text) == []


def test_sentences_names_lists_and_signatures_are_not_title_lines() -> None:
    for line in (
        "The parties agree as follows:",
        "Thank you for reading this notice",
        "Dear Sir,",
        "- Scope of Work",
        "(a) Scope of Work",
        "1. Scope of Work",
        "  Indented Code Block",
        "Name\tTitle\tDate",
        "This Agreement is governed by the laws of the State of New York",
        "Items that are not part of it",
    ):
        assert not is_title_line(line), line
    for line in (
        "Definitions",
        "Grant of Rights",
        "NO WARRANTY",
        "Limitation of Liability",
        "Items That are Not Considered Part of a Modified Version",
    ):
        assert is_title_line(line), line


def test_title_lines_followed_by_titles_only_are_a_list_not_headings() -> None:
    signatures = "Agreement\n\nSigned\n\nJohn Smith\n\nChief Executive\n\nJane Doe\n\nDirector\n"
    assert title_lines(signatures.splitlines()) == []
    assert _headings(signatures) == []


def test_title_lines_inside_numbered_paragraphs_are_subheadings_not_sections() -> None:
    text = """Guidance on Example Activities

1)	SCOPE. This guidance applies to every firm that trades.

2)	CRITERIA. The regulator considers the following.

Market Size

	The regulator looks at the size of the market and its liquidity.

Delivery Soundness

	The regulator looks at how goods are delivered and stored.

Fungibility

	The regulator looks at whether units can be exchanged.

3)	REVIEW. The regulator reviews its view every year.
"""
    assert [i for i, _, _ in _headings(text)] == ["section-1", "section-2", "section-3"]


def test_a_copied_page_sets_titles_right_above_their_text() -> None:
    text = """Example Licence

Example Licence
Copyright (c) 2001, The Example Foundation.

Preamble
This licence states the terms under which the Package may be copied and changed by anyone.

Permissions for Redistribution of the Standard Version
(1) You may Distribute verbatim copies of the Source form of the Standard Version.
(a) with the notices kept;
(b) with this licence attached.
Items That are Not Considered Part of a Modified Version
(2) Works that merely extend the Package are not part of a Modified Version of it.

General Provisions
(3) Any use of the Package is governed by this licence, which You accept by using it.
"""
    found = _headings(text)
    assert [h for _, h, _ in found if not h.startswith("(")] == [
        "Preamble",
        "Permissions for Redistribution of the Standard Version",
        "Items That are Not Considered Part of a Modified Version",
        "General Provisions",
    ]
    items = "items-that-are-not-considered-part-of-a-modified-version"
    assert ("section-2", "(2)", (items,)) in found


def test_a_short_line_inside_a_wrapped_paragraph_is_not_a_title() -> None:
    text = """Memo

The parties met on Friday to discuss the terms of the new agreement with
Acme Widgets
and agreed to meet again in a week, after the lawyers have read the draft.

Agenda Items
Budget and staffing were discussed at length by everyone present at the meeting.

Next Steps
The lawyers read the draft and send their comments before the next meeting starts.

Other Business
None was raised by anyone at the meeting, which closed at five in the afternoon.
"""
    assert [h for _, h, _ in _headings(text)] == ["Agenda Items", "Next Steps", "Other Business"]


LETTER = """Exhibit (d)(2)
March 3, 2005
PERSONAL AND CONFIDENTIAL
Jane Roe
Example Holdings, Inc.
100 Main Street
Springfield, IL 62701
Dear Jane:
You have asked for information about Widget Corp. (the "Company") for a purchase.
In return for that information you agree as follows:
Confidentiality of Evaluation Materials
You will treat confidentially any information about the Company (the "Materials").
Return of Documents
Upon the Company's request, you shall promptly return or destroy all written Materials.
Standstill
You agree that for two years you will not acquire any securities of the Company without its consent.
Other
This agreement is governed by the laws of the State of Illinois.
Very truly yours,
WIDGET CORP.
By: /s/ John Doe
John Doe, Vice President
Accepted and agreed to as of the date hereof:
Example Holdings, Inc.
By: /s/ Jane Roe
"""


def test_a_letter_agreement_is_sectioned_by_its_titles_not_its_addresses_or_signatures() -> None:
    assert [h for _, h, _ in _headings(LETTER)] == [
        "Confidentiality of Evaluation Materials",
        "Return of Documents",
        "Standstill",
        "Other",
    ]
    other = next(s for s in parse_sections(LETTER, "Doc") if s.heading == "Other")
    assert other.body.rstrip().endswith("By: /s/ Jane Roe")


FONT_LICENCE = """Copyright (c) 2024, Example Type Foundry, with Reserved Font Name "Quill".

This Font Software is licensed under the Example Font Licence, Version 2.0.

-----------------------------------------------------------
EXAMPLE FONT LICENCE Version 2.0 - 1 March 2024
-----------------------------------------------------------

PREAMBLE
The aims of this licence are to let fonts be shared, studied and improved
by anyone who uses them in a document or a program of their own.

DEFINITIONS
"Font Software" refers to the set of files released by the Copyright Holder
under this licence and clearly marked as such.

PERMISSION & CONDITIONS
Permission is hereby granted, free of charge, to any person obtaining a copy
of the Font Software, subject to the following conditions:

1) The Font Software may not be sold by itself, in any version.

2) Modified versions of the Font Software must not use the Reserved Font Name.

TERMINATION
This licence becomes null and void if any of the above conditions are not met.

DISCLAIMER
THE FONT SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
EXPRESS OR IMPLIED.
"""


def test_capital_titles_over_their_text_under_a_framed_title_head_the_sections() -> None:
    """A licence's title between two rules of dashes reads as a Markdown (setext) heading;
    the capital lines below it, each right above its text, still head the sections, and
    the titles after the numbered conditions are sections, not text of condition 2."""
    found = _headings(FONT_LICENCE)
    assert [(i, h) for i, h, _ in found] == [
        ("preamble-2", "PREAMBLE"),
        ("definitions", "DEFINITIONS"),
        ("permission-conditions", "PERMISSION & CONDITIONS"),
        ("section-1", "1)"),
        ("section-2", "2)"),
        ("termination", "TERMINATION"),
        ("disclaimer", "DISCLAIMER"),
    ]
    assert dict((i, p) for i, _, p in found)["section-2"] == ("permission-conditions",)


def test_a_markdown_heading_below_title_lines_keeps_the_markdown_structure() -> None:
    text = "Preface\n\nSome words of the preface, long enough to read as text here.\n\n" + (
        "Scope\nThe scope of this document is the whole of the example service.\n\n"
        "Terms\nThe terms used in this document are those of the example standard.\n\n"
        "## Annex\n\nThe annex of the document.\n"
    )
    assert [h for _, h, _ in _headings(text)] == ["Annex"]
