"""Inputs that could cost too much are bounded by construction: what a query is
analysed into grows with its length, not its square, and a document nested deeper
than ``max_section_depth`` is a reported file problem. The times and peak memory
are measured in ``benchmarks/hostile_inputs.py`` (RELIABILITY.md)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.pipeline.chunk import split_text
from hierdoc.pipeline.limits import MB, Limits, html_reason
from hierdoc.pipeline.structure import MAX_SECTION_ID_CHARS, parse_sections
from hierdoc.search.glossary import MAX_KEY_ENDS, _term_candidates
from hierdoc.text.analyze import _TOKENS, analyze, analyze_query, analyze_words
from hierdoc.text.tokenizer import PIECE_CHARS, default_tokenizer
from tests.hash_embedder import HashEmbedder, hash_index
from tests.unit.test_nesting_scale import nested

pytestmark = [pytest.mark.reliability, pytest.mark.slow]


@pytest.mark.parametrize(
    "query",
    ["\u0301" * 3000, "!" * 3000, "e" + "\u0301" * 2999, '"' * 3000, "(" * 3000],
)
def test_a_run_of_marks_or_punctuation_is_one_candidate_term(query: str) -> None:
    assert len(_term_candidates(query)) <= 2


@pytest.mark.parametrize("query", ["a!" * 1500, "a." * 1500, "(a)" * 1000, "x " * 1500])
def test_candidate_terms_grow_linearly_with_the_query(query: str) -> None:
    small = len(_term_candidates(query[:300]))
    assert len(_term_candidates(query)) <= 10 * small + MAX_KEY_ENDS


def test_candidate_terms_of_an_ordinary_query_are_every_phrase_between_boundaries() -> None:
    found = _term_candidates("the processing of personal data (gdpr)")
    assert {"personal data", "processing of personal data", "gdpr", "personal data (gdpr)"} <= set(
        found
    )
    assert "ersonal data" not in found and "personal " not in found


@pytest.mark.parametrize("token", ["1." * 40_000, "1" + "(a)" * 25_000, "ab." * 25_000])
def test_a_token_of_80_kb_is_analysed_in_memory_linear_in_its_length(token: str) -> None:
    """Its prefixes longer than a term are never built (all of them: 1.6 GB), and it is
    not kept in the token cache after its document is gone."""
    tracemalloc.start()
    try:
        terms = analyze(token), analyze_words(token), analyze_query(token)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * len(token)  # all prefixes: 20,000 times that
    assert all(len(term) <= 80 for term in terms[0]) and len(terms[1]) == 1
    assert token not in _TOKENS


class _Recording:
    """The default tokenizer, recording the longest text it was asked to tokenize."""

    def __init__(self) -> None:
        self.inner, self.longest = default_tokenizer(), 0

    def count(self, text: str) -> int:
        return self.inner.count(text)

    def offsets(self, text: str) -> list[tuple[int, int]]:
        self.longest = max(self.longest, len(text))
        return self.inner.offsets(text)


@pytest.mark.parametrize("line", ["1." * 100_000, "supplier, " * 20_000, "a" * 200_000])
def test_a_long_line_is_split_by_tokenizing_windows_not_the_whole(line: str) -> None:
    tokenizer = _Recording()
    pieces = split_text(line, tokenizer, 256)
    assert "".join(p.text for p in pieces) == line
    assert all(tokenizer.count(p.text) <= 256 for p in pieces)
    assert tokenizer.longest <= max(20 * 256, len(line) if line.isalpha() else 0)


def test_a_long_line_is_counted_in_pieces_with_the_count_of_the_whole() -> None:
    tokenizer = default_tokenizer()
    for line in ["1." * 20_000, "The Supplier, (a) shall deliver. " * 400, "x" * 9000]:
        whole = len(tokenizer._tokenizer.encode(line, add_special_tokens=False).ids)
        assert tokenizer.count(line) == whole and len(line) > PIECE_CHARS


def test_a_query_of_3000_combining_marks_is_searched_in_every_mode(tmp_path: Path) -> None:
    text = '# Agreement\n\n## Article 1\n\n"Escrow Agent" means the agent holding the funds.\n'
    with hash_index(tmp_path / "index", {"agreement.md": text}) as index:
        for mode in ("keyword", "exact"):
            assert index.search("\u0301" * 3000, mode=mode).results == []
        for mode in ("keyword", "semantic", "hybrid"):
            found = index.search("escrow agent " + "\u0301" * 3000, mode=mode).results
            assert [r.source for r in found] == ["agreement.md"]


def test_sections_nested_deeper_than_the_limit_are_a_file_problem(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "deep.txt").write_text(nested(60))
    (folder / "shallow.txt").write_text(nested(40))
    settings = Settings(max_section_depth=50)
    with Index.open(tmp_path / "index", settings, embedder=HashEmbedder()) as index:
        report = index.ingest([folder])
        texts = index.ingest_texts([TextDocument("deep-text.txt", nested(51))])
        sources = [d.source for d in index.documents()]
    reason = "sections are nested 60 levels deep, over max_section_depth 50"
    assert [(p.source, p.reason) for p in report.problems] == [(str(folder / "deep.txt"), reason)]
    assert report.added == [str(folder / "shallow.txt")] and sources == report.added
    assert [p.reason for p in texts.problems] == [
        "sections are nested 51 levels deep, over max_section_depth 50"
    ]
    assert Settings().max_section_depth == 1000


def test_html_with_more_elements_than_the_limit_is_a_file_problem(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "tags.html").write_text("<p>Clause <b>one</b></p>\n" * 150)
    (folder / "fine.html").write_text("<p>Clause <b>two</b></p>\n" * 40)
    settings = Settings(max_html_elements=100)
    with Index.open(tmp_path / "index", settings, embedder=HashEmbedder()) as index:
        report = index.ingest([folder])
    reasons = [(Path(p.source).name, p.reason) for p in report.problems]
    assert reasons == [("tags.html", "HTML has 300 elements, over max_html_elements 100")]
    assert [Path(s).name for s in report.added] == ["fine.html"]


def test_html_elements_are_counted_across_the_blocks_read(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_bytes(b" " * (MB - 1) + b"<b>" + b" " * (MB - 2) + b"<i><u>")
    assert html_reason(path, Limits(max_html_elements=3)) is None
    assert html_reason(path, Limits(max_html_elements=2)) == (
        "HTML has 3 elements, over max_html_elements 2"
    )


def test_a_section_id_made_of_a_megabyte_label_is_bounded(tmp_path: Path) -> None:
    """Every chunk of the section repeats its id: a 4 MB '1.1.1...' line made 5,000 chunks
    carrying a 4 MB id each (5.5 GB of memory before the store gave up)."""
    ids = [parse_sections(label, "T")[-1].section_id for label in ("1." * 5000, "1." * 5001)]
    assert all(len(i) <= MAX_SECTION_ID_CHARS for i in ids) and ids[0] != ids[1]
    deep = parse_sections(nested(1000), "T")[-1].section_id
    assert "~" not in deep  # ids of the deepest nesting allowed stay whole
    with hash_index(tmp_path / "index", {"line.txt": "1." * 100_000}) as index:
        chunks = index.chunks_of_source("line.txt")
    assert len(chunks) > 100
    assert all(len(c.chunk.section_id) <= MAX_SECTION_ID_CHARS for c in chunks)
