"""Managing what is indexed: ``hierdoc ls``, ``rm`` and ``outline``, and the API behind them.

The commands run against indexes built with the deterministic hash embedder: their
functions are invoked with a :class:`State` that opens the index with that embedder
(the group's ``hierdoc.cli.main`` opens with the default model, used here only where no
index exists, so no model is loaded).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import click
import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.cli import main
from hierdoc.cli.manage import ls, outline, rm
from hierdoc.cli.state import State
from hierdoc.errors import InputError, NotFoundError
from hierdoc.store.base import IndexBusyError
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS

GDPR = """# Regulation (EU) 2016/679 General Data Protection Regulation

## CHAPTER I General provisions

### Article 1 Subject-matter and objectives

1. This Regulation lays down rules relating to the protection of natural persons with
regard to the processing of personal data.

2. This Regulation protects fundamental rights and freedoms of natural persons.

### Article 4 Definitions

For the purposes of this Regulation:

(1) 'personal data' means any information relating to an identified or identifiable
natural person ('data subject');

(2) 'processing' means any operation which is performed on personal data;

## CHAPTER II Principles

### Article 5 Principles relating to processing of personal data

1. Personal data shall be processed lawfully, fairly and in a transparent manner.

2. The controller shall be responsible for, and be able to demonstrate compliance with,
paragraph 1.
"""
FEES = "# Services Agreement\n\n## Section 1 - Fees\n\nThe client pays the walnut invoice.\n"
DOCUMENTS = [TextDocument("docs/gdpr.md", GDPR), TextDocument("docs/fees.md", FEES)]

HOLD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[2])
    from hash_embedder import HashEmbedder
    from hierdoc import Index, Settings
    with Index.open(Path(sys.argv[1]), Settings(), embedder=HashEmbedder(), mode="w"):
        print("holding", flush=True)
        sys.stdin.readline()
    """
)


class HashState(State):
    """The CLI's state, opening the index with the hash embedder that built it."""

    def open_reader(self) -> Index:
        return Index.open(self.index_option, Settings(), embedder=HashEmbedder(), mode="r")

    def open_writer(self, rebuild: bool, wait: bool, **overrides: Any) -> Index:
        return Index.open(
            self.index_option, Settings(), embedder=HashEmbedder(), mode="w", wait=wait
        )


def _build(directory: Path) -> Path:
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as index:
        index.ingest_texts(DOCUMENTS)
    return directory


def _run(command: click.Command, directory: Path, *args: str) -> None:
    """Run a command's function as ``hierdoc --index DIRECTORY COMMAND ARGS`` would."""
    command.main(list(args), obj=HashState(str(directory)), standalone_mode=False)


def _open(directory: Path) -> Index:
    return Index.open(directory, Settings(), embedder=HashEmbedder(), mode="r")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the two documents, only read by the tests that use it."""
    return _build(tmp_path_factory.mktemp("manage") / "index")


@pytest.fixture
def fresh(tmp_path: Path) -> Path:
    """An index of the two documents of this test's own, to remove from."""
    return _build(tmp_path / "index")


def test_ls_lists_the_documents_with_their_counts(built: Path, capsys) -> None:
    with _open(built) as index:
        summaries = {s.source: s for s in index.document_summaries()}
        gdpr_sections = len(index.store.sections_of_source("docs/gdpr.md"))
    gdpr, fees = summaries["docs/gdpr.md"], summaries["docs/fees.md"]
    assert (gdpr.sections, gdpr.definitions, gdpr.chars) == (gdpr_sections, 3, len(GDPR))
    assert gdpr.sections == 12 and gdpr.chunks >= 1
    assert (fees.chunks, fees.sections, fees.definitions) == (1, 2, 0)
    assert gdpr.ingested_at.endswith("Z") and gdpr.ingested_at[:2] == "20"

    _run(ls, built, "--json")
    listed = json.loads(capsys.readouterr().out)
    assert [d["source"] for d in listed] == ["docs/fees.md", "docs/gdpr.md"]
    assert listed[1] == {**gdpr.to_dict(), "chunks": gdpr.chunks}
    assert set(listed[0]) == {
        *("source", "title", "format", "chunks", "sections", "definitions", "chars"),
        *("ingested_at", "pages", "metadata"),
    }

    _run(ls, built)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["SOURCE", "CHUNKS", "SECTIONS", "DEFINITIONS", "CHARS", "INGESTED"]
    row = lines[2].split()
    assert row[0].endswith("docs/gdpr.md")
    assert row[1:5] == [str(gdpr.chunks), "12", "3", f"{len(GDPR):,}"]
    assert row[-1] == "UTC" and row[-3] == gdpr.ingested_at[:10]


