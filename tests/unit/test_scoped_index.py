"""A scoped view of an index (what a scoped token sees) shows nothing of the documents out
of its scope: each tool, with every kind of argument that could reach such a document,
answers without naming or quoting it, while the documents in scope answer as before."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hierdoc import Index, Settings
from hierdoc.errors import HierdocError, StoreError
from hierdoc.models import CrossRef, DocumentRecord, Extraction
from hierdoc.search.scoped import DocumentFilter, DocumentScope, ScopedStore
from hierdoc.store.testing import DIMENSION, corpus_chunks, corpus_sections, corpus_vectors
from hierdoc.text.analyze import TEXT_ANALYZER
from hierdoc.tools import call_tool
from tests.hash_embedder import HashEmbedder
from tests.memory_store import MemoryStore

PUBLIC_TERMS = """\
---
department: public
---
# Public Terms of Use

## Article 1 - Definitions

"Confidential Information" means information marked as confidential by the Provider.

"Service" means the hosted search service.

## Article 2 - Use of the Service

2.1 The Customer shall use the Service lawfully.

2.2 The Customer shall keep Confidential Information secret, as set out in Article 1.

## Article 3 - Termination

Either party may end these terms on thirty days' notice, subject to Article 2.
"""

PUBLIC_FAQ = """\
---
department: public
---
# Questions about the Service

## Section 1 - Accounts

1.1 A Customer opens one account for the Service.
"""

OUT_OF_SCOPE = """\
---
department: treasury
---
# Zebra Covert Accord

## Article 1 - Definitions

"Confidential Information" means the quuxfrob ledger kept by the treasurer.

"Zebra Payload" (ZP) means the xylophant shipment.

## Article 2 - Payments

2.1 The Buyer shall pay the quuxfrob fee within nine days.

## Article 7 - Escrow

7.1 The escrow agent holds the xylophant shipment under Article 1 and Article 2.

