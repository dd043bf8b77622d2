"""The DOCX converter renders Word's automatic numbering.

The fixtures in tests/fixtures/docx/ take every number from numbering.xml (see
make_fixtures.py); gold.json lists what Word shows. markitdown (mammoth) drops
those numbers, so each of these tests fails with ``docx_converter="markitdown"``.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from hierdoc.models import ConvertedDocument
from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.convert import ConversionError, convert_file
from hierdoc.pipeline.docx_numbering import format_number
from hierdoc.pipeline.extract.document import extract_document
from hierdoc.pipeline.limits import Limits
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer
from tests.paths import TESTS

FIXTURES = TESTS / "fixtures" / "docx"
REALDOCS = TESTS / "realdocs"
GOLD: dict[str, list[list[str]]] = json.loads((FIXTURES / "gold.json").read_text())


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


make = _builder()


def markdown(name: str, converter: str = "structured") -> str:
    return convert_file(FIXTURES / name, docx_converter=converter).text


def sections_of(name: str) -> dict[str, object]:
    document = convert_file(FIXTURES / name)
    return {s.section_id: s for s in parse_sections(document.text, document.title)}


def _shown(number: str, heading: str, text: str) -> bool:
    """A gold number is shown as Word shows it: a heading "## 8.4 Title" or a point
    "(a) text" at the start of its paragraph."""
    lines = text.splitlines()
    if number.startswith("("):
        return f"{number} {heading}" in lines
    pattern = re.compile(rf"^#+ {re.escape(number)} {re.escape(heading)}$")
    return any(pattern.match(line) for line in lines)


@pytest.mark.parametrize("name", sorted(GOLD))
def test_every_number_word_shows_is_rendered(name: str) -> None:
    text = markdown(name)
    missing = [f"{n} {h}" for n, h in GOLD[name] if not _shown(n, h, text)]
    assert missing == []


def test_markitdown_loses_the_numbers() -> None:
    """Why the structured converter exists (and the baseline of the benchmark)."""
    text = markdown("terms_direct.docx", "markitdown")
    assert not _shown("8.4", "Liability Caps", text)
    assert "8.4" not in text


def test_clause_ids_and_breadcrumbs_come_from_word_numbering() -> None:
    sections = sections_of("terms_direct.docx")
    cap = sections["section-8-4"]
    assert cap.heading == "8.4 Liability Caps"
    assert cap.parent_chain == ("8. Limitation of Liability", "8.4 Liability Caps")
    assert cap.body.strip().startswith("Each party shall comply")
    assert sections["section-8-4-a"].body.startswith("(a) the fees paid")
    assert sections["section-9-1-b"].body.startswith("(b) wilful misconduct")


def test_heading_styles_numbered_through_their_style() -> None:
    """Heading 1/2 take their list from the style's numPr and their level from w:pStyle."""
    text = markdown("cloud_agreement.docx")
    assert text.startswith("# Cloud Services Agreement\n")
    assert "\n## 5. Limitation of Liability\n" in text
    assert "\n### 5.2 Liability Cap\n" in text
    sections = sections_of("cloud_agreement.docx")
    assert sections["section-5-2-b-ii"].body.startswith("(ii) regulatory fines.")


def test_restarts_roman_and_legal_numbering() -> None:
    """startOverride restarts a list (ARTICLE V after ARTICLE II); isLgl shows the
    Roman article number in Arabic in "Section 5.01" (decimalZero)."""
    text = markdown("credit_articles.docx")
    assert "\n## ARTICLE II The Loans\n" in text
    assert "\n## ARTICLE V Events of Default\n" in text
    assert "\n### Section 5.01 Events of Default\n" in text
    assert "article-v" in sections_of("credit_articles.docx")


def test_a_second_list_instance_continues_the_count() -> None:
    """Two w:num of one abstract list share its counters unless one restarts them:
    "Schedule I", "Schedule II" here, and points restart at "(a)" per clause."""
    text = markdown("cloud_agreement.docx")
    assert "## Schedule I Service Description" in text
    assert "## Schedule II Service Levels" in text
    assert text.count("(a) ") == 2


def test_numbering_of_a_document_written_in_word_elsewhere() -> None:
    """docx2python's example (MIT): each paragraph names the number Word shows for it
    (continued lists, restarts, ``%1)`` and ``(%1)`` texts, Roman and letter formats)."""
    text = markdown("docx2python_example_numbering.docx")
    pairs = re.findall(r"^(?:#+ )?(\(?[0-9A-Za-z]+[.)]?) expect (\S+)$", text, re.MULTILINE)
    assert len(pairs) == 10
    assert [label.strip("().") for label, _ in pairs] == [wanted for _, wanted in pairs]


