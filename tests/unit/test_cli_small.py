"""Small CLI behaviours: did-you-mean for config fields, a bad flag
blamed on the flag, ``refs`` without repeats, ``stats`` listing the documents, sources
through a symlink shown as a sensible path, and what Ctrl-C during ingest says.

Commands run with the deterministic hash embedder (a :class:`State` that opens the index
with it); ``hierdoc.cli.main`` is used only where no model is loaded.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import click
import pytest
from pydantic import ValidationError

from hierdoc import Index, Settings, TextDocument
from hierdoc.cli import commands, main
from hierdoc.cli.state import State
from hierdoc.config import load_settings
from hierdoc.errors import ConfigError
from hierdoc.pipeline.progress import ProgressEvent
from tests.hash_embedder import HashEmbedder

ACT = """# Example Act

## Article 1 Scope

1. This Act applies to processing.

2. The controller shall apply paragraph 1 to every record.

3. The processor shall also apply paragraph 1 to its records.

## Article 2 Rights

1. The rights in Article 1 apply. Article 1 applies here as well.
"""


class HashState(State):
    """The CLI's state, opening the index with the hash embedder."""

    def open_reader(self) -> Index:
        return Index.open(self.index_option, Settings(), embedder=HashEmbedder(), mode="r")

    def open_writer(self, rebuild: bool, wait: bool, **overrides: Any) -> Index:
        settings = self.settings(**overrides)
        return Index.open(self.index_option, settings, embedder=HashEmbedder(), mode="w")


def _run(command: click.Command, index: Path, *args: str) -> int:
    try:
        command.main(list(args), obj=HashState(str(index)), standalone_mode=False)
    except SystemExit as stop:
        return int(stop.code or 0)
    return 0


def _main(*args: str) -> int:
    try:
        main(list(args))
    except SystemExit as stop:
        return int(stop.code or 0)
    return 0


def test_an_unknown_config_field_suggests_the_close_one(tmp_path: Path, capsys) -> None:
    config = tmp_path / "hierdoc.yaml"
    config.write_text("max_chunk_tokns: 300\ntop_k: 5\n")
    with pytest.raises(ConfigError, match=r"did you mean 'max_chunk_tokens'\?"):
        load_settings(config)
    assert _main("--config", str(config), "--index", str(tmp_path / "i"), "stats") == 2
    err = capsys.readouterr().err
    assert "max_chunk_tokns: unknown field (did you mean 'max_chunk_tokens'?)" in err
    assert not (tmp_path / "i").exists()


def test_settings_keywords_suggest_too() -> None:
    with pytest.raises(ValidationError, match=r"serch_mode: unknown field \(did you mean"):
        Settings(serch_mode="keyword")
    with pytest.raises(ValidationError) as error:
        Settings(zzzz=1)
    assert "zzzz: unknown field" in str(error.value) and "did you mean" not in str(error.value)


def test_a_bad_flag_is_blamed_on_the_flag(tmp_path: Path, capsys) -> None:
    (tmp_path / "a.md").write_text("# A\n\nSome text.\n")
    index = tmp_path / "index"
    code = _main(
        "--index", str(index), "ingest", str(tmp_path / "a.md"), "--max-chunk-tokens", "10"
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: --max-chunk-tokens 10: ") and "settings" not in err


def test_an_environment_variable_is_blamed_on_itself(monkeypatch) -> None:
    monkeypatch.setenv("HIERDOC_TOP_K", "500")
    with pytest.raises(ConfigError, match=r"^HIERDOC_TOP_K=500: .*100"):
        load_settings()


@pytest.fixture(scope="module")
def act_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("small") / "index"
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as index:
        index.ingest_texts([TextDocument("act.md", ACT), TextDocument("other.md", "# Other\n")])
    return directory


def test_refs_lists_each_reference_once(act_index: Path, capsys) -> None:
    assert _run(commands.refs, act_index, "article-1") == 0
    out = capsys.readouterr().out
    lines = [line.strip() for line in out.splitlines() if line.startswith("   ")]
    assert lines.count("paragraph 1  ->  article-1-1") == 1
    assert lines.count("article-2-1: Article 1") == 1
    assert "referred to by (3):" in out
    assert _run(commands.refs, act_index, "article-1", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    outgoing = [(r["text"], r["target_section_id"]) for r in data["outgoing"]]
    assert len(outgoing) == len(set(outgoing))


def test_text_stats_lists_the_documents(act_index: Path, capsys) -> None:
    assert _run(commands.stats, act_index) == 0
    out = capsys.readouterr().out
    assert "documents:  2" in out
    assert "act.md  (" in out and "other.md  (" in out


def test_a_source_reached_through_a_symlink_is_not_a_chain_of_dotdots(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    real = tmp_path / "corpora" / "acts"
    real.mkdir(parents=True)
    (real / "act.md").write_text(ACT)
    work = tmp_path / "home" / "me" / "project"
    work.mkdir(parents=True)
    (work / "docs").symlink_to(real, target_is_directory=True)
    monkeypatch.chdir(work)
    assert _run(commands.ingest, work / "index", "docs", "--quiet") == 0
    capsys.readouterr()
    assert _run(commands.search, work / "index", "controller record") == 0
    out = capsys.readouterr().out
    assert "../.." not in out and str(real / "act.md") in out
    assert commands._relative(str(work / "docs" / "x.md")) == os.path.join("docs", "x.md")
    assert commands._relative(str(work.parent / "x.md")) == os.path.join("..", "x.md")


def test_ctrl_c_during_ingest_says_what_was_saved_and_resumes(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(4):
        (docs / f"part{n}.md").write_text(f"# Part {n}\n\nClause {n} binds the parties.\n")
    written: list[str] = []

    def interrupting_printer(interactive: bool | None = None) -> Any:
        def on_event(event: ProgressEvent) -> None:
            if event.kind == "done":
                written.append(event.source)
                if len(written) == 2:
                    raise KeyboardInterrupt

        return on_event

    monkeypatch.setattr(commands, "progress_printer", interrupting_printer)
    index = tmp_path / "index"
    assert _run(commands.ingest, index, str(docs)) == 130
    err = capsys.readouterr().err
    assert "interrupted: 2 documents written" in err
    assert "Run the same command to resume" in err
    monkeypatch.undo()
    assert _run(commands.ingest, index, str(docs), "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert len(report["unchanged"]) == 2 and len(report["added"]) == 2


def test_search_says_when_the_name_keys_are_from_an_older_version(tmp_path: Path, capsys) -> None:
    """An index whose document-name keys another version wrote is searched all the same
    (names read from the records); the note says why it is slower and what updates it,
    and goes once a writer has stored the keys anew."""
    directory = tmp_path / "index"
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as index:
        index.ingest_texts([TextDocument("act.md", ACT)])
    with sqlite3.connect(directory / "records.sqlite") as db:
        db.execute("UPDATE meta SET value = '1' WHERE key = 'name_keys_version'")
    assert _run(commands.search, directory, "controller") == 0
    captured = capsys.readouterr()
    assert "written by an older hierdoc" in captured.err
    assert "act.md" in captured.out
    Index.open(directory, Settings(), embedder=HashEmbedder(), mode="w").close()
    assert _run(commands.search, directory, "controller") == 0
    assert "older hierdoc" not in capsys.readouterr().err
