import random

import pytest
from markdown_it import MarkdownIt

from hierdoc.pipeline.structure import find_headings, parse_sections
from tests.datasets import GDPR_MD, require

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


def test_gdpr_text_and_markdown_give_the_same_tree() -> None:
    from tests.datasets import GDPR_TXT

    md = parse_sections(require(GDPR_MD).read_text(encoding="utf-8"), "GDPR")
    txt = parse_sections(require(GDPR_TXT).read_text(encoding="utf-8"), "GDPR")

    def tree(sections):
        return {
            s.section_id: s.path
            for s in sections
            if s.section_id.startswith(("chapter-", "article-"))
        }

    md_tree, txt_tree = tree(md), tree(txt)
    assert md_tree == txt_tree
    assert all(f"article-{n}" in md_tree for n in range(1, 100))
    paragraphs = [i for i in md_tree if i.count("-") == 2 and i.split("-")[2].isdigit()]
    assert len(paragraphs) > 300
    assert md_tree["article-17-3-b"] == (
        "chapter-3",
        "chapter-3-section-3",
        "article-17",
        "article-17-3",
    )
    assert md_tree["article-6-1-a"] == ("chapter-2", "article-6", "article-6-1")
    assert len([i for i in md_tree if i.startswith("article-4-")]) >= 26


def test_hr8847_sections_and_subdivisions() -> None:
    import re

    from hierdoc.pipeline.convert import convert_file
    from tests.datasets import HR8847_PDF

    text = convert_file(require(HR8847_PDF)).text
    sections = parse_sections(text, "HR 8847")
    expected = re.findall(r"^(?:#+ )?SEC\. (\d+)\. (.+?)\.?$", text, re.MULTILINE)
    assert len(expected) >= 60
    by_id = {s.section_id: s for s in sections}
    for number, title in expected:
        section = by_id[f"section-{number}"]
        assert section.kind == "section"
        assert title.rstrip(".") in section.heading
        assert section.path[0].startswith("title-")
    assert by_id["section-201-b-1"].path[-2:] == ("section-201", "section-201-b")
    assert by_id["section-301-b-1-a"].path[-3:] == (
        "section-301",
        "section-301-b",
        "section-301-b-1",
    )
    assert by_id["section-110-8"].heading.startswith("(8) ARTIFICIAL GENERAL INTELLIGENCE")
    titles = [s for s in sections if s.kind == "title"]
    assert [t.section_id for t in titles] == [f"title-{n}" for n in range(1, 12)]


TABLE_OF_SECTIONS = """# Guidelines

## Authentication and Lifecycle Management

### 2 Introduction

#### Section Name Normative/Informative

1. Purpose | Informative
2. Introduction | Informative

Appendix A — Strength of Memorized
Secrets

Informative

### 11 References

Standards.

### Appendix A—Strength of Memorized Secrets

This appendix is informative.
"""


def test_a_marked_heading_keeps_its_id_from_a_table_row_with_its_number() -> None:
    sections = parse_sections(TABLE_OF_SECTIONS, "Guidelines")
    by_id = {s.section_id: s for s in sections}
    assert by_id["appendix-a"].heading == "Appendix A—Strength of Memorized Secrets"
    rows = [s for s in sections if s.heading.startswith("Appendix A —")]
    assert [s.section_id for s in rows] == ["section-name-normative-informative-appendix-a"]


def test_numbers_every_use_of_which_is_marked_stay_qualified() -> None:
    text = (
        "# Act\n\n## Chapter I\n\n### Section 1\n\nOne.\n\n## Chapter II\n\n### Section 1\n\nTwo.\n"
    )
    ids = [s.section_id for s in parse_sections(text, "Act")]
    assert ids == [
        "preamble",
        "chapter-1",
        "chapter-1-section-1",
        "chapter-2",
        "chapter-2-section-1",
    ]


