"""``hierdoc migrate``: local -> postgres -> local copies an index without re-embedding,
and the three indexes answer every search mode alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hierdoc import Index, Settings
from hierdoc.cli import main
from tests.contract.test_store_postgres_server import drop_schema, fresh_options
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS

pytestmark = pytest.mark.postgres

FIXTURES = TESTS / "fixtures"
QUERIES = [
    ("hybrid", "hardship withdrawal of elective deferrals"),
    ("keyword", "automatic enrollment notice deadline"),
    ("semantic", "nondiscrimination testing for highly compensated employees"),
    ("exact", '"safe harbor"'),
    ("keyword", "ADP ACP"),
]


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exit_info:
        code = int(exit_info.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _postgres_settings(options: dict[str, Any]) -> Settings:
    return Settings(database={"provider": "postgres", **options})


def _answers(index: Index) -> list[list[tuple[str, float]]]:
    return [
        [(r.chunk_id, round(r.score, 4)) for r in index.search(q, mode=mode, top_k=10).results]
        for mode, q in QUERIES
    ]


def _structure(index: Index) -> list[Any]:
    """Every document's sections, each section's children and every chunk as shown."""
    store = index.store
    found: list[Any] = []
    for document in store.documents():
        sections = store.sections_of_source(document.source)
        found.append(sections)
        found += [store.children(document.source, s.section_id) for s in sections]
        found += [index.sections(s.section_id, document.source) for s in sections]
        found += [index.show(c.chunk.chunk_id) for c in store.chunks_of_source(document.source)]
    return found


def test_local_to_postgres_and_back_gives_identical_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    options = fresh_options()
    url = options["url"]
    first, back = tmp_path / "first", tmp_path / "back"
    try:
        with Index.open(first, Settings(), embedder=HashEmbedder()) as index:
            index.ingest([FIXTURES / "acronyms", FIXTURES / "definitions"])
            index.store.context_cache.put("m", "p1", "doc", "chunk", "a cached context")
            expected = _answers(index)
            structure = _structure(index)
            stats = index.store.stats()
            fingerprint = index.store.read_meta().fingerprint
        assert stats.chunks > 10 and any(expected)
        code, out, err = _run(
            capsys, "migrate", "--from", str(first), "--to", url, "--to-schema", options["schema"]
        )
        assert code == 0, err
        assert f"copied {stats.documents} documents ({stats.chunks} chunks)" in out
        with Index.open(tmp_path / "pg", _postgres_settings(options), HashEmbedder()) as index:
            assert _answers(index) == expected
            assert _structure(index) == structure
            copied = index.store.stats()
            assert index.store.context_cache.get("m", "p1", "doc", "chunk") == "a cached context"
            assert (copied.sections, copied.vectors, copied.definitions) == (
                stats.sections,
                stats.vectors,
                stats.definitions,
            )
            assert (copied.acronyms, copied.crossrefs) == (stats.acronyms, stats.crossrefs)
        code, out, err = _run(
            capsys, "migrate", "--from", url, "--from-schema", options["schema"], "--to", str(back)
        )
        assert code == 0, err
        with Index.open(back, Settings(), embedder=HashEmbedder()) as index:
            assert _answers(index) == expected
            assert _structure(index) == structure
            assert index.store.context_cache.get("m", "p1", "doc", "chunk") == "a cached context"
            assert index.store.read_meta().fingerprint == fingerprint
    finally:
        drop_schema(options)


def test_migrate_refuses_a_target_with_documents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, target = tmp_path / "a", tmp_path / "b"
    for directory in (source, target):
        with Index.open(directory, Settings(), embedder=HashEmbedder()) as index:
            index.ingest([FIXTURES / "acronyms"])
    code, _, err = _run(capsys, "migrate", "--from", str(source), "--to", str(target))
    assert code == 2 and "already holds documents: use --force" in err
    code, _, err = _run(capsys, "migrate", "--from", str(tmp_path / "none"), "--to", str(target))
    assert code != 0 and f"no index at {tmp_path / 'none'}" in err
    assert not (tmp_path / "none").exists()
