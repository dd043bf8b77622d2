"""Definitions in layouts of licences, legislation, bylaws and glossaries: quoted terms on
lines of their own, qualified and inclusive legislative definitions, compound glossary
entries, bold terms inside sentences, parenthetical names and quotes that do not match."""

from __future__ import annotations

import pytest

from hierdoc.pipeline.extract.definitions import find_definitions


def _pairs(text: str, in_section: bool = False) -> dict[str, str]:
    return {d.term: d.definition for d in find_definitions(text, in_section)}


# --- a quoted term alone on its line, its text on the lines below ----------------------------

QUOTED_LINES = """GLOSSARY
========

The following words are used in this document:

   `Package'
    Any bundle of files published under this document.

   `Upstream Author'
    The person who first published a Package, or a person named by them.

   "Mirror"
    A site copying a Package without changing it.
"""


def test_a_quoted_term_alone_on_its_line_is_defined_by_the_lines_below() -> None:
    found = _pairs(QUOTED_LINES, True)
    assert found["Package"] == "Any bundle of files published under this document"
    assert found["Upstream Author"].startswith("The person who first published")
    assert found["Mirror"] == "A site copying a Package without changing it"


def test_an_unquoted_line_one_column_over_its_text_is_no_term() -> None:
    text = "Scope\n\n   Packages\n    These rules apply to every package we ship.\n"
    assert "Packages" not in _pairs(text, True)


# --- legislation: italic terms that "include", terms qualified before "means" ----------------

INTERPRETATION = """In this Act, unless the contrary intention appears:

*Officer* includes Deputy, Acting Officer and
Registrar.

*Commonwealth* includes the Territories.

*court*, in relation to the hearing of an appeal under this
Act in a State, means the Supreme Court of that State.

*vessel* means a ship or a boat.
"""


def test_an_emphasised_term_opening_its_paragraph_is_defined_by_includes() -> None:
    found = _pairs(INTERPRETATION)
    assert found["Officer"] == "Deputy, Acting Officer and Registrar"
    assert found["Commonwealth"] == "the Territories"
    assert found["vessel"] == "a ship or a boat"


def test_a_qualifier_between_commas_over_a_line_break_keeps_its_term() -> None:
    assert _pairs(INTERPRETATION)["court"] == "the Supreme Court of that State"


# --- glossary bullets: two names in one entry, a quoted qualifier, a role after a colon ------

GROUPS = """This charter uses the following names for existing groups:

* "ASF" and "ASF Council": the Apple Sailing Federation and its elected
  council, respectively.
* A crew "in good standing" of a regatta held under these rules is any crew
  whose entry has not been withdrawn by the race committee.
"""


def test_two_quoted_names_joined_by_and_share_their_entry() -> None:
    found = _pairs(GROUPS, True)
    assert found["ASF"].startswith("the Apple Sailing Federation and its elected council")
    assert found["ASF Council"] == found["ASF"]


def test_a_quoted_qualifier_of_the_subject_is_defined_by_what_the_subject_is() -> None:
    assert _pairs(GROUPS)["in good standing"] == (
        "any crew whose entry has not been withdrawn by the race committee"
    )


def test_a_role_named_after_a_colon_is_defined_by_its_genus() -> None:
    text = (
        "The charter adds one role for this: a Steward is a person who\n"
        "keeps the club's boats in working order.\n"
    )
    assert _pairs(text)["Steward"].startswith("a person who keeps the club's boats")


# --- bold terms in a definitions section: a second clause, "can be" ------------------------

BOLD_CLAUSES = """The **seller** is the company listing these goods, and the **catalogue** is
the list of goods the seller offers under these terms.

A **bundle** can be a single item or a set of items sold together.
"""


def test_a_bold_term_in_the_second_clause_of_a_sentence_is_defined_too() -> None:
    found = _pairs(BOLD_CLAUSES, True)
    assert found["seller"] == "is the company listing these goods"
    assert found["catalogue"].startswith("is the list of goods the seller offers")


def test_a_bold_term_is_defined_by_what_it_can_be() -> None:
    assert _pairs(BOLD_CLAUSES, True)["bundle"].startswith("can be a single item or a set")


# --- parenthetical names: a plural mark, the words set off by commas ------------------------


def test_a_term_marking_its_plural_in_parentheses_is_named_by_the_phrase_before() -> None:
    text = "You may build plug-ins for the hosted reporting platform (“Plug-in(s)”) only.\n"
    found = _pairs(text)
    assert "plug-ins for the hosted reporting platform" in found["Plug-in"]


def test_hereafter_referred_to_as_between_commas_names_the_phrase_before() -> None:
    text = 'Acme Inc. supplies this "Toolkit", hereafter referred to as the "Kit", to you.\n'
    assert _pairs(text)["Kit"] == "this Toolkit"


BEHAVIOURS = """Unacceptable behaviour includes:

- Shouting at other members during meetings
- Posting (or offering to post) other members' phone numbers ("phone-dumping"), such as
  home or mobile numbers, without their consent
- Other conduct harming the club
"""


def test_a_bullet_naming_a_behaviour_by_its_gerund_is_named_whole() -> None:
    assert _pairs(BEHAVIOURS)["phone-dumping"] == (
        "Posting (or offering to post) other members' phone numbers"
    )


# --- quotes a typesetter turned the wrong way ---------------------------------------------------

TURNED_QUOTES = """(i) “Council“ means the elected council of the Society;

(ii) ”Minutes” refer to the written record of each meeting of the Council;
"""


def test_a_term_closed_or_opened_with_the_wrong_curly_quote_is_defined() -> None:
    found = _pairs(TURNED_QUOTES, True)
    assert found["Council"] == "the elected council of the Society"
    assert found["Minutes"].startswith("the written record of each meeting")


# --- look-alikes that define nothing ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "term"),
    [
        # an emphasised subject inside a sentence does not "include" as a definition does
        ("Payment is due monthly. The *Licence* includes the schedules attached.\n", "Licence"),
        # a rule saying when something counts as one of a class
        (
            "For the purposes of the Schedule, a tenant is an assignee if the tenant took\n"
            "the lease from another tenant.\n",
            "tenant",
        ),
        # how to read the document's words, in a definitions list
        (
            "(i) Words importing the plural number include the singular;\n",
            "Words importing the plural number",
        ),
        # a sentence (not a bullet) opening with a gerund, a gloss in quotes inside it
        (
            "Considering that an order could be anything, an agent is needed to stand in\n"
            '("act for") the seller in each trade.\n',
            "act for",
        ),
        # a part's label over a wrapped line that a converter set as a description
        ("Section 4.\n:   following conditions:\n", "Section 4."),
        # a quoted qualifier without the subject's noun repeated
        (
            'A crew "in good standing" of a regatta is allowed to protest a result.\n',
            "in good standing",
        ),
    ],
)
def test_look_alikes_define_nothing(text: str, term: str) -> None:
    assert term not in _pairs(text) and term not in _pairs(text, True)
