"""The MCP adapter: the agent tools of :mod:`hierdoc.tools` served over stdio or streamable HTTP.

:class:`HierdocMCP` lists the tools of :mod:`hierdoc.tools.catalogue` (read-only, with
their argument and result schemas) and runs :mod:`hierdoc.tools.logic` in a worker
thread; each result carries the structured content and the cited text rendering. Every
:class:`hierdoc.errors.HierdocError` becomes one error line for the client, and a
failing call is an error result, never a dead server.

Transport safety: HTTP binds to loopback unless ``--allow-remote`` is given, and on every
address foreign ``Host`` and ``Origin`` headers are refused (DNS rebinding; see
:func:`transport_security`). With ``auth:`` configured, every HTTP request needs a bearer
token (:mod:`hierdoc.auth`; the MCP SDK's verifier wiring answers 401 with
``WWW-Authenticate``), and each tool call runs over the view of the index its token may
see (:class:`hierdoc.auth.IndexViews`); ``--allow-remote`` without a token refuses to
start unless ``--no-auth`` says so. Malformed traffic is answered, never dropped or
crashed on: a stdio line that is not a JSON-RPC message gets a JSON-RPC error
(:func:`checked_stdio`), an HTTP body that is not UTF-8 JSON a 400 (:class:`BodyGuard`).
``initialize`` is answered at once; the query model loads in the background and the first
tool call waits for it.
``hierdoc serve`` (:mod:`hierdoc.cli.serve`) parses the options and calls
:func:`serve_index`; ``python -m hierdoc.mcp.server`` is the same command.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import os
import socket
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from io import TextIOWrapper
from typing import Any

import anyio
import anyio.to_thread
import click
from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings as SDKAuthSettings
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    JSONRPCMessage,
    TextContent,
    ToolAnnotations,
)
from mcp.types import Tool as MCPTool
from pydantic import ValidationError

from ..api import Index
from ..auth import IndexViews, verifier_from
from ..config import AuthSettings, Settings
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
        self.views = IndexViews(index, required=kwargs.get("token_verifier") is not None)
        self.specs: dict[str, ToolSpec] = tool_specs(settings)
        self._ready = threading.Event()
        self._ready.set()

    def warm_up_in_background(self) -> None:
        """Load the query model and glossary in a thread; tool calls wait until it is done,
        so that ``initialize`` is answered at once (a client may give it only seconds)."""
        self._ready.clear()
        threading.Thread(target=self._warm_up, name="hierdoc-warm-up", daemon=True).start()

    def _warm_up(self) -> None:
        try:
            warm_up(self.index)
        finally:
            self._ready.set()

    async def run_stdio_async(self) -> None:
        """Serve over stdio, answering every line that is not a JSON-RPC message with a
        JSON-RPC error (:func:`checked_stdio`), and warming up once the channel is open."""
        async with checked_stdio() as (read_stream, write_stream):
            self.warm_up_in_background()
            await self._mcp_server.run(
                read_stream, write_stream, self._mcp_server.create_initialization_options()
            )

    def streamable_http_app(self) -> Any:
        """The HTTP app behind :class:`BodyGuard`: a body that is not UTF-8 JSON is a 400."""
        return BodyGuard(super().streamable_http_app())

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
        if not self._ready.is_set():
            await anyio.to_thread.run_sync(self._ready.wait)
        try:
            checked = spec.validate(arguments)
            run, index = RUNNERS[name], self._caller_index()
            return _result(await anyio.to_thread.run_sync(lambda: run(index, **checked)))
        except HierdocError as error:
            raise ToolError(f"Error executing tool {name}: {error}") from None
        except Exception as error:
            logger.exception("tool %s failed", name)
            raise ToolError(f"Error executing tool {name}: {error}") from error

    def _caller_index(self) -> Index:
        """The view of the index the caller's token may see (the whole index over stdio or
        an HTTP server without authentication)."""
        request = self._mcp_server.request_context.request
        return self.views.for_request(getattr(request, "scope", None) or {})


def build_server(
    index: Index,
    settings: Settings | None = None,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "WARNING",
    allowed_hosts: Sequence[str] = (),
    authenticate: bool = True,
) -> HierdocMCP:
    """An MCP server over ``index``; ``host``/``port`` are used by the HTTP transport only.
    Its HTTP endpoint needs a bearer token when ``settings.auth`` has any, unless not
    ``authenticate`` (``--no-auth``)."""
    settings = settings or index.settings
    instructions = INSTRUCTIONS
    if settings.description:
        instructions += f"\n\nThis index: {settings.description.strip()}"
    verifier = verifier_from(settings) if authenticate else None
    return HierdocMCP(
        index,
        settings,
        name=settings.name or SERVER_NAME,
        instructions=instructions,
        host=host,
        port=port,
        log_level=log_level.upper(),
        transport_security=transport_security(host, allowed_hosts),
        **auth_options(verifier, settings.auth, host, port),
    )


def auth_options(
    verifier: TokenVerifier | None, auth: AuthSettings | None, host: str, port: int
) -> dict[str, Any]:
    """FastMCP's auth arguments: the verifier, and the SDK's settings. With a JWT issuer
    and ``resource_url``, the server publishes its protected resource metadata (RFC 9728)
    naming the issuer, and a 401 points to it; bearer tokens alone have no issuer to name.
    """
    if verifier is None or auth is None:
        return {}
    shown = f"[{host}]" if ":" in host else host
    issuer = auth.jwt.issuer if auth.jwt else f"http://{shown}:{port}"
    resource = auth.resource_url if auth.jwt else None
    sdk = SDKAuthSettings(
        issuer_url=issuer, resource_server_url=resource, validate_token_resource=False
    )
    return {"token_verifier": verifier, "auth": sdk}


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


# -- malformed traffic ----------------------------------------------------------------------


def error_line(code: int, message: str, request_id: Any = None) -> str:
    """A JSON-RPC error response (``id`` null when the request's id cannot be read)."""
    error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(error)


def load_json(data: str | bytes) -> tuple[Any, str | None]:
    """The JSON value of ``data``, or the parse error to answer (not UTF-8, not JSON, or
    nested too deep for Python's parser: a RecursionError, never a crash)."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return json.loads(text), None
    except (ValueError, RecursionError) as error:
        reason = "nested too deeply" if isinstance(error, RecursionError) else "not UTF-8 JSON"
        return None, error_line(PARSE_ERROR, f"Parse error: the message is {reason}")


def parse_line(line: str | bytes) -> tuple[JSONRPCMessage | None, str | None]:
    """One line of the stdio channel (or one HTTP body) as a message, or the error to answer.

    Invalid JSON (or JSON nested too deep to read) is a parse error; JSON that is not a
    JSON-RPC message (``{}``, ``[]``, ``null``, a request without a method) is an invalid
    request, with the request's id when it has a usable one.
    """
    raw, error = load_json(line)
    if error is not None:
        return None, error
    if not isinstance(raw, dict):
        return None, error_line(INVALID_REQUEST, "Invalid Request: a message is a JSON object")
    try:
        return JSONRPCMessage.model_validate(raw), None
    except (ValidationError, RecursionError):
        request_id = raw.get("id")
        usable = isinstance(request_id, (str, int)) and not isinstance(request_id, bool)
        message = "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
        return None, error_line(INVALID_REQUEST, message, request_id if usable else None)


@asynccontextmanager
async def checked_stdio() -> AsyncIterator[tuple[Any, Any]]:
    """The stdio transport of ``mcp.server.stdio``, but a line that is not a message gets a
    JSON-RPC error instead of being dropped, and only this transport writes to the real
    stdout: file descriptor 1 is pointed at stderr, so that stray output (a library's
    print) cannot corrupt the channel."""
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    stdout = anyio.wrap_file(TextIOWrapper(channel, encoding="utf-8", write_through=True))
    to_session, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, from_session = anyio.create_memory_object_stream[SessionMessage](0)
    lock = anyio.Lock()

    async def emit(line: str) -> None:
        async with lock:
            await stdout.write(line + "\n")
            await stdout.flush()

    async def read_lines() -> None:
        async with to_session:
            async for line in stdin:
                if not line.strip():
                    continue
                message, error = parse_line(line)
                if error is not None:
                    await emit(error)
                elif message is not None:
                    await to_session.send(SessionMessage(message))

    async def write_messages() -> None:
        async with from_session:
            async for item in from_session:
                await emit(item.message.model_dump_json(by_alias=True, exclude_none=True))

    async with anyio.create_task_group() as group:
        group.start_soon(read_lines)
        group.start_soon(write_messages)
        yield read_stream, write_stream


ASGIApp = Callable[[dict, Callable[[], Awaitable[dict]], Callable[[dict], Awaitable[None]]],
                   Awaitable[None]]  # fmt: skip


class BodyGuard:
    """ASGI middleware: a POST body that is not UTF-8 JSON (or is nested too deep to read)
    is answered 400 with a JSON-RPC parse error, before the MCP library, which answers such
    bodies 500 and logs a traceback. Other requests pass through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        body, more = b"", True
        while more:
            event = await receive()
            if event["type"] == "http.disconnect":
                return
            body += event.get("body", b"")
            more = event.get("more_body", False)
        _, error = load_json(body) if body else (None, None)
        if error is not None:
            await _send_json(send, 400, error)
            return
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


async def _send_json(send: Any, status: int, text: str) -> None:
    payload = text.encode("utf-8")
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(payload))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


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
    """Refuse a non-loopback address unless asked explicitly (``--allow-remote``)."""
    if is_loopback(host) or allow_remote:
        return
    raise click.BadParameter(
        f"refusing to serve on {host}: it is not a loopback address, so anyone who can reach "
        "this machine could reach the server. Use 127.0.0.1, or add --allow-remote (with "
        "tokens configured under auth:, see docs/auth.md) if that is what you want.",
        param_hint="'--http'",
    )


