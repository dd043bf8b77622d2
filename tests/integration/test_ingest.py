"""Ingest: incremental updates, deletions, broken files, resumption."""

from pathlib import Path

import pytest

from hierdoc import Index, Settings

pytestmark = pytest.mark.slow

ALPHA = """# Alpha Agreement

## Section 1 - Payment

The Buyer shall pay the purchase price within thirty days of delivery.

## Section 2 - Warranty

The Seller warrants that the goods are free from defects for twelve months.
"""
BETA = """# Beta Policy

## Article 1 - Retention

Records are retained for seven years after the end of the fiscal year.
"""
GAMMA = """# Gamma Manual

## 1. Maintenance

Lubricate the spindle bearings every four hundred operating hours.
"""


def _write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    _write(folder, "alpha.md", ALPHA)
    _write(folder, "beta.md", BETA)
    _write(folder, "gamma.md", GAMMA)
    return folder


def _open(tmp_path: Path, embedder) -> Index:
    return Index.open(tmp_path / "index", Settings(), embedder=embedder)


def test_incremental_change_delete_and_skip(tmp_path, corpus, embedder) -> None:
    with _open(tmp_path, embedder) as index:
        first = index.ingest([corpus])
        assert len(first.added) == 3
        _write(corpus, "alpha.md", ALPHA.replace("thirty days", "forty-five days"))
        (corpus / "beta.md").unlink()
        before = embedder.texts_embedded
        second = index.ingest([corpus])
        alpha = index.store.chunks_of_source(str(corpus / "alpha.md"))
        edited = [stored for stored in alpha if "forty-five days" in stored.chunk.content]
        assert embedder.texts_embedded - before == len(edited) == second.chunks_embedded == 1
        assert second.chunks_reused == len(alpha) - 1, "the other chunks keep their vectors"
        assert second.updated == [str(corpus / "alpha.md")]
        assert second.removed == [str(corpus / "beta.md")]
        assert second.unchanged == [str(corpus / "gamma.md")]

        found = index.search("forty-five days payment", top_k=3).results
        assert "forty-five days" in found[0].content
        for mode in ("hybrid", "semantic", "keyword"):
            for result in index.search("records retained seven years", mode=mode).results:
                assert "retained for seven years" not in result.content
                assert not result.source.endswith("beta.md")
            for result in index.search("thirty days", mode=mode, top_k=20).results:
                assert "thirty days" not in result.content

    with _open(tmp_path, embedder) as reopened:
        before = embedder.texts_embedded
        third = reopened.ingest([corpus])
        assert embedder.texts_embedded == before
        assert sorted(third.unchanged) == sorted(str(p) for p in corpus.iterdir())


def test_force_rebuilds(tmp_path, corpus, embedder) -> None:
    with _open(tmp_path, embedder) as index:
        index.ingest([corpus])
        report = index.ingest([corpus], force=True)
        assert len(report.added) == 3
        assert index.stats().documents == 3


def test_broken_files_are_reported_and_the_rest_ingested(tmp_path, corpus, embedder) -> None:
    _write(corpus, "corrupt.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ntruncated")
    _write(corpus, "binary.txt", bytes(range(256)) * 8)
    _write(corpus, "empty.md", b"")
    with _open(tmp_path, embedder) as index:
        report = index.ingest([corpus])
    assert sorted(Path(s).name for s in report.added) == ["alpha.md", "beta.md", "gamma.md"]
    problems = {Path(p.source).name: p.reason for p in report.problems}
    assert set(problems) == {"corrupt.pdf", "binary.txt", "empty.md"}
    assert all(reason and "\n" not in reason for reason in problems.values())


DEFINING = """# Delta Terms

## 1. Definitions

"Spindle" means the rotating shaft of the lathe. The Original Equipment Manufacturer (OEM)
supplies it.

## 2. Care

Lubricate the Spindle as section 1 says.
"""


def _failing(*_args, **_kwargs):
    raise IndexError("list index out of range")


