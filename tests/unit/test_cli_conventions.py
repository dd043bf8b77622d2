"""The CLI behaves like the command-line tools people know.

- The global options (``--index``, ``--config``, ``--tool``, ``--debug``) work before
  or after every command, and a command that has no use for one refuses it.
- ``show``, ``define`` and ``refs`` take ``--source``; an id or term several documents
  have is never chosen silently: the answer names its document and the others.
- Exit status as grep's: 0 found, 1 nothing found (``"no_match": true`` in JSON),
  2 on an error.

Commands that read an index run on one built with the deterministic hash embedder (a
:class:`State` that opens it with that embedder); :func:`hierdoc.cli.main` is used
where no model is loaded (errors, a missing index).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.cli import cli, commands, main
from hierdoc.errors import InputError, NotFoundError
from tests.hash_embedder import HashEmbedder
from tests.unit.test_cli_small import HashState

ALPHA = """# Alpha Services Agreement

## 1 Definitions

"Customer" means the company that buys the services from Alpha.

## 2 Fees

2.1 The Customer shall pay the fees set out in Section 3.

## 3 Payment terms

3.1 Invoices are payable within thirty days of receipt.
"""

BETA = """# Beta Licence Agreement

## 1 Definitions

"Customer" means the person licensing the software from Beta.

## 2 Licence

2.1 Beta grants the Customer a licence subject to Section 3.

## 3 Restrictions

3.1 The Customer shall not reverse engineer the software.
"""

GAMMA = """# Gamma Note

## 1 Scope

This note has no cross-references and defines nothing.

## 7 Notices

