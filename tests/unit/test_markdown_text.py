"""A chunk's Markdown rendered for reading (cli/markdown_text.py): markup gone, styles and
source offsets kept, so that matches given as offsets land on the right characters."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from hierdoc.cli import markdown_text as md
from tests.paths import TESTS

FIXTURES = TESTS / "fixtures"


def _plain(text: str, *spans: tuple[int, int]) -> list[str]:
    return [md.plain(line, list(spans), "[", "]") for line in md.cells(text)]


def _span(text: str, word: str) -> tuple[int, int]:
    at = text.index(word)
    return at, at + len(word)


def test_blocks_lose_their_markup_and_keep_their_numbers() -> None:
    text = (
        "# Part 1\n\n"
        "Intro line\nwrapped here.\n\n"
        "- first *point*\n  - nested `code`\n\n"
        "3. Third paragraph\n4. Fourth\n\n"
        "> A quoted __word__\n\n"
        "---\n\n"
        "```\nfee = 10 * rate\n```\n"
    )
    assert _plain(text) == [
        "Part 1",
        "Intro line wrapped here.",
        "• first point",
        "  • nested code",
        "3. Third paragraph",
        "4. Fourth",
        "│ A quoted word",
        "───",
        "fee = 10 * rate",
    ]


def test_every_character_of_the_text_keeps_its_offset() -> None:
    text = (
        "## 4.2 **Fees** and [the *schedule*](https://example.com/a_(b)) \\*net\\*\n\n"
        "See [**the rates**](rates.md) and ![a chart](chart.png) here.\n\n"
        "| Item | **Price** |\n| --- | --- |\n| Setup &amp; support | 100 |\n"
    )
    for line in md.cells(text):
        for cell in line:
            if cell.style.kind == md.TEXT and not cell.char.isspace():
                assert text[cell.offset] == cell.char, (cell, text[cell.offset - 5 : cell.offset])
    notes = [c for line in md.cells(text) for c in line if c.style.kind == md.NOTE]
    address = "".join(c.char for c in notes)
    assert address == " (https://example.com/a_(b)) (rates.md)"
    assert text[notes[2].offset] == "h", "the address maps onto the link's destination"


def test_a_match_keeps_its_characters_whatever_the_markup_around_it() -> None:
    text = "The **Service Provider** shall pay the [fees](fees.md) on `day 30`."
    spans = [_span(text, "Provider** shall"), _span(text, "fees]"), _span(text, "30")]
    assert _plain(text, *spans) == [
        "The Service [Provider shall] pay the [fees] (fees.md) on day [30]."
    ]


def test_empty_table_cells_show_no_rule() -> None:
    text = "|  | **Provider** |  | **Company** |\n| --- | --- | --- | --- |\n| Name | a |  | b |\n"
    assert _plain(text) == ["Provider | Company", "Name | a | b"]


def test_a_window_keeps_the_cells_of_its_offsets_only() -> None:
    text = "Recitals.\n\n**Article 5**: the Customer pays.\n\n- item one\n- item two\n"
    start, end = text.index("Customer"), text.index("one") + 3
    lines = md.window(md.cells(text), start, end)
    assert [md.plain(line, [], "[", "]") for line in lines] == ["Customer pays.", "• item one"]
    start = text.index("item one")
    lines = md.window(md.cells(text), start, end)
    assert [md.plain(line, [], "[", "]") for line in lines] == ["item one"], "its bullet is before"
    whole = md.window(md.cells(text), 0, len(text))
    assert [md.plain(line, [], "", "") for line in whole][-1] == "• item two"


def test_wrapping_breaks_at_spaces() -> None:
    (line,) = md.cells("alpha beta gamma delta epsilon")
    rows = [md.plain(row, [], "", "") for row in md.wrap(line, 11)]
    assert rows == ["alpha beta", "gamma delta", "epsilon"]


@pytest.mark.parametrize("emphasis", ["**", "*", "_", "__", "`"])
def test_markdown_output_parses_to_the_documents_emphasis_with_the_match_inside(
    emphasis: str,
) -> None:
    text = f"Pay the {emphasis}agreed fees{emphasis} monthly."
    spans = [_span(text, "fees")]
    (line,) = md.cells(text)
    html = MarkdownIt("commonmark").renderInline(md.markdown(line, spans))
    tag = {"**": "strong", "__": "strong", "*": "em", "_": "em", "`": "code"}[emphasis]
    if tag == "code":
        assert html == "Pay the <mark><code>agreed fees</code></mark> monthly."
    else:
        assert html == f"Pay the <{tag}>agreed <mark>fees</mark></{tag}> monthly."


def test_markdown_output_escapes_what_would_read_as_markup() -> None:
    text = "Rate \\* 2 \\| net \\_x\\_ \\[1\\]"
    (line,) = md.cells(text)
    written = md.markdown(line, [])
    html = MarkdownIt("commonmark").renderInline(written)
    assert html == "Rate * 2 | net _x_ [1]"


def test_the_fixture_documents_render_with_offsets_in_order() -> None:
    for path in sorted(FIXTURES.rglob("*.md")):
        text = path.read_text()
        offsets = [c.offset for line in md.cells(text) for c in line if c.style.kind == md.TEXT]
        assert offsets, path
        assert all(0 <= o < len(text) for o in offsets), path
        assert offsets == sorted(offsets), path
