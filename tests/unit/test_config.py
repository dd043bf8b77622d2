import textwrap
from pathlib import Path

import pytest

from hierdoc.config import ConfigError, Settings, load_settings

AGENT = """
name: legal-assistant
model: {provider: anthropic, name: claude-sonnet-4}
tools:
  - name: web
    type: mcp
    command: npx
  - name: gdpr_search
    description: Search the GDPR
    type: hierarchical_document
    source: ./docs
    chunking_strategy: structure
    max_chunk_tokens: 600
    chunk_overlap: 50
    search_mode: hybrid
    top_k: 7
    semantic_weight: 0.5
    keyword_weight: 0.3
    exact_weight: 0.2
    rrf_k: 60
    contextual_embeddings: true
    context_max_tokens: 100
    context_concurrency: 10
    extract_definitions: true
    extract_cross_references: true
    document_domain: us_legislative
    defer_loading: true
"""


def _write(tmp_path: Path, text: str, name: str = "config.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_holodeck_agent_tool_block_is_read_as_is(tmp_path) -> None:
    path = _write(tmp_path, AGENT, "agent.yaml")
    with pytest.warns(UserWarning, match="document_domain"):
        settings = load_settings(path, tool="gdpr_search")
    assert settings.top_k == 7
    assert settings.max_chunk_tokens == 600
    assert settings.weights == {"semantic": 0.5, "keyword": 0.3, "exact": 0.2}
    assert settings.sources == [str(tmp_path / "docs")]


def test_agent_file_picks_the_only_tool_without_a_name(tmp_path) -> None:
    path = _write(tmp_path, AGENT, "agent.yaml")
    with pytest.warns(UserWarning):
        assert load_settings(path).name == "gdpr_search"


def test_unknown_tool_name_is_an_error(tmp_path) -> None:
    path = _write(tmp_path, AGENT, "agent.yaml")
    with pytest.raises(ConfigError, match="no hierarchical_document tool named 'nope'"):
        load_settings(path, tool="nope")


def test_unknown_field_names_the_field(tmp_path) -> None:
    path = _write(tmp_path, "top_k: 5\nchunk_sise: 300\n")
    with pytest.raises(ConfigError, match="chunk_sise: unknown field"):
        load_settings(path)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("top_k: 101\n", "top_k"),
        ("search_mode: fuzzy\n", "search_mode"),
        ("semantic_weight: -1\n", "semantic_weight"),
        ("max_chunk_tokens: ten\n", "max_chunk_tokens"),
    ],
)
def test_bad_values_name_the_field(tmp_path, text: str, field: str) -> None:
    with pytest.raises(ConfigError, match=field):
        load_settings(_write(tmp_path, text))


def test_precedence_file_then_environment_then_flags(tmp_path, monkeypatch) -> None:
    path = _write(tmp_path, "top_k: 5\nrrf_k: 30\nmin_score: 0.1\n")
    monkeypatch.setenv("HIERDOC_TOP_K", "7")
    monkeypatch.setenv("HIERDOC_RRF_K", "40")
    settings = load_settings(path, rrf_k=50)
    assert (settings.top_k, settings.rrf_k, settings.min_score) == (7, 50, 0.1)


def test_invalid_yaml_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_settings(_write(tmp_path, "top_k: [5\n"))


def test_index_dir_from_database(tmp_path) -> None:
    assert Settings(database="idx").index_dir() == Path("idx")
    assert Settings(database={"provider": "local", "path": "p"}).index_dir() == Path("p")
    assert Settings().index_dir("flag") == Path("flag")
    assert Settings(database={"provider": "in-memory"}).database_provider == "in-memory"
    assert Settings(database="idx").database_provider == "local"
    from hierdoc import Index

    with pytest.raises(ConfigError, match="'qdrant' is not available; choose one of"):
        Index.open(tmp_path / "q", Settings(database={"provider": "qdrant"}))
