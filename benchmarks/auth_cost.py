"""The cost of authentication and document scopes per request.

1. **The token check**, in-process: a request to a small Starlette app through
   :func:`hierdoc.auth.protect` (the SDK's bearer backend, the hashed-token lookup and
   the 401 guard: what the MCP endpoint runs) against the same app unprotected, requests
   of the two interleaved, over httpx's ASGI transport (no sockets, so the network's
   noise is not in it); and ``HierdocTokenVerifier.check`` alone, for 1, 100 and 1,000
   configured tokens and for an RS256 JWT.
2. **The web page's guard** the same way: a request with the sign-in session cookie,
   with a bearer header, and refused, against the app unprotected; and reading a session
   cookie back (``Sessions.resume``) alone.
3. **Scoped tool calls and pages**: the agent tools over a synthetic corpus (the scale
   harness's acts, stand-in embedder), on the whole index and on views scoped to 10% and
   90% of its documents (a ``where`` on metadata, as a token's scope), calls of the three
   interleaved, warm; then the web page's pages the same way, each requested with a
   token of that scope.

    python benchmarks/auth_cost.py [--acts 400] [--requests 2000] [--calls 30]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import platform
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
import jwt  # noqa: E402
import scale  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import rsa  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.responses import JSONResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

from hierdoc import Index, Settings  # noqa: E402
from hierdoc.auth import (  # noqa: E402
    HierdocTokenVerifier,
    IndexViews,
    ScopedAccessToken,
    Sessions,
    new_token,
    protect,
)
from hierdoc.auth.sessions import COOKIE  # noqa: E402
from hierdoc.config import AuthSettings, TokenEntry  # noqa: E402
from hierdoc.errors import HierdocError  # noqa: E402
from hierdoc.search.scoped import DocumentFilter, DocumentScope  # noqa: E402
from hierdoc.tools import call_tool  # noqa: E402
from hierdoc.web import build_app  # noqa: E402
from hierdoc.web.signin import SignInRequired  # noqa: E402

ISSUER = "https://issuer.example.com"


def _us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def token_settings(count: int) -> tuple[AuthSettings, str]:
    tokens = [new_token() for _ in range(count)]
    entries = [TokenEntry(name=f"t{i}", sha256=digest) for i, (_, digest) in enumerate(tokens)]
    return AuthSettings(tokens=entries), tokens[-1][0]


def check_costs(rounds: int, folder: Path) -> dict[str, float]:
    """Median µs of ``HierdocTokenVerifier.check`` per kind of token."""
    found = {}
    for count in (1, 100, 1000):
        settings, token = token_settings(count)
        verifier = HierdocTokenVerifier(settings)
        found[f"hashed token, {count} configured"] = _us(_timed(verifier.check, token, rounds))
        found[f"wrong token, {count} configured"] = _us(_timed(verifier.check, "x" * 47, rounds))
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = folder / "issuer.pem"
    pem.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    issuer = {"issuer": ISSUER, "audience": "hierdoc", "key_file": str(pem)}
    verifier = HierdocTokenVerifier(AuthSettings(jwt=issuer))
    claims = {"iss": ISSUER, "aud": "hierdoc", "sub": "a", "exp": int(time.time()) + 3600}
    signed = jwt.encode(claims, key, algorithm="RS256")
    found["RS256 JWT"] = _us(_timed(verifier.check, signed, max(rounds // 10, 50)))
    return found


def _timed(run, argument, rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        run(argument)
        samples.append(time.perf_counter() - started)
    return samples


async def request_costs(requests: int) -> dict[str, float]:
    """Median µs of one request to the app unprotected and through :func:`protect`."""
    settings, token = token_settings(10)
    app = hello_app()
    guarded = protect(app, HierdocTokenVerifier(settings))
    headers = {"authorization": f"Bearer {token}"}
    return await interleaved(
        {
            "unprotected": (app, {}, 200),
            "protect()": (guarded, headers, 200),
            "refused (401)": (guarded, {"authorization": "Bearer wrong"}, 401),
        },
        requests,
    )


async def web_request_costs(requests: int) -> dict[str, float]:
    """Median µs of one request to the app unprotected and behind the web page's sign-in
    guard (:class:`hierdoc.web.signin.SignInRequired`): with a session cookie, with a
    bearer header, and refused."""
    settings, token = token_settings(10)
    sessions = Sessions(HierdocTokenVerifier(settings))
    signed = await sessions.sign_in(token)
    assert signed is not None
    cookie = {"cookie": f"{COOKIE}={signed[1]}"}
    app = hello_app()
    guarded = SignInRequired(app, sessions)
    return await interleaved(
        {
            "unprotected": (app, {}, 200),
            "session cookie": (guarded, cookie, 200),
            "bearer token": (guarded, {"authorization": f"Bearer {token}"}, 200),
            "refused (401)": (guarded, {}, 401),
        },
        requests,
    )


def hello_app() -> Starlette:
    async def hello(request):
        return JSONResponse({"ok": True})

    return Starlette(routes=[Route("/", hello)])


async def interleaved(apps: dict[str, tuple[Any, dict, int]], requests: int) -> dict[str, float]:
    """Median µs of a GET / to each app with its headers, requests to them interleaved,
    each answer checked for its expected status."""
    clients = {
        name: httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://t")
        for name, (app, _, _) in apps.items()
    }
    samples: dict[str, list[float]] = {name: [] for name in apps}
    async with contextlib.AsyncExitStack() as stack:
        for client in clients.values():
            await stack.enter_async_context(client)
        for _ in range(requests):
            for name, (_, headers, status) in apps.items():
                started = time.perf_counter()
                answer = await clients[name].get("/", headers=headers)
                samples[name].append(time.perf_counter() - started)
                assert answer.status_code == status, (name, answer.status_code)
    return {name: _us(values) for name, values in samples.items()}


def session_costs(rounds: int) -> dict[str, float]:
    """Median µs of reading a session cookie back (:meth:`Sessions.resume`)."""
    found = {}
    for count in (1, 1000):
        settings, token = token_settings(count)
        sessions = Sessions(HierdocTokenVerifier(settings))
        signed = asyncio.run(sessions.sign_in(token))
        assert signed is not None
        found[f"session cookie, {count} tokens configured"] = _us(
            _timed(sessions.resume, signed[1], rounds)
        )
    found["forged session cookie"] = _us(_timed(sessions.resume, signed[1][:-3] + "AAA", rounds))
    return found


def tagged_corpus(folder: Path, acts: int) -> Path:
    """The scale harness's acts, each with front matter: ``team: a`` for one act in ten."""
    corpus = folder / "corpus"
    corpus.mkdir()
    scale.write_corpus(corpus, acts)
    for number, path in enumerate(sorted(corpus.glob("*.md"))):
        team = "a" if number % 10 == 0 else "b"
        path.write_text(f"---\nteam: {team}\n---\n" + path.read_text())
    return corpus


