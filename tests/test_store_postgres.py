"""The store contract on PostgreSQL (a real server, see ``test_store_postgres_server``),
and what only this backend does: schema versions, shared writes, credentials."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hierdoc.search.analyze import TEXT_ANALYZER
from hierdoc.store import StoreRequest, open_store
from hierdoc.store.base import Store
from hierdoc.store.testing import DIMENSION, StoreContract

from .test_store_postgres_server import drop_schema, fresh_options

pytestmark = pytest.mark.postgres


def open_pg(options: dict[str, Any], dimension: int = DIMENSION, **kwargs: Any) -> Store:
    request = StoreRequest(Path("unused"), dimension, TEXT_ANALYZER, options=options, **kwargs)
    return open_store("postgres", request)


class TestPostgresStore(StoreContract):
    SHARES_WRITES = True

    @pytest.fixture
    def options(self) -> Iterator[dict[str, Any]]:
        options = fresh_options()
        yield options
        drop_schema(options)

    @pytest.fixture
    def store(self, options: dict[str, Any]) -> Iterator[Store]:
        store = open_pg(options)
        yield store
        store.close()

    @pytest.fixture
    def second_store(self, options: dict[str, Any], store: Store) -> Iterator[Store]:
        other = open_pg(options)
        yield other
        other.close()
