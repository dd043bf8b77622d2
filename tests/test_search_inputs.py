"""Strict inputs at the API surface: every bad search argument is a clear error, never a
silent empty result or a value taken for another."""

from __future__ import annotations

import pytest

from hierdoc import Index
from hierdoc.errors import InputError, NotFoundError

from .hash_embedder import hash_index

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