def test_strict_open_xml_falls_back_to_markitdown() -> None:
    """python-docx cannot open Strict Open XML; markitdown can, so it converts it."""
    text = markdown("docx2python_strict.docx")
    assert "| Cellaa | Cellab |" in text


def test_level_found_through_a_style_based_on_the_numbered_one(tmp_path: Path) -> None:
    """A style based on Heading 2 takes Heading 2's list level (``w:pStyle`` lookup)."""
    numbering = make.abstract(
        1,
        make.lvl(0, "decimal", "%1.", pstyle="Heading1"),
        make.lvl(1, "decimal", "%1.%2", pstyle="Heading2"),
    ) + make.num(1, 1)
    fixture = make.Fixture("based", numbering, {"Heading 1": (1, None), "Heading 2": (1, None)})
    fixture.blocks = [
        make.p("Fees", style="Heading 1"),
        make.p("Invoices", style="Heading 2"),
        make.p("Late Payment", style="Clause Heading"),
    ]
    document = make.docx.Document()
    clause = document.styles.add_style("Clause Heading", make.WD_STYLE_TYPE.PARAGRAPH)
    clause.base_style = document.styles["Heading 2"]
    text = convert_file(make.write(fixture, tmp_path, document)).text
    assert "### 1.2 Late Payment" in text


def test_numbers_written_in_heading_text_are_labels(tmp_path: Path) -> None:
    """Bills and regulations write "SEC. 2." or "§ 1004.1" in a Heading 1 below the
    document's Title: the written number is the label and the id, as in Markdown."""
    fixture = make.Fixture("written", "")
    fixture.blocks = [
        make.p("Example Act of 2019: To require reports.", style="Title"),
        make.p("SECTION 1. SHORT TITLE", style="Heading 1"),
        make.p("This Act may be cited as the Example Act."),
        make.p(
            "SEC. 2. REPORT ON FINANCIAL SERVICES BENEFITTING STATE SPONSORS OF "
            "TERRORISM, HUMAN RIGHTS ABUSERS, AND CORRUPT OFFICIALS",
            style="Heading 1",
        ),
        make.p("(a) In General. The Secretary shall report."),
        make.p("§ 1004.1 Authority, purpose, and scope.", style="Heading 1"),
        make.p("(a) Authority. This regulation is issued by the Bureau."),
    ]
    text = convert_file(make.write(fixture, tmp_path)).text
    assert "\n## SEC. 2. REPORT ON FINANCIAL SERVICES BENEFITTING" in text
    assert "\n## § 1004.1 Authority, purpose, and scope\n" in text
    sections = {s.section_id: s for s in parse_sections(text, "t")}
    assert {"section-1", "section-2", "section-2-a", "section-1004-1-a"} <= set(sections)
    assert sections["section-2"].heading.startswith("SEC. 2. REPORT ON")
    assert not any(i.startswith("sec-") for i in sections)


def test_typed_numbers_continuing_typed_headings_are_clauses(tmp_path: Path) -> None:
    """A licence types "1. Definitions" as Heading 1 and "2. Fair Use Rights. Nothing ..."
    as a body paragraph: the next number with a title is clause 2; a list item "1. Name"
    or a number out of sequence stays text."""
    fixture = make.Fixture("typed", "")
    fixture.blocks = [
        make.p("Example Licence", style="Title"),
        make.p("1. Definitions", style="Heading 1"),
        make.p("1. Name of the licensor."),
        make.p("2. Fair Use Rights. Nothing in this licence limits fair use."),
        make.p("3. Representations and Warranties"),
        make.p("The work is offered as is."),
        make.p("5. Termination. This licence ends on breach."),
        make.p("4. Limitation on Liability. No liability arises."),
        make.p("5. Schranken des Immaterialgüterrechts. Diese Lizenz gilt."),
    ]
    text = convert_file(make.write(fixture, tmp_path)).text
    assert "\n## 2. Fair Use Rights\n\nNothing in this licence limits fair use.\n" in text
    assert "\n## 3. Representations and Warranties\n" in text
    assert "\n## 4. Limitation on Liability\n" in text
    assert "\n## 5. Schranken des Immaterialgüterrechts\n\nDiese Lizenz gilt." in text
    assert "\n1. Name of the licensor.\n" in text
    assert "\n5. Termination. This licence ends on breach.\n" in text
    ids = {s.section_id for s in parse_sections(text, "t")}
    assert {"section-1", "section-2", "section-3", "section-4", "section-5"} <= ids
    assert text.count("## 5.") == 1


