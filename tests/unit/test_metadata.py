"""Document metadata: front matter and document properties read at conversion, stored with
the document, filterable (``--where``, ``Index.search(where=...)``, the MCP ``where``
argument) and shown by ``hierdoc ls``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest

from hierdoc import Index, Settings
from hierdoc.cli.commands import search
from hierdoc.cli.manage import ls
from hierdoc.cli.state import State
from hierdoc.errors import InputError, NotFoundError
from hierdoc.pipeline.convert import convert_file
from hierdoc.pipeline.metadata import split_front_matter
from hierdoc.search.where import parse_where
from hierdoc.tools.logic import run_list_documents, run_search
from tests.hash_embedder import HashEmbedder

MSA = """---
title: Master Services Agreement
type: contract
tags: [vendor, cloud]
date: 2024-03-01
---
# MSA

## Section 1 - Fees

The client pays the walnut invoice within thirty days.
"""
NDA = """---
title: Mutual NDA
type: contract
tags: nda
---
## Section 1 - Confidentiality

Each party keeps the walnut recipe confidential.
"""
POLICY = """---
type: policy
---
# Travel policy

Staff book walnut-free flights.
"""
PLAIN = "# Notes\n\nA walnut grows on a tree.\n"


def test_front_matter_is_parsed_and_removed() -> None:
    metadata, text = split_front_matter(MSA)
    assert metadata == {
        "title": "Master Services Agreement",
        "type": "contract",
        "tags": ["vendor", "cloud"],
        "date": "2024-03-01",
    }
    assert text.startswith("# MSA\n") and "type: contract" not in text


@pytest.mark.parametrize(
    "text",
    [
        "---\n\nA rule, then text.\n",  # a horizontal rule, never closed
        "---\n- a\n- b\n---\nbody\n",  # YAML, but not a mapping
        "---\ntitle: [unclosed\n---\nbody\n",  # not YAML
        "Intro\n---\ntitle: x\n---\n",  # not at the top
    ],
)
def test_text_without_front_matter_is_left_as_is(text: str) -> None:
    assert split_front_matter(text) == ({}, text)


def test_convert_uses_the_front_matter_title_and_keeps_the_rest(tmp_path: Path) -> None:
    (tmp_path / "msa.md").write_text(MSA)
    document = convert_file(tmp_path / "msa.md")
    assert document.title == "Master Services Agreement"
    assert document.metadata["type"] == "contract"
    assert "---" not in document.text and document.text.startswith("# MSA")


def test_docx_core_properties(tmp_path: Path) -> None:
    import datetime as dt

    import docx

    word = docx.Document()
    word.add_heading("Supply Agreement", level=1)
    word.add_paragraph("The supplier shall deliver the goods.")
    word.core_properties.title = "Supply Agreement 2024"
    word.core_properties.subject = "supply"
    word.core_properties.keywords = "contract; goods, logistics"
    word.core_properties.created = dt.datetime(2024, 5, 6, 7, 8, 9)
    word.save(tmp_path / "supply.docx")
    metadata = convert_file(tmp_path / "supply.docx").metadata
    assert metadata["title"] == "Supply Agreement 2024" and metadata["subject"] == "supply"
    assert metadata["keywords"] == ["contract", "goods", "logistics"]
    assert metadata["created"].startswith("2024-05-06")


def _pdf(info: bytes) -> bytes:
    """A one-page PDF with a text layer and the information dictionary ``info``."""
    stream = b"BT /F1 12 Tf 72 720 Td (The data holder shall share the data.) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        info,
    ]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\n" % (len(objects) + 1)
    return out + b"startxref\n%d\n%%%%EOF\n" % xref


def test_pdf_information_dictionary(tmp_path: Path) -> None:
    info = (
        b"<< /Title (Data Act) /CreationDate (D:20240131120000Z) /Keywords (data, eu) "
        b"/Subject ((unspecified)) >>"
    )
    (tmp_path / "act.pdf").write_bytes(_pdf(info))
    metadata = convert_file(tmp_path / "act.pdf").metadata
    assert metadata == {"title": "Data Act", "keywords": ["data", "eu"], "date": "2024-01-31"}


def test_html_meta_tags(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        "<html><head><title>Cookie policy</title>"
        '<meta charset="utf-8"><meta name="viewport" content="width=device-width">'
        '<meta name="Type" content="policy"><meta name="keywords" content="cookies, privacy">'
        '</head><body><h1>Cookies</h1><p>We use cookies.</p><meta name="late" content="x">'
        "</body></html>"
    )
    document = convert_file(tmp_path / "page.html")
    assert document.metadata == {"type": "policy", "keywords": ["cookies", "privacy"]}


def test_a_file_with_only_front_matter_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty.md").write_text("---\ntitle: Nothing\n---\n\n")
    with pytest.raises(InputError, match="no text after the front matter"):
        convert_file(tmp_path / "empty.md")


class HashState(State):
    def open_reader(self) -> Index:
        return Index.open(self.index_option, Settings(), embedder=HashEmbedder(), mode="r")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("metadata")
    docs = folder / "docs"
    docs.mkdir()
    for name, text in (
        ("msa.md", MSA),
        ("nda.md", NDA),
        ("travel.md", POLICY),
        ("notes.md", PLAIN),
    ):
        (docs / name).write_text(text)
    with Index.open(folder / "index", Settings(), embedder=HashEmbedder()) as index:
        report = index.ingest([docs])
        assert not report.problems and len(report.added) == 4
    return folder


def _open(corpus: Path) -> Index:
    return Index.open(corpus / "index", Settings(), embedder=HashEmbedder(), mode="r")


def _names(results: Any) -> set[str]:
    return {Path(r.source).name for r in results}


def test_metadata_is_stored_and_the_front_matter_is_not_indexed(corpus: Path) -> None:
    with _open(corpus) as index:
        records = {Path(d.source).name: d for d in index.documents()}
        assert records["msa.md"].title == "Master Services Agreement"
        assert records["msa.md"].metadata["tags"] == ["vendor", "cloud"]
        assert records["notes.md"].metadata == {}
        assert not index.search("vendor cloud", mode="keyword").results


def test_where_filters_by_value_and_list_member(corpus: Path) -> None:
    with _open(corpus) as index:
        everything = index.search("walnut", mode="keyword", top_k=10).results
        contracts = index.search("walnut", mode="keyword", where={"type": "contract"}).results
        cloud = index.search("walnut", mode="keyword", where={"tags": "Cloud"}).results
        either = index.search("walnut", where={"type": ["policy", "contract"]}).results
        both = index.search("walnut", where={"type": "contract", "tags": "nda"}).results
        pdfs = index.search("walnut", mode="keyword", where={"format": "markdown"}).results
    assert _names(everything) == {"msa.md", "nda.md", "travel.md", "notes.md"}
    assert _names(contracts) == {"msa.md", "nda.md"}
    assert _names(cloud) == {"msa.md"}
    assert _names(either) == {"msa.md", "nda.md", "travel.md"}
    assert _names(both) == {"nda.md"}
    assert len(_names(pdfs)) == 4


def test_where_reads_the_records_once_per_index_generation(
    corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``where`` filter looks at every document's metadata: the records are read once per
    index generation, not on each query, and a filter every document passes filters
    nothing."""
    from hierdoc.search.where import narrow_sources

    with _open(corpus) as index:
        store_type = type(index.store)
        read = store_type.documents
        reads: list[int] = []

        def counted(self: Any) -> list:
            reads.append(1)
            return read(self)

        monkeypatch.setattr(store_type, "documents", counted)
        first = index.search("walnut", mode="keyword", where={"type": "contract"}).results
        again = index.search("walnut", mode="keyword", where={"tags": "cloud"}).results
        assert _names(first) == {"msa.md", "nda.md"} and _names(again) == {"msa.md"}
        assert narrow_sources(index.store, [], {"format": "markdown"}) == []
        assert len(reads) == 1


