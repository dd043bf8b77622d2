"""The Python API: :class:`Index` opens an index directory, ingests and searches.

The CLI and the agent adapters are thin layers over this class.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import fields, replace
from pathlib import Path, PurePosixPath
from typing import Any, Literal

import numpy as np

from .config import INDEX_SHAPING_FIELDS, ModelRef, SearchSettings, Settings
from .errors import ConfigError, InputError, NotFoundError
from .inputs import checked_path, checked_strings, checked_text, checked_texts
from .models import (
    CHUNK_TYPES,
    Definition,
    DocumentRecord,
    EmbedInput,
    IndexStats,
    IngestReport,
    SearchFilter,
    SearchResponse,
    SectionRecord,
    StoredChunk,
    StoreStats,
    TextDocument,
)
from .pipeline.contextualize import ContextProgress
from .pipeline.embed import Embedder, LocalEmbedder
from .pipeline.ingest import IngestOptions, Ingestor, LLMContexts, ProgressFn
from .pipeline.local_models import local_model
from .pipeline.query_embed import NumpyQueryEmbedder, local_query_embedder
from .pipeline.tuned_models import TunedModel, parse_tuned_name, tuned_model_for
from .pipeline.tuning import ModelPaths, TuneOptions, TuneProgress, TuneReport, run_tune
from .providers.embed_api import embedder_from, is_api_model
from .providers.llm import PROMPT_VERSION, context_model_from
from .search.choices import listed_choices, section_ids, unknown_section
from .search.explain import explain as explain_execution
from .search.glossary import Glossary, acronym_definitions
from .search.passages import add_passages
from .search.rerank import reranker_for
from .search.resolve import HeldSection, cited_section, held_section
from .search.scoped import DocumentScope, ScopedStore
from .search.searcher import Searcher
from .search.sources import source_names, spellings
from .search.term_lookup import looked_up_definitions
from .search.where import Where, document_records, narrow_sources
from .store import StoreRequest, open_store
from .store.base import Store
from .text.analyze import TEXT_ANALYZER
from .text.normalize import article_forms, normalize_term, number_forms
from .text.tokenizer import Tokenizer, default_tokenizer
from .views import (
    MAX_OTHER_SOURCES,
    ChunkView,
    DefinitionLookup,
    DocumentSummary,
    Outline,
    ReferenceLookup,
    build_outline,
    chunk_view,
    remove_documents,
    summarize_documents,
)

EXTRACTION_VERSION = 1
"""Bump when structure or extraction changes, so that the next ingest redoes every file."""

__all__ = ["ChunkView", "DefinitionLookup", "Index", "ReferenceLookup"]


class Index:
    """A persistent hybrid index in one directory.

    ``mode`` says how it is opened: ``"r"`` reads only (no index there is a
    :class:`NotFoundError`; nothing is created or written, so it works on a read-only
    directory), ``"w"`` holds the index's single writer lock from open to close, and the
    default takes the lock only while it writes (``ingest``, ``ingest_texts``) and creates
    the index at its first ingest: until then a read (of a mistyped path, say) is a
    :class:`NotFoundError` and no directory is made. A writer that finds another one at
    work fails with an ``IndexBusyError``, or waits if ``wait``.
    """

    def __init__(
        self,
        directory: Path,
        settings: Settings,
        embedder: Embedder | None = None,
        tokenizer: Tokenizer | None = None,
        rebuild: bool = False,
        mode: Literal["r", "w"] | None = None,
        wait: bool = False,
    ) -> None:
        if mode == "r" and rebuild:
            raise InputError("an index opened for reading (mode='r') cannot be rebuilt")
        self.directory = directory
        self.mode = mode
        self._wait = wait
        self.settings = settings
        self._embedder = embedder
        self._embedder_lock = threading.Lock()
        self._query_embedder: NumpyQueryEmbedder | None = None
        self._tuned: TunedModel | None = None
        """The model tuned on this index that made its vectors (``hierdoc tune``), if any."""
        self._model_generation = -1
        self._tokenizer = tokenizer
        if embedder is None and is_api_model(settings.embedding_model):
            self._embedder = embedder_from(settings.embedding_model)
        self.model_name, dimension = self._model(settings)
        self._request = StoreRequest(
            directory,
            dimension,
            TEXT_ANALYZER,
            rebuild,
            settings.database_options(),
            read_only=mode == "r",
            hold_writer=mode == "w" or (mode is None and rebuild),
            wait=wait,
            create=mode == "w" or rebuild,
        )
        self._store: Store | None = None
        self._store_lock = threading.Lock()
        try:
            self._store = self._open_store(self._request)
        except NotFoundError:
            if mode == "r":
                raise  # else there is no index yet: the first write creates it
        self._glossary: tuple[int, Glossary] | None = None
        self.context_progress: Callable[[ContextProgress], None] | None = None

    @classmethod
    def open(
        cls,
        path: str | Path | None = None,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        rebuild: bool = False,
        mode: Literal["r", "w"] | None = None,
        wait: bool = False,
    ) -> Index:
        """Open the index at ``path``; ``rebuild`` starts an empty index beside it, which
        the configured embedding model may fill in place of the one that built it: readers
        see the old index until the first ingest into the new one succeeds, and closing
        before that keeps the old one. ``mode`` and ``wait``: see :class:`Index`
        (``mode="r"`` for readers, ``"w"`` for a writer session)."""
        settings = settings or Settings()
        directory = settings.index_dir(path)
        return cls(directory, settings, embedder, rebuild=rebuild, mode=mode, wait=wait)

    def _open_store(self, request: StoreRequest) -> Store:
        """Open the store and check that it was built with this index's embedding model."""
        store = open_store(self.settings.database_provider, request)
        try:
            self._follow_tuned(store.read_meta().embedding_model, required=not request.reset)
            if request.reset:
                meta = replace(store.read_meta(), embedding_model=self.model_name)
                store.write_meta(meta)
            self._check_model(store, self.model_name)
        except BaseException:
            store.close()
            raise
        return store

    @property
    def store(self) -> Store:
        """The index's store; no index in the directory yet is a :class:`NotFoundError`."""
        if self._store is None:
            raise NotFoundError(f"no index at {self.directory}: run `hierdoc ingest PATH`")
        return self._store

    def _model(self, settings: Settings) -> tuple[str, int]:
        """The embedding model's name and dimension, without loading a local model."""
        if self._embedder is not None:
            return self._embedder.name, self._embedder.dimension
        model = settings.embedding_model
        if isinstance(model, ModelRef):
            model = f"{model.provider}:{model.name}"
        return local_model(model)

    def _check_model(self, store: Store, model: str) -> None:
        meta = store.read_meta()
        if meta.embedding_model is None:
            if self.mode != "r":
                store.write_meta(replace(meta, embedding_model=model))
        elif meta.embedding_model != model:
            raise ConfigError(
                f"this index was built with {meta.embedding_model} but the embedder is {model}: "
                "use the same model, or rebuild with: hierdoc ingest --force"
            )

    def _follow_tuned(self, stored_model: str | None, required: bool = True) -> None:
        """Use the model tuned on this index when its meta names one tuned from this
        index's local model (the embedder given for the base model is set aside): queries
        and new chunks are then embedded with it. Its files missing is a ConfigError, or,
        when not ``required`` (a rebuild from scratch), a return to the base model."""
        parsed = parse_tuned_name(stored_model)
        if stored_model is None or parsed is None or stored_model == self.model_name:
            return
        base = parse_tuned_name(self.model_name)
        if parsed[0] != (base[0] if base else self.model_name):
            return  # another model: _check_model says so
        try:
            tuned = tuned_model_for(self.directory, stored_model)
        except ConfigError:
            if required:
                raise
            return
        with self._embedder_lock:
            self._tuned, self.model_name = tuned, stored_model
            self._embedder, self._query_embedder = None, None

    def _follow_model(self) -> None:
        """After a write by anyone (a ``hierdoc tune`` switched in), the model the index's
        meta names now."""
        store = self.store
        generation = store.generation
        if generation != self._model_generation:
            self._model_generation = generation
            self._follow_tuned(store.read_meta().embedding_model)

    # parts loaded on first use

    def embedder(self) -> Embedder:
        with self._embedder_lock:
            if self._embedder is None:
                tuned = self._tuned
                self._embedder = (
                    LocalEmbedder(model_path=str(tuned.path), name=self.model_name)
                    if tuned is not None
                    else LocalEmbedder()
                )
            return self._embedder

    def tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = default_tokenizer()
        return self._tokenizer

    def embed_query(self, text: str) -> np.ndarray:
        """The unit vector a search of ``text`` uses: numpy for the bundled local model (no
        torch), else the configured embedder."""
        embedder = self._query_model()
        with self._embedder_lock:
            return embedder.embed_query(text)

    def embed_units(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text (a sentence of a chunk, shorter than the model reads),
        by the index's embedder, in one batch: the passage-level ranking's dense signal."""
        embedder = self.embedder()
        with self._embedder_lock:
            rows = embedder.embed_documents([EmbedInput("", text) for text in texts])
        return np.vstack([windows[0] for windows in rows])

    def _query_model(self) -> Embedder | NumpyQueryEmbedder:
        """The local model's queries embed in numpy, without loading torch (see
        pipeline/query_embed.py), unless an embedder was given or is loaded already."""
        with self._embedder_lock:
            if self._embedder is not None:
                return self._embedder
            if self._query_embedder is None:
                path = self._tuned.path if self._tuned is not None else None
                self._query_embedder = local_query_embedder(self.model_name, path)
            if self._query_embedder is not None:
                return self._query_embedder
        return self.embedder()

    # ingest

    def _fingerprint(self) -> str:
        s = self.settings
        key = json.dumps(
            [
                *(getattr(s, name) for name in INDEX_SHAPING_FIELDS),
                EXTRACTION_VERSION,
                (parse_tuned_name(self.model_name) or (self.model_name,))[0],
                s.context_model.model_dump() if s.context_model else None,
                PROMPT_VERSION if s.context_model else None,
            ]
        )
        return hashlib.sha1(key.encode()).hexdigest()[:12]

    def ingest(
        self,
        paths: Iterable[str | Path] | str | Path | None = None,
        force: bool = False,
        progress: ProgressFn | None = None,
    ) -> IngestReport:
        """Index files and folders; unchanged files are skipped, deleted ones removed.

        ``force`` rebuilds the index beside the live one, which readers see whole until
        the new one is complete and swapped in; a rebuild that fails leaves it as it was."""
        if paths is None:
            paths = self.settings.sources
        elif isinstance(paths, (str, Path)):
            paths = [paths]
        paths = [checked_path(path) for path in paths]
        if not paths:
            raise InputError("nothing to ingest: give a path, or 'source' in the config")
        with self._writing():
            force = self._forced(force)
            with self._rebuilding(force):
                ingestor = self._ingestor(force)
                try:
                    return ingestor.run(paths, progress)
                finally:
                    self._record_context_usage(ingestor.options.llm)

    def _writing(self, create: bool = True) -> AbstractContextManager[None]:
        """The writer lock for one ingest or removal (already held in mode "w"); the first
        write to a directory with no index creates it, when ``create``."""
        if self.mode == "r":
            raise InputError(
                f"the index at {self.directory} is open for reading (mode='r'): "
                "open it with mode='w' to ingest or remove"
            )
        if create:
            with self._store_lock:
                if self._store is None:
                    self._store = self._open_store(replace(self._request, create=True))
        return self.store.lock_writer(self._wait)

    def _forced(self, force: bool) -> bool:
        """Whether an ingest rebuilds everything: asked to, or the chunking settings changed."""
        return force or self.store.read_meta().fingerprint not in (None, self._fingerprint())

    @contextmanager
    def _rebuilding(self, force: bool) -> Iterator[None]:
        """Writes of the block go to a rebuild beside the live index when ``force`` (or
        one started at open), swapped in when the block ends well; a rebuild the block
        started is dropped when it fails (one started at open is dropped by :meth:`close`)."""
        started = force and self.store.begin_rebuild()
        try:
            yield
        except BaseException:
            if started:
                self.store.abandon_rebuild()
            raise
        self.store.publish_rebuild()

    def _ingestor(self, force: bool) -> Ingestor:
        """An ingestor for this index that re-uses nothing when ``force``."""
        self._follow_model()
        meta = self.store.read_meta()
        self.store.write_meta(replace(meta, fingerprint=self._fingerprint()))
        options = IngestOptions(self.settings, force=force)
        options.llm = self._llm_contexts()
        return Ingestor(self.store, self.embedder, self.tokenizer(), options)

    def _llm_contexts(self) -> LLMContexts | None:
        """Contextual retrieval with an LLM, when a ``context_model`` is configured."""
        s = self.settings
        if not (s.contextual_embeddings and s.context_model):
            return None
        return LLMContexts(
            model=context_model_from(s.context_model),
            cache=self.store.context_cache,
            concurrency=s.context_concurrency,
            max_tokens=s.context_max_tokens,
            progress=self.context_progress,
        )

    def _record_context_usage(self, llm: LLMContexts | None) -> None:
        """Add the run's LLM calls, tokens and failures to the index's running totals."""
        if llm is None or not llm.stats.jobs:
            return
        meta = self.store.read_meta()
        totals = dict(meta.context_usage)
        for key, value in llm.stats.to_dict().items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                totals[key] = totals.get(key, 0) + value
        totals["model"] = llm.model.name
        self.store.write_meta(replace(meta, context_usage=totals))

    def ingest_texts(
        self,
        documents: Iterable[TextDocument],
        force: bool = False,
        progress: ProgressFn | None = None,
    ) -> IngestReport:
        """Index documents given as text (or as ready-made chunks); unchanged ones are skipped."""
        documents = [_checked_document(document) for document in documents]
        with self._writing():
            force = self._forced(force)
            with self._rebuilding(force):
                ingestor = self._ingestor(force)
                try:
                    return ingestor.run_texts(documents, progress)
                finally:
                    self._record_context_usage(ingestor.options.llm)

    def remove(self, sources: str | Iterable[str]) -> list[str]:
        """Remove documents (named as for ``source=``: see :meth:`resolve_sources`) under the
        writer lock; returns the stored sources removed. Nothing is removed if any name is
        unknown. A removed file still on disk comes back at the next ingest of its folder."""
        with self._writing(create=False):
            return remove_documents(self.store, self.resolve_sources(sources))

    def tune(
        self,
        pairs: str | Path | None = None,
        *,
        epochs: int = 1,
        max_pairs: int = 4000,
        seed: int = 0,
        evaluate: bool = False,
        progress: TuneProgress | None = None,
        learning_rate: float = 2e-5,
        hard_negatives: bool = True,
        mined: bool = True,
        base_weight: float = 0.0,
    ) -> TuneReport:
        """Fine-tune the local embedder on pairs mined from this index's structure (and on
        ``pairs``, a JSONL file of ``{"query", "passage"}`` objects), save it in the index
        directory with its provenance, and re-embed the index with it: readers see the old
        vectors until the new ones are all there, then the new ones and the new model
        together; an interrupted run resumes where it stopped. ``evaluate`` measures the
        model before and after on held-out mined pairs; ``learning_rate`` is the peak rate
        of the schedule, ``hard_negatives`` whether mined pairs keep their neighbouring
        section as a negative, ``mined`` whether pairs are mined at all (without, only
        ``pairs`` are trained on), ``base_weight`` the share of the base model's weights
        mixed back into the trained ones (0 to 1). See :mod:`hierdoc.pipeline.tuning`."""
        from .pipeline.tune import TrainSettings

        for name, value, least in (
            ("epochs", epochs, 1),
            ("max_pairs", max_pairs, 1),
            ("seed", seed, 0),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise InputError(
                    f"{name} must be a whole number of at least {least}, not {value!r}"
                )
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)):
            raise InputError(f"learning_rate must be a number, not {learning_rate!r}")
        if not 0 < learning_rate <= 1e-2:
            raise InputError(f"learning_rate must be above 0 and at most 0.01, not {learning_rate}")
        if isinstance(base_weight, bool) or not isinstance(base_weight, (int, float)):
            raise InputError(f"base_weight must be a number, not {base_weight!r}")
        if not 0 <= base_weight < 1:
            raise InputError(f"base_weight must be at least 0 and below 1, not {base_weight}")
        options = TuneOptions(
            pairs_file=checked_path(pairs) if pairs is not None else None,
            max_pairs=max_pairs,
            mined=bool(mined),
            evaluate=evaluate,
            train=TrainSettings(
                epochs=epochs,
                seed=seed,
                learning_rate=float(learning_rate),
                hard_negatives=bool(hard_negatives),
                base_weight=float(base_weight),
            ),
            hierdoc_version=_installed_version(),
        )
        with self._writing(create=False):
            self._follow_model()
            models = self._tunable()
            report = run_tune(
                self.store, self._open_reader, self.directory, models, options, progress
            )
            self._follow_model()
        return report

    def _tunable(self) -> ModelPaths:
        """The base model and the current one, when this index embeds with the local model."""
        from .pipeline.embed import DEFAULT_MODEL
        from .text.tokenizer import bundled_model_dir

        base = (parse_tuned_name(self.model_name) or (self.model_name,))[0]
        local = self._embedder is None or isinstance(self._embedder, LocalEmbedder)
        if base != DEFAULT_MODEL or not local:
            raise ConfigError(
                f"hierdoc tune fine-tunes the local model ({DEFAULT_MODEL}); this index "
                f"embeds with {self.model_name}: rebuild it with the local model to tune it"
            )
        bundled = bundled_model_dir()
        current = self._tuned.path if self._tuned is not None else bundled
        return ModelPaths(base, bundled, current)

    def _open_reader(self) -> Store:
        """A second, read-only store of the live index (it keeps reading the live data
        while this one writes a rebuild)."""
        request = replace(self._request, read_only=True, hold_writer=False, reset=False)
        return self._open_store(request)

    async def aingest(
        self, paths: Iterable[str | Path] | str | Path | None = None, force: bool = False
    ) -> IngestReport:
        return await asyncio.to_thread(self.ingest, paths, force)

    # search

    def search(
        self,
        query: str,
        top_k: int | None = None,
        mode: str | None = None,
        min_score: float | None = None,
        source: str | Iterable[str] | None = None,
        section: str | None = None,
        chunk_type: str | Iterable[str] | None = None,
        settings: SearchSettings | None = None,
        where: Where | None = None,
        explain: bool = False,
        **overrides: Any,
    ) -> SearchResponse:
        """Search the index. ``settings`` replaces the index's search settings for this call;
        ``top_k``, ``mode``, ``min_score`` and ``overrides`` (any :class:`SearchSettings`
        field, e.g. ``keyword_weight=2``, ``policy={"crowded_citation": 100}``;
        ``rerank=False`` skips the configured reranker) change single values; the index is
        never modified. ``where`` keeps the documents whose metadata match (``{"type":
        "contract"}``; see :mod:`hierdoc.search.where`). ``explain`` adds the response's
        ``explain``: the query plan's trace, each modality's ranks and scores, the fusion,
        pins and reranking (:mod:`hierdoc.search.explain`)."""
        checked_text(query, "the query", max_chars=None)  # the searcher checks the length
        checked_strings(where, "where")
        self._follow_model()
        if not isinstance(explain, bool):
            raise InputError(f"explain is true or false, not {explain!r}")
        base = settings or self.settings
        chosen = base.search_settings(top_k=top_k, mode=mode, min_score=min_score, **overrides)
        filt = SearchFilter(
            sources=tuple(narrow_sources(self.store, self.resolve_sources(source), where)),
            section_prefix=self._known_section(section),
            chunk_types=_chunk_types(chunk_type),
        )
        reranker = reranker_for(chosen.reranker, self.settings.context_model)
        searcher = Searcher(self.store, self.embed_query, self.glossary(), reranker)
        execution = searcher.run(query, chosen, filt)
        units = self.embed_units if chosen.passage_results else None
        add_passages(self.store, execution, self.model_name, units)
        if explain:
            execution.response.explain = explain_execution(execution)
        return execution.response

    def _known_section(self, section: str | None) -> str | None:
        """``section`` when some document has a section with that id; else NotFoundError."""
        if section is None:
            return None
        return self.known_section(section, lead="no section")

    def known_section(
        self, section: str, sources: Sequence[str] | None = None, lead: str = "no section with id"
    ) -> str:
        """``section`` when a document (of ``sources``, when given) has a section with that
        id, found by key; else :class:`NotFoundError` naming the closest ids there are."""
        checked_text(section, "the section")
        if sources is None:
            if self.store.count_sections([section], 1):
                return section
        elif any(self.store.sections(section, source) for source in sources):
            return section
        raise unknown_section(section, section_ids(self.store, sources), bool(sources), lead)

    def glossary(self) -> Glossary:
        """The corpus's acronyms and defined terms, rebuilt when the index changes."""
        generation = self.store.generation
        if self._glossary is None or self._glossary[0] != generation:
            self._glossary = (
                generation,
                Glossary.from_store(self.store),
            )
        return self._glossary[1]

    async def asearch(self, query: str, **kwargs: Any) -> SearchResponse:
        return await asyncio.to_thread(self.search, query, **kwargs)

    def resolve_sources(self, source: str | Iterable[str] | None) -> list[str]:
        """The stored sources that ``source`` names: a stored source, a path to it (relative or
        absolute), its file name or a path suffix. Nothing is opened on disk.

        Raises :class:`NotFoundError` (listing the indexed file names) for a name that matches
        no indexed document, :class:`InputError` for a name that is no text.
        """
        if source is None:
            return []
        wanted = checked_texts([source] if isinstance(source, str) else source, "the source")
        known = source_names(self.store)
        resolved: list[str] = []
        for item in (w.strip() for w in wanted):
            matches = known.matching(item)
            if not matches:
                names = listed_choices(item, known.file_names())
                raise NotFoundError(
                    f"no indexed document matches source {item!r}; indexed: {names}"
                )
            resolved += matches
        return list(dict.fromkeys(resolved))

    def display_name(self, source: str) -> str:
        """How answers name a document: its file name, or the whole source when another
        indexed document has the same file name (looked up, not listed)."""
        return source_names(self.store).display_name(source)

    # inspection

    def one_source(self, source: str) -> str:
        """The one stored document ``source`` names (as for ``source=``): the document
        stored under that name (or absolute path) itself, else the only one it names; a
        name that matches several is an :class:`InputError` listing them, never a silent
        choice."""
        matches = self.resolve_sources(source)
        exact = [m for m in spellings(source.strip()) if m in matches]
        if exact:
            return exact[0]
        if len(matches) > 1:
            names = ", ".join(self.display_name(m) for m in matches[:MAX_OTHER_SOURCES])
            raise InputError(
                f"source {source!r} names {len(matches)} documents ({names}): name one"
            )
        return matches[0]

    def show(self, identifier: str, source: str | None = None) -> ChunkView:
        """A chunk by chunk id, or a section by section id or citation, with its neighbours
        (:func:`hierdoc.views.chunk_view`); a relative citation ("paragraph (k) of the 737
        MAX AD") is resolved as search resolves it (:meth:`cited_section`). ``source``
        (named as for ``source=``): the document to look in; without it, a section id that
        several documents have is shown in the first, the others listed in the view's
        ``other_sources``."""
        checked_text(identifier, "the id")
        home = None if source is None else self.one_source(source)
        try:
            view = chunk_view(self.store, identifier, home)
        except NotFoundError:
            cited = self.cited_section(identifier, home)
            if cited is None:
                raise
            view = chunk_view(self.store, cited[1], cited[0])
            name = PurePosixPath(cited[0]).name
            view.notes.append(f"{identifier!r} resolved to section {cited[1]} of {name}")
            return view
        if home is not None and view.chunk.chunk.source != home:
            raise NotFoundError(f"chunk {identifier!r} is not in document {source!r}")
        return view

    def cited_section(
        self, text: str, source: str | Iterable[str] | None = None
    ) -> tuple[str, str] | None:
        """(source, section id) a citation names ("paragraph (k) of the 737 MAX AD",
        "subsection (b)(2)"), in the document search resolves it in, without running a
        search (:func:`hierdoc.search.resolve.cited_section`); None when ``text`` holds
        none or it resolves nowhere."""
        checked_text(text, "the citation")
        sources = self.resolve_sources(source) if source is not None else None
        return cited_section(self.store, self.glossary(), text, sources)

    def held_section(
        self, identifier: str, sources: Sequence[str] | None = None
    ) -> HeldSection | None:
        """The section a section id or a citation ("Art. 17(3)(b)") names that documents (of
        ``sources``, when given) hold text for, with the first
        :data:`~hierdoc.views.MAX_OTHER_SOURCES` + 1 of them and how many there are
        (:func:`hierdoc.search.resolve.held_section`); None when none does."""
        checked_text(identifier, "the id")
        return held_section(self.store, identifier, sources, MAX_OTHER_SOURCES + 1)

    def define(self, term: str, source: str | Iterable[str] | None = None) -> DefinitionLookup:
        """Every definition of a term in the corpus (in the documents ``source`` names,
        when given), with its citation; conflicts flagged. An acronym no document defines
        in words is answered by its long forms (style ``acronym``), where a document gives
        them: "Non-Disclosure Agreement (NDA)", a list of acronyms. A term with no stored
        definition is looked up in the documents' sentences: each document's best place
        defining it ("X means", "a X is a ...", "... ("X")"), style ``sentence``
        (:mod:`hierdoc.search.term_lookup`)."""
        wanted = normalize_term(checked_text(term, "the term").strip(" \"'‘’“”"))
        if not wanted:
            raise InputError("the term is empty")
        within = set(self.resolve_sources(source)) if source is not None else None

        def held(found: list[Definition]) -> list[Definition]:
            return found if within is None else [d for d in found if d.source in within]

        definitions = held(self.store.definitions(article_forms(wanted)))
        if not definitions:  # "data subjects" of a glossary defining "data subject"
            forms = [form for key in article_forms(wanted) for form in number_forms(key)]
            definitions = held(self.store.definitions(list(dict.fromkeys(forms))))
        if not definitions:
            acronym_forms = self.glossary().lookup(wanted).expansions
            definitions = held(self.store.definitions([normalize_term(f) for f in acronym_forms]))
        if not definitions:
            definitions = held(acronym_definitions(self.store, term))
        if not definitions:  # no stored definition: the term's own sentences
            definitions = looked_up_definitions(self.store, wanted, within)
        return DefinitionLookup(term, definitions)

    def references(self, identifier: str, source: str | None = None) -> ReferenceLookup:
        """Outgoing and incoming cross-references of a chunk or section id, in one document:
        ``source`` (named as for ``source=``), else the one :meth:`show` finds the id in.
        A section id many documents share ("article-3") is looked at in that document only."""
        return self.view_references(self.show(identifier, source))

    def view_references(self, view: ChunkView) -> ReferenceLookup:
        """The cross-references of what a :meth:`show` view shows (see :meth:`references`)."""
        chunk = view.chunk.chunk
        home = chunk.source
        section = view.section
        section_id = section.section_id if section is not None else chunk.section_id
        outgoing_chunks = [chunk.chunk_id]
        if section is not None:
            within = SearchFilter(sources=(home,))
            outgoing_chunks += self.store.chunk_ids_under(section_id, within)
        outgoing = self.store.references_from(list(dict.fromkeys(outgoing_chunks)))
        targets = [section_id] + [s.section_id for s in self._descendants(section_id, home)]
        incoming = self.store.references_to(targets, into=home)
        others = view.other_sources, view.more_sources
        return ReferenceLookup(section_id, outgoing, incoming, home, *others)

    def _descendants(self, section_id: str, source: str) -> list[SectionRecord]:
        found = []
        for section in self.store.sections(section_id, source):
            stack = [section]
            while stack:
                current = stack.pop()
                children = self.store.children(current.source, current.section_id)
                found += children
                stack += children
        return found

    def stats(self) -> IndexStats:
        """Counts, size, models and the documents of this index."""
        stats = self.store.stats()
        return IndexStats(
            **{f.name: getattr(stats, f.name) for f in fields(StoreStats)},
            index=str(self.directory),
            documents_list=tuple(self.store.documents()),
        )

    def document_summaries(self) -> list[DocumentSummary]:
        """The indexed documents with their chunk, section and definition counts."""
        return summarize_documents(self.store)

    def outline(self, source: str) -> Outline:
        """The section tree of one document (named as for ``source=``), in document order."""
        return build_outline(self.store, self.resolve_sources(source))

    # reading the records: what the agent tools, evaluation and benchmarks use

    def documents(self) -> list[DocumentRecord]:
        """The indexed documents, by source (read once per index generation)."""
        return list(document_records(self.store))

    def chunks(self, chunk_ids: Sequence[str]) -> dict[str, StoredChunk]:
        """Chunks by id; ids not in the index are left out."""
        return self.store.get_chunks(checked_texts(chunk_ids, "a chunk id"))

    def chunks_of_source(self, source: str) -> list[StoredChunk]:
        """The chunks of one document, in reading order."""
        return self.store.chunks_of_source(checked_text(source, "the source"))

    def iter_chunks(self) -> Iterator[StoredChunk]:
        """Every chunk, by document and reading order."""
        for document in self.store.documents():
            yield from self.store.chunks_of_source(document.source)

    def iter_vectors(self) -> Iterator[tuple[str, np.ndarray]]:
        """Each chunk's id with its embedded windows (one row per window), as stored."""
        return self.store.iter_vectors()

    def sections(self, section_id: str, source: str | None = None) -> list[SectionRecord]:
        """Sections with this id (one per document that has it, or only in ``source``)."""
        checked_text(section_id, "the section id")
        return self.store.sections(
            section_id, checked_text(source, "the source") if source else None
        )

    def section_holders(self, section_id: str, limit: int = 1) -> list[str]:
        """The first ``limit`` documents, in source order, with text for this section id."""
        return self.store.section_holders(checked_text(section_id, "the section id"), limit)

    def count_section(self, section_id: str) -> int:
        """How many documents have a section with this id."""
        return self.store.count_sections([checked_text(section_id, "the section id")], 2**62)

    def children(self, source: str, section_id: str) -> list[SectionRecord]:
        """The sections directly under a section of one document."""
        checked_text(section_id, "the section id")
        return self.store.children(checked_text(source, "the source"), section_id)

    def scoped(self, scope: DocumentScope) -> Index:
        """A read-only view of this index that holds only the documents of ``scope``: every
        search, look-up, listing, count and error message of the view is made from them
        alone (:mod:`hierdoc.search.scoped`). The view shares this index's store and query
        model; closing it closes nothing."""
        return ScopedIndex(self, scope)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ScopedIndex(Index):
    """An :class:`Index` over a :class:`ScopedStore` of another one (:meth:`Index.scoped`)."""

    def __init__(self, parent: Index, scope: DocumentScope) -> None:
        self.__dict__.update(parent.__dict__)
        self.parent = parent
        self.scope = scope
        self.mode = "r"
        self._store = ScopedStore(parent.store, scope)
        self._glossary = None

    def embedder(self) -> Embedder:
        return self.parent.embedder()

    def tokenizer(self) -> Tokenizer:
        return self.parent.tokenizer()

    def embed_query(self, text: str) -> np.ndarray:
        return self.parent.embed_query(text)

    def close(self) -> None:
        """Nothing: the store belongs to the index this view was made from."""


