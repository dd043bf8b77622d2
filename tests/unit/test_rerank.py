"""Rerankers against the loopback fakes of their APIs (tests/fakeapi.py): request shapes,
keys, retries, validation of answers, and the search stage's fallback to fused order."""

from __future__ import annotations

import pytest

from hierdoc.config import RerankerSettings, Settings, load_settings
from hierdoc.errors import ProviderError
from hierdoc.providers.llm import context_model_from
from hierdoc.providers.rerank import (
    ApiReranker,
    LlmReranker,
    listwise_ranking,
    parse_ranking,
    reranker_from,
)
from hierdoc.providers.retry import RetryPolicy
from tests.fakeapi import FakeAPI, fake_ranking

QUERY = "erasure of personal data without undue delay"
DOCUMENTS = [
    "The controller shall keep records of processing activities.",
    "The data subject shall have the right to obtain the erasure of personal data "
    "without undue delay.",
    "Member States shall provide for supervisory authorities.",
    "Personal data shall be processed lawfully.",
]
EXPECTED = [i for i, _ in fake_ranking(QUERY, DOCUMENTS)]
NO_WAIT = RetryPolicy(delays=(0.0, 0.0, 0.0))
KEYS = {
    "cohere": "COHERE_API_KEY",
    "voyage": "VOYAGE_API_KEY",
    "jina": "JINA_API_KEY",
    "openai_compatible": "RERANKER_API_KEY",
}
BASES = {"cohere": "", "voyage": "/voyage", "jina": "/jina", "openai_compatible": "/compat"}


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in (*KEYS.values(), "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.setenv(variable, f"sk-test-{variable.lower()}")


def _api(provider: str, fake: FakeAPI) -> ApiReranker:
    return ApiReranker(provider, "rerank-test", fake.url + BASES[provider], policy=NO_WAIT)


@pytest.mark.parametrize("provider", sorted(KEYS))
def test_each_api_gets_its_request_shape_and_key(
    provider: str, fake_api: FakeAPI, keys: None
) -> None:
    fake_api.reset()
    ranking = _api(provider, fake_api).rerank(QUERY, DOCUMENTS)
    assert [i for i, _ in ranking] == EXPECTED
    assert ranking[0][1] > ranking[-1][1]
    (call,) = fake_api.calls("rerank")
    assert call.outcome == "ok" and call.key_seen == "authorization"
    assert call.body["documents"] == DOCUMENTS and call.body["query"] == QUERY
    count_field = "top_k" if provider == "voyage" else "top_n"
    assert call.body[count_field] == len(DOCUMENTS)


def test_a_wrong_request_shape_is_refused_by_the_fake(fake_api: FakeAPI, keys: None) -> None:
    """The fakes check shapes: a Voyage body sent to Jina's route is a 400, not an answer."""
    fake_api.reset()
    wrong = _api("voyage", fake_api)
    wrong.url = fake_api.url + "/jina/v1/rerank"
    with pytest.raises(ProviderError, match="400"):
        wrong.rerank(QUERY, DOCUMENTS)


def test_keys_come_from_the_environment_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    monkeypatch.delenv("CO_API_KEY", raising=False)
    with pytest.raises(ProviderError, match="COHERE_API_KEY or CO_API_KEY"):
        ApiReranker("cohere", "rerank-v3.5")
    with pytest.raises(Exception, match="api_key|extra"):
        RerankerSettings(provider="cohere", name="x", api_key="sk-secret")  # type: ignore[call-arg]


def test_retries_then_answers(fake_api: FakeAPI, keys: None) -> None:
    fake_api.reset()
    fake_api.script(["429", "500", "ok"])
    ranking = _api("cohere", fake_api).rerank(QUERY, DOCUMENTS)
    assert [i for i, _ in ranking] == EXPECTED
    assert [c.outcome for c in fake_api.calls("rerank")] == ["429", "500", "ok"]


def test_a_fatal_status_is_not_retried(fake_api: FakeAPI, keys: None) -> None:
    fake_api.reset()
    fake_api.script(["401"])
    with pytest.raises(ProviderError, match="401") as raised:
        _api("jina", fake_api).rerank(QUERY, DOCUMENTS)
    assert len(fake_api.calls("rerank")) == 1
    assert "sk-test" not in str(raised.value)  # the echoed key is redacted


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"results": [{"index": 9, "relevance_score": 1.0}]},
        {"results": [{"index": 0, "relevance_score": 1.0}, {"index": 0, "relevance_score": 0.5}]},
        {"results": [{"index": True, "relevance_score": 1.0}]},
        {"results": [{"index": 1, "relevance_score": "high"}]},
    ],
)
def test_malformed_answers_are_errors(payload: dict) -> None:
    with pytest.raises(ProviderError, match="malformed"):
        parse_ranking(payload, "results", 4)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_the_llm_reranker_asks_listwise_and_validates(
    provider: str, fake_api: FakeAPI, keys: None
) -> None:
    fake_api.reset()
    base = fake_api.url if provider == "anthropic" else fake_api.url + "/v1"
    model = context_model_from({"provider": provider, "name": "m", "base_url": base})
    ranking = LlmReranker(model, policy=NO_WAIT).rerank(QUERY, DOCUMENTS)
    assert [i for i, _ in ranking] == EXPECTED
    assert [s for _, s in ranking] == sorted((s for _, s in ranking), reverse=True)
    prompt = str(fake_api.requests[-1].body["messages"][0]["content"])
    assert "<passages>" in prompt and "[4] Personal data" in prompt