def test_a_failing_finder_loses_its_own_part_not_the_document(
    tmp_path, embedder, monkeypatch
) -> None:
    """An extraction fault on one document: its text, sections and other extractions are
    indexed, the missing part is named in the report's warnings; other documents are whole."""
    folder = tmp_path / "docs"
    folder.mkdir()
    delta = str(_write(folder, "delta.md", DEFINING))
    _write(folder, "beta.md", BETA)
    monkeypatch.setattr("hierdoc.pipeline.extract.document.find_acronyms", _failing)
    with _open(tmp_path, embedder) as index:
        report = index.ingest([folder])
        assert sorted(Path(s).name for s in report.added) == ["beta.md", "delta.md"]
        assert report.problems == []
        assert [(w.source, w.reason) for w in report.warnings if w.source == delta] == [
            (
                delta,
                "acronyms not extracted (IndexError: list index out of range); "
                "the rest is indexed",
            )
        ]
        (spindle,) = index.define("Spindle").definitions
        assert spindle.definition.startswith("the rotating shaft of the lathe.")
        assert index.store.references_from(
            [r.chunk_id for r in index.search("Lubricate the Spindle", mode="keyword").results]
        ), "cross-references are still extracted"
        assert index.define("OEM").definitions == []
        assert "warnings" in report.to_dict()


def test_an_extraction_that_fails_whole_keeps_the_text(tmp_path, embedder, monkeypatch) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    delta = str(_write(folder, "delta.md", DEFINING))
    monkeypatch.setattr("hierdoc.pipeline.reading.extract_document", _failing)
    with _open(tmp_path, embedder) as index:
        report = index.ingest([folder])
        assert report.added == [delta] and report.problems == []
        assert sorted(w.reason.split(" not extracted")[0] for w in report.warnings) == [
            "acronyms",
            "cross-references",
            "definitions",
        ]
        found = index.search("rotating shaft of the lathe", mode="keyword").results
        assert found and found[0].source == delta
        assert not index.store.all_definitions(), "nothing extracted is stored"
        (spindle,) = index.define("Spindle").definitions  # found from its sentence instead
        assert spindle.style == "sentence" and spindle.source == delta


def test_a_file_that_breaks_keeps_its_previous_version_until_deleted(
    tmp_path, corpus, embedder
) -> None:
    """A failed re-ingest never deletes (a file caught mid-save is not lost); a deleted file is."""
    gamma = str(corpus / "gamma.md")
    with _open(tmp_path, embedder) as index:
        index.ingest([corpus])
        stored_hash = index.store.document_hashes()[gamma]
        _write(corpus, "gamma.md", b"")
        report = index.ingest([corpus])
        assert report.removed == [] and report.updated == []
        assert [p.source for p in report.problems] == [gamma]
        assert report.problems[0].reason.endswith("; the previous version stays indexed")
        assert index.store.document_hashes()[gamma] == stored_hash
        found = index.search("spindle bearings lubricate", mode="keyword").results
        assert found[0].source == gamma and "four hundred" in found[0].content

        _write(corpus, "gamma.md", GAMMA.replace("four hundred", "five hundred"))
        assert index.ingest([corpus]).updated == [gamma], "the next run retries it"
        (corpus / "gamma.md").unlink()
        assert index.ingest([corpus]).removed == [gamma]
        for result in index.search("spindle bearings lubricate", mode="keyword").results:
            assert result.source != gamma


def test_derived_indexes_are_rebuilt_when_they_lag(tmp_path, corpus, embedder) -> None:
    """An ingest cut off after the SQLite write leaves BM25 and vectors stale: reopen repairs."""
    with _open(tmp_path, embedder) as index:
        index.ingest([corpus])
    import shutil

    shutil.rmtree(tmp_path / "index" / "bm25")
    (tmp_path / "index" / "vectors" / "manifest.json").unlink()
    with _open(tmp_path, embedder) as index:
        assert (
            index.search("spindle bearings", mode="keyword").results[0].source.endswith("gamma.md")
        )
        assert (
            index.search("spindle bearings", mode="semantic").results[0].source.endswith("gamma.md")
        )


def test_interrupted_ingest_resumes(tmp_path, corpus, embedder) -> None:
    with _open(tmp_path, embedder) as index:
        calls = []

        def stop_after_first(event) -> None:
            calls.append(event)
            if event.kind == "done":
                raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            index.ingest([corpus], progress=stop_after_first)
    with _open(tmp_path, embedder) as index:
        assert index.stats().documents == 1
        report = index.ingest([corpus])
        assert len(report.unchanged) == 1 and len(report.added) == 2
        assert (
            index.search("spindle bearings lubricate", top_k=1)
            .results[0]
            .source.endswith("gamma.md")
        )


