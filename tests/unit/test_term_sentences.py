"""Definitions looked up from the term: the shapes of text/term_sentences and Index.define
answering from them when no definition is stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hierdoc import Index, Settings
from hierdoc.cli import commands
from hierdoc.cli.state import State
from hierdoc.models import LOOKED_UP
from hierdoc.text.term_sentences import term_sentences
from hierdoc.tools.logic import run_define
from tests.hash_embedder import HashEmbedder


def best(text: str, term: str) -> tuple[str, str, str] | None:
    found = term_sentences(text, term)
    return (found[0].term, found[0].definition, found[0].shape) if found else None


@pytest.mark.parametrize(
    ("term", "text", "expected"),
    [
        (
            "personal data",
            '(1) "personal data" means any information relating to a natural person;',
            ("personal data", "any information relating to a natural person", "means"),
        ),
        (
            "Group company",
            "Group company, in relation to a company, means that company and its subsidiaries.",
            ("Group company", "that company and its subsidiaries", "means"),
        ),
        (
            "Content",
            "Content includes text, images and video that a user posts.",
            ("Content", "includes text, images and video that a user posts", "means"),
        ),
        (
            "releaser",
            "Releases are signed. A Releaser is a person who publishes a release.",
            ("Releaser", "is a person who publishes a release", "copula"),
        ),
        (
            "Product",
            "A **product** can be a good or service offered to customers.",
            ("product", "can be a good or service offered to customers", "copula"),
        ),
        (
            "data subject",
            "Data subjects are the natural persons whom the data identify.",
            ("Data subjects", "are the natural persons whom the data identify", "copula"),
        ),
        (
            "Affiliate",
            "- **Affiliate**: any entity that controls or is controlled by a party.",
            ("Affiliate", "any entity that controls or is controlled by a party", "colon"),
        ),
        (
            "Service",
            "Service\n    the hosted platform the Provider operates for customers.\n",
            ("Service", "the hosted platform the Provider operates for customers", "indented"),
        ),
        (
            "users",
            "By users we mean anyone who visits the site.",
            ("users", "anyone who visits the site", "by_we_mean"),
        ),
        (
            "safe",
            'Request methods are considered "safe" if their semantics are read-only.',
            ("safe", "if their semantics are read-only", "called"),
        ),
        (
            "doxing",
            'Members may not publish private information about others ("doxing").',
            ("doxing", "Members may not publish private information about others", "named"),
        ),
        (
            "Agreement",
            'This Master Services Agreement, hereafter referred to as "Agreement", binds A.',
            ("Agreement", "This Master Services Agreement", "named"),
        ),
        (
            "Standard Preferred Stock",
            "“S**tandard Preferred Stock**” means the shares of a series of Preferred Stock.",
            ("Standard Preferred Stock", "the shares of a series of Preferred Stock", "means"),
        ),
    ],
)
def test_a_shape_gives_the_term_and_its_definition(
    term: str, text: str, expected: tuple[str, str, str]
) -> None:
    assert best(text, term) == expected


@pytest.mark.parametrize(
    ("term", "text"),
    [
        ("Licensee", "The Licensee is responsible for all fees under this Agreement."),
        ("Payment", "Payment: Customer shall pay all invoices within 30 days."),
        ("Confidentiality", "**Confidentiality**: Each party will protect the other's data."),
        ("Services", "The Provider will perform the Services means of transport aside."),
        ("term", "The Term of this Agreement means nothing here."),  # "term" is the lead word
        ("Agreement", "Either party may end this Agreement on notice."),
        ("doxing", "Doxing is prohibited."),
        ("safe", "A method is considered safe if it changes nothing."),
        ("This", "Intro. This is the appropriate response when the server refuses it."),
        ("Note", "Note: previous versions of this specification recommended five."),
        ("Expires", "Expires: Thu, 01 Dec 1994 16:00:00 GMT"),
        ("user agent", "A user agent\ninclude this field with requests."),
        ("stored response", "A stored response is one of the following:\n- fresh; or\n- stale."),
    ],
)
def test_text_that_only_uses_the_term_defines_nothing(term: str, text: str) -> None:
    assert best(text, term) is None


def test_a_definition_runs_to_its_sentence_end_or_through_its_list() -> None:
    text = (
        '"Fees" means the amounts in the Order Form. Fees are due monthly.\n\n'
        '"Systems" means:\n(a) the servers; and\n(b) the networks.\nOther text follows.'
    )
    assert best(text, "fees")[1] == "the amounts in the Order Form"
    assert best(text, "systems")[1] == "(a) the servers; and (b) the networks"


def test_a_named_phrase_is_the_clause_before_the_name() -> None:
    nested = (
        "All contributors (including committers and maintainers) and other participants"
        ' in the Project (collectively, "Collaborators") follow it.'
    )
    possessive = (
        "in no event shall the maximum liability of the owners and creators of Crowdsignal"
        ' and the parties described in the next sentence (Crowdsignal\'s "Related Parties")'
    )
    labelled = '(1) There is established an Advisory Committee on Trade (the "Committee").'
    assert best(nested, "collaborators")[1] == (
        "All contributors (including committers and maintainers) and other participants"
        " in the Project"
    )
    assert best(possessive, "related parties")[1] == "the parties described in the next sentence"
    assert best(labelled, "committee")[1] == "There is established an Advisory Committee on Trade"


def test_a_marked_term_outscores_the_same_shape_unmarked() -> None:
    marked = term_sentences('"Customer Data" means data the Customer uploads.', "customer data")
    plain = term_sentences("Customer Data means data the Customer uploads.", "customer data")
    assert marked[0].score > plain[0].score


POLICY = (
    "# Community Policy\n\n## 1. Definitions\n\n"
    '"Member" means a person with an account.\n\n'
    "## 2. Conduct\n\nMembers may not publish private information about others"
    ' ("doxing"). Content, in relation to a post, means its text and images. The'
    " Member is responsible for the posts of the account.\n"
)


class HashState(State):
    """The CLI's state, reading the index with the hash embedder."""

    def open_reader(self) -> Index:
        return Index.open(self.index_option, Settings(), embedder=HashEmbedder(), mode="r")


