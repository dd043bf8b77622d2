"""DOCX clauses numbered by hand in the text, and Word files made of printed lines.

Each document here is built with tests/fixtures/docx/make_fixtures.py: every paragraph
is in the Normal style and no number comes from numbering.xml.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.convert import convert_file
from hierdoc.pipeline.extract.definitions import find_definitions
from hierdoc.pipeline.extract.document import extract_document
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer
from tests.paths import TESTS

_spec = importlib.util.spec_from_file_location(
    "make_fixtures", TESTS / "fixtures" / "docx" / "make_fixtures.py"
)
assert _spec and _spec.loader
make = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = make  # dataclasses look their module up there
_spec.loader.exec_module(make)


def _sections(tmp_path: Path, name: str, blocks: list) -> dict[str, object]:
    fixture = make.Fixture(name, "")
    fixture.blocks = blocks
    document = convert_file(make.write(fixture, tmp_path))
    return {s.section_id: s for s in parse_sections(document.text, "Agreement")}


def test_typed_numbers_with_no_dot_and_leading_spaces_are_clauses(tmp_path: Path) -> None:
    """"1 SCOPE." in bold and "  2.2 Limits. Except ..." indented by spaces: clauses 1,
    1.1, 2, 2.1, 2.2 and 3 with their run-in titles; "30 days ..." is no clause."""
    sections = _sections(
        tmp_path,
        "typed_no_dot",
        [
            make.p(make.b("This SUPPLY AGREEMENT is between the buyer and the seller.")),
            make.p(make.b("1 SCOPE"), "."),
            make.p("  ", make.b("1.1"), " “Goods” means the parts listed in the order."),
            make.p(make.b("2 SUPPLY"), make.b(".")),
            make.p("  ", make.b("2.1"), " ", make.b("Delivery."), " The seller ships weekly."),
            make.p(make.b("  2.2 Limits."), " Except as agreed above, the buyer will not resell."),
            make.p(make.b("3 PAYMENT."), " The buyer pays each invoice when it is due."),
            make.p("30 days after notice the supply ends."),
        ],
    )
    assert {"section-1", "section-1-1", "section-2", "section-2-1", "section-2-2"} <= set(sections)
    assert sections["section-2-2"].heading == "2.2 Limits"
    assert sections["section-2-2"].parent_chain[-2] == "2 SUPPLY"
    assert sections["section-3"].heading == "3 PAYMENT"
    assert "30 days after notice" in sections["section-3"].body
    assert "section-30" not in sections


def test_typed_numbers_with_tabs_and_run_in_titles_are_titled_clauses(tmp_path: Path) -> None:
    """"1.2<tab><tab>Delivery.  Goods ..." is clause 1.2 titled "Delivery", as "1.1<tab>The
    vendor ..." with no title is clause 1.1; "7.4" out of sequence stays text."""
    sections = _sections(
        tmp_path,
        "typed_tabs",
        [
            make.p(make.b("1."), make.b("\tGENERAL TERMS")),
            make.p(make.b("1.1"), "\tThe vendor shall deliver the goods listed in the order."),
            make.p(make.b("1.2"), make.b("\t\t"), make.b("Delivery."), "  Goods go FOB."),
            make.p(make.b("2."), make.b("\tPRICING")),
            make.p(make.b("2.1"), make.b("\tPrice Changes."), "  Prices may change yearly."),
            make.p("7.4\tSee the schedule for rates."),
        ],
    )
    assert sections["section-1-1"].heading == "1.1"
    assert sections["section-1-1"].body.strip().startswith("The vendor shall deliver")
    assert sections["section-1-2"].heading == "1.2 Delivery"
    assert sections["section-2-1"].heading == "2.1 Price Changes"
    assert "7.4" in sections["section-2-1"].body and "section-7-4" not in sections


def test_x_0_numbers_head_their_clauses(tmp_path: Path) -> None:
    """"3.0 Payment terms" typed after "2.1" opens clause 3, whose first clause is 3.1."""
    sections = _sections(
        tmp_path,
        "typed_zero",
        [
            make.p("1.0 Definitions", style="Heading 1"),
            make.p("1.1 Words in the singular include the plural."),
            make.p("3.0 Payment terms"),
            make.p("2.0 Payment terms"),
            make.p("2.1 The buyer pays in thirty days."),
        ],
    )
    assert sections["section-2-0"].heading == "2.0 Payment terms"
    assert sections["section-2-1"].parent_chain[-2] == "2.0 Payment terms"
    assert "section-3-0" not in sections


