"""API embedders (OpenAI, Azure OpenAI, Ollama) against the loopback fake API."""

from __future__ import annotations

import numpy as np
import pytest

from hierdoc.models import EmbedInput
from hierdoc.providers.embed_api import (
    MAX_INPUT_CHARS,
    OllamaEmbedder,
    OpenAIEmbedder,
    batches,
    embed_text,
    embedder_from,
    is_api_model,
)
from hierdoc.providers.llm import ProviderError
from tests.fakeapi import FakeAPI, fake_vector

pytest.importorskip("openai")

OPENAI_KEY = "sk-openai-embed-SECRET-55aa"
AZURE_KEY = "azure-embed-SECRET-66bb"


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", AZURE_KEY)
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    for variable in ("OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "OLLAMA_HOST"):
        monkeypatch.delenv(variable, raising=False)


class Sleeps(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def openai(api: FakeAPI, model: str = "text-embedding-3-small", **options) -> OpenAIEmbedder:
    embedder = OpenAIEmbedder(model, dimensions=32, sleep=options.pop("sleep", Sleeps()), **options)
    # The official endpoint, redirected to the fake (the client keeps the key from the env).
    embedder._client = embedder._client.with_options(base_url=api.url + "/v1")
    return embedder


def inputs(count: int) -> list[EmbedInput]:
    return [
        EmbedInput(f"Act > Section {n}", f"Section {n}. Text of section {n}.") for n in range(count)
    ]


def test_openai_batches_inputs_and_returns_one_unit_vector_each(fake_api):
    embedder = openai(fake_api)
    vectors = embedder.embed_documents(inputs(250))
    requests = fake_api.calls("/v1/embeddings")
    assert [len(r.body["input"]) for r in requests] == [96, 96, 58]
    assert all(r.body["model"] == "text-embedding-3-small" for r in requests)
    assert all(r.body["dimensions"] == 32 for r in requests)
    assert requests[0].key_seen == "authorization"
    assert len(vectors) == 250 and all(v.shape == (1, 32) for v in vectors)
    assert vectors[0].dtype == np.float32
    assert np.allclose(np.linalg.norm(np.vstack(vectors), axis=1), 1.0, atol=1e-5)
    expected = fake_vector("Act > Section 3\nSection 3. Text of section 3.", 32)
    assert np.allclose(vectors[3][0], expected, atol=1e-6)  # base64 decoded right
    assert embedder.texts_embedded == 250 and embedder.tokens_used > 0
    query = embedder.embed_query("Section 3")
    assert query.shape == (32,)
    assert embedder.name == "openai:text-embedding-3-small@32" and embedder.dimension == 32


def test_batches_respect_the_character_budget():
    texts = ["a" * 400] * 10
    assert [len(b) for b in batches(texts, 96, 1_000)] == [2, 2, 2, 2, 2]
    assert [len(b) for b in batches(["a" * 5_000], 96, 1_000)] == [1]  # never an empty batch
    assert list(batches([], 96, 1_000)) == []


def test_long_inputs_are_cut_not_refused(fake_api):
    embedder = openai(fake_api, max_input_chars=1_000)
    embedder.embed_documents([EmbedInput("ctx", "x" * 50_000), EmbedInput("", "")])
    sent = fake_api.calls()[0].body["input"]
    assert len(sent[0]) == 1_000 and sent[0].startswith("ctx\nxxx")
    assert sent[1] == " "  # OpenAI rejects an empty string
    assert MAX_INPUT_CHARS == 24_000
    assert embed_text(EmbedInput("", "short"), 10) == "short"


def test_dimension_from_the_table_the_first_response_or_a_probe(fake_api):
    assert OpenAIEmbedder("text-embedding-3-large").dimension == 3072  # the table: no request
    url = fake_api.url + "/v1"
    probed = OpenAIEmbedder("in-house-embedder", base_url=url)
    assert probed.dimension == 32  # one probe request
    assert len(fake_api.calls()) == 1
    answered = OpenAIEmbedder("in-house-embedder", base_url=url)
    answered.embed_documents(inputs(2))
    assert answered.dimension == 32 and len(fake_api.calls()) == 2  # from the response


def test_a_model_returning_another_dimension_is_an_error(fake_api):
    embedder = openai(fake_api)
    embedder._dimension = 64
    with pytest.raises(ProviderError, match="32-dimensional vectors, expected 64"):
        embedder.embed_documents(inputs(1))


def test_openai_retries_429_and_5xx_then_gives_a_clear_error(fake_api):
    sleeps = Sleeps()
    embedder = openai(fake_api, sleep=sleeps)
    fake_api.retry_after = "2"
    fake_api.script(["429", "500", "ok"])
    assert len(embedder.embed_documents(inputs(3))) == 3
    assert sleeps == [2.0, 2.0]  # Retry-After, then the second backoff step
    assert embedder.retries == 2 and embedder.requests == 3
    sleeps.clear()
    fake_api.script(["503"] * 4)
    with pytest.raises(ProviderError, match="503"):
        embedder.embed_documents(inputs(3))
    assert sleeps == [1.0, 2.0, 4.0]


def test_client_errors_are_not_retried_and_the_key_is_redacted(fake_api):
    sleeps = Sleeps()
    embedder = openai(fake_api, sleep=sleeps)
    fake_api.script(["401"])
    with pytest.raises(ProviderError) as raised:
        embedder.embed_documents(inputs(1))
    assert "401" in str(raised.value) and OPENAI_KEY not in str(raised.value)
    assert raised.value.__cause__ is None
    assert sleeps == [] and len(fake_api.calls()) == 1


def test_azure_embeddings_use_the_deployment_path(fake_api, monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", fake_api.url)
    embedder = embedder_from({"provider": "azure_openai", "name": "embed-deployment"})
    vectors = embedder.embed_documents(inputs(3))
    (request,) = fake_api.calls()
    assert request.path == "/openai/deployments/embed-deployment/embeddings"
    assert request.query == {"api-version": "2024-10-21"} and request.key_seen == "api-key"
    assert len(vectors) == 3 and embedder.dimension == 32
    assert embedder.name == "azure_openai:embed-deployment"


def test_compatible_server_by_base_url(fake_api, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    embedder = embedder_from(
        {"provider": "openai", "name": "bge-small", "base_url": fake_api.url + "/v1"}
    )
    embedder.embed_documents(inputs(2))
    assert fake_api.calls()[0].body["encoding_format"] == "float"


def test_ollama_embed_endpoint_batches_and_retries(fake_api):
    sleeps = Sleeps()
    embedder = embedder_from(
        {
            "provider": "ollama",
            "name": "nomic-embed-text",
            "base_url": fake_api.url,
            "batch_size": 4,
        },
        sleep=sleeps,
    )
    assert isinstance(embedder, OllamaEmbedder)
    assert embedder.name == "ollama:nomic-embed-text"
    fake_api.dimension = 768
    fake_api.retry_after = None
    fake_api.script(["429"])
    vectors = embedder.embed_documents(inputs(10))
    requests = fake_api.calls("/api/embed")
    assert [len(r.body["input"]) for r in requests] == [4, 4, 4, 2]  # the 429, then 3 batches
    assert requests[0].body["model"] == "nomic-embed-text" and requests[0].key_seen is None
    assert sleeps == [1.0]
    assert len(vectors) == 10 and vectors[0].shape == (1, 768)
    assert embedder.dimension == 768  # from the table
    assert embedder.tokens_used > 0


def test_ollama_model_not_found_is_a_clear_error(fake_api):
    embedder = OllamaEmbedder("no-such-model", base_url=fake_api.url, sleep=Sleeps())
    fake_api.script(["404"])
    with pytest.raises(ProviderError, match="404"):
        embedder.embed_query("anything")
    assert len(fake_api.calls()) == 1


def test_ollama_host_from_the_environment(fake_api, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", fake_api.url.removeprefix("http://"))
    embedder = embedder_from("ollama:all-minilm")
    assert embedder.url == fake_api.url + "/api/embed"
    assert embedder.dimension == 384


def test_embedder_from_strings_and_errors(monkeypatch):
    assert embedder_from("openai:text-embedding-3-small").name == "openai:text-embedding-3-small"
    with pytest.raises(ProviderError, match="provider:name"):
        embedder_from("text-embedding-3-small")
    with pytest.raises(ProviderError, match="unknown embedding provider 'cohere'"):
        embedder_from({"provider": "cohere", "name": "embed-v3"})
    with pytest.raises(ProviderError, match="environment variables only"):
        embedder_from({"provider": "openai", "name": "x", "api_key": "sk-in-config-1"})
    with pytest.raises(ProviderError, match="unknown field"):
        embedder_from({"provider": "ollama", "name": "x", "colour": "blue"})
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ProviderError, match="OPENAI_API_KEY"):
        embedder_from("openai:text-embedding-3-small")


def test_api_models_are_told_from_the_local_one():
    from hierdoc.config import ModelRef

    assert is_api_model("openai:text-embedding-3-small")
    assert is_api_model(ModelRef(provider="ollama", name="nomic-embed-text"))
    assert is_api_model({"provider": "azure_openai", "name": "deployment"})
    assert not is_api_model(None)
    assert not is_api_model("sentence-transformers/all-MiniLM-L6-v2")
    assert not is_api_model(ModelRef(provider="local", name="all-MiniLM-L6-v2"))
