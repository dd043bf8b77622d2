"""The web page behind the tokens of ``auth:``: signing in and out, the session cookie, a
bearer header, JWT expiry, and a scoped token's pages. Every route is tried signed out
and, signed in with a scoped token, with every kind of argument that reaches a document
out of its scope (ids, citations, "Section N of <title>", terms, misspelt ids and names,
direct addresses of its sections and PDF pages): no answer names or quotes it."""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus, urlencode

import jwt
import pytest
from click.testing import CliRunner
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.testclient import TestClient

from hierdoc import Index, Settings
from hierdoc.auth import HierdocTokenVerifier, Sessions, new_token
from hierdoc.auth.sessions import AUDIENCE, COOKIE
from hierdoc.cli import cli
from hierdoc.config import AuthSettings, TokenEntry
from hierdoc.web import build_app
from tests.hash_embedder import HashEmbedder
from tests.paths import REPOSITORY
from tests.unit.test_scoped_index import MARKERS, written_corpus

PDF = REPOSITORY / "samples" / "documents" / "nist-fips-199.pdf"
WEB_MARKERS = (*MARKERS, "fips", "nist", "security categor")
"""Words only the documents out of scope hold: the Zebra accord's, and the NIST PDF's
(which has no metadata, so a ``department: public`` scope leaves it out)."""
BASE = "http://127.0.0.1:8780"
ISSUER = "https://issuer.example.com"
ROUTES = ("/", "/section", "/page", "/page.png", "/glossary", "/documents", "/outline")

SCOPED, EVERYTHING, NAMED = new_token()[0], new_token()[0], new_token()[0]


def entry(name: str, token: str, **scope: Any) -> TokenEntry:
    from hierdoc.auth import token_hash

    return TokenEntry(name=name, sha256=token_hash(token), **scope)


AUTH = AuthSettings(
    tokens=[
        entry("public", SCOPED, where={"department": "public"}),
        entry("terms", NAMED, sources=["public_terms.md"]),
        entry("ops", EVERYTHING),
    ],
    session_key="k" * 40,
)


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Iterator[Index]:
    folder = tmp_path_factory.mktemp("web-auth")
    corpus = written_corpus(folder)
    with Index.open(folder / "index", Settings(), embedder=HashEmbedder()) as opened:
        report = opened.ingest([corpus, PDF])
        assert not report.problems, report.problems
        yield opened


def app_of(index: Index, auth: AuthSettings = AUTH) -> Any:
    return build_app(index, sessions=Sessions.of(HierdocTokenVerifier(auth)))


@pytest.fixture(scope="module")
def app(index: Index) -> Any:
    return app_of(index)


def client_of(app: Any, base: str = BASE) -> TestClient:
    return TestClient(app, base_url=base, follow_redirects=False)


def signed_in(app: Any, token: str) -> TestClient:
    client = client_of(app)
    answer = client.post("/signin", data={"token": token, "next": "/"})
    assert answer.status_code == 303, answer.text[:500]
    return client


def stored(index: Index, name: str) -> str:
    return next(d.source for d in index.documents() if Path(d.source).name == name)


def probes(index: Index) -> list[tuple[str, dict[str, Any]]]:
    """Every page with arguments that reach a document out of scope in the whole index."""
    secret, pdf = stored(index, "zebra_covert_k9vault.md"), stored(index, PDF.name)
    public = stored(index, "public_terms.md")
    chunk_ids = [c.chunk.chunk_id for c in index.chunks_of_source(secret)]
    pdf_chunk = index.chunks_of_source(pdf)[0].chunk.chunk_id
    misspelt = [chunk_id[:-3] + "x" + chunk_id[-2:] for chunk_id in chunk_ids]
    queries = [
        "quuxfrob", "xylophant shipment", "Zebra Payload", "ZP", "escrow agent", "Article 7",
        "Article 7(1)", "Section 7.1 of the Zebra Covert Accord", "Article 7 of zebra_covert.md",
        '"quuxfrob fee"', "Confidential Information", "Buyer pay within nine days",
        "security category", "FIPS 199",
    ]  # fmt: skip
    found: list[tuple[str, dict[str, Any]]] = [("/documents", {}), ("/glossary", {})]
    for query in queries:
        found.append(("/", {"q": query, "explain": "1"}))
        found.append(("/", {"q": query, "mode": "keyword"}))
        found.append(("/", {"q": query, "mode": "exact"}))
    for argument in ({"document": "zebra_covert.md"}, {"document": "zebra_covrt.md"},
                     {"document": "zebra"}, {"document": secret}, {"document": PDF.name},
                     {"where": "department=treasury"}, {"where": "departmnt=public"},
                     {"section": "article-7"}, {"section": "artcle-7"}):  # fmt: skip
        found.append(("/", {"q": "the shipment fee", **argument}))
    identifiers = [
        "article-7", "article-7-1", "Article 7(1)", "Article 7 of the Zebra Covert Accord",
        "paragraph 7.2 of the Zebra Covert Accord", "artcle-7", "article-1", "article-2",
        "article-2-1", pdf_chunk, *chunk_ids, *misspelt,
    ]  # fmt: skip
    for identifier in identifiers:
        found.append(("/section", {"id": identifier}))
    for source in ("zebra_covert.md", "zebra_covert_k9vault.md", "zebra", secret, PDF.name):
        found.append(("/section", {"doc": source, "id": "article-1"}))
        found.append(("/outline", {"doc": source}))
        found.append(("/page", {"doc": source}))
        found.append(("/page.png", {"doc": source, "page": "1"}))
    found.append(("/section", {"doc": public, "id": "article-1", "chunk": chunk_ids[0]}))
    found.append(("/page", {"doc": public, "chunk": chunk_ids[0]}))
    found.append(("/page", {"doc": pdf, "page": "2", "chunk": pdf_chunk}))
    for term in ("Zebra", "ZP", "Confidential", "quuxfrob", "security"):
        found.append(("/glossary", {"q": term}))
    return found


