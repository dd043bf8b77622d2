"""The CLI as a user runs it: real model, small corpus, in a subprocess-free runner."""

import json

import pytest

from hierdoc.cli import main

pytestmark = pytest.mark.slow

DOC = """# Services Agreement

## Section 1 - Fees

The Client shall pay all fees within thirty days of the invoice date.

## Section 2 - Confidentiality

Each party shall use reasonable best efforts to protect Confidential Information.
"""


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exit_info:
        code = exit_info.code or 0
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli")
    (folder / "docs").mkdir()
    (folder / "docs" / "services.md").write_text(DOC)
    (folder / "docs" / "broken.pdf").write_bytes(b"not a pdf")
    return folder


def test_ingest_search_show_stats(indexed, capsys) -> None:
    index = str(indexed / "index")
    code, out, err = run(capsys, "--index", index, "ingest", str(indexed / "docs"), "--quiet")
    assert code == 0
    assert "1 added" in out
    assert "broken.pdf" in err

    code, out, _ = run(capsys, "--index", index, "search", "Section 2", "--json")
    data = json.loads(out)
    assert data["results"][0]["section_id"] == "section-2"
    assert data["results"][0]["parent_chain"] == ["Section 2 - Confidentiality"]

    code, out, _ = run(capsys, "--index", index, "search", "invoice payment deadline")
    assert "Section 1 - Fees" in out and "services.md" in out

    code, out, _ = run(capsys, "--index", index, "show", "section-1")
    assert "thirty days" in out and "next:" in out

    code, out, _ = run(capsys, "--index", index, "stats", "--json")
    assert json.loads(out)["documents"] == 1


def test_search_explain_in_the_terminal_and_as_json(indexed, capsys) -> None:
    index = str(indexed / "index")
    run(capsys, "--index", index, "ingest", str(indexed / "docs"), "--quiet")
    code, out, _ = run(capsys, "--index", index, "search", "Section 1 invoice", "--explain")
    assert code == 0
    assert "plan:" in out and "syntax      cites Section 1 (section-1)" in out
    assert "fusion: score fusion, weights" in out and "pinned: cites Section 1" in out
    code, out, _ = run(capsys, "--index", index, "search", "invoice", "--explain", "--json")
    explained = json.loads(out)["explain"]
    assert [s["analyser"] for s in explained["plan"]["trace"]] == [
        *("naming", "syntax", "vocabulary")
    ]
    assert explained["results"][0]["ranks"] and explained["fusion"]["weights"]["keyword"] == 1.0
    code, out, _ = run(capsys, "--index", index, "search", "invoice", "--json")
    assert "explain" not in json.loads(out)


def test_errors_are_one_line_with_non_zero_exit(indexed, capsys) -> None:
    index = str(indexed / "index")
    code, out, err = run(capsys, "--index", index, "search", "fees", "--top-k", "500")
    assert code != 0
    assert err.strip().count("\n") == 0 and "top_k" in err
    assert "Traceback" not in err

    code, _, err = run(capsys, "--index", index, "show", "no-such-id")
    assert code == 1 and "no-such-id" in err

    code, _, err = run(capsys, "--index", index, "--debug", "search", "fees", "--top-k", "500")
    assert code == 2 and "Traceback" in err

    code, out, err = run(capsys, "--index", index, "search", "fees", "--source", "nope.md")
    assert code != 0 and out == ""
    assert err.strip().count("\n") == 0
    assert "no indexed document matches source 'nope.md'" in err and "services.md" in err


def test_config_errors_name_the_field(tmp_path, capsys) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("top_k: 5\nbogus: 1\n")
    code, _, err = run(capsys, "--config", str(config), "--index", str(tmp_path / "i"), "stats")
    assert code != 0 and "bogus: unknown field" in err


def test_ingest_names_a_part_it_could_not_extract(tmp_path, capsys, monkeypatch) -> None:
    def failing(*_args, **_kwargs):
        raise ValueError("unreadable table")

    monkeypatch.setattr("hierdoc.pipeline.extract.document.find_references", failing)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "services.md").write_text(DOC)
    index = str(tmp_path / "index")
    code, out, err = run(capsys, "--index", index, "ingest", str(tmp_path / "docs"), "--quiet")
    assert code == 0 and "1 added" in out
    assert "warning " in err and "services.md: cross-references not extracted" in err
    assert "(ValueError: unreadable table); the rest is indexed" in err
