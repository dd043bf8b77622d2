"""Ingest's error boundary: per document, also inside a batch; failures never delete; a model
that refuses for good stops the run. Real index, real files, the loopback fake API."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from hierdoc import FatalProviderError, Index, Settings, TextDocument
from hierdoc.models import IngestReport
from hierdoc.pipeline import ingest
from hierdoc.providers.embed_api import embedder_from
from tests.fakeapi import FakeAPI
from tests.integration.test_ingest import ALPHA, BETA, GAMMA

pytest.importorskip("anthropic")
pytest.importorskip("openai")

ANTHROPIC_KEY = "sk-ant-ingest-SECRET-11aa"
OPENAI_KEY = "sk-openai-ingest-SECRET-22bb"
EMBEDDER = "openai:text-embedding-3-small"
CONTEXT_MODEL = "anthropic:claude-haiku-4-5"
BETA_PROMPT = "<document>\\n# Beta Policy"
"""In the JSON body of every context request for beta.md, and of no other request."""


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)


@pytest.fixture
def api(fake_api: FakeAPI) -> FakeAPI:
    return fake_api


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in (("alpha.md", ALPHA), ("beta.md", BETA), ("gamma.md", GAMMA)):
        (folder / name).write_text(text)
    return folder


@pytest.fixture
def one_document_per_batch(monkeypatch):
    """Each document is embedded and written before the next one is read."""
    monkeypatch.setattr(ingest, "EMBED_BATCH", 1)


def _open(tmp_path: Path, api: FakeAPI, llm: bool = False) -> Index:
    ref = {"provider": "openai", "name": "text-embedding-3-small", "base_url": api.url}
    embedder = embedder_from({**ref, "dimensions": api.dimension}, sleep=lambda seconds: None)
    model = {"provider": "anthropic", "name": "claude-haiku-4-5", "base_url": api.url}
    settings = Settings(context_model=model) if llm else Settings()
    return Index.open(tmp_path / "index", settings, embedder=embedder)


def _paths(corpus: Path, *names: str) -> list[str]:
    return [str(corpus / name) for name in names]


def _problems(report: IngestReport) -> dict[str, str]:
    return {problem.source: problem.reason for problem in report.problems}


def _stored_text(index: Index, source: str) -> str:
    return "\n".join(stored.chunk.content for stored in index.store.chunks_of_source(source))


def _keyword_sources(index: Index, query: str) -> list[str]:
    return [r.source for r in index.search(query, mode="keyword", top_k=5).results]


def test_a_document_the_embedder_refuses_fails_alone_and_its_batch_is_written(
    tmp_path, corpus, api
) -> None:
    api.poison, api.poison_outcome = "spindle bearings", "400"  # a 400 is this input's fault
    alpha, beta, gamma = _paths(corpus, "alpha.md", "beta.md", "gamma.md")
    with _open(tmp_path, api) as index:
        report = index.ingest([corpus])
        first = api.calls("embeddings")[0].body["input"]
        assert any("spindle" in text for text in first) and any("Buyer" in text for text in first)
        assert sorted(report.added) == [alpha, beta]
        assert list(_problems(report)) == [gamma]
        assert "400" in _problems(report)[gamma]
        assert "previous version" not in _problems(report)[gamma], "gamma was never indexed"
        assert report.updated == [] and report.removed == []
        assert index.stats().documents == 2
        assert _keyword_sources(index, "purchase price thirty days")[0] == alpha
        assert _keyword_sources(index, "records retained seven years")[0] == beta
        assert gamma not in index.store.document_hashes()

        api.poison = None
        again = index.ingest([corpus])
        assert again.added == [gamma] and sorted(again.unchanged) == [alpha, beta]
        assert _keyword_sources(index, "spindle bearings")[0] == gamma


def test_an_embedder_outage_keeps_the_previous_versions_of_the_batch(tmp_path, corpus, api) -> None:
    alpha, beta, gamma = _paths(corpus, "alpha.md", "beta.md", "gamma.md")
    with _open(tmp_path, api) as index:
        index.ingest([corpus])
        hashes = index.store.document_hashes()
        (corpus / "alpha.md").write_text(ALPHA.replace("thirty days", "forty-five days"))
        (corpus / "beta.md").write_text(BETA.replace("seven years", "ten years (revised)"))
        api.poison, api.poison_outcome = "forty-five days", "500"
        api.reset()

        report = index.ingest([corpus])

        assert len(api.calls("embeddings")) == 4, "one batch, retried 3 times, not split up"
        problems = _problems(report)
        assert sorted(problems) == [alpha, beta]
        for reason in problems.values():
            assert "500" in reason and "previous version stays indexed" in reason
        assert report.updated == [] and report.removed == [] and report.unchanged == [gamma]
        assert index.store.document_hashes() == hashes, "the next run retries both"
        assert "thirty days" in _stored_text(index, alpha)
        assert "seven years" in _stored_text(index, beta)
        assert _keyword_sources(index, "purchase price thirty days")[0] == alpha
        assert _keyword_sources(index, "records retained seven years")[0] == beta

        api.poison = None
        recovered = index.ingest([corpus])
        assert sorted(recovered.updated) == [alpha, beta] and not recovered.problems
        assert "forty-five days" in _stored_text(index, alpha)
        assert "thirty days" not in _stored_text(index, alpha)
        assert "ten years (revised)" in _stored_text(index, beta)


def test_a_store_error_fails_only_its_document_and_keeps_its_previous_version(
    tmp_path, api
) -> None:
    first = [
        TextDocument("doc:a", "", "A", chunks=["Alpha clause on payment."], chunk_ids=["a-0"]),
        TextDocument("doc:b", "", "B", chunks=["Beta clause on retention."], chunk_ids=["b-0"]),
    ]
    # doc:b's new version reuses doc:a's chunk id: the real index refuses that write.
    second = [
        first[0],
        TextDocument("doc:b", "", "B", chunks=["Beta clause, revised."], chunk_ids=["a-0"]),
        TextDocument("doc:c", "", "C", chunks=["Gamma clause on bearings."], chunk_ids=["c-0"]),
    ]
    with _open(tmp_path, api) as index:
        index.ingest_texts(first)
        hashes = index.store.document_hashes()
        report = index.ingest_texts(second)
        assert report.unchanged == ["doc:a"] and report.added == ["doc:c"]
        assert list(_problems(report)) == ["doc:b"]
        assert _problems(report)["doc:b"].startswith("not written: ")
        assert "previous version stays indexed" in _problems(report)["doc:b"]
        assert index.store.document_hashes()["doc:b"] == hashes["doc:b"]
        kept = index.store.get_chunks(["a-0", "b-0"])
        assert kept["b-0"].chunk.content == "Beta clause on retention."
        assert kept["a-0"].chunk.source == "doc:a"
        assert _keyword_sources(index, "retention") == ["doc:b"]
        assert _keyword_sources(index, "bearings") == ["doc:c"]


@pytest.mark.parametrize(("status", "fix"), [("401", "API key"), ("403", "no access")])
def test_an_embedder_refusing_for_good_stops_the_run_and_keeps_what_was_written(
    tmp_path, corpus, api, one_document_per_batch, status, fix
) -> None:
    alpha, beta, gamma = _paths(corpus, "alpha.md", "beta.md", "gamma.md")
    api.script(["ok", status])
    with _open(tmp_path, api) as index:
        with pytest.raises(FatalProviderError) as caught:
            index.ingest([corpus])
        message = str(caught.value)
        assert isinstance(caught.value, ingest.IngestStopped)
        assert message.startswith("ingest stopped: ") and "\n" not in message
        assert EMBEDDER in message and f"HTTP {status}" in message and fix in message
        assert OPENAI_KEY not in message
        assert len(api.calls("embeddings")) == 2, "a refusal is not retried, nor split up"
        report = caught.value.report
        assert report.added == [alpha]
        assert list(_problems(report)) == [beta] and "stopped" in _problems(report)[beta]
        assert gamma not in [*_problems(report), *report.unchanged, *report.added]
        assert list(index.store.document_hashes()) == [alpha]
        assert _keyword_sources(index, "purchase price thirty days") == [alpha]

        resumed = index.ingest([corpus])
        assert resumed.unchanged == [alpha] and resumed.added == [beta, gamma]


def test_a_rejected_context_key_stops_the_run_and_reports_every_document_of_the_batch(
    tmp_path, corpus, api
) -> None:
    api.poison, api.poison_outcome = "<document>", "401"  # every call
    sources = _paths(corpus, "alpha.md", "beta.md", "gamma.md")
    with _open(tmp_path, api, llm=True) as index:
        with pytest.raises(FatalProviderError) as caught:
            index.ingest([corpus])
        message = str(caught.value)
        assert f"the context model {CONTEXT_MODEL} refused the request (HTTP 401)" in message
        assert "API key" in message and ANTHROPIC_KEY not in message
        assert "invalid api key: [redacted]" in message, "the server's words, without the key"
        problems = _problems(caught.value.report)
        assert sorted(problems) == sources, "no document of the batch vanishes"
        assert all("the run stopped" in reason for reason in problems.values())
        assert api.calls("embeddings") == [] and index.stats().documents == 0

        api.poison = None
        assert sorted(index.ingest([corpus]).added) == sources


def test_a_forbidden_context_model_stops_the_run_after_the_documents_it_wrote(
    tmp_path, corpus, api, one_document_per_batch
) -> None:
    alpha, beta, gamma = _paths(corpus, "alpha.md", "beta.md", "gamma.md")
    with _open(tmp_path, api, llm=True) as index:
        index.ingest([corpus])
        hashes = index.store.document_hashes()
        (corpus / "alpha.md").write_text(ALPHA.replace("thirty days", "forty-five days"))
        (corpus / "beta.md").write_text(BETA.replace("seven years", "ten years (revised)"))
        (corpus / "gamma.md").write_text(GAMMA.replace("four hundred", "five hundred"))
        api.poison, api.poison_outcome = BETA_PROMPT, "403"

        with pytest.raises(FatalProviderError) as caught:
            index.ingest([corpus])
        message = str(caught.value)
        assert CONTEXT_MODEL in message and "HTTP 403" in message and "no access" in message
        assert "1 document(s) written before stay indexed" in message
        report = caught.value.report
        assert report.updated == [alpha]
        assert list(_problems(report)) == [beta]
        assert "previous version stays indexed" in _problems(report)[beta]
        stored = index.store.document_hashes()
        assert stored[alpha] != hashes[alpha]
        assert stored[beta] == hashes[beta] and stored[gamma] == hashes[gamma]
        assert "forty-five days" in _stored_text(index, alpha)
        assert "seven years" in _stored_text(index, beta)
        assert "four hundred" in _stored_text(index, gamma), "not reached: untouched"
        assert _keyword_sources(index, "records retained seven years")[0] == beta

        api.poison = None
        resumed = index.ingest([corpus])
        assert resumed.unchanged == [alpha] and resumed.updated == [beta, gamma]
        assert "ten years (revised)" in _stored_text(index, beta)


def test_a_rate_limited_context_is_retried_then_falls_back_to_the_structural_one(
    tmp_path, corpus, api
) -> None:
    # Only the context calls for beta (the embedder never sees "<document>"); 429s come
    # with Retry-After: 0, so the retries do not wait.
    api.poison, api.poison_outcome = BETA_PROMPT, "429"
    beta = str(corpus / "beta.md")
    with _open(tmp_path, api, llm=True) as index:
        report = index.ingest([corpus])
        assert len(report.added) == 3 and not report.problems
        poisoned = Counter(
            json.dumps(call.body) for call in api.calls("/v1/messages") if call.outcome == "429"
        )
        assert poisoned and set(poisoned.values()) == {4}, "each refused call: 1 + 3 retries"
        for stored in index.store.chunks_of_source(beta):
            assert stored.context_source == "structural"
        others = index.store.chunks_of_source(str(corpus / "alpha.md"))
        assert others and all(s.context_source == "llm" for s in others)
        assert _keyword_sources(index, "records retained seven years")[0] == beta


def test_the_cli_reports_a_stopped_run_as_json_and_one_error_line(
    tmp_path, corpus, api, capsys
) -> None:
    from hierdoc.cli import main

    config = tmp_path / "hierdoc.yaml"
    model = {"provider": "openai", "name": "text-embedding-3-small", "base_url": api.url}
    config.write_text(json.dumps({"embedding_model": {**model, "dimensions": api.dimension}}))
    api.script(["401"])
    with pytest.raises(SystemExit) as exit_info:
        main(["--config", str(config), "--index", str(tmp_path / "index"), "ingest", "--json",
              str(corpus)])  # fmt: skip
    captured = capsys.readouterr()
    assert exit_info.value.code == 2
    report = json.loads(captured.out)
    assert report["stopped"].startswith("ingest stopped: ") and "HTTP 401" in report["stopped"]
    assert len(report["problems"]) == 3 and report["added"] == []
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("error: ingest stopped: ") and OPENAI_KEY not in line
