"""Permalink marks of generated web pages (pipeline/permalinks.py): gone from the converted
text, the headings and the breadcrumbs; other links and words kept."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from hierdoc import Index
from hierdoc.pipeline.convert import convert_file
from hierdoc.pipeline.permalinks import may_hold_marks, strip_permalinks
from tests.hash_embedder import HashEmbedder
from tests.paths import FIXTURES, TESTS

HTML = FIXTURES / "html"
NOISE = ("¶", "Link to this heading", "Permanent link", "Link to this code", "Link to this table")
HEADINGS = [
    "Acceptable Use Policy",
    "1. Scope",
    "2. Definitions",
    "3. Python Packaging",
    "3.1 Wheels",
    "3.2 Source distributions",
    "4. Termination",
]


def _headings(text: str) -> list[str]:
    return [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]


@pytest.mark.parametrize("name", ["sphinx-policy.html", "mkdocs-policy.html"])
def test_generated_pages_convert_without_permalink_marks(name) -> None:
    raw = (HTML / name).read_text(encoding="utf-8")
    assert "headerlink" in raw and ("¶" in raw or "&para;" in raw)
    document = convert_file(HTML / name)
    body = document.text[document.text.index("# Acceptable Use Policy") :]
    for noise in NOISE:
        assert noise not in document.text and noise not in document.title, noise
    assert document.title in ("Acceptable Use Policy", "Example Acceptable Use Policy")
    assert _headings(body)[: len(HEADINGS)] == HEADINGS
    assert "A wheel names the Python versions it supports in its file name." in body


def test_sphinx_captions_keep_their_words() -> None:
    text = convert_file(HTML / "sphinx-policy.html").text
    assert "\nChecking a wheel name\n" in text
    assert "\nUpload limits\n" in text
    assert "[3. Python Packaging](#packaging)" in text  # a reference in the text stays a link


def test_breadcrumbs_and_title_of_a_sphinx_page_are_clean(tmp_path) -> None:
    with Index.open(tmp_path / "index", embedder=HashEmbedder()) as index:
        assert not index.ingest([HTML / "sphinx-policy.html"]).problems
        (document,) = index.documents()
        assert document.title == "Acceptable Use Policy"
        first = index.search("Section 3.1", top_k=1).results[0]
        assert first.section_id == "section-3-1"
        # the page's one heading 1 titles the document (the sidebar, which held another
        # heading 1 and "Navigation", is navigation, not part of the document)
        assert first.parent_chain == ["3. Python Packaging", "3.1 Wheels"]
        headings = [s.heading for s in index.store.sections_of_source(document.source)]
        assert not [h for h in headings if "¶" in h or "#" in h]
        assert not {"Navigation", "Related Topics", "Example Acceptable Use Policy"} & set(headings)


@pytest.mark.parametrize(
    "mark",
    [
        # Docusaurus: a zero-width space in a hash-link
        '<a href="#term" class="hash-link" aria-label="Direct link to Term" '
        'title="Direct link to Term">\u200b</a>',
        # GitHub's rendered Markdown, older and newer forms
        '<a id="user-content-term" class="anchor" aria-hidden="true" href="#term">'
        '<svg class="octicon octicon-link" viewBox="0 0 16 16"><path d="M0"></path></svg></a>',
        '<a class="anchor" aria-label="Permalink: Term" href="#term"><svg></svg></a>',
        # a bare symbol in the heading: "#", "🔗", "§"
        '<a href="#term">#</a>',
        '<a href="#term">🔗</a>',
        '<a href="#term" title="Permalink to this headline">§</a>',
    ],
)
def test_permalink_forms_of_other_generators_are_removed(mark) -> None:
    soup = BeautifulSoup(f"<h2>Term {mark}</h2><p>Body.</p>", "html.parser")
    assert strip_permalinks(soup) == 1
    assert soup.h2.get_text().strip() == "Term"


@pytest.mark.parametrize(
    ("html", "kept"),
    [
        # mdBook: the heading's words are the link
        ('<h2><a class="header" href="#scope">1. Scope</a></h2>', "1. Scope"),
        # a footnote and a section sign in running text
        ('<p>Fees apply.<a href="#fn1">1</a></p>', "Fees apply.1"),
        ('<p>See <a href="#s3">§</a> 3.</p>', "See § 3."),
        # a link to another page, in a heading
        ('<h2>Terms <a href="https://example.com/#x">#</a></h2>', "Terms #"),
    ],
)
def test_links_that_are_words_stay(html, kept) -> None:
    soup = BeautifulSoup(html, "html.parser")
    strip_permalinks(soup)
    assert soup.get_text() == kept


def test_a_page_without_marks_converts_as_markitdown_does(tmp_path) -> None:
    from markitdown import MarkItDown

    page = tmp_path / "plain.html"
    page.write_text(
        "<html><head><meta charset='utf-8'><title>T</title></head><body>"
        "<h1>Rules</h1><p>Rule 1 applies, déjà vu.</p><p><a href='#r'>Up</a></p></body></html>",
        encoding="utf-8",
    )
    expected = MarkItDown().convert(page).text_content.strip()
    assert convert_file(page).text.strip() == expected


def test_only_pages_that_may_hold_marks_are_parsed_twice() -> None:
    real = TESTS / "realdocs"
    for name in ("sphinx-policy.html", "mkdocs-policy.html"):
        assert may_hold_marks((HTML / name).read_bytes())
    for name in ("gnu-gpl-3.0.html", "gnu-fdl-1.3.html"):  # <a name="..."></a> anchors only
        assert not may_hold_marks((real / name).read_bytes())
    assert may_hold_marks(b'<h2>Term <a href="#term">#</a></h2>')
    assert may_hold_marks("<h2>Term <a href='#t'>🔗</a></h2>".encode())
    assert may_hold_marks("<h2>Term</h2>".encode("utf-16"))
