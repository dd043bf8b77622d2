"""Search results as text, Markdown, CSV and JSON (cli/export.py): each parses, cites file,
section id and pages, and marks the matches."""

from __future__ import annotations

import csv
import io
import json

from hierdoc.cli import export
from hierdoc.models import Passage, SearchResponse, SearchResult

CONTENT = (
    "#### Article 17 - Right to erasure\n\n"
    "1. The data subject shall have the right to obtain the erasure of personal data.\n\n"
    "3. Paragraphs 1 and 2 shall not apply to the extent that processing is necessary:\n\n"
    "(b) for compliance with a legal obligation, which requires processing, by Union law;\n\n"
    "(c) for reasons of public interest in the area of public health."
)
POINT = CONTENT.index("(b) for compliance")
POINT_END = CONTENT.index("(c) for reasons") - 2


def _result(**changes: object) -> SearchResult:
    values: dict = dict(
        chunk_id="gdpr:article-17:0",
        source="docs/gdpr.pdf",
        title="GDPR",
        parent_chain=["Chapter III", "Article 17 - Right to erasure"],
        section_id="article-17",
        heading="Article 17 - Right to erasure",
        chunk_type="requirement",
        content=CONTENT,
        score=0.95,
        scores={"semantic": 0.4, "keyword": None, "exact": 1.0},
        ranks={"semantic": 3, "keyword": None, "exact": 1},
        page_start=12,
        page_end=13,
        passage=Passage(CONTENT[POINT:POINT_END], POINT, POINT_END),
        highlights=[(POINT, POINT_END)],
    )
    values.update(changes)
    return SearchResult(**values)


def _response(*results: SearchResult) -> SearchResponse:
    return SearchResponse("Art. 17(3)(b), legal obligation", "hybrid", False, list(results))


NAMES = {"docs/gdpr.pdf": "docs/gdpr.pdf", "notes.md": "notes.md"}


def test_csv_parses_with_citations_and_the_passage() -> None:
    text = export.render(
        _response(_result(), _result(source="notes.md", page_start=None, page_end=None)),
        "csv",
        NAMES,
        export.PLAIN_MARKS,
    )
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == list(export.CSV_COLUMNS)
    first, second = rows
    assert (first["rank"], first["source"], first["section_id"]) == (
        "1",
        "docs/gdpr.pdf",
        "article-17",
    )
    assert (first["page_start"], first["page_end"]) == ("12", "13")
    assert first["passage"] == CONTENT[POINT:POINT_END]
    assert (int(first["passage_start"]), int(first["passage_end"])) == (POINT, POINT_END)
    assert "," in first["passage"] and "\n" not in first["passage"]
    assert (second["source"], second["page_start"], second["page_end"]) == ("notes.md", "", "")


def test_json_is_the_results_json_with_passage_and_highlights() -> None:
    data = json.loads(export.render(_response(_result()), "json", NAMES, export.PLAIN_MARKS))
    result = data["results"][0]
    assert result["passage"] == {"text": CONTENT[POINT:POINT_END], "start": POINT, "end": POINT_END}
    assert result["highlights"] == [[POINT, POINT_END]]
    assert (result["page_start"], result["page_end"]) == (12, 13)


def test_markdown_cites_file_section_and_pages_and_bolds_the_match() -> None:
    text = export.render(_response(_result()), "markdown", NAMES, export.PLAIN_MARKS)
    assert text.startswith('# Results for "Art. 17(3)(b), legal obligation" (hybrid search)')
    assert "## 1. Chapter III > Article 17 - Right to erasure" in text
    assert "`docs/gdpr.pdf`, section `article-17`, pp. 12-13" in text
    assert "> … **(b) for compliance with a legal obligation" in text


def test_text_marks_matches_plainly_off_a_terminal_and_in_bold_on_one() -> None:
    response = _response(_result())
    plain = export.render(response, "text", NAMES, export.terminal_marks(io.StringIO()))
    assert "[[(b) for compliance" in plain and "by Union law;]]" in plain
    assert "docs/gdpr.pdf  [article-17]  pp. 12-13  score 0.950 (semantic #3, exact #1)" in plain
    assert "\x1b[" not in plain
    bold = export.render(response, "text", NAMES, export.TERMINAL_MARKS)
    assert f"{export.TERMINAL_MARKS.open}(b) for compliance" in bold


def test_a_long_passage_is_cut_to_a_snippet_centred_on_its_match() -> None:
    long = "Recital text with many words. " * 40
    content = long + "The controller shall erase the data. " + long
    at = content.index("erase")
    result = _result(
        content=content,
        passage=Passage(content, 0, len(content)),
        highlights=[(at, at + len("erase"))],
    )
    snippet = export.snippet(result, export.PLAIN_MARKS, limit=200)
    assert "[[erase]]" in snippet
    body = snippet.strip("… ")
    assert len(body) <= 200 + len("[[]]")
    left, right = body.split("[[erase]]")
    assert abs(len(left) - len(right)) < 40
    assert snippet.startswith("… ") and snippet.endswith(" …")


def test_mcp_text_shows_the_passage_under_its_breadcrumb() -> None:
    from hierdoc.tools.catalogue import check_output
    from hierdoc.tools.render import render_search

    data = check_output("search", _response(_result()).to_dict())
    assert data["results"][0]["passage"]["start"] == POINT
    text = render_search(data, {"docs/gdpr.pdf": "gdpr.pdf"})
    head, body = text.split("\n\n", 1)[1].split("\n", 1)
    assert head.startswith(
        "[1] gdpr.pdf · Chapter III > Article 17 - Right to erasure · [article-17]"
    )
    assert body.startswith("… (b) for compliance with a legal obligation")
    assert "1. The data subject" not in body
    assert f"the best passage of {len(CONTENT):,} characters" in body
    assert "get_section gdpr:article-17:0" in body
