"""A loopback HTTP server that speaks just enough of the model APIs hierdoc calls.

- Anthropic Messages: ``POST /v1/messages``, with prompt caching simulated: the
  prefix up to the last block marked ``cache_control`` is written to the cache by
  the first request that sends it (``usage.cache_creation_input_tokens``) and read
  by the later ones (``usage.cache_read_input_tokens``).
- OpenAI: ``POST /v1/chat/completions`` (a repeated ``<document>`` prefix is
  reported as ``prompt_tokens_details.cached_tokens``, as OpenAI's automatic
  caching does) and ``POST /v1/embeddings`` (float or base64).
- Azure OpenAI: ``/openai/deployments/{deployment}/chat/completions`` and
  ``.../embeddings``, ``api-version`` query parameter required.
- Ollama: ``POST /api/embed``.
- Rerank: Cohere ``POST /v2/rerank``, Voyage ``/voyage/v1/rerank``, Jina
  ``/jina/v1/rerank`` and an OpenAI-compatible server's ``/compat/rerank`` (base URLs
  ``{url}``, ``{url}/voyage``, ``{url}/jina``, ``{url}/compat``), each checking its
  provider's request shape (400 otherwise) and answering in that provider's form.
  Chat and Messages requests holding ``<passages>`` get a listwise ranking back.
  Relevance is word overlap with the query: plumbing, not a model.

Outputs are deterministic: a context names the document's first line and the
chunk's first words; an embedding is a unit vector drawn from a hash of its text.

Faults, per test: ``script([...])`` forces the outcomes of the next requests in
order of arrival (``"429"``, ``"500"``, ``"timeout"``, ``"401"``, ``"ok"``...);
``poison`` fails every request whose body holds that text; ``fault_rate`` fails
that share of the other requests, the choice made from a
hash of (seed, request body, how many times that body was seen), so that a given
request fails the same way whatever the order of arrival. A 429 carries
``Retry-After: retry_after`` (None: no header). A timeout holds the response for
``slow_seconds``, past the client's timeout. ``latency`` delays every answer.
A 401 echoes the key it was sent, as some servers do, to test redaction.

Every request is recorded (path, query, headers with the keys redacted, JSON
body, outcome); ``key_seen`` says which credential header carried a key.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import numpy as np

KEY_HEADERS = ("x-api-key", "authorization", "api-key")
AZURE_PATH = re.compile(r"^/openai/deployments/([^/]+)/(chat/completions|embeddings)$")
DEFAULT_DIMENSION = 32


def tokens(text: str) -> int:
    return max(1, -(-len(text) // 4))


def fake_vector(text: str, dimension: int) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(dimension)
    return (vector / np.linalg.norm(vector)).astype(np.float32).tolist()


def fake_context(document: str, chunk: str) -> str:
    """What the fake model answers: derived from the chunk, so tests can recognise it."""
    title = next((line.strip() for line in document.splitlines() if line.strip()), "the document")
    words = " ".join(chunk.split()[:8])
    return f"From {title[:60]}: this chunk covers {words}"


def _between(text: str, start: str, end: str) -> str:
    first = text.find(start)
    if first < 0:
        return ""
    first += len(start)
    last = text.find(end, first)
    return text[first : last if last >= 0 else len(text)].strip("\n")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops connections when many clients reconnect


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    outcome: str = "ok"
    key_seen: str | None = None
    """The header that carried a credential: x-api-key, authorization or api-key."""


@dataclass
class FakeAPI:
    latency: float = 0.0
    fault_rate: float = 0.0
    seed: int = 0
    faults: tuple[str, ...] = ("429", "500", "timeout")
    retry_after: str | None = "0"
    slow_seconds: float = 1.0
    dimension: int = DEFAULT_DIMENSION
    min_cache_tokens: int = 0
    poison: str | None = None
    """Requests whose body contains this text always fail with ``poison_outcome``."""
    poison_outcome: str = "500"
    requests: list[Recorded] = field(default_factory=list)
    max_in_flight: int = 0
    cache_writes: int = 0
    cache_reads: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._script: deque[str] = deque()
        self._seen: dict[str, int] = {}
        self._prompt_cache: set[str] = set()
        self._in_flight = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> FakeAPI:
        server = _Server(("127.0.0.1", 0), _handler(self))
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "start() first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # -- test controls -------------------------------------------------------------

    def script(self, outcomes: Iterable[str]) -> None:
        """Force the outcomes of the next requests, in order of arrival."""
        with self._lock:
            self._script.extend(outcomes)

    def reset(self) -> None:
        """Forget requests, scripts, fault history and the prompt cache."""
        with self._lock:
            self.requests.clear()
            self._script.clear()
            self._seen.clear()
            self._prompt_cache.clear()
            self.max_in_flight = self.cache_writes = self.cache_reads = 0

    def calls(self, path_part: str = "") -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if path_part in r.path]

    # -- request handling (server threads) -----------------------------------------

    def _outcome(self, path: str, raw: bytes) -> str:
        with self._lock:
            if self._script:
                return self._script.popleft()
            if self.poison and self.poison.encode() in raw:
                return self.poison_outcome
            if self.fault_rate <= 0:
                return "ok"
            key = hashlib.sha256(path.encode() + b"\0" + raw).hexdigest()
            seen = self._seen.get(key, 0)
            self._seen[key] = seen + 1
        draw = random.Random(f"{self.seed}:{key}:{seen}")
        if draw.random() < self.fault_rate:
            return draw.choice(self.faults)
        return "ok"

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _cache_prefix(self, model: str, prefix: str) -> bool:
        """Whether ``prefix`` was cached before; caches it now."""
        key = hashlib.sha256(f"{model}\0{prefix}".encode()).hexdigest()
        with self._lock:
            hit = key in self._prompt_cache
            self._prompt_cache.add(key)
            if hit:
                self.cache_reads += 1
            else:
                self.cache_writes += 1
        return hit

    def anthropic(self, body: dict[str, Any]) -> dict[str, Any]:
        model = str(body.get("model"))
        blocks: list[dict[str, Any]] = []
        system = body.get("system")
        if isinstance(system, list):
            blocks.extend(system)
        elif isinstance(system, str):
            blocks.append({"type": "text", "text": system})
        for message in body.get("messages", []):
            content = message.get("content")
            if isinstance(content, str):
                blocks.append({"type": "text", "text": content})
            else:
                blocks.extend(content)
        texts = [str(block.get("text", "")) for block in blocks]
        marked = [n for n, block in enumerate(blocks) if block.get("cache_control")]
        total = sum(tokens(t) for t in texts)
        created = read = 0
        if marked:
            prefix_texts = texts[: marked[-1] + 1]
            prefix_tokens = sum(tokens(t) for t in prefix_texts)
            if prefix_tokens >= self.min_cache_tokens:
                if self._cache_prefix(model, "\0".join(prefix_texts)):
                    read = prefix_tokens
                else:
                    created = prefix_tokens
        whole = "\n".join(texts)
        answer = fake_context(_between(whole, "<document>", "</document>"), _chunk(whole))
        if "<passages>" in whole:
            answer = listwise_answer(whole)
        answer = answer[: max(int(body.get("max_tokens", 100)) * 4, 1)]
        return {
            "id": f"msg_{hashlib.sha1(whole.encode()).hexdigest()[:20]}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": answer}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": total - created - read,
                "output_tokens": tokens(answer),
                "cache_creation_input_tokens": created,
                "cache_read_input_tokens": read,
            },
        }

    def chat(self, body: dict[str, Any], model: str) -> dict[str, Any]:
        prompt = "\n".join(
            m["content"] if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
            for m in body.get("messages", [])
        )
        cached = 0
        end = prompt.find("</document>")
        if end >= 0:
            prefix = prompt[: end + len("</document>")]
            if tokens(prefix) >= self.min_cache_tokens and self._cache_prefix(model, prefix):
                cached = tokens(prefix)
        answer = fake_context(_between(prompt, "<document>", "</document>"), _chunk(prompt))
        if "<passages>" in prompt:
            answer = listwise_answer(prompt)
        prompt_tokens = tokens(prompt)
        return {
            "id": f"chatcmpl-{hashlib.sha1(prompt.encode()).hexdigest()[:20]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": answer},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": tokens(answer),
                "total_tokens": prompt_tokens + tokens(answer),
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        }

    def embeddings(self, body: dict[str, Any], model: str) -> dict[str, Any]:
        texts = _inputs(body)
        dimension = int(body.get("dimensions") or self.dimension)
        data = []
        for index, text in enumerate(texts):
            vector = fake_vector(text, dimension)
            if body.get("encoding_format") == "base64":
                encoded: Any = base64.b64encode(np.asarray(vector, "<f4").tobytes()).decode()
            else:
                encoded = vector
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        used = sum(tokens(t) for t in texts)
        return {
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": used, "total_tokens": used},
        }

    def ollama_embed(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = _inputs(body)
        return {
            "model": body.get("model"),
            "embeddings": [fake_vector(t, self.dimension) for t in texts],
            "total_duration": 1000,
            "load_duration": 10,
            "prompt_eval_count": sum(tokens(t) for t in texts),
        }


def overlap(query: str, document: str) -> float:
    """The fake reranker's relevance: the share of the query's words in the document."""
    words = set(re.findall(r"\w+", query.lower()))
    found = set(re.findall(r"\w+", document.lower()))
    return round(len(words & found) / max(len(words), 1), 6)


def fake_ranking(query: str, documents: list[str]) -> list[tuple[int, float]]:
    scored = [(i, overlap(query, d)) for i, d in enumerate(documents)]
    return sorted(scored, key=lambda pair: (-pair[1], pair[0]))


def listwise_answer(prompt: str) -> str:
    query = _between(prompt, "<query>", "</query>")
    block = _between(prompt, "<passages>", "</passages>")
    documents = [d for d in re.split(r"^\[\d+\] ", block, flags=re.M) if d.strip()]
    return ", ".join(str(i + 1) for i, _ in fake_ranking(query, documents))


RERANK_SHAPES: dict[str, tuple[set[str], set[str]]] = {
    # family: (required fields, optional fields)
    "cohere": ({"model", "query", "documents"}, {"top_n", "max_tokens_per_doc"}),
    "voyage": ({"model", "query", "documents"}, {"top_k", "truncation", "return_documents"}),
    "jina": ({"model", "query", "documents"}, {"top_n", "return_documents"}),
    "compat": ({"query", "documents"}, {"model", "top_n", "return_documents"}),
}


def rerank_problem(family: str, body: dict[str, Any]) -> str | None:
    """Why ``body`` is not a valid request of that provider (None when it is)."""
    required, optional = RERANK_SHAPES[family]
    missing, unknown = required - set(body), set(body) - required - optional
    documents = body.get("documents")
    if missing or unknown:
        return f"missing {sorted(missing)}, unknown {sorted(unknown)}"
    if not isinstance(documents, list) or not all(isinstance(d, str) for d in documents):
        return "documents must be a list of strings"
    return None


def rerank_answer(family: str, body: dict[str, Any]) -> dict[str, Any]:
    ranking = fake_ranking(str(body["query"]), list(body["documents"]))
    limit = body.get("top_k" if family == "voyage" else "top_n") or len(ranking)
    results = [{"index": i, "relevance_score": s} for i, s in ranking[: int(limit)]]
    used = sum(tokens(d) for d in body["documents"]) + tokens(str(body["query"]))
    if family == "voyage":
        return {"object": "list", "data": results, "model": body["model"],
                "usage": {"total_tokens": used}}  # fmt: skip
    if family == "cohere":
        return {"id": "rerank-1", "results": results,
                "meta": {"billed_units": {"search_units": 1}}}  # fmt: skip
    return {"model": body.get("model"), "usage": {"total_tokens": used}, "results": results}


def _chunk(text: str) -> str:
    return _between(text, "<chunk>", "</chunk>")


def _inputs(body: dict[str, Any]) -> list[str]:
    value = body.get("input", [])
    return [value] if isinstance(value, str) else [str(v) for v in value]


def _error_body(family: str, status: int, message: str) -> dict[str, Any]:
    kinds = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error"}
    kinds |= {429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
    kind = kinds.get(status, "api_error")
    if family == "anthropic":
        return {"type": "error", "error": {"type": kind, "message": message}}
    if family == "ollama":
        return {"error": message}
    return {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}


def _handler(api: FakeAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

        def do_POST(self) -> None:  # noqa: N802
            api._enter()
            try:
                self._serve()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a simulated timeout)
            finally:
                api._leave()

        def _serve(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            parts = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
            headers = {k.lower(): v for k, v in self.headers.items()}
            key_seen = next((h for h in KEY_HEADERS if headers.get(h)), None)
            provided = _credential(headers)
            for name in KEY_HEADERS:
                if name in headers:
                    headers[name] = "<redacted>"
            body = json.loads(raw or b"{}")
            record = Recorded("POST", parts.path, query, headers, body, key_seen=key_seen)
            family, model = _route(parts.path, query, body)
            record.outcome = outcome = api._outcome(parts.path, raw)
            with api._lock:
                api.requests.append(record)
            if api.latency:
                time.sleep(api.latency)
            if outcome == "timeout":
                time.sleep(api.slow_seconds)
                outcome = "ok"
            if family == "unknown":
                return self._send(404, {"error": {"message": f"no route {parts.path}"}})
            if outcome != "ok":
                return self._fail(family, int(outcome), provided)
            if family in RERANK_SHAPES:
                problem = rerank_problem(family, body)
                if problem:
                    return self._send(400, {"message": problem})
                return self._send(200, rerank_answer(family, body))
            self._send(200, _answer(api, family, model, body))

        def _fail(self, family: str, status: int, provided: str) -> None:
            message = f"simulated {status}"
            if status == 401:
                message = f"invalid api key: {provided}"
            extra = {}
            if status == 429 and api.retry_after is not None:
                extra["retry-after"] = api.retry_after
            self._send(status, _error_body(family, status, message), extra)

        def _send(self, status: int, payload: Any, extra: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

    return Handler


def _credential(headers: dict[str, str]) -> str:
    value = headers.get("x-api-key") or headers.get("api-key") or headers.get("authorization", "")
    return value.removeprefix("Bearer ").strip()


def _route(path: str, query: dict[str, str], body: dict[str, Any]) -> tuple[str, str]:
    """(family, model): anthropic, chat, embeddings, ollama or unknown."""
    model = str(body.get("model", ""))
    if path == "/v1/messages":
        return "anthropic", model
    if path.endswith("/chat/completions") and not path.startswith("/openai/"):
        return "chat", model
    if path.endswith("/embeddings") and not path.startswith("/openai/"):
        return "embeddings", model
    if path == "/api/embed":
        return "ollama", model
    rerank = {"/v2/rerank": "cohere", "/voyage/v1/rerank": "voyage"}
    rerank |= {"/jina/v1/rerank": "jina", "/compat/rerank": "compat"}
    if path in rerank:
        return rerank[path], model
    found = AZURE_PATH.match(path)
    if found and query.get("api-version"):
        family = "chat" if found.group(2) == "chat/completions" else "embeddings"
        return family, found.group(1)
    return "unknown", model


def _answer(api: FakeAPI, family: str, model: str, body: dict[str, Any]) -> dict[str, Any]:
    if family == "anthropic":
        return api.anthropic(body)
    if family == "chat":
        return api.chat(body, model)
    if family == "embeddings":
        return api.embeddings(body, model)
    return api.ollama_embed(body)
