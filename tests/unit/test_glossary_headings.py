"""Glossary entries. Under Markdown headings ("## term", its definition the paragraph under
it), an entry that speaks of the term itself ("This term is used where ...", "We use the
terms ...") is a definition, a sentence about someone else is not, and a word quoted in the
heading ("## “made” date") leaves no quote in the term. An entry of two names ("'The
Licensee' or 'You': ...") defines both, and "this Licence" is a definition."""

from __future__ import annotations

from pathlib import Path

import pytest

from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.convert import convert_file
from hierdoc.pipeline.extract.definitions import find_definitions
from hierdoc.pipeline.extract.document import extract_document
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer


@pytest.fixture
def glossary_terms(tmp_path: Path):
    def read(text: str) -> dict[str, str]:
        path = tmp_path / "glossary.md"
        path.write_text(text, encoding="utf-8")
        document = convert_file(path)
        sections = parse_sections(document.text, document.title)
        chunks = chunk_document(document, sections, default_tokenizer())
        return {d.term: d.definition for d in extract_document(sections, chunks)[1].definitions}

    return read


@pytest.mark.parametrize(
    ("entry", "term", "starts"),
    [
        (
            "## confers power\n\nThis term is used where a provision confers power.\n",
            "confers power",
            "This term is used",
        ),
        (
            "## revised legislation\n\nWe use the terms “revise” and “revised” for it.\n",
            "revised legislation",
            "We use the terms",
        ),
        (
            "## “made” date\n\nThe date on which an instrument is made.\n",
            "made date",
            "The date on which",
        ),
    ],
)
def test_a_heading_entry_defines_its_term(
    glossary_terms, entry: str, term: str, starts: str
) -> None:
    found = glossary_terms("# Glossary\n\n## base date\n\nThe date of the text.\n\n" + entry)
    assert found[term].startswith(starts)


def test_a_sentence_about_someone_under_a_heading_defines_nothing(glossary_terms) -> None:
    found = glossary_terms("# Guide\n\n## Overview\n\nWe update this guide every year.\n")
    assert "Overview" not in found


LICENCE_TERMS = """\
In this Licence, the following terms have the following meaning:

- 'The Licence': this Licence.

- 'The Licensee' or 'You': any natural or legal person who makes any usage of
  the Work under the terms of the Licence.

- 'Notes': we use these for remarks.
"""


def test_an_entry_of_two_names_defines_both_and_this_licence_is_a_definition() -> None:
    found = {d.term: d.definition for d in find_definitions(LICENCE_TERMS, True)}
    assert found["The Licence"] == "this Licence"
    assert found["The Licensee"] == found["You"]
    assert found["You"].startswith("any natural or legal person who makes any usage")
    assert "Notes" not in found  # "we use these": a sentence about someone
