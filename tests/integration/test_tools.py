"""The agent tools without a transport: catalogue, rendering, and logic over the public API."""

from __future__ import annotations

from dataclasses import fields
from typing import Any, get_type_hints

import pytest

from hierdoc import Settings
from hierdoc.errors import InputError, NotFoundError
from hierdoc.models import SearchResult
from hierdoc.tools.catalogue import (
    DESCRIPTIONS,
    TOOL_NAMES,
    ResultOut,
    check_output,
    tool_spec,
    tool_specs,
)
from hierdoc.tools.logic import RUNNERS, run_get_section, run_references, run_search
from hierdoc.tools.render import cite, display_names
from tests.integration.test_mcp_server import build_corpus_index

slow = pytest.mark.slow


# -- catalogue ----------------------------------------------------------------------------


def test_specs_in_order_with_descriptions_and_settings_defaults() -> None:
    specs = tool_specs(Settings(top_k=7, search_mode="exact", description="Leases"))
    assert list(specs) == list(TOOL_NAMES) == list(RUNNERS)
    search = specs["search"]
    assert search.description == DESCRIPTIONS["search"] + "\n\nThis index: Leases"
    properties = search.parameters()["properties"]
    assert (properties["top_k"]["default"], properties["mode"]["default"]) == (7, "exact")
    for spec in specs.values():
        described = spec.parameters().get("properties", {}).values()
        assert all(p.get("description") for p in described), spec.name


def test_result_shapes_are_typed_as_the_dataclasses_declare() -> None:
    hints = get_type_hints(SearchResult)
    shared = set(ResultOut.model_fields) & {f.name for f in fields(SearchResult)}
    assert shared >= {"chunk_id", "parent_chain", "scores", "ranks", "chunk_type"}
    for name in shared - {"definitions", "cross_references", "passage", "passages"}:
        assert ResultOut.model_fields[name].annotation == hints[name], name


def test_check_output_keeps_only_the_advertised_fields() -> None:
    data = {"documents": [], "total_chunks": 0, "total_documents": 0, "secret": "dropped"}
    expected = {"documents": [], "total_chunks": 0, "total_documents": 0}
    assert check_output("list_documents", data) == expected


def test_validate_fills_defaults_and_rejects_bad_calls() -> None:
    search = tool_spec("search", Settings(top_k=4))
    checked = search.validate('{"query": "fees"}')
    assert checked == {
        "query": "fees",
        "top_k": 4,
        "mode": "hybrid",
        "source": None,
        "section": None,
        "where": None,
        "passages": False,
        "explain": False,
    }
    with pytest.raises(InputError, match=r"unknown argument\(s\) k; the arguments are: explain"):
        search.validate({"query": "fees", "k": 1})
    with pytest.raises(InputError, match="top_k: Input should be a valid integer"):
        search.validate({"query": "fees", "top_k": "ten"})
    with pytest.raises(InputError, match="query: required"):
        search.validate({})
    with pytest.raises(InputError, match="not valid JSON"):
        search.validate("{")
    with pytest.raises(NotFoundError, match="unknown tool 'read_file'; the tools are: search"):
        tool_spec("read_file")


# -- rendering ----------------------------------------------------------------------------


def test_display_names_keep_the_full_source_only_when_file_names_clash() -> None:
    names = display_names(["/a/x.md", "/b/x.md", "/c/y.md"])
    assert names == {"/a/x.md": "/a/x.md", "/b/x.md": "/b/x.md", "/c/y.md": "y.md"}
    cited = cite(names, "/c/y.md", ["Chapter I", "Article 2"], "article-2")
    assert cited == "y.md · Chapter I > Article 2 · [article-2]"


# -- the logic, over the public Index API only ---------------------------------------------


class PublicOnly:
    """An index with its store and private parts hidden: what the tools may use."""

    def __init__(self, index: Any) -> None:
        self._index = index

    def __getattr__(self, name: str) -> Any:
        if name == "store" or name.startswith("_"):
            raise AttributeError(f"the tools must not use Index.{name}")
        return getattr(self._index, name)


@pytest.fixture(scope="module")
def index(tmp_path_factory, embedder):
    from hierdoc import Index

    directory = build_corpus_index(tmp_path_factory.mktemp("tools"), embedder)
    with Index.open(directory, Settings(), embedder=embedder) as opened:
        yield PublicOnly(opened)


