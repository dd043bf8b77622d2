from hierdoc.structure import find_headings, parse_sections

from .datasets import GDPR_MD, require

DOC = """# Master Agreement

Intro text.

## Article 1 - Scope

Body one.

```
# not a heading inside a fence
```

Setext Section
--------------

Under setext.

### Section 1.1

Deep.
"""


def test_atx_and_setext_headings_but_not_fenced_code() -> None:
    texts = [h.text for h in find_headings(DOC)]
    assert texts == ["Master Agreement", "Article 1 - Scope", "Setext Section", "Section 1.1"]


def test_tree_ids_and_chains() -> None:
    sections = parse_sections(DOC, "Master Agreement")
    by_id = {s.section_id: s for s in sections}
    assert list(by_id) == ["preamble", "article-1", "setext-section", "section-1-1"]
    assert by_id["section-1-1"].parent_chain == ("Setext Section", "Section 1.1")
    assert by_id["section-1-1"].path == ("setext-section",)
    assert "# not a heading inside a fence" in by_id["article-1"].body


def test_sections_keep_all_text() -> None:
    sections = parse_sections(DOC, "t")
    assert "".join(s.heading_line + s.body for s in sections) == DOC


def test_gdpr_tree() -> None:
    text = require(GDPR_MD).read_text(encoding="utf-8")
    sections = parse_sections(text, "GDPR")
    by_id = {s.section_id: s for s in sections}
    assert all(f"article-{n}" in by_id for n in range(1, 100))
    article = by_id["article-17"]
    assert article.path == ("chapter-3", "chapter-3-section-3")
    assert [c.split(" - ")[0] for c in article.parent_chain] == [
        "Chapter III",
        "Section 3",
        "Article 17",
    ]
    assert "".join(s.heading_line + s.body for s in sections) == text