def test_plain_numbered_list_items_stay_text(tmp_path: Path) -> None:
    """Word's plain list ("%1." only) numbers clauses when they open with a bold title,
    items otherwise: a list of fields in a schedule must not claim section-1."""
    numbering = make.abstract(1, make.lvl(0, "decimal", "%1.")) + make.abstract(
        2, make.lvl(0, "decimal", "%1.")
    )
    fixture = make.Fixture("plain", numbering + make.num(1, 1) + make.num(2, 2))
    fixture.blocks = [
        make.p("Name", num=(2, 0)),
        make.p("Address", num=(2, 0)),
        make.p(make.b("Confidentiality."), " Each party keeps secrets.", num=(1, 0)),
        make.p(make.b("Term"), num=(1, 0)),
    ]
    text = convert_file(make.write(fixture, tmp_path)).text
    assert text.startswith("1. Name\n\n2. Address\n\n## 1. Confidentiality\n\nEach party")
    assert "\n## 2. Term\n" in text
    ids = {s.heading: s.section_id for s in parse_sections(text, "t")}
    assert ids["1. Confidentiality"] == "section-1"  # the list items do not take its id
    assert ids["1. Name"] == "section-1-2"


def test_level_that_never_restarts(tmp_path: Path) -> None:
    """w:lvlRestart 0: the points count on across clauses ((a), (b), then (c))."""
    numbering = make.abstract(
        1, make.lvl(0, "decimal", "%1."), make.lvl(1, "lowerLetter", "(%2)", restart=0)
    ) + make.num(1, 1)
    fixture = make.Fixture("never", numbering)
    fixture.blocks = [
        make.p(make.b("Fees"), num=(1, 0)),
        make.p("first point;", num=(1, 1)),
        make.p("second point.", num=(1, 1)),
        make.p(make.b("Taxes"), num=(1, 0)),
        make.p("third point.", num=(1, 1)),
    ]
    text = convert_file(make.write(fixture, tmp_path)).text
    assert "## 2. Taxes\n\n(c) third point." in text


def test_lower_letter_dot_points_are_sections(tmp_path: Path) -> None:
    """Word's default lower-letter list shows "a." / "b.": cited as "2.2(b)", so a section."""
    numbering = make.abstract(
        1,
        make.lvl(0, "decimal", "%1."),
        make.lvl(1, "decimal", "%1.%2"),
        make.lvl(2, "lowerLetter", "%3."),
    ) + make.num(1, 1)
    fixture = make.Fixture("dots", numbering)
    fixture.blocks = [
        make.p(make.b("Term"), num=(1, 0)),
        make.p(make.u("Agreement."), " It starts on signature.", num=(1, 1)),
        make.p(make.u("Termination."), " Either party may terminate:", num=(1, 1)),
        make.p("if the other party breaches; or", num=(1, 2)),
        make.p("upon notice if the other party dissolves.", num=(1, 2)),
    ]
    text = convert_file(make.write(fixture, tmp_path)).text
    assert "\n\nb. upon notice if the other party dissolves.\n" in text
    sections = {s.section_id: s for s in parse_sections(text, "t")}
    assert sections["section-1-2-b"].parent_chain[-2:] == ("1.2 Termination", "b.")


def test_run_in_titles_and_body_markup() -> None:
    """Run-in titles become plain headings; bold stays in body text; tables stay tables."""
    terms = markdown("terms_direct.docx")
    assert "### 9.1 Excluded Claims\n\nThe cap does not apply to:" in terms
    assert "<u>" not in terms
    cloud = markdown("cloud_agreement.docx")
    assert '**"Confidential Information"** means any information' in cloud
    assert "| Plan | Monthly fee |\n| --- | --- |\n| Basic | $100 |" in cloud
    assert "### 5.1 Exclusions" in cloud


def test_no_markup_in_headings_or_ids_for_either_converter() -> None:
    for converter in ("structured", "markitdown"):
        document = convert_file(FIXTURES / "cloud_agreement.docx", docx_converter=converter)
        for section in parse_sections(document.text, document.title):
            for heading in section.parent_chain:
                assert not re.search(r"[*<>_]|[A-Za-z][.:]$", heading), heading
            assert not section.section_id.startswith("u-"), section.section_id


