"""The web page over PostgreSQL shows what it shows over the local store: the sample
documents indexed on both (hash embedder, same settings), the same pages compared."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from hierdoc import Index, Settings
from hierdoc.web import build_app
from tests.contract.test_store_postgres_server import drop_schema, fresh_options
from tests.hash_embedder import HashEmbedder
from tests.paths import REPOSITORY

pytestmark = pytest.mark.postgres

SAMPLES = REPOSITORY / "samples" / "documents"
REG_P = "12-cfr-part-1016-regulation-p.md"
PAGES = [
    ("/", {"q": "account number marketing", "k": "5", "mode": "keyword"}),
    ("/", {"q": "§ 1016.12(b)", "mode": "exact"}),
    ("/section", {"doc": REG_P, "id": "section-1016-12-b"}),
    ("/section", {"doc": REG_P, "id": "section-1016-12-a"}),
    ("/page", {"doc": "nist-fips-199.pdf", "page": "12"}),
    ("/glossary", {}),
    ("/documents", {}),
    ("/outline", {"doc": REG_P, "outline_page": "2"}),
]


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, TestClient]]:
    options = fresh_options()
    folder = tmp_path_factory.mktemp("web-postgres")
    local = Index.open(folder / "local", Settings(), embedder=HashEmbedder())
    postgres_settings = Settings(database={"provider": "postgres", **options}, name="index")
    postgres = Index.open(folder / "unused", postgres_settings, embedder=HashEmbedder())
    for index in (local, postgres):
        assert not index.ingest([SAMPLES]).problems
    local.settings = Settings(name="index")
    base = "http://127.0.0.1:8780"
    yield tuple(TestClient(build_app(index), base_url=base) for index in (local, postgres))
    local.close()
    postgres.close()
    drop_schema(options)


def visible(html: str) -> str:
    """The page's main content without the ingest times (each backend ingested apart)."""
    main = html.split('<main id="main" tabindex="-1">')[1]
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d", "TIME", main)


@pytest.mark.parametrize(("path", "params"), PAGES)
def test_the_pages_are_the_same_on_both_stores(clients, path, params):
    local, postgres = clients
    shown = [client.get(path, params=params) for client in (local, postgres)]
    assert [r.status_code for r in shown] == [200, 200]
    assert visible(shown[0].text) == visible(shown[1].text)
