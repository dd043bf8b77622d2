"""Definitions recognised by their form, whatever the document's words: an unquoted term
announced by "the term" or "as used in ...", and the near-misses of each form that define
nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from hierdoc.pipeline.extract.definitions import find_definitions


def pairs(text: str, in_section: bool = False) -> list[tuple[str, str]]:
    return [(item.term, item.definition) for item in find_definitions(text, in_section)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The term authorization refers to the decision given by a senior official.\n",
            [("authorization", "the decision given by a senior official")],
        ),
        (
            "In this policy, the term vendor denotes any supplier of hardware. Vendors sign.\n",
            [("vendor", "any supplier of hardware")],
        ),
        (
            "A term of art such as\nthe phrase storage medium means any device that holds data.\n",
            [("storage medium", "any device that holds data")],
        ),
        (
            "As used in this Agreement, Affiliate means any entity that controls a party.\n",
            [("Affiliate", "any entity that controls a party")],
        ),
        (
            "Scope. As used in this Part, a covered system means a system that stores"
            " customer data. It is reviewed yearly.\n",
            [("covered system", "a system that stores customer data")],
        ),
    ],
)
def test_an_announced_unquoted_term_is_defined(text: str, expected: list[tuple[str, str]]) -> None:
    assert pairs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "The term of this Agreement includes any renewal period.\n",
        "The term Confidential Information does not include public information.\n",
        "As used in clause 5, references to the Supplier include its agents.\n",
        "The term hereof means three years from the start date.\n",
        "As used in this Agreement, the following terms have the meanings set out below.\n",
        "The word value indicates that the client wants trailers.\n",
        "The terms and conditions include the schedules.\n",
        "In this section, both sender and recipient refer to the client or the server.\n",
        "Used in this way, the tool means less work for everyone.\n",
    ],
)
def test_near_misses_of_an_announced_term_define_nothing(text: str) -> None:
    assert pairs(text) == []


def test_a_quoted_term_after_the_lead_is_read_once() -> None:
    text = 'As used herein, the term "Buyer" means Acme Corp. and its successors.\n'
    assert pairs(text) == [("Buyer", "Acme Corp. and its successors")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "You agree to defend, indemnify and hold harmless Acme, its contractors, licensors,"
            ' and partners, and their respective officers and agents ("Indemnified Parties")'
            " from and against any claims.\n",
            [
                (
                    "Indemnified Parties",
                    "Acme, its contractors, licensors, and partners, and their respective"
                    " officers and agents",
                )
            ],
        ),
        (
            'The customer, its officers, directors, employees and agents (the "Customer'
            ' Parties") are released.\n',
            [("Customer Parties", "The customer, its officers, directors, employees and agents")],
        ),
        (
            "Acme offers text, software, photos, sounds and other material (called"
            ' "Materials") that are protected by copyrights, trademarks, patents or other'
            ' rights (called "Property Rights").\n',
            [
                ("Materials", "text, software, photos, sounds and other material"),
                ("Property Rights", "copyrights, trademarks, patents or other rights"),
            ],
        ),
        (
            "Recipient shall return all documents, notes, and copies (the “Copies”).\n",
            [("Copies", "all documents, notes, and copies")],
        ),
        (
            "Licensee shall indemnify Licensor, its parents, subsidiaries, and affiliates"
            ' ("Licensor Entities") against claims.\n',
            [("Licensor Entities", "Licensor, its parents, subsidiaries, and affiliates")],
        ),
    ],
)
def test_a_plural_name_after_a_list_names_the_whole_list(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a plural name of a plain noun phrase keeps the phrase
        (
            'The Supplier will deliver the goods (the "Products") on time.\n',
            [("Products", "the goods")],
        ),
        # a list of two is no list to name
        ('This covers apples and pears (the "Fruits") only.\n', []),
        # a singular name after a list is not read as the list's
        ('Acme sells apples, pears and plums (the "Basket") daily.\n', []),
    ],
)
def test_near_misses_of_a_named_list(text: str, expected: list[tuple[str, str]]) -> None:
    assert pairs(text) == expected


def test_define_finds_a_term_asked_with_or_without_its_article(tmp_path: Path) -> None:
    """'“The Program” means' is stored as "Program"; a reader asking for "The Program" gets
    it as one asking for "Program" does. A different term is still no answer."""
    from hierdoc import Index
    from hierdoc.config import Settings
    from tests.hash_embedder import HashEmbedder

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "licence.md").write_text(
        "# Licence\n\n## 1. Definitions\n\n“The Program” means the work licensed here.\n\n"
        "## 2. Grant\n\nThe Licensor grants rights.\n",
        encoding="utf-8",
    )
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:  # type: ignore[arg-type]
        index.ingest([tmp_path / "docs"])
        asked = index.define("The Program").definitions
        bare = index.define("Program").definitions
        other = index.define("The Grant").definitions
    assert [(d.term, d.definition) for d in asked] == [("Program", "the work licensed here")]
    assert asked == bare and other == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Each field body may be split into several lines; this is called “folding”. The"
            " rule is simple.\n",
            [("folding", "Each field body may be split into several lines")],
        ),
        (
            "Some text first. A server may keep copies of responses for reuse. This is known"
            ' as a "cache". It is fast.\n',
            [("cache", "A server may keep copies of responses for reuse")],
        ),
        (
            "7.1.1. Close the Session\n\nTo _Close the Session_, an endpoint closes the"
            " underlying transport connection. It may also wait.\n",
            [("Close the Session", "an endpoint closes the underlying transport connection")],
        ),
    ],
)
def test_a_clause_named_after_it_or_a_procedure_defines_the_term(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert pairs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # an instruction, not what doing it is
        'To "opt out", click the link at the foot of the email.\n',
        # "which" has no subject of its own to define the term with
        'The client sends its data in small pieces, which are called "chunks". Each has a size.\n',
        # nothing before "this" to name
        'This is called "the Agreement" in the rest of this document.\n',
        # too little before it
        'Stop; this is called "halting".\n',
        # the quoted words qualify a noun after them
        'A server can choose the nonce the client uses. This is called a "chosen plaintext"'
        " attack.\n",
    ],
)
def test_near_misses_of_a_named_clause_or_procedure(text: str) -> None:
    assert pairs(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "We use the term incident to mean any event that compromises a system.\n",
            [("incident", "any event that compromises a system")],
        ),
        (
            'By "personal data" we mean any information relating to you.\n',
            [("personal data", "any information relating to you")],
        ),
        (
            "In this document, supplier refers to any person who supplies goods.\n",
            [("supplier", "any person who supplies goods")],
        ),
        (
            'Throughout this policy, "Staff" is used to refer to all employees and contractors.\n',
            [("Staff", "all employees and contractors")],
        ),
        (
            '"Authorized User": an employee of Customer authorized to use the Service.\n',
            [("Authorized User", "an employee of Customer authorized to use the Service")],
        ),
    ],
)
def test_other_announcing_forms_define(text: str, expected: list[tuple[str, str]]) -> None:
    assert pairs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "By contrast, we mean well.\n",
        "In this case, the server refers to the cache.\n",
        "In this document, the server means to close idle connections.\n",
        "A tool is used to refer to nothing in particular.\n",
        "- **Security**: We encrypt all data at rest.\n",
        'He said "Stop": nobody listened.\n',
        '{\n  "name": "Jane Doe",\n  "size": 10,\n  "note": some words here,\n}\n',
    ],
)
def test_near_misses_of_other_announcing_forms(text: str) -> None:
    assert pairs(text) == []


@pytest.mark.parametrize(
    "text",
    [
        # widening or pointing at a definition given elsewhere defines nothing here
        "The term creditor includes a creditor's assignee who so participates.\n",
        "For purposes of this part, the term creditor also includes a person who refers.\n",
        "The term also includes the service of conducting a settlement.\n",
        "The term employee has the meaning provided in paragraph (1).\n",
    ],
)
def test_an_announced_term_widened_or_pointed_elsewhere_is_no_definition(text: str) -> None:
    assert pairs(text) == []


def test_run_in_items_each_name_their_whole_item() -> None:
    text = (
        "The Investor receives the greater of (i) the Purchase Amount (the “Cash-Out Amount”)"
        " or (ii) the amount payable on the shares equal to the Purchase Amount divided by the"
        " Price (the “Conversion Amount”).\n"
    )
    assert pairs(text) == [
        ("Cash-Out Amount", "the Purchase Amount"),
        (
            "Conversion Amount",
            "the amount payable on the shares equal to the Purchase Amount divided by the Price",
        ),
    ]


def test_an_acronym_names_its_spelled_out_words_with_their_qualifiers() -> None:
    text = (
        "This Mutual Non-Disclosure Agreement (“NDA”) is designed to allow disclosure.\n\n"
        "Acme entered into a Non-Disclosure Agreement (“NDA”) with Beta.\n\n"
        "Customer's Data Processing Agreement (“DPA”) applies.\n"
    )
    assert pairs(text) == [
        ("NDA", "This Mutual Non-Disclosure Agreement"),
        ("NDA", "a Non-Disclosure Agreement"),
        ("DPA", "Data Processing Agreement"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "A significant change is one that is likely to affect the security of a system.\n",
            [("significant change", "one that is likely to affect the security of a system")],
        ),
        (
            "Uptime matters. Availability is defined as the percentage of time the service is"
            " up.\n",
            [("Availability", "the percentage of time the service is up")],
        ),
        (
            "Eligible expenses are those that are incurred in the course of business.\n",
            [("Eligible expenses", "those that are incurred in the course of business")],
        ),
        (
            "   Messages are divided into lines.  A line is a series of\n"
            "   characters that is delimited with CRLF.\n",
            [("line", "a series of characters that is delimited with CRLF")],
        ),
    ],
)
def test_a_sentence_whose_verb_says_it_defines(text: str, expected: list[tuple[str, str]]) -> None:
    assert pairs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "This is one that we like a lot.\n",
        "It is defined as follows in the annex.\n",
        "The comparison is defined as follows:  two entity tags match.\n",
        "The limit is defined as in Section 2 of the annex.\n",
        "The request method is defined as being cacheable, and the response is stored.\n",
        "The following is defined as part of the scope.\n",
        "Such costs are those.\n",
        "The service is one of the best in its class.\n",
        # an example, a definite subject, no relative clause: no kind defined
        "A good example is a server that caches responses.\n",
        "The server is a machine that runs all day.\n",
        "A user is a human being.\n",
        # a subordinate clause, and a wrapped line's start, open no sentence
        "Although Content-Type is defined as a singleton field, it is often repeated.\n",
        "   A recipient MAY combine them only if the entire field-value for that\n"
        "   header field is defined as a comma-separated list of values.\n",
    ],
)
def test_near_misses_of_a_self_defining_sentence(text: str) -> None:
    assert pairs(text) == []


def test_a_table_whose_header_cells_name_a_term_and_a_meaning_column_defines() -> None:
    text = (
        "## 6. Words\n\n| Word or phrase | What it means |\n|---|---|\n"
        "| Breach | An incident that exposes personal data. |\n\n"
        "| Concept | Definition |\n|---|---|\n| Asset | Anything of value to us. |\n\n"
        # a table of roles or of fields describes; it does not define terms
        "| Role | Description |\n|---|---|\n| Data Owner | The person accountable for data. |\n\n"
        "| Field name | Description |\n|---|---|\n| id | The record's identifier. |\n"
    )
    assert pairs(text) == [
        ("Breach", "An incident that exposes personal data"),
        ("Asset", "Anything of value to us"),
    ]


def test_a_short_name_opening_a_sentence_is_what_its_parenthesis_names() -> None:
    text = (
        '- Acme accounts (the "Services") include your account and its services.\n\n'
        'Acme Cloud Storage (the "Storage") keeps files.\n\n'
        # not a name: a clause, a list
        'However, (the "Odd") is odd.\n\nReports, notes (the "Materials") are kept.\n'
    )
    assert pairs(text) == [("Services", "Acme accounts"), ("Storage", "Acme Cloud Storage")]


def test_a_list_announced_as_definitions_is_read_as_a_definitions_section() -> None:
    text = (
        "## 4. Data handling\n\nIn this policy:\n\n"
        "- Personal data means any information relating to an identified person.\n"
        "- Processing means any operation performed on personal data.\n\n"
        "The following terms have the following meanings:\n\n"
        "(a) Controller means the body that decides the purposes of processing;\n"
        "(b) Business Day: a day other than a Saturday or Sunday.\n\n"
        "Data is kept safe. Processing means care.\n"
    )
    assert pairs(text) == [
        ("Personal data", "any information relating to an identified person"),
        ("Processing", "any operation performed on personal data"),
        ("Controller", "the body that decides the purposes of processing"),
        ("Business Day", "a day other than a Saturday or Sunday"),
    ]


def test_a_list_after_other_lead_ins_defines_nothing() -> None:
    text = (
        "## 4. Data handling\n\nIn this section, we explain:\n\n- how data is kept;\n"
        "- who sees it.\n\nThe steps are:\n\n- Backup: a copy is made nightly.\n"
        "- Review means the owner checks access.\n"
    )
    assert pairs(text) == []


def test_the_real_documents_harness_counts_what_define_answers(tmp_path: Path) -> None:
    """Recall asks ``Index.define`` as a user does: a term asked with its article finds the
    stored one, an acronym is answered by its long form (its plural too); a term no answer
    defines is missed."""
    from hierdoc import Index
    from hierdoc.config import Settings
    from tests.hash_embedder import HashEmbedder
    from tests.realdocs.gold import Gold, GoldDefinition
    from tests.realdocs.harness import DocumentScore, defined, definition_scores, source_of

    document = tmp_path / "docs" / "terms.md"
    document.parent.mkdir()
    document.write_text(
        "# Terms\n\n## 1. Scope\n\n“The Program” means the work licensed here. This"
        " Non-Disclosure Agreement (NDA) covers it, as do Information Sharing and Analysis"
        " Organizations (ISAOs).\n",
        encoding="utf-8",
    )
    wanted = (
        GoldDefinition("The Program", "the work licensed here"),
        GoldDefinition("NDA", "Non-Disclosure Agreement"),
        GoldDefinition("ISAO", "Information Sharing and Analysis Organization"),
        GoldDefinition("Licensor", "the one granting the licence"),
    )
    gold = Gold("terms", document, (), wanted, ())
    score = DocumentScore("terms", "md", "-")
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:  # type: ignore[arg-type]
        index.ingest([document])
        source = source_of(index, document)
        assert source is not None
        stored = [(d.term, d.definition) for d in index.store.all_definitions()]
        definition_scores(gold, stored, defined(index, gold, source), score)
    assert score.misses["definitions"] == ["Licensor"]
    assert score.definition_recall == 0.75


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'Terms used below.\n\n"Ledger" - Means the register of\n'
            "payments kept by the Treasurer.\n",
            [("Ledger", "the register of payments kept by the Treasurer")],
        ),
        (
            '"Transmit" - As a verb, means sending the Ledger, or a copy of it,\nto any person.\n',
            [("Transmit", "sending the Ledger, or a copy of it, to any person")],
        ),
        (
            "“Holder” – a member who keeps a copy of the Ledger.\n",
            [("Holder", "a member who keeps a copy of the Ledger")],
        ),
    ],
)
def test_a_quoted_term_opening_a_line_then_a_dash_is_defined(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert pairs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        '"Ledger"-style books are kept by the Treasurer.\n',
        'The form says "Ledger" - see the appendix for it.\n',
        '"Ledger" - 3 entries\n',
        '"Ledger" - two\n',
    ],
)
def test_a_quoted_word_with_a_dash_is_no_definition_unless_it_opens_a_glossary_line(
    text: str,
) -> None:
    assert pairs(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '"Filing" (including its various forms) means placing a record in the Ledger.\n',
            [("Filing", "placing a record in the Ledger")],
        ),
        (
            "“Holder” (as the context requires) means a member who keeps the Ledger.\n",
            [("Holder", "a member who keeps the Ledger")],
        ),
    ],
)
def test_a_remark_in_parentheses_between_term_and_means_is_skipped(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert pairs(text) == expected


def test_a_capitalised_parenthesis_after_a_quoted_word_is_not_a_remark() -> None:
    found = pairs('Send the "Filing" (Form A, see Annex 2) means of delivery to the office.\n')
    assert "Filing" not in [term for term, _ in found]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            'When we say "Platform", we mean our apps and websites. That includes beta apps.\n',
            [("Platform", "our apps and websites")],
        ),
        (
            "Intro.\n\nWhen we say “Firm”, “we”, “our”, or “us” in these terms, we are referring"
            " to Acme Widgets Ltd. It was founded long ago.\n",
            [("Firm", "Acme Widgets Ltd")],
        ),
        (
            "When we say “You” or “your”, we are referring to the people who hold an account.\n",
            [("You", "the people who hold an account")],
        ),
    ],
)
def test_when_we_say_a_quoted_term_we_mean_defines_it(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert pairs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        'When we say "goodbye", we leave the room.\n',
        'When we say "Platform" we usually smile, and we mean it.\n',
        'Because when we say "Platform", we are talking about apps.\n',
    ],
)
def test_when_we_say_without_mean_or_refer_defines_nothing(text: str) -> None:
    assert pairs(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "“Work Groups” are groups of people who maintain a product. They meet weekly.\n",
            [("Work Groups", "are groups of people who maintain a product. They meet weekly")],
        ),
        (
            "Overview.\n\nAcmeNet “Relays” are sets of servers that forward mail.\n",
            [("Relays", "are sets of servers that forward mail")],
        ),
    ],
)
def test_a_quoted_subject_that_are_groups_of_something_is_defined(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert pairs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Some “Work Groups” are groups of people who maintain a product.\n",
        "The reviewers say that “Work Groups” are groups of friends.\n",
        "“Work Groups” are held of course on Mondays.\n",
    ],
)
def test_a_quoted_subject_inside_a_sentence_is_no_copula_definition(text: str) -> None:
    assert pairs(text) == []


def test_a_foreign_gloss_in_parentheses_is_no_definition() -> None:
    text = (
        "The author keeps the copyright (“tekijänoikeus”) and the right to be named"
        " (“nimeämisoikeus”) for the whole term.\n"
    )
    assert pairs(text) == []


@pytest.mark.parametrize(
    ("text", "term"),
    [
        # used again: a name the text goes on to use
        ("The person concerned (“intéressé”) signs. Each intéressé keeps a copy.\n", "intéressé"),
        # written in English's alphabet: a term, even if used once here
        ("A natural person (‘data subject’) may object.\n", "data subject"),
        # capitalised: a name
        ("The company (the “Société”) signs the contract.\n", "Société"),
    ],
)
def test_a_quoted_name_in_parentheses_stays_a_definition(text: str, term: str) -> None:
    assert term in [found for found, _ in pairs(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "- We may close an account at any time. Closure means you lose access to every"
            " file in it. We tell you first.\n",
            [("Closure", "you lose access to every file in it")],
        ),
        (
            "1. Renewal means a further year of service on the same terms.\n",
            [("Renewal", "a further year of service on the same terms")],
        ),
    ],
)
def test_a_capitalised_word_opening_a_sentence_then_means_is_defined(
    text: str, expected: list[tuple[str, str]]
) -> None:
    assert pairs(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Paying late. This means you owe interest on the whole amount.\n",
        "Closure means that we delete all of your files.\n",
        "Closure means to shut the account for good.\n",
        "After a closure the\nRenewal means nothing to the parties at all.\n",
        "Early Closure means you lose access to every file.\n",
    ],
)
def test_a_word_means_inside_a_sentence_or_a_consequence_is_no_definition(text: str) -> None:
    assert pairs(text) == []

