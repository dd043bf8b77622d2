"""Token counts: each line tokenized once, the sum equal to tokenizing the whole text."""

import json

import pytest

from hierdoc.config import ChunkingSettings
from hierdoc.models import ConvertedDocument
from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import WordPieceTokenizer, bundled_model_dir
from tests.datasets import DATASETS, GDPR_MD, GDPR_TXT, require


@pytest.fixture()
def tokenizer() -> WordPieceTokenizer:
    return WordPieceTokenizer(bundled_model_dir() / "tokenizer.json")


def _whole(tokenizer: WordPieceTokenizer, text: str) -> int:
    return len(tokenizer.offsets(text))


def test_counts_equal_the_whole_text_on_real_documents(tokenizer) -> None:
    texts = [require(GDPR_MD).read_text(), require(GDPR_TXT).read_text()]
    ndas = json.loads(require(DATASETS / "contractnli" / "test.json").read_text())
    texts += [d["text"] for d in ndas["documents"][:40]]
    for text in texts:
        assert tokenizer.count(text) == _whole(tokenizer, text)
        for block in text.split("\n\n")[:50]:
            assert tokenizer.count(block.strip()) == _whole(tokenizer, block.strip())


@pytest.mark.parametrize(
    "text",
    [
        "  indented line\r\nnext\tline  \n\n\n",
        "a word split-\nacross lines, (a) point;\n(b) other.",
        "naïve café\nÉTÉ 東京都\n\x0bcontrol\x0cchars\n\u00a0nbsp\u2028sep",
        "x" * 150 + "\n" + "y" * 99,
        "",
        "\n\n",
    ],
)
def test_counts_equal_the_whole_text_on_edge_cases(tokenizer, text: str) -> None:
    assert tokenizer.count(text) == _whole(tokenizer, text)


def test_chunking_tokenizes_each_line_once(tokenizer) -> None:
    text = require(GDPR_MD).read_text(encoding="utf-8")
    document = ConvertedDocument("/docs/gdpr.md", "GDPR", text, "hash", "markdown")
    chunks = chunk_document(document, parse_sections(text, "GDPR"), tokenizer, ChunkingSettings())
    distinct = {line.strip(" \t\r") for line in text.split("\n")} - {""}
    assert tokenizer.lines_tokenized <= len(distinct) * 1.02
    before = tokenizer.lines_tokenized
    assert [tokenizer.count(c.content) for c in chunks] == [c.token_count for c in chunks]
    assert tokenizer.lines_tokenized == before
