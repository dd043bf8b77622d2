"""DNS-rebinding protection on every bind address: a page on another origin cannot drive
the server, whatever loopback address or interface it listens on."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from hierdoc import Index, Settings
from hierdoc.mcp.server import build_server, transport_security
from tests.hash_embedder import HashEmbedder
from tests.mcp_messages import HEADERS, INITIALIZE


@pytest.fixture
def index(tmp_path: Path):
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as opened:
        yield opened


def _post(index: Index, bind: str, host: str, origin: str | None = None, **kwargs) -> int:
    app = build_server(index, host=bind, port=8765, **kwargs).streamable_http_app()
    headers = {**HEADERS, "host": host} | ({"origin": origin} if origin else {})
    with TestClient(app, base_url=f"http://{host}") as client:
        return client.post("/mcp", json=INITIALIZE, headers=headers).status_code


@pytest.mark.parametrize("bind", ["127.0.0.1", "127.0.0.2", "::1", "0.0.0.0", "192.0.2.7"])
def test_a_foreign_host_or_origin_is_refused_on_every_address(index: Index, bind: str) -> None:
    assert _post(index, bind, "evil.com") == 421
    assert _post(index, bind, "evil.com:8765", origin="http://evil.com") == 421
    own = f"[{bind}]:8765" if ":" in bind else f"{bind}:8765"
    if bind != "0.0.0.0":
        assert _post(index, bind, own) == 200
        assert _post(index, bind, own, origin="http://evil.com") == 403
    assert _post(index, bind, "localhost:8765", origin="http://localhost:3000") == 200


def test_extra_host_names_are_accepted_when_asked(index: Index) -> None:
    assert _post(index, "0.0.0.0", "search.example.org:8765") == 421
    allowed = ("search.example.org",)
    assert _post(index, "0.0.0.0", "search.example.org:8765", allowed_hosts=allowed) == 200


def test_any_address_accepts_this_machine_by_name() -> None:
    import socket

    settings = transport_security("0.0.0.0")
    assert f"{socket.gethostname()}:*" in settings.allowed_hosts
    assert "evil.com:*" not in settings.allowed_hosts
