"""The documentation against the product: the CLI reference covers the live CLI and is what
its generator writes, the README stays short, and every relative link in README.md and
docs/ leads to a file and heading that exist."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import click
import pytest

from hierdoc.cli import cli
from hierdoc.cli.reference import main as reference_main
from hierdoc.cli.reference import render
from tests.paths import REPOSITORY

ROOT = REPOSITORY
CLI_PAGE = ROOT / "docs" / "cli.md"
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]


def _live_commands() -> dict[str, click.Command]:
    """Every command of the live CLI by its path ("hierdoc search"), lazy ones imported."""
    root = click.Context(cli, info_name="hierdoc")
    commands: dict[str, click.Command] = {"hierdoc": cli}
    for name in cli.list_commands(root):
        command = cli.get_command(root, name)
        assert command is not None, name
        commands[f"hierdoc {name}"] = command
    return commands


def _page_sections(text: str) -> dict[str, str]:
    """The reference page's ``## hierdoc ...`` sections by title."""
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def test_cli_reference_matches_its_generator():
    assert CLI_PAGE.read_text(encoding="utf-8") == render(), (
        "docs/cli.md is out of date: run python -m hierdoc.cli.reference"
    )


def test_cli_reference_names_every_command_and_option():
    sections = _page_sections(CLI_PAGE.read_text(encoding="utf-8"))
    missing = []
    for path, command in _live_commands().items():
        if path not in sections:
            missing.append(path)
            continue
        for param in command.params:
            if not isinstance(param, click.Option) or param.hidden:
                continue
            for flag in [*param.opts, *param.secondary_opts]:
                if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", sections[path]):
                    missing.append(f"{path} {flag}")
    assert not missing, f"missing from docs/cli.md: {missing}"


def test_every_command_and_option_has_help():
    undocumented = []
    for path, command in _live_commands().items():
        if not (command.help or "").strip():
            undocumented.append(path)
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden and not param.help:
                undocumented.append(f"{path} {param.opts[0]}")
    assert not undocumented, f"no help text: {undocumented}"


def test_reference_check_mode_reports_a_stale_page(tmp_path, capsys):
    page = tmp_path / "cli.md"
    assert reference_main([str(page)]) == 0
    assert reference_main([str(page), "--check"]) == 0
    page.write_text(page.read_text(encoding="utf-8").replace("## hierdoc search", "## x"))
    assert reference_main([str(page), "--check"]) == 1
    assert "out of date" in capsys.readouterr().err


def test_readme_is_read_in_one_sitting():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 200, f"README.md has {len(lines)} lines; move detail to docs/"


def github_anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"`|\*\*|__", "", heading.strip()).lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    kept = "".join(char for char in text if char in " -_" or unicodedata.category(char)[0] in "LN")
    return kept.replace(" ", "-")


def _without_fences(text: str) -> str:
    """The Markdown outside fenced code blocks."""
    return re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.MULTILINE | re.DOTALL)


def _without_code(text: str) -> str:
    """The Markdown outside fenced code blocks and inline code."""
    return re.sub(r"`[^`\n]*`", "", _without_fences(text))


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings, repeats numbered as GitHub numbers them."""
    found: set[str] = set()
    for line in _without_fences(path.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        anchor = base = github_anchor(heading.group(1))
        repeat = 0
        while anchor in found:
            repeat += 1
            anchor = f"{base}-{repeat}"
        found.add(anchor)
    return found


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` whose file or heading does not exist."""
    broken = []
    text = _without_code(page.read_text(encoding="utf-8"))
    for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        missing_anchor = anchor and linked.suffix == ".md" and anchor not in anchors(linked)
        if not linked.exists() or missing_anchor:
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_relative_links_lead_somewhere(page):
    assert not broken_links(page), f"{page.name}: broken links {broken_links(page)}"


def test_link_checker_sees_a_broken_file_and_anchor(tmp_path):
    (tmp_path / "a.md").write_text("# Odd `Title`: here\n\n## Odd `Title`: here\n")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md#odd-title-here-1) [ok](a.md) [gone](c.md) [bad](a.md#nope)\n"
        "```\n[in code](missing.md)\n```\n[web](https://example.com/x.md)\n"
    )
    assert broken_links(page) == ["c.md", "a.md#nope"]
