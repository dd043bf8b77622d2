"""The ``hierdoc`` group's options (index, config, tool), shared by every command.

:class:`State` is the group's ``ctx.obj``; :func:`index_options` lets a command take
``--index``, ``--config`` and ``--tool`` after its name too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from ..api import Index
from ..config import Settings, load_settings
from ..store.base import IndexBusyError


@dataclass
class State:
    """Where the index is and which configuration to read."""

    index_option: str | None = None
    config: Path | None = None
    tool: str | None = None

    def settings(self, **overrides: Any) -> Settings:
        """The settings, ``overrides`` being the command's flags (a bad one is named as such)."""
        flags = {name: "--" + name.replace("_", "-") for name in overrides}
        return load_settings(self.config, self.tool, option_names=flags, **overrides)

    def open(self, rebuild: bool = False, **overrides: Any) -> Index:
        """Open (or create) the index with the settings and ``overrides``."""
        return Index.open(self.index_option, self.settings(**overrides), rebuild=rebuild)

    def open_reader(self) -> Index:
        """Open the index for reading: no index there is an error; nothing is written."""
        return Index.open(self.index_option, self.settings(), mode="r")

    def open_writer(self, rebuild: bool, wait: bool, **overrides: Any) -> Index:
        """Open the index holding its writer lock until closed (``wait``: wait for another
        writer, saying so on stderr; otherwise fail at once naming it)."""
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


def _setter(attribute: str, convert: Callable[[str], Any] = str) -> Callable[..., None]:
    def callback(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
        if value is not None:
            setattr(ctx.obj, attribute, convert(value))

    return callback


_F = TypeVar("_F", bound=Callable[..., Any])


def index_options(command: _F) -> _F:
    """``--index``, ``--config`` and ``--tool`` after the subcommand too.

    ``hierdoc serve --config agent.yaml --tool NAME`` then works as well as
    ``hierdoc --config agent.yaml --tool NAME serve``; given after the subcommand, they
    override the group's. They write into the group's :class:`State` (``ctx.obj``).
    """
    options = [
        click.option(
            "--index",
            expose_value=False,
            callback=_setter("index_option"),
            help="Index directory [default: ./.hierdoc].",
        ),
        click.option(
            "--config",
            type=click.Path(dir_okay=False),
            expose_value=False,
            callback=_setter("config", Path),
            help="YAML config or HoloDeck agent file.",
        ),
        click.option(
            "--tool",
            expose_value=False,
            callback=_setter("tool"),
            help="The hierarchical_document tool to use from an agent file.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command
