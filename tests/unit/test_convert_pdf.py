"""The structured PDF converter (hierdoc.pipeline.convert_pdf) and PDF pages on chunks.

Fixtures (tests/fixtures/pdf/SOURCES.md): four pages of a Federal Register issue (three
columns, a running head whose page number alternates sides, a rotated margin stamp, a
footer line, footnotes under the columns) and an encrypted PDF; HR 8847 from the shared
datasets and the NIST SP 800-63B in tests/realdocs when present.
"""

from __future__ import annotations

import json
from pathlib import Path

import pypdfium2
import pytest

from hierdoc import Index, Settings
from hierdoc.cli import commands
from hierdoc.cli.state import State
from hierdoc.pipeline.chunk import chunk_document
from hierdoc.pipeline.convert import ConversionError, convert_file
from hierdoc.pipeline.convert_pdf import convert_pdf
from hierdoc.pipeline.pdf_layout import join_hyphens
from hierdoc.pipeline.structure import parse_sections
from hierdoc.text.tokenizer import default_tokenizer
from hierdoc.tools.logic import run_search
from tests.datasets import HR8847_PDF
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS

FIXTURES = TESTS / "fixtures" / "pdf"
FEDERAL_REGISTER = FIXTURES / "federal-register-2020-17221-p2-5.pdf"
ENCRYPTED = FIXTURES / "password-example.pdf"
NIST_800_63B = TESTS / "realdocs" / "nist-sp-800-63b.pdf"


@pytest.fixture(scope="module")
def register() -> tuple[str, tuple[int, ...]]:
    converted = convert_pdf(FEDERAL_REGISTER)
    return converted.text, converted.page_starts


def _page_texts(path: Path) -> list[str]:
    """Each page's raw PDFium text, whitespace folded: what the page holds, in no order."""
    document = pypdfium2.PdfDocument(str(path))
    try:
        return [" ".join(page.get_textpage().get_text_range().split()) for page in document]
    finally:
        document.close()


def test_columns_are_read_one_after_another(register) -> None:
    text, _ = register
    left_top = text.index("Hatta International Airport in Jakarta,")
    left_bottom = text.index("These effects include stall warning")
    middle_top = text.index("altitude disagree alert,5 and may affect")
    assert left_top < left_bottom < middle_top
    # The sentence broken at the foot of the left column goes on in the middle one:
    # neither the footnotes under the column nor another column's lines come between.
    assert "airspeed disagree alert, and\naltitude disagree alert,5" in text
    assert text.index("1 Preliminary KNKT") > text.index("the FAA also proposes to")


def test_running_heads_footers_and_margin_stamps_are_removed(register) -> None:
    text, _ = register
    assert "Federal Register / Vol. 85" not in text
    assert "VerDate" not in text
    assert "jbell on DSKJLSW7X2PROD" not in text
    assert "47700" not in text


def test_page_starts_point_at_each_page(register) -> None:
    text, starts = register
    assert len(starts) == 4 and starts[0] == 0
    assert list(starts) == sorted(set(starts))
    pages = [text[start:end] for start, end in zip(starts, [*starts[1:], len(text)], strict=True)]
    assert "Hatta International Airport" in pages[0]
    assert "10 A flight control law" in pages[1]  # footnote 10 of page 2
    assert "Runaway Stabilizer checklist" in pages[2].replace("\n", " ")
    assert "Service Bulletin 737–00–1028" in pages[3].replace("\n", " ")


def test_table_cells_are_read_row_by_row() -> None:
    if not HR8847_PDF.exists():
        pytest.skip(f"dataset not found: {HR8847_PDF}")
    text = convert_pdf(HR8847_PDF).text
    assert "Bias mitigation measures implemented | 310(c)(4) | [ ]" in text
    assert "Data Type | Collection | Processing | Sharing | Retention | Deletion" in text


def test_hr8847_structure_and_pages() -> None:
    """The bill's numbering is found as from markitdown (72 sections, 11 titles, 40 chapters),
    the table of contents does not add sections, and chunks carry the right pages."""
    if not HR8847_PDF.exists():
        pytest.skip(f"dataset not found: {HR8847_PDF}")
    document = convert_file(HR8847_PDF)
    assert document.pages == 78 and len(document.page_starts) == 78
    # Finding (11) runs on to page 6: one line break, and page 6 starts at its rest.
    assert "the rights, safety, and\nwell-being of its citizens." in document.text
    assert document.text.startswith("well-being of its citizens.", document.page_starts[5])
    sections = parse_sections(document.text, document.title)
    kinds = [s.kind for s in sections]
    assert (kinds.count("section"), kinds.count("title"), kinds.count("chapter")) == (72, 11, 40)
    chunks = chunk_document(document, sections, default_tokenizer())
    definitions = next(c for c in chunks if c.section_id == "section-110")
    assert definitions.page_start == 7
    checklist = next(c for c in chunks if "Bias mitigation measures implemented" in c.content)
    assert checklist.page_start <= 51 <= checklist.page_end


def _bare(text: str) -> str:
    return "".join(text.split())


