"""An HTML page made ready for Markdown: its navigation left out, its lettered lists labelled.

Site generators wrap a page's text in navigation (Sphinx's sidebar and "Related Topics",
MkDocs' and Read the Docs' menus, search boxes): ARIA landmarks (``role="navigation"``,
``role="search"``) and ``<nav>`` elements, whose links and titles are no part of the
document and would become its last sections. They are removed.

A browser numbers ``<ol type="a">``, docutils' ``<ol class="loweralpha">`` and a list
styled ``list-style-type: lower-roman`` with "a.", "b." or "i.", "ii.": labels that are
not in the text. Converted to Markdown they become "1.", "2.", and "Section 2(a)" of a
licence built with Sphinx has no point (a). Each item of such a list is written as a
paragraph that opens with its label, as the page shows it; decimal lists are left to the
converter.

A browser shows a plain-text file as a page whose body is one ``<pre>`` block, and saving
it ("Save Page As") keeps that page: a licence or an RFC saved so is text, not code. Such
a page is read as the text of its block (:func:`preformatted_text`), where Markdown would
fence it as code and hide its headings and definitions.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag

from ..text.numbering import int_to_roman

_TYPES = {"a": "lower-alpha", "A": "upper-alpha", "i": "lower-roman", "I": "upper-roman"}
_CLASSES = {
    "loweralpha": "lower-alpha",
    "upperalpha": "upper-alpha",
    "lowerroman": "lower-roman",
    "upperroman": "upper-roman",
}
_STYLE = re.compile(r"list-style(?:-type)?\s*:\s*(?P<kind>(?:lower|upper)-(?:alpha|latin|roman))")
MARKERS = (
    *(f"{case}{kind}".encode() for case in ("lower", "upper") for kind in ("alpha", "roman")),
    *(f"{case}-{kind}".encode() for case in ("lower", "upper") for kind in ("alpha", "roman")),
    *(f"{case}-latin".encode() for case in ("lower", "upper")),
    *(f"type={quote}{kind}{quote}".encode() for quote in "\"'" for kind in "aAiI"),
)
"""Bytes a page with a lettered or Roman list holds: parsing only those keeps others fast."""
NAVIGATION_MARKERS = (b"<nav", b'role="navigation"', b'role="search"', b"role='navigation'")
_LANDMARKS = {"navigation", "search"}


PREFORMATTED_MARKER = b"<pre"
"""Bytes a page shown as one preformatted block holds (compared lower-cased)."""


def preformatted_text(soup: BeautifulSoup) -> str | None:
    """The text of a page whose visible words are all in one ``<pre>`` block (a plain-text
    file as a browser shows and saves it); None for any other page."""
    body = soup.body or soup
    blocks = body.find_all("pre")
    if len(blocks) != 1:
        return None
    for hidden in body.find_all(["script", "style", "template", "noscript"]):
        hidden.decompose()
    inside = blocks[0].get_text()
    if "".join(body.get_text().split()) != "".join(inside.split()):
        return None
    return inside if inside.strip() else None


def drop_navigation(soup: BeautifulSoup) -> int:
    """Remove ``<nav>`` elements and navigation and search landmarks; returns how many."""
    found = [
        element
        for element in soup.find_all(True)
        if isinstance(element, Tag)
        and (element.name == "nav" or str(element.get("role", "")).lower() in _LANDMARKS)
    ]
    removed = 0
    for element in found:
        if not element.decomposed:
            element.decompose()
            removed += 1
    return removed


def list_kind(ordered: Tag) -> str | None:
    """ "lower-alpha", "upper-roman" ... for a list the page numbers so; None for decimal."""
    kind = ordered.get("type")
    if isinstance(kind, str) and kind in _TYPES:
        return _TYPES[kind]
    for name in ordered.get("class") or []:
        if name.lower() in _CLASSES:
            return _CLASSES[name.lower()]
    style = ordered.get("style")
    match = _STYLE.search(style.lower()) if isinstance(style, str) else None
    return match["kind"].replace("latin", "alpha") if match else None


def item_label(kind: str, number: int) -> str:
    """The label a browser shows: 3 -> "c." (lower-alpha), "iii." (lower-roman)."""
    if kind.endswith("alpha"):
        letters = chr(ord("a") + (number - 1) % 26) * ((number - 1) // 26 + 1)
        text = letters
    else:
        text = int_to_roman(number).lower()
    return (text.upper() if kind.startswith("upper") else text) + "."


def label_lettered_lists(soup: BeautifulSoup) -> int:
    """Write the label of every item of ``soup``'s lettered and Roman ordered lists at its
    start and make the items paragraphs (module docstring); returns the lists changed."""
    changed = 0
    for ordered in soup.find_all("ol"):
        if not isinstance(ordered, Tag) or (kind := list_kind(ordered)) is None:
            continue
        start = ordered.get("start")
        number = int(start) if isinstance(start, str) and start.isdigit() else 1
        for item in ordered.find_all("li", recursive=False):
            first = item.find(["p", "span"], recursive=False) or item
            first.insert(0, f"{item_label(kind, number)} ")
            item.name = "div"
            number += 1
        ordered.name = "div"
        changed += 1
    return changed
