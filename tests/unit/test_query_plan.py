"""The query plan: each analyser takes a plan and gives a new one, with a step of trace;
the thresholds come from the search policy; a search reads the query's syntax once."""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import pytest

from hierdoc.config import SearchPolicy, SearchSettings
from hierdoc.errors import InputError
from hierdoc.models import Acronym, Definition, DocumentRecord, SearchFilter
from hierdoc.search.analysers import NamedDocuments, QuerySyntax, Vocabulary, analysers_for
from hierdoc.search.glossary import Glossary
from hierdoc.search.names import DocumentNames
from hierdoc.search.plan import QueryPlan, Step, build_plan

SETTINGS = SearchSettings()
DPA = "c/acme-data-processing-agreement.docx"
PILOT = "c/acme-pilot-agreement.docx"
LEASE = "l/office-lease.md"


def _plan(query: str, filt: SearchFilter | None = None, **settings: object) -> QueryPlan:
    return QueryPlan.asked(query, SETTINGS.search_settings(**settings), filt)


@pytest.fixture(scope="module")
def names() -> DocumentNames:
    titles = {DPA: "Data Processing Agreement", PILOT: "Pilot Agreement", LEASE: "Office Lease"}
    return DocumentNames([DocumentRecord(s, t, "h", "x", 1) for s, t in titles.items()])


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    acronyms = [Acronym("EACA", "Eligible Automatic Contribution Arrangement", "plan.md", "p:1")]
    documents = [DocumentRecord(f"nda-{n}.md", "", "h", "markdown", 1) for n in range(10)]
    definitions = [
        Definition("Agreement", "...", f"nda-{n}.md", "section-1", f"nda-{n}:1") for n in range(6)
    ]
    definitions += [
        Definition("Receiving Party", "...", f"nda-{n}.md", "section-3", f"nda-{n}:3")
        for n in (1, 2)
    ]
    return Glossary(acronyms, definitions, documents)


# -- the plan itself ------------------------------------------------------------------------


def test_a_plan_is_the_cleaned_query_checked_before_any_analyser() -> None:
    plan = _plan("  what is the notice\u200b period  ")
    assert (
        plan.query == "  what is the notice period  " and plan.text == "what is the notice period"
    )
    assert plan.trace == () and plan.searchable
    with pytest.raises(FrozenInstanceError):
        plan.text = "other"  # type: ignore[misc]
    with pytest.raises(InputError, match="empty"):
        _plan("   ")
    with pytest.raises(InputError, match="max_query_chars"):
        _plan("x" * 50, max_query_chars=10)


def test_a_query_with_no_letter_or_digit_is_read_by_no_analyser() -> None:
    plan = build_plan(_plan("?!"), (QuerySyntax(),))
    assert not plan.searchable and plan.trace == ()


def test_analysers_run_in_order_each_adding_one_step(glossary: Glossary) -> None:
    plan = build_plan(_plan("What is EACA?"), analysers_for(glossary))
    assert [step.analyser for step in plan.trace] == ["naming", "syntax", "vocabulary"]
    assert plan.to_dict()["trace"][2] == plan.trace[2].to_dict()
    assert build_plan(_plan("x"), analysers_for(None)).trace[0].analyser == "syntax"


# -- naming ---------------------------------------------------------------------------------


def test_naming_narrows_the_scope_and_searches_without_the_name(names: DocumentNames) -> None:
    before = _plan("Section 3.2 of the Pilot Agreement")
    after = NamedDocuments(names)(before)
    assert before.filt is None and before.trace == ()
    assert after.filt == SearchFilter(sources=(PILOT,))
    assert after.named == (PILOT,) and after.text == "Section 3.2 of the"
    (note,) = after.notes
    assert note.startswith("searched only acme-pilot-agreement.docx: named in the query")
    assert (
        after.trace[-1].analyser == "naming" and "searched only there" in after.trace[-1].decision
    )


def test_naming_keeps_the_text_when_only_the_name_was_asked(names: DocumentNames) -> None:
    after = NamedDocuments(names)(_plan("the Pilot Agreement"))
    assert after.named == (PILOT,) and after.text == "the Pilot Agreement"


def test_naming_the_document_already_searched_adds_no_note(names: DocumentNames) -> None:
    filt = SearchFilter(sources=(PILOT,))
    after = NamedDocuments(names)(_plan("Section 3.2 of the Pilot Agreement", filt))
    assert after.filt == filt and after.notes == () and after.named == (PILOT,)
    assert "the documents searched already" in after.trace[-1].decision


def test_a_query_naming_nothing_is_left_as_it_is(names: DocumentNames) -> None:
    before = _plan("when may the tenant terminate")
    after = NamedDocuments(names)(before)
    assert after.trace == (Step("naming", "names no document"),)
    assert (after.filt, after.text, after.named) == (before.filt, before.text, ())


def test_naming_reads_the_syntax_of_the_query_s_own_words_once() -> None:
    titles = {"office_lease.md": "Office Lease", "mutual_nda.md": "Mutual NDA"}
    names = DocumentNames([DocumentRecord(s, t, "h", "x", 1) for s, t in titles.items()])
    named = NamedDocuments(names)(_plan("late fee in office_lease.md"))
    assert named.named == ("office_lease.md",) and named.named_weight == 3.0
    assert named.text == "late fee in office_lease.md"  # the name is searched for too
    assert named.parsed is not None and named.parsed.text == "late fee in"
    read = QuerySyntax()(named)
    assert read.identifiers == () and read.remainder == "late fee in"
    assert read.trace[-1] == Step("syntax", "plain words")
    unnamed = QuerySyntax()(_plan("late fee in office_lease.md"))
    assert unnamed.identifiers == ("office_lease",)