def _printed_lines() -> list:
    """A Word file converted from a PDF: one paragraph per printed line."""
    return [
        make.p(make.b("Services Agreement")),
        make.p(""),
        make.p("This Services Agreement (“Agreement”) is made between the parties named"),
        make.p("below and sets out the terms under which the Provider supplies services to"),
        make.p("the Customer."),
        make.p(""),
        make.p(make.b("1. Definitions")),
        make.p(make.b("“Deliverable” "), "is the work product of the Provider handed over to the"),
        make.p("Customer under a statement of work, including documents, code and designs"),
        make.p("made for the Customer."),
        make.p(""),
        make.p(make.b("2. Payment. "), "The Customer pays each invoice within thirty days of"),
        make.p("receipt, by bank transfer to the account that the Provider names in it."),
        make.p(""),
        make.p("Name (“Customer”): ____________________"),
        make.p("Title: ____________________"),
        make.p("Date: ____________________"),
    ]


def test_printed_lines_are_read_as_paragraphs(tmp_path: Path) -> None:
    """Lines that stop mid-sentence go on in the next paragraph: the definition and
    the clause broken over lines are read whole; a short title line is not joined to
    the line under it, nor are the lines of a signature form."""
    fixture = make.Fixture("printed_lines", "")
    fixture.blocks = _printed_lines()
    document = convert_file(make.write(fixture, tmp_path))
    sections = parse_sections(document.text, document.title)
    by_id = {s.section_id: s for s in sections}
    assert by_id["section-1"].heading == "1. Definitions"
    assert by_id["section-2"].heading == "2. Payment"
    assert "within thirty days of receipt, by bank transfer" in by_id["section-2"].body
    assert "Title: ____" in by_id["section-2"].body
    assert not any(s.heading.startswith(("Name", "Title", "Date")) for s in sections)
    _, extraction = extract_document(
        sections, chunk_document(document, sections, default_tokenizer())
    )
    found = {d.term: d.definition for d in extraction.definitions}
    assert found["Deliverable"].startswith("is the work product of the Provider handed over")
    assert "under a statement of work" in found["Deliverable"]
    assert "Customer" not in found


def test_a_word_file_of_whole_paragraphs_is_not_joined(tmp_path: Path) -> None:
    """Paragraphs that each end where their text ends keep apart, even a title line with
    no full stop above a sentence."""
    sections = _sections(
        tmp_path,
        "whole_paragraphs",
        [
            make.p("Background"),
            make.p("The parties wish to work together on the project"),
            make.p("Each party names a contact for the project"),
            make.p("and the contacts meet every month"),
        ],
    )
    text = " ".join(s.body for s in sections.values())
    assert "Background The parties" not in text
    assert "project and the contacts" not in text


def test_a_quoted_term_ending_a_paragraph_is_no_alias_of_the_next_term() -> None:
    text = (
        "“Submit” is the act of sending content to the project, except content that You"
        " mark as “Not a Submission.”\n\n“Submission” means the content You Submit.\n"
    )
    terms = [d.term for d in find_definitions(text, True)]
    assert "Not a Submission" not in terms and "Submission" in terms


def test_a_signature_form_field_defines_nothing() -> None:
    text = "Name (“You”): ____________________\n\nSignature: ____________________\n"
    assert find_definitions(text, True) == []


def test_a_point_label_in_the_bold_of_its_title_opens_the_point(tmp_path: Path) -> None:
    """"**a. Copyright Licence.** You grant ..." under "2. Licences" is point 2(a): the
    label is written outside the bold, where points are read."""
    sections = _sections(
        tmp_path,
        "bold_point",
        [
            make.p(make.b("1. Scope")),
            make.p("This agreement covers the contributions You make."),
            make.p(make.b("2. Licences")),
            make.p(make.b("a. Copyright Licence."), " You grant a copyright licence."),
            make.p(make.b("b. Patent Licence."), " You grant a patent licence."),
        ],
    )
    assert {"section-2-a", "section-2-b"} <= set(sections)
    assert "**Patent Licence.**" in sections["section-2-b"].body
