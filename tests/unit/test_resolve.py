"""Citation resolution outside a search: the section an id or a citation names, and the
documents that hold it, looked up once for the views, the agent tools and the CLI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hierdoc import Index
from hierdoc.search.resolve import HeldSection, held_section, section_for, section_holders
from tests.hash_embedder import hash_index

DOCUMENTS = {
    f"contract-{n}.md": f"# Contract {n}\n\n## Section 1 Term\n\nLasts {n} years.\n\n"
    "## Section 2 Fees\n\n### 2.1 Late fees\n\nFive percent.\n"
    for n in (1, 2, 3)
}
DOCUMENTS["policy.md"] = "# Policy\n\n## Article 4 Scope\n\nApplies to staff.\n"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    with hash_index(Path(tmp_path_factory.mktemp("resolve")) / "index", DOCUMENTS) as opened:
        yield opened


def test_a_section_id_is_held_by_the_documents_that_have_it(index: Index) -> None:
    held = held_section(index.store, "section-1", listed=2)
    assert held == HeldSection("section-1", ["contract-1.md", "contract-2.md"], 3)
    assert held_section(index.store, "section-1", listed=5).count == 3


def test_a_citation_is_read_for_its_most_specific_id_held(index: Index) -> None:
    assert held_section(index.store, "Article 4(2)").section_id == "article-4"  # type: ignore[union-attr]
    assert held_section(index.store, "Section 2.1", ["contract-3.md"]) == HeldSection(
        "section-2-1", ["contract-3.md"], 1
    )
    assert held_section(index.store, "Article 9") is None
    assert held_section(index.store, "section-1", ["policy.md"]) is None


def test_holders_are_counted_only_when_they_do_not_fit(
    index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted: list[str] = []
    count = index.store.count_sections

    def counting(ids: list[str], limit: int) -> int:
        counted.extend(ids)
        return count(ids, limit)

    monkeypatch.setattr(index.store, "count_sections", counting)
    assert section_holders(index.store, "section-1", 3) == (
        ["contract-1.md", "contract-2.md", "contract-3.md"],
        3,
    )
    assert counted == []
    assert section_holders(index.store, "section-1", 1) == (["contract-1.md"], 3)
    assert counted == ["section-1"]


def test_the_views_and_the_tools_resolve_through_it(index: Index) -> None:
    from hierdoc.tools.logic import run_get_section

    section = section_for(index.store, "Section 2.1", "contract-2.md")
    assert section is not None and (section.source, section.section_id) == (
        "contract-2.md",
        "section-2-1",
    )
    view = index.show("Section 2.1")
    assert view.section is not None and view.section.section_id == "section-2-1"
    assert view.other_sources == ["contract-2.md", "contract-3.md"] and view.more_sources == 0
    output = run_get_section(index, "Section 2.1")
    assert output.structured["section"]["section_id"] == "section-2-1"
    assert output.structured["source"] == "contract-1.md"
