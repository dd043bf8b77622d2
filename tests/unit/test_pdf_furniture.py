"""Page furniture, split words, bullets and drop capitals in the structured PDF converter
(hierdoc.pipeline.convert_pdf), on PDFs written here with PDFium's own text objects."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pypdfium2
import pypdfium2.raw as pdfium_c

from hierdoc.pipeline.convert_pdf import convert_pdf
from hierdoc.pipeline.structure import parse_sections

HEIGHT = 792
#: (text, x, baseline from the top, font size, standard font)
Item = tuple[str, float, float, float, str]


def write_pdf(path: Path, pages: list[list[Item]]) -> Path:
    """A Letter-size PDF whose pages hold ``pages``' text, each item one text object
    (drawn in list order, which is PDFium's reading order)."""
    document = pypdfium2.PdfDocument.new()
    for items in pages:
        page = document.new_page(612, HEIGHT)
        for text, x, baseline, size, font in items:
            item = pdfium_c.FPDFPageObj_NewTextObj(document.raw, font.encode(), size)
            encoded = ctypes.create_string_buffer((text + "\0").encode("utf-16-le"))
            pdfium_c.FPDFText_SetText(
                item, ctypes.cast(encoded, ctypes.POINTER(pdfium_c.FPDF_WCHAR))
            )
            pdfium_c.FPDFPageObj_Transform(item, 1, 0, 0, 1, x, HEIGHT - baseline)
            pdfium_c.FPDFPage_InsertObject(page.raw, item)
        pdfium_c.FPDFPage_GenerateContent(page.raw)
    document.save(path)
    document.close()
    return path


def body_lines(first: int, count: int, top: float = 130) -> list[Item]:
    return [
        (f"§ 1012.{n} [Reserved]", 72, top + 24 * (n - first), 12, "Helvetica-Bold")
        for n in range(first, first + count)
    ]


def test_running_heads_and_page_numbers_go_but_body_rows_like_each_other_stay(tmp_path) -> None:
    pages = [
        [
            ("Land Registration", 72, 40, 9, "Helvetica"),
            (f"§ 1012.{100 + 20 * p} [Reserved]", 72, 80, 12, "Helvetica-Bold"),
            *body_lines(101 + 20 * p, 19),
            (f"Page {p + 1} of 5", 280, 760, 9, "Helvetica"),
        ]
        for p in range(5)
    ]
    text = convert_pdf(write_pdf(tmp_path / "reserved.pdf", pages)).text
    assert "Land Registration" not in text and "Page " not in text
    for first in (100, 120, 140, 160, 180):  # each page's first heading, at its top edge
        assert f"§ 1012.{first} [Reserved]" in text


def test_a_word_split_at_a_ligature_is_joined_where_the_document_spells_it_whole(
    tmp_path,
) -> None:
    page: list[Item] = [
        ("2. Unif ied system", 72, 80, 14, "Helvetica-Bold"),
        ("The unified system keeps office files in one place.", 72, 110, 11, "Times-Roman"),
        ("Each of fice keeps its own list of ten items.", 72, 130, 11, "Times-Roman"),
    ]
    text = convert_pdf(write_pdf(tmp_path / "ligature.pdf", [page])).text
    assert "# 2. Unified system" in text
    assert "Each office keeps its own list of ten items." in text
    sections = parse_sections(text, "Ligatures")
    assert [s.heading for s in sections if s.section_id == "section-2"] == ["2. Unified system"]


def test_a_bold_bullet_line_is_no_heading(tmp_path) -> None:
    page: list[Item] = [
        ("1. Scope", 72, 80, 14, "Helvetica-Bold"),
        ("This part applies to the following persons:", 72, 110, 11, "Times-Roman"),
        ("\u2022 Lenders and brokers", 72, 130, 11, "Times-Bold"),
        ("\u2022 Servicers of loans", 72, 146, 11, "Times-Bold"),
    ]
    text = convert_pdf(write_pdf(tmp_path / "bullets.pdf", [page])).text
    assert "\n\u2022 Lenders and brokers" in text and "# \u2022" not in text
    assert [s.section_id for s in parse_sections(text, "Bullets")][-1] == "section-1"


def test_a_drop_capital_opens_its_word_and_is_no_heading(tmp_path) -> None:
    paragraph: list[Item] = [
        ("1. Grant", 72, 80, 14, "Helvetica-Bold"),
        ("he Licensor grants you a licence to use the", 110, 110, 11, "Times-Roman"),
        ("work under the terms of this licence as set", 110, 124, 11, "Times-Roman"),
        ("out in the sections below and the schedules.", 72, 138, 11, "Times-Roman"),
    ]
    capital: Item = ("T", 72, 132, 40, "Times-Roman")
    for name, page in (("after", [*paragraph, capital]), ("before", [capital, *paragraph])):
        text = convert_pdf(write_pdf(tmp_path / f"{name}.pdf", [page])).text
        assert text.startswith("# 1. Grant\n\nThe Licensor grants you"), name
        sections = parse_sections(text, "Grant")
        assert [s.section_id for s in sections] == ["preamble", "section-1"], name


def test_a_chapters_running_head_goes_though_few_pages_carry_it(tmp_path) -> None:
    chapters = ("ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT")
    pages = [
        [
            (f"CHAPTER {name}", 260, 40, 12, "Helvetica-Bold"),
            *(
                (
                    f"Line {line} of page {5 * number + page} says what the rules require.",
                    72,
                    120 + 16 * line,
                    11,
                    "Times-Roman",
                )
                for line in range(10)
            ),
        ]  # fmt: skip
        for number, name in enumerate(chapters)
        for page in range(5)
    ]
    text = convert_pdf(write_pdf(tmp_path / "chapters.pdf", pages)).text
    assert "CHAPTER" not in text
    assert "Line 9 of page 39 says" in text


def test_a_tables_bold_header_cells_are_no_heading_but_a_numbered_label_and_title_are(
    tmp_path,
) -> None:
    """Header cells over a table whose rows are not found as one (a cell's text runs
    across the columns) stay text."""
    page: list[Item] = [
        ("APPENDIX A", 72, 80, 14, "Helvetica-Bold"),
        ("TERMS AND DEFINITIONS", 200, 80, 14, "Helvetica-Bold"),
        ("The values this metric takes are listed in the table below.", 72, 110, 11,
         "Times-Roman"),
        ("Metric Value", 72, 140, 11, "Times-Bold"),
        ("Description", 200, 140, 11, "Times-Bold"),
        ("None (N): there is no impact to the confidentiality of the system, and no", 72, 156,
         11, "Times-Roman"),
        ("file of it is disclosed to anyone who is not entitled to read it.", 72, 170, 11,
         "Times-Roman"),
    ]  # fmt: skip
    text = convert_pdf(write_pdf(tmp_path / "table.pdf", [page])).text
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == ["# APPENDIX A TERMS AND DEFINITIONS"]
    assert "Metric Value" in text


def test_a_bold_contents_entry_with_its_dot_leader_is_no_heading(tmp_path) -> None:
    contents: list[Item] = [
        ("Table of Contents", 72, 80, 14, "Helvetica-Bold"),
        ("1. Purpose and Scope of This Profile ........................ 2", 72, 110, 11,
         "Times-Bold"),
        ("2. Manufacturing System Categorization .................. 3", 72, 126, 11,
         "Times-Bold"),
    ]  # fmt: skip
    body: list[Item] = [
        ("1. Purpose and Scope", 72, 80, 14, "Helvetica-Bold"),
        ("This profile sets out how a manufacturer applies the framework.", 72, 110, 11,
         "Times-Roman"),
        ("2. Manufacturing Systems", 72, 150, 14, "Helvetica-Bold"),
        ("A manufacturing system is categorised by the impact of its loss.", 72, 180, 11,
         "Times-Roman"),
    ]  # fmt: skip
    text = convert_pdf(write_pdf(tmp_path / "contents.pdf", [contents, body])).text
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert not [line for line in headings if "...." in line]
    titles = [line.lstrip("# ") for line in headings]
    assert titles[-2:] == ["1. Purpose and Scope", "2. Manufacturing Systems"]


def justified_line(page, document, words: list[str], baseline: float, right: float) -> None:
    """``words`` set from x = 72 to ``right``, the space between them spread evenly."""
    items = []
    for word in words:
        item = pdfium_c.FPDFPageObj_NewTextObj(document.raw, b"Times-Roman", 11)
        encoded = ctypes.create_string_buffer((word + "\0").encode("utf-16-le"))
        pdfium_c.FPDFText_SetText(item, ctypes.cast(encoded, ctypes.POINTER(pdfium_c.FPDF_WCHAR)))
        edges = [ctypes.c_float() for _ in range(4)]
        pdfium_c.FPDFPageObj_GetBounds(item, *(ctypes.byref(e) for e in edges))
        items.append((item, edges[2].value - edges[0].value))
    space = (right - 72 - sum(width for _, width in items)) / max(1, len(items) - 1)
    x = 72.0
    for item, width in items:
        pdfium_c.FPDFPageObj_Transform(item, 1, 0, 0, 1, x, HEIGHT - baseline)
        pdfium_c.FPDFPage_InsertObject(page.raw, item)
        x += width + space


def test_a_line_spread_by_justification_stays_one_line(tmp_path) -> None:
    lines = [
        "This part requires the disclosure of certain information in periodic",
        "statements, account records, locations where deposits are received,",
        "to obtain a written acknowledgment",
        "from depositors regarding the lack of Federal deposit insurance, and",
        "it applies to every depository institution lacking that insurance.",
    ]
    document = pypdfium2.PdfDocument.new()
    page = document.new_page(612, HEIGHT)
    for number, line in enumerate(lines):
        justified_line(page, document, line.split(), 100 + 14 * number, 400)
    pdfium_c.FPDFPage_GenerateContent(page.raw)
    document.save(tmp_path / "justified.pdf")
    document.close()
    text = convert_pdf(tmp_path / "justified.pdf").text
    assert text.splitlines()[2] == "to obtain a written acknowledgment"
    assert text.count("\n\n") == 0


def test_a_heading_of_initials_and_a_number_stays_a_heading(tmp_path) -> None:
    page: list[Item] = [
        ("H.R. 8847", 72, 80, 18, "Helvetica-Bold"),
        ("A bill to modernise national infrastructure and for other purposes.", 72, 110, 11,
         "Times-Roman"),
    ]  # fmt: skip
    text = convert_pdf(write_pdf(tmp_path / "bill.pdf", [page])).text
    assert text.startswith("# H.R. 8847\n")
