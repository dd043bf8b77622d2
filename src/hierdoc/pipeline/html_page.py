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

A page rendered from Markdown may give its sections no heading elements, only a paragraph
that opens with the section's label and title in bold ("<p><strong>Section 5.12:
Quorum.</strong> At all meetings ...</p>"): each such paragraph is written as a heading one
level below the heading above it, and the rest of its text (:func:`lift_run_in_labels`).

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


HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_INLINE_WRAPPERS = frozenset({"b", "strong", "i", "em", "u", "font", "span", "center"})
_LEGISLATION_LABEL = re.compile(
    r"^[-\u2013\u2014]?\s*(?P<kind>SECT|REG|RULE|CL|ART|SCHED)\s+(?P<number>[\w.]+)$", re.I
)
_LABEL_WORDS = {
    "sect": "Section",
    "reg": "Regulation",
    "rule": "Rule",
    "cl": "Clause",
    "art": "Article",
    "sched": "Schedule",
}
_WRAPPED_OR_BROKEN_HEADING = re.compile(
    rb"<(?:b|strong|i|em|u|font|span|center)\b[^>]*>\s*<h[1-6]\b|<h[1-6]\b[^>]*>[^<]{0,200}<br",
    re.IGNORECASE,
)


def may_hold_wrapped_headings(data: bytes) -> bool:
    """Whether a page may hold a heading inside bold or centring, or a heading written
    over several lines: only those pages are parsed for :func:`lift_wrapped_headings`
    and :func:`plain_legislation_headings`."""
    return _WRAPPED_OR_BROKEN_HEADING.search(data) is not None


def lift_wrapped_headings(soup: BeautifulSoup) -> int:
    """Unwrap the bold, centring and font elements, and the named anchors, that hold a
    heading and nothing else (``<A NAME="SECT5"><B><H3>...</H3></B></A>``): Markdown
    writes a heading inside bold as "**### Part I**", a line that is no heading, and one
    inside an anchor without the line break after it. An anchor's name becomes the
    heading's id. Returns the wrappers removed."""
    lifted = 0
    for heading in soup.find_all(HEADING_TAGS):
        parent = heading.parent
        while isinstance(parent, Tag) and _wraps_only(parent, heading):
            name = parent.get("name") if parent.name == "a" else None
            if isinstance(name, str) and not heading.get("id"):
                heading["id"] = name
            above = parent.parent
            parent.unwrap()
            lifted += 1
            parent = above
    return lifted


def _wraps_only(parent: Tag, heading: Tag) -> bool:
    if parent.name == "a":
        if parent.get("href") is not None:
            return False
    elif parent.name not in _INLINE_WRAPPERS:
        return False
    return parent.get_text(strip=True) == heading.get_text(strip=True)


_BACK_TO_TOP = re.compile(r"^\W*(?:back\s+to\s+)?top(?:\s+of\s+(?:the\s+)?page)?\W*$", re.I)
TOP_LINK_MARKER = b"#top"
"""Bytes a page with "Back to Top" links holds (compared lower-cased)."""


def drop_top_links(soup: BeautifulSoup) -> int:
    """Remove "Back to Top" links (to ``#top``, or worded so): page navigation that lands
    inside headings and between a definition's words. Returns how many."""
    removed = 0
    for link in soup.find_all("a", href=True):
        if not isinstance(link, Tag) or link.decomposed:
            continue
        href = str(link.get("href", "")).lower()
        if href == "#top" or (href.startswith("#") and _BACK_TO_TOP.match(link.get_text())):
            link.decompose()
            removed += 1
    return removed


def heading_lines(heading: Tag) -> list[str]:
    """The lines of a heading as a browser shows them (split at ``<br>``)."""
    lines, current = [], []
    for piece in heading.descendants:
        if isinstance(piece, Tag) and piece.name == "br":
            lines.append(" ".join("".join(current).split()))
            current = []
        elif isinstance(piece, str) and not isinstance(piece, Tag):
            current.append(str(piece))
    lines.append(" ".join("".join(current).split()))
    return [line for line in lines if line]


def repeated_first_line(headings: list[Tag]) -> str | None:
    """The first line that most headings of several lines open with: legislation sites
    (AustLII, ComLaw) repeat the Act's title on every heading ("MARRIAGE ACT 1961<br>-
    SECT 5<br>Interpretation"). None unless at least three headings share it, they are
    most of the headings written over several lines, and it holds more than one word."""
    firsts = [lines[0] for h in headings if len(lines := heading_lines(h)) > 1]
    if not firsts:
        return None
    first, count = max(((f, firsts.count(f)) for f in sorted(set(firsts))), key=lambda p: p[1])
    if len(first.split()) < 2:  # "Article<br>1": a label written over two lines
        return None
    return first if count >= 3 and 2 * count > len(firsts) else None


def label_line(line: str) -> str:
    """ "- SECT 5" -> "Section 5", "REG 3.1" -> "Regulation 3.1"; other lines unchanged."""
    match = _LEGISLATION_LABEL.match(line)
    if not match:
        return line
    return f"{_LABEL_WORDS[match['kind'].lower()]} {match['number']}"


def plain_legislation_headings(soup: BeautifulSoup) -> int:
    """Write each heading that repeats the page's title on its first line as its own lines
    without that title, its "SECT N"/"REG N"/"RULE N" label spelt out
    ("Section 5 Interpretation"). Returns the headings rewritten."""
    headings = [h for h in soup.find_all(HEADING_TAGS) if isinstance(h, Tag)]
    title = repeated_first_line(headings)
    if title is None:
        return 0
    changed = 0
    for heading in headings:
        lines = heading_lines(heading)
        if len(lines) < 2 or lines[0] != title:
            continue
        heading.clear()
        heading.append(" ".join(label_line(line) for line in lines[1:]))
        changed += 1
    return changed


