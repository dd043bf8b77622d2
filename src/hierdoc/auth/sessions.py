"""Sign-in sessions for a web page: a signed cookie that stands for a verified token.

A person pastes a token (a hashed one of ``auth.tokens`` or a JWT of ``auth.jwt``) into
the sign-in page; :meth:`Sessions.sign_in` verifies it as a bearer token is verified and
answers the value of a cookie that holds no token: the token's SHA-256 (which the token
table never takes for a token), its name and, for a JWT, its subject, scopes and expiry.
The value is a JWT signed with HS256 by the session key, with an audience of its own
(:data:`AUDIENCE`), so that it is never taken for a bearer token or an issuer's JWT, and
an expiry: ``auth.session_hours`` after sign-in, or the JWT's own ``exp`` when sooner.

:meth:`Sessions.resume` reads a cookie back and asks the verifier for the token's access
as the configuration gives it now (:meth:`HierdocTokenVerifier.recheck`), so a token
whose entry was removed, or a JWT past its expiry, ends its sessions. The key is
``auth.session_key``, or 32 random bytes made when the server starts: then a restart
ends every session, and servers behind one address need the key configured to share them.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import jwt

from .verifier import HierdocTokenVerifier, ScopedAccessToken

AUDIENCE = "hierdoc-web-session"
COOKIE = "hierdoc_session"
ALGORITHM = "HS256"


class Sessions:
    """Sessions of the tokens ``verifier`` accepts, signed with ``key`` (random when None)."""

    def __init__(
        self, verifier: HierdocTokenVerifier, key: str | None = None, hours: float = 8.0
    ) -> None:
        self.verifier = verifier
        self.key: str | bytes = key or secrets.token_bytes(32)
        self.key_generated = key is None
        self.lifetime = max(int(hours * 3600), 1)

    @classmethod
    def of(cls, verifier: HierdocTokenVerifier) -> Sessions:
        """Sessions as ``verifier``'s settings configure them (``auth.session_key``...)."""
        settings = verifier.settings
        return cls(verifier, settings.session_key, settings.session_hours)

    async def sign_in(self, token: str) -> tuple[ScopedAccessToken, str, int] | None:
        """The access ``token`` gives, the cookie value of its session and how many
        seconds it lasts; None for a token the verifier does not accept."""
        access = await self.verifier.verify_token(token.strip())
        if access is None:
            return None
        now = int(time.time())
        expires = now + self.lifetime
        if access.expires_at is not None:
            expires = min(expires, access.expires_at)
        if expires <= now:
            return None
        payload = {"aud": AUDIENCE, "iat": now, "exp": expires, **_identity(access)}
        return access, jwt.encode(payload, self.key, algorithm=ALGORITHM), expires - now

    def resume(self, cookie: str) -> ScopedAccessToken | None:
        """The access of the session whose cookie value this is, or None when the value
        is not one of this key's, has expired, or its token is no longer accepted."""
        try:
            payload = jwt.decode(
                cookie,
                self.key,
                algorithms=[ALGORITHM],
                audience=AUDIENCE,
                options={"require": ["exp", "aud", "by", "token", "name"]},
            )
            access = _access(payload)
        except (jwt.PyJWTError, ValueError, TypeError):
            return None
        return self.verifier.recheck(access)


def _identity(access: ScopedAccessToken) -> dict[str, Any]:
    """What a session keeps of ``access``: never the token, never the documents (they are
    worked out again from the configuration)."""
    kept: dict[str, Any] = {"by": access.issued_by, "token": access.token, "name": access.client_id}
    if access.issued_by == "jwt":
        kept.update(sub=access.subject, scopes=access.scopes, until=access.expires_at)
    return kept


def _access(payload: dict[str, Any]) -> ScopedAccessToken:
    """The identity a session kept (a malformed one is pydantic's ValueError)."""
    return ScopedAccessToken(
        token=str(payload["token"]),
        client_id=str(payload["name"]),
        scopes=[str(s) for s in payload.get("scopes") or []],
        expires_at=payload.get("until"),
        subject=payload.get("sub"),
        issued_by=payload["by"],
    )
