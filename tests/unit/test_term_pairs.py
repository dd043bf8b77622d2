"""Adjacent term pairs: what the analyzer makes of them, what an index holds, and how the
keyword ranking counts a query's pairs against its terms."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.search.searcher import SINGLE_TO_PAIR, keyword_ranking, keyword_terms
from hierdoc.text.analyze import (
    PAIR_JOINER,
    TEXT_ANALYZER,
    analyze,
    analyze_pairs,
    index_terms,
    token_words,
)
from tests.hash_embedder import HashEmbedder


def test_pairs_join_the_primary_terms_of_adjacent_tokens_across_stop_words() -> None:
    assert analyze_pairs("The duty of care") == ["duti+care"]
    assert analyze_pairs("Section 403(b)(2) of the U.S.C.") == [
        "section+403(b)(2)",
        "403(b)(2)+usc",
    ]
    assert analyze_pairs("getUserName returns") == ["getusername+return"]
    assert analyze_pairs("care") == analyze_pairs("") == analyze_pairs("the of") == []


@pytest.mark.parametrize("text", ["a+b", "C++ and x+y", "1+1 = 2"])
def test_no_token_holds_the_joiner_so_no_pair_is_a_term(text: str) -> None:
    assert not any(PAIR_JOINER in token for token in token_words(text))
    assert not any(PAIR_JOINER in term for term in analyze(text))


def test_an_index_holds_the_terms_then_the_pairs() -> None:
    text = "Anti-money laundering rules apply."
    assert index_terms(text) == analyze(text) + analyze_pairs(text)
    assert TEXT_ANALYZER.terms is index_terms


ADJACENT = "The firm must keep client money in a segregated account at all times."
APART = "Money held for a client must be kept apart; the firm's account shows it."


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    directory: Path = tmp_path_factory.mktemp("pairs")
    opened = Index.open(directory, Settings(), embedder=HashEmbedder())
    chunks = [ADJACENT, APART, "Fees are payable within thirty days of the invoice."]
    opened.ingest_texts(
        [TextDocument("rules", "\n\n".join(chunks), "Rules", chunks, ["adjacent", "apart", "fees"])]
    )
    yield opened
    opened.close()


def test_a_query_whose_words_stand_together_ranks_that_chunk_first(index: Index) -> None:
    """Both chunks hold "client" and "money"; only one holds them side by side."""
    store = index.store
    terms = keyword_terms(store, "client money")
    singles = store.keyword_search(terms, 10, None)
    ranked = keyword_ranking(store, "client money", 10, None)
    assert [h.chunk_id for h in ranked][0] == "adjacent"
    by_single = {h.chunk_id: h.score for h in singles}
    by_ranking = {h.chunk_id: h.score for h in ranked}
    assert by_ranking["apart"] == pytest.approx(by_single["apart"])
    assert by_ranking["adjacent"] > by_single["adjacent"]
    pair = store.keyword_search(["client+money"], 10, None)
    assert [h.chunk_id for h in pair] == ["adjacent"]
    expected = by_single["adjacent"] + pair[0].score / SINGLE_TO_PAIR
    assert by_ranking["adjacent"] == pytest.approx(expected)


def test_a_query_without_pairs_scores_as_bm25_of_its_terms(index: Index) -> None:
    store = index.store
    ranked = keyword_ranking(store, "money", 10, None)
    plain = store.keyword_search(keyword_terms(store, "money"), 10, None)
    assert [(h.chunk_id, pytest.approx(h.score)) for h in ranked] == [
        (h.chunk_id, h.score) for h in plain
    ]
    assert keyword_ranking(store, "the of", 10, None) == []


def test_pairs_come_from_the_query_as_written_not_its_expansions(index: Index) -> None:
    """The searcher ranks the expanded text's terms but only the written query's pairs: an
    expansion appended to the query ("client money" after "money") makes no pair."""
    store = index.store
    expanded = keyword_ranking(store, "money client money", 10, None, words="money")
    plain = store.keyword_search(keyword_terms(store, "money client money"), 10, None)
    assert [(h.chunk_id, pytest.approx(h.score)) for h in expanded] == [
        (h.chunk_id, h.score) for h in plain
    ]
    written = keyword_ranking(store, "money client money", 10, None, words="client money")
    assert written[0].chunk_id == "adjacent"
    assert written[0].score > {h.chunk_id: h.score for h in plain}["adjacent"]