def test_substantive_clauses_are_not_typed_header() -> None:
    for converter in ("structured", "markitdown"):
        document = convert_file(FIXTURES / "terms_direct.docx", docx_converter=converter)
        sections = parse_sections(document.text, document.title)
        chunks, _ = extract_document(
            sections, chunk_document(document, sections, default_tokenizer())
        )
        clauses = [c for c in chunks if "comply with this clause" in c.content]
        assert clauses
        assert {c.chunk_type for c in clauses} <= {"content", "requirement"}, converter


def test_generated_table_of_contents_is_left_out(tmp_path: Path) -> None:
    numbering = make.abstract(1, make.lvl(0, "decimal", "%1.")) + make.num(1, 1)
    fixture = make.Fixture("toc", numbering)
    fixture.blocks = [
        make.p("1. Fees\t2", style="toc 1"),
        make.p(make.b("Fees"), num=(1, 0)),
        make.p("Customer pays."),
    ]
    text = convert_file(make.write(fixture, tmp_path)).text
    assert "\t2" not in text and text.count("Fees") == 1
    assert [s.section_id for s in parse_sections(text, "t")] == ["preamble", "section-1"]


def test_annex_title_row_splits_a_table(tmp_path: Path) -> None:
    """Cover pages put "Annex I(A) List of Parties" in a table row of its own."""
    fixture = make.Fixture("cover", "")
    fixture.blocks = [
        make.Table(
            (
                ("Key Terms", "", ""),
                ("Agreement", "The Services Agreement", ""),
                ("Annex I(A) List of Parties", "", ""),
                ("Data Exporter", "Customer", ""),
            )
        )
    ]
    text = convert_file(make.write(fixture, tmp_path)).text
    assert "\n\n## Annex I(A) List of Parties\n\n| Data Exporter | Customer |  |\n" in text
    sections = [s.section_id for s in parse_sections(text, "t")]
    assert sections == ["preamble", "annex-1-a"]


_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_FOOTNOTES = (
    f'<w:footnotes xmlns:w="{_W}">'
    '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
    '<w:footnote w:id="1"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve">'
    " As defined by the Payment Services Act.</w:t></w:r></w:p></w:footnote></w:footnotes>"
)


_NOTES_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes"
_NOTES_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"


