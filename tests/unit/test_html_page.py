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


SAVED_TEXT_PAGE = """<!-- saved from url=(0040)http://example.org/licences/licence.txt -->
<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"></head>
<body><pre style="word-wrap: break-word; white-space: pre-wrap;">
EXAMPLE FREE SOFTWARE LICENSE AGREEMENT

    Article 1 - DEFINITIONS

Licensee: means the Software user(s) having accepted the Agreement.

    Article 2 - PURPOSE

The Licensor grants the Licensee a licence vis-\xe0-vis the Software.
</pre></body></html>
"""


def test_a_page_that_is_one_preformatted_block_is_read_as_its_text(tmp_path: Path) -> None:
    """A browser saves a plain-text licence as a page whose body is one ``<pre>``, in the
    file's own encoding: it is text with articles, not one fenced code block."""
    page = tmp_path / "licence.html"
    page.write_bytes(SAVED_TEXT_PAGE.encode("latin-1"))
    converted = convert_file(page)
    assert "```" not in converted.text
    assert "vis-\xe0-vis" in converted.text
    assert converted.title == "EXAMPLE FREE SOFTWARE LICENSE AGREEMENT"
    ids = {s.section_id for s in parse_sections(converted.text, converted.title)}
    assert {"article-1", "article-2"} <= ids


CODE_SAMPLE_PAGE = "<html><body><h1>Guide</h1><p>Run this:</p><pre>Article 1</pre></body></html>"


def test_a_code_sample_among_prose_stays_code(tmp_path: Path) -> None:
    (tmp_path / "guide.html").write_text(CODE_SAMPLE_PAGE, encoding="utf-8")
    text = convert_file(tmp_path / "guide.html").text
    assert "```" in text and "Run this:" in text


ACT = """<html><body>
<CENTER><B><H3>
TIDES ACT 1970
</H3></B></CENTER>
<A NAME="TOC1"><CENTER><B><H3>
TIDES ACT 1970<br><part>Part&#160;I&#151;Preliminary
</part></H3></B></CENTER></A>
<p>  </p>
<A NAME="SECT1"><B><H3>
TIDES ACT 1970<br>- SECT 1<br>  Short title<br>
</H3></B></A>
<dl compact="">This Act may be cited as the <i>Tides Act 1970</i>.</dl>
<A NAME="SECT4AB"><B><H3>
TIDES ACT 1970<br>- SECT 4AB<br>  High water<br>
<BR><CENTER><A HREF="#top">Back to Top</A></CENTER><BR>
</H3></B></A>
<dl compact=""><dt>(1)</dt><dd>The tide is high under section 1.</dd></dl>
<A NAME="TOC2"><CENTER><B><H3>
TIDES ACT 1970<br><part>Part&#160;IA&#151;Low water
</part></H3></B></CENTER></A>
<A NAME="REG5"><B><H3>
TIDES ACT 1970<br>- REG 5<br>  Low water mark<br>
</H3></B></A>
<p>The mark is set by section 4AB.</p>
</body></html>
"""


def test_legislation_headings_drop_the_repeated_title_and_spell_out_their_labels(
    tmp_path: Path,
) -> None:
    """Legislation sites write every heading as the Act's title, a "- SECT N" label and the
    section's title on lines of one ``<H3>``, inside bold, centring and named anchors:
    each section is a heading "Section N Title" with its own number, each Part a heading."""
    text = _converted(tmp_path, ACT)
    assert "### Section 1 Short title\n" in text and "### Section 4AB High water\n" in text
    assert "### Part I—Preliminary\n" in text and "### Regulation 5 Low water mark\n" in text
    assert "**" not in text and "Back to Top" not in text
    sections = {s.section_id: s.heading for s in parse_sections(text, "Tides Act 1970")}
    assert sections["section-1"] == "Section 1 Short title"
    assert sections["section-4ab"] == "Section 4AB High water"
    assert sections["part-1"] == "Part I—Preliminary"
    assert sections["part-ia"] == "Part IA—Low water"
    assert "section-4ab-1" in sections


