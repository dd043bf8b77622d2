"""References to sections by title (pipeline/extract/title_refs.py): linked after a cue word
to the section of that title in the same document, and only then."""

from __future__ import annotations

import pytest

from hierdoc import Index
from hierdoc.config import ChunkingSettings
from hierdoc.models import Section
from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.convert import convert_file
from hierdoc.pipeline.extract.crossrefs import find_references
from hierdoc.pipeline.extract.document import extract_document
from hierdoc.pipeline.extract.title_refs import (
    find_title_references,
    section_title,
    title_index,
)
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS

CONTRACT = """\
# Master Services Agreement

## 1. Definitions

"Fees" means the amounts stated in an Order.

## 2. Confidentiality

Each party keeps the other's information secret.

## 3. Limitation of Liability

Neither party is liable for indirect damages.

## 4. Term and Termination

Either party may terminate on notice. Obligations survive as described in
Confidentiality and under Limitation of Liability; see the Definitions section for the
terms used.

## 5. Fees

The Customer pays the Fees.

## 6. General

Notices follow the section entitled "Term and Termination".
"""


@pytest.fixture(scope="module")
def sections() -> list[Section]:
    return parse_sections(CONTRACT, "Master Services Agreement")


def _linked(sections: list[Section], text: str, defined: tuple[str, ...] = ()) -> list[tuple]:
    titles = title_index(sections, "Master Services Agreement")
    found = find_title_references(text, titles, "", defined)
    return [(r.text, r.section_id) for r in found]


@pytest.mark.parametrize(
    ("heading", "title"),
    [
        ("5. Limitation of Liability", "Limitation of Liability"),
        ("Article 6 - Lawfulness of processing", "Lawfulness of processing"),
        ("Section 4.2: Payment Terms", "Payment Terms"),
        ("K. Payment", "Payment"),
        ("Confidentiality", "Confidentiality"),
        ("**3.1 Wheels**", "Wheels"),
    ],
)
def test_a_title_is_the_heading_without_its_number(heading, title) -> None:
    assert section_title(heading) == title


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("as described in Confidentiality", [("Confidentiality", "section-2")]),
        ("see the Definitions section", [("Definitions", "section-1")]),
        ("under Limitation of Liability", [("Limitation of Liability", "section-3")]),
        ("See LIMITATION OF LIABILITY.", [("LIMITATION OF LIABILITY", "section-3")]),
        ('in the section entitled "Fees"', [("Fees", "section-5")]),
        (
            "in accordance with the Term and Termination clause",
            [("Term and Termination", "section-4")],
        ),
        ("as set out in\nLimitation of Liability", [("Limitation of Liability", "section-3")]),
    ],
)
def test_a_title_after_a_cue_is_linked(sections, text, expected) -> None:
    assert _linked(sections, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "under Applicable Law",  # no section has that title
        "subject to General",  # a weak cue before a one-word title, unmarked
        "in Confidentiality",  # "in" needs quotes or "section"
        "see confidentiality obligations",  # not written as a title
        "the Limitation of Liability applies",  # no cue
        "see the Master Services Agreement",  # the document's own title
        "Section 3 (Limitation of Liability)",  # a numbered reference, no cue
        "as set out in the Confidentiality",  # "the" and no "section": a document's name
        "under the Limitation of Liability",
        "as described in Confidentiality 2",  # a number after it: a label ("Guidance 1")
    ],
)
def test_a_capitalised_phrase_without_cue_or_section_is_not(sections, text) -> None:
    assert _linked(sections, text) == []


def test_a_title_that_is_a_defined_term_needs_the_word_section(sections) -> None:
    assert _linked(sections, "as described in Fees", defined=("fees",)) == []
    assert _linked(sections, "see the Fees section", defined=("fees",)) == [("Fees", "section-5")]


def test_two_sections_of_one_title_are_not_guessed_between() -> None:
    text = "# A\n\n## 1. Notices\n\nOne.\n\n## 2. Notices\n\nTwo.\n\n## 3. Other\n\nText.\n"
    sections = parse_sections(text, "A")
    titles = title_index(sections)
    assert "notices" not in titles
    assert find_title_references("see Notices", titles) == []


def test_references_by_title_are_stored_and_followed(tmp_path) -> None:
    path = tmp_path / "msa.md"
    path.write_text(CONTRACT, encoding="utf-8")
    with Index.open(tmp_path / "index", embedder=HashEmbedder()) as index:
        assert not index.ingest([path]).problems
        refs = index.references("section-4")
        outgoing = {(r.text, r.target_section_id) for r in refs.outgoing}
        assert outgoing == {
            ("Confidentiality", "section-2"),
            ("Limitation of Liability", "section-3"),
            ("Definitions", "section-1"),
        }
        incoming = index.references("section-4").incoming
        assert [(r.section_id, r.text) for r in incoming] == [("section-6", "Term and Termination")]


REAL = TESTS / "realdocs"


@pytest.mark.parametrize(
    ("name", "found"),
    [
        (
            "openagreements-restrictive-covenant-wyoming.docx",
            {("section-18", "Confidential Information and Trade Secret Protection", "section-3")},
        ),
        (
            "federal-register-2020-17221.pdf",
            {
                (
                    "confidential-business-information-cbi",
                    "FOR FURTHER INFORMATION CONTACT",
                    "for-further-information-contact",
                ),
                ("proposed-design-changes", "Flightcrew Training", "flightcrew-training"),
            },  # fmt: skip
        ),
        ("common-paper-software-license-agreement.docx", set()),  # "the Framework Terms"
        ("gnu-gpl-3.0.html", set()),  # "See the GNU General Public License"
    ],
)
def test_references_by_title_in_real_documents(name, found) -> None:
    document = convert_file(REAL / name)
    sections = parse_sections(document.text, document.title)
    chunks = chunk_document(document, sections, default_tokenizer(), ChunkingSettings())
    _, extraction = extract_document(sections, chunks)
    numbered = {
        (s.section_id, r.text) for s in sections for r in find_references(s.heading_line + s.body)
    }
    titled = {
        (r.section_id, " ".join(r.text.split()), r.target_section_id)
        for r in extraction.references
        if (r.section_id, r.text) not in numbered
    }
    assert titled == found