def _add_footnote(source: Path, target: Path, after: str) -> Path:
    """A copy of ``source`` whose run ending in ``after`` is followed by footnote 1."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            data = old.read(info.filename)
            if info.filename.endswith((".xml", ".rels")):
                data = _with_note(info.filename, data.decode("utf-8"), after).encode("utf-8")
            new.writestr(info, data)
        new.writestr("word/footnotes.xml", _FOOTNOTES)
    return target


def _with_note(name: str, data: str, after: str) -> str:
    if name == "word/document.xml":
        reference = '<w:r><w:footnoteReference w:id="1"/></w:r>'
        return data.replace(f"{after}</w:t></w:r>", f"{after}</w:t></w:r>{reference}", 1)
    if name == "word/_rels/document.xml.rels":
        relation = f'<Relationship Id="rIdNotes" Type="{_NOTES_REL}" Target="footnotes.xml"/>'
        return data.replace("</Relationships>", relation + "</Relationships>")
    if name == "[Content_Types].xml":
        override = f'<Override PartName="/word/footnotes.xml" ContentType="{_NOTES_TYPE}"/>'
        return data.replace("</Types>", override + "</Types>")
    return data


def test_footnotes_are_kept(tmp_path: Path) -> None:
    path = _add_footnote(FIXTURES / "cloud_agreement.docx", tmp_path / "notes.docx", "fees below.")
    text = convert_file(path).text
    assert "Customer shall pay the fees below.[^1]\n" in text
    assert text.endswith("## Notes\n\n[^1]: As defined by the Payment Services Act.\n")


@pytest.mark.parametrize(
    ("value", "fmt", "shown"),
    [
        (3, "lowerLetter", "c"),
        (28, "upperLetter", "BB"),
        (14, "upperRoman", "XIV"),
        (4, "lowerRoman", "iv"),
        (5, "decimalZero", "05"),
        (12, "decimalZero", "12"),
        (2, "ordinal", "2nd"),
        (7, "chineseCounting", "7"),
    ],
)
def test_number_formats(value: int, fmt: str, shown: str) -> None:
    assert format_number(value, fmt) == shown


# --------------------------------------------------------------------------- errors and limits


def _rewrite(source: Path, target: Path, part: str, data: bytes) -> Path:
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            new.writestr(info, data if info.filename == part else old.read(info.filename))
    return target


def test_damaged_numbering_is_a_clean_error(tmp_path: Path) -> None:
    path = _rewrite(
        FIXTURES / "terms_direct.docx", tmp_path / "cut.docx", "word/numbering.xml", b"<w:num"
    )
    with pytest.raises(ConversionError) as info:
        convert_file(path)
    assert info.value.reason.startswith("cannot read DOCX: damaged XML (")
    assert "\n" not in info.value.reason


def test_zip_without_package_parts_is_not_a_word_document(tmp_path: Path) -> None:
    path = tmp_path / "hollow.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")
    with pytest.raises(ConversionError, match="not a Word document"):
        convert_file(path)


def test_zip_limits_are_checked_before_unpacking(tmp_path: Path) -> None:
    path = tmp_path / "bomb.docx"
    path.write_bytes((FIXTURES / "terms_direct.docx").read_bytes())
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/media/zeros.bin", b"\0" * (4 << 20))
    with pytest.raises(ConversionError, match="over max_zip_ratio 50"):
        convert_file(path, limits=Limits(max_zip_ratio=50))


def test_markitdown_stays_available() -> None:
    document = convert_file(FIXTURES / "cloud_agreement.docx", docx_converter="markitdown")
    assert isinstance(document, ConvertedDocument)
    assert "Limitation of Liability" in document.text


# --------------------------------------------------------------------------- public documents


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "common-paper-pilot-agreement.docx",
            [
                "## 5. Limitation of Liability",
                "### 5.1 General Liability Cap",
                "### 7.13 Signature",
            ],
        ),
        (
            "common-paper-software-license-agreement.docx",
            ["## 1. Software", "### 1.1 License", "### 3.1 Fees"],
        ),
    ],
)
def test_public_contracts_keep_their_clause_numbers(name: str, expected: list[str]) -> None:
    """Common Paper's standard agreements (CC BY 4.0), numbered by Word."""
    path = REALDOCS / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    lines = set(convert_file(path).text.splitlines())
    assert [line for line in expected if line not in lines] == []
    markitdown_lines = set(convert_file(path, docx_converter="markitdown").text.splitlines())
    assert expected[1] not in markitdown_lines


# --------------------------------------------------------------------------- through an index


@pytest.mark.parametrize("converter", ["structured", "markitdown"])
def test_ingest_uses_the_docx_converter_setting(tmp_path: Path, converter: str) -> None:
    """ "Section 8.4" finds Word's clause 8.4: rendered as "8.4 Liability Caps" by the
    structured converter, as the fourth item of the list nested in item 8 by markitdown."""
    from hierdoc import Index
    from hierdoc.config import Settings
    from tests.hash_embedder import HashEmbedder

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "terms.docx").write_bytes((FIXTURES / "terms_direct.docx").read_bytes())
    settings = Settings(docx_converter=converter)
    with Index.open(tmp_path / "index", settings, embedder=HashEmbedder()) as index:
        index.ingest([corpus])
        found = index.sections("section-8-4")
        top = index.search("Section 8.4", top_k=1).results
    if converter == "structured":
        assert [s.heading for s in found] == ["8.4 Liability Caps"]
        assert top[0].section_id == "section-8-4"
    else:
        assert [s.text.split(".", 1)[0].strip() for s in found] == ["4"]
        assert "Liability Caps" in found[0].text