def tool_calls(acts: int) -> list[tuple[str, dict]]:
    calls: list[tuple[str, dict]] = [("list_documents", {})]
    for query in scale.queries(8, acts):
        calls.append(("search", {"query": query}))
        calls.append(("search", {"query": query, "mode": "keyword"}))
    calls += [("get_section", {"id": "article-3-2"}), ("references", {"id": "article-4"})]
    calls += [("define", {"term": "Term 0-1"}), ("get_section", {"id": "Article 7(1)"})]
    return calls


def scoped_costs(folder: Path, acts: int, rounds: int) -> tuple[dict[str, dict[str, float]], int]:
    """Median ms per tool on the whole index and on views scoped to 10% and 90% of it."""
    corpus = tagged_corpus(folder, acts)
    embedder = scale.StandInEmbedder()
    with Index.open(folder / "index", Settings(), embedder=embedder, mode="w") as index:  # type: ignore[arg-type]
        index.ingest(corpus)
        chunks = index.stats().chunks
        views = IndexViews(index)
        indexes = {
            "whole index": index,
            "10% of documents": views.for_access(_access(_team("a"))),
            "90% of documents": views.for_access(_access(_team("b"))),
        }
        calls = tool_calls(acts)
        samples: dict[str, dict[str, list[float]]] = {
            name: {tool: [] for tool, _ in calls} for name in indexes
        }
        for round_number in range(rounds + 1):
            for tool, arguments in calls:
                for name, view in indexes.items():
                    started = time.perf_counter()
                    with contextlib.suppress(HierdocError):  # a NotFound answer costs time too
                        call_tool(view, tool, arguments)
                    if round_number:  # the first round warms every view up
                        samples[name][tool].append(time.perf_counter() - started)
        pages = asyncio.run(page_costs(index, acts, rounds))
    return {**_medians_ms(samples), **pages}, chunks


