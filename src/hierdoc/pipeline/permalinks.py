"""Permalink marks that site generators put beside headings, removed from HTML.

Sphinx ends every heading, caption and API entry with ``<a class="headerlink"
href="#id" title="Permalink to this headline">¶</a>``; MkDocs does the same with its
``toc`` permalinks (``¶`` or ``#``), Docusaurus with ``<a class="hash-link">`` holding a
zero-width space, GitHub's rendered Markdown with ``<a class="anchor">`` around a link
icon, other generators with ``#``, ``§`` or ``🔗``. Converted as they are, they leave
"Contents¶ > 3. Python Packaging¶" in breadcrumbs and ``[¶](#id "Permalink to this
headline")`` in the text. An element is taken out when it is such a mark:

* a link within the page (``href`` starting with ``#``),
* whose own text is empty or one permalink symbol (:data:`SYMBOLS`), so that a link that
  wraps a heading's words (mdBook's ``<a class="header">``) is kept,
* and which says it is a permalink: a class (:data:`CLASSES`), a title or ARIA label
  (:data:`LABELS`), or its place inside a heading, a definition term or a caption.

Any other link within the page inside a heading (the back-link to a table of contents
that Sphinx's ``contents`` directive makes of every heading) keeps its words, not its link.
"""

from __future__ import annotations

import io
import re
from typing import Any, BinaryIO

from bs4 import BeautifulSoup, Tag
from markitdown import DocumentConverterResult, StreamInfo
from markitdown.converters import HtmlConverter

from .html_page import MARKERS as LIST_MARKERS
from .html_page import (
    NAVIGATION_MARKERS,
    PREFORMATTED_MARKER,
    RUN_IN_LABEL_MARKER,
    TOP_LINK_MARKER,
    drop_navigation,
    drop_top_links,
    label_lettered_lists,
    lift_run_in_labels,
    lift_wrapped_headings,
    may_hold_wrapped_headings,
    plain_legislation_headings,
    preformatted_text,
)

SYMBOLS = frozenset({"", "¶", "#", "§", "🔗", "🔗\ufe0e", "🔗\ufe0f", "⚓", "⚓\ufe0f", "⁋"})
"""The whole visible text of a permalink mark (zero-width characters removed)."""
CLASSES = frozenset(
    {
        "headerlink",
        "anchor",
        "anchor-link",
        "anchorjs-link",
        "hash-link",
        "header-anchor",
        "heading-anchor",
        "anchor-heading",
        "permalink",
        "octicon-link",
    }
)
LABELS = re.compile(
    r"^\s*(permalink|permanent link|link to this|direct link to|anchor link|copy link)", re.I
)
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
HOLDERS = HEADINGS | {"dt", "caption", "figcaption"}
"""Where a link of a symbol alone is a permalink whatever its attributes say."""
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u2060\ufeff\\s]+")


def strip_permalinks(soup: BeautifulSoup) -> int:
    """Remove the permalink marks of ``soup`` in place, and keep only the words of the
    other links within the page that headings are (a table of contents' back-links:
    Sphinx's ``toc-backref``); returns how many links were changed."""
    links = [a for a in soup.find_all("a") if isinstance(a, Tag)]
    changed = 0
    for link in links:
        if is_permalink(link):
            link.decompose()
        elif _within_page(link) and link.find_parent(list(HEADINGS)) is not None:
            link.unwrap()
        else:
            continue
        changed += 1
    return changed


def _within_page(link: Tag) -> bool:
    href = link.get("href")
    return isinstance(href, str) and href.startswith("#")


def is_permalink(link: Tag) -> bool:
    """A link within the page whose text is a symbol alone and that says it is a permalink
    (module docstring)."""
    if not _within_page(link):
        return False
    if _INVISIBLE.sub("", link.get_text()) not in SYMBOLS:
        return False
    classes = link.get("class") or []
    if CLASSES.intersection(c.lower() for c in classes):
        return True
    labels = (link.get("title"), link.get("aria-label"))
    if any(isinstance(label, str) and LABELS.match(label) for label in labels):
        return True
    return link.find_parent(list(HOLDERS)) is not None


class PermalinkFreeHtmlConverter(HtmlConverter):
    """markitdown's HTML converter, given the page without its permalink marks and its
    navigation and "Back to Top" links, with the labels of its lettered lists written out,
    its headings out of bold and anchors, its bold run-in clause labels made headings and
    legislation's repeated titles left out of them (:mod:`.html_page`):
    parsed, cleaned and written back as UTF-8 for it to convert (as it was when it has
    none of these). A page that is one preformatted block is given as the text of that
    block (:func:`~.html_page.preformatted_text`)."""

    def convert(
        self, file_stream: BinaryIO, stream_info: StreamInfo, **kwargs: Any
    ) -> DocumentConverterResult:
        data = file_stream.read()
        if PREFORMATTED_MARKER in data.lower():
            soup = BeautifulSoup(data, "html.parser", from_encoding=stream_info.charset)
            text = preformatted_text(soup)
            if text is not None:
                title = soup.title.get_text(strip=True) if soup.title else None
                return DocumentConverterResult(markdown=text, title=title or None)
        lists = any(marker in data for marker in LIST_MARKERS)
        navigation = any(marker in data for marker in NAVIGATION_MARKERS)
        headings = may_hold_wrapped_headings(data)
        top_links = TOP_LINK_MARKER in data.lower()
        run_in = RUN_IN_LABEL_MARKER.search(data) is not None
        if lists or navigation or headings or top_links or run_in or may_hold_marks(data):
            encoding = stream_info.charset or "utf-8"
            soup = BeautifulSoup(data, "html.parser", from_encoding=encoding)
            changed = strip_permalinks(soup) if may_hold_marks(data) else 0
            changed += drop_navigation(soup) if navigation else 0
            changed += label_lettered_lists(soup) if lists else 0
            changed += drop_top_links(soup) if top_links else 0
            if headings:
                changed += plain_legislation_headings(soup) + lift_wrapped_headings(soup)
            changed += lift_run_in_labels(soup) if run_in else 0
            if changed:
                data = str(soup).encode("utf-8")
                stream_info = stream_info.copy_and_update(charset="utf-8")
        return super().convert(io.BytesIO(data), stream_info, **kwargs)


_MARK_WORDS = (
    *(c.encode() for c in CLASSES),
    *(w.encode() for w in ("permanent link", "direct link", "link to this", "&para;")),
    *(w.encode() for w in ("&#182;", "&#xb6;", "¶", "🔗", "⚓", "⁋")),
)
_BARE_LINK = re.compile(
    rb"<a\b[^>]*\bhref\s*=\s*[\"']?#[^>]*>\s*(?:#|\xc2\xa7|\xe2\x80\x8b)?\s*</a>", re.IGNORECASE
)


def may_hold_marks(data: bytes) -> bool:
    """False when an ASCII-compatible page holds none of the classes, labels and symbols
    of :data:`CLASSES`, :data:`LABELS` and :data:`SYMBOLS`, nor a link of a symbol alone:
    it is converted without a second parse (which costs about as much as markitdown's
    own). A UTF-16 page is always parsed."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data[:1024]:
        return True
    lower = data.lower()
    return any(word in lower for word in _MARK_WORDS) or _BARE_LINK.search(data) is not None
