"""The Starlette application behind ``hierdoc serve --web`` and the server that runs it.

Every page is a GET (signing in and out are POSTs); every error a page (400 for bad
input, 404 for an unknown id or document, 500 without a traceback for anything else). A
request whose ``Host`` or ``Origin`` names another server is refused, with the MCP
server's rules (:func:`hierdoc.mcp.server.transport_security`). With authentication,
each request needs a token (:mod:`.signin`) and reads only its documents."""

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
from ..auth import ScopeCache, Sessions, access_of
from ..errors import HierdocError, InputError, NotFoundError
from ..mcp.server import transport_security
from . import pdf
from .listing_pages import documents_context, glossary_context, outline_context
from .page_view import indexed_source, page_context, pdf_file
from .paging import page_number
from .reader import Reader
from .search_page import SearchForm, search_context
from .section_page import section_context
from .signin import SIGN_IN, SIGN_OUT, SignInPages, SignInRequired

logger = logging.getLogger(__name__)

SECURITY_HEADERS = {
    "content-security-policy": "default-src 'self'; img-src 'self'; style-src 'self'; "
    "script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",  # never to another site; a form's Origin is sent
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
    renders the error page (bad input 400, an unknown name 404, anything else 500).

    Each request reads the index through the view its token may see (``required``: the
    server has authentication, and a request without a verified token reads nothing)."""

    def __init__(self, index: Index, required: bool = False) -> None:
        self.reader = Reader(index)
        self.required = required
        self.readers: ScopeCache[Reader] = ScopeCache(lambda scope: Reader(index.scoped(scope)))
        self.environment = templates()
        self.environment.globals["index_name"] = str(index.settings.name or index.directory.name)
        self.environment.globals["authenticated"] = required

    def reader_for(self, request: Request) -> Reader:
        """The reader of the documents the request's token may see."""
        access = access_of(request.scope)
        if access is None:
            if self.required:
                raise InputError("this request carries no verified token")
            return self.reader
        return self.reader if access.documents is None else self.readers.get(access.documents)

    def render(
        self, request: Request, template: str, context: dict[str, Any], status: int = 200
    ) -> HTMLResponse:
        access = access_of(request.scope)
        viewer = access.client_id if access is not None else None
        html = self.environment.get_template(template).render(**context, viewer=viewer)
        return HTMLResponse(html, status_code=status)

    def error_page(self, request: Request, status: int, title: str, message: str) -> HTMLResponse:
        return self.render(request, "error.html", {"title": title, "message": message}, status)

    def guarded(self, request: Request, respond: Callable[[Reader], Response]) -> Response:
        try:
            return respond(self.reader_for(request))
        except NotFoundError as error:
            return self.error_page(request, 404, "Not found", str(error))
        except HierdocError as error:
            return self.error_page(request, 400, "Bad request", str(error))
        except Exception:
            logger.exception("the page %s failed", request.url.path)
            message = "the page could not be made; the server's log says why"
            return self.error_page(request, 500, "Server error", message)

    def page(self, template: str, build: PageBuilder) -> Callable[[Request], Response]:
        def endpoint(request: Request) -> Response:
            params = dict(request.query_params)
            return self.guarded(
                request, lambda reader: self.render(request, template, build(reader, params))
            )

        return endpoint

    def page_png(self, request: Request) -> Response:
        def respond(reader: Reader) -> Response:
            params = request.query_params
            source = indexed_source(reader, params.get("doc", ""))
            path = pdf_file(reader, source)
            if path is None:
                raise NotFoundError(f"no PDF file for {reader.display_name(source)!r}")
            image = pdf.render_png(path, page_number(params.get("page")))
            return Response(image, media_type="image/png", headers={"cache-control": "max-age=60"})

        return self.guarded(request, respond)

    async def http_error(self, request: Request, error: Exception) -> Response:
        status = getattr(error, "status_code", 500)
        detail = "no such page" if status == 404 else str(getattr(error, "detail", ""))
        return self.error_page(request, status, f"Error {status}", detail)


def search(reader: Reader, params: dict[str, str]) -> dict[str, Any]:
    return search_context(reader, SearchForm.from_params(params))


def build_app(
    index: Index,
    host: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    sessions: Sessions | None = None,
) -> Starlette:
    """The web page over ``index`` (opened for reading: the page never writes), checking
    Host and Origin as a server bound to ``host`` (with ``allowed_hosts``) must. With
    ``sessions``, every page needs a token of their verifier (:mod:`.signin`) and shows
    only the documents that token may see."""
    pages = Pages(index, required=sessions is not None)
    middleware = [Middleware(HostCheck, host=host, allowed_hosts=allowed_hosts)]
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
    if sessions is not None:
        signing = SignInPages(sessions, pages.render)
        routes += [
            Route(SIGN_IN, signing.sign_in, methods=["GET", "POST"]),
            Route(SIGN_OUT, signing.sign_out, methods=["POST"]),
        ]
        middleware.append(Middleware(SignInRequired, sessions=sessions))
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={HTTPException: pages.http_error},
    )


def serve_web(
    index: Index,
    address: tuple[str, int],
    log_level: str = "warning",
    allowed_hosts: Sequence[str] = (),
    sessions: Sessions | None = None,
) -> None:
    """Serve the web page until the process is interrupted (behind sign-in with
    ``sessions``)."""
    import uvicorn

    from ..mcp.server import warm_up

    host, port = address
    warm_up(index)
    app = build_app(index, host, allowed_hosts, sessions)
    shown = f"[{host}]" if ":" in host else host
    guarded = " (sign-in with a token of auth:)" if sessions else " without authentication"
    click.echo(
        f"hierdoc: serving {index.directory.resolve()} at http://{shown}:{port}/{guarded}",
        err=True,
    )
    if sessions is not None and sessions.key_generated:
        click.echo(
            "hierdoc: sessions are signed with a key made for this process (they end when it "
            "stops); set auth.session_key to keep them across restarts and servers",
            err=True,
        )
    uvicorn.run(app, host=host, port=port, log_level=log_level)