def check_auth(host: str, authenticated: bool, no_auth: bool) -> None:
    """Refuse a non-loopback address without authentication unless ``--no-auth`` says so;
    warn when serving so."""
    if is_loopback(host) or authenticated:
        return
    if not no_auth:
        raise click.UsageError(
            f"refusing to serve on {host} without authentication: configure tokens under "
            "auth: (hierdoc token prints one; see docs/auth.md), or add --no-auth to let "
            "anyone who can reach the port read every document"
        )
    click.echo(f"warning: serving on {host} without authentication (--no-auth)", err=True)


def http_address(
    text: str, allow_remote: bool, authenticated: bool = False, no_auth: bool = False
) -> tuple[str, int]:
    """The ``--http`` option checked: a usage error for a malformed or unsafe address, or
    a remote one without authentication (unless ``no_auth``)."""
    try:
        address = parse_http_address(text)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="'--http'") from None
    check_bind(address[0], allow_remote)
    check_auth(address[0], authenticated, no_auth)
    return address


# -- serving ------------------------------------------------------------------------------


def warm_up(index: Index) -> None:
    """Load the query model (numpy for the bundled model: no torch) and the glossary, with any
    stray output sent to stderr. The server runs it in the background
    (:meth:`HierdocMCP.warm_up_in_background`) and tool calls wait for it.

    A missing model is not fatal: keyword and exact searches still work, and a semantic
    search says what to install.
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
    authenticate: bool = True,
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
                          allowed_hosts=allowed_hosts, authenticate=authenticate)  # fmt: skip
    server.warm_up_in_background()
    logging.getLogger("mcp.server.streamable_http").addFilter(_quiet_disconnects)
    shown = f"[{host}]" if ":" in host else host
    guarded = "" if server.views.required else " without authentication"
    click.echo(f"{serving} at http://{shown}:{port}/mcp{guarded}", err=True)
    anyio.run(server.run_streamable_http_async)


def _quiet_disconnects(record: logging.LogRecord) -> bool:
    """Drop the traceback mcp 1.x logs as an error when an HTTP client simply disconnects."""
    error = record.exc_info[1] if record.exc_info else None
    return not isinstance(error, anyio.ClosedResourceError)
