"""The hierdoc variant grid: search modes and settings measured against one another.

A variant is a search mode plus :class:`~hierdoc.config.Settings` overrides. Its
ingest-side fields (:data:`~hierdoc.config.INDEX_SHAPING_FIELDS`) choose the index
it needs (:func:`ingest_key`); its search fields are passed to ``Index.search`` per
call, so every search-only variant shares one index and no index is modified.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..config import INDEX_SHAPING_FIELDS, ChunkingSettings, SearchSettings, Settings
from ..models import Passage, SearchResponse
from .datasets import EvalCorpus, EvalQuery
from .method import Method
from .metrics import CUTOFFS, Span, dedupe

if TYPE_CHECKING:
    from ..api import Index

MAX_SEARCH_K = 100
CHUNKING_FIELDS = tuple(ChunkingSettings.model_fields)
EXTRACTION_FIELDS = ("extract_definitions", "extract_cross_references")


@dataclass(frozen=True)
class Variant:
    """A hierdoc pipeline variant: a search mode and Settings overrides."""

    name: str
    mode: str = "hybrid"
    overrides: Mapping[str, Any] = field(default_factory=dict)
    description: str = ""

    def settings(self) -> Settings:
        return Settings(search_mode=self.mode, **dict(self.overrides))


def _v(name: str, mode: str, description: str, **overrides: Any) -> Variant:
    return Variant(name, mode, overrides, description)


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        _v("hybrid", "hybrid", "defaults"),
        _v("semantic", "semantic", "dense only, through hierdoc"),
        _v("keyword", "keyword", "BM25 only (tantivy, hierdoc's analyzer)"),
        _v("hybrid-noctx", "hybrid", "contextual_embeddings off", contextual_embeddings=False),
        _v("semantic-noctx", "semantic", "contextual_embeddings off", contextual_embeddings=False),
        _v("keyword-noctx", "keyword", "contextual_embeddings off", contextual_embeddings=False),
        _v("hybrid-depth100", "hybrid", "candidate_depth 100", candidate_depth=100),
        _v("hybrid-kw2", "hybrid", "keyword_weight 2, semantic_weight 1", keyword_weight=2.0),
        _v("hybrid-sem2", "hybrid", "semantic_weight 2, keyword_weight 1", semantic_weight=2.0),
        _v("hybrid-rrf", "hybrid", "rank fusion (RRF, k 60)", fusion="rrf"),
        _v("hybrid-rrf20", "hybrid", "rank fusion, rrf_k 20", fusion="rrf", rrf_k=20),
        _v("hybrid-noexact", "hybrid", "exact_weight 0", exact_weight=0.0),
        _v("hybrid-nodefs", "hybrid", "extract_definitions off", extract_definitions=False),
        _v("hybrid-chunk256", "hybrid", "max_chunk_tokens 256", max_chunk_tokens=256),
        _v("semantic-chunk256", "semantic", "max_chunk_tokens 256", max_chunk_tokens=256),
    )
}
PRESETS: dict[str, tuple[str, ...]] = {
    "default": ("hybrid",),
    "standard": tuple(VARIANTS),
    "quick": ("hybrid", "semantic", "keyword"),
    "none": (),
}


def resolve_variants(spec: str | Sequence[str]) -> list[Variant]:
    """Variant presets by name: comma-separated names and/or groups (default, quick,
    standard). ``default`` is the default settings alone: one index, one method."""
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    chosen: list[str] = []
    for name in (n.strip() for n in names if n.strip()):
        if name in PRESETS:
            chosen += PRESETS[name]
        elif name in VARIANTS:
            chosen.append(name)
        else:
            known = ", ".join([*PRESETS, *VARIANTS])
            raise ValueError(f"unknown variant {name!r}; known: {known}")
    return [VARIANTS[n] for n in dedupe(chosen)]


def ingest_key(settings: Settings, corpus: EvalCorpus) -> dict[str, Any]:
    """The ingest settings an index of ``corpus`` is built with: given chunks are neither
    chunked nor extracted, so those fields keep their defaults and share one index."""
    defaults = Settings()
    key = {f: getattr(settings, f) for f in INDEX_SHAPING_FIELDS}
    if corpus.prechunked:
        key.update({f: getattr(defaults, f) for f in (*CHUNKING_FIELDS, *EXTRACTION_FIELDS)})
    return key


def inapplicable(variant: Variant, corpus: EvalCorpus) -> str | None:
    """Why ``variant`` cannot run on ``corpus`` (it changes chunking of given chunks), or None."""
    if corpus.prechunked:
        fields = set(variant.overrides) & {*CHUNKING_FIELDS, *EXTRACTION_FIELDS}
        if fields:
            return f"{variant.name} skipped: the chunks are given ({', '.join(sorted(fields))})"
    return None


def hierdoc_method(index: Index, variant: Variant) -> Method:
    """A hierdoc variant through ``Index.search`` (full pipeline, one call per query), its
    search settings given per call."""
    settings = variant.settings()
    search: SearchSettings = settings.search_settings()
    depth = min(MAX_SEARCH_K, max(max(CUTOFFS), settings.candidate_depth))

    passages: dict[str, dict[str, list[Span]]] = {}
    flags: dict[str, bool] = {}

    def rank(query: EvalQuery, k: int) -> list[str]:
        response = index.search(query.text, top_k=k, source=query.source_filter, settings=search)
        passages[query.id] = result_passages(response)
        flags[query.id] = response.no_match
        return [r.chunk_id for r in response.results]

    def first(text: str, source: str | None) -> tuple[str, str] | None:
        results = index.search(text, top_k=1, source=source, settings=search).results
        return (results[0].source, results[0].content) if results else None

    overrides = {"mode": variant.mode, **dict(variant.overrides)}
    method = Method(variant.name, "hierdoc", variant.description, rank, depth, settings=overrides)
    method.passages, method.no_match, method.first = passages, flags, first
    return method


def result_passages(response: SearchResponse) -> dict[str, list[Span]]:
    """Each result's passages (``passages``, else its one ``passage``) as spans in its
    chunk's stripped content: what the passage metrics count as returned."""
    found = {}
    for result in response.results:
        parts = result.passages or ([result.passage] if result.passage else [])
        if parts:
            found[result.chunk_id] = [passage_span(result.content, p) for p in parts]
    return found


def passage_span(content: str, passage: Passage) -> Span:
    """A passage as offsets into its chunk's content stripped (as judging locates chunks)."""
    lead = len(content) - len(content.lstrip())
    return passage.start - lead, passage.end - lead
