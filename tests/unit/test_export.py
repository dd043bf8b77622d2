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


def test_markdown_cites_file_section_and_pages_and_marks_the_match() -> None:
    text = export.render(_response(_result()), "markdown", NAMES, export.PLAIN_MARKS)
    assert text.startswith('# Results for "Art. 17(3)(b), legal obligation" (hybrid search)')
    assert "## 1. Chapter III > Article 17 - Right to erasure" in text
    assert "`docs/gdpr.pdf`, section `article-17`, pp. 12-13" in text
    assert "> … <mark>(b) for compliance with a legal obligation" in text


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
    (snippet,) = export.snippet(result, limit=200).text(export.PLAIN_MARKS)
    assert "[[erase]]" in snippet
    body = snippet.strip("… ")
    assert len(body) <= 200 + len("[[]]")
    left, right = body.split("[[erase]]")
    assert abs(len(left) - len(right)) < 40
    assert snippet.startswith("… ") and snippet.endswith(" …")


MARKED_UP = (
    "### 4.2 Fees\n\n"
    "**Customer** shall pay [the fees](https://example.com/fees) within `30` days.\n\n"
    "| Item | Price |\n| --- | --- |\n| **Setup** | 100 |\n"
)
CUSTOMER = MARKED_UP.index("Customer")


def _marked_up(*spans: tuple[int, int]) -> export.Snippet:
    return export.Snippet.of(MARKED_UP, 0, len(MARKED_UP), list(spans))


def test_text_off_a_terminal_renders_the_markdown_as_plain_text() -> None:
    lines = _marked_up((CUSTOMER, CUSTOMER + 8)).text(export.PLAIN_MARKS)
    assert lines == [
        "4.2 Fees",
        "[[Customer]] shall pay the fees (https://example.com/fees) within 30 days.",
        "Item | Price",
        "Setup | 100",
    ]


def test_a_terminal_shows_the_documents_markup_as_styles_and_the_match_on_top() -> None:
    heading, sentence, header, row = _marked_up((CUSTOMER, CUSTOMER + 8)).text(
        export.TERMINAL_MARKS
    )
    assert heading == "\x1b[1m4.2 Fees\x1b[0m"
    assert sentence.startswith("\x1b[1;33mCustomer\x1b[0m shall pay \x1b[4mthe fees\x1b[0m")
    assert "\x1b[36m30\x1b[0m days." in sentence
    assert "**" not in sentence and "`" not in sentence and "](" not in sentence
    assert row == "\x1b[1mSetup\x1b[0m | 100"


def test_markdown_keeps_the_documents_markup_and_marks_inside_it() -> None:
    from markdown_it import MarkdownIt

    shall = MARKED_UP.index("shall")
    lines = _marked_up((CUSTOMER + 4, shall + 5)).markdown()
    assert lines[1].startswith("**Cust<mark>omer</mark>** <mark>shall</mark> pay [the fees](")
    html = MarkdownIt("commonmark").render(export._quoted(lines))
    assert "<strong>Cust<mark>omer</mark></strong> <mark>shall</mark> pay" in html
    assert '<a href="https://example.com/fees">the fees</a> within <code>30</code>' in html
    assert "**" not in html and "<h3>" not in html


def test_markdown_quotes_each_line_of_the_passage_in_one_block() -> None:
    from markdown_it import MarkdownIt

    text = "Intro.\n\n1. First point\n2. Second *point*\n\n- a bullet\n"
    quoted = export._quoted(export.Snippet.of(text, 0, len(text), []).markdown())
    html = MarkdownIt("commonmark").render(quoted)
    assert html == (
        "<blockquote>\n<p>Intro.<br />\n1. First point<br />\n"
        "2. Second <em>point</em><br />\n• a bullet</p>\n</blockquote>\n"
    )


def test_a_snippet_cut_inside_bold_shows_no_stray_delimiters() -> None:
    text = "Recital words here. " * 30 + "The **Service Provider** must notify the Customer."
    at = text.index("Provider")
    result = _result(content=text, passage=Passage(text, 0, len(text)), highlights=[(at, at + 8)])
    snippet = export.snippet(result, limit=60)
    assert snippet.cut_before
    (plain,) = snippet.text(export.PLAIN_MARKS)
    assert "[[Provider]]" in plain and "*" not in plain
    (terminal,) = snippet.text(export.TERMINAL_MARKS)
    assert "\x1b[1;33mProvider\x1b[0m" in terminal


def test_show_renders_the_chunk_and_marks_its_section() -> None:
    start = MARKED_UP.index("| Item")
    shown = export.rendered(MARKED_UP, [(start, len(MARKED_UP))], export.PLAIN_MARKS)
    assert shown.splitlines()[-2:] == ["[[Item | Price]]", "[[Setup | 100]]"]


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
