"""HTML pages made ready for Markdown: lettered lists keep their labels, navigation goes."""

from __future__ import annotations

from pathlib import Path

from hierdoc.pipeline.convert import convert_file
from hierdoc.pipeline.html_page import item_label
from hierdoc.pipeline.structure import parse_sections

LICENCE = """<html><body>
<div class="sphinxsidebar" role="navigation"><h3>Related Topics</h3>
<ul><li><a href="index.html">Documentation overview</a></li></ul></div>
<div role="main">
<h1>Example Public License</h1>
<h2>Section 2 - Scope.<a class="headerlink" href="#scope" title="Link to this heading">¶</a></h2>
<blockquote><div><ol class="loweralpha simple">
<li><p><strong>License grant</strong>.</p>
<ol class="arabic simple"><li><p>The Licensor grants You a licence.</p></li></ol></li>
<li><p><strong>Other rights</strong>. Moral rights are not licensed.</p></li>
</ol></div></blockquote>
<h2>Section 3 - Conditions.</h2>
<ol type="i" start="4"><li>keep notices;</li><li>name the author.</li></ol>
</div>
<nav><a href="next.html">Next</a></nav>
</body></html>
"""


def test_lettered_list_items_are_points_and_navigation_is_no_section(tmp_path: Path) -> None:
    """Sphinx writes the points of a licence as ``<ol class="loweralpha">`` in a block
    quote, beside a sidebar of navigation: "Section 2(a)" is a point of the document and
    "Related Topics" is not a section."""
    page = tmp_path / "licence.html"
    page.write_text(LICENCE, encoding="utf-8")
    text = convert_file(page).text
    assert "a. **License grant**." in text and "b. **Other rights**." in text
    assert "iv. keep notices;" in text and "v. name the author." in text
    assert "Related Topics" not in text and "Next" not in text
    ids = {s.section_id for s in parse_sections(text, "Licence")}
    assert {"section-2-a", "section-2-b", "section-2-a-1"} <= ids


def test_item_labels_as_a_browser_shows_them() -> None:
    assert item_label("lower-alpha", 3) == "c."
    assert item_label("upper-alpha", 27) == "AA."
    assert item_label("lower-roman", 9) == "ix."
    assert item_label("upper-roman", 4) == "IV."
