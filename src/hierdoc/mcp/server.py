"""The MCP adapter: the agent tools of :mod:`hierdoc.tools` served over stdio or streamable HTTP.

:class:`HierdocMCP` lists the tools of :mod:`hierdoc.tools.catalogue` (read-only, with
their argument and result schemas) and runs :mod:`hierdoc.tools.logic` in a worker
thread; each result carries the structured content and the cited text rendering. Every
:class:`hierdoc.errors.HierdocError` becomes one error line for the client, and a
failing call is an error result, never a dead server.

Transport safety: HTTP binds to loopback unless ``--allow-remote`` is given, and on every
address foreign ``Host`` and ``Origin`` headers are refused (DNS rebinding; see
:func:`transport_security`).
``hierdoc serve`` (:mod:`hierdoc.cli.serve`) parses the options and calls
:func:`serve_index`; ``python -m hierdoc.mcp.server`` is the same command.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import socket
import sys
from collections.abc import Sequence
from typing import Any

import anyio
import anyio.to_thread
import click
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from mcp.types import Tool as MCPTool

from ..api import Index
from ..cli import main as hierdoc
from ..config import Settings
from ..errors import HierdocError
from ..tools.catalogue import INSTRUCTIONS, ToolSpec, tool_specs
from ..tools.logic import RUNNERS, ToolOutput

logger = logging.getLogger(__name__)

SERVER_NAME = "hierdoc"
READ_ONLY = ToolAnnotations(
    readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False
)


def _result(output: ToolOutput) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=output.text)], structuredContent=output.structured
    )


class HierdocMCP(FastMCP):
    """FastMCP serving the tool catalogue over one index.

    Unknown tools and unknown argument names are rejected (a misspelt argument would
    otherwise be ignored), invalid values are described in one line per field, and tools
    run in a worker thread so that the event loop keeps serving other calls.
    """

    def __init__(self, index: Index, settings: Settings, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.index = index
        self.specs: dict[str, ToolSpec] = tool_specs(settings)

    async def list_tools(self) -> list[MCPTool]:
        return [
            MCPTool(
                name=spec.name,
                title=spec.title,
                description=spec.description,
                inputSchema=spec.parameters(),
                outputSchema=spec.output.model_json_schema(),
                annotations=READ_ONLY,
            )
            for spec in self.specs.values()
        ]

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        spec = self.specs.get(name)
        if spec is None:
            raise ToolError(f"unknown tool {name!r}; the tools are: {', '.join(self.specs)}")
        try:
            checked = spec.validate(arguments)
            run = RUNNERS[name]
            return _result(await anyio.to_thread.run_sync(lambda: run(self.index, **checked)))
        except HierdocError as error:
            raise ToolError(f"Error executing tool {name}: {error}") from None
        except Exception as error:
            logger.exception("tool %s failed", name)
            raise ToolError(f"Error executing tool {name}: {error}") from error


def build_server(
    index: Index,
    settings: Settings | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "WARNING",
    allowed_hosts: Sequence[str] = (),
) -> HierdocMCP:
    """An MCP server over ``index``; ``host``/``port`` are used by the HTTP transport only."""
    settings = settings or index.settings
    instructions = INSTRUCTIONS
    if settings.description:
        instructions += f"\n\nThis index: {settings.description.strip()}"
    return HierdocMCP(
        index,
        settings,
        name=settings.name or SERVER_NAME,
        instructions=instructions,
        host=host,
        port=port,
        log_level=log_level.upper(),
        transport_security=transport_security(host, allowed_hosts),
    )


LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
ANY_ADDRESS = ("0.0.0.0", "::", "")


def transport_security(host: str, extra_hosts: Sequence[str] = ()) -> TransportSecuritySettings:
    """DNS-rebinding protection for any bind address, not only the three FastMCP knows.

    A request is served only when its ``Host`` (and ``Origin``, when a browser sends one)
    names this server: the bound address, the loopback names, ``extra_hosts``
    (``--allow-host``) and, bound to every interface, this machine's name and addresses.
    """
    names = [*LOOPBACK_NAMES, *extra_hosts]
    if host in ANY_ADDRESS:
        names += _machine_names()
    else:
        names.append(f"[{host}]" if ":" in host else host)
    names = list(dict.fromkeys(names))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*names, *(f"{n}:*" for n in names)],
        allowed_origins=[f"{scheme}://{n}{port}" for scheme in ("http", "https")
                         for n in names for port in ("", ":*")],
    )  # fmt: skip


def _machine_names() -> list[str]:
    """This machine's host name and the addresses it resolves to."""
    name = socket.gethostname()
    try:
        addresses = socket.gethostbyname_ex(name)[2]
    except OSError:
        addresses = []
    return [name, *addresses]


