"""Shared fixtures: the real model, loaded once, and the GDPR index, built once per session."""

from __future__ import annotations

import pytest

from .datasets import GDPR_MD, require


@pytest.fixture(scope="session")
def embedder():
    from hierdoc.embed import LocalEmbedder

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