def test_texts_and_given_chunks(tmp_path, embedder) -> None:
    from hierdoc import TextDocument

    documents = [
        TextDocument("corpus:1", "Photosynthesis turns light into chemical energy.", "Plants"),
        TextDocument(
            "corpus:2",
            "",
            "Given chunks",
            chunks=["def add(a, b):\n    return a + b", "class Stack:\n    pass"],
            chunk_ids=["code-1", "code-2"],
        ),
    ]
    with _open(tmp_path, embedder) as index:
        report = index.ingest_texts(documents)
        assert report.added == ["corpus:1", "corpus:2"]
        assert index.search("stack class", top_k=1).results[0].chunk_id == "code-2"
        assert index.search("light energy plants", top_k=1).results[0].source == "corpus:1"
        again = index.ingest_texts(documents)
        assert again.unchanged == ["corpus:1", "corpus:2"]


def test_given_code_chunks_carry_their_declarations(tmp_path, embedder) -> None:
    """Chunks cut from a source file sit under the class and method they are part of:
    that chain is their parent chain, their heading, and their structural context."""
    from hierdoc import TextDocument

    lines = ["class Stack:", "    def push(self, item):", "        self.items.append(item)"]
    lines += ["        self.size += 1", "        return self.size", "", "def top(stack):"]
    lines += ["    value = stack.items[-1]", "    return value"]
    text = "\n".join(lines) + "\n"
    cut = text.index("        self.size")
    document = TextDocument("code:stack.py", text, "", [text[:cut], text[cut:]], ["s-0", "s-1"])
    with _open(tmp_path, embedder) as index:
        index.ingest_texts([document])
        second = index.store.get_chunks(["s-1"])["s-1"]
        push = "def push(self, item)"
        assert second.chunk.parent_chain == ("code:stack.py", "class Stack", push)
        assert second.chunk.heading == push
        assert second.context == f"code:stack.py > class Stack > {push}"


def test_an_open_index_sees_an_ingest_made_by_another_handle(tmp_path, corpus, embedder) -> None:
    """A running server keeps its Index open while `hierdoc ingest` writes through another."""
    with _open(tmp_path, embedder) as writer:
        writer.ingest([corpus])
    with _open(tmp_path, embedder) as reader:
        assert reader.search("spindle bearings", mode="keyword").results
        with _open(tmp_path, embedder) as writer:
            (corpus / "gamma.md").unlink()
            _write(
                corpus,
                "delta.md",
                "# Delta\n\n## Section 1 - Boilers\n\nDescale the boiler tubes every spring.\n",
            )
            writer.ingest([corpus])
        for mode in ("keyword", "semantic", "hybrid"):
            results = reader.search("spindle bearings descale boiler", mode=mode).results
            assert results[0].source.endswith("delta.md"), mode
            assert not any(r.source.endswith("gamma.md") for r in results)


def test_a_text_without_a_title_gets_one_as_a_file_would(tmp_path, embedder) -> None:
    from hierdoc import TextDocument

    documents = [
        TextDocument("manual-7", "Pump Maintenance Manual\n\nCheck the seals of the pump weekly."),
        TextDocument("notes-3", "check valves, gaskets and seals;\nthen log the pressure."),
    ]
    with _open(tmp_path, embedder) as index:
        index.ingest_texts(documents)
        titles = {r.source: r.title for r in index.search("seals", mode="keyword").results}
    assert titles == {"manual-7": "Pump Maintenance Manual", "notes-3": "notes-3"}


def test_is_under_compares_whole_path_components() -> None:
    from hierdoc.pipeline.ingest import is_under

    roots = [Path("/data/acts"), Path("/")]
    assert is_under("/data/acts", roots[:1]) and is_under("/data/acts/x.md", roots[:1])
    assert not is_under("/data/actsX/x.md", roots[:1]) and not is_under("/data/a.md", roots[:1])
    assert is_under("/anything.md", roots[1:])
    assert is_under("/data/acts/x.md", [Path("/data/acts/")])
