"""Context model providers through the official SDKs, against the loopback fake API."""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest

from hierdoc.providers.llm import (
    CHUNK_CONTEXT_PROMPT,
    DOCUMENT_CONTEXT_PROMPT,
    AnthropicContextModel,
    OpenAIContextModel,
    ProviderError,
    context_model_from,
    estimate_tokens,
    truncate_document,
)
from hierdoc.providers.retry import classify, describe

pytest.importorskip("anthropic")
pytest.importorskip("openai")

ANTHROPIC_KEY = "sk-ant-test-SECRET-a1b2c3d4"
OPENAI_KEY = "sk-openai-test-SECRET-e5f6g7"
AZURE_KEY = "azure-test-SECRET-h8i9j0"
DOCUMENT = "Data Protection Act\n\n" + "\n".join(
    f"Section {n}. Rule {n} applies." for n in range(40)
)
CHUNK = "Section 7. Rule 7 applies."


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", AZURE_KEY)
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    for variable in (
        "ANTHROPIC_BASE_URL",
        "OPENAI_BASE_URL",
        "AZURE_OPENAI_ENDPOINT",
        "OLLAMA_HOST",
    ):
        monkeypatch.delenv(variable, raising=False)


def situate(model, document=DOCUMENT, chunk=CHUNK, max_tokens=100):
    async def run():
        try:
            return await model.situate(document, chunk, max_tokens)
        finally:
            await model.aclose()

    return asyncio.run(run())


def anthropic(fake_api, **fields):
    return context_model_from(
        {"provider": "anthropic", "name": "claude-haiku-4-5", "base_url": fake_api.url, **fields}
    )


def test_anthropic_request_caches_the_document_block(fake_api):
    answer = situate(anthropic(fake_api))
    (request,) = fake_api.calls("/v1/messages")
    assert request.key_seen and request.headers[request.key_seen] == "<redacted>"
    assert request.body["model"] == "claude-haiku-4-5"
    assert request.body["max_tokens"] == 100
    assert "temperature" not in request.body
    document_block, chunk_block = request.body["messages"][0]["content"]
    assert document_block["cache_control"] == {"type": "ephemeral"}
    assert document_block["text"] == DOCUMENT_CONTEXT_PROMPT.format(doc_content=DOCUMENT)
    assert "cache_control" not in chunk_block
    assert chunk_block["text"] == CHUNK_CONTEXT_PROMPT.format(chunk_content=CHUNK)
    assert answer.text.startswith("From Data Protection Act: this chunk covers Section 7")


def test_anthropic_usage_counts_cache_write_then_reads(fake_api):
    model = anthropic(fake_api)

    async def three():
        answers = [await model.situate(DOCUMENT, f"Section {n}.", 50) for n in range(3)]
        await model.aclose()
        return answers

    first, second, third = asyncio.run(three())
    document_tokens = first.cache_creation_tokens
    assert document_tokens >= estimate_tokens(DOCUMENT)
    assert first.cache_read_tokens == 0
    assert (second.cache_creation_tokens, second.cache_read_tokens) == (0, document_tokens)
    assert third.cache_read_tokens == document_tokens
    assert 0 < first.input_tokens < document_tokens  # only the chunk part is billed in full
    assert first.output_tokens > 0
    assert (fake_api.cache_writes, fake_api.cache_reads) == (1, 2)


def test_anthropic_temperature_passed_through_when_set(fake_api):
    situate(anthropic(fake_api, temperature=0.0))
    assert fake_api.calls()[0].body["temperature"] == 0.0


def test_openai_chat_puts_the_document_first_and_reports_cached_tokens(fake_api):
    model = context_model_from({"provider": "openai", "name": "gpt-4.1-mini"})
    assert isinstance(model, OpenAIContextModel)
    model.base_url = fake_api.url + "/v1"  # the official endpoint, redirected to the fake
    first = situate(model)
    second = situate(model, chunk="Section 8. Rule 8 applies.")
    first_request, _ = fake_api.calls("/v1/chat/completions")
    prompt = first_request.body["messages"][0]["content"]
    assert prompt.startswith("<document>\nData Protection Act")
    assert prompt.endswith("Answer only with the succinct context and nothing else.")
    assert first_request.body["max_completion_tokens"] == 100
    assert first_request.key_seen == "authorization"
    assert first.cache_read_tokens == 0 and second.cache_read_tokens > 0
    assert second.input_tokens < first.input_tokens
    assert model.name == "openai:gpt-4.1-mini"