def test_a_text_without_a_heading_line_is_not_parsed_and_the_headings_are_the_same() -> None:
    """find_headings skips Markdown parsing when no line can open a heading; on random
    texts of heading marks, fences, quotes and lists it finds what the parser finds."""
    rng = random.Random(33)
    pieces = ["#", " ", "\n", "=", "-", "a", "\t", ">", "```", "1.", "*", "\r", "    "]
    for _ in range(2000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        tokens = MarkdownIt("commonmark").parse(text)
        parsed = [t.map[0] for t in tokens if t.type == "heading_open" and t.level == 0 and t.map]
        assert [h.first_line for h in find_headings(text)] == parsed, text


PARTLY_MARKED = """# Licence

## 1. Definitions

a. "Work" means the work offered under this License.

2. Fair Use Rights. Nothing in this license reduces any rights arising from fair use.

3. License Grant. Licensor grants You a licence:

a. to reproduce the Work;

b. to distribute the Work.

## 4. Termination

This License terminates on any breach.
"""


def test_clauses_written_as_paragraphs_between_marked_clauses_are_their_siblings() -> None:
    sections = parse_sections(PARTLY_MARKED, "Licence")
    parents = {s.section_id: s.path for s in sections}
    assert parents == {
        "preamble": (),
        "section-1": (),
        "section-1-a": ("section-1",),
        "section-2": (),
        "section-3": (),
        "section-3-a": ("section-3",),
        "section-3-b": ("section-3",),
        "section-4": (),
    }
    assert "".join(s.heading_line + s.body for s in sections).strip() == PARTLY_MARKED.strip()


def test_a_list_of_a_marked_clauses_own_is_not_taken_for_its_siblings() -> None:
    text = "# Terms\n\n## 1. Scope\n\n1. First item.\n\n2. Second item.\n\n## 2. Fees\n\nBody.\n"
    ids = [s.section_id for s in parse_sections(text, "Terms")]
    assert "section-1-2" in ids or "section-2" in ids
    assert ids.count("section-2") == 1 and ids.index("section-2") > ids.index("section-1")
    second = next(s for s in parse_sections(text, "Terms") if s.section_id == "section-2")
    assert second.heading.startswith("2. Fees")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # "2.1" under "2.0" is clause 2.1, as the licence cites it
            "# Licence\n\n## 1.0 Definitions\n\nWords.\n\n## 2.0 What this License covers\n\n"
            "2.1 Legal effect of this document. The License applies to the Database.\n\n"
            "2.2 Database. The Database is protected.\n",
            ["preamble", "section-1-0", "section-2-0", "section-2-1", "section-2-2"],
        ),
        (  # under another numbered clause, "1.1" stays its point
            "# Terms\n\n## 17. Addendum\n\n1.1 Personal data means data.\n\n1.2 Law means law.\n",
            ["preamble", "section-17", "section-17-1", "section-17-2"],
        ),
        (  # capital-letter points right under a marked numbered clause
            "# Licence\n\n## 4. MODIFICATIONS\n\nYou must:\n\n"
            "A. Use in the Title Page a distinct title.\n\nB. List one or more authors.\n\n"
            "## 5. COMBINING DOCUMENTS\n\nText.\n",
            ["preamble", "section-4", "section-4-a", "section-4-b", "section-5"],
        ),
    ],
)
def test_numbered_points_under_marked_clauses(text: str, expected: list[str]) -> None:
    assert [s.section_id for s in parse_sections(text, "Doc")] == expected


def test_headings_numbered_within_an_appendix_are_its_sections() -> None:
    text = (
        "# RFC\n\n## 1. Intro\n\nSee Appendix A.4.1.\n\n## Appendix A. Notes\n\n"
        "### A.1. MIME-Version\n\ntext\n\n### A.4. Differences\n\n#### A.4.1. Canonical Form\n\n"
        "text\n\n## Appendix B. Other\n\n### A.2. Not this appendix\n\n### B.1. Changes\n"
    )
    sections = {s.section_id: s for s in parse_sections(text, "RFC")}
    assert sections["appendix-a-4-1"].path[-1] == "appendix-a-4"
    assert {"appendix-a-1", "appendix-a-4", "appendix-b-1"} <= set(sections)
    assert "a-2-not-this-appendix" in sections  # "A." below Appendix B: no appendix number


