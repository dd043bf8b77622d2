"""Training pairs mined from an index's structure (a small agreement indexed with the hash
embedder), the user's pairs file, the held-out slice and the training batches."""

from __future__ import annotations

import json
import random

import pytest

from hierdoc.errors import InputError
from hierdoc.pipeline.tune import TrainSettings, batches, trained_pairs
from hierdoc.pipeline.tune_pairs import (
    MAX_PER_QUERY,
    Pair,
    held_out,
    mine_pairs,
    read_given_pairs,
    unique_pairs,
)
from tests.hash_embedder import hash_index

AGREEMENT = """# Services Agreement

## Article 1 Definitions

1. "Customer Data" means all data that the Customer uploads to the Service, including personal data.

2. "Service" means the hosted document platform that the Provider operates for the Customer.

## Article 2 Fees and payment

1. The Customer shall pay the fees set out in the order form within thirty days of each invoice.

2. Late payments bear interest at two percent per month, without prejudice to Article 4.

## Article 3 The Service

1. The Provider shall make the Service available every day, at least 99% of the time.

2. Maintenance windows are announced a week in advance by electronic mail to the Customer.

## Article 4 Termination

1. Either party may terminate this Agreement on ninety days written notice to the other party.

2. On termination the Provider shall return the Customer Data and delete every copy it holds.
"""


@pytest.fixture(scope="module")
def pairs(tmp_path_factory) -> list[Pair]:
    with hash_index(tmp_path_factory.mktemp("tune") / "index", {"services.md": AGREEMENT}) as ix:
        return mine_pairs(ix.store)


def of_kind(pairs: list[Pair], kind: str) -> dict[str, Pair]:
    return {p.query: p for p in pairs if p.kind == kind}


def test_a_heading_finds_the_text_under_it_and_not_its_neighbour(pairs) -> None:
    heading = of_kind(pairs, "heading")["Article 4 Termination"]
    assert heading.passage.startswith("1. Either party may terminate")
    assert "return the Customer Data" in heading.passage  # the sub-sections' text is included
    assert heading.negative is not None and "Article 4" not in heading.negative
    assert heading.negative.startswith("1. The Provider shall make the Service available")


def test_a_heading_path_finds_each_section_under_it_with_a_sibling_as_negative(pairs) -> None:
    under = [p for p in pairs if p.kind == "path" and p.query == "Article 2 Fees and payment"]
    assert [p.passage[:14] for p in under] == ["1. The Custome", "2. Late paymen"]
    assert [p.negative[:14] for p in under if p.negative] == ["2. Late paymen", "1. The Custome"]


def test_numbers_alone_make_no_heading_pair(pairs) -> None:
    assert not [p for p in pairs if p.kind == "heading" and p.query in ("1.", "2.")]


def test_a_defined_term_finds_its_definition(pairs) -> None:
    definition = of_kind(pairs, "definition")["Customer Data"]
    assert definition.passage.startswith("all data that the Customer uploads")
    assert definition.negative.startswith("the hosted document platform")


def test_a_citing_sentence_finds_the_cited_section(pairs) -> None:
    citation = next(p for p in pairs if p.kind == "citation")
    assert citation.query.startswith("2. Late payments bear interest")
    assert citation.passage.startswith("1. Either party may terminate")
    assert citation.negative is not None and citation.negative != citation.passage


def test_no_pair_is_mined_twice_and_none_is_repeated_without_end() -> None:
    many = [Pair("Recitals", f"recital number {n} " * 8, None, "path") for n in range(10)]
    twice = [Pair("Heading", "text " * 20, None, "heading")] * 2
    kept = unique_pairs(many + twice)
    assert len([p for p in kept if p.query == "Recitals"]) == MAX_PER_QUERY
    assert len([p for p in kept if p.query == "Heading"]) == 1


def test_the_held_out_slice_is_seeded_and_its_passages_are_never_trained_on() -> None:
    pairs = [Pair(f"q{n}", f"passage {n % 7}", None, "path") for n in range(40)]
    training, held = held_out(pairs, 0.25, seed=3, cap=100)
    assert len(held) == 10
    assert held == held_out(pairs, 0.25, seed=3, cap=100)[1]
    assert not {p.passage for p in held} & {p.passage for p in training}


def test_a_batch_never_holds_a_query_or_passage_twice() -> None:
    pairs = [Pair(f"q{n % 5}", f"p{n % 3}", f"p{(n + 1) % 3}", "path") for n in range(30)]
    made = batches(pairs, 4, random.Random(0))
    assert sum(len(batch) for batch in made) == len(pairs)
    for batch in made:
        texts = [t for p in batch for t in (p.query, p.passage, p.negative)]
        assert len(texts) == len(set(texts))


def test_training_without_hard_negatives_drops_them_and_keeps_every_pair() -> None:
    pairs = [Pair(f"q{n}", f"p{n}", f"p{n + 1}", "path") for n in range(4)]
    assert trained_pairs(pairs, TrainSettings()) == pairs
    stripped = trained_pairs(pairs, TrainSettings(hard_negatives=False))
    assert [(p.query, p.passage, p.negative) for p in stripped] == [
        (f"q{n}", f"p{n}", None) for n in range(4)
    ]


def test_given_pairs_are_read_from_jsonl(tmp_path) -> None:
    path = tmp_path / "pairs.jsonl"
    row = {"query": "late fees", "passage": "Late payments bear interest."}
    path.write_text(json.dumps(row) + "\n\n")
    assert read_given_pairs(path) == [
        Pair("late fees", "Late payments bear interest.", None, "given")
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "holds no pairs"),
        ("{not json\n", ":1: not JSON"),
        ('["query"]\n', "expected an object"),
        ('{"query": "q"}\n', "'passage' must be a non-empty string"),
        ('{"query": " ", "passage": "p"}\n', "'query' must be a non-empty string"),
    ],
)
def test_a_bad_pairs_file_is_a_clear_error(tmp_path, content: str, message: str) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        read_given_pairs(path)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"epochs": 0}, "epochs must be a whole number of at least 1"),
        ({"max_pairs": 2.5}, "max_pairs must be a whole number"),
        ({"seed": -1}, "seed must be a whole number of at least 0"),
        ({"learning_rate": 0}, "learning_rate must be above 0 and at most 0.01"),
        ({"learning_rate": 0.5}, "learning_rate must be above 0 and at most 0.01"),
        ({"learning_rate": "fast"}, "learning_rate must be a number"),
    ],
)
def test_bad_tune_options_are_refused_before_any_work(tmp_path, options, message) -> None:
    index_of = hash_index(tmp_path / "index", {"services.md": AGREEMENT})
    with index_of as index, pytest.raises(InputError, match=message):
        index.tune(**options)
