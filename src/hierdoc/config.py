"""Configuration: one typed model, loaded from YAML, environment and flags.

Field names follow the ``hierarchical_document`` tool block of HoloDeck agent
files, so such a block works as is. Precedence, lowest to highest: the YAML
file, ``HIERDOC_<FIELD>`` environment variables, command-line flags.
Unknown fields and bad values are errors that name the field.
"""

from __future__ import annotations

import difflib
import math
import os
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from .errors import ConfigError, InputError
from .models import SEARCH_MODES, SearchMode

DEFAULT_INDEX_DIR = ".hierdoc"


class ModelRef(BaseModel):
    """An LLM or embedding model: ``{provider, name}`` (HoloDeck's LLMProvider shape)."""

    model_config = ConfigDict(extra="allow")

    provider: str
    name: str
    temperature: float | None = None


class DatabaseConfig(BaseModel):
    model_config = ConfigDict(extra="allow")

    provider: str = "local"
    path: str | None = None
    connection_string: str | None = None


MAX_TOP_K = 100
RERANK_API_PROVIDERS = ("cohere", "voyage", "jina", "openai_compatible")


class RerankerSettings(BaseModel):
    """``reranker: {provider, name, top_n}``: the fused top ``top_n`` re-ordered by a
    reranking API or an LLM (:mod:`hierdoc.providers.rerank`); keys from the environment."""

    model_config = ConfigDict(extra="forbid")

    provider: Literal["cohere", "voyage", "jina", "openai_compatible", "llm"]
    name: str | None = None
    """The reranking model (``rerank-v3.5``...); for ``llm``, overrides the model's name."""
    top_n: int = Field(default=50, ge=1, le=1000)
    base_url: str | None = None
    timeout: float = Field(default=30.0, gt=0)
    model: ModelRef | None = None
    """For ``llm``: the chat model (default: the index's ``context_model``)."""


def holodeck_reranker(ref: Any) -> dict[str, Any]:
    """HoloDeck's ``enable_reranking`` + ``reranker_model: {provider, name}`` as a
    ``reranker`` block: a reranking API by its provider name, any other provider (openai,
    anthropic, azure_openai, ollama) as the ``llm`` reranker with that model."""
    if hasattr(ref, "model_dump"):
        ref = ref.model_dump(exclude_none=True)
    if not isinstance(ref, dict) or not ref.get("provider") or not ref.get("name"):
        raise ValueError("enable_reranking needs reranker_model: {provider, name}")
    provider = {"voyageai": "voyage", "jinaai": "jina"}.get(ref["provider"], ref["provider"])
    if provider in RERANK_API_PROVIDERS:
        return {"provider": provider, "name": ref["name"], "base_url": ref.get("base_url")}
    return {"provider": "llm", "model": ref}


