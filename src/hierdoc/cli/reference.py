"""The CLI reference page, ``docs/cli.md``, written from the commands' own help.

Run from the repository root::

    python -m hierdoc.cli.reference            # rewrite docs/cli.md
    python -m hierdoc.cli.reference --check    # exit 1 if docs/cli.md is out of date

Every command is listed, the lazily imported ones (``eval``, ``migrate``) included, with
its usage, its help and every visible option with its help. The ``hierdoc`` command never
imports this module.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import click

from . import cli

DEFAULT_PATH = Path("docs") / "cli.md"

HEADER = """\
# CLI reference

Every `hierdoc` command with its options, as `hierdoc COMMAND --help` prints them.
This page is generated from the commands' help: regenerate it with
`python -m hierdoc.cli.reference` rather than editing it.
"""


def render(group: click.Group = cli) -> str:
    """The whole reference page for ``group`` and its commands, as Markdown."""
    root = click.Context(group, info_name="hierdoc", **group.context_settings)
    commands = list(_commands(root, group))
    contents = [f"- [{_title(ctx)}](#{_anchor(ctx)})" for ctx, _ in commands]
    parts = [HEADER, "\n".join(contents) + "\n"]
    parts += [_section(ctx, command) for ctx, command in commands]
    return "\n".join(parts)


def _commands(
    ctx: click.Context, command: click.Command
) -> Iterator[tuple[click.Context, click.Command]]:
    """``command`` and, for a group, each subcommand (lazy ones imported), in name order."""
    yield ctx, command
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                sub_ctx = click.Context(sub, info_name=name, parent=ctx, **sub.context_settings)
                yield from _commands(sub_ctx, sub)


def _title(ctx: click.Context) -> str:
    return ctx.command_path


def _anchor(ctx: click.Context) -> str:
    return ctx.command_path.replace(" ", "-")


def _section(ctx: click.Context, command: click.Command) -> str:
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    lines = [f"## {_title(ctx)}", "", "```text", usage, "```", "", _help_text(command), ""]
    options = [_option_line(ctx, param) for param in command.get_params(ctx)]
    options = [line for line in options if line]
    if options:
        lines += ["Options:", "", *options, ""]
    if isinstance(command, click.Group):
        names = ", ".join(f"`{name}`" for name in command.list_commands(ctx))
        lines += [f"Commands: {names}.", ""]
    return "\n".join(lines)


def _help_text(command: click.Command) -> str:
    """The command's help as ``--help`` shows it: text after ``\\f`` left out, no ``\\b``."""
    text = inspect.cleandoc((command.help or "").split("\f")[0])
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip() != "\b"]
    return "\n".join(lines) if lines else "(no help)"


def _option_line(ctx: click.Context, param: click.Parameter) -> str | None:
    """``- `--top-k INTEGER`: Number of results...`` for a visible option, else None."""
    if not isinstance(param, click.Option):
        return None
    record = param.get_help_record(ctx)
    if record is None:
        return None
    declaration, help_text = record
    if "--help" in param.opts and not param.expose_value:  # click keeps its first names
        declaration = ", ".join(ctx.help_option_names)
    help_text = _portable(" ".join(help_text.split()))
    envvars = [param.envvar] if isinstance(param.envvar, str) else list(param.envvar or [])
    envvars = [name for name in envvars if name not in help_text]
    if envvars:
        names = ", ".join(f"`{name}`" for name in envvars)
        help_text = f"{help_text} Environment variable: {names}.".strip()
    return f"- `{declaration}`: {help_text}" if help_text else f"- `{declaration}`"


def _portable(text: str) -> str:
    """Defaults under this machine's temporary directory written as ``$TMPDIR/...``."""
    temporary = tempfile.gettempdir().rstrip(os.sep) + os.sep
    return text.replace(temporary, "$TMPDIR/")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m hierdoc.cli.reference", description="Write the CLI reference page."
    )
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument(
        "--check", action="store_true", help="Exit 1 if the page differs from the commands."
    )
    args = parser.parse_args(argv)
    page = render()
    if not args.check:
        args.path.parent.mkdir(parents=True, exist_ok=True)
        args.path.write_text(page, encoding="utf-8")
        print(f"wrote {args.path}")
        return 0
    current = args.path.read_text(encoding="utf-8") if args.path.exists() else ""
    if current == page:
        return 0
    print(f"{args.path} is out of date: run python -m hierdoc.cli.reference", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