def test_every_chunk_starts_and_ends_on_its_pages() -> None:
    """Ground truth from PDFium's raw page text: a chunk's first line is on its page_start,
    its last line on its page_end."""
    pages = _page_texts(FEDERAL_REGISTER)
    document = convert_file(FEDERAL_REGISTER)
    chunks = chunk_document(
        document, parse_sections(document.text, document.title), default_tokenizer()
    )
    checked = 0
    for chunk in chunks:
        lines = [line.lstrip("#- ").strip() for line in chunk.content.splitlines()]
        first, last = lines[0][:30], lines[-1][-30:]
        if " | " in first + last or len(first) < 12 or len(last) < 12:
            continue
        # Spaces aside: PDFium's raw text has none after a superscript footnote mark.
        assert _bare(first) in _bare(pages[chunk.page_start - 1]), (chunk.page_start, first)
        assert _bare(last) in _bare(pages[chunk.page_end - 1]), (chunk.page_end, last)
        checked += 1
    assert checked >= 10
    assert all(c.page_start is not None for c in chunks)


def test_markitdown_converter_records_no_pages() -> None:
    document = convert_file(FEDERAL_REGISTER, pdf_converter="markitdown")
    assert document.page_starts == () and document.pages is None


def test_nist_standard_keeps_its_numbered_headings() -> None:
    if not NIST_800_63B.exists():
        pytest.skip(f"not found: {NIST_800_63B}")
    document = convert_file(NIST_800_63B)
    sections = {s.section_id: s for s in parse_sections(document.text, document.title)}
    assert sections["section-5-1-1-2"].heading == "5.1.1.2 Memorized Secret Verifiers"
    assert "section-5-1-1" in sections["section-5-1-1-2"].path
    running_head = "DIGITAL IDENTITY GUIDELINES: AUTHENTICATION"
    assert sum(running_head in page for page in _page_texts(NIST_800_63B)) > 60
    assert running_head not in document.text


def test_corrupt_pdf_is_a_conversion_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer <<>>\n%%EOF")
    with pytest.raises(ConversionError, match="cannot read PDF: damaged"):
        convert_file(broken)


def test_encrypted_pdf_is_a_conversion_error() -> None:
    with pytest.raises(ConversionError, match="encrypted"):
        convert_file(ENCRYPTED)


def test_hyphenated_words_are_joined_unless_a_compound() -> None:
    lines = ["the regu-", "lation applies to self-", "employed persons and Soekarno-", "Hatta"]
    assert join_hyphens(lines) == [
        "the regulation",
        "applies to self-employed",
        "persons and Soekarno-",
        "Hatta",
    ]


@pytest.fixture(scope="module")
def register_index(tmp_path_factory) -> Path:
    """The Federal Register pages ingested with the hash embedder (no model)."""
    directory = tmp_path_factory.mktemp("register") / "index"
    with Index.open(
        directory, Settings(pdf_converter="structured"), embedder=HashEmbedder()
    ) as index:
        report = index.ingest([FEDERAL_REGISTER])
        assert not report.problems
    return directory


def _search_cli(index: Path, *args: str) -> None:
    commands.search.main(list(args), obj=_HashState(str(index)), standalone_mode=False)


class _HashState(State):
    def open_reader(self) -> Index:
        return Index.open(self.index_option, Settings(), embedder=HashEmbedder(), mode="r")


def test_search_results_give_pages_in_api_json_cli_and_tools(register_index, capsys) -> None:
    query = '"Runaway Stabilizer checklist"'
    with Index.open(register_index, Settings(), embedder=HashEmbedder(), mode="r") as index:
        top = index.search(query, mode="exact").results[0]
        assert top.page_start is not None and top.page_start <= 3 <= top.page_end
        assert index.document_summaries()[0].pages == 4
        tool = run_search(index, query, mode="exact")
    assert tool.structured["results"][0]["page_start"] == top.page_start
    assert f"p. {top.page_start}" in tool.text
    _search_cli(register_index, query, "--mode", "exact", "--json")
    shown = json.loads(capsys.readouterr().out)["results"][0]
    assert (shown["page_start"], shown["page_end"]) == (top.page_start, top.page_end)
    _search_cli(register_index, query, "--mode", "exact")
    assert f"p. {top.page_start}" in capsys.readouterr().out


def test_a_pdf_without_text_says_so(tmp_path: Path) -> None:
    blank = pypdfium2.PdfDocument.new()
    blank.new_page(612, 792)
    blank.save(tmp_path / "scan.pdf")
    with pytest.raises(ConversionError, match="no text could be extracted"):
        convert_file(tmp_path / "scan.pdf")


def test_a_rotated_page_keeps_its_text(tmp_path: Path) -> None:
    source = pypdfium2.PdfDocument(str(FEDERAL_REGISTER))
    turned = pypdfium2.PdfDocument.new()
    turned.import_pages(source, [0, 1])
    turned[1].set_rotation(90)
    turned.save(tmp_path / "turned.pdf")
    converted = convert_pdf(tmp_path / "turned.pdf")
    second = converted.text[converted.page_starts[1] :]
    assert "10A flight control law generates commands to" in second
    assert "Hatta International Airport in Jakarta," in converted.text[: converted.page_starts[1]]
