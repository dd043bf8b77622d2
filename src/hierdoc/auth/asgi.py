"""Authentication for any ASGI app: :func:`protect` wraps it, :func:`access_of` reads who asked.

The pieces are the MCP SDK's own (``BearerAuthBackend``, ``AuthContextMiddleware``,
``RequireAuthMiddleware``), so a web page answers as the MCP endpoint does: a request
without a valid ``Authorization: Bearer`` token gets ``401`` with ``WWW-Authenticate:
Bearer error="invalid_token"`` (and ``resource_metadata="..."`` when given) and no body
beyond the error. A handler then serves the caller's view of the index::

    from hierdoc.auth import IndexViews, protect, verifier_from

    verifier = verifier_from(settings)            # None when auth is not configured
    views = IndexViews(index)
    app = protect(starlette_app, verifier)        # every route behind a bearer token

    async def page(request):
        index = views.for_request(request.scope)  # only the token's documents
        ...
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
from mcp.server.auth.middleware.bearer_auth import (
    AuthenticatedUser,
    BearerAuthBackend,
    RequireAuthMiddleware,
)
from mcp.server.auth.provider import TokenVerifier
from pydantic import AnyHttpUrl
from starlette.middleware.authentication import AuthenticationMiddleware

from ..config import Settings
from ..errors import InputError
from ..search.scoped import DocumentScope
from .verifier import HierdocTokenVerifier, ScopedAccessToken

if TYPE_CHECKING:
    from ..api import Index

T = TypeVar("T")


def verifier_from(settings: Settings) -> HierdocTokenVerifier | None:
    """The verifier of ``settings.auth``, or None when no token or issuer is configured."""
    if settings.auth is None or not settings.auth.configured:
        return None
    return HierdocTokenVerifier(settings.auth)


def protect(app: Any, verifier: TokenVerifier, resource_metadata_url: str | None = None) -> Any:
    """``app`` behind bearer-token authentication: each request's token is verified, the
    access it gives is in the ASGI scope (``scope["user"].access_token``) and in the SDK's
    ``get_access_token()``, and a request without one is answered 401."""
    metadata = AnyHttpUrl(resource_metadata_url) if resource_metadata_url else None
    required = RequireAuthMiddleware(app, [], metadata)
    guarded = AuthenticationMiddleware(
        AuthContextMiddleware(required), backend=BearerAuthBackend(verifier)
    )

    async def protected(scope: dict, receive: Any, send: Any) -> None:
        """HTTP and websocket requests pass the guard; lifespan events go to ``app``."""
        target = guarded if scope["type"] in ("http", "websocket") else app
        await target(scope, receive, send)

    return protected


def access_of(scope: Mapping[str, Any]) -> ScopedAccessToken | None:
    """The access of the request whose ASGI scope this is; None when it has no verified
    token (a server without authentication)."""
    user = scope.get("user")
    if isinstance(user, AuthenticatedUser) and isinstance(user.access_token, ScopedAccessToken):
        return user.access_token
    return None


class ScopeCache(Generic[T]):
    """What ``build`` makes of each document scope, kept for at most ``limit`` scopes (the
    least recently used dropped), so that a scope's view and look-ups are built once."""

    def __init__(self, build: Callable[[DocumentScope], T], limit: int = 256) -> None:
        self.build = build
        self.limit = limit
        self._made: OrderedDict[DocumentScope, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, scope: DocumentScope) -> T:
        with self._lock:
            made = self._made.pop(scope, None)
            if made is None:
                made = self.build(scope)
            self._made[scope] = made
            while len(self._made) > self.limit:
                self._made.popitem(last=False)
            return made


class IndexViews:
    """The view of the index each caller may see, kept per document scope
    (:class:`ScopeCache`). ``required``: a request with no verified token is refused
    (the server has authentication, so such a request reached here by mistake)."""

    def __init__(self, index: Index, required: bool = False, limit: int = 256) -> None:
        self.index = index
        self.required = required
        self._views: ScopeCache[Index] = ScopeCache(index.scoped, limit)

    def for_access(self, access: ScopedAccessToken | None) -> Index:
        if access is None:
            if self.required:
                raise InputError("this request carries no verified token")
            return self.index
        if access.documents is None:
            return self.index
        return self._views.get(access.documents)

    def for_request(self, scope: Mapping[str, Any]) -> Index:
        """The view for the request whose ASGI scope this is."""
        return self.for_access(access_of(scope))
