"""The ``hierdoc`` group's options (index, config, tool, debug), shared by every command.

:class:`State` is the group's ``ctx.obj``; :func:`index_options` lets a command take
``--index``, ``--config``, ``--tool`` and ``--debug`` after its name too. The API is
imported when an index is opened, so that ``--help`` and ``--version`` load none of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from ..api import Index
    from ..config import Settings

INDEX_HELP = "Index directory [default: ./.hierdoc]."
CONFIG_HELP = "YAML config or HoloDeck agent file."
TOOL_HELP = "The hierarchical_document tool to use from an agent file."
DEBUG_HELP = "Show tracebacks on errors."


@dataclass
class State:
    """Where the index is and which configuration to read."""

    index_option: str | None = None
    config: Path | None = None
    tool: str | None = None
    given: set[str] = field(default_factory=set)
    """The global options given on the command line (not from the environment)."""

    def settings(self, **overrides: Any) -> Settings:
        """The settings, ``overrides`` being the command's flags (a bad one is named as such)."""
        from ..config import load_settings

        flags = {name: "--" + name.replace("_", "-") for name in overrides}
        return load_settings(self.config, self.tool, option_names=flags, **overrides)

    def open(self, rebuild: bool = False, **overrides: Any) -> Index:
        """Open (or create) the index with the settings and ``overrides``."""
        from ..api import Index

        return Index.open(self.index_option, self.settings(**overrides), rebuild=rebuild)

    def open_reader(self) -> Index:
        """Open the index for reading: no index there is an error; nothing is written."""
        from ..api import Index

        return Index.open(self.index_option, self.settings(), mode="r")

    def open_writer(self, rebuild: bool, wait: bool, **overrides: Any) -> Index:
        """Open the index holding its writer lock until closed (``wait``: wait for another
        writer, saying so on stderr; otherwise fail at once naming it)."""
        from ..api import Index
        from ..store.base import IndexBusyError

        settings = self.settings(**overrides)
        try:
            return Index.open(self.index_option, settings, rebuild=rebuild, mode="w")
        except IndexBusyError as busy:
            if not wait:
                raise
            click.echo(
                f"waiting: another hierdoc process is writing this index ({busy.holder})",
                err=True,
            )
        return Index.open(self.index_option, settings, rebuild=rebuild, mode="w", wait=True)

    def refuse(self, command: str, options: dict[str, str]) -> None:
        """A usage error when one of ``options`` (name -> why the command has no use for
        it) was given: a command that would ignore a global option says so instead."""
        for name in sorted(self.given & set(options)):
            raise click.UsageError(f"hierdoc {command} does not take --{name}: {options[name]}")


pass_state = click.make_pass_decorator(State, ensure=True)
"""The group's :class:`State`, or a new one when a command runs on its own (in tests)."""


def _setter(attribute: str, convert: Callable[[str], Any] = str) -> Callable[..., None]:
    def callback(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
        if value is not None:
            state = ctx.ensure_object(State)
            setattr(state, attribute, convert(value))
            state.given.add(str(param.name))

    return callback


_F = TypeVar("_F", bound=Callable[..., Any])


def index_options(command: _F) -> _F:
    """``--index``, ``--config``, ``--tool`` and ``--debug`` after the subcommand too.

    ``hierdoc search fees --index DIR`` then works as well as ``hierdoc --index DIR
    search fees``; given after the subcommand, they override the group's. They write into
    the group's :class:`State` (``ctx.obj``); ``--debug`` is read by :func:`hierdoc.cli.main`
    from the whole command line.
    """
    options = [
        click.option(
            "--index", expose_value=False, callback=_setter("index_option"), help=INDEX_HELP
        ),
        click.option(
            "--config",
            type=click.Path(dir_okay=False),
            expose_value=False,
            callback=_setter("config", Path),
            help=CONFIG_HELP,
        ),
        click.option("--tool", expose_value=False, callback=_setter("tool"), help=TOOL_HELP),
        click.option("--debug", is_flag=True, expose_value=False, help=DEBUG_HELP),
    ]
    for option in reversed(options):
        command = option(command)
    return command
