"""The ``hierdoc`` command: a thin click layer over :class:`hierdoc.api.Index`.

Errors print as one readable line with a non-zero exit (a
:class:`hierdoc.errors.HierdocError`'s message is written for the user); ``--debug``
shows the traceback. Heavy parts load when their command runs: ``eval`` is imported
from :mod:`hierdoc.eval` on use, and ``serve`` imports the MCP server in its body.
"""

from __future__ import annotations

import importlib
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

import click

from .check import check
from .commands import define, ingest, refs, search, show, stats
from .manage import ls, outline, rm
from .serve import serve, tool_schema
from .state import State
from .watch import watch

LAZY_COMMANDS = {
    "eval": (
        "hierdoc.eval.command:eval_command",
        "Measure retrieval quality on a benchmark: hierdoc variants beside baselines.",
    ),
    "migrate": (
        "hierdoc.cli.migrate:migrate_command",
        "Copy an index to another backend (local <-> postgres) without re-embedding.",
    ),
}
"""Commands imported when they run: name -> ("module:attribute", summary for --help)."""


class LazyGroup(click.Group):
    """A group that imports the commands of :data:`LAZY_COMMANDS` only to run them."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            module, _, attribute = LAZY_COMMANDS[cmd_name][0].partition(":")
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, with the lazy ones' summaries (nothing imported)."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in LAZY_COMMANDS and name not in self.commands:
                summary = click.Command(name, help=LAZY_COMMANDS[name][1]).get_short_help_str(limit)
                rows.append((name, summary))
            elif (command := self.get_command(ctx, name)) and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--index", "index", envvar="HIERDOC_INDEX", help="Index directory [default: ./.hierdoc]."
)
@click.option(
    "--config", type=click.Path(dir_okay=False), help="YAML config or HoloDeck agent file."
)
@click.option("--tool", help="The hierarchical_document tool to use from an agent file.")
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.version_option(package_name="hierdoc")
@click.pass_context
def cli(
    ctx: click.Context, index: str | None, config: str | None, tool: str | None, debug: bool
) -> None:
    """Hybrid retrieval for formal, structured documents."""
    ctx.obj = State(index, Path(config) if config else None, tool)


for _command in (ingest, search, show, define, refs, stats, ls, rm, outline, serve, tool_schema):
    cli.add_command(_command)
cli.add_command(watch)
cli.add_command(check)


def _show_warning(message: Warning | str, *args: Any, **kwargs: Any) -> None:
    click.echo(f"warning: {message}", err=True)


def main(argv: list[str] | None = None) -> None:
    """Run ``hierdoc``; every error is one line on stderr and a non-zero exit."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    warnings.simplefilter("default" if debug else "ignore")
    warnings.filterwarnings("always", message="config field")
    warnings.showwarning = _show_warning
    try:
        cli.main(args=argv, prog_name="hierdoc", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except click.exceptions.Exit as error:
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        click.echo("interrupted; the index is consistent, run the same command to resume", err=True)
        sys.exit(130)
    except Exception as error:  # a HierdocError, or a bug: one line unless --debug
        if debug:
            traceback.print_exc()
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        click.echo(f"error: {message}", err=True)
        sys.exit(1)
