"""A document named in a query is evidence that ranks it higher, not a filter: the answer in
another document is still found. Only a citation of a named document's section narrows."""

from __future__ import annotations

from pathlib import Path

from tests.hash_embedder import hash_index

DOCUMENTS = {
    "cloud_service_agreement.md": "# Cloud Service Agreement\n\n## 8. Fees\n\n"
    "The Provider invoices the Customer monthly in arrears.\n\n## 9. Support\n\n"
    "The Provider answers support tickets within one business day.\n",
    "payment_terms_policy.md": "# Payment Terms Policy\n\n## 3. Late invoices\n\n"
    "Interest on late invoices accrues at one percent per month.\n",
    "gpl.md": "# GNU General Public License\n\n## 8. Termination\n\n"
    "You may not propagate a covered work except as expressly provided.\n",
}


def test_a_named_document_ranks_higher_without_hiding_the_others(tmp_path: Path) -> None:
    with hash_index(tmp_path / "idx", DOCUMENTS) as index:
        plain = index.search("interest on late invoices support tickets", top_k=5, mode="hybrid")
        named = index.search(
            "interest on late invoices support tickets in the cloud service agreement",
            top_k=5,
            mode="hybrid",
        )
    sources = [r.source for r in named.results]
    assert "payment_terms_policy.md" in sources  # the answer is not hidden by the name
    assert "cloud_service_agreement.md" in sources
    assert plain.results[0].source == "payment_terms_policy.md"
    assert sources[0] == "cloud_service_agreement.md"  # the name lifts its document
    assert any("ranked cloud_service_agreement.md higher" in n for n in named.notes)
    assert not any("searched only" in n for n in named.notes)


def test_a_cited_section_of_a_named_document_narrows_to_it(tmp_path: Path) -> None:
    with hash_index(tmp_path / "idx", DOCUMENTS) as index:
        response = index.search("Section 8 of the cloud service agreement", top_k=5)
    assert {r.source for r in response.results} == {"cloud_service_agreement.md"}
    assert any("searched only cloud_service_agreement.md" in n for n in response.notes)


def test_a_document_is_named_by_the_name_its_text_gives_itself(tmp_path: Path) -> None:
    from hierdoc import Index, Settings
    from hierdoc.pipeline.metadata import self_names
    from tests.hash_embedder import HashEmbedder

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "manual_ver03.txt").write_text(
        "1.\tINTRODUCTION\n\n1.1.1\tThis document is called the Guidance and Policies Manual "
        "(“GPM”). It explains how waivers are granted.\n"
    )
    (folder / "GEN_VER08.txt").write_text(
        "1.\tINTRODUCTION\n\n1.1.1\tWaivers of a Rule are granted on application.\n"
    )
    assert self_names("These Rules may be cited as the General Rulebook (GEN).") == [
        "General Rulebook (GEN)"
    ]
    assert self_names("A rulebook about waivers.") == []
    with Index.open(tmp_path / "idx", Settings(), embedder=HashEmbedder()) as index:
        index.ingest([folder])
        names = index.glossary().names
        for query in ("what does the GPM say about waivers", "the Guidance and Policies Manual"):
            naming = names.named(query)
            assert naming is not None and naming.sources[0].endswith("manual_ver03.txt")
