"""Who may read the index over HTTP, and which of its documents.

- :mod:`.tokens`: bearer tokens kept as SHA-256 hashes, checked in constant time;
- :mod:`.verifier`: the MCP SDK's ``TokenVerifier`` over those tokens and over JWTs of an
  external issuer, answering the documents each token may see;
- :mod:`.asgi`: :func:`protect` puts any ASGI app (the MCP endpoint, a web page) behind
  the verifier, :class:`IndexViews` gives each request its scoped view of the index
  (:meth:`hierdoc.api.Index.scoped`);
- :mod:`.sessions`: the web page's sign-in sessions, signed cookies that stand for a
  verified token.

Configured under ``auth:`` in the settings (:class:`hierdoc.config.AuthSettings`); see
docs/auth.md.
"""

from __future__ import annotations

from .asgi import IndexViews, ScopeCache, access_of, protect, verifier_from
from .sessions import Sessions
from .tokens import new_token, token_hash
from .verifier import HierdocTokenVerifier, ScopedAccessToken

__all__ = [
    "HierdocTokenVerifier",
    "IndexViews",
    "ScopeCache",
    "ScopedAccessToken",
    "Sessions",
    "access_of",
    "new_token",
    "protect",
    "token_hash",
    "verifier_from",
]
