"""Formal-document features end to end, with the real model: citations, definitions,
acronyms, cross-references, chunk types and filters."""

import pytest

from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.convert import convert_file
from hierdoc.pipeline.extract.document import extract_document
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer
from tests.datasets import GDPR_ARTICLE_4_TERMS, GDPR_MD, GDPR_TXT, require

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("path", [GDPR_MD, GDPR_TXT], ids=["md", "txt"])
def test_all_26_gdpr_definitions(path) -> None:
    document = convert_file(require(path))
    sections = parse_sections(document.text, document.title)
    chunks = chunk_document(document, sections, default_tokenizer())
    _, extraction = extract_document(sections, chunks)
    article_4 = [
        d
        for d in extraction.definitions
        if d.section_id.startswith("article-4-") and d.style == "means"
    ]
    assert [d.term for d in article_4] == GDPR_ARTICLE_4_TERMS
    assert [d.section_id for d in article_4] == [f"article-4-{n}" for n in range(1, 27)]
    assert article_4[0].definition.startswith("any information relating to an identified")


def test_define_returns_definitions_with_citations(gdpr_index) -> None:
    lookup = gdpr_index.define("processor")
    assert [d.section_id for d in lookup.definitions] == ["article-4-8"]
    assert lookup.definitions[0].definition.startswith("a natural or legal person")
    assert not lookup.conflict


def test_results_carry_definitions_of_terms_used(gdpr_index) -> None:
    result = gdpr_index.search("What does 'processor' mean?", top_k=3).results[0]
    assert result.section_id.startswith("article-4")
    terms = {d["term"] for d in result.definitions}
    assert "processor" in terms
    article_28 = gdpr_index.search("Article 28", top_k=1).results[0]
    assert {"processor", "controller"} <= {d["term"] for d in article_28.definitions}
    assert all(d["source"].endswith("gdpr.md") for d in article_28.definitions)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Art. 17(3)(b)", "article-17-3-b"),
        ("Article 17 paragraph 3 point (b)", "article-17-3-b"),
        ("Article 17(3), point (b)", "article-17-3-b"),
        ("what does Article 6(1)(a) say about consent", "article-6-1-a"),
    ],
)
def test_article_citations_resolve_to_the_most_specific_section(gdpr_index, query, expected):
    response = gdpr_index.search(query)
    assert response.citations[0]["section_id"] == expected
    holder = gdpr_index.store.chunks_of_sections([expected])[0].chunk.chunk_id
    assert response.results[0].chunk_id == holder


@pytest.mark.parametrize(
    "query", ["Section 201(b)(1)", "sec. 201(b)(1)", "§201(b)(1)", "SEC. 201(b)(1)"]
)
def test_us_citations_resolve(hr8847_index, query) -> None:
    response = hr8847_index.search(query)
    assert response.citations[0]["section_id"] == "section-201-b-1"
    holder = hr8847_index.store.chunks_of_sections(["section-201-b-1"])[0].chunk
    assert response.results[0].chunk_id == holder.chunk_id
    assert "(1) an evaluation of the current state of critical infrastructure" in holder.content
    assert holder.parent_chain[-1].startswith("SEC. 201.")


def test_citation_not_in_the_corpus_is_reported(hr8847_index) -> None:
    response = hr8847_index.search("Section 999(z)")
    assert response.no_match and response.results == []
    assert response.citations == [{"text": "Section 999(z)", "section_id": None, "resolved": False}]


def test_what_is_eaca_finds_the_defining_chunk(acronym_index) -> None:
    results = acronym_index.search("What is EACA?", top_k=3).results
    assert any("Eligible Automatic Contribution Arrangement (EACA)" in r.content for r in results)
    for spelling in ("eaca", "E.A.C.A."):
        top = acronym_index.search(f"what is {spelling}", top_k=3).results
        assert any("Eligible Automatic Contribution Arrangement (EACA)" in r.content for r in top)


def test_long_form_finds_chunks_that_use_only_the_acronym(acronym_index) -> None:
    results = acronym_index.search("eligible automatic contribution arrangement notice").results
    only_acronym = [
        r
        for r in results
        if "EACA notice" in r.content
        and "Eligible Automatic Contribution Arrangement" not in r.content
    ]
    assert only_acronym
    assert only_acronym[0].source.endswith("notices_and_deadlines.md")