def test_listwise_answers_are_checked() -> None:
    assert [i for i, _ in listwise_ranking("3, 3, 9, 1", 4)] == [2, 0, 1, 3]
    with pytest.raises(ProviderError, match="names no passage"):
        listwise_ranking("I cannot rank these.", 4)


def test_holodeck_reranking_fields_map_onto_the_reranker(tmp_path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text(
        "tools:\n  - name: regs\n    type: hierarchical_document\n    source: docs\n"
        "    enable_reranking: true\n"
        "    reranker_model: {provider: cohere, name: rerank-v3.5}\n"
    )
    settings = load_settings(agent)
    assert settings.reranker == RerankerSettings(provider="cohere", name="rerank-v3.5")
    llm = Settings(enable_reranking=True, reranker_model={"provider": "openai", "name": "gpt"})
    assert llm.reranker is not None and llm.reranker.provider == "llm"
    with pytest.raises(Exception, match="reranker_model"):
        Settings(enable_reranking=True)


def test_reranker_from_settings(keys: None) -> None:
    cohere = reranker_from(RerankerSettings(provider="cohere", name="rerank-v3.5"))
    assert cohere.name == "cohere:rerank-v3.5"
    assert cohere.url == "https://api.cohere.com/v2/rerank"  # type: ignore[attr-defined]
    with pytest.raises(ProviderError, match="base_url"):
        reranker_from(RerankerSettings(provider="openai_compatible", name="bge"))
    with pytest.raises(ProviderError, match="context_model"):
        reranker_from(RerankerSettings(provider="llm"))


GDPR_LIKE = """# Regulation

## Article 1 Subject matter

This Regulation lays down rules on the protection of natural persons.

## Article 17 Right to erasure

The data subject shall have the right to obtain from the controller the erasure of
personal data concerning him or her without undue delay.

## Article 30 Records

Each controller shall maintain a record of processing activities under its responsibility.

## Article 51 Supervisory authority

Each Member State shall provide for one or more independent public authorities.
"""


@pytest.fixture
def small_index(tmp_path):
    from hierdoc import Index
    from tests.hash_embedder import HashEmbedder

    (tmp_path / "reg.md").write_text(GDPR_LIKE)
    index = Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder(), mode="w")  # type: ignore[arg-type]
    index.ingest(tmp_path / "reg.md")
    yield index
    index.close()


RERANKED_QUERIES = (
    "rules on natural persons and public authorities",
    "public authorities processing personal data",
    "natural persons and the erasure of data",
    "supervisory authority rules for controllers",
)


def test_search_reranks_the_fused_top_n(small_index, fake_api: FakeAPI, keys: None) -> None:
    reranker = RerankerSettings(
        provider="jina", name="jina-reranker", base_url=fake_api.url + "/jina"
    )
    for query in RERANKED_QUERIES:  # the first whose fused order the reranker changes
        fake_api.reset()
        plain = small_index.search(query, top_k=4)
        reranked = small_index.search(query, top_k=4, reranker=reranker)
        (call,) = fake_api.calls("rerank")
        sent = call.body["documents"]
        expected_order = [i for i, _ in fake_ranking(query, sent)]
        if expected_order != sorted(expected_order):
            break
    else:
        pytest.fail("the reranker kept the fused order of every query: nothing is tested")
    fused_ids = [r.chunk_id for r in plain.results]
    assert len(sent) == len(fused_ids) >= 3
    assert [r.chunk_id for r in reranked.results] == [fused_ids[i] for i in expected_order]
    scores = [r.scores["rerank"] for r in reranked.results]
    assert scores == sorted(scores, reverse=True) and all(s is not None for s in scores)
    assert "rerank" not in plain.results[0].scores
    assert (
        small_index.search(query, top_k=4, reranker=reranker, rerank=False).results[0].chunk_id
        == fused_ids[0]
    )


def test_a_failing_reranker_leaves_the_fused_order_with_a_note(
    small_index, fake_api: FakeAPI, keys: None
) -> None:
    fake_api.reset()
    fake_api.script(["401"])
    reranker = RerankerSettings(provider="cohere", name="rerank-v3.5", base_url=fake_api.url)
    query = "erasure of personal data"
    plain = small_index.search(query, top_k=3)
    failed = small_index.search(query, top_k=3, reranker=reranker)
    assert [r.chunk_id for r in failed.results] == [r.chunk_id for r in plain.results]
    assert any("reranking by cohere:rerank-v3.5 failed" in note for note in failed.notes)