Notices are given in writing.
"""


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as stop:
        code = int(stop.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _run(
    capsys: pytest.CaptureFixture[str], command: click.Command, index: Path, *args: str
) -> tuple[int, str, str]:
    """``command`` with ``args``, on ``index`` opened with the hash embedder."""
    try:
        command.main(list(args), obj=HashState(str(index)), standalone_mode=False)
        code = 0
    except SystemExit as stop:
        code = int(stop.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def two_documents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """alpha.md and beta.md both have section-3 and define "Customer"; gamma.md has
    neither, and alone has section-7; all three have section-1."""
    directory = tmp_path_factory.mktemp("conventions") / "index"
    documents = [
        TextDocument("alpha.md", ALPHA),
        TextDocument("beta.md", BETA),
        TextDocument("gamma.md", GAMMA),
    ]
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as index:
        index.ingest_texts(documents)
    return directory


# -- global options before or after every command ---------------------------------------

REFUSED = "does not take --index"
"""What a command with no use for an index says when given one."""

CASES: dict[str, tuple[list[str], str]] = {
    "check": ([], "no index at {index}"),
    "define": (["fees"], "no index at {index}"),
    "eval": (["--dataset", "scifact"], REFUSED),
    "ingest": (["{docs}"], "{index}"),
    "ls": ([], "no index at {index}"),
    "migrate": (["--to", "{target}"], "no index at {index}"),
    "outline": (["a.md"], "no index at {index}"),
    "refs": (["section-1"], "no index at {index}"),
    "rm": (["a.md"], "no index at {index}"),
    "search": (["fees"], "no index at {index}"),
    "serve": ([], "no index at {index}"),
    "show": (["section-1"], "no index at {index}"),
    "stats": ([], "no index at {index}"),
    "token": ([], REFUSED),
    "tool-schema": ([], REFUSED),
    "tune": ([], "no index at {index}"),
    "watch": (["{docs}"], "{index}"),
}
"""Each command's arguments, and what it says about the index named by ``--index``: the
index is used (its path in the answer; under a regular file, no index can be there or be
made) or the option is refused."""


def test_the_cases_cover_every_command() -> None:
    with click.Context(cli) as ctx:
        assert sorted(cli.list_commands(ctx)) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_command_takes_the_global_options_after_its_name(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with click.Context(cli) as ctx:
        command = cli.get_command(ctx, name)
        assert command is not None
        options = {opt for param in command.params for opt in param.opts}
    assert {"--index", "--config", "--tool", "--debug"} <= options, name
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    index = blocker / "index"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nSome text.\n")
    places = {"index": index, "docs": tmp_path / "docs", "target": tmp_path / "copy"}
    arguments, expected = CASES[name]
    arguments = [argument.format(**places) for argument in arguments]

    code, out, err = _main(capsys, name, *arguments, "--index", str(index))
    assert code == 2, (name, out, err)
    assert expected.format(**places) in err, (name, err)
    assert not (tmp_path / "copy").exists()


def test_an_option_after_the_command_overrides_the_one_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    code, _, err = _main(capsys, "--index", str(first), "stats", "--index", str(second))
    assert code == 2 and f"no index at {second}" in err and str(first) not in err


def test_debug_after_the_command_shows_the_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "missing")
    code, _, err = _main(capsys, "search", "fees", "--index", missing)
    assert code == 2 and "Traceback" not in err
    code, _, err = _main(capsys, "search", "fees", "--index", missing, "--debug")
    assert code == 2 and "Traceback" in err


def test_a_config_after_the_command_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "hierdoc.yaml"
    config.write_text("top_kk: 5\n")
    code, _, err = _main(capsys, "stats", "--index", str(tmp_path / "i"), "--config", str(config))
    assert code == 2 and "top_kk: unknown field" in err


def test_the_environment_index_is_not_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HIERDOC_INDEX", str(tmp_path / "index"))
    code, out, _ = _main(capsys, "tool-schema", "--only", "define")
    assert code == 0 and json.loads(out)[0]["function"]["name"] == "define"


# -- --source, and the other documents named ------------------------------------------


def test_show_names_the_document_shown_and_the_others(
    two_documents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, commands.show, two_documents, "section-3")
    assert code == 0
    assert "alpha.md  [section-3]" in out and "Invoices are payable" in out
    assert "also in: beta.md (this is alpha.md; choose with --source)" in out

    code, out, _ = _run(capsys, commands.show, two_documents, "section-3", "--json")
    data = json.loads(out)
    assert (data["source"], data["other_sources"], data["no_match"]) == (
        "alpha.md",
        ["beta.md"],
        False,
    )

    code, out, _ = _run(capsys, commands.show, two_documents, "section-3", "--source", "beta.md")
    assert code == 0 and "beta.md  [section-3]" in out and "reverse engineer" in out
    assert "also in" not in out


def test_a_section_only_one_document_has_names_no_others(
    two_documents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, commands.show, two_documents, "section-7", "--json")
    assert code == 0 and json.loads(out)["other_sources"] == []
    code, out, _ = _run(capsys, commands.show, two_documents, "section-1", "--json")
    assert sorted([json.loads(out)["source"], *json.loads(out)["other_sources"]]) == [
        "alpha.md",
        "beta.md",
        "gamma.md",
    ]


def test_many_other_documents_are_counted_beyond_those_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    documents = [TextDocument(f"act-{n:02d}.md", GAMMA) for n in range(24)]
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:
        index.ingest_texts(documents)
    code, out, _ = _run(capsys, commands.show, tmp_path / "index", "section-7", "--json")
    data = json.loads(out)
    assert data["source"] == "act-00.md" and data["more_sources"] == 3
    assert data["other_sources"] == [f"act-{n:02d}.md" for n in range(1, 21)]
    code, out, _ = _run(capsys, commands.show, tmp_path / "index", "section-7")
    assert "act-20.md and 3 more (this is act-00.md; choose with --source)" in out


def test_refs_names_the_document_and_takes_source(
    two_documents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, commands.refs, two_documents, "section-3")
    assert code == 0 and "section-3 in alpha.md refers to:" in out
    assert "also in: beta.md" in out and "section-2-1: Section 3" in out

    code, out, _ = _run(
        capsys, commands.refs, two_documents, "section-3", "--source", "beta.md", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["source"] == "beta.md" and data["other_sources"] == []
    assert [r["source"] for r in data["incoming"]] == ["beta.md"]


def test_define_names_every_document_and_takes_source(
    two_documents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, commands.define, two_documents, "Customer")
    assert code == 0 and "'Customer' is defined in 2 documents: alpha.md, beta.md" in out
    assert "buys the services" in out and "licensing the software" in out

    code, out, _ = _run(
        capsys, commands.define, two_documents, "Customer", "--source", "beta.md", "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["sources"] == ["beta.md"] and not data["no_match"]
    assert [d["definition"] for d in data["definitions"]] == [
        "the person licensing the software from Beta"
    ]


def test_a_source_naming_several_documents_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    documents = [TextDocument("a/terms.md", ALPHA), TextDocument("b/terms.md", BETA)]
    documents.append(TextDocument("old/b/terms.md", GAMMA))
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as index:
        index.ingest_texts(documents)
    for command in (commands.show, commands.refs, commands.define):
        with pytest.raises(
            InputError, match=r"names 3 documents \(a/terms.md, b/terms.md, old/b/terms.md\)"
        ):
            _run(capsys, command, tmp_path / "index", "section-3", "--source", "terms.md")
    code, out, _ = _run(
        capsys, commands.show, tmp_path / "index", "section-3", "--source", "b/terms.md"
    )
    assert code == 0 and out.splitlines()[1].startswith("b/terms.md  [section-3]")
    code, _, err = _run(
        capsys, commands.show, tmp_path / "index", "section-1", "--source", "old/b/terms.md"
    )
    assert code == 0


# -- exit status -----------------------------------------------------------------------


def test_nothing_found_exits_1_and_json_says_no_match(
    two_documents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases: list[tuple[click.Command, list[str]]] = [
        (commands.search, ["?!.;"]),
        (commands.define, ["Supplier"]),
        (commands.define, ["Customer", "--source", "gamma.md"]),
        (commands.show, ["section-99"]),
        (commands.show, ["section-3", "--source", "gamma.md"]),
        (commands.refs, ["section-99"]),
        (commands.refs, ["section-1", "--source", "gamma.md"]),  # no references
    ]
    for command, args in cases:
        code, out, err = _run(capsys, command, two_documents, *args)
        assert code == 1, (command.name, args, out, err)
        code, out, _ = _run(capsys, command, two_documents, *args, "--json")
        data: dict[str, Any] = json.loads(out)
        assert code == 1 and data["no_match"] is True, (command.name, args)


def test_a_query_without_letters_or_digits_matches_nothing(
    two_documents: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, commands.search, two_documents, "?!.;", "--json")
    data = json.loads(out)
    assert code == 1 and data["results"] == [] and data["no_match"] is True
    assert data["notes"] == ["the query has no letters or digits: nothing to search for"]


def test_found_exits_0(two_documents: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command, args in [
        (commands.search, ["Section 3"]),
        (commands.define, ["Customer"]),
        (commands.show, ["section-3"]),
        (commands.refs, ["section-3"]),
    ]:
        code, out, err = _run(capsys, command, two_documents, *args)
        assert code == 0, (command.name, out, err)


def test_errors_exit_2(
    two_documents: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _main(capsys, "search", "fees", "--index", str(tmp_path / "none"))
    assert code == 2 and err.startswith("error: no index at")
    code, _, err = _main(capsys, "search", "--no-such-flag", "x")
    assert code == 2 and "No such option" in err
    for command in (commands.show, commands.refs, commands.define):
        with pytest.raises(NotFoundError, match="no indexed document matches source 'zz'"):
            _run(capsys, command, two_documents, "section-3", "--source", "zz")


# -- --version and --help load nothing heavy ------------------------------------------

HEAVY = ("numpy", "torch", "pydantic", "yaml", "mcp", "importlib.metadata")
HEAVY_HIERDOC = ("hierdoc.api", "hierdoc.config", "hierdoc.store", "hierdoc.search")
HEAVY_HIERDOC += ("hierdoc.views", "hierdoc.tools.agents", "hierdoc.eval")

LOADS = """
import json, sys
from hierdoc.cli import cli, main

