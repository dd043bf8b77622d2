"""Tests for the convert stage. Fixtures are generated in tmp_path."""

from __future__ import annotations

import hashlib
import os
import re
import zipfile
from pathlib import Path

import pytest

from hierdoc.models import ConvertedDocument, FileProblem
from hierdoc.pipeline.convert import (
    SUPPORTED_SUFFIXES,
    ConversionError,
    choose_title,
    convert_file,
    decode_text,
    discover_files,
    file_hash,
    normalise_pdf_text,
)
from tests.datasets import HR8847_PDF

HR8847 = HR8847_PDF


def write(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def assert_one_line(reason: str) -> None:
    assert reason
    assert "\n" not in reason
    assert "Traceback" not in reason


def make_pdf(path: Path, pages: list[list[str]]) -> Path:
    """Write a minimal valid PDF, one text line per entry, Helvetica."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b"", _FONT]
    kids: list[int] = []
    for lines in pages:
        ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
        ops += [f"({_pdf_escape(line)}) Tj T*" for line in lines]
        stream = "\n".join([*ops, "ET"]).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        objects.append(_PAGE % len(objects))
        kids.append(len(objects))
    refs = " ".join(f"{kid} 0 R" for kid in kids).encode()
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return write(path, bytes(out))


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
_PAGE = (
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
    b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>"
)


def _pdf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


_CONTENT_TYPES = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels"
 ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/word/document.xml"
 ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
</Types>"""
_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Target="word/document.xml"
 Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"/>
</Relationships>"""
_DOCUMENT = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>
<w:r><w:t>Master Services Agreement</w:t></w:r></w:p>
<w:p><w:r><w:t>1.1 The Supplier shall deliver the Services described in § 4.2.</w:t></w:r></w:p>
</w:body></w:document>"""


def make_docx(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", _CONTENT_TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("word/document.xml", _DOCUMENT)
    return path


# --------------------------------------------------------------------------- text files


def test_markdown_utf8(tmp_path: Path) -> None:
    text = "\n\n# Data Protection Act\n\n## § 1 Scope\n\nThis Act applies to café owners.\n"
    path = write(tmp_path / "dpa.md", text)
    doc = convert_file(path)
    assert isinstance(doc, ConvertedDocument)
    assert doc.text == text
    assert doc.title == "Data Protection Act"
    assert doc.format == "markdown"
    assert doc.source == str(path)
    assert doc.content_hash == hashlib.sha256(path.read_bytes()).hexdigest()


def test_source_override_and_txt_format(tmp_path: Path) -> None:
    path = write(tmp_path / "notes.txt", "Some notes, nothing else\n")
    doc = convert_file(path, source="corpus/notes.txt")
    assert doc.source == "corpus/notes.txt"
    assert doc.format == "text"
    assert doc.title == "Some notes, nothing else"


def test_cp1252_short_text(tmp_path: Path) -> None:
    path = write(tmp_path / "short.txt", "café § 4.2\n".encode("cp1252"))
    assert convert_file(path).text == "café § 4.2\n"


def test_cp1252_longer_text(tmp_path: Path) -> None:
    text = (
        "Article 4.2 — Résiliation\n"
        "Le présent contrat peut être résilié à tout moment par l'une ou l'autre des "
        "parties, moyennant un préavis écrit de trente (30) jours. § 5 s'applique.\n"
    )
    path = write(tmp_path / "contrat.txt", text.encode("cp1252"))
    assert convert_file(path).text == text


def test_latin1_text(tmp_path: Path) -> None:
    text = "Artículo 3. Definiciones\nSe entenderá por «Parte» cada firmante; no será válida.\n"
    path = write(tmp_path / "contrato.md", text.encode("latin-1"))
    assert convert_file(path).text == text


def test_utf8_bom_is_stripped(tmp_path: Path) -> None:
    path = write(tmp_path / "bom.md", b"\xef\xbb\xbf# Titre\r\n\r\nCaf\xc3\xa9\r\n")
    doc = convert_file(path)
    assert doc.text == "# Titre\n\nCafé\n"
    assert doc.title == "Titre"


def test_utf16_with_bom(tmp_path: Path) -> None:
    path = write(tmp_path / "wide.txt", "§ 4.2 Haftung\r\nDer Café\r\n".encode("utf-16"))
    assert convert_file(path).text == "§ 4.2 Haftung\nDer Café\n"


def test_newlines_normalised(tmp_path: Path) -> None:
    path = write(tmp_path / "mixed.txt", b"one\r\ntwo\rthree\n")
    assert convert_file(path).text == "one\ntwo\nthree\n"


def test_invalid_bytes_do_not_crash(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.txt", b"Hello \xff\xfe world \x80\x81 end\n\xc3\x28 more")
    doc = convert_file(path)
    assert doc.text.startswith("Hello ")
    assert "end" in doc.text


def test_decode_text_last_resort_never_raises() -> None:
    assert isinstance(decode_text(bytes(range(1, 256)) * 3), str)


# --------------------------------------------------------------------------- markitdown formats


def test_html_converts_to_markdown(tmp_path: Path) -> None:
    html = (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Act page</title>"
        "<style>p {color: red}</style></head><body><h1>Consumer Rights Act</h1>"
        "<h2>Section 1</h2><p>A <b>trader</b> must act in good faith.</p>"
        "<script>alert('x')</script></body></html>"
    )
    doc = convert_file(write(tmp_path / "act.html", html))
    assert "# Consumer Rights Act" in doc.text
    assert "## Section 1" in doc.text
    assert "**trader**" in doc.text
    assert "alert" not in doc.text and "color" not in doc.text
    assert doc.title == "Consumer Rights Act"  # a leading # heading beats <title>
    assert doc.format == "html"


def test_html_title_used_when_no_leading_heading(tmp_path: Path) -> None:
    html = "<html><head><title>Act page</title></head><body><p>Body text only.</p></body></html>"
    assert convert_file(write(tmp_path / "page.htm", html)).title == "Act page"


def test_docx_converts(tmp_path: Path) -> None:
    doc = convert_file(make_docx(tmp_path / "msa.docx"))
    assert doc.text.startswith("## Master Services Agreement")  # Heading 1; "#" is Title
    assert "1.1 The Supplier shall deliver the Services described in § 4.2." in doc.text
    assert doc.title == "Master Services Agreement"
    assert doc.format == "docx"


def test_xlsx_converts(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Fees"
    sheet.append(["Clause", "Amount"])
    sheet.append(["4.2", 1200])
    workbook.save(tmp_path / "fees.xlsx")
    doc = convert_file(tmp_path / "fees.xlsx")
    assert "Fees" in doc.text and "Clause" in doc.text and "1200" in doc.text


def test_pptx_converts(tmp_path: Path) -> None:
    pptx = pytest.importorskip("pptx")
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Compliance Overview"
    slide.placeholders[1].text = "Article 5 obligations"
    deck.save(tmp_path / "deck.pptx")
    doc = convert_file(tmp_path / "deck.pptx")
    assert "Compliance Overview" in doc.text and "Article 5 obligations" in doc.text


def test_generated_pdf_page_breaks_normalised(tmp_path: Path) -> None:
    pages = [
        ["SERVICE AGREEMENT", "", "SEC. 1. Definitions.", "The term (a) means"],
        ["SEC. 2. Payment.", "Fees are due within 30 days."],
    ]
    doc = convert_file(make_pdf(tmp_path / "agreement.pdf", pages))
    assert "\f" not in doc.text
    assert "SEC. 1. Definitions." in doc.text and "SEC. 2. Payment." in doc.text
    assert doc.text.index("SEC. 1.") < doc.text.index("SEC. 2.")
    assert "\n\n\n\n" not in doc.text
    assert all(line == line.rstrip() for line in doc.text.split("\n"))
    assert doc.title == "SERVICE AGREEMENT"
    assert doc.format == "pdf"


def test_normalise_pdf_text() -> None:
    raw = "end of page 1  \n\n\fPage 2 starts\t\n\n\n\n\n\nlast\n\f"
    assert normalise_pdf_text(raw) == "end of page 1\n\n\nPage 2 starts\n\n\nlast\n\n\n"
    hyphenated = "the agree-\nment continues"
    assert normalise_pdf_text(hyphenated) == hyphenated


@pytest.mark.slow
@pytest.mark.skipif(not HR8847.exists(), reason="HR8847 sample PDF not available")
def test_real_pdf_converts() -> None:
    doc = convert_file(HR8847)
    assert re.search(r"^(?:#+ )?SEC\. \d+\. [A-Z]", doc.text, re.MULTILINE)
    assert "SEC. 101. SHORT TITLE." in doc.text
    assert "\f" not in doc.text
    assert doc.content_hash == file_hash(HR8847)
    assert doc.title and len(doc.title) <= 120


# --------------------------------------------------------------------------- errors


def test_random_bytes_pdf_raises(tmp_path: Path) -> None:
    path = write(tmp_path / "noise.pdf", os.urandom(4096))
    with pytest.raises(ConversionError) as info:
        convert_file(path)
    assert info.value.reason.startswith("cannot read PDF")
    assert_one_line(info.value.reason)


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.4\n",
        b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog",
        b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n",
    ],
    ids=["header-only", "cut-in-object", "no-pages"],
)
def test_truncated_pdf_raises(tmp_path: Path, data: bytes) -> None:
    with pytest.raises(ConversionError) as info:
        convert_file(write(tmp_path / "cut.pdf", data))
    assert info.value.reason.startswith("cannot read PDF: ")
    assert_one_line(info.value.reason)


def test_text_named_pdf_is_not_converted_as_text(tmp_path: Path) -> None:
    with pytest.raises(ConversionError, match="not a PDF file"):
        convert_file(write(tmp_path / "fake.pdf", "<html><body><h1>Hi</h1></body></html>"))


def test_pdf_without_text_raises(tmp_path: Path) -> None:
    with pytest.raises(ConversionError, match="no text could be extracted"):
        convert_file(make_pdf(tmp_path / "blank.pdf", [[]]))


@pytest.mark.parametrize("suffix", [".docx", ".pptx", ".xlsx"])
def test_corrupt_office_file_raises(tmp_path: Path, suffix: str) -> None:
    with pytest.raises(ConversionError) as info:
        convert_file(write(tmp_path / f"broken{suffix}", os.urandom(2048)))
    kind = suffix[1:].upper()
    assert info.value.reason == f"cannot read {kind}: not a {kind} file (not a zip archive)"


@pytest.mark.parametrize("suffix", [".docx", ".pptx", ".xlsx"])
def test_zip_without_document_raises(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"hollow{suffix}"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
    with pytest.raises(ConversionError) as info:
        convert_file(path)
    assert info.value.reason.startswith(f"cannot read {suffix[1:].upper()}: ")
    assert_one_line(info.value.reason)


@pytest.mark.parametrize("suffix", SUPPORTED_SUFFIXES)
def test_empty_file_raises(tmp_path: Path, suffix: str) -> None:
    with pytest.raises(ConversionError, match="^empty file$"):
        convert_file(write(tmp_path / f"empty{suffix}", b""))


@pytest.mark.parametrize("name", ["blank.txt", "blank.md"])
def test_whitespace_only_text_raises(tmp_path: Path, name: str) -> None:
    with pytest.raises(ConversionError, match="empty file"):
        convert_file(write(tmp_path / name, " \n\t\r\n  \n"))


def test_html_without_text_raises(tmp_path: Path) -> None:
    path = write(tmp_path / "blank.html", "<html><body>  <script>x()</script> </body></html>")
    with pytest.raises(ConversionError, match="no text could be extracted"):
        convert_file(path)


@pytest.mark.parametrize("name", ["image.txt", "image.md", "image.html"])
def test_binary_with_text_suffix_raises(tmp_path: Path, name: str) -> None:
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + os.urandom(512)
    with pytest.raises(ConversionError, match="^binary content, not text$"):
        convert_file(write(tmp_path / name, data))


def test_unsupported_suffix_raises(tmp_path: Path) -> None:
    with pytest.raises(ConversionError) as info:
        convert_file(write(tmp_path / "data.xyz", "hello"))
    reason = info.value.reason
    assert "'.xyz'" in reason
    assert all(suffix in reason for suffix in SUPPORTED_SUFFIXES)
    assert_one_line(reason)


def test_suffix_is_case_insensitive(tmp_path: Path) -> None:
    assert convert_file(write(tmp_path / "README.MD", "# Upper\n")).title == "Upper"


def test_missing_file_raises(tmp_path: Path) -> None:
    with pytest.raises(ConversionError, match="^no such file or directory$"):
        convert_file(tmp_path / "gone.pdf")


def test_directory_raises(tmp_path: Path) -> None:
    (tmp_path / "folder.md").mkdir()
    with pytest.raises(ConversionError, match="is a directory"):
        convert_file(tmp_path / "folder.md")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
def test_unreadable_file_raises(tmp_path: Path) -> None:
    path = write(tmp_path / "secret.md", "# Secret\n")
    path.chmod(0)
    try:
        with pytest.raises(ConversionError, match="^permission denied$"):
            convert_file(path)
    finally:
        path.chmod(0o644)


def test_read_error_becomes_conversion_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "locked.txt", "text")

    def deny(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", deny)
    with pytest.raises(ConversionError, match="^permission denied$"):
        convert_file(path)


def test_conversion_error_carries_reason() -> None:
    error = ConversionError("empty file")
    assert error.reason == "empty file"
    assert str(error) == "empty file"


# --------------------------------------------------------------------------- hashing & titles


def test_file_hash_streams_whole_file(tmp_path: Path) -> None:
    data = os.urandom(3 * (1 << 20) + 17)
    path = write(tmp_path / "big.bin", data)
    assert file_hash(path) == hashlib.sha256(data).hexdigest()


def test_file_hash_of_missing_file_raises(tmp_path: Path) -> None:
    with pytest.raises(ConversionError, match="^no such file or directory$"):
        file_hash(tmp_path / "gone.md")


def test_content_hash_is_of_raw_bytes(tmp_path: Path) -> None:
    raw = b"\xef\xbb\xbfText\r\n"
    doc = convert_file(write(tmp_path / "raw.txt", raw))
    assert doc.content_hash == hashlib.sha256(raw).hexdigest() == file_hash(tmp_path / "raw.txt")


LONG_TITLE = (
    "Bipartisan Budget Act of 2013: 113 HJRES 59 ENR: Making continuing appropriations for "
    "fiscal year 2014, and for other purposes."
)

BORDER_TITLE = (
    "Emergency Supplemental Appropriations for Humanitarian Assistance and Security at the "
    "Southern Border Act, 2019: 116 HR 3401 RDS: Making emergency supplemental appropriations "
    "for the fiscal year ending September 30, 2019, and for other purposes."
)


FRAMED_UNDER_NOTICE = """Copyright (c) 2024, Example Type Foundry.

This Font Software is licensed under the Example Font Licence.

----------------------------------
EXAMPLE FONT LICENCE Version 2.0
----------------------------------

PREAMBLE
"""


@pytest.mark.parametrize(
    ("text", "md_title", "expected"),
    [
        ("\n\n# The Title #\n\nbody", "Other", "The Title"),
        ("## Part 1\n\nbody", None, "Part 1"),
        ("Preamble text\n# Later heading", "From markitdown", "From markitdown"),
        ("SERVICE AGREEMENT\n\nbody", None, "SERVICE AGREEMENT"),
        ("**Lease Agreement**\n\nbody", None, "Lease Agreement"),
        ("The parties agree as follows:\n1. ...", None, "stem"),
        ("x" * 121 + "\n", None, "stem"),
        ("1.2.3\n", None, "stem"),
        ("\n1.\tINTRODUCTION\n1.1\tThis Guidance is issued.\n", None, "stem"),
        ("1)\tINTRODUCTION\nThis Guidance is issued.\n", None, "stem"),
        ("1.0  DEFINITIONS\n\n   1.1 Commercial Use means distribution.\n", None, "stem"),
        ("", None, "stem"),
        ("/* Copyright 2018 Google LLC.\n *\n */", None, "stem"),
        ("//! Executor for differential fuzzing.\nuse core::ptr;", None, "stem"),
        ("package com.password4j;\n", None, "stem"),
        ("#include <vector>\n", None, "stem"),
        ("import os\n", None, "stem"),
        ("public class HashBuilder {\n", None, "stem"),
        ("Import and export of goods\n\nbody", None, "Import and export of goods"),
        ("Use of Premises\n\nbody", None, "Use of Premises"),
        (LONG_TITLE + "\n\n\n   That\n", None, LONG_TITLE),
        (LONG_TITLE + "\nThe next line of the same paragraph.\n", None, "stem"),
        (BORDER_TITLE + "\n\n\n   That\n", None, BORDER_TITLE),
        ("the parties agree: " + "x " * 60 + "\n\nbody", None, "stem"),
        ("Short Name Act: " + "y" * 300 + "\n\nbody", None, "stem"),
        (FRAMED_UNDER_NOTICE, None, "EXAMPLE FONT LICENCE Version 2.0"),
        ("Copyright (c) 2024 Example Ltd\n\nbody", None, "Copyright (c) 2024 Example Ltd"),
    ],
)
def test_choose_title(text: str, md_title: str | None, expected: str) -> None:
    assert choose_title(text, md_title, "stem") == expected


# --------------------------------------------------------------------------- discovery


def test_discover_files(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    for name in [
        "b.md",
        "a.pdf",
        "notes.txt",
        "Makefile",
        "image.png",
        "sub/z.docx",
        "sub/deeper/page.HTML",
        "sub/deeper/table.xlsx",
        "sub/.draft.md",
        ".hidden/secret.md",
        ".hierdoc/cache.md",
        "sub/.hierdoc/index.md",
    ]:
        write(root / name, "x")
    files, problems = discover_files([root, tmp_path / "missing"])
    assert files == [
        root / "a.pdf",
        root / "b.md",
        root / "notes.txt",
        root / "sub/deeper/page.HTML",
        root / "sub/deeper/table.xlsx",
        root / "sub/z.docx",
    ]
    assert problems == [
        FileProblem(str(root / "Makefile"), "unsupported file type (no extension)"),
        FileProblem(str(root / "image.png"), "unsupported file type '.png'"),
        FileProblem(str(tmp_path / "missing"), "no such file or directory"),
    ]


def test_discover_explicit_files_dedup_and_order(tmp_path: Path) -> None:
    first = write(tmp_path / "docs/b.md", "x")
    second = write(tmp_path / "docs/a.md", "x")
    odd = write(tmp_path / "data.csv", "x")
    hidden = write(tmp_path / ".explicit.md", "x")
    files, problems = discover_files([first, tmp_path / "docs", hidden, odd, first])
    assert files == [first, second, hidden]
    assert problems == [FileProblem(str(odd), "unsupported file type '.csv'")]


@pytest.mark.skipif(os.name != "posix", reason="file names of raw bytes")
def test_a_file_name_that_is_not_utf8_is_reported_and_the_folder_goes_on(
    tmp_path: Path,
) -> None:
    """A name of Latin-1 bytes reaches Python with surrogate escapes, which the index
    cannot store: the file is reported as such, the rest of the folder is ingested."""
    from hierdoc import Index, Settings
    from tests.hash_embedder import HashEmbedder

    folder = tmp_path / "docs"
    write(folder / "good.md", "# Good\n\nThe supplier shall deliver the goods.\n")
    bad = os.fsencode(folder) + b"/caf\xe9 contract.md"
    with open(bad, "wb") as handle:
        handle.write(b"# Caf\xc3\xa9\n\nThe buyer shall pay.\n")
    files, problems = discover_files([folder])
    assert files == [folder / "good.md"]
    assert [p.source for p in problems] == [os.fsdecode(bad)]
    assert "not valid UTF-8" in problems[0].reason and "rename" in problems[0].reason
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:  # type: ignore[arg-type]
        report = index.ingest([folder])
        assert [p.reason for p in report.problems] == [problems[0].reason]
        assert index.search("supplier").results[0].source.endswith("good.md")


def test_discover_skips_paths_inside_index_dir(tmp_path: Path) -> None:
    inside = write(tmp_path / ".hierdoc/store.md", "x")
    files, problems = discover_files([inside])
    assert files == []
    assert [p.source for p in problems] == [str(inside)]


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_discover_does_not_follow_folder_symlinks(tmp_path: Path) -> None:
    write(tmp_path / "docs/a.md", "x")
    (tmp_path / "docs/loop").symlink_to(tmp_path / "docs")
    files, problems = discover_files([tmp_path / "docs"])
    assert files == [tmp_path / "docs/a.md"]
    assert problems == [
        FileProblem(str(tmp_path / "docs/loop"), "symbolic link to a folder, not followed")
    ]


def test_discover_then_convert_reports_problems(tmp_path: Path) -> None:
    write(tmp_path / "ok.md", "# Fine\n")
    write(tmp_path / "empty.txt", b"")
    files, _ = discover_files([tmp_path])
    outcomes: dict[str, str] = {}
    for path in files:
        try:
            outcomes[path.name] = convert_file(path).title
        except ConversionError as error:
            outcomes[path.name] = f"error: {error.reason}"
    assert outcomes == {"empty.txt": "error: empty file", "ok.md": "Fine"}


def test_file_identities_resolved_per_folder_equal_real_paths(tmp_path: Path) -> None:
    """discover_files resolves each folder once, not each file: the identities it keys files
    by are the real paths, through symlinked folders, symlinked files and relative paths."""
    from hierdoc.pipeline.convert import _identities

    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    for name in ("a.md", "sub/b.md"):
        (real / name).write_text("x")
    (tmp_path / "linked").symlink_to(real, target_is_directory=True)
    (real / "c.md").symlink_to(real / "sub" / "b.md")
    identity = _identities()
    paths = [
        real / "a.md", real / "sub" / "b.md", tmp_path / "linked" / "a.md",
        tmp_path / "linked" / "sub" / "b.md", real / "c.md", real / "sub" / ".." / "a.md",
        real / "sub" / "..",
    ]  # fmt: skip
    for path in paths:
        assert identity(path) == Path(os.path.realpath(path)), path
