"""The web page (hierdoc.web) through Starlette's TestClient, over a small index of the
sample documents embedded by the hash embedder: what each page shows, its paging, its
escaping and its refusals."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pypdfium2 as pdfium
import pytest
from starlette.testclient import TestClient

from hierdoc import Index, Settings, TextDocument
from hierdoc.web import build_app
from hierdoc.web.pdf import char_range, layout

from ..hash_embedder import HashEmbedder
from ..paths import FIXTURES, REPOSITORY

SAMPLES = REPOSITORY / "samples" / "documents"
NIST = SAMPLES / "nist-fips-199.pdf"
REG_P = "12-cfr-part-1016-regulation-p.md"
HOSTILE = "<script>alert('doc')</script>.md"
CONFLICTING = {
    "hosting.md": '# Terms\n\n## 1. Definitions\n\n"Service" means the hosting of the '
    "customer's virtual machines.\n\n## 2. Use\n\nThe Service is available every day.\n",
    "consulting.md": '# Terms\n\n## 1. Definitions\n\n"Service" means advice given by the '
    "consultant in writing.\n\n## 2. Fees\n\nThe Service is billed monthly.\n",
    HOSTILE: '# <img src=x onerror=alert(1)>\n\n## 1. Definitions\n\n"<b>Widget</b>" means '
    "a <script>alert('term')</script> gadget.\n\n## 2. Use\n\nSee Section 1.\n",
}


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("web") / "index"
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as index:
        report = index.ingest([SAMPLES, FIXTURES / "definitions"])
        assert not report.problems
        index.ingest_texts([TextDocument(name, text) for name, text in CONFLICTING.items()])
    return directory


@pytest.fixture(scope="module")
def reader_index(index_dir):
    with Index.open(index_dir, Settings(), embedder=HashEmbedder(), mode="r") as index:
        yield index


@pytest.fixture(scope="module")
def client(reader_index):
    with TestClient(build_app(reader_index), base_url="http://127.0.0.1:8780") as client:
        yield client


def get(client: TestClient, path: str, status: int = 200, **params) -> str:
    response = client.get(path, params=params)
    assert response.status_code == status, response.text[:2000]
    assert response.headers["content-type"].startswith("text/html")
    return response.text


def links(html: str, pattern: str = "") -> list[str]:
    return [unescape(h) for h in re.findall(r'href="([^"]+)"', html) if pattern in unescape(h)]


def query_of(link: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(link).query).items()}


# search


def test_search_shows_each_result_with_where_it_sits_and_its_ranks(client):
    html = get(client, "/", q="account number marketing", k=3)
    results = re.findall(r'<li class="result".*?</li>', html, re.S)
    assert len(results) == 3
    first = results[0]
    assert "›" in first  # the breadcrumb
    assert REG_P in first
    assert re.search(r'<code class="sid">section-1016-[0-9a-z-]+</code>', first)
    assert re.search(r'<mark class="hit">account', first, re.I)
    assert re.search(r'<span class="rank">keyword #\d+</span>', first)
    section = links(first, "/section?")[0]
    assert query_of(section)["chunk"] and query_of(section)["doc"].endswith(REG_P)


def test_explain_gives_each_result_its_fusion_and_the_plan(client):
    html = get(client, "/", q="account number marketing", k=2, explain="1")
    assert html.count('<p class="explain">') == 2
    assert "→ fusion" in html
    assert "How the query was read" in html


def test_search_results_are_paged(client):
    first = get(client, "/", q="disclosure", k=2)
    following = links(first, "page=2")
    assert following, "a next link"
    second = get(client, following[0].split("?")[0], **query_of(following[0]))
    assert 'start="3"' in second
    assert 'id="result-3"' in second and 'id="result-1"' not in second
    assert links(second, "/?")  # a previous link


def test_filters_narrow_the_results(client):
    pdf_only = get(client, "/", q="security", document="nist-fips-199.pdf", k=10)
    files = re.findall(r'<span class="file">([^<]+)</span>', pdf_only)
    assert files and set(files) == {"nist-fips-199.pdf"}
    by_format = get(client, "/", q="security", where="format=pdf", k=10)
    formats = set(re.findall(r'<span class="file">([^<]+)</span>', by_format))
    assert formats and all(name.endswith(".pdf") for name in formats)
    in_section = get(client, "/", q="account", section="section-1016-12", document=REG_P)
    ids = re.findall(r'<code class="sid">([^<]+)</code>', in_section)
    assert ids and all(i.startswith("section-1016-12") for i in ids)


def test_a_search_with_no_match_says_so(client):
    html = get(client, "/", q='"zebra quagga okapi"', mode="exact")
    assert "No results for" in html


# the section


def test_section_shows_parents_children_neighbours_and_outline(client):
    html = get(client, "/section", doc=REG_P, id="section-1016-12-b")
    crumbs = re.search(r'<nav class="crumbs".*?</nav>', html, re.S).group()
    parents = [query_of(link).get("id") for link in links(crumbs)]
    assert parents[-2:] == ["subpart-b", "section-1016-12"]
    children = [query_of(link)["id"] for link in links(html.split('id="children-h"')[1])[:2]]
    assert children == ["section-1016-12-b-1", "section-1016-12-b-2"]
    assert 'rel="prev"' in html and 'rel="next"' in html
    outline = html.split('id="outline"')[1]
    assert 'aria-current="page"' in outline and "<details open>" in outline


def test_references_are_links_both_ways(client):
    html = get(client, "/section", doc=REG_P, id="section-1016-12-b")
    refers = html.split('id="refers-to"')[1].split("</ul>")[0]
    targets = [query_of(link)["id"] for link in links(refers)]
    assert "section-1016-12-a" in targets
    target = get(client, "/section", doc=REG_P, id="section-1016-12-a")
    referred = target.split('id="referred-by"')[1].split("</ul>")[0]
    assert "section-1016-12-b" in [query_of(link)["id"] for link in links(referred)]


def test_defined_terms_carry_their_definition_and_where_it_is(client):
    html = get(client, "/section", doc=REG_P, id="section-1016-12")
    terms = re.findall(r'<span class="term" tabindex="0".*?</span></span>', html, re.S)
    affiliate = next(t for t in terms if ">affiliate<" in t.lower())
    assert "controls, is controlled by" in affiliate
    assert "defined in" in affiliate and "section-1016-3" in affiliate


def test_the_cited_point_is_marked(client):
    html = get(client, "/section", doc=REG_P, id="section-1016-12-a")
    point = re.search(r'<mark class="point" id="point">(.*?)</mark>', html, re.S)
    assert point and "General prohibition" in point.group(1)
    given = get(client, "/", q="account number marketing", k=1)
    opened = links(given, "/section?")[0]
    html = get(client, "/section", **query_of(opened))
    assert 'id="point"' in html


def test_the_outline_is_paged(client):
    first = get(client, "/outline", doc=REG_P)
    assert "sections 1–100 of" in first
    second = get(client, "/outline", doc=REG_P, outline_page="2")
    assert "sections 101–200 of" in second
    assert links(second, "outline_page=1") and links(second, "outline_page=3")


# the page


def test_a_pdf_result_opens_its_page_with_the_passage_outlined(client):
    html = get(client, "/", q="security category", document="nist-fips-199.pdf", k=3)
    page_link = links(html, "/page?")[0]
    page = get(client, "/page", **query_of(page_link))
    assert '<img id="page-image"' in page and page.count('<rect class="box"') >= 1
    image = links(page.replace("src=", "href="), "/page.png")[0]
    png = client.get(image)
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG\r\n\x1a\n")


def test_a_passage_on_a_chunks_later_page_opens_that_page(client, reader_index):
    source = reader_index.resolve_sources("nist-fips-199.pdf")[0]
    chunk = next(
        c.chunk
        for c in reader_index.chunks_of_source(source)
        if c.chunk.page_start and c.chunk.page_end and c.chunk.page_end > c.chunk.page_start
    )
    end = len(chunk.content)
    span = {"start": str(end - 100), "end": str(end)}
    html = get(client, "/page", doc=source, chunk=chunk.chunk_id, **span)
    assert f"page {chunk.page_end} of 13" in html
    assert '<rect class="box"' in html and "not on this page" not in html


def test_passage_boxes_lie_over_the_passage_characters():
    passage = "SECURITY CATEGORY: The characterization of information"
    found = layout(NIST, 12, passage)
    assert found.boxes
    document = pdfium.PdfDocument(NIST)
    textpage = document[11].get_textpage()
    text = textpage.get_text_range()
    start = text.index("characterization")
    left, bottom, right, top = textpage.get_charbox(start)
    x, y = (left + right) / 2 / found.width, 1 - (top + bottom) / 2 / found.height
    assert any(b.left <= x <= b.left + b.width and b.top <= y <= b.top + b.height
               for b in found.boxes)  # fmt: skip
    document.close()


def test_a_passage_is_found_across_line_breaks_and_hyphens():
    page = "The quick brown fox jumps over the lazy dog. Sec-\ntion 5 applies."
    assert char_range(page, "*Section 5* applies") == (45, len(page) - 1)
    assert char_range(page, "nothing like it") is None


def test_other_formats_show_the_converted_text_with_the_passage_marked(client):
    html = get(client, "/", q="account number marketing", k=1, document=REG_P)
    page = get(client, "/page", **query_of(links(html, "/page?")[0]))
    assert "of the converted text" in page
    assert re.search(r'<mark class="point" id="point">[^<]*General prohibition', page)


# the glossary and the documents


def test_glossary_puts_conflicting_definitions_side_by_side(client):
    html = get(client, "/glossary", q="service")
    entry = re.search(r"<dt[^>]*>Service.*?</dd>", html, re.S).group()
    assert "defined differently" in entry and 'class="side-by-side"' in entry
    assert "hosting of the" in entry and "advice given by" in entry
    assert "hosting.md" in entry and "consulting.md" in entry


def test_glossary_and_documents_are_paged(client):
    html = get(client, "/glossary")
    assert "page 1 of" in html and links(html, "page=2")
    past = get(client, "/glossary", 400, page="999")
    assert "past the last page" in past


def test_documents_page_is_the_ls_table_with_outline_links(client):
    html = get(client, "/documents")
    rows = re.findall(r"<tr><th scope=\"row\">.*?</tr>", html, re.S)
    assert len(rows) == 7
    outlines = links(html, "/outline?")
    assert len(outlines) == 7
    outline = get(client, "/outline", **query_of(outlines[0]))
    assert 'id="outline"' in outline


# bad input and escaping


def test_an_unknown_section_is_a_clear_404(client):
    html = get(client, "/section", 404, doc=REG_P, id="section-9999")
    assert "Not found" in html and "section-9999" in html and "Traceback" not in html


def test_a_ten_thousand_character_query_is_refused_clearly(client):
    html = get(client, "/", 400, q="x" * 10_000)
    assert "10,000 characters" in html and "Traceback" not in html


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/documents", {}),
        ("/glossary", {"q": "widget"}),
        ("/", {"q": "gadget widget", "k": "10"}),
        ("/section", {"doc": HOSTILE, "id": "section-1"}),
        ("/section", {"doc": HOSTILE, "id": "preamble"}),
        ("/outline", {"doc": HOSTILE}),
        ("/page", {"doc": HOSTILE}),
        ("/section", {"doc": "<b>x</b>.pdf", "id": "<i>y</i>"}),
        ("/", {"q": "<script>alert(1)</script>", "document": "<svg onload=alert(1)>"}),
    ],
)
def test_markup_in_names_queries_and_texts_is_escaped(client, path, params):
    response = client.get(path, params=params)
    assert response.status_code in (200, 400, 404)
    html = response.text
    assert "<script>alert" not in html and "<b>Widget</b>" not in html
    assert "<img src=x" not in html and "<svg onload" not in html and "<i>y</i>" not in html
    assert re.findall(r"<script[^>]*>", html) == ['<script src="/static/web.js" defer>']


def test_the_hostile_document_is_shown_escaped(client):
    html = get(client, "/documents")
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "script&gt;.md" in html
    section = get(client, "/section", doc=HOSTILE, id="section-1")
    assert "a &lt;script&gt;alert(&#39;" in section and "&lt;/script&gt; gadget" in section


def test_bad_parameters_are_clear_400s(client):
    assert "whole number" in get(client, "/glossary", 400, page="-1")
    assert "mode is one of" in get(client, "/", 400, q="x", mode="fuzzy")
    assert "at most 50" in get(client, "/", 400, q="x", k="500")
    assert "KEY=VALUE pairs" in get(client, "/", 400, q="x", where="type")
    assert "at most 100 results" in get(client, "/", 400, q="x", k="50", page="3")
    assert "no indexed document" in get(client, "/outline", 404, doc="missing.pdf")
    assert "not in the document" in get(
        client, "/page", 400, doc="nist-fips-199.pdf", page="99"
    )


def test_unknown_paths_and_writes_are_refused(client):
    assert "no such page" in get(client, "/admin", 404)
    assert client.post("/", data={"q": "x"}).status_code == 405


# the server's safety


def test_foreign_host_and_origin_are_refused(client):
    assert client.get("/", headers={"host": "evil.example"}).status_code == 421
    assert client.get("/", headers={"origin": "http://evil.example"}).status_code == 403
    assert client.get("/", headers={"origin": "http://127.0.0.1:8780"}).status_code == 200


def test_pages_forbid_foreign_scripts_and_fetch_nothing_elsewhere(client):
    response = client.get("/section", params={"doc": REG_P, "id": "section-1016-12"})
    policy = response.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert not re.search(r'(?:src|href)="(?:https?:)?//', response.text)
    assert client.get("/static/web.css").status_code == 200
    assert client.get("/static/web.js").status_code == 200


def test_the_page_never_takes_the_writer_lock(client, index_dir):
    get(client, "/", q="security")
    with Index.open(index_dir, Settings(), embedder=HashEmbedder(), mode="w") as writer:
        assert writer.documents()
    get(client, "/", q="security")


def test_serve_web_refuses_a_non_loopback_address(index_dir):
    from click.testing import CliRunner

    from hierdoc.cli import cli

    args = ["--index", str(index_dir), "serve", "--web", "--http", "0.0.0.0:8780"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and "not a loopback address" in result.output
    remote = CliRunner().invoke(cli, [*args, "--allow-remote"])
    assert remote.exit_code == 2 and "without authentication" in remote.output
