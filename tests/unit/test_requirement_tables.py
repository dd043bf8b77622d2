"""A standard's requirement tables (OWASP ASVS): a row opening with the "#" column's header
is no Markdown heading, a requirement numbered in full ("2.1.1") under an unnumbered-id
heading ("V2.1 Password Security") is ``section-2-1-1`` as cited, and a label citations
do not read ("V12.6") cites the section it heads when the query names the document."""

from __future__ import annotations

import pytest

from hierdoc import Index
from hierdoc.config import Settings
from hierdoc.models import TextDocument
from hierdoc.pipeline.convert_pdf import _block_markdown
from hierdoc.pipeline.pdf_layout import Block, Segment
from hierdoc.pipeline.structure import parse_sections
from tests.hash_embedder import HashEmbedder


def _cell(text: str, x0: float) -> Block:
    return Block([Segment(text, x0, x0 + 80.0, 100.0, 112.0, 0, 0, 10.0)])


def test_a_row_under_the_number_column_header_is_no_heading() -> None:
    row = Block(
        _cell("# Description", 60.0).lines,
        cells=[_cell("# Description", 60.0), _cell("L1 L2 L3", 300.0)],
    )
    assert _block_markdown(row, (60.0, 540.0)) == "\\# Description | L1 L2 L3"
    heading = Block(_cell("Scope", 60.0).lines, heading_level=2)
    assert _block_markdown(heading, (60.0, 540.0)) == "## Scope"


STANDARD = """\
# Application Security Verification Standard 4.0.3

## V2 Authentication

### V2.1 Password Security

Passwords are memorized secrets.

\\# Description | L1 L2 L3 | CWE
2.1.1 Verify that user set passwords are at least 12 characters in length. | ✓ ✓ ✓ 521
2.1.2 Verify that passwords of at least 64 characters are permitted. | ✓ ✓ ✓ 521

### V12.6 SSRF Protection

Verify that the server is configured with an allow list of resources.
"""


def test_a_requirement_numbered_in_full_takes_its_number_as_id() -> None:
    sections = {s.section_id: s for s in parse_sections(STANDARD, "ASVS")}
    assert sections["section-2-1-1"].heading.startswith("2.1.1")
    assert sections["section-2-1-1"].path[-1] == "v2-1-password-security"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    directory = tmp_path_factory.mktemp("asvs") / "index"
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as opened:
        opened.ingest_texts(
            [
                TextDocument("owasp-asvs-4.0.3.md", STANDARD),
                TextDocument("other-guide.md", "# Other Guide\n\n## V12.6 Notes\n\nText.\n"),
            ]
        )
        yield opened


@pytest.mark.parametrize("query", ["V12.6 of the OWASP ASVS", "ASVS requirement 2.1.1"])
def test_a_requirement_or_a_chapter_label_is_cited_in_its_document(
    index: Index, query: str
) -> None:
    first = index.search(query).results[0]
    assert first.pinned and first.source == "owasp-asvs-4.0.3.md"
    assert first.heading.startswith(query.split()[-1] if "requirement" in query else "V12.6")