def test_blocks_of_deeper_ranks_at_the_sixth_heading_level_nest_by_rank() -> None:
    text = (
        "# Title 54\n\n##### Division A— Establishment\n\n###### Chapter 1001— General\n\n"
        "###### § 100101. Promotion\n\ntext\n\n###### § 100102. Definitions\n\ntext\n\n"
        "###### Chapter 1007— Resource Management\n\n###### Subchapter I— Inventory\n\n"
        "###### § 100701. Protection\n\ntext\n\n###### Subchapter II— Protection\n\n"
        "###### § 100751. Regulations\n\ntext\n\n###### Chapter 1009— Other\n\n"
        "###### Annex A— Forms\n\ntext\n\n## SEC. 4. CONFORMING AMENDMENTS\n\ntext\n"
    )
    parents = {s.section_id: (s.path or [None])[-1] for s in parse_sections(text, "Title 54")}
    assert parents["section-100101"] == parents["section-100102"] == "chapter-1001"
    assert parents["chapter-1007"] == parents["chapter-1009"] == "division-a"
    assert parents["subchapter-1"] == parents["subchapter-2"] == "chapter-1007"
    assert parents["section-100701"] == "subchapter-1"
    assert parents["section-100751"] == "subchapter-2"
    assert parents["annex-a"] == "division-a"  # under its Markdown level, not in a chapter
    assert parents["section-4"] is None  # a heading of a higher level closes every block


def test_a_subchapter_line_of_plain_text_is_a_block() -> None:
    text = "CHAPTER 5\n\nSUBCHAPTER II\n\nSec. 501. Scope\n\nText of the section.\n"
    parents = {s.section_id: (s.path or [None])[-1] for s in parse_sections(text, "Code")}
    assert parents["section-501"] == "subchapter-2"
    assert parents["subchapter-2"] == "chapter-5"


def test_a_clause_number_used_twice_is_not_qualified_by_the_clause_it_extends() -> None:
    text = (
        "# Licence\n\n## 2.0 Rights granted\n\n### 2.1 Rights covered\n\ntext\n\n"
        "### 2.2. Legal rights covered\n\ntext\n\n### 2.2 Rights not covered\n\ntext\n\n"
        "## 3.0 Waiver\n\ntext\n"
    )
    sections = {s.section_id: s.path for s in parse_sections(text, "Licence")}
    assert sections["section-2-2"] == ("section-2-0",)
    assert sections["section-2-2-2"] == ("section-2-0",)  # the second "2.2", made unique


NDA_UNDER_ONE_TITLE = """// drafting note before the title

## Non-Disclosure and Confidentiality Agreement

This Agreement is entered into as of the Effective Date.

1.\tConfidential Information. The term means any sensitive data.

2.\tObligations. With respect to Confidential Information:

a.\tThe Receiving Party keeps it secret.

b.\tThe Receiving Party keeps it safe.

3.\tRemedies. Each Party may seek an injunction.
"""


def test_a_lone_unnumbered_title_heading_does_not_prefix_its_clauses() -> None:
    ids = [s.section_id for s in parse_sections(NDA_UNDER_ONE_TITLE, "nda")]
    assert "section-1" in ids and "section-2-b" in ids and "section-3" in ids
    assert not any(i.startswith("non-disclosure") and i[-1].isdigit() for i in ids), ids


ISO_ANNEX = """# Specification

## 3 Requirements

The program shall exist.

### Annex A

### (informative)

### Language translations of this specification

Translations are welcome.

### Annex B

Bibliography entries.
"""


def test_an_annex_label_status_and_title_set_as_headings_are_one_heading() -> None:
    sections = {s.section_id: s for s in parse_sections(ISO_ANNEX, "Specification")}
    annex = sections["annex-a"]
    assert annex.heading == "Annex A (informative) Language translations of this specification"
    assert annex.body.strip() == "Translations are welcome."
    assert sections["annex-b"].heading == "Annex B"
    assert not any(i.startswith(("informative", "language")) for i in sections)