def test_where_with_no_match_says_what_the_index_holds(corpus: Path) -> None:
    with _open(corpus) as index:
        with pytest.raises(NotFoundError, match="type=lease .*type: contract, policy"):
            index.search("walnut", where={"type": "lease"})
        with pytest.raises(NotFoundError, match="no document has 'colour'"):
            index.search("walnut", where={"colour": "red"})
        with pytest.raises(NotFoundError, match="both"):
            index.search("walnut", source="travel.md", where={"type": "contract"})


def test_parse_where() -> None:
    assert parse_where(["type=contract", "tags = x", "type=nda"]) == {
        "type": ["contract", "nda"],
        "tags": ["x"],
    }
    with pytest.raises(InputError, match="KEY=VALUE"):
        parse_where(["contract"])


def _run(command: click.Command, corpus: Path, *args: str) -> None:
    command.main(list(args), obj=HashState(str(corpus / "index")), standalone_mode=False)


def test_cli_where_and_ls(corpus: Path, capsys) -> None:
    _run(search, corpus, "walnut", "--mode", "keyword", "--where", "type=contract", "--json")
    data = json.loads(capsys.readouterr().out)
    assert {Path(r["source"]).name for r in data["results"]} == {"msa.md", "nda.md"}
    _run(ls, corpus)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[-1] == "METADATA"
    msa = next(line for line in lines if "msa.md" in line)
    assert msa.endswith("title, type, tags, date")
    _run(ls, corpus, "--json")
    listed = {Path(d["source"]).name: d for d in json.loads(capsys.readouterr().out)}
    assert listed["nda.md"]["metadata"] == {
        "title": "Mutual NDA",
        "type": "contract",
        "tags": ["nda"],
    }
    assert listed["nda.md"]["pages"] is None


def test_mcp_search_takes_where_and_list_documents_shows_metadata(corpus: Path) -> None:
    with _open(corpus) as index:
        found = run_search(index, "walnut", 10, "keyword", where={"type": "policy"}).structured
        assert {Path(r["source"]).name for r in found["results"]} == {"travel.md"}
        documents = run_list_documents(index).structured["documents"]
    assert {d["name"]: d["metadata"].get("type") for d in documents}["msa.md"] == "contract"


def test_ls_shows_pages_when_a_document_has_them() -> None:
    from hierdoc.cli.manage import format_listing
    from hierdoc.views import DocumentSummary

    summaries = [
        DocumentSummary("bill.pdf", "Bill", "pdf", 40, 12, 3, 90_000, "", pages=78),
        DocumentSummary("notes.md", "Notes", "markdown", 1, 1, 0, 40, ""),
    ]
    lines = format_listing(summaries)
    assert lines[0].split() == [
        *("SOURCE", "CHUNKS", "SECTIONS", "DEFINITIONS", "PAGES", "CHARS", "INGESTED")
    ]
    assert lines[1].split()[4] == "78" and lines[2].split()[4] == "-"
    assert format_listing(summaries[1:])[0].split()[4] == "CHARS"