def test_the_weight_of_a_named_document_s_ranking_is_the_policy_s(names: DocumentNames) -> None:
    written = NamedDocuments(names)(_plan("rent due under office-lease.md"))
    assert written.named == (LEASE,) and written.named_weight == 3.0
    assert "weight 3" in written.trace[-1].decision
    heavier = {"policy": SearchPolicy(written_name_weight=5)}
    assert (
        NamedDocuments(names)(_plan("rent due under office-lease.md", **heavier)).named_weight == 5
    )
    short = NamedDocuments(names)(_plan("pilot fees in the Pilot Agreement"))
    assert short.named == (PILOT,) and short.named_weight == 1.0
    lighter = {"policy": SearchPolicy(name_weight=0.5)}
    assert (
        NamedDocuments(names)(_plan("pilot fees in the Pilot Agreement", **lighter)).named_weight
        == 0.5
    )


def test_the_share_of_a_name_a_query_must_hold_is_the_policy_s(names: DocumentNames) -> None:
    query = "what the data agreement says"  # one word of three of the DPA's name
    assert NamedDocuments(names)(_plan(query)).named == ()
    lenient = {"policy": SearchPolicy(name_coverage=0.3)}
    assert NamedDocuments(names)(_plan(query, **lenient)).named == (DPA,)


# -- syntax ---------------------------------------------------------------------------------


def test_syntax_reads_phrases_identifiers_and_citations() -> None:
    after = QuerySyntax()(_plan('Article 17(3)(b) "without undue delay" `getTarget` paragraph (k)'))
    assert after.phrases == ("without undue delay",)
    assert after.identifiers == ("getTarget",)
    assert after.cited[0][0] == "Article 17(3)(b)"
    assert after.cited[0][1][0] == "article-17-3-b"
    assert [c.labels for c in after.relative] == [("k",)]
    assert "Article" not in after.remainder and "undue" in after.remainder
    decision = after.trace[-1].decision
    assert "cites Article 17(3)(b) (article-17-3-b)" in decision and "relative: (k)" in decision


def test_syntax_of_plain_words_finds_none() -> None:
    after = QuerySyntax()(_plan("notice period for termination"))
    assert (after.phrases, after.identifiers, after.cited, after.relative) == ((), (), (), ())
    assert after.remainder == "notice period for termination"
    assert after.trace[-1].decision == "plain words"


# -- vocabulary -----------------------------------------------------------------------------


def test_vocabulary_expands_an_acronym_and_embeds_the_expansion_when_meaning_is_asked(
    glossary: Glossary,
) -> None:
    after = Vocabulary(glossary)(QuerySyntax()(_plan("What is EACA?")))
    assert after.vocabulary.expansions == ["Eligible Automatic Contribution Arrangement"]
    assert after.vocabulary.asks_meaning and after.embedded == after.expanded
    assert after.expanded == "What is EACA? Eligible Automatic Contribution Arrangement"
    assert after.vocabulary.defining_chunks == ["p:1"] and after.documents == 10
    assert "expands with Eligible" in after.trace[-1].decision


def test_vocabulary_embeds_the_text_alone_when_meaning_is_not_asked(glossary: Glossary) -> None:
    after = Vocabulary(glossary)(_plan("EACA contributions in 2024"))
    assert after.vocabulary.expansions and not after.vocabulary.asks_meaning
    assert after.embedded == after.text != after.expanded


def test_generic_and_rare_terms_follow_the_policy(glossary: Glossary) -> None:
    asked = "What does Agreement mean?"
    assert Vocabulary(glossary)(_plan(asked)).vocabulary.defining_chunks == []
    lenient = {"policy": SearchPolicy(generic_share=0.9)}
    defining = Vocabulary(glossary)(_plan(asked, **lenient)).vocabulary.defining_chunks
    assert defining == [f"nda-{n}:1" for n in range(6)]
    question = "What is the notice period of the Receiving Party?"  # not about the term
    assert Vocabulary(glossary)(_plan(question)).vocabulary.defining_chunks == []
    rarer = {"policy": SearchPolicy(rare_share=0.2)}  # two documents of ten are few
    assert Vocabulary(glossary)(_plan(question, **rarer)).vocabulary.defining_chunks == []
    meaning = "What does Agreement mean for the Receiving Party?"
    assert Vocabulary(glossary)(_plan(meaning)).vocabulary.defining_chunks == []
    defining = Vocabulary(glossary)(_plan(meaning, **rarer)).vocabulary.defining_chunks
    assert defining == ["nda-1:3", "nda-2:3"]


def test_a_generic_heading_is_the_policy_s_generic() -> None:
    plan = _plan("Confidentiality")
    assert not plan.generic(100)  # documents unknown: nothing is generic
    counted = QueryPlan.asked("Confidentiality", SETTINGS).decided("test", "", documents=10)
    assert counted.generic(3) and not counted.generic(2)
    assert counted.trace == (Step("test", ""),)


def test_every_policy_threshold_is_documented_with_its_default() -> None:
    from tests.paths import REPOSITORY

    page = (REPOSITORY / "docs" / "configuration.md").read_text(encoding="utf-8")
    for name, field in SearchPolicy.model_fields.items():
        default = field.default
        shown = str(default).lower() if isinstance(default, (bool, str)) else f"{default:g}"
        assert f"| `{name}` | {shown} |" in page, name


def test_a_policy_in_the_settings_file_reaches_the_plan(tmp_path) -> None:
    from hierdoc.config import load_settings

    config = tmp_path / "hierdoc.yaml"
    config.write_text("policy: {crowded_citation: 7}\n", encoding="utf-8")
    settings = load_settings(config).search_settings()
    assert QueryPlan.asked("Article 5", settings).policy.crowded_citation == 7
    assert settings.policy.pointing_chunks == 10