def test_defining_chunks_join_only_when_the_meaning_is_asked(acronym_index) -> None:
    glossary = acronym_index.glossary()
    for question in ("What is EACA?", "EACA", "what does QACA stand for"):
        lookup = glossary.lookup(question)
        assert lookup.asks_meaning and lookup.defining_chunks, question
    claim = glossary.lookup("EACA notices are due 30 days before the plan year")
    assert claim.expansions == ["Eligible Automatic Contribution Arrangement"]
    assert not claim.asks_meaning and claim.defining_chunks == []


def test_acronyms_sharing_letters_stay_apart(acronym_index) -> None:
    lookup = acronym_index.glossary().lookup("QACA safe harbor")
    assert lookup.expansions == ["Qualified Automatic Contribution Arrangement"]


def test_cross_references_are_resolved_and_listed(gdpr_index) -> None:
    result = gdpr_index.search("Article 17", top_k=1).results[0]
    refs = {r["text"]: r for r in result.cross_references}
    assert refs["point (a) of Article 6(1)"]["target_section_id"] == "article-6-1-a"
    assert refs["Article 21(1)"]["resolved"]
    lookup = gdpr_index.references("article-17")
    assert {r.target_section_id for r in lookup.outgoing} >= {"article-6-1-a", "article-9-2-a"}
    assert any(r.section_id.startswith("article-19") for r in lookup.incoming)


def test_external_references_do_not_resolve(gdpr_index) -> None:
    refs = gdpr_index.references("article-2").outgoing
    directive = [r for r in refs if "Directive 2000/31/EC" in r.text or "45/2001" in r.text]
    assert directive and all(r.external and not r.resolved for r in directive)


def test_chunk_types_and_filters(gdpr_index, hr8847_index) -> None:
    definitions = gdpr_index.search("personal data", chunk_type="definition", top_k=20).results
    assert definitions and all(r.chunk_type == "definition" for r in definitions)
    assert any(r.section_id.startswith("article-4") for r in definitions)
    requirements = gdpr_index.search("controller obligations", chunk_type="requirement").results
    assert requirements and all(r.chunk_type == "requirement" for r in requirements)
    under = gdpr_index.search("right to object", section="chapter-3", top_k=20).results
    assert under and all(r.parent_chain[0].startswith("Chapter III") for r in under)
    only_bill = hr8847_index.search(
        "artificial intelligence", source="HR8847_CNIMDT_AIGCE_STD_Act.pdf"
    )
    assert only_bill.results
    from hierdoc.errors import NotFoundError

    with pytest.raises(NotFoundError, match="'no-such-file.md'; indexed: gdpr.md"):
        gdpr_index.search("personal data", source="no-such-file.md")


def test_same_term_defined_differently_is_a_conflict(tmp_path, embedder) -> None:
    from hierdoc import Index, Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "nda.md").write_text(
        '# Mutual NDA\n\n## 1. Definitions\n\n1.1 "Confidential Information" means any '
        "information disclosed by either party, whether oral or written.\n\n## 2. Duties\n\n"
        "Each party shall protect Confidential Information with reasonable care.\n"
    )
    (docs / "licence.md").write_text(
        '# Licence\n\n## 1. Definitions\n\n1.1 "Confidential Information" means the source '
        "code of the Software only.\n\n## 2. Use\n\nThe Licensee shall not disclose "
        "Confidential Information to any third party.\n"
    )
    with Index.open(tmp_path / "index", Settings(), embedder=embedder) as index:
        index.ingest([docs])
        lookup = index.define("confidential information")
        assert lookup.conflict
        assert sorted(d.source.rsplit("/", 1)[-1] for d in lookup.definitions) == [
            "licence.md",
            "nda.md",
        ]
        result = index.search("may the licensee disclose the source code", top_k=1).results[0]
        assert result.source.endswith("licence.md")
        assert [d["definition"] for d in result.definitions] == [
            "the source code of the Software only"
        ]
