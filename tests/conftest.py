"""Shared fixtures: the real model, loaded once, and the GDPR index, built once per session."""

from __future__ import annotations

import pytest

from .datasets import GDPR_MD, require


@pytest.fixture
def fake_api():
    """The loopback fake of the model APIs (tests/fakeapi.py), driven by the official SDKs."""
    from .fakeapi import FakeAPI

    with FakeAPI() as api:
        yield api


@pytest.fixture(scope="session")
def embedder():
    from hierdoc.pipeline.embed import LocalEmbedder

    return LocalEmbedder()


@pytest.fixture(scope="session")
def gdpr_index(tmp_path_factory, embedder):
    from hierdoc import Index, Settings

    source = require(GDPR_MD)
    folder = tmp_path_factory.mktemp("gdpr")
    index = Index.open(folder / "index", Settings(), embedder=embedder)
    report = index.ingest([source])
    assert not report.problems
    yield index
    index.close()


def _build(tmp_path_factory, embedder, name: str, sources: list):
    from hierdoc import Index, Settings

    folder = tmp_path_factory.mktemp(name)
    index = Index.open(folder / "index", Settings(), embedder=embedder)
    report = index.ingest(sources)
    assert not report.problems, report.problems
    return index


@pytest.fixture(scope="session")
def hr8847_index(tmp_path_factory, embedder):
    from .datasets import HR8847_PDF

    index = _build(tmp_path_factory, embedder, "hr8847", [require(HR8847_PDF)])
    yield index
    index.close()


@pytest.fixture(scope="session")
def acronym_index(tmp_path_factory, embedder):
    from pathlib import Path

    folder = Path(__file__).parent / "fixtures" / "acronyms"
    index = _build(tmp_path_factory, embedder, "acronyms", [folder])
    yield index
    index.close()
