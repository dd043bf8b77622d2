"""Bearer tokens kept as hashes: made by :func:`new_token`, checked by :class:`TokenTable`.

A token is 32 random bytes (``secrets.token_urlsafe``) behind the prefix ``hdk_``; the
configuration holds only its SHA-256. A random token of that length cannot be guessed
from its hash, so no salt or slow hash is needed (they defend low-entropy passwords).
A presented token is hashed and compared with every configured hash in constant time
(:func:`hmac.compare_digest`), all of them each time, so that the time taken says
nothing about which hash came close. The token itself is never stored or logged: the
name of its entry stands for it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from ..config import TokenEntry

PREFIX = "hdk_"


def token_hash(token: str) -> str:
    """The SHA-256 of ``token`` in hex: what the configuration holds."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> tuple[str, str]:
    """A new random token and its hash."""
    token = PREFIX + secrets.token_urlsafe(32)
    return token, token_hash(token)


class TokenTable:
    """The configured tokens, looked up by the hash of a presented token."""

    def __init__(self, entries: list[TokenEntry]) -> None:
        self._entries = [(bytes.fromhex(e.sha256), e) for e in entries]

    def __len__(self) -> int:
        return len(self._entries)

    def find(self, token: str) -> TokenEntry | None:
        """The entry whose hash is the token's, else None; every entry is compared."""
        return self.find_digest(hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest())

    def find_hash(self, sha256: str) -> TokenEntry | None:
        """The entry of a token known by its hash in hex (a session's), else None."""
        try:
            digest = bytes.fromhex(sha256)
        except ValueError:
            return None
        return self.find_digest(digest)

    def find_digest(self, digest: bytes) -> TokenEntry | None:
        found = None
        for expected, entry in self._entries:
            if hmac.compare_digest(digest, expected):
                found = entry
        return found
