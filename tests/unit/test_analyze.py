"""The BM25 analyzer: identifiers, words, numbers, and index/query symmetry."""

from __future__ import annotations

import pytest

from hierdoc.text.analyze import (
    ENGLISH_STOP_WORDS,
    QueryTerm,
    analyze,
    analyze_query,
    analyze_words,
    normalize,
)


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("401(k)", ["401(k)", "401", "k"]),
        ("403(b)(2)", ["403(b)(2)", "403(b)", "403", "b", "2"]),
        ("30101(4)", ["30101(4)", "30101", "4"]),
        ("§ 4.2", ["4.2", "4", "2"]),
        ("§4.2", ["4.2", "4", "2"]),
        ("1.2.3", ["1.2.3", "1.2", "1", "2", "3"]),
        ("Article 6(1)(a)", ["articl", "6(1)(a)", "6(1)", "6", "1", "a"]),
        ("i-Escrow", ["i-escrow", "i", "escrow"]),
        ("co-operation", ["co-operation", "co", "oper"]),
        ("EACA", ["eaca"]),
        ("U.S.C.", ["usc"]),
        ("26 U.S.C. § 414(w)", ["26", "usc", "414(w)", "414", "w"]),
        ("getUserName", ["getusername", "get", "user", "name"]),
        ("get_user_name", ["get_user_name", "get", "user", "name"]),
        ("GetUserName", ["getusername", "get", "user", "name"]),
        ("HTTPServer", ["httpserver", "http", "server"]),
        ("2016/679", ["2016/679", "2016", "679"]),
        ("$1,000", ["1000"]),
        ("$1,000,000", ["1000000"]),
        ("25%", ["25"]),
        ("1.401(k)-1", ["1.401(k)-1", "1.401(k)", "1.401", "1", "401", "k"]),
        ("self.getTarget()", ["self.gettarget", "gettarget", "self", "get", "target"]),
        ("procRaise(x)", ["procraise(x)", "procraise", "proc", "rais", "x"]),
        (
            "self.frame_timer",
            ["self.frame_timer", "self.frame", "frame_timer", "self", "frame", "timer"],
        ),
    ],
)
def test_identifier_and_number_examples(text: str, terms: list[str]) -> None:
    assert analyze(text) == terms


def test_section_reference_in_a_sentence() -> None:
    terms = analyze("Section 403(b)(2) applies.")
    assert terms == ["section", "403(b)(2)", "403(b)", "403", "b", "2", "appli"]


def test_stemming_conflates_inflections() -> None:
    assert analyze("authorities") == analyze("authority")
    assert analyze("supervisory authorities") == analyze("Supervisory Authority")
    assert analyze("plans") == ["plan"]


def test_identifiers_are_not_stemmed() -> None:
    assert "401(k)s" not in analyze("401(k)")
    assert analyze("Article") == ["articl"]  # a word is stemmed...
    assert "6(1)(a)" in analyze("Article 6(1)(a)")  # ...its identifier is not


def test_stop_words_dropped() -> None:
    assert analyze("the controller and the processor") == ["control", "processor"]
    assert analyze("a") == []
    assert analyze("The AND Of") == []
    assert len(ENGLISH_STOP_WORDS) == 33


def test_a_kept_as_identifier_part() -> None:
    assert "a" in analyze("Article 6(1)(a)")
    assert analyze("paragraph (a)") == ["paragraph", "a"]
    assert "a" not in analyze("a paragraph")


def test_case_and_possessives() -> None:
    assert analyze("EMPLOYER") == analyze("employer") == analyze("Employer")
    assert analyze("employer's") == analyze("employer")
    assert analyze("401(k)'s") == analyze("401(k)")
    assert analyze("EACAs") == analyze("EACA")


