"""The commands that give the index to agents: ``hierdoc serve``, ``hierdoc tool-schema``,
and ``hierdoc token`` (a bearer token for the HTTP server).

The MCP code (and the ``mcp`` library), the API and the tools are imported only when a
command runs.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, get_args

import click

from ..tools.names import TOOL_NAMES, SchemaFormat
from .state import State, index_options

if TYPE_CHECKING:
    from ..api import Index

WEB_ADDRESS = "127.0.0.1:8780"
"""Where ``hierdoc serve --web`` listens without ``--http``."""


def open_existing(state: State) -> Index:
    """Open an existing, non-empty index; never create one (a typo must not serve nothing).
    A database index needs no directory: the database says whether the index exists."""
    from ..api import Index

    settings = state.settings()
    directory = settings.index_dir(state.index_option)
    if settings.database_provider == "local" and not directory.is_dir():
        raise click.ClickException(
            f"no index at {directory}: build one first with: hierdoc --index {directory} "
            "ingest PATH (or pass --index, --config)"
        )
    index = Index.open(directory, settings, mode="r")
    if not index.documents():
        index.close()
        raise click.ClickException(
            f"the index at {directory} holds no documents: run hierdoc ingest first"
        )
    return index


@click.command("serve", context_settings={"help_option_names": ["-h", "--help"]})
@index_options
@click.option(
    "--http",
    metavar="HOST:PORT",
    help="Serve streamable HTTP at http://HOST:PORT/mcp instead of stdio (e.g. 127.0.0.1:8765).",
)
@click.option(
    "--web",
    is_flag=True,
    help="Serve the read-only web page (search, sections, pages, glossary) instead of MCP, "
    f"at --http's address or {WEB_ADDRESS}.",
)
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow --http on a non-loopback address (needs tokens under auth:, or --no-auth).",
)
@click.option(
    "--no-auth",
    is_flag=True,
    help="Serve HTTP without authentication, even remotely or with tokens configured.",
)
@click.option(
    "--allow-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="Also accept requests whose Host header is NAME (a DNS name clients use; repeatable).",
)
@click.option(
    "--log-level",
    type=click.Choice(["debug", "info", "warning", "error"]),
    default="warning",
    show_default=True,
    help="Server log level (on stderr).",
)
@click.pass_obj
def serve(
    state: State,
    http: str | None,
    web: bool,
    allow_remote: bool,
    no_auth: bool,
    allowed_hosts: tuple[str, ...],
    log_level: str,
) -> None:
    """Serve the index to agents over MCP (stdio by default, or streamable HTTP), or to
    people as a web page (--web).

    Tools: search, get_section, define, references, list_documents; all read-only. Over
    HTTP, with tokens configured under auth: (see hierdoc token), every request needs a
    bearer token and sees only the documents its token may see. The web page takes the
    same tokens, pasted into its sign-in page or sent as a bearer header, and shows each
    only its documents. Without tokens, either binds to loopback unless --allow-remote
    --no-auth.
    """
    from ..auth import verifier_from
    from ..mcp.server import http_address, serve_index

    if web:
        serve_web_page(state, http or WEB_ADDRESS, allow_remote, no_auth, allowed_hosts, log_level)
        return
    authenticated = not no_auth and verifier_from(state.settings()) is not None
    address = None if http is None else http_address(http, allow_remote, authenticated, no_auth)
    index = open_existing(state)
    try:
        serve_index(index, address, log_level, allowed_hosts, not no_auth)
    except KeyboardInterrupt:
        pass
    finally:
        index.close()


def serve_web_page(
    state: State,
    http: str,
    allow_remote: bool,
    no_auth: bool,
    allowed_hosts: tuple[str, ...],
    log_level: str,
) -> None:
    """``serve --web``: with tokens configured under auth: (and no --no-auth), every page
    needs one (signed in, or as a bearer header) and shows only its documents."""
    from ..auth import Sessions, verifier_from
    from ..mcp.server import http_address
    from ..web import serve_web

    verifier = None if no_auth else verifier_from(state.settings())
    address = http_address(http, allow_remote, verifier is not None, no_auth)
    sessions = Sessions.of(verifier) if verifier is not None else None
    index = open_existing(state)
    try:
        serve_web(index, address, log_level, allowed_hosts, sessions)
    except KeyboardInterrupt:
        pass
    finally:
        index.close()


@click.command("tool-schema")
@index_options
@click.option(
    "--format",
    "schema_format",
    type=click.Choice(get_args(SchemaFormat)),
    default="openai",
    show_default=True,
    help="openai: Chat Completions tools; anthropic: Messages API tools.",
)
@click.option(
    "--only",
    multiple=True,
    type=click.Choice(list(TOOL_NAMES)),
    help="Only this tool (repeatable).",
)
@click.pass_obj
def tool_schema(state: State, schema_format: SchemaFormat, only: tuple[str, ...]) -> None:
    """Print the tools as function-calling definitions (JSON) for OpenAI or Anthropic.

    Run the calls a model makes with hierdoc.tools.call_tool(index, name, arguments).
    """
    state.refuse("tool-schema", {"index": "the schema describes the tools, not an index"})
    from ..tools.agents import tool_definitions

    definitions = tool_definitions(schema_format, state.settings(), only or None)
    click.echo(json.dumps(definitions, indent=2, ensure_ascii=False))


@click.command("token")
@index_options
@click.option("--name", default="reader", show_default=True, help="The token's name (in logs).")
@click.option(
    "--source",
    "sources",
    multiple=True,
    metavar="NAME",
    help="Only this document (a file name or path suffix, as for search --source; repeatable).",
)
@click.option(
    "--where",
    "where_items",
    multiple=True,
    metavar="KEY=VALUE",
    help="Only documents whose metadata match (as for search --where; repeatable).",
)
@click.pass_obj
def token(state: State, name: str, sources: tuple[str, ...], where_items: tuple[str, ...]) -> None:
    """Print a new bearer token, and the auth: entry (its SHA-256) for the configuration.

    Give the token to the client (Authorization: Bearer TOKEN); keep only the entry in the
    configuration. The token is shown once: it cannot be read back from its hash.
    """
    state.refuse("token", {"index": "a token goes in the configuration, not in an index"})
    import yaml

    from ..auth import new_token
    from ..config import TokenEntry
    from ..search.where import parse_where

    secret, digest = new_token()
    entry = TokenEntry(name=name, sha256=digest, sources=list(sources),
                       where=parse_where(where_items))  # fmt: skip
    fields = entry.model_dump(exclude_defaults=True)
    ordered = {key: fields[key] for key in ("name", "sha256", "sources", "where") if key in fields}
    snippet = {"auth": {"tokens": [ordered]}}
    click.echo(f"token: {secret}")
    click.echo("# add to the configuration file (or HIERDOC_AUTH); the token itself stays out:")
    click.echo(yaml.safe_dump(snippet, sort_keys=False).rstrip())