class SearchPolicy(BaseModel):
    """Every threshold that shapes how a query is read, how its citations land and how a
    result's passages are cut: one value, one meaning each. ``policy:`` in the settings
    file, or ``Index.search(..., policy={...})`` for one search."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name_coverage: float = Field(default=0.5, ge=0.0, le=1.0)
    """A query names a document by its name's words when it holds at least this share of
    the (idf) weight of one of that document's names..."""
    name_margin: float = Field(default=2.0, ge=1.0)
    """...and that document's weight is at least this many times the next document's."""
    written_name_weight: float = Field(default=3.0, ge=0.0)
    """The weight in fusion of the query's ranking within the documents it names by a file
    name or title written out: all but a filter (their chunks lead unless another
    document's match far better)..."""
    name_weight: float = Field(default=1.0, ge=0.0)
    """...and within those it names otherwise (a short name, its name's words): one more
    modality."""
    generic_share: float = Field(default=0.2, ge=0.0, le=1.0)
    """A defined term or a heading is generic, evidence of no document in particular, when
    more than this share of the documents have it..."""
    generic_documents: int = Field(default=3, ge=1)
    """...and at least this many documents do ("Confidentiality", "Agreement")."""
    rare_share: float = Field(default=0.05, ge=0.0, le=1.0)
    """A defined term is rare when at most this share of the documents (or one) define it:
    its defining chunks join the exact modality whenever the query asks what a term it
    names means, not only when that term is the one asked about."""
    term_share: float = Field(default=0.6, ge=0.0)
    """A query asks what a defined term means when it is mostly the term: the term at least
    this share of its length (question words aside)."""
    crowded_citation: int = Field(default=50, ge=1)
    """A cited number more documents than this have ("Article 5" in 40,000 acts) is pinned
    only in those of them that the query's other modalities rank first."""
    preferred_chunks: int = Field(default=20, ge=1)
    """Chunks read to learn which documents the other modalities rank first."""
    relative_documents: int = Field(default=20, ge=1)
    """The most documents whose sections are read to resolve one relative citation."""
    pointing_share: float = Field(default=0.5, ge=0.0, le=1.0)
    """The rest of a query points at a document when that document holds at least this
    share of its ranking's weight..."""
    pointing_margin: float = Field(default=2.0, ge=1.0)
    """...and at least this many times the next document's."""
    pointing_chunks: int = Field(default=10, ge=1)
    """The chunks of that ranking that weigh (each by the reciprocal of its rank)."""
    no_match_share: float = Field(default=0.5, ge=0.0, le=1.0)
    """Without an exact or a similar enough semantic hit, a search has no match unless a top
    result holds at least this share of the query's keyword terms..."""
    no_match_results: int = Field(default=3, ge=1)
    """...one of its first this many results."""
    note_names: int = Field(default=5, ge=1)
    """The most document names a note lists; the rest are counted."""
    definition_chars: int = Field(default=600, ge=1)
    """A result's definition longer than this is cut (and marked ``truncated``)."""
    definitions_per_result: int = Field(default=8, ge=0)
    """The most definitions one result carries."""
    passage_min_chars: int = Field(default=150, ge=0)
    """A passage shorter than this takes in a neighbouring sentence whatever it scores."""
    passage_grow_share: float = Field(default=0.5, ge=0.0)
    """A neighbouring sentence joins a passage when it scores at least this share of the
    sentence the passage grew from."""
    passage_semantic_weight: float = Field(default=0.5, ge=0.0)
    """Weight of the best embedding window's cosine beside the sentence's BM25 (each
    rescaled to at most 1 in the chunk) when choosing a passage's sentence."""
    extra_passage_share: float = Field(default=0.7, ge=0.0)
    """A further passage grows around a sentence scoring at least this share of the best."""
    passage_lead_ins: bool = True
    """A best passage of list items brings the sentence introducing their list as a further
    passage (when it is not in the best passage already)."""
    passage_section_widening: bool = True
    """A passage widens to the whole section holding its best sentence (a numbered rule with
    its points, a clause) when that fits ``passage_chars``."""
    passage_local_idf: float = Field(default=1.0, ge=0.0)
    """Power of a term's idf among the chunk's sentences in the term's weight when scoring
    a sentence (0: the index's idf alone)."""
    passage_lead_in_share: float = Field(default=0.5, ge=0.0)
    """Share of the BM25 of a list item's lead-in ("... any information that:") added to the
    item's own."""
    passage_heading_share: float = Field(default=0.3, ge=0.0)
    """Share of the BM25 of a sentence's heading line added to the sentence's own."""
    result_passage_min_chars: int = Field(default=50, ge=0)
    """With results ranked at the passage level (``passage_results``), a passage shorter
    than this takes in its better-scoring neighbouring sentence (see
    hierdoc.search.passage_ranking)."""
    result_passage_absorb: float = Field(default=0.75, ge=0.0)
    """...and a neighbouring sentence whose passage-level score is at most this much below the
    sentence the passage grew from (on the scale of four standardised signals summed, the
    learned weights scaled to match), while the passage fits ``passage_chars``."""
    result_passage_paragraphs: bool = True
    """...and then grows to the whole paragraph it lies in (the text between blank lines, the
    whole chunk when it has none), when that fits ``passage_chars``: a numbered rule written
    as one paragraph is read whole."""
    result_passage_coverage: float = Field(default=1.0, ge=0.0)
    """Weight of a sentence's share of the query's terms (by idf), found in it or its scope
    (its list's lead-in, its heading line, its section's headings), beside its BM25, its
    cosine and its chunk's score in the ``fixed`` passage-level ranking."""
    result_passage_scorer: Literal["learned", "fixed"] = "learned"
    """How passage-level results' sentences are scored: ``learned``, a linear model over
    their features fitted on training questions (hierdoc.search.unit_scorer); ``fixed``,
    the sum of their standardised BM25, cosine, chunk score and (times
    ``result_passage_coverage``) scope coverage."""
    result_passage_lead_ins: bool = True
    """A passage-level result that is a list item is followed by its list's lead-in."""
    result_passage_chunks: int = Field(default=10, ge=1)
    """With ``passage_results``, the sentences of at least this many results are candidates
    (more than ``top_k`` when it is smaller)."""

    def generic(self, holders: int, documents: int) -> bool:
        """``holders`` of ``documents`` is too many for a term or heading to be evidence of
        which document a query is about."""
        return holders >= self.generic_documents and holders > self.generic_share * documents

    def rare(self, holders: int, documents: int) -> bool:
        return holders <= max(1.0, self.rare_share * documents)


