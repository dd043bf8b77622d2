"""The web page over PostgreSQL shows what it shows over the local store: the sample
documents indexed on both (hash embedder, same settings), the same pages compared, read
with every document and with a token scoped to one of them."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from hierdoc import Index, Settings
from hierdoc.auth import HierdocTokenVerifier, Sessions, new_token
from hierdoc.config import AuthSettings, TokenEntry
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


BASE = "http://127.0.0.1:8780"
TOKEN, TOKEN_HASH = new_token()
AUTH = AuthSettings(tokens=[TokenEntry(name="reg-p", sha256=TOKEN_HASH, sources=[REG_P])])


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Index, Index]]:
    options = fresh_options()
    folder = tmp_path_factory.mktemp("web-postgres")
    local = Index.open(folder / "local", Settings(), embedder=HashEmbedder())
    postgres_settings = Settings(database={"provider": "postgres", **options}, name="index")
    postgres = Index.open(folder / "unused", postgres_settings, embedder=HashEmbedder())
    for index in (local, postgres):
        assert not index.ingest([SAMPLES]).problems
    local.settings = Settings(name="index")
    yield local, postgres
    local.close()
    postgres.close()
    drop_schema(options)


@pytest.fixture(scope="module")
def clients(indexes: tuple[Index, Index]) -> tuple[TestClient, ...]:
    return tuple(TestClient(build_app(index), base_url=BASE) for index in indexes)


@pytest.fixture(scope="module")
def scoped_clients(indexes: tuple[Index, Index]) -> tuple[TestClient, ...]:
    """Both pages behind sign-in, read with a token that sees Regulation P only."""
    sessions = Sessions(HierdocTokenVerifier(AUTH))
    headers = {"authorization": f"Bearer {TOKEN}"}
    return tuple(
        TestClient(build_app(index, sessions=sessions), base_url=BASE, headers=headers)
        for index in indexes
    )


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


@pytest.mark.parametrize(("path", "params"), PAGES)
def test_a_scoped_token_reads_the_same_pages_on_both_stores(scoped_clients, path, params):
    local, postgres = scoped_clients
    shown = [client.get(path, params=params) for client in (local, postgres)]
    expected = 404 if params.get("doc") == "nist-fips-199.pdf" else 200
    assert [r.status_code for r in shown] == [expected, expected]
    assert visible(shown[0].text) == visible(shown[1].text)
    for answer in shown:  # the other sample documents are out of scope
        text = answer.text.lower().replace(params.get("doc", REG_P), "")  # the name asked for
        assert "nist" not in text.replace("administ", "")
        assert "business-associate" not in text