_RUN_IN_KINDS = r"Section|SECTION|Sec\.|SEC\.|Article|ARTICLE|Clause|CLAUSE|§"
RUN_IN_LABEL_MARKER = re.compile(
    rb"<p\b[^>]*>\s*<(?:strong|b)\b[^>]*>\s*(?:(?:" + _RUN_IN_KINDS.encode() + rb")\s*)?\d",
    re.IGNORECASE,
)
"""Bytes of a paragraph that opens with a number in bold: only such pages are parsed for
:func:`lift_run_in_labels`."""
_RUN_IN_LABEL = re.compile(
    rf"^(?P<label>(?P<kind>{_RUN_IN_KINDS})\s*\d{{1,4}}(?:\.\d{{1,3}})*"
    r"|\d{1,3}(?:\.\d{1,3})+|\d{1,3}(?=\.))"
    r"(?:[.:]|\s*[-–—])?(?:\s+(?P<title>\S.*?))?\s*[.:]?$"
)
"""A clause label in bold: "Section 5.12:", "Section 4.", "2.1", "3." (a bare number needs its
full stop or a second part: "2023 Annual Report" and "10 Downing Street" are no labels)."""
_RUN_IN_TITLE = re.compile(r"^[A-Z][^.;!?]*$")
#: Longest run-in title, in words: a bold sentence is no title.
MAX_RUN_IN_TITLE_WORDS = 12
_SHORT_TITLE_WORDS = 3
_TITLE_SMALL_WORDS = frozenset(
    {"of", "the", "a", "an", "and", "or", "for", "to", "in", "on", "by", "with", "at", "from"}
)
_NOT_IN = ("li", "td", "th", "dt", "dd", "table")
_MAX_RUN_IN_HEADING = 6


def lift_run_in_labels(soup: BeautifulSoup) -> int:
    """Write each paragraph that opens with a bold clause label and its run-in title
    (``<p><strong>Section 5.12: Quorum.</strong> At all meetings ...</p>``, "Section 4.",
    "2.1 Fees.") as a heading one level below the heading above it, followed by the rest
    of the paragraph, as the DOCX converter writes a clause's bold run-in title. A label
    alone in bold needs its kind ("Section 4."); a bare number ("**2.1** The ...") is left
    to the outline. Bold words that are no label, or a label inside the text, a list or a
    table, stay text. Returns the paragraphs rewritten."""
    level = 1
    lifted = 0
    for element in list(soup.find_all([*HEADING_TAGS, "p"])):
        if element.name in HEADING_TAGS:
            level = int(element.name[1])
            continue
        heading = _run_in_heading(element)
        if heading is None:
            continue
        bold, title = heading
        new = soup.new_tag(f"h{min(level + 1, _MAX_RUN_IN_HEADING)}")
        new.string = title
        bold.extract()
        _strip_leading_punctuation(element)
        element.insert_before(new)
        if not element.get_text(strip=True):
            element.decompose()
        lifted += 1
    return lifted


def _run_in_heading(paragraph: Tag) -> tuple[Tag, str] | None:
    """The bold element that opens ``paragraph`` with a clause label, and the heading it
    makes; None when the paragraph does not open so."""
    if paragraph.find_parent(_NOT_IN) is not None:
        return None
    first = next(
        (c for c in paragraph.children if not (isinstance(c, str) and not c.strip())), None
    )
    if not isinstance(first, Tag) or first.name not in ("strong", "b"):
        return None
    words = " ".join(first.get_text().split())
    match = _RUN_IN_LABEL.match(words)
    if match is None:
        return None
    title = (match["title"] or "").strip()
    if not title and not match["kind"]:
        return None
    if title and not _title_like(title):
        return None
    if not _opens_sentence(_text_after(first)):
        return None
    return first, words.rstrip(" .:")


def _title_like(title: str) -> bool:
    """A few words with no sentence punctuation, each significant one capitalised (a
    short title may be in sentence case: "Term of office")."""
    words = title.split()
    if not _RUN_IN_TITLE.match(title) or len(words) > MAX_RUN_IN_TITLE_WORDS:
        return False
    significant = [w for w in words if w.casefold() not in _TITLE_SMALL_WORDS]
    return len(words) <= _SHORT_TITLE_WORDS or all(w[0].isupper() for w in significant)


def _text_after(element: Tag) -> str:
    """The paragraph's text after ``element``, up to its end."""
    return "".join(
        sibling.get_text() if isinstance(sibling, Tag) else str(sibling)
        for sibling in element.next_siblings
    )


def _opens_sentence(text: str) -> bool:
    """Nothing, or text opening as a sentence does (a capital, a quote, a bracket)."""
    rest = text.lstrip(" \t\n.:;—–-")
    return not rest or not rest[0].islower()


def _strip_leading_punctuation(paragraph: Tag) -> None:
    """Drop the full stop or colon left at the start of the paragraph by its bold title
    ("<strong>Quorum</strong>. At all ...")."""
    for child in list(paragraph.children):
        if isinstance(child, Tag):
            return
        stripped = str(child).lstrip(" \t\n.:;—–-")
        if stripped:
            child.replace_with(stripped)
            return
        child.extract()
