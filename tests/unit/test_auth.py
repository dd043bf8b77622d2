"""Authentication of the HTTP server: hashed bearer tokens, JWTs of an external issuer,
the 401 answer of the MCP authorization spec, the views each token is given, and the
refusal to serve remotely without authentication."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

import click
import jwt
import pytest
import yaml
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from hierdoc import Index, Settings, TextDocument
from hierdoc.auth import HierdocTokenVerifier, IndexViews, new_token, protect, token_hash
from hierdoc.auth.tokens import TokenTable
from hierdoc.cli import cli
from hierdoc.config import AuthSettings, TokenEntry
from hierdoc.errors import ConfigError, InputError
from hierdoc.mcp.server import build_server, check_auth
from tests.hash_embedder import HashEmbedder
from tests.mcp_messages import HEADERS, INITIALIZE

ISSUER = "https://issuer.example.com"


def entry(name: str, token: str, **scope) -> TokenEntry:
    return TokenEntry(name=name, sha256=token_hash(token), **scope)


# -- tokens ---------------------------------------------------------------------------------


def test_a_new_token_is_random_and_its_hash_is_sha256() -> None:
    first, digest = new_token()
    second, _ = new_token()
    assert first != second and first.startswith("hdk_") and len(first) > 40
    assert digest == hashlib.sha256(first.encode()).hexdigest()


def test_the_table_finds_a_token_by_its_hash_only() -> None:
    token, _ = new_token()
    other, _ = new_token()
    table = TokenTable([entry("legal", token), entry("sales", other)])
    assert table.find(token).name == "legal"
    assert table.find(other).name == "sales"
    assert table.find(token + "x") is None
    assert table.find(token_hash(token)) is None  # the hash itself is no token
    assert table.find("") is None


@pytest.mark.parametrize(
    ("auth", "message"),
    [
        ({"tokens": [{"name": "a", "sha256": "abc"}]}, "sha256"),
        ({"tokens": [{"name": "a b", "sha256": "0" * 64}]}, "name"),
        (
            {"tokens": [{"name": "a", "sha256": "0" * 64}, {"name": "a", "sha256": "1" * 64}]},
            "own name",
        ),
        ({"jwt": {"issuer": ISSUER}}, "key_file or jwks_url"),
        ({"tokens": [], "resource_url": "https://docs.example.com/mcp"}, "with auth.jwt"),
        ({"tokens": [{"name": "a", "sha256": "0" * 64, "token": "x"}]}, "token"),
        ({"session_key": "too short"}, "session_key"),
        ({"session_hours": 0}, "session_hours"),
    ],
)
def test_bad_auth_settings_are_refused_naming_the_field(auth: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Settings(auth=auth)


def test_auth_comes_from_an_environment_variable(monkeypatch) -> None:
    from hierdoc.config import load_settings

    _, digest = new_token()
    monkeypatch.setenv("HIERDOC_AUTH", f"{{tokens: [{{name: ops, sha256: {digest}}}]}}")
    assert load_settings().auth.tokens[0].sha256 == digest


def test_hierdoc_token_prints_a_token_and_the_entry_to_configure() -> None:
    result = CliRunner().invoke(
        cli, ["token", "--name", "legal", "--source", "gdpr.md", "--where", "type=contract"]
    )
    assert result.exit_code == 0, result.output
    token = result.output.splitlines()[0].removeprefix("token: ")
    configured = yaml.safe_load(result.output.split("\n", 1)[1])
    settings = Settings(**configured)
    (only,) = settings.auth.tokens
    assert only.sha256 == token_hash(token) and token not in result.output.split("\n", 1)[1]
    assert (only.name, only.sources, only.where) == ("legal", ["gdpr.md"], {"type": ["contract"]})


# -- the verifier ---------------------------------------------------------------------------


def verify(verifier: HierdocTokenVerifier, token: str):
    import anyio

    return anyio.run(verifier.verify_token, token)


def test_a_static_token_gives_its_name_and_documents_and_a_wrong_one_nothing() -> None:
    scoped, everything = new_token()[0], new_token()[0]
    verifier = HierdocTokenVerifier(
        AuthSettings(tokens=[entry("legal", scoped, sources=["gdpr.md"]), entry("ops", everything)])
    )
    access = verify(verifier, scoped)
    assert access.client_id == "legal" and access.documents is not None
    assert access.token != scoped  # the token itself is not kept
    assert verify(verifier, everything).documents is None
    assert verify(verifier, scoped[:-1]) is None
    assert verify(verifier, "a.b.c") is None


def test_no_token_and_no_issuer_is_a_configuration_error() -> None:
    with pytest.raises(ConfigError, match="nobody could connect"):
        HierdocTokenVerifier(AuthSettings())


@pytest.fixture(scope="module")
def rsa_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def public_pem(key, folder: Path) -> str:
    path = folder / "issuer.pem"
    path.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return str(path)


def signed(key, **claims) -> str:
    now = int(time.time())
    payload = {"iss": ISSUER, "aud": "hierdoc", "sub": "ana", "exp": now + 600, **claims}
    return jwt.encode(payload, key, algorithm="RS256")


def jwt_verifier(key, folder: Path, scopes: dict | None = None) -> HierdocTokenVerifier:
    issuer = {"issuer": ISSUER, "audience": "hierdoc", "key_file": public_pem(key, folder)}
    return HierdocTokenVerifier(AuthSettings(jwt={**issuer, "scopes": scopes or {}}))


def test_a_jwt_of_the_issuer_is_checked_for_signature_issuer_audience_and_expiry(
    rsa_key, tmp_path: Path
) -> None:
    verifier = jwt_verifier(rsa_key, tmp_path)
    access = verify(verifier, signed(rsa_key, scope="read"))
    assert access.subject == "ana" and access.scopes == ["read"] and access.documents is None
    stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert verify(verifier, signed(stranger)) is None
    assert verify(verifier, signed(rsa_key, iss="https://other.example.com")) is None
    assert verify(verifier, signed(rsa_key, aud="another-api")) is None
    assert verify(verifier, signed(rsa_key, exp=int(time.time()) - 3600)) is None
    unsigned = jwt.encode({"iss": ISSUER, "aud": "hierdoc", "exp": 2**40}, None, algorithm="none")
    assert verify(verifier, unsigned) is None


def test_a_jwt_sees_the_documents_its_scopes_grant(rsa_key, tmp_path: Path) -> None:
    scopes = {"legal": {"sources": ["gdpr.md"]}, "sales": {"where": {"team": "sales"}}}
    verifier = jwt_verifier(rsa_key, tmp_path, scopes)
    both = verify(verifier, signed(rsa_key, scope="legal sales"))
    assert len(both.documents.filters) == 2
    assert len(verify(verifier, signed(rsa_key, scp=["legal"])).documents.filters) == 1
    assert verify(verifier, signed(rsa_key, scope="unrelated")) is None


# -- over HTTP ------------------------------------------------------------------------------


@pytest.fixture
def index(tmp_path: Path):
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder()) as opened:
        opened.ingest_texts(
            [
                TextDocument("open.md", "# Open\n\n## Article 1\n\nThe open rule applies."),
                TextDocument("closed.md", "# Closed\n\n## Article 1\n\nThe quuxfrob rule."),
            ]
        )
        yield opened


def client_of(app) -> TestClient:
    return TestClient(app, base_url="http://127.0.0.1:8765")


def post(client: TestClient, headers: dict | None = None):
    return client.post("/mcp", json=INITIALIZE, headers={**HEADERS, **(headers or {})})


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def test_without_a_valid_token_the_mcp_endpoint_answers_401_and_nothing_else(index) -> None:
    token = new_token()[0]
    settings = Settings(auth={"tokens": [entry("ops", token).model_dump()]})
    app = build_server(index, settings, port=8765).streamable_http_app()
    with client_of(app) as client:
        for headers in ({}, bearer("wrong"), bearer(""), {"authorization": f"Basic {token}"}):
            answer = post(client, headers)
            assert answer.status_code == 401
            assert answer.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
            assert answer.json() == {
                "error": "invalid_token",
                "error_description": "Authentication required",
            }
        assert post(client, bearer(token)).status_code == 200
    unguarded = build_server(index, settings, port=8765, authenticate=False)
    with client_of(unguarded.streamable_http_app()) as client:
        assert post(client).status_code == 200


def test_with_an_issuer_a_401_points_to_the_protected_resource_metadata(
    index, rsa_key, tmp_path: Path
) -> None:
    resource = "https://docs.example.com/mcp"
    issuer = {"issuer": ISSUER, "audience": "hierdoc", "key_file": public_pem(rsa_key, tmp_path)}
    settings = Settings(auth={"jwt": issuer, "resource_url": resource})
    app = build_server(index, settings, port=8765).streamable_http_app()
    with client_of(app) as client:
        refused = post(client)
        metadata = client.get("/.well-known/oauth-protected-resource/mcp").json()
        assert post(client, bearer(signed(rsa_key))).status_code == 200
    metadata_url = "https://docs.example.com/.well-known/oauth-protected-resource/mcp"
    assert f'resource_metadata="{metadata_url}"' in refused.headers["www-authenticate"]
    assert metadata["resource"] == resource
    assert [url.rstrip("/") for url in metadata["authorization_servers"]] == [ISSUER]


def test_protect_puts_any_asgi_app_behind_the_tokens_and_gives_each_its_view(index) -> None:
    scoped, everything = new_token()[0], new_token()[0]
    auth = AuthSettings(
        tokens=[entry("open", scoped, sources=["open.md"]), entry("ops", everything)]
    )
    views = IndexViews(index, required=True)

    async def documents(request):
        view = views.for_request(request.scope)
        return JSONResponse([d.source for d in view.documents()])

    app = protect(Starlette(routes=[Route("/documents", documents)]), HierdocTokenVerifier(auth))
    with TestClient(app) as client:
        refused = client.get("/documents")
        assert refused.status_code == 401 and "closed" not in refused.text
        assert client.get("/documents", headers=bearer(scoped)).json() == ["open.md"]
        seen = client.get("/documents", headers=bearer(everything)).json()
        assert seen == ["closed.md", "open.md"]
    with pytest.raises(InputError, match="no verified token"):
        views.for_access(None)
    assert IndexViews(index).for_access(None) is index


def test_remote_serving_without_authentication_needs_no_auth_said_explicitly() -> None:
    check_auth("127.0.0.1", authenticated=False, no_auth=False)
    check_auth("0.0.0.0", authenticated=True, no_auth=False)
    check_auth("0.0.0.0", authenticated=False, no_auth=True)
    with pytest.raises(click.UsageError, match="without authentication"):
        check_auth("0.0.0.0", authenticated=False, no_auth=False)


def test_serve_refuses_allow_remote_without_a_token(index, tmp_path: Path) -> None:
    args = ["--index", str(index.directory), "serve", "--http", "0.0.0.0:8765", "--allow-remote"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2 and "--no-auth" in result.output
