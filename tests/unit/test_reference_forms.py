"""Cross-references written the ways bylaws, licences and contracts write them, stored
with the section they name: "Clause 6" of a clause list under an unnumbered heading,
"section 3.8" in lower case, "(see 5.6)" with no keyword, "paragraph 3H" and "clause
5.F." for a clause's lettered point, "[Noncompete](#noncompete)" for its heading."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hierdoc import Index
from hierdoc.pipeline.extract.crossrefs import find_references
from tests.hash_embedder import hash_index

LICENCE = """# The Example Licence

## CONDITIONS ON DISTRIBUTION

1.  You may copy the Work.

2.  You may distribute a complete, unmodified copy of the Work.

3.  You may distribute a Compiled Work made from the Work as distributed
under Clause 2 above.

4.  You may change the Work, as long as the conditions of Clause 6 are met.

5.  Nothing else is allowed.

6.  Changed files must say they were changed.

## MAINTENANCE OF THE WORK

1.  The Work has a Current Maintainer.

2.  The Current Maintainer may hand the Work on.
"""

BYLAWS = """# Bylaws of the Example Foundation

## Article 1 Members

### 1.1 Admission

Members are admitted by the Board (see 1.3), as provided in section
1.2 of these By-laws.

### 1.2 Special Voting

Two thirds of the Board.

### 1.3 The Board

The Board admits members.
"""

AGREEMENT = """# Open Source Agreement

## 3. Distribution

A. A Recipient may distribute the Software.

B. A Recipient may charge a fee, as long as paragraph 3C is followed.

C. Fees are disclosed to the Recipient.

## 5. General Terms

A. This Agreement is governed by law; see clause 5.B. below.

B. Point of Contact: the agency names one.
"""


SHIELD = """# Shield Licence

## Copyright License

You may distribute the software according to [Distribution License](#distribution-license)
and change it only as [Changes and New
Works](#changes-and-new-works) allows; see [Section 9](#section-9).

## Distribution License

You may distribute copies.

## Changes and New Works

You may change the software.
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    documents = {"licence.md": LICENCE, "bylaws.md": BYLAWS, "agreement.md": AGREEMENT}
    documents["shield.md"] = SHIELD
    with hash_index(Path(tmp_path_factory.mktemp("refs")) / "index", documents) as opened:
        yield opened


def _targets(index: Index, name: str) -> dict[str, str | None]:
    source = next(d.source for d in index.documents() if d.source.endswith(name))
    chunks = [c.chunk.chunk_id for c in index.store.chunks_of_source(source)]
    stored = index.store.references_from(chunks)
    return {" ".join(r.text.split()): r.target_section_id for r in stored}


def test_a_clause_of_a_list_under_an_unnumbered_heading(index: Index) -> None:
    targets = _targets(index, "licence.md")
    assert targets["Clause 2"] == "conditions-on-distribution-2"
    assert targets["Clause 6"] == "conditions-on-distribution-6"


def test_lower_case_section_and_a_bare_number_after_see(index: Index) -> None:
    targets = _targets(index, "bylaws.md")
    assert targets["section 1.2"] == "section-1-2"
    assert targets["see 1.3"] == "section-1-3"


def test_a_lettered_point_run_into_or_dotted_after_its_clause_number(index: Index) -> None:
    targets = _targets(index, "agreement.md")
    assert targets["paragraph 3C"] == "section-3-c"
    assert targets["clause 5.B"] == "section-5-b"


def test_a_link_within_the_page_names_the_section_of_its_anchor(index: Index) -> None:
    """A Markdown link to a heading's anchor (and an HTML page's ``<a href="#...">``,
    written so in Markdown) is a reference to that section, its words its text."""
    targets = _targets(index, "shield.md")
    assert targets["Distribution License"] == "distribution-license"
    assert targets["Changes and New Works"] == "changes-and-new-works"
    assert targets["Section 9"] is None  # one reference, to a section that is not there


@pytest.mark.parametrize(
    "text",
    ["version 5.6 is out", "see 1.5 million users", "see 2.5 per cent", "Section 5. The"],
)
def test_numbers_that_are_no_point_or_clause(text: str) -> None:
    found = find_references(text)
    assert all("." not in r.text and not r.text[-1].isupper() for r in found), found


def test_a_citation_of_a_point_run_into_its_clause_number(index: Index) -> None:
    """ "paragraph 3C" cites point C of clause 3 in an agreement that has no clause "3C"."""
    first = index.search("paragraph 3C").results[0]
    assert (first.source, first.section_id, first.pinned) == ("agreement.md", "section-3-c", True)
