"""Results that show the match, as a user runs the CLI: real model, a small regulation.

``search --format`` (text with marked matches, markdown, csv, json and the --json alias),
``show`` marking a point, resolving a citation and listing children; and the embedding
windows the passages read back from the real model's stored vectors."""

from __future__ import annotations

import csv
import io
import json

import pytest

from hierdoc import Index
from hierdoc.cli import main
from hierdoc.search.passages import window_spans
from hierdoc.text.tokenizer import default_tokenizer
from tests.integration.test_cli import run

pytestmark = pytest.mark.slow

DOC = """# Data Regulation

## Chapter III - Rights of the data subject

### Article 17 - Right to erasure

1. The data subject shall have the right to obtain from the controller the erasure of
personal data concerning him or her without undue delay where one of the following grounds
applies, and the controller shall inform the data subject of the erasure in writing.

2. Where the controller has made the personal data public, it shall take reasonable steps
to inform other controllers which are processing the personal data.

3. Paragraphs 1 and 2 shall not apply to the extent that processing is necessary:

(a) for exercising the right of freedom of expression and information in the press;

(b) for compliance with a legal obligation which requires processing by Union law;

(c) for reasons of public interest in the area of public health and social care;

(d) for archiving purposes in the public interest, scientific or historical research
purposes or statistical purposes, in so far as erasure would seriously impair them;

(e) for the establishment, exercise or defence of legal claims before a court or tribunal.

4. The controller shall keep a record of each request for erasure, of the grounds on which
it was granted or refused, and of the recipients informed, for a period of three years.

### Article 18 - Right to restriction of processing

1. The data subject shall have the right to obtain from the controller restriction of
processing where the accuracy of the personal data is contested by the data subject.
"""


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("results")
    (folder / "docs").mkdir()
    (folder / "docs" / "regulation.md").write_text(DOC)
    index = str(folder / "index")
    main_args = ["--index", index, "ingest", str(folder / "docs"), "--quiet"]
    try:
        main(main_args)
    except SystemExit as exit_info:
        assert not exit_info.code
    return index


def test_search_text_marks_the_cited_point_and_terms(index_dir, capsys) -> None:
    code, out, _ = run(capsys, "--index", index_dir, "search", "Art. 17(3)(b)", "-k", "2")
    assert code == 0
    first = out.split("\n\n")[0]
    assert "[article-17-3-b]" in first  # the cited point, not the article its chunk opens
    assert first.splitlines()[0].endswith("> 3. > (b)")
    assert "[[(b) for compliance with a legal obligation" in first
    assert "(a) for exercising" not in first  # the snippet is the point, not the article
    code, out, _ = run(
        capsys, "--index", index_dir, "search", '"without undue delay"', "--mode", "exact"
    )
    assert "[[without undue delay]]" in out


def test_search_formats_parse_and_cite(index_dir, capsys) -> None:
    base = ("--index", index_dir, "search", "erasure of personal data", "-k", "3")
    code, out, _ = run(capsys, *base, "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and rows[0]["source"].endswith("regulation.md")
    assert rows[0]["section_id"].startswith("article-1")
    assert int(rows[0]["passage_end"]) > int(rows[0]["passage_start"])
    _, as_json, _ = run(capsys, *base, "--json")
    _, as_format, _ = run(capsys, *base, "--format", "json")
    data = json.loads(as_json)
    assert data == json.loads(as_format)
    for result in data["results"]:
        passage = result["passage"]
        assert result["content"][passage["start"] : passage["end"]] == passage["text"]
        assert result["highlights"]
    _, markdown, _ = run(capsys, *base, "--format", "markdown")
    assert markdown.startswith('# Results for "erasure of personal data"')
    top = data["results"][0]["section_id"]
    assert top.startswith("article-17") and "<mark>erasure</mark>" in markdown
    assert f"section `{top}`" in markdown  # the same section in every format


def test_search_passages_ranks_passages_each_with_its_chunk(index_dir, capsys) -> None:
    base = ("--index", index_dir, "search", "erasure of personal data", "-k", "4", "--json")
    _, chunks, _ = run(capsys, *base)
    code, passages, _ = run(capsys, *base, "--passages")
    assert code == 0
    chunk_results = json.loads(chunks)["results"]
    results = json.loads(passages)["results"]
    assert len(results) == 4
    assert {r["chunk_id"] for r in results} <= {r["chunk_id"] for r in chunk_results}
    for result in results:
        assert result["passages"] == [result["passage"]]
        assert result["section_id"] in result["sections"]
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)


def test_show_marks_the_point_and_resolves_citations(index_dir, capsys) -> None:
    code, by_id, _ = run(capsys, "--index", index_dir, "show", "article-17-3-b")
    assert code == 0
    assert "[[(b) for compliance with a legal obligation" in by_id
    assert "Union law;]]" in by_id
    assert "1. The data subject shall have the right" in by_id  # the whole article around it
    code, by_citation, err = run(capsys, "--index", index_dir, "show", "Art. 17(3)(b)")
    assert code == 0 and by_citation == by_id
    assert "resolved to section article-17-3-b" in err


def test_show_lists_the_children_of_a_section(index_dir, capsys) -> None:
    code, out, _ = run(capsys, "--index", index_dir, "show", "chapter-3")
    assert code == 0
    assert "children (2):" in out
    assert "article-17  Article 17 - Right to erasure" in out
    assert "article-18  Article 18 - Right to restriction of processing" in out
    _, out, _ = run(capsys, "--index", index_dir, "show", "article-17-3")
    assert "article-17-3-b  (b)" in out


def test_recomputed_windows_match_the_stored_vectors(index_dir) -> None:
    with Index.open(index_dir, mode="r") as index:
        chunks = {s.chunk.chunk_id: s for s in index.iter_chunks()}
        vectors = dict(index.iter_vectors())
    several = [c for c, v in vectors.items() if len(v) > 1]
    assert several, "the test document needs a chunk longer than one window"
    for chunk_id in vectors:
        stored = chunks[chunk_id]
        spans = window_spans(stored.chunk.content, stored.context, default_tokenizer())
        assert len(spans) == len(vectors[chunk_id])