def test_rm_removes_a_document_everywhere(fresh: Path, capsys) -> None:
    with _open(fresh) as index:
        assert index.search("walnut invoice", mode="keyword").results
        before = index.stats()

    _run(rm, fresh, "fees.md")
    out = capsys.readouterr().out
    assert "removed 1 document: " in out and "fees.md" in out
    assert "comes back at the next `hierdoc ingest` of its folder" in out

    with _open(fresh) as index:
        assert not index.search("walnut invoice", mode="keyword").results
        after = index.stats()
        assert [d.source for d in index.documents()] == ["docs/gdpr.md"]
    assert (after.documents, after.chunks) == (before.documents - 1, before.chunks - 1)
    assert after.sections == before.sections - 2
    _run(ls, fresh, "--json")
    assert [d["source"] for d in json.loads(capsys.readouterr().out)] == ["docs/gdpr.md"]


def test_the_api_removes_and_returns_the_stored_sources(fresh: Path) -> None:
    with Index.open(fresh, Settings(), embedder=HashEmbedder()) as index:
        assert index.remove(["docs/gdpr.md", "fees.md"]) == ["docs/gdpr.md", "docs/fees.md"]
        assert index.documents() == []
        with pytest.raises(InputError, match="nothing to remove"):
            index.remove([])
    with _open(fresh) as reader, pytest.raises(InputError, match="open for reading"):
        reader.remove(["gdpr.md"])


def test_a_removed_file_still_on_disk_comes_back_at_the_next_ingest(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "fees.md").write_text(FEES)
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:
        index.ingest([folder])
        assert index.remove("fees.md") == [str(folder / "fees.md")]
        assert index.ingest([folder]).added == [str(folder / "fees.md")]


def test_an_unknown_name_is_an_error_and_removes_nothing(fresh: Path) -> None:
    with pytest.raises(NotFoundError, match="'nope.md'; indexed: fees.md, gdpr.md"):
        _run(rm, fresh, "gdpr.md", "nope.md")
    with _open(fresh) as index:
        assert [d.source for d in index.documents()] == ["docs/fees.md", "docs/gdpr.md"]


def test_rm_while_another_process_writes_fails_busy(fresh: Path) -> None:
    tests = str(TESTS)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(fresh), tests],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        with pytest.raises(IndexBusyError, match="another hierdoc process is writing"):
            _run(rm, fresh, "fees.md")
    finally:
        holder.communicate("\n", timeout=60)
    assert holder.returncode == 0
    with _open(fresh) as index:
        assert len(index.documents()) == 2


def test_outline_gives_the_nested_section_tree(built: Path, capsys) -> None:
    def ids(nodes: list[dict]) -> list:
        return [(n["id"], ids(n["children"])) if n["children"] else n["id"] for n in nodes]

    _run(outline, built, "gdpr.md", "--json")
    tree = json.loads(capsys.readouterr().out)
    assert tree["source"] == "docs/gdpr.md"
    assert ids(tree["children"]) == [
        "preamble",
        ("chapter-1", [("article-1", ["article-1-1", "article-1-2"]),
                       ("article-4", ["article-4-1", "article-4-2"])]),
        ("chapter-2", [("article-5", ["article-5-1", "article-5-2"])]),
    ]  # fmt: skip
    article = tree["children"][1]["children"][0]
    assert set(article) == {"id", "heading", "kind", "children"}
    assert (article["heading"], article["kind"]) == (
        "Article 1 Subject-matter and objectives",
        "article",
    )
    assert tree["children"][1]["kind"] == "chapter"
    assert article["children"][0]["kind"] == "enum"

    _run(outline, built, "docs/gdpr.md")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(
        "docs/gdpr.md: Regulation (EU) 2016/679 General Data Protection Regulation"
    )
    assert "chapter-2  CHAPTER II Principles" in lines
    assert "  article-5  Article 5 Principles relating to processing of personal data" in lines
    assert "    article-5-1  1." in lines


def test_outline_of_an_unknown_document_is_not_found(built: Path) -> None:
    with _open(built) as index, pytest.raises(NotFoundError, match="indexed: fees.md"):
        index.outline("nope.md")


@pytest.mark.parametrize("args", [["ls"], ["rm", "gdpr.md"], ["outline", "gdpr.md"]])
def test_without_an_index_each_command_exits_2_and_creates_nothing(
    tmp_path: Path, capsys, args: list[str]
) -> None:
    directory = tmp_path / "none"
    with pytest.raises(SystemExit) as exited:
        main(["--index", str(directory), *args])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: no index at {directory}") and err.count("\n") == 1
    assert not directory.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_the_commands_through_main_on_an_index_of_the_real_model(
    tmp_path: Path, embedder, capsys
) -> None:
    """``hierdoc ls``, ``outline`` and ``rm`` as a user runs them: the group opens the index
    with the configured (default) model; none of the three embeds anything."""
    directory = tmp_path / "index"
    with Index.open(directory, Settings(), embedder=embedder) as index:
        index.ingest_texts(DOCUMENTS)

    def run(*args: str) -> str:
        main(["--index", str(directory), *args])
        return capsys.readouterr().out

    assert [d["source"] for d in json.loads(run("ls", "--json"))] == [
        "docs/fees.md",
        "docs/gdpr.md",
    ]
    assert json.loads(run("outline", "gdpr.md", "--json"))["children"][1]["id"] == "chapter-1"
    assert "removed 1 document: docs/fees.md" in run("rm", "fees.md", "--wait")
    assert "docs/fees.md" not in run("ls")