def test_an_empty_section_break_paragraph_takes_no_number(tmp_path: Path) -> None:
    """A template leaves a blank Heading 1 that only carries the section break after its
    cover page: it is the break, not clause 1, so "Service" stays clause 1."""
    numbering = make.abstract(
        1,
        make.lvl(0, "decimal", "%1.", pstyle="Heading1"),
        make.lvl(1, "decimal", "%1.%2", pstyle="Heading2"),
    ) + make.num(1, 1)
    fixture = make.Fixture("section_mark", numbering, {"Heading 1": (1, 0), "Heading 2": (1, 1)})
    fixture.blocks = [
        make.p("Cover Page"),
        make.p("", style="Heading 1"),
        make.p("Service", style="Heading 1"),
        make.p("Support. Provider will provide support.", style="Heading 2"),
        make.p("Fees", style="Heading 1"),
    ]
    path = make.write(fixture, tmp_path)
    with zipfile.ZipFile(path) as archive:
        parts = {n: archive.read(n) for n in archive.namelist()}
    xml = parts["word/document.xml"].decode()
    blank = xml.index("<w:p>", xml.index("Cover Page"))
    end = xml.index("</w:pPr>", blank)
    parts["word/document.xml"] = (xml[:end] + "<w:sectPr/>" + xml[end:]).encode()
    marked = tmp_path / "marked.docx"
    with zipfile.ZipFile(marked, "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    text = convert_file(marked).text
    assert "## 1. Service" in text
    assert "1.1 Support" in text
    assert "## 2. Fees" in text


def test_a_typed_one_with_an_emphasised_title_opens_typed_clauses(tmp_path: Path) -> None:
    """A SAFE styles no heading: "1." in bold and "Events" in bold italics open clause 1,
    and "2. Definitions" typed the same way is clause 2; "1. Name of the licensor." (a
    sentence, not emphasised) opens nothing."""
    title = make.Run("Events", bold=True, italic=True)
    fixture = make.Fixture("typed_safe", "")
    fixture.blocks = [
        make.p("THIS CERTIFIES THAT the Investor pays the Purchase Amount."),
        make.p(make.b("1."), "\t", title),
        make.p("(a) ", make.b("Equity Financing"), ". If there is an Equity Financing."),
        make.p(make.b("2."), "\t", make.Run("Definitions", bold=True, italic=True)),
        make.p("“Capital Stock” means the capital stock of the Company."),
    ]
    text = convert_file(make.write(fixture, tmp_path)).text
    assert "\n## 1. Events\n" in text and "\n## 2. Definitions\n" in text
    ids = {s.section_id for s in parse_sections(text, "Safe")}
    assert {"section-1", "section-1-a", "section-2"} <= ids
    plain = make.Fixture("typed_plain", "")
    plain.blocks = [make.p("1. Name of the licensor."), make.p("2. Its address.")]
    assert "#" not in convert_file(make.write(plain, tmp_path)).text


def test_a_template_heading_style_for_appendices_heads_a_block(tmp_path: Path) -> None:
    """A template's own style "Heading Appendix" (no outline level, no number) heads its
    appendix as Heading 1 would; a paragraph in another custom style stays text."""
    fixture = make.Fixture("appendix", "")
    fixture.blocks = [
        make.p("Scope", style="Heading 1"),
        make.p("This document applies to significant changes."),
        make.p("Appendix A – Acronyms", style="Heading Appendix"),
        make.p("AO means Authorizing Official."),
        make.p("Reviewed annually", style="Heading Note"),
    ]
    document = make.docx.Document()
    for name in ("Heading Appendix", "Heading Note"):
        document.styles.add_style(name, make.WD_STYLE_TYPE.PARAGRAPH)
    text = convert_file(make.write(fixture, tmp_path, document)).text
    assert "## Appendix A Acronyms" in text
    assert "#" not in text.split("Reviewed annually")[0].rsplit("\n", 1)[-1]
    sections = parse_sections(text, "Significant Change")
    assert "appendix-a" in {s.section_id for s in sections}


def test_parts_typed_with_a_roman_number_and_a_tab_are_headings(tmp_path: Path) -> None:
    """A contributor agreement types its parts in the Normal style ("I.<tab>DEFINITIONS",
    "II.<tab>TERMS"): part headings, in order; a Roman number out of order or a title not
    in capitals stays text."""
    fixture = make.Fixture("typed-parts", "")
    fixture.blocks = [
        make.p("Contributor License Agreement", style="Title"),
        make.p("I.\tDEFINITIONS"),
        make.p("“You” shall mean the copyright owner."),
        make.p("II.\tTERMS"),
        make.p("1. Grant of Copyright License. You grant a licence."),
        make.p("IV.\tOTHER"),
        make.p("V.\tNot a heading in capitals"),
    ]
    text = convert_file(make.write(fixture, tmp_path)).text
    assert "\n## I. DEFINITIONS\n" in text and "\n## II. TERMS\n" in text
    assert "## IV" not in text and "## V" not in text
    headings = [s.heading for s in parse_sections(text, "CLA")]
    assert "I. DEFINITIONS" in headings and "II. TERMS" in headings