def _medians_ms(samples: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, float]]:
    return {
        name: {call: statistics.median(values) * 1000 for call, values in per_call.items()}
        for name, per_call in samples.items()
    }


async def page_costs(index: Index, acts: int, rounds: int) -> dict[str, dict[str, float]]:
    """Median ms per web page (over the sign-in guard, a bearer header) for a token of
    every document and tokens scoped to 10% and 90% of them, requests interleaved, warm."""
    tokens = {name: new_token() for name in ("whole index", "10% of documents", "90% of documents")}
    scopes = {"10% of documents": {"team": "a"}, "90% of documents": {"team": "b"}}
    entries = [TokenEntry(name=f"t{n}", sha256=digest, where=scopes.get(name, {}))
               for n, (name, (_, digest)) in enumerate(tokens.items())]  # fmt: skip
    app = build_app(index, sessions=Sessions(HierdocTokenVerifier(AuthSettings(tokens=entries))))
    pages = [("/documents", {}), ("/glossary", {}), ("/section", {"id": "article-3-2"})]
    pages += [("/", {"q": query}) for query in scale.queries(4, acts)]
    samples: dict[str, dict[str, list[float]]] = {
        f"page {name}": {path: [] for path, _ in pages} for name in tokens
    }
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8780") as c:
        for round_number in range(rounds + 1):
            for path, params in pages:
                for name, (token, _) in tokens.items():
                    headers = {"authorization": f"Bearer {token}"}
                    started = time.perf_counter()
                    answer = await c.get(path, params=params, headers=headers)
                    if round_number:
                        samples[f"page {name}"][path].append(time.perf_counter() - started)
                    assert answer.status_code in (200, 404), (path, answer.status_code)
    return _medians_ms(samples)


def _team(team: str) -> DocumentScope:
    return DocumentScope((DocumentFilter.of(where={"team": team}),))


def _access(scope: DocumentScope) -> ScopedAccessToken:
    return ScopedAccessToken(token="-", client_id="bench", scopes=[], documents=scope)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--acts", type=int, default=400)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args()
    print(f"{date.today()}, {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="hierdoc-auth-") as work:
        folder = Path(work)
        print("\n| check | µs per call (median) |\n|---|---:|")
        for name, value in check_costs(args.requests, folder).items():
            print(f"| {name} | {value:.1f} |")
        requests = asyncio.run(request_costs(args.requests))
        print("\n| request (in-process ASGI) | µs (median) |\n|---|---:|")
        for name, value in requests.items():
            print(f"| {name} | {value:.1f} |")
        extra = requests["protect()"] - requests["unprotected"]
        print(f"| protect() minus unprotected | {extra:.1f} |")
        print("\n| web page request (in-process ASGI) | µs (median) |\n|---|---:|")
        for name, value in session_costs(args.requests).items():
            print(f"| {name}: resume alone | {value:.1f} |")
        web = asyncio.run(web_request_costs(args.requests))
        for name, value in web.items():
            print(f"| {name} | {value:.1f} |")
        for name in ("session cookie", "bearer token"):
            print(f"| {name} minus unprotected | {web[name] - web['unprotected']:.1f} |")
        table, chunks = scoped_costs(folder, args.acts, args.calls)
    for kind, names in (("tool", [n for n in table if not n.startswith("page ")]),
                        ("page", [n for n in table if n.startswith("page ")])):  # fmt: skip
        print(f"\n{args.acts} acts, {chunks} chunks; ms per {kind} (median over its requests)")
        print(f"| {kind} | " + " | ".join(n.removeprefix("page ") for n in names) + " |")
        print("|---|" + "---:|" * len(names))
        for call in table[names[0]]:
            print(f"| {call} | " + " | ".join(f"{table[n][call]:.2f}" for n in names) + " |")


if __name__ == "__main__":
    main()