def heavy():
    return sorted(m for m in sys.modules if m.split(".")[0] in HEAVY or m in HEAVY
                  or m.startswith(HEAVY_HIERDOC))

loaded = {}
for args in ARGS:
    try:
        main(args)
    except SystemExit:
        pass
    loaded[" ".join(args)] = heavy()
print(json.dumps(loaded), file=sys.stderr)
"""


def test_version_and_help_import_nothing_heavy() -> None:
    """``--version``, ``--help`` and every command's ``--help`` (but ``eval``'s, whose
    options list the evaluation's variants and baselines) in one process, the modules
    loaded after each checked: no numpy, torch, pydantic, API, store or search."""
    import subprocess
    import sys

    with click.Context(cli) as ctx:
        names = [name for name in cli.list_commands(ctx) if name != "eval"]
    arguments = [["--version"], ["--help"], *([name, "--help"] for name in names)]
    program = f"HEAVY = {HEAVY!r}\nHEAVY_HIERDOC = {HEAVY_HIERDOC!r}\nARGS = {arguments!r}\n"
    done = subprocess.run(
        [sys.executable, "-c", program + LOADS], capture_output=True, text=True, check=True
    )
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    assert list(loaded) == [" ".join(args) for args in arguments]
    assert loaded == {key: [] for key in loaded}
    assert "Usage: hierdoc search [OPTIONS] QUERY" in done.stdout
    assert "hierdoc, version " in done.stdout