def test_a_title_line_shared_by_few_headings_is_kept(tmp_path: Path) -> None:
    """A page whose headings hold a line break but open with different lines keeps them, and
    so does one whose headings write one word over their numbers ("Article<br>3")."""
    page = "<h2>Overview<br>of the guide</h2><p>a</p><h2>Install<br>steps</h2><p>b</p>"
    text = _converted(tmp_path, f"<html><body>{page}<h2>Overview<br>again</h2></body></html>")
    assert "Overview of the guide" in text and "Install steps" in text
    labels = "".join(f"<h2>Article<br>{n}</h2><p>Text {n}.</p>" for n in range(1, 5))
    assert "## Article 3" in _converted(tmp_path, f"<html><body>{labels}</body></html>")


def _converted(folder: Path, html: str) -> str:
    page = folder / "page.html"
    page.write_text(html, encoding="utf-8")
    return convert_file(page).text


RUN_IN_BYLAWS = """<html><body>
<h1>Bylaws of the Example Society</h1>
<h2>ARTICLE II: MEETINGS</h2>
<p><strong>Section 2.1: Annual Meeting.</strong> The Society shall meet once a year,
at a place the Council chooses.</p>
<p><strong>Section 2.2 Notice</strong>. Notice shall be given ten days ahead.</p>
<p><strong>Section 2.3: Voting Rights.</strong></p>
<p>a. Each member has one vote.</p>
<p>b. Proxies are not allowed.</p>
<h2>ARTICLE III: COUNCIL</h2>
<p><b>3.1 Composition.</b> The Council has five members, as Section 2.1 provides.</p>
<p>The Council also follows <strong>Section 2.2: Notice.</strong> Nothing else applies.</p>
<p><strong>All members must read these bylaws.</strong> They bind every member.</p>
<p><strong>Section 2.4</strong> shall not apply to the Council.</p>
<ul><li><p><strong>Section 9.9: Listed.</strong> An item of a list.</p></li></ul>
</body></html>
"""


def test_bold_run_in_section_labels_open_sections_under_their_article(tmp_path: Path) -> None:
    """A page whose sections are paragraphs opening with a bold label and title ("Section
    2.1: Annual Meeting.", "3.1 Composition.") has those sections, nested under the
    article heading above them, with their points; bold words that are no label, a label
    inside the text or before a lower-case word, and a label in a list stay text."""
    page = tmp_path / "bylaws.html"
    page.write_text(RUN_IN_BYLAWS, encoding="utf-8")
    text = convert_file(page).text
    sections = {s.section_id: s for s in parse_sections(text, "Bylaws")}
    assert {"section-2-1", "section-2-2", "section-2-3", "section-3-1"} <= set(sections)
    assert sections["section-2-1"].heading == "Section 2.1: Annual Meeting"
    assert sections["section-2-1"].path[-1] == "article-ii"
    assert sections["section-3-1"].path[-1] == "article-iii"
    assert "The Society shall meet once a year" in sections["section-2-1"].body
    assert "Notice shall be given ten days ahead." in sections["section-2-2"].body
    assert {"section-2-3-a", "section-2-3-b"} <= set(sections)
    assert not {"section-2-4", "section-9-9"} & set(sections)
    assert "**All members must read these bylaws.**" in text
    assert "**Section 2.2: Notice.**" in text


def test_a_bold_line_opening_with_a_year_or_a_house_number_is_no_section(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(
        "<html><body><h1>Report</h1><p><strong>2023 Annual Report</strong></p><p>Text.</p>"
        "<p><b>10 Downing Street</b></p><p>More text.</p>"
        "<p><strong>4. Payment Terms</strong></p><p>Invoices are due in 30 days.</p>"
        "</body></html>",
        encoding="utf-8",
    )
    text = convert_file(page).text
    assert "**2023 Annual Report**" in text and "**10 Downing Street**" in text
    headings = [s.heading for s in parse_sections(text, "Report")]
    assert "4. Payment Terms" in headings
