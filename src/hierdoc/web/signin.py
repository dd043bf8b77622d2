"""Who may read the web page: the tokens of ``auth:``, by sign-in cookie or bearer header.

:class:`SignInRequired` stands before every route. A request carries its token as
``Authorization: Bearer TOKEN`` (programs) or as the session cookie that the sign-in page
sets (people; :class:`hierdoc.auth.Sessions`). Its access goes into the ASGI scope as
the MCP SDK's bearer middleware puts it (``scope["user"]``), so that each page reads the
token's own view of the index. A request without valid access gets nothing of the
index: a browser asking for a page is sent to the sign-in page, anything else gets
``401`` with ``WWW-Authenticate``. Only the sign-in page and the static assets (style,
script, icon: no indexed text) are served to a request without a token.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from starlette.authentication import AuthCredentials
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..auth import Sessions
from ..auth.sessions import COOKIE
from ..auth.verifier import ScopedAccessToken
from .reader import url

logger = logging.getLogger(__name__)

SIGN_IN = "/signin"
SIGN_OUT = "/signout"
OPEN_PREFIXES = ("/static/",)
"""Served without a token besides the sign-in page: assets that hold no indexed text."""

MAX_TOKEN_CHARS = 8192
MAX_FORM_BYTES = 4 * MAX_TOKEN_CHARS
CHALLENGE = 'Bearer error="invalid_token", error_description="Authentication required"'


def unauthorized(description: str = "Authentication required") -> Response:
    """The MCP endpoint's answer to a request without a valid token, as text."""
    challenge = f'Bearer error="invalid_token", error_description="{description}"'
    return PlainTextResponse(
        f"401 Unauthorized: {description.lower()}; send Authorization: Bearer TOKEN",
        status_code=401,
        headers={"www-authenticate": challenge, "cache-control": "no-store"},
    )


def wants_page(request: Request) -> bool:
    """A browser navigating (a GET that accepts HTML), rather than a program."""
    return request.method in ("GET", "HEAD") and "text/html" in request.headers.get("accept", "")


def local_target(value: str | None) -> str:
    """``value`` when it is a path on this server (where to go after signing in), else
    ``/``: never another site (an open redirect)."""
    if not value or not value.startswith("/") or value.startswith(("//", "/\\")):
        return "/"
    if any(c in value for c in "\r\n\\") or urlsplit(value).netloc:
        return "/"
    return value


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer`` header ("" for another scheme)."""
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


class SignInRequired:
    """ASGI middleware: the request's access from its bearer token or session cookie, in
    ``scope["user"]``; without one, the sign-in page (browsers) or 401 (anything else)."""

    def __init__(self, app: ASGIApp, sessions: Sessions) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        token = bearer_token(request)
        if token is not None:
            access = await self.sessions.verifier.verify_token(token) if token else None
            if access is None:
                await unauthorized("Invalid token")(scope, receive, send)
                return
        else:
            access = self._session(request)
        path = scope["path"]
        if access is not None:
            scope["user"] = AuthenticatedUser(access)
            scope["auth"] = AuthCredentials(access.scopes)
            await self.app(scope, receive, _private(send, path))
        elif path in (SIGN_IN, SIGN_OUT) or path.startswith(OPEN_PREFIXES):
            await self.app(scope, receive, send)
        else:
            await self._refuse(request)(scope, receive, send)

    def _session(self, request: Request) -> ScopedAccessToken | None:
        cookie = request.cookies.get(COOKIE)
        return self.sessions.resume(cookie) if cookie else None

    def _refuse(self, request: Request) -> Response:
        if not wants_page(request):
            return unauthorized()
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        ended = COOKIE in request.cookies
        answer = RedirectResponse(
            url(SIGN_IN, next=target if target != "/" else None, ended="1" if ended else None),
            status_code=303,
            headers={"cache-control": "no-store"},
        )
        if ended:
            forget(answer, request)
        return answer


def _private(send: Send, path: str) -> Send:
    """``send`` with every response of a signed-in request kept out of shared caches and
    the browser's store (it holds what the token may read); static assets excepted."""
    if path.startswith(OPEN_PREFIXES):
        return send

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            headers["cache-control"] = "private, no-store"
            headers["vary"] = "Authorization, Cookie"
        await send(message)

    return sending


def remember(response: Response, request: Request, value: str, seconds: int) -> None:
    """Set the session cookie: signed, HttpOnly, SameSite=Strict, Secure over https."""
    response.set_cookie(
        COOKIE, value, max_age=seconds, path="/", httponly=True, samesite="strict",
        secure=request.url.scheme == "https",
    )  # fmt: skip


def forget(response: Response, request: Request) -> None:
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="strict", secure=request.url.scheme == "https"
    )


def same_origin(request: Request) -> bool:
    """A form posted from this server's own pages, so that another site cannot sign a
    visitor in or out: its ``Origin`` names this very host and port. A request without
    ``Origin`` passes unless ``Sec-Fetch-Site`` says a browser sent it from elsewhere (a
    program that sends neither is not a browser to protect)."""
    origin = request.headers.get("origin")
    if origin is None:
        return request.headers.get("sec-fetch-site") in (None, "same-origin")
    return urlsplit(origin).netloc == request.headers.get("host", "")


Render = Callable[[Request, str, dict[str, Any], int], Response]


class SignInPages:
    """``/signin`` (the form, and its POST) and ``/signout``."""

    def __init__(self, sessions: Sessions, render: Render) -> None:
        self.sessions = sessions
        self.render = render

    def form(
        self, request: Request, target: str | None = None, message: str = "", status: int = 200
    ) -> Response:
        params = request.query_params
        if not message and params.get("ended"):
            message = "The session has ended: sign in again."
        context = {"next": local_target(target or params.get("next")), "message": message}
        return self.render(request, "signin.html", context, status)

    async def sign_in(self, request: Request) -> Response:
        if request.method != "POST":
            return self.form(request)
        if not same_origin(request):
            return PlainTextResponse("sign in from this server's own page", status_code=403)
        length = request.headers.get("content-length", "")
        if not length.isdigit() or int(length) > MAX_FORM_BYTES:
            return PlainTextResponse(
                f"the sign-in form takes a Content-Length of at most {MAX_FORM_BYTES} bytes",
                status_code=413,
            )
        fields = await request.form(max_files=0, max_fields=4)
        token = str(fields.get("token") or "")
        target = local_target(str(fields.get("next") or "/"))
        signed = await self.sessions.sign_in(token) if 0 < len(token) <= MAX_TOKEN_CHARS else None
        if signed is None:
            logger.info("web sign-in refused")
            message = "That token is not accepted: check it is whole and still valid."
            return self.form(request, target, message, 401)
        access, value, seconds = signed
        logger.info("web sign-in: %s", access.client_id)
        answer = RedirectResponse(target, status_code=303)
        remember(answer, request, value, seconds)
        return answer

    async def sign_out(self, request: Request) -> Response:
        if not same_origin(request):
            return PlainTextResponse("sign out from this server's own page", status_code=403)
        answer = RedirectResponse(SIGN_IN, status_code=303)
        forget(answer, request)
        return answer