def leaks(body: bytes, path: str, params: dict[str, Any]) -> list[str]:
    """The out-of-scope markers in ``body`` that the request did not carry itself."""
    asked = unquote_plus(path + "?" + urlencode(params)).lower()
    text = body.decode("utf-8", "replace").lower()
    return [m for m in WEB_MARKERS if m in text and m not in asked]


def reached(client: TestClient, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    found = {}
    for path, params in calls:
        answer = client.get(path, params=params)
        assert answer.status_code < 500, (path, params, answer.text[:300])
        leaked = leaks(answer.content, path, params)
        if leaked or (path == "/page.png" and answer.headers["content-type"] == "image/png"):
            found[f"{path} {params}"] = (answer.status_code, leaked)
    return found


# -- signed out -----------------------------------------------------------------------------


def test_signed_out_every_page_answers_the_sign_in_page_or_401_and_nothing_else(
    app: Any, index: Index
) -> None:
    client = client_of(app)
    calls = [(path, {}) for path in (*ROUTES, "/nope", "/static/../documents")] + probes(index)
    for path, params in calls:
        browser = client.get(path, params=params, headers={"accept": "text/html"})
        assert browser.status_code == 303, (path, params)
        assert browser.headers["location"].startswith("/signin")
        program = client.get(path, params=params)
        assert program.status_code == 401, (path, params)
        assert program.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
        for answer in (browser, program):
            assert not leaks(answer.content, path, params), (path, params)
            assert "public" not in answer.text.lower()  # no document of any scope either
    form = client.get("/signin")
    assert form.status_code == 200 and 'name="token"' in form.text
    assert not re.search(r'href="/(documents|glossary)"', form.text)  # no links into the index
    assert 'class="brand">hierdoc</span>' in form.text  # nor the index's name
    assert client.get("/static/web.css").status_code == 200


def test_a_wrong_or_foreign_token_is_refused_without_a_session(app: Any) -> None:
    client = client_of(app)
    for token in ("", "wrong", SCOPED[:-1], SCOPED + "x", entry("x", SCOPED).sha256):
        answer = client.post("/signin", data={"token": token, "next": "/documents"})
        assert answer.status_code in (400, 401) and COOKIE not in answer.headers.get(
            "set-cookie", ""
        )
        assert "not accepted" in answer.text or answer.status_code == 400
        assert token == "" or token not in answer.text  # the token is not echoed
        bad = client.get("/documents", headers={"authorization": f"Bearer {token}x"})
        assert bad.status_code == 401 and "invalid_token" in bad.headers["www-authenticate"]
    assert client.get("/documents", headers={"authorization": f"Basic {SCOPED}"}).status_code == 401
    huge = client.post("/signin", data={"token": "x" * 40_000})
    assert huge.status_code == 413 and COOKIE not in huge.headers.get("set-cookie", "")


# -- signing in and out ---------------------------------------------------------------------


def test_sign_in_sets_a_signed_httponly_strict_cookie_that_holds_no_token(app: Any) -> None:
    client = client_of(app)
    answer = client.post("/signin", data={"token": SCOPED, "next": "/glossary?q=Service"})
    assert answer.status_code == 303 and answer.headers["location"] == "/glossary?q=Service"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # served over http
    value = client.cookies[COOKIE]
    assert SCOPED not in value
    payload = jwt.decode(value, AUTH.session_key, algorithms=["HS256"], audience=AUDIENCE)
    assert SCOPED not in str(payload) and payload["name"] == "public"
    assert payload["exp"] - payload["iat"] == 8 * 3600
    as_bearer = client_of(app).get("/documents", headers={"authorization": f"Bearer {value}"})
    assert as_bearer.status_code == 401  # a session is no token
    page = client.get("/glossary", params={"q": "Service"})
    assert page.status_code == 200 and "public" in page.text  # signed in as "public"
    assert page.headers["cache-control"] == "private, no-store"


def test_over_https_the_cookie_is_secure(app: Any) -> None:
    client = client_of(app, "https://127.0.0.1:8780")
    answer = client.post("/signin", data={"token": SCOPED})
    assert answer.status_code == 303 and "Secure" in answer.headers["set-cookie"]


def test_sign_out_ends_the_session(app: Any) -> None:
    client = signed_in(app, SCOPED)
    assert client.get("/documents").status_code == 200
    value = client.cookies[COOKIE]
    out = client.post("/signout")
    assert out.status_code == 303 and out.headers["location"] == "/signin"
    assert f'{COOKIE}=""' in out.headers["set-cookie"] and "Max-Age=0" in out.headers["set-cookie"]
    assert client.get("/documents").status_code == 401
    client.cookies.set(COOKIE, value)  # a copy kept by hand still reads until it expires
    assert client.get("/documents").status_code == 200


def test_a_tampered_or_foreign_cookie_is_no_session(app: Any, index: Index) -> None:
    client = signed_in(app, SCOPED)
    value = client.cookies[COOKIE]
    header, payload, signature = value.split(".")
    forged = jwt.encode(
        {"aud": AUDIENCE, "exp": int(time.time()) + 60, "by": "table", "name": "ops",
         "token": entry("ops", EVERYTHING).sha256}, "another key" * 4, algorithm="HS256",
    )  # fmt: skip
    other_server = app_of(index, AUTH.model_copy(update={"session_key": "j" * 40}))
    for cookie, target in ((f"{header}.{payload}.{signature[::-1]}", app), (forged, app),
                           (value, other_server), ("garbage", app)):  # fmt: skip
        fresh = client_of(target)
        fresh.cookies.set(COOKIE, cookie)
        answer = fresh.get("/documents", headers={"accept": "text/html"})
        assert answer.status_code == 303 and "ended=1" in answer.headers["location"]
        assert f'{COOKIE}=""' in answer.headers["set-cookie"]


def test_a_removed_token_loses_its_sessions(index: Index) -> None:
    client = signed_in(app_of(index), NAMED)
    remaining = AUTH.model_copy(update={"tokens": [t for t in AUTH.tokens if t.name != "terms"]})
    after_restart = client_of(app_of(index, remaining))
    after_restart.cookies.set(COOKIE, client.cookies[COOKIE])
    assert after_restart.get("/documents").status_code == 401


def test_sign_in_goes_back_only_to_a_page_of_this_server(app: Any) -> None:
    client = client_of(app)
    for target in ("//evil.example/x", "https://evil.example/", "/\\evil.example", "javascript:1"):
        answer = client.post("/signin", data={"token": SCOPED, "next": target})
        assert answer.headers["location"] == "/"
    page = client_of(app).get("/section?id=article-1", headers={"accept": "text/html"})
    form = client.get(page.headers["location"])
    assert 'name="next" value="/section?id=article-1"' in form.text


def test_another_origin_cannot_sign_a_browser_in_or_out(app: Any) -> None:
    client = client_of(app)
    foreign = {"origin": "http://127.0.0.1:9999"}  # same machine, another port
    assert client.post("/signin", data={"token": SCOPED}, headers=foreign).status_code == 403
    same = {"origin": BASE}
    assert client.post("/signin", data={"token": SCOPED}, headers=same).status_code == 303
    assert client.post("/signout", headers=foreign).status_code == 403
    for refused in ({"sec-fetch-site": "cross-site"}, {"origin": "null"}):
        assert client.post("/signin", data={"token": SCOPED}, headers=refused).status_code == 403


def test_a_bearer_header_reads_the_pages_without_a_session(app: Any) -> None:
    client = client_of(app)
    answer = client.get("/documents", headers={"authorization": f"Bearer {NAMED}"})
    assert answer.status_code == 200 and COOKIE not in answer.headers.get("set-cookie", "")
    assert "public_terms.md" in answer.text and "public_faq.md" not in answer.text


# -- JWTs -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def issuer_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def jwt_app(index: Index, key: Any, folder: Path) -> Any:
    pem = folder / "issuer.pem"
    pem.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    scopes = {"public": {"where": {"department": "public"}}}
    issuer = {"issuer": ISSUER, "audience": "hierdoc", "key_file": str(pem), "scopes": scopes}
    return app_of(index, AuthSettings(jwt={**issuer, "leeway": 0}))


def issued(key: Any, seconds: int, scope: str = "public") -> str:
    claims = {"iss": ISSUER, "aud": "hierdoc", "sub": "ana", "scope": scope,
              "exp": int(time.time()) + seconds}  # fmt: skip
    return jwt.encode(claims, key, algorithm="RS256")


def test_a_jwt_session_ends_when_the_jwt_expires(index: Index, issuer_key, tmp_path) -> None:
    app = jwt_app(index, issuer_key, tmp_path)
    client = client_of(app)
    answer = client.post("/signin", data={"token": issued(issuer_key, 2)})
    assert answer.status_code == 303
    assert int(re.search(r"Max-Age=(\d+)", answer.headers["set-cookie"])[1]) <= 2
    listed = client.get("/documents")
    assert listed.status_code == 200 and "public_terms.md" in listed.text
    assert not leaks(listed.content, "/documents", {})
    time.sleep(3)
    assert client.get("/documents").status_code == 401
    expired = issued(issuer_key, -5)
    assert client.post("/signin", data={"token": expired}).status_code == 401
    bearer = {"authorization": f"Bearer {expired}"}
    assert client.get("/documents", headers=bearer).status_code == 401
    ungranted = issued(issuer_key, 60, scope="unrelated")
    assert client.post("/signin", data={"token": ungranted}).status_code == 401


# -- scopes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("token", [SCOPED, NAMED], ids=["where", "named"])
def test_no_page_names_or_quotes_a_document_out_of_scope(app: Any, index: Index, token) -> None:
    client = signed_in(app, token)
    assert reached(client, probes(index)) == {}


def test_the_whole_index_does_answer_those_pages(app: Any, index: Index) -> None:
    """The probes reach the documents out of scope when no scope holds them back."""
    calls = probes(index)
    found = reached(signed_in(app, EVERYTHING), calls)
    assert len(found) > len(calls) // 2
    assert any(key.startswith("/page.png") for key in found)


def test_a_scoped_token_reads_its_own_documents_in_full(app: Any, index: Index) -> None:
    client = signed_in(app, SCOPED)
    documents = client.get("/documents").text
    assert "public_terms.md" in documents and "public_faq.md" in documents
    assert "2 documents" in documents or documents.count("/outline?doc=") == 2
    found = client.get("/", params={"q": "Customer shall use the Service lawfully"}).text
    assert "public_terms.md" in found
    section = client.get("/section", params={"doc": "public_terms.md", "id": "article-2"})
    assert section.status_code == 200 and "lawfully" in section.text
    glossary = client.get("/glossary").text
    assert "marked as confidential by the Provider" in glossary
    assert "defined differently" not in glossary  # the conflicting definition is out of scope


# -- serve --web ----------------------------------------------------------------------------


def statuses(app: Any) -> tuple[int, int]:
    """/documents without a token, and with a bearer token of every document."""
    with client_of(app) as client:
        bearer = {"authorization": f"Bearer {EVERYTHING}"}
        return client.get("/documents").status_code, client.get(
            "/documents", headers=bearer
        ).status_code


@pytest.fixture
def served(index: Index, monkeypatch) -> list[tuple[int, int]]:
    """What the app ``hierdoc serve --web`` runs answers (uvicorn, the network edge, left
    out), over the index opened with the embedder that built it."""
    import uvicorn

    serve = importlib.import_module("hierdoc.cli.serve")
    answers: list[tuple[int, int]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: answers.append(statuses(app)))
    monkeypatch.setattr(
        serve,
        "open_existing",
        lambda state: Index.open(index.directory, Settings(), embedder=HashEmbedder(), mode="r"),
    )
    return answers


def test_serve_web_with_tokens_needs_them_even_on_loopback(index, served, monkeypatch) -> None:
    digest = entry("ops", EVERYTHING).sha256
    monkeypatch.setenv("HIERDOC_AUTH", f"{{tokens: [{{name: ops, sha256: {digest}}}]}}")
    args = ["--index", str(index.directory), "serve", "--web"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "sign-in" in result.output and "auth.session_key" in result.output
    remote = CliRunner().invoke(cli, [*args, "--http", "0.0.0.0:8780", "--allow-remote"])
    assert remote.exit_code == 0, remote.output
    unguarded = CliRunner().invoke(cli, [*args, "--no-auth"])
    assert unguarded.exit_code == 0 and "without authentication" in unguarded.output
    assert served == [(401, 200), (401, 200), (200, 200)]


def test_serve_web_remotely_without_tokens_needs_no_auth(index, served) -> None:
    args = ["--index", str(index.directory), "serve", "--web", "--http", "0.0.0.0:8780"]
    refused = CliRunner().invoke(cli, [*args, "--allow-remote"])
    assert refused.exit_code == 2 and "--no-auth" in refused.output and not served
    allowed = CliRunner().invoke(cli, [*args, "--allow-remote", "--no-auth"])
    assert allowed.exit_code == 0 and served == [(200, 200)]
