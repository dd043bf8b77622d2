"""What a query asks of the documents it names is ranked within them without their names;
a document's one-word name is no code identifier."""

from __future__ import annotations

import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.config import SearchSettings
from hierdoc.models import DocumentRecord
from hierdoc.search.analysers import NamedDocuments, QuerySyntax
from hierdoc.search.names import DocumentNames
from hierdoc.search.plan import QueryPlan, build_plan
from tests.hash_embedder import HashEmbedder

CHARTER = "h/hyperledger-fabric-technical-charter.md"
EULA = "g/gooddata-lcm-eula.docx"
LEASE = "l/office-lease.md"


@pytest.fixture(scope="module")
def names() -> DocumentNames:
    titles = {
        CHARTER: "Technical Charter for Hyperledger Fabric",
        EULA: "GOODDATA LCM END USER LICENSE AGREEMENT",
        LEASE: "Office Lease",
    }
    return DocumentNames([DocumentRecord(s, t, "h", "x", 1) for s, t in titles.items()])


def _named(names: DocumentNames, query: str) -> QueryPlan:
    plan = QueryPlan.asked(query, SearchSettings())
    return build_plan(plan, [NamedDocuments(names), QuerySyntax()])


def test_a_document_named_by_its_name_s_words_is_ranked_within_without_them(
    names: DocumentNames,
) -> None:
    plan = _named(names, "how can the Hyperledger Fabric charter be amended?")
    assert plan.named == (CHARTER,) and plan.named_weight == 1.0
    assert plan.text == "how can the Hyperledger Fabric charter be amended?"
    assert plan.within_text == "how can the charter be amended?"
    assert "ranked within them too as 'how can the charter be amended?'" in (plan.trace[0].decision)


def test_a_name_written_out_leaves_the_text_ranked_within(names: DocumentNames) -> None:
    plan = _named(names, "rent due under office-lease.md")
    assert plan.named == (LEASE,) and plan.within_text == "rent due under"


def test_the_document_words_of_a_name_stay_in_the_text_ranked_within(
    names: DocumentNames,
) -> None:
    plan = _named(names, "the Hyperledger Fabric charter")
    assert plan.named == (CHARTER,) and plan.within_text == "the charter"


def test_a_name_word_written_in_camel_case_is_a_name_word(names: DocumentNames) -> None:
    plan = _named(names, "which state's law governs the GoodData EULA?")
    assert plan.named == (EULA,)
    assert "GoodData" not in plan.within_text and "law governs" in plan.within_text


def test_a_document_s_one_word_name_is_no_identifier(names: DocumentNames) -> None:
    plan = _named(names, "what is the most GoodData will pay if the software fails?")
    assert plan.identifiers == ()
    assert _named(names, "does GoodData call getTarget?").identifiers == ("getTarget",)


def test_an_identifier_named_like_no_document_stays(names: DocumentNames) -> None:
    assert _named(names, "where is OfficeLeaseParser defined").identifiers == ("OfficeLeaseParser",)


CHARTER_TEXT = """# Technical Charter for Hyperledger Fabric

This Technical Charter sets forth the procedures for Hyperledger Fabric. Hyperledger Fabric
is a project of Hyperledger; the Hyperledger Fabric community works under this charter.

## 1. Mission of Hyperledger Fabric

Hyperledger Fabric builds a permissioned ledger.

## 2. Amendments

This charter may be amended by a two-thirds vote of the Technical Steering Committee.
"""

LEASE_TEXT = """# Office Lease

## 1. Rent

Rent is due on the first day of each month; the charter of the landlord is not amended.
"""


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    documents = [
        TextDocument("hyperledger-fabric-technical-charter.md", CHARTER_TEXT),
        TextDocument("office-lease.md", LEASE_TEXT),
    ]
    folder = tmp_path_factory.mktemp("named")
    with Index.open(folder / "index", Settings(), embedder=HashEmbedder()) as opened:
        opened.ingest_texts(documents)
        yield opened


def test_the_named_document_s_ranking_leaves_its_name_out(index: Index) -> None:
    query = "how can the Hyperledger Fabric charter be amended?"
    response = index.search(query, mode="keyword", explain=True)
    named = response.explain["modalities"]["named"]["searched"]
    assert named.startswith("'how can the charter be amended?' within")
    first = response.results[0]
    assert first.source.endswith("charter.md") and first.section_id == "section-2"


def test_a_name_word_in_lower_case_is_the_query_s_own(names: DocumentNames) -> None:
    plan = _named(names, "which license must contributions to hyperledger Fabric use?")
    assert plan.named == (CHARTER,)
    assert plan.within_text == "which license must contributions to hyperledger use?"
