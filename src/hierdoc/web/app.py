"""The Starlette application behind ``hierdoc serve --web`` and the server that runs it.

Every page is a GET; every error a page (400 for bad input, 404 for an unknown id or
document, 500 without a traceback for anything else). A request whose ``Host`` or
``Origin`` names another server is refused, with the MCP server's rules
(:func:`hierdoc.mcp.server.transport_security`)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import click
from jinja2 import Environment, PackageLoader, select_autoescape
from mcp.server.transport_security import TransportSecurityMiddleware
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..api import Index
from ..errors import HierdocError, NotFoundError
from ..mcp.server import transport_security
from . import pdf
from .listing_pages import documents_context, glossary_context, outline_context
from .page_view import indexed_source, page_context, pdf_file
from .paging import page_number
from .reader import Reader
from .search_page import SearchForm, search_context
from .section_page import section_context

logger = logging.getLogger(__name__)

SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; img-src 'self'; style-src 'self'; "
    "script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}

PageBuilder = Callable[[Reader, dict[str, str]], dict[str, Any]]


def templates() -> Environment:
    environment = Environment(
        loader=PackageLoader("hierdoc.web", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return environment


class HostCheck:
    """ASGI middleware: refuse a foreign Host or Origin header (DNS rebinding) with the MCP
    server's rules, and add the security headers to every response."""

    def __init__(self, app: ASGIApp, host: str, allowed_hosts: Sequence[str]) -> None:
        self.app = app
        self.check = TransportSecurityMiddleware(transport_security(host, allowed_hosts))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).update(SECURITY_HEADERS)
            await send(message)

        refused = await self.check.validate_request(Request(scope))
        await (refused or self.app)(scope, receive, secured)


class Pages:
    """The endpoints: each builds its page's context from the request and renders it, or
    renders the error page (bad input 400, an unknown name 404, anything else 500)."""

    def __init__(self, index: Index) -> None:
        self.reader = Reader(index)
        self.environment = templates()
        self.environment.globals["index_name"] = str(index.settings.name or index.directory.name)

    def render(self, template: str, context: dict[str, Any], status: int = 200) -> HTMLResponse:
        html = self.environment.get_template(template).render(**context)
        return HTMLResponse(html, status_code=status)

    def error_page(self, status: int, title: str, message: str) -> HTMLResponse:
        return self.render("error.html", {"title": title, "message": message}, status)

    def guarded(self, request: Request, respond: Callable[[], Response]) -> Response:
        try:
            return respond()
        except NotFoundError as error:
            return self.error_page(404, "Not found", str(error))
        except HierdocError as error:
            return self.error_page(400, "Bad request", str(error))
        except Exception:
            logger.exception("the page %s failed", request.url.path)
            message = "the page could not be made; the server's log says why"
            return self.error_page(500, "Server error", message)

    def page(self, template: str, build: PageBuilder) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            params = dict(request.query_params)
            return self.guarded(request, lambda: self.render(template, build(self.reader, params)))

        return endpoint

    def page_png(self, request: Request) -> Response:
        def respond() -> Response:
            params = request.query_params
            source = indexed_source(self.reader, params.get("doc", ""))
            path = pdf_file(self.reader, source)
            if path is None:
                raise NotFoundError(f"no PDF file for {self.reader.display_name(source)!r}")
            image = pdf.render_png(path, page_number(params.get("page")))
            return Response(image, media_type="image/png", headers={"cache-control": "max-age=60"})

        return self.guarded(request, respond)

    async def http_error(self, request: Request, error: Exception) -> Response:
        status = getattr(error, "status_code", 500)
        detail = "no such page" if status == 404 else str(getattr(error, "detail", ""))
        return self.error_page(status, f"Error {status}", detail)


def search(reader: Reader, params: dict[str, str]) -> dict[str, Any]:
    return search_context(reader, SearchForm.from_params(params))


def build_app(
    index: Index, host: str = "127.0.0.1", allowed_hosts: Sequence[str] = ()
) -> Starlette:
    """The web page over ``index`` (opened for reading: the page never writes), checking
    Host and Origin as a server bound to ``host`` (with ``allowed_hosts``) must."""
    pages = Pages(index)
    routes = [
        Route("/", pages.page("search.html", search)),
        Route("/section", pages.page("section.html", section_context)),
        Route("/page", pages.page("page.html", page_context)),
        Route("/page.png", pages.page_png),
        Route("/glossary", pages.page("glossary.html", glossary_context)),
        Route("/documents", pages.page("documents.html", documents_context)),
        Route("/outline", pages.page("outline.html", outline_context)),
        Mount("/static", StaticFiles(packages=[("hierdoc.web", "static")]), name="static"),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(HostCheck, host=host, allowed_hosts=allowed_hosts)],
        exception_handlers={HTTPException: pages.http_error},
    )


def serve_web(
    index: Index,
    address: tuple[str, int],
    log_level: str = "warning",
    allowed_hosts: Sequence[str] = (),
) -> None:
    """Serve the web page until the process is interrupted."""
    import uvicorn

    from ..mcp.server import warm_up

    host, port = address
    warm_up(index)
    app = build_app(index, host, allowed_hosts)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"hierdoc: serving {index.directory.resolve()} at http://{shown}:{port}/", err=True)
    uvicorn.run(app, host=host, port=port, log_level=log_level)
