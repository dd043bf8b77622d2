"""Template agreements: a parenthesis after a blank to fill in ("as of [DATE] (the
“Effective Date”)") defines the term as that blank; a parenthesis that names its own subject
("(Party A and [NAME] are each a “Party”)") defines the term as the subject; a run of
underscores is a blank, not emphasis; a word Word emphasises from its second letter is not
split by the marker."""

from __future__ import annotations

import pytest

from hierdoc.pipeline.convert_docx import _inline, _Span
from hierdoc.pipeline.extract.definitions import find_definitions

PREAMBLE = (
    "This Agreement is entered into as of [DATE] (the “Effective Date”) by and between "
    "[INDIVIDUAL OR ENTITY] (“Party A”) and [DAO LEGAL WRAPPER], a [ENTITY TYPE] (the "
    "“Entity”) (Party A and [NAME] are each a “Party” and both, the “Parties”)."
)


def defined(text: str) -> dict[str, str]:
    return {d.term: d.definition for d in find_definitions(text)}


@pytest.mark.parametrize(
    ("term", "definition"),
    [
        ("Effective Date", "[DATE]"),
        ("Party A", "[INDIVIDUAL OR ENTITY]"),
        ("Entity", "[DAO LEGAL WRAPPER], a [ENTITY TYPE]"),
        ("Party", "Party A and [NAME]"),
        ("Parties", "Party A and [NAME]"),
    ],
)
def test_a_blank_or_a_subject_is_what_the_parenthesis_names(term: str, definition: str) -> None:
    assert defined(PREAMBLE)[term] == definition


def test_a_run_of_underscores_is_a_blank_not_emphasis() -> None:
    text = "in exchange for the payment of $[__________] (the “Purchase Amount”) on or about"
    assert defined(text)["Purchase Amount"] == "$[__________]"


def test_a_parenthesis_saying_more_than_its_subject_defines_nothing() -> None:
    text = "The fee (which the Customer and the Provider are each a “Party” to, see below)."
    assert "Party" not in defined(text)


def test_a_word_emphasised_from_its_second_letter_is_emphasised_whole() -> None:
    spans = [_Span("“S"), _Span("tandard Preferred Stock", bold=True), _Span("” means the")]
    assert _inline(spans) == "“**Standard Preferred Stock**” means the"
    spans = [_Span("Term", bold=True), _Span("s apply. Next")]
    assert _inline(spans) == "**Terms** apply. Next"
    assert _inline([_Span("plain "), _Span("Bold", bold=True)]) == "plain **Bold**"
