import pytest

from hierdoc.config import ChunkingSettings
from hierdoc.models import ConvertedDocument
from hierdoc.pipeline.chunk import chunk_document, document_key, split_text
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer
from tests.datasets import GDPR_MD, require


@pytest.fixture(scope="module")
def tokenizer():
    return default_tokenizer()


def _normalise(text: str) -> str:
    return " ".join(text.split())


def _document(text: str, source: str = "/docs/sample.md") -> ConvertedDocument:
    return ConvertedDocument(source, "Sample", text, "hash", "markdown")


def _without_overlap(chunks) -> str:
    return " ".join(c.content[c.overlap_chars :] for c in chunks)


def test_gdpr_chunks_rebuild_every_section(tokenizer) -> None:
    text = require(GDPR_MD).read_text(encoding="utf-8")
    sections = parse_sections(text, "GDPR")
    chunks = chunk_document(_document(text), sections, tokenizer)
    assert max(c.token_count for c in chunks) <= 800
    assert _normalise(_without_overlap(chunks)) == _normalise(text)
    starts = {i: n for n, c in enumerate(chunks) for i in c.sections}
    with_text = [s for s in sections if (s.heading_line + s.body).strip()]
    assert sorted(starts) == sorted(s.section_id for s in with_text)
    for section in with_text:
        first = starts[section.section_id]
        own = _normalise(section.heading_line + section.body)
        assert own[:40] in _normalise(chunks[first].content)
        assert own in _normalise(_without_overlap(chunks[first:]))


def test_numbered_paragraphs_and_points_stay_with_their_article(tokenizer) -> None:
    text = require(GDPR_MD).read_text(encoding="utf-8")
    chunks = chunk_document(_document(text), parse_sections(text, "GDPR"), tokenizer)
    article_17 = [c for c in chunks if "article-17-3-b" in c.sections]
    assert len(article_17) == 1
    assert article_17[0].section_id == "article-17"
    assert {"article-17-1", "article-17-1-a", "article-17-3"} <= set(article_17[0].sections)


def test_long_section_splits_at_sentences_with_abbreviations(tokenizer) -> None:
    sentence = "The plan under Sec. 403(b) of title 26, U.S.C. applies, e.g. to employers. "
    text = "# Rules\n\n## Section 1\n\n" + sentence * 40
    chunks = chunk_document(
        _document(text),
        parse_sections(text, "Rules"),
        tokenizer,
        ChunkingSettings(max_chunk_tokens=100),
    )
    assert len(chunks) > 5
    for chunk in chunks:
        assert chunk.token_count <= 100
        assert chunk.content.endswith("employers.")


def test_overlong_sentence_is_cut_at_the_limit(tokenizer) -> None:
    text = "word " * 1000
    pieces = split_text(text, tokenizer, 128)
    assert all(tokenizer.count(p.text) <= 128 for p in pieces)
    assert "".join(p.text for p in pieces) == text


def test_overlap_repeats_the_tail_of_the_previous_piece(tokenizer) -> None:
    text = " ".join(f"Sentence number {n} is here." for n in range(200))
    pieces = split_text(text, tokenizer, 64, overlap_tokens=10)
    assert len(pieces) > 3
    for previous, piece in zip(pieces, pieces[1:], strict=False):
        assert piece.overlap_chars > 0
        assert previous.text.endswith(piece.text[: piece.overlap_chars])
    assert "".join(p.text[p.overlap_chars :] for p in pieces) == text


def test_tiny_heading_is_merged_into_its_first_child(tokenizer) -> None:
    text = "# Act\n\n## Chapter I\n\n### Article 1 - Scope\n\nThis Act applies to all.\n"
    chunks = chunk_document(_document(text), parse_sections(text, "Act"), tokenizer)
    assert [c.section_id for c in chunks] == ["article-1"]
    assert chunks[0].content.startswith("# Act")
    assert "## Chapter I" in chunks[0].content


def test_text_without_structure_falls_back_to_token_chunks(tokenizer) -> None:
    text = "Plain paragraph with no headings at all. " * 300
    chunks = chunk_document(
        _document(text, "/docs/plain.txt"),
        parse_sections(text, "plain"),
        tokenizer,
        ChunkingSettings(max_chunk_tokens=200),
    )
    assert len(chunks) > 5
    assert all(c.token_count <= 200 for c in chunks)
    assert _normalise(_without_overlap(chunks)) == _normalise(text)


def test_chunk_ids_are_stable_and_unique(tokenizer) -> None:
    text = require(GDPR_MD).read_text(encoding="utf-8")
    first = chunk_document(_document(text), parse_sections(text, "GDPR"), tokenizer)
    second = chunk_document(_document(text), parse_sections(text, "GDPR"), tokenizer)
    assert [c.chunk_id for c in first] == [c.chunk_id for c in second]
    assert len({c.chunk_id for c in first}) == len(first)
    assert first[0].chunk_id.startswith(document_key("/docs/sample.md"))