DEFAULT_POLICY = SearchPolicy()


class SearchSettings(BaseModel):
    """How a search ranks and fuses; ``Index.search`` takes per-call overrides of these."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    search_mode: SearchMode = "hybrid"
    top_k: int = Field(default=10, ge=1, le=MAX_TOP_K)
    min_score: float | None = Field(default=None, ge=0.0)
    semantic_weight: float = Field(default=1.0, ge=0.0)
    keyword_weight: float = Field(default=1.0, ge=0.0)
    exact_weight: float = Field(default=1.0, ge=0.0)
    fusion: Literal["score", "rrf"] = "score"
    """How hybrid search fuses its modalities: by their normalised scores, or by their ranks
    (weighted reciprocal rank fusion, with ``rrf_k``); see ``search/fuse.py``."""
    rrf_k: int = Field(default=60, ge=0)
    candidate_depth: int = Field(default=50, ge=1, le=1000)
    no_match_similarity: float = Field(default=0.35, ge=-1.0, le=1.0)
    passage_chars: int = Field(default=1000, ge=50, le=100_000)
    """Budget of each result's ``passage`` (whole sentences; one longer sentence whole)."""
    passage_set_chars: int = Field(default=1200, ge=0, le=100_000)
    """Budget of all of a result's ``passages`` together, the best one included (a longer
    best passage stands alone); 0 keeps the best passage only."""
    passage_results: bool = False
    """Rank results at the passage level: each result is one passage of its chunk (its
    ``passage``), with the chunk and the section the passage lies in."""
    max_query_chars: int = Field(default=4000, ge=1, le=1_000_000)
    """A longer query is refused with a clear error rather than searched for seconds."""
    reranker: RerankerSettings | None = None
    policy: SearchPolicy = DEFAULT_POLICY
    """The thresholds of query understanding, citations and passages (:class:`SearchPolicy`)."""

    @field_validator("top_k", "rrf_k", "candidate_depth", "max_query_chars", mode="before")
    @classmethod
    def _not_bool(cls, value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError("must be an integer, not true or false")
        return value

    @field_validator(
        "semantic_weight", "keyword_weight", "exact_weight", "min_score", mode="before"
    )
    @classmethod
    def _finite(cls, value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    @property
    def weights(self) -> dict[str, float]:
        return {
            "semantic": self.semantic_weight,
            "keyword": self.keyword_weight,
            "exact": self.exact_weight,
        }

    def search_settings(self, **overrides: Any) -> SearchSettings:
        """These search settings with ``overrides`` (None means keep), validated.

        A bad value is an :class:`InputError` naming the field, as a request error.
        """
        values = {f: getattr(self, f) for f in SearchSettings.model_fields}
        mode = overrides.pop("mode", None)
        if mode is not None:
            overrides["search_mode"] = mode
        skip_reranker = overrides.pop("rerank", None) is False
        unknown = set(overrides) - set(values)
        if unknown:
            raise InputError(f"unknown search setting(s): {', '.join(sorted(unknown))}")
        values.update({k: v for k, v in overrides.items() if v is not None})
        if skip_reranker:
            values["reranker"] = None
        top_k = values["top_k"]
        if isinstance(top_k, int) and not isinstance(top_k, bool) and not 1 <= top_k <= MAX_TOP_K:
            raise InputError(f"top_k must be between 1 and {MAX_TOP_K}, got {top_k}")
        if values["search_mode"] not in SEARCH_MODES:
            modes = ", ".join(SEARCH_MODES)
            raise InputError(f"mode must be one of {modes}, not {values['search_mode']!r}")
        try:
            return SearchSettings(**values)
        except ValidationError as error:
            raise InputError(_format_error(error, "the search request")) from None


class ChunkingSettings(BaseModel):
    """How documents are cut into chunks."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    chunking_strategy: Literal["structure", "token"] = "structure"
    max_chunk_tokens: int = Field(default=800, ge=64, le=8192)
    chunk_overlap: int = Field(default=0, ge=0, le=400)

    @field_validator("chunk_overlap")
    @classmethod
    def _overlap_below_half(cls, value: int, info: Any) -> int:
        limit = info.data.get("max_chunk_tokens", 800) // 2
        if value >= limit:
            raise ValueError(f"chunk_overlap must be below half of max_chunk_tokens ({limit})")
        return value


class IngestSettings(ChunkingSettings):
    """Everything that decides what an ingest writes: a change re-ingests every document."""

    contextual_embeddings: bool = True
    extract_definitions: bool = True
    extract_cross_references: bool = True
    embedding_model: str | ModelRef | None = None
    context_model: ModelRef | None = None
    context_max_tokens: int = Field(default=100, ge=10, le=1000)
    context_concurrency: int = Field(default=10, ge=1, le=100)
    # Bounded inputs (see hierdoc.pipeline.limits): over a limit, a file is a reported problem.
    max_file_mb: float = Field(default=200, gt=0)
    max_unzipped_mb: float = Field(default=500, gt=0)
    max_zip_ratio: float = Field(default=100, gt=1)
    max_zip_members: int = Field(default=10_000, ge=1)
    max_chars: int = Field(default=50_000_000, ge=1)
    max_section_depth: int = Field(default=1000, ge=1)
    max_html_elements: int = Field(default=250_000, ge=1)
    follow_symlinks_outside: bool = False
    # Converters per format: "structured" = hierdoc's own (Word numbering rendered; PDF in
    # reading order with pages, running headers/footers removed), "markitdown" = markitdown.
    docx_converter: Literal["structured", "markitdown"] = "structured"
    pdf_converter: Literal["structured", "markitdown"] = "structured"


INDEX_SHAPING_FIELDS: tuple[str, ...] = (
    "chunking_strategy",
    "max_chunk_tokens",
    "chunk_overlap",
    "contextual_embeddings",
    "extract_definitions",
    "extract_cross_references",
    "docx_converter",
    "pdf_converter",
)
"""The settings that change the chunks, contexts and extraction an ingest writes for a corpus
(the models are recorded in the index on their own)."""


TOKEN_NAME = r"^[0-9A-Za-z_.@-]{1,100}$"


class DocumentsFilter(BaseModel):
    """Which documents a token sees: those named by ``sources`` (as for ``source=``) and
    matching ``where`` (as for ``where=``); an empty part does not narrow."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sources: list[str] = Field(default_factory=list)
    where: dict[str, str | list[str]] = Field(default_factory=dict)


class TokenEntry(DocumentsFilter):
    """One bearer token: its name (in logs, never the token), the SHA-256 of the token in
    hex (``hierdoc token`` prints both), and the documents it may see. A token with
    neither ``sources`` nor ``where`` sees every document."""

    name: str = Field(pattern=TOKEN_NAME)
    sha256: str = Field(pattern=r"^[0-9a-fA-F]{64}$")


class JWTSettings(BaseModel):
    """JWTs from an external OAuth issuer, verified against its keys: ``key_file`` (a PEM
    public key, or a secret for HS* algorithms) or ``jwks_url`` (the issuer's key set).
    ``scopes`` maps an OAuth scope to the documents it grants; a token sees the documents
    of all its mapped scopes, and a token with none of them is refused. Without
    ``scopes``, a valid token sees every document."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    issuer: str
    audience: str | None = None
    key_file: str | None = None
    jwks_url: str | None = None
    algorithms: list[str] = Field(default_factory=lambda: ["RS256"], min_length=1)
    scopes: dict[str, DocumentsFilter] = Field(default_factory=dict)
    leeway: float = Field(default=30.0, ge=0)
    """Seconds of clock skew allowed on ``exp`` and ``nbf``."""

    @model_validator(mode="after")
    def _one_key_source(self) -> JWTSettings:
        if (self.key_file is None) == (self.jwks_url is None):
            raise ValueError("auth.jwt needs exactly one of key_file or jwks_url")
        return self


class AuthSettings(BaseModel):
    """``auth:``: who may use the HTTP server and the web page. ``tokens`` are bearer
    tokens given as hashes, ``jwt`` an external issuer's tokens; ``resource_url`` is the
    public URL of the MCP endpoint (``https://docs.example.com/mcp``), announced in the
    protected resource metadata that a 401 points OAuth clients to (with ``jwt``);
    ``session_key`` and ``session_hours`` shape the web page's sign-in sessions."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tokens: list[TokenEntry] = Field(default_factory=list)
    jwt: JWTSettings | None = None
    resource_url: str | None = None
    session_key: str | None = Field(default=None, min_length=32, repr=False)
    """The key that signs the web page's session cookies (at least 32 characters of random
    text); without it each server process makes its own, so that its sessions end when it
    stops and one server's cookie is not another's."""
    session_hours: float = Field(default=8.0, gt=0, le=24 * 30)
    """How long a web page session lasts (a JWT's own expiry ends it sooner)."""

    @field_validator("tokens")
    @classmethod
    def _distinct(cls, tokens: list[TokenEntry]) -> list[TokenEntry]:
        names = [t.name for t in tokens]
        hashes = [t.sha256.lower() for t in tokens]
        if len(set(names)) != len(names) or len(set(hashes)) != len(hashes):
            raise ValueError("each token needs its own name and its own sha256")
        return tokens

    @model_validator(mode="after")
    def _resource_with_issuer(self) -> AuthSettings:
        if self.resource_url and self.jwt is None:
            raise ValueError("auth.resource_url is announced with auth.jwt (an issuer)")
        return self

    @property
    def configured(self) -> bool:
        return bool(self.tokens or self.jwt)


class Settings(SearchSettings, IngestSettings):
    """Every setting of an index and its searches: the one source of configuration."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    # HoloDeck tool identity; optional outside an agent file.
    name: str | None = Field(default=None, pattern=r"^[0-9A-Za-z_]+$")
    description: str | None = None
    type: Literal["hierarchical_document"] = "hierarchical_document"
    source: str | list[str] | None = None
    database: DatabaseConfig | str | None = None
    auth: AuthSettings | None = None
    """Authentication of the HTTP server (:class:`AuthSettings`)."""

    # Accepted for HoloDeck compatibility; see docs/agents.md, "From a HoloDeck agent file".
    document_domain: str | None = None
    max_subsection_depth: int | None = Field(default=None, ge=1)
    enable_reranking: bool = False
    reranker_model: ModelRef | None = None
    keyword_index: dict[str, Any] | None = None
    defer_loading: bool = True

    @model_validator(mode="before")
    @classmethod
    def _known_fields(cls, data: Any) -> Any:
        """Unknown fields are refused with the closest known name, if one is close."""
        if isinstance(data, dict):
            unknown = [k for k in data if isinstance(k, str) and k not in cls.model_fields]
            if unknown:
                raise ValueError("; ".join(unknown_field(k, cls.model_fields) for k in unknown))
        return data

    @model_validator(mode="before")
    @classmethod
    def _holodeck_reranking(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("enable_reranking") and not data.get("reranker"):
            return {**data, "reranker": holodeck_reranker(data.get("reranker_model"))}
        return data

    @property
    def sources(self) -> list[str]:
        if self.source is None:
            return []
        return [self.source] if isinstance(self.source, str) else list(self.source)

    def index_dir(self, override: str | Path | None = None) -> Path:
        """Where the index lives: ``override`` (``--index``), ``database`` given as a path,
        ``database.path``, or ``./.hierdoc``."""
        if override:
            return Path(override)
        if isinstance(self.database, str):
            return Path(self.database)
        if isinstance(self.database, DatabaseConfig) and self.database.path:
            return Path(self.database.path)
        return Path(DEFAULT_INDEX_DIR)

    @property
    def database_provider(self) -> str:
        """The storage backend (``database.provider``): ``local`` unless configured."""
        return self.database.provider if isinstance(self.database, DatabaseConfig) else "local"

    def database_options(self) -> dict[str, Any]:
        """The ``database`` block beyond provider and path, for server backends."""
        if not isinstance(self.database, DatabaseConfig):
            return {}
        return self.database.model_dump(exclude={"provider", "path"}, exclude_none=True)


_IGNORED = {
    "document_domain": "structure is detected automatically",
    "max_subsection_depth": "every level of numbering is kept",
    "keyword_index": "the keyword index is built in (tantivy)",
    "defer_loading": "an agent framework setting, not used by hierdoc",
}


def _warn_ignored(data: dict[str, Any]) -> None:
    for field, why in _IGNORED.items():
        if field in data and data[field] not in (None, False, "none"):
            if field == "defer_loading":
                continue
            warnings.warn(f"config field '{field}' is ignored: {why}", stacklevel=3)


def unknown_field(name: str, known: Iterable[str]) -> str:
    """``name: unknown field``, with ``(did you mean 'x'?)`` when a known name is close."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"{name}: unknown field" + (f" (did you mean {close[0]!r}?)" if close else "")


def _format_error(
    error: ValidationError, origin: str, labels: Mapping[str, str] | None = None
) -> str:
    """One line for a validation error. A problem with a field in ``labels`` (a flag or an
    environment variable that set it) is blamed on that label; the rest on ``origin``."""
    labelled, problems = [], []
    for item in error.errors():
        field = str(item["loc"][0]) if item["loc"] else ""
        message = _problem(item)
        if field in (labels or {}):
            labelled.append(f"{labels[field]}: {message}")  # type: ignore[index]
        else:
            location = ".".join(str(part) for part in item["loc"])
            problems.append(f"{location}: {message}" if location else message)
    if problems:
        labelled.append(f"invalid configuration in {origin}: " + "; ".join(problems))
    return "; ".join(labelled)


def _problem(item: Any) -> str:
    if item["type"] == "extra_forbidden":
        return "unknown field"
    if item["type"] == "value_error" and "error" in item.get("ctx", {}):
        return str(item["ctx"]["error"])
    return str(item["msg"])


def read_yaml(path: Path, tool: str | None = None) -> dict[str, Any]:
    """The settings mapping of a hierdoc YAML file or of one tool of a HoloDeck agent file."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as error:
        raise ConfigError(f"cannot read config {path}: {error.strerror}") from error
    except yaml.YAMLError as error:
        raise ConfigError(f"config {path} is not valid YAML: {error}") from error
    if not isinstance(data, dict):
        raise ConfigError(f"config {path} must be a mapping")
    if "tools" in data or tool:
        data = _pick_tool(data, tool, path)
    return data


def _pick_tool(data: dict[str, Any], tool: str | None, path: Path) -> dict[str, Any]:
    tools = [t for t in data.get("tools") or [] if isinstance(t, dict)]
    blocks = [t for t in tools if t.get("type") == "hierarchical_document"]
    if tool:
        blocks = [t for t in blocks if t.get("name") == tool]
        if not blocks:
            raise ConfigError(f"{path} has no hierarchical_document tool named {tool!r}")
    if len(blocks) != 1:
        names = ", ".join(str(t.get("name")) for t in blocks) or "none"
        raise ConfigError(
            f"{path} has {len(blocks)} hierarchical_document tools ({names}): pick one with --tool"
        )
    return dict(blocks[0])


def _env_overrides() -> dict[str, Any]:
    overrides: dict[str, Any] = {}
    for field in Settings.model_fields:
        value = os.environ.get(f"HIERDOC_{field.upper()}")
        if value is not None:
            overrides[field] = yaml.safe_load(value) if value.strip() else None
    return overrides


def load_settings(
    path: Path | None = None,
    tool: str | None = None,
    *,
    option_names: Mapping[str, str] | None = None,
    **overrides: Any,
) -> Settings:
    """Settings from a YAML file (optional), then the environment, then ``overrides``.

    A bad value is blamed on where it came from: the file, ``HIERDOC_<FIELD>``, or, for an
    override, its name in ``option_names`` (the CLI passes its flags, ``--max-chunk-tokens``).
    """
    data: dict[str, Any] = read_yaml(path, tool) if path else {}
    origin = str(path) if path else "settings"
    _warn_ignored(data)
    environment = _env_overrides()
    data.update(environment)
    given = {k: v for k, v in overrides.items() if v is not None}
    data.update(given)
    labels = {k: f"HIERDOC_{k.upper()}={os.environ[f'HIERDOC_{k.upper()}']}" for k in environment}
    names = option_names or {}
    labels.update({k: f"{names[k]} {v}" for k, v in given.items() if k in names})
    if path and isinstance(data.get("source"), str):
        data["source"] = _relative_to(path, data["source"])
    try:
        return Settings(**data)
    except ValidationError as error:
        raise ConfigError(_format_error(error, origin, labels)) from None


def _relative_to(config_path: Path, source: str) -> str:
    """A relative ``source`` in a config file is relative to that file, as in HoloDeck."""
    candidate = Path(source)
    return source if candidate.is_absolute() else str(config_path.parent / candidate)