@pytest.fixture(scope="module")
def policy_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lookup")
    docs = folder / "docs"
    docs.mkdir()
    (docs / "policy.md").write_text(POLICY, encoding="utf-8")
    (docs / "other.md").write_text("# Other\n\n## 1. Scope\n\nContent is welcome here.\n")
    with Index.open(folder / "index", Settings(), embedder=HashEmbedder()) as index:  # type: ignore[arg-type]
        index.ingest([docs])
    return folder / "index"


def test_define_answers_from_the_terms_sentence_when_nothing_is_stored(
    policy_index: Path,
) -> None:
    """Index.define on a real index: a stored definition first; a term only a sentence
    defines answered from it, style "sentence", with its citation; a term only used, not."""
    with Index.open(policy_index, Settings(), embedder=HashEmbedder(), mode="r") as index:  # type: ignore[arg-type]
        stored = index.define("member").definitions
        content = index.define("contents").definitions
        doxing = index.define("doxing", source="policy.md").definitions
        elsewhere = index.define("content", source="other.md").definitions
        used_only = index.define("posts").definitions
    assert [(d.definition, d.style) for d in stored] == [("a person with an account", "means")]
    assert [(d.term, d.definition, d.style, d.section_id) for d in content] == [
        ("Content", "its text and images", LOOKED_UP, "section-2")
    ]
    assert content[0].chunk_id and content[0].source.endswith("policy.md")
    assert [(d.definition, d.style) for d in doxing] == [
        ("Members may not publish private information about others", LOOKED_UP)
    ]
    assert elsewhere == [] and used_only == []


def test_cli_and_agent_tool_say_the_definition_was_found_from_its_sentence(
    policy_index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commands.define.main(["content"], obj=HashState(str(policy_index)), standalone_mode=False)
    printed = capsys.readouterr().out
    assert "[section-2]  (from its sentence)" in printed and "its text and images" in printed
    commands.define.main(
        ["content", "--json"], obj=HashState(str(policy_index)), standalone_mode=False
    )
    assert json.loads(capsys.readouterr().out)["definitions"][0]["style"] == LOOKED_UP
    with Index.open(policy_index, Settings(), embedder=HashEmbedder(), mode="r") as index:  # type: ignore[arg-type]
        told = run_define(index, "content")
    assert told.structured["definitions"][0]["style"] == LOOKED_UP
    assert "[section-2], from its sentence): its text and images" in told.text
