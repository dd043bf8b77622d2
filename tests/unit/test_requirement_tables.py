"""A standard's requirement tables (OWASP ASVS): a row opening with the "#" column's header
is no Markdown heading, a requirement numbered in full ("2.1.1") under an unnumbered-id
heading ("V2.1 Password Security") is ``section-2-1-1`` as cited (its citations:
test_title_citations.py)."""

from __future__ import annotations

from hierdoc.pipeline.convert_pdf import _block_markdown
from hierdoc.pipeline.pdf_layout import Block, Segment
from hierdoc.pipeline.structure import parse_sections


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