CALLS = [
    (
        "search",
        {"query": "late payment", "source": "services_agreement.md", "section": "article-3"},
    ),
    ("get_section", {"id": "Article 3(1)", "source": "data_regulation.md"}),
    ("get_section", {"id": "article-3"}),
    ("define", {"term": "personal data"}),
    ("references", {"id": "Art. 3(1)(b)"}),
    ("references", {"id": "article-3", "source": "services_agreement.md"}),
    ("list_documents", {}),
]


@slow
@pytest.mark.parametrize(("name", "arguments"), CALLS)
def test_every_tool_runs_over_the_public_api(index, name: str, arguments: dict) -> None:
    output = RUNNERS[name](index, **arguments)
    assert output.structured == check_output(name, output.structured)
    assert output.text


@slow
def test_an_unknown_source_is_not_found_in_every_tool(index) -> None:
    with pytest.raises(NotFoundError, match="no indexed document matches source 'nope.md'"):
        run_search(index, "fees", source="nope.md")
    with pytest.raises(NotFoundError, match="no indexed document matches source 'nope.md'"):
        run_get_section(index, "article-1", source="nope.md")
    with pytest.raises(NotFoundError, match="no indexed document matches source 'nope.md'"):
        run_references(index, "article-1", source="nope.md")
    assert run_search(index, "fees", source=" ").structured["results"]


@slow
def test_unknown_ids_and_sections_are_not_found_and_bad_arguments_are_input_errors(index) -> None:
    with pytest.raises(NotFoundError, match="no section or chunk with id 'article-99'"):
        run_get_section(index, "article-99")
    with pytest.raises(NotFoundError, match="no section with id 'chapter-9'"):
        run_search(index, "fees", section="chapter-9")
    with pytest.raises(InputError, match="top_k must be between 1 and 100, got 0") as error:
        run_search(index, "fees", top_k=0)
    assert not isinstance(error.value, NotFoundError)


def test_the_tools_read_no_list_of_every_document(tmp_path, monkeypatch) -> None:
    """A search, section or references answer names its few documents by looking each up
    (a corpus may hold 43,600), and a section id many documents share lists at most
    MAX_OTHER_SOURCES of the others."""
    from hierdoc import Index
    from hierdoc.tools.logic import MAX_OTHER_SOURCES
    from tests.hash_embedder import hash_index

    act = "# Act {n}\n\n## Article 1 Scope\n\nAct {n} covers banks, as Article 2 says.\n\n"
    act += "## Article 2 Duties\n\nEach bank of Act {n} shall report.\n"
    documents = {f"acts/act-{n:02d}.md": act.format(n=n) for n in range(MAX_OTHER_SOURCES + 5)}
    documents["other/act-00.md"] = act.format(n=99)
    with hash_index(tmp_path / "index", documents) as index:

        def refuse(self: Index) -> list:
            raise AssertionError("the tool read every document record")

        monkeypatch.setattr(Index, "documents", refuse)
        found = run_search(PublicOnly(index), "banks report", source="act-03.md")
        assert "act-03.md" in found.text and "acts/act-03.md" not in found.text
        shared = run_search(PublicOnly(index), "banks report", source="acts/act-00.md")
        assert "acts/act-00.md" in shared.text  # two documents are called act-00.md
        section = run_get_section(PublicOnly(index), "article-1")
        others = section.structured["other_sources"]
        assert len(others) == MAX_OTHER_SOURCES
        assert any("and 5 more; pass source" in n for n in section.structured["notes"])
        refs = run_references(PublicOnly(index), "article-2", source="act-07.md")
        assert refs.structured["source"] == "acts/act-07.md"
        assert {r["source"] for r in refs.structured["incoming"]} == {"acts/act-07.md"}


def test_list_documents_lists_the_first_documents_and_counts_them_all(
    tmp_path, monkeypatch
) -> None:
    from hierdoc.tools import logic
    from tests.hash_embedder import hash_index

    monkeypatch.setattr(logic, "MAX_LISTED_DOCUMENTS", 3)
    documents = {f"act-{n}.md": f"# Act {n}\n\nText of act {n}." for n in range(5)}
    with hash_index(tmp_path / "index", documents) as index:
        listed = logic.run_list_documents(PublicOnly(index))
        data = listed.structured
        assert [d["name"] for d in data["documents"]] == ["act-0.md", "act-1.md", "act-2.md"]
        assert data["total_documents"] == 5
        assert data["total_chunks"] == sum(len(index.chunks_of_source(s)) for s in documents)
        assert listed.text.startswith("5 documents, ") and "the first 3 by name" in listed.text
