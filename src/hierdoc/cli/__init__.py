"""The ``hierdoc`` command: a thin click layer over :class:`hierdoc.api.Index`.

Exit status, as grep and ripgrep have it: 0 when something was found (or done), 1 when
a search or lookup found nothing (``search``, ``define``, ``show``, ``refs``; their
``--json`` says ``"no_match": true``) or ``check`` found a problem, 2 on an error (a
bad option, no index, a failed ingest), 130 when interrupted. An error prints as one
readable line (a :class:`hierdoc.errors.HierdocError`'s message is written for the
user); ``--debug`` shows the traceback.

The global options (``--index``, ``--config``, ``--tool``, ``--debug``) go before or
after the subcommand. Heavy parts load when a command runs, not for ``--version`` or
``--help`` (``eval --help`` excepted: its options list the evaluation's variants and
baselines): the command modules import the API in their bodies, ``eval`` and ``migrate``
are imported on use, and ``serve`` imports the MCP server when it starts.
"""

from __future__ import annotations

import importlib
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from .. import __version__
from .check import check
from .commands import define, ingest, refs, search, show, stats
from .manage import ls, outline, rm
from .serve import serve, token, tool_schema
from .state import CONFIG_HELP, DEBUG_HELP, INDEX_HELP, TOOL_HELP, State
from .watch import watch

ERROR_EXIT = 2
"""The exit status of an error (1 means "nothing found", as for grep)."""

LAZY_COMMANDS = {
    "eval": (
        "hierdoc.cli.evaluate:eval_command",
        "Measure retrieval quality on a benchmark: hierdoc variants beside baselines.",
    ),
    "migrate": (
        "hierdoc.cli.migrate:migrate_command",
        "Copy an index to another backend (local <-> postgres) without re-embedding.",
    ),
    "tune": (
        "hierdoc.cli.tune:tune_command",
        "Fine-tune the local embedding model on this index and re-embed it.",
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

    def invoke(self, ctx: click.Context) -> Any:
        """Run the command; a :class:`click.ClickException` exits with :data:`ERROR_EXIT`."""
        try:
            return super().invoke(ctx)
        except click.ClickException as error:
            error.exit_code = ERROR_EXIT
            raise

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
@click.option("--index", "index", envvar="HIERDOC_INDEX", help=INDEX_HELP)
@click.option("--config", type=click.Path(dir_okay=False), help=CONFIG_HELP)
@click.option("--tool", help=TOOL_HELP)
@click.option("--debug", is_flag=True, help=DEBUG_HELP)
@click.version_option(__version__, package_name="hierdoc")
@click.pass_context
def cli(
    ctx: click.Context, index: str | None, config: str | None, tool: str | None, debug: bool
) -> None:
    """Hybrid retrieval for formal, structured documents.

    Global options go before or after the command. Exit status: 0 found, 1 nothing
    found (search, define, show, refs) or a problem found (check), 2 error.
    """
    given = {
        name
        for name in ("index", "config", "tool")
        if ctx.get_parameter_source(name) is ParameterSource.COMMANDLINE
    }
    ctx.obj = State(index, Path(config) if config else None, tool, given)


_COMMANDS = (ingest, search, show, define, refs, stats, ls, rm, outline, serve, tool_schema, token)
for _command in _COMMANDS:
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
        sys.exit(ERROR_EXIT)
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
        sys.exit(ERROR_EXIT)
