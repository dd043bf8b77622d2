"""The web page in a real browser: Debian's headless Chromium, driven by Playwright,
against ``hierdoc serve --web`` on loopback over the sample documents (indexed once per
session with the real model). Screenshots of the main pages are saved under
``tmp/artefacts`` (or ``$HIERDOC_ARTEFACTS``). Skipped only where Chromium is absent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest

from hierdoc.auth import new_token

from ..conftest import _build as build_index
from ..paths import REPOSITORY
from .test_mcp_server import free_port, server_env, stop, wait_for_port

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SAMPLES = REPOSITORY / "samples" / "documents"
REG_P = "12-cfr-part-1016-regulation-p.md"
NIST = SAMPLES / "nist-fips-199.pdf"
ARTEFACTS = Path(os.environ.get("HIERDOC_ARTEFACTS", REPOSITORY / "tmp" / "artefacts"))


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory, embedder) -> Path:
    index = build_index(tmp_path_factory, embedder, "web-browser", [SAMPLES])
    index.close()
    return index.directory


def web_server(index: Path, log: Path, env: dict[str, str]) -> Iterator[str]:
    """``hierdoc serve --web`` over ``index`` on a free loopback port, until closed."""
    port = free_port()
    command = [sys.executable, "-m", "hierdoc", "--index", str(index), "serve", "--web",
               "--http", f"127.0.0.1:{port}"]  # fmt: skip
    with log.open("w") as stderr:
        process = subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL, stdout=stderr, stderr=stderr
        )
        try:
            wait_for_port(process, port, log)
            yield f"http://127.0.0.1:{port}"
        finally:
            stop(process)


@pytest.fixture(scope="module")
def server(sample_index, tmp_path_factory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("web-log") / "server.log"
    yield from web_server(sample_index, log, server_env())


SCOPED_TOKEN, SCOPED_HASH = new_token()


@pytest.fixture(scope="module")
def signed_server(sample_index, tmp_path_factory) -> Iterator[str]:
    """The web page with a token configured (HIERDOC_AUTH) that sees Regulation P only."""
    log = tmp_path_factory.mktemp("web-auth-log") / "server.log"
    auth = f"{{tokens: [{{name: reg-p, sha256: {SCOPED_HASH}, sources: [{REG_P}]}}]}}"
    yield from web_server(sample_index, log, {**server_env(), "HIERDOC_AUTH": auth})


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def browser_page(browser, base_url: str, allowed_errors: tuple[str, ...] = ()) -> Iterator[Any]:
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield opened
    context.close()
    errors = [e for e in errors if not any(allowed in e for allowed in allowed_errors)]
    assert errors == [], errors  # no script error, no resource the policy blocked


@pytest.fixture
def page(browser, server):
    yield from browser_page(browser, server)


@pytest.fixture
def signed_page(browser, signed_server):
    # the wrong token's 401 answer is logged by the browser as a failed resource
    yield from browser_page(browser, signed_server, ("status of 401",))


def screenshot(page, name: str) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / f"{name}.png"))


def test_search_and_open_a_result(page):
    page.goto("/")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "q"
    page.keyboard.type("can a bank share account numbers for marketing")
    page.keyboard.press("Enter")
    page.wait_for_selector("li.result")
    first = page.locator("li.result").first
    assert REG_P in first.locator(".file").inner_text()
    assert first.locator("mark.hit").count() > 0
    assert "keyword #" in first.locator(".ranks").inner_text()
    screenshot(page, "search")
    first.locator("a.open").click()
    page.wait_for_selector("div.text")
    assert "/section?" in page.url
    point = page.locator("#point")
    assert point.is_visible() and "account" in point.inner_text().lower()
    screenshot(page, "section")


def test_follow_a_cross_reference_both_ways(page):
    page.goto(f"/section?doc={REG_P}&id=section-1016-12-b")
    page.locator("#refers-to a", has_text="Paragraph (a)").first.click()
    page.wait_for_url("**id=section-1016-12-a**")
    assert page.locator("h1").inner_text() == "(a)"
    back = page.locator("#referred-by a", has_text="section-1016-12-b").first
    back.click()
    page.wait_for_url("**id=section-1016-12-b**")
    assert page.locator("code.sid").first.inner_text() == "section-1016-12-b"


def test_a_defined_term_shows_its_definition_on_hover_and_focus(page):
    page.goto(f"/section?doc={REG_P}&id=section-1016-12")
    term = page.locator("span.term", has_text="affiliate").first
    tip = term.locator(".tip")
    assert not tip.is_visible()
    term.hover()
    assert tip.is_visible()
    assert "controls, is controlled by" in tip.inner_text()
    assert "defined in" in tip.inner_text()
    screenshot(page, "term")
    page.mouse.move(0, 0)
    assert not tip.is_visible()
    term.focus()
    assert tip.is_visible()
    page.keyboard.press("Escape")
    assert not tip.is_visible()


def test_page_through_the_outline_and_fold_it(page):
    page.goto(f"/outline?doc={REG_P}")
    pager = page.locator("nav.pager").first
    assert "sections 1–100 of" in pager.inner_text()
    pager.locator("a[rel=next]").click()
    assert "sections 101–200 of" in page.locator("nav.pager").first.inner_text()
    folder = page.locator("#outline details").first
    inner = folder.locator(":scope > ul a").first
    assert inner.is_visible()
    folder.locator(":scope > summary").focus()
    page.keyboard.press("Enter")
    assert not inner.is_visible()
    screenshot(page, "outline")


def test_a_pdf_page_outlines_the_passage_over_its_text(page):
    page.goto("/?q=security+category&document=nist-fips-199.pdf&k=3")
    result = page.locator("li.result", has_text="SECURITY CATEGORY").first
    result.locator(".where a", has_text="p. ").first.click()
    image = page.locator("#page-image")
    image.wait_for()
    page.wait_for_load_state("load")
    assert page.evaluate("document.getElementById('page-image').naturalWidth") > 0
    boxes = [b.bounding_box() for b in page.locator("rect.box").all()]
    assert boxes
    number = int(image.get_attribute("src").split("page=")[1].split("&")[0])
    for word in ("characterization", "assessment"):
        x, y = word_on_screen(number, word, image.bounding_box())
        assert any(inside(x, y, box) for box in boxes), (word, x, y, boxes)
    screenshot(page, "pdf-page")


def word_on_screen(number: int, word: str, shown: dict) -> tuple[float, float]:
    """Where the middle of ``word``'s first letter on the PDF page is on the screen,
    from pdfium's own character box and the image's place."""
    document = pdfium.PdfDocument(NIST)
    try:
        page = document[number - 1]
        left, bottom, right, top = page.get_cropbox()
        textpage = page.get_textpage()
        found = textpage.search(word, match_case=False).get_next()
        assert found, f"{word!r} is not on page {number}"
        x0, y0, x1, y1 = textpage.get_charbox(found[0])
    finally:
        document.close()
    x = shown["x"] + ((x0 + x1) / 2 - left) / (right - left) * shown["width"]
    y = shown["y"] + (top - (y0 + y1) / 2) / (top - bottom) * shown["height"]
    return x, y


def inside(x: float, y: float, box: dict) -> bool:
    return box["x"] <= x <= box["x"] + box["width"] and box["y"] <= y <= box["y"] + box["height"]


def test_glossary_and_documents(page):
    page.goto("/documents")
    rows = page.locator("table.documents tbody tr")
    assert rows.count() == 3
    screenshot(page, "documents")
    rows.first.locator("a").first.click()
    page.wait_for_selector("#outline")
    page.goto("/glossary")
    assert page.locator("dl.glossary dt").count() > 10
    screenshot(page, "glossary")


def test_every_link_is_reachable_by_keyboard(page):
    page.goto(f"/section?doc={REG_P}&id=section-1016-12")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    page.keyboard.press("Enter")
    focused = set()
    active = "document.activeElement.tagName + '.' + document.activeElement.className"
    for _ in range(12):
        page.keyboard.press("Tab")
        focused.add(page.evaluate(active))
    assert "SPAN.term" in focused


def test_sign_in_search_and_sign_out(signed_page):
    page = signed_page
    page.goto(f"/section?doc={REG_P}&id=section-1016-12")
    page.wait_for_url("**/signin?next=**")
    assert page.locator("li.result").count() == 0 and "Regulation" not in page.content()
    page.fill("#token", SCOPED_TOKEN[:-2])
    page.keyboard.press("Enter")
    assert "not accepted" in page.locator("p.error").inner_text()
    page.fill("#token", SCOPED_TOKEN)
    page.keyboard.press("Enter")
    page.wait_for_url("**/section?doc=**")  # back where the visit began
    assert page.locator("code.sid").first.inner_text() == "section-1016-12"
    cookie = next(c for c in page.context.cookies() if c["name"] == "hierdoc_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    assert SCOPED_TOKEN not in cookie["value"]
    assert page.evaluate("document.cookie") == ""  # out of scripts' reach
    page.goto("/")
    page.fill("#q", "security categorization of federal information")
    page.keyboard.press("Enter")
    page.wait_for_selector("li.result")
    files = set(page.locator("li.result .file").all_inner_texts())
    assert files == {REG_P}  # the token sees Regulation P only, not the NIST PDF
    screenshot(page, "signed-in-search")
    page.goto("/documents")
    assert page.locator("table.documents tbody tr").count() == 1
    assert "reg-p" in page.locator("form.signout").inner_text()
    page.locator("form.signout button").click()
    page.wait_for_url("**/signin")
    page.goto("/documents")
    page.wait_for_url("**/signin?next=%2Fdocuments")
    assert "hierdoc_session" not in {c["name"] for c in page.context.cookies()}
