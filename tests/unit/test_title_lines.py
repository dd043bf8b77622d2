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
    assert [i for i, h, _ in found if h == "(4)"] == ["preamble-4"]  # its id at the top
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
        "This Agreement Is Governed by the Laws of the State of New York and Its Courts",
    ):
        assert not is_title_line(line), line
    for line in ("Definitions", "Grant of Rights", "NO WARRANTY", "Limitation of Liability"):
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