def _installed_version() -> str:
    """hierdoc's version as installed (the package's own ``__version__`` is above this
    module's layer)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hierdoc")
    except PackageNotFoundError:
        return "unknown"


def _checked_document(document: TextDocument) -> TextDocument:
    """``document`` when its source, title, text, chunks and chunk ids hold no NUL and no
    lone surrogate; else an :class:`InputError` naming it."""
    checked_text(document.source, "a document's source")
    where = f"document {document.source!r}"
    checked_text(document.title, f"the title of {where}")
    checked_text(document.text, f"the text of {where}", max_chars=None)
    checked_strings(list(document.chunks or ()), f"the chunks of {where}", max_chars=None)
    checked_strings(list(document.chunk_ids or ()), f"the chunk ids of {where}")
    return document


def _chunk_types(chunk_type: str | Iterable[str] | None) -> tuple[str, ...]:
    """The chunk types asked for, each checked: an unknown type is an InputError."""
    wanted = tuple([chunk_type] if isinstance(chunk_type, str) else chunk_type or ())
    checked_texts(wanted, "the chunk type")
    unknown = [t for t in wanted if t not in CHUNK_TYPES]
    if unknown:
        raise InputError(f"unknown chunk_type {unknown[0]!r}; use one of {', '.join(CHUNK_TYPES)}")
    return wanted
