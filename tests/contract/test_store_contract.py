"""The store contract (hierdoc.store.testing) on every backend: the embedded local store,
the in-memory provider, and a pure-Python double that shows the protocol is implementable."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hierdoc.store import StoreRequest, available_backends, open_store
from hierdoc.store.base import Store
from hierdoc.store.testing import DIMENSION, StoreContract
from hierdoc.text.analyze import TEXT_ANALYZER
from tests.memory_store import MemoryStore


def _open(provider: str, directory: Path) -> Store:
    return open_store(provider, StoreRequest(directory, DIMENSION, TEXT_ANALYZER))


class TestLocalStore(StoreContract):
    SHARES_WRITES = True

    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[Store]:
        store = _open("local", tmp_path / "index")
        yield store
        store.close()

    @pytest.fixture
    def second_store(self, tmp_path: Path, store: Store) -> Iterator[Store]:
        other = _open("local", tmp_path / "index")
        yield other
        other.close()


class TestInMemoryProvider(StoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Iterator[Store]:
        store = _open("in-memory", tmp_path / "unused")
        yield store
        store.close()


class TestMemoryDouble(StoreContract):
    @pytest.fixture
    def store(self) -> Store:
        return MemoryStore(DIMENSION, TEXT_ANALYZER)


def test_in_memory_provider_leaves_nothing_behind(tmp_path: Path) -> None:
    store = _open("in-memory", tmp_path / "index")
    directory = store.directory  # type: ignore[attr-defined]
    assert directory.exists() and not (tmp_path / "index").exists()
    store.close()
    assert not directory.exists()


def test_unknown_provider_is_a_clear_config_error(tmp_path: Path) -> None:
    from hierdoc.errors import ConfigError

    with pytest.raises(ConfigError, match="'qdrant' is not available; choose one of: in-memory"):
        _open("qdrant", tmp_path)
    assert available_backends() == ["in-memory", "local", "postgres"]
