"""``hierdoc tune`` with the real model on a two-document index, one short step of training:
the model saved with its provenance, the index re-embedded with it and searched with it,
an interrupted run resumed, and the clear errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from hierdoc import Index, Settings, TextDocument
from hierdoc.cli import main
from hierdoc.errors import ConfigError, InputError
from hierdoc.models import EmbedInput
from hierdoc.pipeline import reembed
from hierdoc.pipeline.embed import DEFAULT_MODEL, LocalEmbedder
from hierdoc.pipeline.query_embed import NumpyQueryEmbedder
from hierdoc.pipeline.tuning import ASIDE_FILE
from tests.hash_embedder import hash_index
from tests.unit.test_tune_pairs import AGREEMENT

POLICY = """# Data Retention Policy

## Section 1 Scope

1. This policy applies to every record the company keeps about its customers and staff.

2. Records held by processors on the company's behalf are covered as described in Section 3.

## Section 2 Retention periods

1. Invoices are kept for ten years after the end of the financial year they belong to.

2. Staff records are kept for six years after the member of staff leaves the company.

## Section 3 Processors

1. A processor returns or destroys the records it holds when its contract with the company ends.
"""

SMALL = {"max_pairs": 8}
"""One training step: enough to change the weights, little enough for a shared CPU."""


def build(directory: Path, embedder: LocalEmbedder) -> None:
    with Index.open(directory, Settings(), embedder=embedder) as index:
        index.ingest_texts(
            [TextDocument("services.md", AGREEMENT), TextDocument("retention.md", POLICY)]
        )


def vectors(directory: Path) -> dict[str, np.ndarray]:
    with Index.open(directory, Settings(), mode="r") as index:
        return {chunk_id: np.array(v) for chunk_id, v in index.iter_vectors()}


def model_of(directory: Path) -> str | None:
    with Index.open(directory, Settings(), mode="r") as index:
        return index.store.read_meta().embedding_model


@pytest.fixture(scope="module")
def tuned(tmp_path_factory, embedder):
    """The index tuned, and a reader opened on it (and searching) before the tune."""
    directory = tmp_path_factory.mktemp("tuned") / "index"
    build(directory, embedder)
    before = vectors(directory)
    with Index.open(directory, Settings(), mode="r") as reader:
        assert reader.search("invoices", mode="semantic").results
        with Index.open(directory, Settings(), embedder=embedder) as index:
            report = index.tune(**SMALL)
        yield directory, before, report, reader


def test_the_tuned_model_is_saved_with_its_provenance(tuned) -> None:
    directory, _, report, _ = tuned
    assert report.model == f"{DEFAULT_MODEL}@tuned-v1"
    provenance = json.loads((directory / "tuned" / "v1" / "provenance.json").read_text())
    assert provenance["base_model"] == DEFAULT_MODEL
    assert provenance["pairs"]["total"] == report.trained_pairs == 8
    assert provenance["seed"] == 0 and provenance["epochs"] == 1
    assert provenance["learning_rate"] == 2e-5 and provenance["hard_negatives"] is True
    assert provenance["date"].startswith("20") and provenance["hierdoc_version"]
    assert (directory / "tuned" / "v1" / "model.safetensors").is_file()
    assert not (directory / "tuned" / "v1" / ASIDE_FILE).exists()


def test_the_index_is_re_embedded_with_the_tuned_model(tuned) -> None:
    directory, before, report, _ = tuned
    after = vectors(directory)
    assert model_of(directory) == report.model
    assert after.keys() == before.keys() and report.chunks == len(after)
    assert all(not np.allclose(after[c], before[c], atol=1e-6) for c in after)
    model = LocalEmbedder(model_path=str(directory / "tuned" / "v1"), name=report.model)
    with Index.open(directory, Settings(), mode="r") as index:
        chunk_id, stored = next((c, s) for c, s in index.chunks(list(after)).items())
    expected = model.embed_documents([EmbedInput(stored.context, stored.chunk.content)])[0]
    assert np.allclose(after[chunk_id], expected, atol=1e-4)


def test_searches_embed_queries_with_the_tuned_model(tuned) -> None:
    directory, _, report, _ = tuned
    query = "how much notice is needed to terminate the agreement"
    tuned_vector = NumpyQueryEmbedder(directory / "tuned" / "v1").embed_query(query)
    base_vector = NumpyQueryEmbedder().embed_query(query)
    with Index.open(directory, Settings(), mode="r") as index:
        assert index.model_name == report.model
        used = index.embed_query(query)
        response = index.search(query, mode="semantic", top_k=1)
    assert float(used @ tuned_vector) > 0.9999 > float(used @ base_vector)
    assert "terminate" in response.results[0].content


def test_a_reader_open_before_the_switch_follows_it(tuned) -> None:
    directory, _, report, reader = tuned
    query = "how long are invoices kept"
    response = reader.search(query, mode="semantic", top_k=1)
    assert reader.model_name == report.model
    tuned_vector = NumpyQueryEmbedder(directory / "tuned" / "v1").embed_query(query)
    assert float(reader.embed_query(query) @ tuned_vector) > 0.9999
    assert "ten years" in response.results[0].content


def test_an_interrupted_tune_resumes_and_readers_never_see_half(
    tmp_path, embedder, monkeypatch
) -> None:
    directory = tmp_path / "index"
    build(directory, embedder)
    before = vectors(directory)
    monkeypatch.setattr(reembed, "EMBED_BATCH", 2)

    def stop_at(stage: str, when: int):
        def progress(at: str, done: int, total: int) -> None:
            if at == stage and done >= when:
                raise KeyboardInterrupt

        return progress

    with (
        Index.open(directory, Settings(), embedder=embedder) as index,
        pytest.raises(KeyboardInterrupt),
    ):
        index.tune(progress=stop_at("embed", 4), **SMALL)
    assert model_of(directory) == DEFAULT_MODEL
    assert {c: v.tobytes() for c, v in vectors(directory).items()} == {
        c: v.tobytes() for c, v in before.items()
    }
    with (
        Index.open(directory, Settings(), embedder=embedder) as index,
        pytest.raises(KeyboardInterrupt),
    ):
        index.tune(progress=stop_at("switch", 1), **SMALL)
    assert model_of(directory) == DEFAULT_MODEL
    with Index.open(directory, Settings(), embedder=embedder) as index:
        report = index.tune(**SMALL)
    assert report.resumed and report.embedded == 0 and report.chunks == len(before)
    assert model_of(directory) == report.model == f"{DEFAULT_MODEL}@tuned-v1"
    assert sorted(p.name for p in (directory / "tuned").iterdir()) == ["v1"]


def test_the_cli_tunes_and_reports_before_and_after_and_a_rebuild_can_return_to_the_base(
    tmp_path, embedder, capsys
) -> None:
    directory = tmp_path / "index"
    build(directory, embedder)
    try:
        main(["--index", str(directory), "tune", "--max-pairs", "8", "--eval", "--json"])
        code = 0
    except SystemExit as exited:
        code = exited.code or 0
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == f"{DEFAULT_MODEL}@tuned-v1"
    assert set(report["evaluation"]) == {"before", "after"}
    assert report["evaluation"]["before"]["queries"] == report["held_out"] > 0
    shutil.rmtree(directory / "tuned")
    with pytest.raises(ConfigError, match="its files are missing"):
        Index.open(directory, Settings(), mode="r")
    with Index.open(directory, Settings(), embedder=embedder, rebuild=True) as index:
        index.ingest_texts([TextDocument("services.md", AGREEMENT)])
    assert model_of(directory) == DEFAULT_MODEL


def test_an_index_of_another_embedder_cannot_be_tuned(tmp_path) -> None:
    with hash_index(tmp_path / "index", {"services.md": AGREEMENT}) as index:
        refused = pytest.raises(ConfigError, match="fine-tunes the local model")
        with refused:
            index.tune()


def test_an_index_with_nothing_to_mine_says_so(tmp_path, embedder) -> None:
    with Index.open(tmp_path / "index", Settings(), embedder=embedder) as index:
        index.ingest_texts([TextDocument("note.txt", "A short note with no structure at all.")])
        with pytest.raises(InputError, match="no training pairs could be mined"):
            index.tune()


def test_without_mined_pairs_only_the_given_pairs_are_trained_on(tmp_path, embedder) -> None:
    directory = tmp_path / "index"
    build(directory, embedder)
    pairs = tmp_path / "pairs.jsonl"
    lines = [
        {"query": "how long are invoices kept", "passage": "Invoices are kept for ten years."},
        {"query": "when are staff records deleted", "passage": "Staff records: six years."},
    ]
    pairs.write_text("".join(json.dumps(line) + "\n" for line in lines))
    with Index.open(directory, Settings(), embedder=embedder) as index:
        report = index.tune(pairs, mined=False)
    assert (report.mined, report.given, report.trained_pairs, report.held_out) == ({}, 2, 2, 0)
    assert model_of(directory) == f"{DEFAULT_MODEL}@tuned-v1"


def test_without_mined_pairs_given_ones_are_needed_and_eval_refused(tmp_path, embedder) -> None:
    directory = tmp_path / "index"
    build(directory, embedder)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"query": "invoices", "passage": "Invoices are kept."}) + "\n")
    with Index.open(directory, Settings(), embedder=embedder) as index:
        for given, evaluate in ((None, False), (pairs, True)):
            with pytest.raises(InputError, match="without mined pairs"):
                index.tune(given, mined=False, evaluate=evaluate)
    assert model_of(directory) == DEFAULT_MODEL
