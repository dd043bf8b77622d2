"""A folder of bad and odd files, written at run time: binary junk under document
suffixes, truncated PDFs and DOCX, zip bombs, huge single lines, deep nesting, odd
encodings and empty files. ``odd_folder`` returns each file's expected outcome: a
substring of the reason it is reported with, or ``None`` when it is indexed.

``scale`` sizes the large files (1.0: megabytes each, as ``benchmarks/hostile_inputs.py``
ingests them; the test suite uses a small scale)."""

from __future__ import annotations

import io
import random
import zipfile
from collections.abc import Callable
from pathlib import Path

from tests.unit.test_nesting_scale import nested

Outcome = str | None
CLAUSE = "The Supplier shall deliver the goods within thirty days of the order. "


def odd_folder(folder: Path, scale: float = 1.0, seed: int = 33) -> dict[str, Outcome]:
    """Write the files into ``folder``; return file name -> expected outcome."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    expected: dict[str, Outcome] = {}
    for writer in (_junk, _empty, _encodings, _lines, _nesting, _pdfs, _docx, _bombs):
        for name, (data, outcome) in writer(rng, scale).items():
            (folder / name).write_bytes(data)
            expected[name] = outcome
    return expected


def _size(scale: float, megabytes: float) -> int:
    return max(1000, int(megabytes * scale * (1 << 20)))


Files = dict[str, tuple[bytes, Outcome]]


def _junk(rng: random.Random, scale: float) -> Files:
    suffixes = ("pdf", "docx", "xlsx", "pptx", "md", "html", "txt")
    files: Files = {}
    for n in range(140):
        suffix = suffixes[n % len(suffixes)]
        size = rng.randint(1000, 4000) if n % 10 else _size(scale, 2)
        reason = f"cannot read {suffix.upper()}" if suffix in suffixes[:4] else "binary content"
        files[f"junk-{n:03d}.{suffix}"] = (rng.randbytes(size), reason)
    return files


def _empty(rng: random.Random, scale: float) -> Files:
    files: Files = {f"empty-{n}.{s}": (b"", "empty") for n, s in enumerate(("md", "txt", "html"))}
    files["blank.txt"] = (b" \n\t\n" * 1000, "empty")
    files["bom-only.md"] = (b"\xef\xbb\xbf", "empty")
    return files


def _encodings(rng: random.Random, scale: float) -> Files:
    text = "# Contrat\n\n## Article 1\n\nLe fournisseur livre les marchandises à la société.\n"
    text += "Les « conditions » s’appliquent — voir l’annexe.\n" * 200
    japanese = "第1条 供給者は注文から三十日以内に商品を引き渡す。\n" * 200
    return {
        "latin1.txt": (text.replace("’", "'").replace("—", "-").encode("latin-1"), None),
        "cp1252.txt": (text.encode("cp1252"), None),
        "utf8-bom.md": (b"\xef\xbb\xbf" + text.encode(), None),
        "utf16-be-bom.txt": (text.encode("utf-16"), None),
        "utf16-le-nobom.txt": (text.encode("utf-16-le"), None),
        "utf32.txt": (text.encode("utf-32"), None),
        "shift-jis.txt": (japanese.encode("shift_jis"), None),
        "mixed.txt": (text.encode() + text.encode("latin-1", "replace") + text.encode(), None),
        "bad-utf8.md": (text.encode() + b"\xc3\x28\xa0\xa1\xe2\x28\xa1" * 100, None),
    }


def _lines(rng: random.Random, scale: float) -> Files:
    """Single lines of megabytes: words, one dotted token, parenthesised groups, marks."""
    words = " ".join(rng.choice(("supplier", "shall", "deliver", "goods", "x1")) for _ in range(9))
    size = _size(scale, 8)
    html = _repeat("<b>Clause</b> <i>one</i> ", size)
    return {
        "line-words.txt": (_repeat(words + " ", size), None),
        "line-sentences.md": (_repeat(CLAUSE, size), None),
        "line-dotted.txt": (_repeat("1.", _size(scale, 4)), None),
        "line-groups.txt": (b"1" + _repeat("(a)", _size(scale, 4)), None),
        "line-marks.txt": (b"e" + _repeat("\u0301", _size(scale, 2)), None),
        "line-html.html": (
            html,
            "over max_html_elements" if html.count(b"<b>") > 125_000 else None,
        ),
        "tags-under-limit.html": (_repeat("<b>Clause</b> <i>one</i> ", 120_000 * 26), None),
    }


def _repeat(unit: str, size: int) -> bytes:
    data = unit.encode()
    return data * max(1, size // len(data))


def _nesting(rng: random.Random, scale: float) -> Files:
    depth = max(60, int(5000 * scale**0.5))
    lists = "".join("  " * level + f"- item {level}\n" for level in range(min(depth, 3000)))
    return {
        "deep-numbering.txt": (nested(depth).encode(), "over max_section_depth"),
        "deep-numbering-ok.txt": (nested(300).encode(), None),
        "deep-lists.md": (lists.encode(), None),
        "deep-quotes.md": ((("> " * 5000 + "deep\n") * max(1, int(200 * scale))).encode(), None),
        "deep-divs.html": (("<div>" * 50_000 + "deep" + "</div>" * 50_000).encode(), None),
        "deep-table.html": (("<table><tr><td>" * 5000 + "x").encode(), None),
    }


def _pdf(pages: list[list[str]]) -> bytes:
    """A PDF of the given lines on each page, with a correct cross-reference table."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>"]
    kids = " ".join(f"{3 + 2 * n} 0 R" for n in range(len(pages)))
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>")
    font = 3 + 2 * len(pages)
    for n, lines in enumerate(pages):
        stream = "BT /F1 11 Tf 14 TL 72 720 Td " + " ".join(f"({x}) '" for x in lines) + " ET"
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * n} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>"
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n{body}\nendobj\n".encode())
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    out.write("".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode())
    trailer = f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    out.write(trailer.encode())
    return out.getvalue()


