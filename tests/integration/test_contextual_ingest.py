"""Contextual retrieval and API embedders wired into ingest, against the loopback fake API."""

import pytest

from hierdoc import Index, Settings
from tests.fakeapi import FakeAPI

pytest.importorskip("anthropic")
pytest.importorskip("openai")

DOCS = {
    "lease.md": "# Lease\n\n## Section 1 - Rent\n\nThe Tenant shall pay rent monthly.\n\n"
    "## Section 2 - Repairs\n\nThe Landlord shall repair the roof and the boiler.\n",
    "policy.md": "# Travel Policy\n\n## Article 1 - Flights\n\nEconomy class is required for "
    "flights under six hours.\n\n## Article 2 - Hotels\n\nHotels are booked through the portal.\n",
}


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    return folder


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-test-key")


def _settings(api: FakeAPI, **extra) -> Settings:
    model = {"provider": "anthropic", "name": "claude-haiku-4-5", "base_url": api.url}
    return Settings(context_model=model, **extra)


def test_llm_contexts_are_indexed_cached_and_retried(tmp_path, corpus, embedder) -> None:
    # The chunk block (not the document block) of Article 1 fails: a 400 is not retried.
    api = FakeAPI(poison="six hours.\\n</chunk>", poison_outcome="400")
    with api, Index.open(tmp_path / "index", _settings(api), embedder=embedder) as index:
        index.ingest([corpus])
        messages = api.calls("/v1/messages")
        assert len(messages) == 4
        for call in messages:
            document_block = call.body["messages"][0]["content"][0]
            assert document_block["cache_control"] == {"type": "ephemeral"}
            assert "<document>" in document_block["text"]
        result = index.search("boiler repairs", top_k=1).results[0]
        assert result.context_source == "llm"
        assert result.context.startswith("Lease > Section 2 - Repairs\n")
        assert result.content.startswith("## Section 2 - Repairs")
        flights = index.search("economy class flights", top_k=1).results[0]
        assert flights.context_source == "structural"
        contexts = index.stats().to_dict()["contexts"]
        assert contexts["chunks_llm"] == 3 and contexts["chunks_structural"] == 1
        assert contexts["generated"] == 3 and contexts["failed"] == 1

        api.poison = None
        api.reset()
        report = index.ingest([corpus])
        assert len(api.calls("/v1/messages")) == 1, "only the failed chunk is asked again"
        assert report.updated == [str(corpus / "policy.md")]
        assert index.search("economy class flights", top_k=1).results[0].context_source == "llm"

        api.reset()
        index.ingest([corpus])
        index.ingest([corpus], force=True)
        assert api.calls("/v1/messages") == [], "unchanged and forced ingests pay nothing"


def test_api_embedder_builds_the_index_and_a_mismatch_is_refused(tmp_path, corpus) -> None:
    with FakeAPI() as api:
        model = {
            "provider": "openai",
            "name": "text-embedding-3-small",
            "base_url": api.url,
            "dimensions": api.dimension,
        }
        settings = Settings(embedding_model=model)
        with Index.open(tmp_path / "index", settings) as index:
            index.ingest([corpus])
            assert index.stats().embedding_model == f"openai:text-embedding-3-small@{api.dimension}"
            assert index.search("Article 2", top_k=1).results[0].section_id == "article-2"
            assert api.calls("embeddings")
        with pytest.raises(ValueError, match="built with openai:text-embedding-3-small"):
            Index.open(tmp_path / "index", Settings())
    with Index.open(tmp_path / "index", Settings(), rebuild=True) as rebuilt:
        assert rebuilt.stats().documents == 0
        assert rebuilt.stats().embedding_model == "sentence-transformers/all-MiniLM-L6-v2"