7.2 Nothing in the Public Terms of Use applies to the xylophant shipment.
"""

DOCUMENTS = {
    "public_terms.md": PUBLIC_TERMS,
    "public_faq.md": PUBLIC_FAQ,
    "zebra_covert_k9vault.md": OUT_OF_SCOPE,
}
MARKERS = (
    *("zebra", "covert", "k9vault", "quuxfrob", "xylophant"),
    *("treasur", "escrow", "payload", "buyer"),
)
"""Words only the out-of-scope document holds (in its name, title, metadata or text); its
file name holds one its title does not, so that naming the document by its title in a
call does not hide a stored name in the answer."""

SCOPES = {
    "named": DocumentScope((DocumentFilter.of(["public_terms.md"]),)),
    "where": DocumentScope((DocumentFilter.of(where={"department": "public"}),)),
}


def written_corpus(folder: Path) -> Path:
    """The documents written to ``folder/corpus``."""
    corpus = folder / "corpus"
    corpus.mkdir()
    for name, text in DOCUMENTS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    return corpus


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Iterator[Index]:
    folder = tmp_path_factory.mktemp("scoped")
    corpus = written_corpus(folder)
    with Index.open(folder / "index", Settings(), embedder=HashEmbedder()) as opened:
        report = opened.ingest([corpus])
        assert not report.problems, report.problems
        yield opened


def _stored(index: Index, name: str) -> str:
    return next(d.source for d in index.documents() if Path(d.source).name == name)


def probes(index: Index) -> list[tuple[str, dict[str, Any]]]:
    """Every tool with arguments that reach the out-of-scope document in the whole index."""
    secret = _stored(index, "zebra_covert_k9vault.md")
    chunk_ids = [c.chunk.chunk_id for c in index.chunks_of_source(secret)]
    misspelt = [chunk_id[:-3] + "x" + chunk_id[-2:] for chunk_id in chunk_ids]
    queries = [
        "quuxfrob", "xylophant shipment", "Zebra Payload", "ZP", "escrow agent", "Article 7",
        "Article 7(1)", "Section 7.1 of the Zebra Covert Accord", "Article 7 of zebra_covert.md",
        '"quuxfrob fee"', "Confidential Information", "Buyer pay within nine days", "Payments",
    ]  # fmt: skip
    found: list[tuple[str, dict[str, Any]]] = [("list_documents", {})]
    for query in queries:
        found.append(("search", {"query": query, "explain": True}))
        found.append(("search", {"query": query, "mode": "keyword", "passages": True}))
        found.append(("search", {"query": query, "mode": "exact"}))
    for argument in ({"source": "zebra_covert.md"}, {"source": "zebra_covrt.md"},
                     {"source": "zebra"}, {"source": secret}, {"where": {"department": "treasury"}},
                     {"where": {"departmnt": "public"}}, {"section": "article-7"},
                     {"section": "article-7-1"}, {"section": "artcle-7"}):  # fmt: skip
        found.append(("search", {"query": "the shipment fee", **argument}))
    identifiers = [
        "article-7", "article-7-1", "Article 7(1)", "Article 7 of the Zebra Covert Accord",
        "paragraph 7.2 of the Zebra Covert Accord", "artcle-7", "article-1", "article-2",
        "article-2-1", *chunk_ids, *misspelt,
    ]  # fmt: skip
    for identifier in identifiers:
        found.append(("get_section", {"id": identifier}))
        found.append(("references", {"id": identifier}))
    for source in ("zebra_covert.md", "zebra_covert_k9vault.md", "zebra", secret):
        found.append(("get_section", {"id": "article-1", "source": source}))
        found.append(("references", {"id": "article-2", "source": source}))
    for term in ("Zebra Payload", "ZP", "Confidential Information", "quuxfrob ledger",
                 "Zebra Paylod", "Buyer"):  # fmt: skip
        found.append(("define", {"term": term}))
    return found


def answer(index: Index, name: str, arguments: dict[str, Any]) -> str:
    """What the caller sees: the structured result and its text, or the error message."""
    try:
        output = call_tool(index, name, arguments)
    except HierdocError as error:
        return f"error: {error}"
    return json.dumps(output.structured) + "\n" + output.text


def leaks(text: str, arguments: dict[str, Any]) -> list[str]:
    """The out-of-scope markers in ``text`` that the caller did not write in the call."""
    asked = json.dumps(arguments).lower()
    lowered = text.lower()
    return [m for m in MARKERS if m in lowered and m not in asked]


@pytest.mark.parametrize("scope_name", sorted(SCOPES))
def test_no_tool_names_or_quotes_a_document_out_of_scope(index: Index, scope_name: str) -> None:
    view = index.scoped(SCOPES[scope_name])
    found = {}
    for name, arguments in probes(index):
        text = answer(view, name, arguments)
        if leaks(text, arguments):
            found[f"{name} {arguments}"] = (leaks(text, arguments), text[:300])
    assert not found, found


def test_the_whole_index_does_answer_those_calls(index: Index) -> None:
    """The probes reach the out-of-scope document when no scope holds them back."""
    calls = probes(index)
    reached = [call for call in calls if leaks(answer(index, *call), call[1])]
    assert len(reached) > len(calls) // 2
    defined = call_tool(index, "define", {"term": "Confidential Information"}).structured
    assert defined["conflict"] is True


def test_in_scope_documents_answer_as_before(index: Index) -> None:
    view = index.scoped(SCOPES["where"])
    listed = json.loads(answer(view, "list_documents", {}).split("\n")[0])
    assert sorted(d["name"] for d in listed["documents"]) == ["public_faq.md", "public_terms.md"]
    assert listed["total_documents"] == 2
    assert listed["total_chunks"] == sum(
        d.chunk_count for d in index.documents() if "public" in d.source
    )
    result = call_tool(view, "search", {"query": "Customer shall use the Service lawfully"})
    assert result.structured["results"][0]["source"].endswith("public_terms.md")
    defined = call_tool(view, "define", {"term": "Confidential Information"}).structured
    assert [d["source"].rsplit("/", 1)[-1] for d in defined["definitions"]] == ["public_terms.md"]
    assert defined["conflict"] is False
    section = call_tool(view, "get_section", {"id": "article-1"}).structured
    assert section["other_sources"] == [] and section["source"].endswith("public_terms.md")
    incoming = call_tool(view, "references", {"id": "article-2"}).structured["incoming"]
    assert incoming and all(r["source"].endswith("public_terms.md") for r in incoming)


def test_the_api_of_a_view_holds_only_its_documents(index: Index) -> None:
    view = index.scoped(SCOPES["named"])
    secret = _stored(index, "zebra_covert_k9vault.md")
    assert [d.source for d in view.documents()] == [_stored(index, "public_terms.md")]
    assert view.stats().documents == 1
    assert view.stats().definitions == 2
    assert len(view.document_summaries()) == 1
    assert view.chunks_of_source(secret) == []
    assert view.chunks([c.chunk.chunk_id for c in index.chunks_of_source(secret)]) == {}
    assert view.sections("article-7") == [] and view.count_section("article-7") == 0
    assert view.section_holders("article-1", 5) == [_stored(index, "public_terms.md")]
    assert {c.chunk.source for c in view.iter_chunks()} == {_stored(index, "public_terms.md")}
    terms = TEXT_ANALYZER.terms("quuxfrob customer")
    whole, scoped = index.store.doc_freq(terms), view.store.doc_freq(terms)
    assert whole[terms[0]] > 0 and scoped[terms[0]] == 0
    assert 0 < scoped[terms[1]] < whole[terms[1]]  # public_faq.md has "Customer" too
    assert index.glossary().lookup("ZP").expansions
    assert not view.glossary().lookup("ZP").expansions
    with pytest.raises(HierdocError) as hidden:
        view.outline("zebra_covert.md")
    with pytest.raises(HierdocError) as missing:
        view.outline("lion_covert.md")
    assert str(hidden.value) == str(missing.value).replace("lion", "zebra")


def test_a_view_writes_nothing(index: Index, tmp_path: Path) -> None:
    view = index.scoped(SCOPES["named"])
    (tmp_path / "new.md").write_text("# New\n\nText.\n", encoding="utf-8")
    with pytest.raises(HierdocError):
        view.ingest([tmp_path / "new.md"])
    with pytest.raises(HierdocError):
        view.remove("public_terms.md")
    with pytest.raises(StoreError):
        view.store.delete_documents([_stored(index, "public_terms.md")])
    assert len(index.documents()) == 3


def test_a_scope_takes_in_documents_ingested_later(tmp_path: Path) -> None:
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as opened:
        corpus = tmp_path / "corpus"
        corpus.mkdir()
        (corpus / "public_terms.md").write_text(PUBLIC_TERMS, encoding="utf-8")
        opened.ingest([corpus])
        view = opened.scoped(SCOPES["where"])
        assert len(view.documents()) == 1
        (corpus / "public_faq.md").write_text(PUBLIC_FAQ, encoding="utf-8")
        (corpus / "zebra_covert_k9vault.md").write_text(OUT_OF_SCOPE, encoding="utf-8")
        opened.ingest([corpus])
        assert sorted(Path(d.source).name for d in view.documents()) == [
            "public_faq.md",
            "public_terms.md",
        ]


def test_an_empty_scope_sees_nothing(index: Index) -> None:
    view = index.scoped(DocumentScope())
    assert view.documents() == []
    listed = call_tool(view, "list_documents", {}).structured
    assert listed["total_documents"] == 0 and listed["documents"] == []
    assert (
        call_tool(view, "search", {"query": "Confidential Information"}).structured["results"] == []
    )


def test_a_reference_into_a_document_out_of_scope_loses_its_target() -> None:
    """References that cross documents: a.md's into b.md reads as a reference outside the
    corpus to a scope of a.md, and b.md's into a.md is not among a.md's incoming ones."""
    store = MemoryStore(DIMENSION, TEXT_ANALYZER)
    into_b = CrossRef("Article 2 of the Beta Agreement", "a.md", "a.md#2", "article-17",
                      "article-2", "b.md")  # fmt: skip
    into_a = CrossRef("Article 17 of the Alpha Act", "b.md", "b.md#1", "article-2",
                      "article-17", "a.md")  # fmt: skip
    for source, reference in (("a.md", into_b), ("b.md", into_a)):
        chunks = corpus_chunks(source)
        document = DocumentRecord(source, source, "h1", "md", 100, len(chunks))
        store.write_document(
            document, corpus_sections(source), chunks, corpus_vectors(chunks),
            Extraction(references=[reference]),
        )  # fmt: skip
    scoped = ScopedStore(store, DocumentScope((DocumentFilter.of(["a.md"]),)))
    (outgoing,) = scoped.references_from(["a.md#2"])
    assert outgoing.target_source is None and outgoing.external and not outgoing.resolved
    assert outgoing.text == into_b.text  # a.md's own words
    assert store.references_to(["article-17"], into="a.md") == [into_a]
    assert scoped.references_to(["article-17"], into="a.md") == []
    assert scoped.references_to(["article-2"], into="b.md") == []
    assert into_b in store.references_to(["article-2"])
    assert into_b not in scoped.references_to(["article-2"])
