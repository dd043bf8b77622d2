"""One error tree: every error hierdoc raises on purpose is a :class:`HierdocError`.

Its message is one line a user can act on; the CLI and the MCP server print it
as is. The four kinds say whose move it is:

- :class:`InputError`: the request or a file is wrong (a bad ``top_k``, an
  empty query, an unreadable file); :class:`NotFoundError` for an id, a source
  or a section that is not in the index.
- :class:`ConfigError`: the configuration cannot be used.
- :class:`ProviderError`: a model API failed; :class:`FatalProviderError` when
  every later call would fail the same way (a wrong key, no access, an unknown
  model), which stops an ingest.
- :class:`StoreError`: the index cannot be read or written (an incompatible
  schema, a damaged file, a lock held by another writer).
"""

from __future__ import annotations


class HierdocError(Exception):
    """Base class; ``kind`` names the branch for adapters that report it."""

    kind = "error"


class InputError(HierdocError, ValueError):
    kind = "input"


class NotFoundError(InputError):
    """An id, source or section that the index does not hold."""

    kind = "not_found"


class ConfigError(HierdocError, ValueError):
    """A configuration that cannot be used, with a message naming the field."""

    kind = "config"


class ProviderError(HierdocError, RuntimeError):
    """A model that cannot be used as configured, or an API call that failed."""

    kind = "provider"


class FatalProviderError(ProviderError):
    """The model refused in a way every later call would repeat (401, 403, 404)."""

    kind = "provider_fatal"


class StoreError(HierdocError, RuntimeError):
    """The index cannot be opened, read or written."""

    kind = "store"