def _pdfs(rng: random.Random, scale: float) -> Files:
    words = CLAUSE.split()
    pages = [
        [f"Article {n}", *(" ".join(rng.sample(words, 8)) for _ in range(n % 7 + 3))]
        for n in range(1, 201)
    ]
    whole = _pdf(pages)
    files: Files = {"whole.pdf": (whole, None)}
    for share in (0.05, 0.3, 0.6, 0.95):
        files[f"truncated-{int(share * 100)}.pdf"] = (whole[: int(len(whole) * share)], "PDF")
    nested_arrays = b"%PDF-1.4\n1 0 obj\n" + b"[" * 200_000 + b"]" * 200_000 + b"\nendobj\n"
    files["nested-arrays.pdf"] = (nested_arrays, "PDF")
    return files


def _docx(rng: random.Random, scale: float) -> Files:
    from docx import Document

    document = Document()
    for n in range(1, max(50, int(3000 * scale)) + 1):
        document.add_paragraph(f"{n}. {CLAUSE}")
    buffer = io.BytesIO()
    document.save(buffer)
    whole = buffer.getvalue()
    files: Files = {"whole.docx": (whole, None)}
    for share in (0.1, 0.5, 0.9, 0.99):
        files[f"truncated-{int(share * 100)}.docx"] = (whole[: int(len(whole) * share)], "DOCX")
    files["deep-xml.docx"] = (_deep_docx(whole), "DOCX")
    return files


def _deep_docx(whole: bytes) -> bytes:
    """``whole`` with a document.xml nested 80,000 elements deep (under 1 MB unpacked, so
    that the parser meets it, not the zip ratio check)."""
    deep = b'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    deep += b"<w:body>" + b"<w:p>" * 80_000 + b"</w:p>" * 80_000 + b"</w:body></w:document>"
    return _rezip(whole, {"word/document.xml": deep})


def _rezip(archive: bytes, replace: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(archive)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = replace.get(item.filename, source.read(item.filename))
            target.writestr(item.filename, data, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _bombs(rng: random.Random, scale: float) -> Files:
    make: Callable[[str], bytes] = lambda member: _bomb(member, max(2, int(300 * scale)))  # noqa: E731
    return {
        "bomb.docx": (make("word/document.xml"), "zip bomb"),
        "bomb.xlsx": (make("xl/worksheets/sheet1.xml"), "zip bomb"),
        "bomb.pptx": (make("ppt/slides/slide1.xml"), "zip bomb"),
    }


def _bomb(member: str, megabytes: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive, archive.open(member, "w") as f:
        for _ in range(megabytes):
            f.write(bytes(1 << 20))
    return out.getvalue()