def test_normalisation_and_quote_folding() -> None:
    assert normalize("“quoted” ‘text’") == "\"quoted\" 'text'"
    assert analyze("employer’s") == analyze("employer's")
    assert analyze("ﬁnance") == analyze("finance")  # NFKC: ligature
    assert analyze("４０１(ｋ)") == analyze("401(k)")  # NFKC: full-width
    assert analyze("co\u2011operation") == analyze("co-operation")  # non-breaking hyphen


def test_separators() -> None:
    assert analyze("Sections 1–3") == ["section", "1", "3"]  # en dash separates
    assert analyze("items 1,2 and 3") == ["item", "1", "2", "3"]
    assert analyze("(the Company)") == ["compani"]
    assert analyze("") == []
    assert analyze("§§ — ... ()[]{} ____ $ %") == []


def test_long_tokens_keep_parts_only() -> None:
    long = "x" * 200
    assert analyze(long) == []
    assert analyze(f"{long}-7") == ["7"]


def test_analyze_words() -> None:
    assert analyze_words("The Supervisory Authorities’ co-operation, under 403(b)(2).") == [
        "the",
        "supervisory",
        "authorities",
        "co-operation",
        "under",
        "403(b)(2)",
    ]
    assert analyze_words("§ 4.2 of U.S.C. costs $1,000") == ["4.2", "of", "usc", "costs", "1000"]
    assert analyze_words("a getUserName") == ["a", "getusername"]


def test_query_keeps_identifiers_whole() -> None:
    assert analyze_query("401(k)") == [QueryTerm("401(k)")]
    assert analyze_query("Section 403(b)(2)") == [
        QueryTerm("section"),
        QueryTerm("403(b)(2)", (("403(b)",),)),
    ]
    assert [q.term for q in analyze_query("co-operation")] == ["co-operation", "co", "oper"]
    assert analyze_query("401k") == [QueryTerm("401k", (("401", "k"),))]
    assert analyze_query("2016/679") == [QueryTerm("2016/679", (("2016", "679"),))]


def test_query_terms_are_distinct() -> None:
    assert [q.term for q in analyze_query("plan plans PLAN")] == ["plan"]
    assert analyze_query("the of and") == []
    assert analyze_query("\"'():;!?") == []


SYMMETRY_TEXTS = [
    "Section 403(b)(2) of the Code",
    "Article 6(1)(a) GDPR",
    "supervisory authorities",
    "§ 4.2.1 and 26 U.S.C. § 414(w)",
    "the EACA (eligible automatic contribution arrangement)",
    "getUserName() returns the user's name",
    "state-of-the-art co-operation",
    "Regulation (EU) 2016/679 of 27 April 2016",
    "$1,000 or 25% of COVID-19 relief under Rule 10b-5 and 401k plans",
    "“Curly quotes” and ﬁnance",
]


@pytest.mark.parametrize("text", SYMMETRY_TEXTS)
def test_query_index_symmetry(text: str) -> None:
    """Every query term (and every backoff term) is a term the same text indexes to."""
    indexed = set(analyze(text))
    for qt in analyze_query(text):
        assert qt.term in indexed
        for alternative in qt.backoff:
            assert set(alternative) <= indexed
    assert analyze(text) == analyze(text)  # deterministic, cache-independent


@pytest.mark.parametrize("text", SYMMETRY_TEXTS)
def test_query_found_inside_a_longer_document(text: str) -> None:
    document = f"Preamble text. {text}. More text follows here."
    indexed = set(analyze(document))
    assert {qt.term for qt in analyze_query(text)} <= indexed
    words = analyze_words(document)
    phrase = analyze_words(text)
    assert any(words[i : i + len(phrase)] == phrase for i in range(len(words)))


def test_dotted_names_back_off_to_their_parts_but_citations_do_not() -> None:
    assert analyze_query("self.inner.run") == [
        QueryTerm("self.inner.run", (("self.inner",), ("self", "inner", "run")))
    ]
    assert analyze_query("1.2.3") == [QueryTerm("1.2.3", (("1.2",),))]
