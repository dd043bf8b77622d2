"""The section a result names is the one holding its match (search/holders.py): the cited
point, else the section of the best sentence, though the chunk covers a clause and all its
points; ``sections`` still lists every section the chunk covers."""

from __future__ import annotations

import pytest

from hierdoc import Index
from hierdoc.cli.export import PLAIN_MARKS, render_csv, render_text
from hierdoc.pipeline.structure import parse_sections
from hierdoc.search.holders import begun_in, section_chain
from hierdoc.tools.logic import run_search
from tests.datasets import GDPR_MD, require
from tests.hash_embedder import HashEmbedder

AGREEMENT = """\
# Services Agreement

## 1. Definitions

"Services" means the consulting services described in an Order.

## 2. Payment

The Customer pays each invoice within thirty days of receipt.

## 3. Term and Termination

This Agreement starts on the Effective Date and lasts one year.

(a) Either party may terminate for convenience on ninety days written notice.

(b) Either party may terminate if the other party becomes insolvent.

(c) The Provider may suspend the Services while any invoice is overdue by more than sixty days.

(d) On termination the Customer returns all hardware lent by the Provider within fourteen days.

## 4. Notices

Notices are given in writing to the addresses in the Order.

## 5. Miscellaneous

### 5.1 Assignment

Neither party may assign this Agreement without the consent of the other.
"""

CLAUSE_3 = ["section-3", "section-3-a", "section-3-b", "section-3-c", "section-3-d"]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    folder = tmp_path_factory.mktemp("holders")
    (folder / "services.md").write_text(AGREEMENT, encoding="utf-8")
    index = Index.open(folder / "index", embedder=HashEmbedder())
    assert not index.ingest([folder / "services.md"]).problems
    yield index
    index.close()


def test_clause_3_and_its_points_are_one_chunk(index) -> None:
    (chunk,) = {r.chunk_id for r in index.search("Section 3", top_k=1).results}
    begun = index.store.sections_in_chunks([(index.documents()[0].source, chunk)])
    assert [r.section_id for r in begun] == CLAUSE_3


def test_a_cited_point_is_the_results_section_with_its_chain(index) -> None:
    first = index.search("Section 3(d)", top_k=3).results[0]
    assert first.pinned
    assert first.section_id == "section-3-d"
    assert first.heading == "(d)"
    assert first.parent_chain == ["3. Term and Termination", "(d)"]
    assert first.sections == CLAUSE_3
    assert first.passage.text.startswith("(d) On termination the Customer returns")


def test_the_cited_clause_itself_stays_the_clause(index) -> None:
    first = index.search("Section 3", top_k=3).results[0]
    assert (first.section_id, first.heading) == ("section-3", "3. Term and Termination")
    assert first.parent_chain == ["3. Term and Termination"]
    assert first.sections == CLAUSE_3


@pytest.mark.parametrize(
    ("query", "point"),
    [
        ("suspend the Services while an invoice is overdue", "section-3-c"),
        ("terminate when the other party becomes insolvent", "section-3-b"),
        ("hardware lent by the Provider", "section-3-d"),
    ],
)
def test_words_give_the_section_of_the_best_sentence(index, query, point) -> None:
    first = index.search(query, top_k=3).results[0]
    assert first.section_id == point
    assert first.sections == CLAUSE_3
    own = index.sections(point, first.source)[0].text.strip()
    assert any(s < e and first.content[s:e] in own for s, e in first.highlights), (
        "a highlight lies in the named point"
    )


def test_a_one_section_chunk_lists_only_itself(index) -> None:
    first = index.search("addresses for notices", top_k=1).results[0]
    assert (first.section_id, first.sections) == ("section-4", ["section-4"])


def test_json_text_csv_and_the_agent_tool_name_the_same_section(index) -> None:
    response = index.search("Section 3(d)", top_k=1)
    data = response.to_dict()["results"][0]
    assert (data["section_id"], data["sections"]) == ("section-3-d", CLAUSE_3)
    names = {index.documents()[0].source: "services.md"}
    assert "services.md  [section-3-d]" in render_text(response, names, PLAIN_MARKS)
    assert "3. Term and Termination > (d)" in render_text(response, names, PLAIN_MARKS)
    assert "section-3-d" in render_csv(response, names).splitlines()[1]
    tool = run_search(index, "Section 3(d)", top_k=1)
    result = tool.structured["results"][0]
    assert (result["section_id"], result["sections"]) == ("section-3-d", CLAUSE_3)
    assert "[section-3-d]" in tool.text


def test_a_carried_heading_is_the_section_of_its_own_words(index) -> None:
    """ "5. Miscellaneous", a heading alone, is carried into the chunk of 5.1."""
    first = index.search("Section 5", top_k=1).results[0]
    assert (first.section_id, first.sections) == ("section-5", ["section-5-1", "section-5"])
    assert first.parent_chain == ["5. Miscellaneous"]
    first = index.search('"may assign this Agreement"', top_k=1).results[0]
    assert (first.section_id, first.parent_chain) == (
        "section-5-1",
        ["5. Miscellaneous", "5.1 Assignment"],
    )


def test_a_result_with_nothing_matched_keeps_its_chunks_section(index) -> None:
    """A citation of clause 2 matches nothing in the other chunks (found by their
    vectors): no sentence there is better than another, so each keeps its own section,
    even where a carried heading opens it."""
    results = index.search("Section 2", top_k=6).results
    assert results[0].section_id == "section-2"
    assert all(r.section_id == r.sections[0] for r in results[1:])
    assert any(r.sections == ["section-5-1", "section-5"] for r in results[1:])


def _chains_match_the_chunkers(index, text: str, title: str) -> int:
    """Every section begun in every chunk: the chain built from the stored records equals
    the one the structure stage gave it. Returns how many were compared."""
    expected = {s.section_id: list(s.parent_chain) for s in parse_sections(text, title)}
    (document,) = index.documents()
    chunks = index.store.chunks_of_source(document.source)
    begun = begun_in(index.store, chunks)
    compared = 0
    for stored in chunks:
        here = begun[stored.chunk.chunk_id]
        known = {r.section_id: r for r in here}
        for record in here:
            chain = section_chain(index.store, record, stored, known)
            assert list(chain) == expected[record.section_id], record.section_id
            compared += 1
    return compared


def test_holder_chains_are_the_structure_stages(index) -> None:
    assert _chains_match_the_chunkers(index, AGREEMENT, "Services Agreement") == 11


def test_holder_chains_of_the_gdpr(tmp_path) -> None:
    path = require(GDPR_MD)
    with Index.open(tmp_path / "index", embedder=HashEmbedder()) as gdpr:
        assert not gdpr.ingest([path]).problems
        title = gdpr.documents()[0].title
        assert _chains_match_the_chunkers(gdpr, path.read_text(encoding="utf-8"), title) > 1000
