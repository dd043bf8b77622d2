"""Strict inputs at the API surface: every bad search argument is a clear error, never a
silent empty result or a value taken for another."""

from __future__ import annotations

import pytest

from hierdoc import Index
from hierdoc.errors import InputError, NotFoundError
from tests.hash_embedder import hash_index

DOC = "# Agreement\n\n## Article 1 - Escrow\n\nThe escrow agent holds the funds.\n"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    with hash_index(tmp_path_factory.mktemp("inputs") / "index", {"agreement.md": DOC}) as opened:
        yield opened


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"top_k": True}, "top_k: .*not true or false"),
        ({"top_k": "abc"}, "top_k: .*valid integer"),
        ({"top_k": 5.5}, "top_k: .*fractional"),
        ({"top_k": 0}, "top_k must be between 1 and 100"),
        ({"min_score": float("nan")}, "min_score: .*finite"),
        ({"mode": "fuzzy"}, "mode must be one of hybrid, semantic, keyword, exact"),
        ({"chunk_type": "clause"}, "unknown chunk_type 'clause'; use one of content, header"),
        ({"chunk_type": ["definition", "nope"]}, "unknown chunk_type 'nope'"),
        ({"candidate_depth": False}, "candidate_depth: .*not true or false"),
    ],
)
def test_a_bad_argument_is_an_input_error(index: Index, arguments: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        index.search("escrow", **arguments)


def test_a_section_or_source_that_does_not_exist_is_not_found(index: Index) -> None:
    with pytest.raises(NotFoundError, match="no section 'article-99'"):
        index.search("escrow", section="article-99")
    with pytest.raises(NotFoundError, match="no indexed document matches source"):
        index.search("escrow", source="nowhere.md")
    assert index.search("escrow", section="article-1").results


def test_a_query_longer_than_the_limit_is_refused_at_once(index: Index) -> None:
    long_query = "escrow " * 1000
    with pytest.raises(InputError, match="7,000 characters; the limit is 4,000"):
        index.search(long_query)
    assert index.search(long_query, max_query_chars=10_000).results
    assert index.search("escrow", top_k=1, chunk_type="content").results


def test_a_source_is_named_by_path_file_name_or_suffix_without_reading_every_record(
    tmp_path, monkeypatch
) -> None:
    """``source=`` takes a stored source, an absolute or relative path to it, its file
    name or a path suffix; it is looked up in a map built once per index generation, not
    by reading every document record on each query."""
    from hierdoc.search.sources import SourceNames

    names = SourceNames.of(["/d/a/nda.md", "/d/b/nda.md", "/d/b/msa.md", "rel/notes.txt"])
    assert names.matching("nda.md") == ["/d/a/nda.md", "/d/b/nda.md"]
    assert names.matching("b/nda.md") == ["/d/b/nda.md"]
    assert names.matching("/d/b/msa.md") == ["/d/b/msa.md"]
    assert names.matching("rel/notes.txt") == ["rel/notes.txt"]
    assert names.matching("d/b") == [] and names.matching("") == []
    monkeypatch.chdir(tmp_path)
    assert SourceNames.of([str(tmp_path / "x" / "y.md")]).matching("x/y.md") == [
        str(tmp_path / "x" / "y.md")
    ]
    documents = {"docs/alpha.md": "# Alpha\n\nThe supplier delivers.", "beta.md": "# Beta\n\nNo."}
    with hash_index(tmp_path / "index", documents) as index:
        monkeypatch.setattr(type(index.store), "documents", _refuse_documents)
        assert index.resolve_sources(["alpha.md", "beta.md"]) == ["docs/alpha.md", "beta.md"]
        hits = index.search("supplier", source="alpha.md").results
        assert hits and {h.source for h in hits} == {"docs/alpha.md"}
        with pytest.raises(NotFoundError, match="no indexed document matches source 'gamma.md'"):
            index.search("supplier", source="gamma.md")


def _refuse_documents(self: object) -> list:
    raise AssertionError("every document record was read to resolve a source")