def test_azure_chat_uses_the_deployment_path_and_api_version(fake_api, monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", fake_api.url)
    model = context_model_from({"provider": "azure_openai", "name": "contexts-deployment"})
    answer = situate(model)
    (request,) = fake_api.calls()
    assert request.path == "/openai/deployments/contexts-deployment/chat/completions"
    assert request.query == {"api-version": "2024-10-21"}
    assert request.key_seen == "api-key"
    assert answer.text.startswith("From Data Protection Act")
    assert model.name == "azure_openai:contexts-deployment"


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_compatible_server_by_base_url_needs_no_key(fake_api, monkeypatch, provider):
    monkeypatch.delenv("OPENAI_API_KEY")
    base_url = fake_api.url + "/v1" if provider == "openai" else fake_api.url
    model = context_model_from({"provider": provider, "name": "llama3.2", "base_url": base_url})
    answer = situate(model, max_tokens=60)
    (request,) = fake_api.calls("/v1/chat/completions")
    assert request.body["max_tokens"] == 60  # what Ollama, vLLM and LM Studio understand
    assert answer.text.startswith("From Data Protection Act")


def test_ollama_url_from_the_environment(monkeypatch, fake_api):
    monkeypatch.setenv("OLLAMA_HOST", fake_api.url.removeprefix("http://"))
    model = context_model_from({"provider": "ollama", "name": "llama3.2"})
    assert model.base_url == fake_api.url + "/v1"
    situate(model)
    assert len(fake_api.calls("/v1/chat/completions")) == 1


def test_truncation_keeps_beginning_and_end_and_flags():
    document = "TITLE OF THE ACT\n" + "".join(f"line {n} of the middle\n" for n in range(2000))
    document += "SCHEDULE 9 - SIGNATURES\n"
    text, truncated = truncate_document(document, max_document_tokens=1000)
    assert truncated
    assert estimate_tokens(text) <= 1000
    assert text.startswith("TITLE OF THE ACT\n")
    assert text.endswith("SCHEDULE 9 - SIGNATURES\n")
    assert "characters omitted from the middle of the document" in text
    assert truncate_document(document, max_document_tokens=None) == (document, False)
    short = "A short act.\n"
    assert truncate_document(short, 1000) == (short, False)
    assert truncate_document(document, 1000) == (text, True)  # the same text for every chunk


def test_oversized_document_is_sent_truncated(fake_api):
    document = "HEAD OF DOCUMENT\n" + "x" * 50_000 + "\nTAIL OF DOCUMENT"
    answer = situate(anthropic(fake_api, max_document_tokens=2_000), document=document)
    assert answer.truncated
    sent = fake_api.calls()[0].body["messages"][0]["content"][0]["text"]
    assert "HEAD OF DOCUMENT" in sent and "TAIL OF DOCUMENT" in sent
    assert len(sent) < 9_000
    assert not situate(anthropic(fake_api)).truncated


def test_missing_key_unknown_provider_and_keys_in_config_are_clear_errors(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        context_model_from({"provider": "anthropic", "name": "claude-haiku-4-5"})
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ProviderError, match="OPENAI_API_KEY"):
        context_model_from({"provider": "openai", "name": "gpt-4.1-mini"})
    with pytest.raises(ProviderError, match="unknown context model provider 'cohere'"):
        context_model_from({"provider": "cohere", "name": "command"})
    with pytest.raises(ProviderError, match="environment variables only") as raised:
        context_model_from({"provider": "openai", "name": "x", "api_key": "sk-in-config-123"})
    assert "sk-in-config-123" not in str(raised.value)
    with pytest.raises(ProviderError, match="AZURE_OPENAI_ENDPOINT"):
        context_model_from({"provider": "azure_openai", "name": "deployment"})


def test_model_ref_from_config_is_accepted(fake_api):
    from hierdoc.config import ModelRef

    ref = ModelRef(provider="anthropic", name="claude-haiku-4-5", base_url=fake_api.url)
    model = context_model_from(ref)
    assert isinstance(model, AnthropicContextModel)
    assert situate(model).text


@pytest.mark.parametrize("family", ["anthropic", "openai"])
def test_sdk_errors_are_classified_and_sdk_retries_are_off(fake_api, family):
    if family == "anthropic":
        model = anthropic(fake_api)
    else:
        model = context_model_from(
            {"provider": "openai", "name": "m", "base_url": fake_api.url + "/v1"}
        )
    fake_api.slow_seconds = 0.8
    fake_api.retry_after = "3"
    seen = {}
    for outcome in ("429", "500", "timeout", "401", "400"):
        model.timeout = 0.3 if outcome == "timeout" else 30.0  # a client per call: read anew
        fake_api.script([outcome])
        with pytest.raises(Exception) as raised:
            situate(model)
        seen[outcome] = classify(raised.value)
    assert len(fake_api.calls()) == 5  # one request each: no hidden SDK retry
    assert (seen["429"].kind, seen["429"].retry_after) == ("rate_limit", 3.0)
    assert (seen["500"].kind, seen["500"].status) == ("server", 500)
    assert seen["timeout"].kind == "timeout"
    assert seen["401"].kind == "fatal"
    assert seen["400"].kind == "client" and not seen["400"].retryable


def test_connection_error_is_retryable(keys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = context_model_from(
        {"provider": "anthropic", "name": "m", "base_url": f"http://127.0.0.1:{port}"}
    )
    with pytest.raises(Exception) as raised:
        situate(model)
    assert classify(raised.value).kind == "connection"


def test_echoed_key_is_redacted(fake_api, caplog):
    caplog.set_level(logging.DEBUG)
    fake_api.script(["401"])
    with pytest.raises(Exception) as raised:
        situate(anthropic(fake_api))
    assert ANTHROPIC_KEY in str(raised.value)  # the server echoed it: the SDK keeps it...
    text = describe(raised.value)
    assert ANTHROPIC_KEY not in text and "[redacted]" in text  # ...hierdoc does not
    assert "401" in text
    assert ANTHROPIC_KEY not in caplog.text
    assert ANTHROPIC_KEY not in repr(anthropic(fake_api))


def test_one_model_serves_several_event_loops(fake_api):
    model = anthropic(fake_api)
    assert situate(model).text == situate(model).text
    assert len(fake_api.calls()) == 2
