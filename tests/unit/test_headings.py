"""Headings, breadcrumbs and ids carry no markup; clauses written as headings are content.

The Markdown below is what markitdown (mammoth) makes of a Word contract whose
clauses are paragraphs styled as headings (Common Paper's standard terms): the
whole clause is the heading line, its title underlined.
"""

from __future__ import annotations

import pytest

from hierdoc.models import ConvertedDocument
from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.extract.document import extract_document
from hierdoc.pipeline.headings import plain_heading
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer

CONTRACT = """# Cloud Agreement

## **Limitation of Liability**

### <u>Liability Caps</u>.

Each party's liability is capped.

### <u>Exceptions</u>: the liability cap

The cap does not apply to fraud.

### <u>User Accounts</u>. **Customer** is responsible for all actions on Users' accounts \
and for all Users' compliance with this Agreement, and will notify **Provider** of any \
fraudulent activity with its accounts.

### [Fees](#fees)

Fees are due monthly.
"""


@pytest.mark.parametrize(
    ("heading", "plain"),
    [
        ("**Limitation of Liability**", "Limitation of Liability"),
        ("<u>Liability Caps</u>.", "Liability Caps"),
        ("[Fees](#fees):", "Fees"),
        ("*Schedule* 2:", "Schedule 2"),
        ("AT&amp;T \\*terms\\*", "AT&T *terms*"),
        ("1.", "1."),
        ("8.4 Limitation of Liability.", "8.4 Limitation of Liability"),
        ("Article 17 - Right to erasure", "Article 17 - Right to erasure"),
        ("5.3 [*Minimum Membership*][terms], where", "5.3 Minimum Membership, where"),
        ("Board ][terms]", "Board"),
        ("Fees [Reserved]", "Fees [Reserved]"),
    ],
)
def test_plain_heading(heading: str, plain: str) -> None:
    assert plain_heading(heading) == plain


def test_breadcrumbs_and_ids_have_no_markup() -> None:
    sections = {s.section_id: s for s in parse_sections(CONTRACT, "Cloud Agreement")}
    assert set(sections) == {
        "preamble",
        "limitation-of-liability",
        "liability-caps",
        "exceptions-the-liability-cap",
        "user-accounts",
        "fees",
    }
    assert sections["liability-caps"].parent_chain == ("Limitation of Liability", "Liability Caps")
    assert sections["liability-caps"].heading_line == "### <u>Liability Caps</u>.\n"


def test_clause_written_as_heading_is_content_not_header() -> None:
    document = ConvertedDocument("c.md", "Cloud Agreement", CONTRACT, "h", "markdown")
    sections = parse_sections(CONTRACT, document.title)
    chunks, _ = extract_document(sections, chunk_document(document, sections, default_tokenizer()))
    clause = next(c for c in chunks if "fraudulent activity" in c.content)
    assert clause.chunk_type == "content"
    assert clause.heading == "User Accounts"
