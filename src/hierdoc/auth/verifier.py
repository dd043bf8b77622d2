"""The token verifier of the MCP SDK's auth support, over hashed tokens and external JWTs.

:class:`HierdocTokenVerifier` implements :class:`mcp.server.auth.provider.TokenVerifier`:
``verify_token`` answers a :class:`ScopedAccessToken` (an ``AccessToken`` that carries
the documents the token may see) or None for a token it does not accept. The SDK's
``BearerAuthBackend`` calls it for each request; :mod:`hierdoc.auth.asgi` wires it in.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Literal

import anyio.to_thread
import jwt
from mcp.server.auth.provider import AccessToken
from pydantic import ConfigDict

from ..config import AuthSettings, DocumentsFilter, JWTSettings, TokenEntry
from ..errors import ConfigError
from ..search.scoped import DocumentFilter, DocumentScope
from .tokens import TokenTable, token_hash

logger = logging.getLogger(__name__)


class ScopedAccessToken(AccessToken):
    """An accepted token: ``client_id`` is its name (or the JWT's subject), ``token`` a
    hash of it (the token itself is not kept), ``documents`` what it may see (None: all)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    documents: DocumentScope | None = None
    issued_by: Literal["table", "jwt"] = "table"
    """Where the token came from: the configured table of hashes, or the JWT issuer."""


def document_scope(filters: list[DocumentsFilter]) -> DocumentScope | None:
    """The scope of the given filters (any of them), or None (every document) when one of
    them does not narrow."""
    if any(not f.sources and not f.where for f in filters):
        return None
    return DocumentScope(tuple(DocumentFilter.of(f.sources, f.where) for f in filters))


class JWTVerifier:
    """JWTs of one issuer, checked for signature, issuer, audience, expiry and scopes."""

    def __init__(self, settings: JWTSettings) -> None:
        self.settings = settings
        self._key: str | None = None
        self._keys: jwt.PyJWKClient | None = None
        if settings.jwks_url:
            self._keys = jwt.PyJWKClient(settings.jwks_url, cache_keys=True)
        elif settings.key_file:
            try:
                self._key = Path(settings.key_file).read_text(encoding="utf-8").strip()
            except OSError as error:
                raise ConfigError(
                    f"auth.jwt.key_file {settings.key_file}: {error.strerror}"
                ) from None

    def verify(self, token: str) -> ScopedAccessToken | None:
        """The token's access, or None when it is not a valid token of the issuer."""
        s = self.settings
        try:
            key: Any = self._key
            if self._keys is not None:
                key = self._keys.get_signing_key_from_jwt(token).key
            claims = jwt.decode(
                token,
                key,
                algorithms=s.algorithms,
                issuer=s.issuer,
                audience=s.audience,
                leeway=s.leeway,
                options={"require": ["exp", "iss"], "verify_aud": s.audience is not None},
            )
        except jwt.PyJWTError as error:
            logger.info("JWT refused: %s", type(error).__name__)
            return None
        subject = str(claims.get("sub") or claims.get("client_id") or "jwt")
        return self.access(
            ScopedAccessToken(
                token=token_hash(token),
                client_id=str(claims.get("client_id") or claims.get("azp") or subject),
                scopes=_scopes(claims),
                expires_at=int(claims["exp"]),
                subject=subject,
                claims={"iss": claims.get("iss")},
                issued_by="jwt",
            )
        )

    def access(self, token: ScopedAccessToken) -> ScopedAccessToken | None:
        """``token`` (a JWT's identity and scopes) with the documents its scopes grant now,
        or None when the issuer's scopes are mapped and none of its scopes is."""
        mapped = self.settings.scopes
        granted = [mapped[s] for s in token.scopes if s in mapped]
        if mapped and not granted:
            logger.info("JWT refused: none of its scopes grants documents")
            return None
        return token.model_copy(update={"documents": document_scope(granted) if granted else None})


def _scopes(claims: dict[str, Any]) -> list[str]:
    """OAuth scopes of a JWT: ``scope`` (space-separated, RFC 8693) or ``scp`` (a list)."""
    value = claims.get("scope", claims.get("scp", []))
    items = value.split() if isinstance(value, str) else value
    return [str(item) for item in items] if isinstance(items, list) else []


class HierdocTokenVerifier:
    """The tokens of ``auth:`` (hashed bearer tokens, and JWTs of ``auth.jwt``)."""

    def __init__(self, settings: AuthSettings) -> None:
        if not settings.configured:
            raise ConfigError("auth has no tokens and no jwt issuer: nobody could connect")
        self.settings = settings
        self.table = TokenTable(settings.tokens)
        self.jwt = JWTVerifier(settings.jwt) if settings.jwt else None

    def check(self, token: str) -> ScopedAccessToken | None:
        """The access ``token`` gives, or None (synchronous: a JWT key set may be fetched)."""
        entry = self.table.find(token) if len(self.table) else None
        if entry is not None:
            return _static_access(entry)
        if self.jwt is not None and token.count(".") == 2:
            return self.jwt.verify(token)
        return None

    async def verify_token(self, token: str) -> ScopedAccessToken | None:
        if self.jwt is not None and self.jwt.settings.jwks_url:
            return await anyio.to_thread.run_sync(self.check, token)
        return self.check(token)

    def recheck(self, access: ScopedAccessToken) -> ScopedAccessToken | None:
        """The access of a token verified earlier (a web session's), as the configuration
        gives it now: a hashed token whose entry is gone, or a JWT past its expiry or
        whose scopes no longer grant documents, gives none."""
        if access.issued_by == "table":
            entry = self.table.find_hash(access.token)
            return _static_access(entry) if entry is not None else None
        if self.jwt is None or access.expires_at is None or access.expires_at <= time.time():
            return None
        return self.jwt.access(access)


def _static_access(entry: TokenEntry) -> ScopedAccessToken:
    return ScopedAccessToken(
        token=entry.sha256.lower(),
        client_id=entry.name,
        scopes=[],
        documents=document_scope([entry]),
    )
