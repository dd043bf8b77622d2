"""Benchmark loaders on the real files, and chunk location in ContractNLI's texts."""

from __future__ import annotations

import json

from hierdoc.eval.datasets import load_anthropic_codebase, load_contractnli, load_scifact
from hierdoc.eval.judging import locate
from tests.datasets import DATASETS, require

SCIFACT = DATASETS / "scifact"
CODEBASE = DATASETS / "anthropic-codebase"
CONTRACTNLI = DATASETS / "contractnli" / "test.json"


def test_scifact_loader() -> None:
    corpus = load_scifact(require(SCIFACT))
    assert (len(corpus.documents), len(corpus.queries)) == (5183, 300)
    sources = {d.source for d in corpus.documents}
    assert all(set(q.relevant) <= sources for q in corpus.queries)
    assert sum(len(q.relevant) for q in corpus.queries) == 339
    assert all(d.title for d in corpus.documents[:100])
    assert corpus.unit == "document" and corpus.main_metric == "nDCG@10"


def test_anthropic_codebase_loader() -> None:
    corpus = load_anthropic_codebase(require(CODEBASE))
    assert len(corpus.documents) == 90 and len(corpus.queries) == 248
    ids = {c for d in corpus.documents for c in d.chunk_ids}
    assert len(ids) == 737 and corpus.prechunked
    assert all(set(q.relevant) <= ids for q in corpus.queries)
    # licence headers repeated across files are judged as one content
    assert len(set(corpus.aliases.values())) < len(ids)
    assert corpus.main_metric == "Pass@10"


def test_contractnli_loader() -> None:
    corpus = load_contractnli(require(CONTRACTNLI))
    data = json.loads(CONTRACTNLI.read_text())
    expected = sum(
        1
        for doc in data["documents"]
        for a in doc["annotation_sets"][0]["annotations"].values()
        if a["choice"] in ("Entailment", "Contradiction") and a["spans"]
    )
    assert len(corpus.documents) == 123 and len(corpus.queries) == expected
    texts = {d.source: d.text for d in corpus.documents}
    for query in corpus.queries:
        assert query.source_filter in texts
        assert all(0 <= s < e <= len(texts[query.source_filter]) for s, e in query.relevant)


def test_contractnli_chunks_are_located_in_their_documents() -> None:
    """Chunk character offsets come from hierdoc's own chunker output."""
    from hierdoc.config import ChunkingSettings
    from hierdoc.models import ConvertedDocument
    from hierdoc.pipeline.chunk import chunk_document
    from hierdoc.pipeline.structure import parse_sections
    from hierdoc.text.tokenizer import default_tokenizer

    corpus = load_contractnli(require(CONTRACTNLI))
    tokenizer = default_tokenizer()
    for document in corpus.documents[:10]:
        converted = ConvertedDocument(document.source, document.title, document.text, "h", "text")
        sections = parse_sections(converted.text, converted.title)
        chunks = chunk_document(
            converted, sections, tokenizer, ChunkingSettings(max_chunk_tokens=256)
        )
        cursor = 0
        for chunk in chunks:
            found = locate(document.text, chunk.content, cursor)
            assert found is not None and found[0] >= cursor
            cursor = found[0] + 1