# -- where to listen ------------------------------------------------------------------------


def parse_http_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[::1]:PORT``, ``:PORT`` or ``PORT`` (loopback) to (host, port)."""
    value = text.strip()
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif value.count(":") == 1:
        host, port_text = value.split(":")
    elif value.isdigit():
        host, port_text = "", value
    else:
        raise ValueError(f"expected HOST:PORT (e.g. 127.0.0.1:8765), got {text!r}")
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise ValueError(f"expected a port between 1 and 65535 in {text!r}")
    return host or "127.0.0.1", int(port_text)


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP address."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind(host: str, allow_remote: bool) -> None:
    """Refuse a non-loopback address unless asked explicitly: the server has no authentication."""
    if is_loopback(host) or allow_remote:
        return
    raise click.BadParameter(
        f"refusing to serve on {host}: it is not a loopback address, so anyone who can reach "
        "this machine could query the index (the MCP server has no authentication). "
        "Use 127.0.0.1, or add --allow-remote if that is what you want.",
        param_hint="'--http'",
    )


def http_address(text: str, allow_remote: bool) -> tuple[str, int]:
    """The ``--http`` option checked: a usage error for a malformed or unsafe address."""
    try:
        address = parse_http_address(text)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--http'") from None
    check_bind(address[0], allow_remote)
    if not is_loopback(address[0]):
        click.echo(
            f"warning: serving on {address[0]} without authentication (--allow-remote)", err=True
        )
    return address


# -- serving ------------------------------------------------------------------------------


def warm_up(index: Index) -> None:
    """Load the query model (numpy for the bundled model: no torch) and the glossary before
    serving, with any stray output sent to stderr.

    Stdout is the MCP channel on stdio; loading first also makes the first search fast. A
    missing model is not fatal: keyword and exact searches still work, and a semantic search
    says what to install.
    """
    with contextlib.redirect_stdout(sys.stderr):
        try:
            index.embed_query("warm up")
            index.glossary()
        except Exception as error:  # noqa: BLE001 - reported, and the server still starts
            click.echo(f"warning: semantic search unavailable: {error}", err=True)


def serve_index(
    index: Index,
    http: tuple[str, int] | None = None,
    log_level: str = "WARNING",
    allowed_hosts: Sequence[str] = (),
) -> None:
    """Serve until the client disconnects (stdio) or the process is interrupted (HTTP)."""
    serving = f"hierdoc: serving {index.directory.resolve()} "
    serving += f"({len(index.documents())} documents)"
    if http is None:
        server = build_server(index, log_level=log_level)
        click.echo(f"{serving} on stdio", err=True)
        anyio.run(server.run_stdio_async)
        return
    host, port = http
    server = build_server(index, host=host, port=port, log_level=log_level,
                          allowed_hosts=allowed_hosts)  # fmt: skip
    logging.getLogger("mcp.server.streamable_http").addFilter(_quiet_disconnects)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"{serving} at http://{shown}:{port}/mcp", err=True)
    anyio.run(server.run_streamable_http_async)


def _quiet_disconnects(record: logging.LogRecord) -> bool:
    """Drop the traceback mcp 1.x logs as an error when an HTTP client simply disconnects."""
    error = record.exc_info[1] if record.exc_info else None
    return not isinstance(error, anyio.ClosedResourceError)


def main(argv: list[str] | None = None) -> None:
    """``python -m hierdoc.mcp.server [OPTIONS]``: the same as ``hierdoc serve [OPTIONS]``."""
    hierdoc(["serve", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    main()
