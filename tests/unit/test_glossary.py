"""The exact modality by specificity: defining chunks only for terms a query asks
about or few documents define, never for generic ones; documents named in a query."""

from __future__ import annotations

import pytest

from hierdoc.models import Definition, DocumentRecord
from hierdoc.search.glossary import Glossary, asks_about, asks_meaning
from hierdoc.search.names import DocumentNames


def _definition(term: str, source: str) -> Definition:
    return Definition(term, "...", source, "section-1", f"{source}:{term}")


def _record(source: str, title: str = "") -> DocumentRecord:
    return DocumentRecord(source, title, "hash", "markdown", 100)


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    documents = [_record(f"nda-{n}.md") for n in range(20)]
    definitions = [_definition("Agreement", f"nda-{n}.md") for n in range(12)]
    definitions += [_definition("Receiving Party", f"nda-{n}.md") for n in range(3)]
    definitions += [_definition("Escrow Agent", "nda-7.md")]
    return Glossary([], definitions, documents)


def test_a_generic_term_never_gives_defining_chunks(glossary: Glossary) -> None:
    assert glossary.generic("agreement")
    assert glossary.lookup("What is the Agreement?").defining_chunks == []
    assert glossary.lookup("Agreement").defining_chunks == []


def test_a_term_some_documents_define_counts_only_when_asked_about(glossary: Glossary) -> None:
    assert not glossary.generic("receiving party") and not glossary.rare("receiving party")
    asked = glossary.lookup("What does Receiving Party mean?")
    assert asked.defining_chunks == [f"nda-{n}.md:Receiving Party" for n in range(3)]
    other = glossary.lookup("What is the notice period for the Receiving Party?")
    assert not other.asks_meaning and other.defining_chunks == []


def test_a_rare_term_counts_only_in_a_question_about_a_meaning(glossary: Glossary) -> None:
    found = glossary.lookup("What does Receiving Party mean when the Escrow Agent holds funds?")
    assert found.defining_chunks[0] == "nda-7.md:Escrow Agent"  # rarest first
    about = glossary.lookup("What is the notice period of the Escrow Agent under the Agreement?")
    assert not about.asks_meaning and about.defining_chunks == []
    assert glossary.lookup("the Escrow Agent keeps the funds").defining_chunks == []


@pytest.mark.parametrize(
    ("query", "named", "expected"),
    [
        ("What is EACA?", ["eaca"], True),
        ("what is a trade secret under this agreement?", ["trade secret"], True),
        ("What does DPA stand for", ["dpa"], True),
        ("definition of personal data", ["personal data"], True),
        ("what is the company's maximum liability to the contractor?", ["company"], False),
        ("What is the minimum password length the ASVS requires?", ["asvs"], False),
        ("what is the most GoodData will pay", ["gooddata", "software"], False),
        ("the company shall pay", ["company"], False),
    ],
)
def test_a_query_asks_a_meaning_only_about_a_term_it_names(
    query: str, named: list[str], expected: bool
) -> None:
    assert asks_meaning(query, named) is expected


@pytest.mark.parametrize(
    ("query", "term", "expected"),
    [
        ("what is personal data", "personal data", True),
        ("define confidential information", "confidential information", True),
        ("what does 'processor' mean?", "processor", True),
        ("receiving party means the recipient", "receiving party", True),
        ("receiving party", "receiving party", True),
        ("receiving party shall not disclose the information", "receiving party", False),
    ],
)
def test_asks_about(query: str, term: str, expected: bool) -> None:
    assert asks_about(query, term) is expected


@pytest.fixture(scope="module")
def names() -> DocumentNames:
    return DocumentNames(
        [
            _record("corpus/confidentiality_agreement.txt", "confidentiality_agreement.txt"),
            _record("corpus/Confidentiality_Agreement_1.txt", "Confidentiality_Agreement_1.txt"),
            _record("docs/cloud_service_agreement.md", "Cloud Service Agreement"),
            _record("docs/gpl.md", "GNU General Public License"),
            _record("docs/agreement.md", "Agreement"),
        ]
    )


@pytest.mark.parametrize(
    ("query", "sources", "how"),
    [
        (
            "Consider confidentiality_agreement.txt; the Receiving Party shall not disclose",
            ("corpus/confidentiality_agreement.txt",),
            "as written",
        ),
        (
            "in Confidentiality_Agreement_1 who pays",
            ("corpus/Confidentiality_Agreement_1.txt",),
            "as written",
        ),
        (
            "Section 8.4 of the cloud agreement",
            ("docs/cloud_service_agreement.md",),
            "by its name's words",
        ),
    ],
)
def test_documents_named_in_a_query(names: DocumentNames, query, sources, how) -> None:
    naming = names.named(query)
    assert naming is not None and (naming.sources, naming.how) == (sources, how)


@pytest.mark.parametrize(
    "query",
    [
        "the agreement may be terminated for convenience",
        "cloud computing costs",
        "confidentiality agreement obligations",
    ],
)
def test_ordinary_words_name_no_document(names: DocumentNames, query: str) -> None:
    assert names.named(query) is None


def test_the_rest_of_a_query_drops_the_names_written_in_it(names: DocumentNames) -> None:
    query = "Consider CONFIDENTIALITY_AGREEMENT.txt; the Receiving Party shall not disclose"
    naming = names.named(query)
    assert naming is not None and naming.rest(query) == (
        "Consider ; the Receiving Party shall not disclose"
    )


def test_parties_in_the_metadata_name_a_document() -> None:
    records = [
        DocumentRecord(
            "a.md",
            "Master Services Agreement",
            "h",
            "markdown",
            1,
            metadata={"parties": ["Acme Corp", "Globex Inc"]},
        ),
        DocumentRecord(
            "b.md",
            "Master Services Agreement",
            "h",
            "markdown",
            1,
            metadata={"client": "Initech LLC"},
        ),
    ]
    names = DocumentNames(records)
    naming = names.named("In the agreement between Acme and Globex, who owns the IP?")
    assert naming is not None and naming.sources == ("a.md",)
    assert names.named("in the Initech agreement, what is the notice period").sources == ("b.md",)
    both = names.named("in the master services agreement, what is the notice period")
    assert both is not None and both.sources == ("a.md", "b.md")  # the title, as written
