"""The store contract: what every backend must do, as pytest checks a backend's tests inherit.

The contract comes in parts, one per capability a store declares
(:class:`~hierdoc.store.base.Capability`), as Haystack's document-store tests do:
:class:`LifecycleContract` (every store), :class:`RecordsContract`,
:class:`LexicalContract`, :class:`VectorsContract` and :class:`LookupsContract`;
:class:`StoreContract` is all of them. A backend's test module subclasses the parts it
declares (a declared capability without its part fails) and provides a ``store`` fixture
(an empty store of :data:`DIMENSION` opened with
:data:`~hierdoc.text.analyze.TEXT_ANALYZER`) and, when two stores opened on the same
location share their writes (``SHARES_WRITES = True``), a ``second_store`` fixture.
The checks write a small two-document corpus through the protocol and read it back
through every method: records, meta, the context cache, BM25 scores against
a reference formula, phrases, best-window vectors, and filters against
:meth:`SearchFilter.matches`, the one rule every backend must agree with.

Requires pytest (a test dependency); nothing else in hierdoc imports this module.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import pytest

from ..errors import StoreError
from ..models import (
    Acronym,
    Chunk,
    CrossRef,
    Definition,
    DocumentRecord,
    Extraction,
    SearchFilter,
    Section,
    StoredChunk,
)
from ..text import bm25
from ..text.analyze import TEXT_ANALYZER
from ..text.names import NAMES, SHORT, WORD, WRITTEN, name_keys
from ..text.normalize import normalize_acronym, normalize_phrase, normalize_term
from .base import (
    Capability,
    ContextEntry,
    IndexBusyError,
    IndexMeta,
    Lexical,
    Lookups,
    Records,
    Store,
    Vectors,
)

DIMENSION = 4

# (source, section id, heading, path, chunk type, content)
_ROWS = [
    ("a.md", "chapter-1", "Chapter 1", (), "header", "Chapter 1 General provisions on escrow."),
    ("a.md", "article-1", "Article 1", ("chapter-1",), "definition",
     "'Escrow agent' means the person who holds escrow funds."),
    ("a.md", "article-17", "Article 17", ("chapter-1",), "requirement",
     "The controller shall erase personal data without undue delay, as Article 1 says."),
    ("a.md", "article-17-3", "Paragraph 3", ("chapter-1", "article-17"), "content",
     "Paragraph 3 applies the escrow rules to the right to erasure."),
    ("b.md", "article-170", "Article 170", (), "content",
     "Article 170 sets an escrow notice period."),
    ("b.md", "article-2", "Article 2", (), "content", "The Escrow Agent (EA) shall give notice."),
]  # fmt: skip
_TITLES = {"a.md": "Alpha Act", "b.md": "Beta Agreement"}


def _unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


_METADATA = {"type": "contract", "tags": ["nda", "mutual"], "date": "2024-01-31"}


def corpus_chunks(source: str) -> list[StoredChunk]:
    """The stored chunks of one contract document, in reading order."""
    found = []
    for source_, section_id, heading, path, kind, content in _ROWS:
        if source_ != source:
            continue
        chain = tuple(p.replace("-", " ").title() for p in (*path, section_id))
        chunk = Chunk(
            chunk_id=f"{source}#{len(found)}",
            source=source,
            title=_TITLES[source],
            section_id=section_id,
            heading=heading,
            parent_chain=chain,
            section_path=(*path, section_id),
            content=content,
            ordinal=len(found),
            token_count=len(content.split()),
            chunk_type=kind,  # type: ignore[arg-type]
            sections=(section_id,),
            page_start=len(found) + 1 if source == "a.md" else None,
            page_end=len(found) + 2 if source == "a.md" else None,
        )
        found.append(StoredChunk(chunk, f"{_TITLES[source]} > {heading}", "structural"))
    return found


def corpus_vectors(chunks: Sequence[StoredChunk]) -> list[np.ndarray]:
    """Unit windows: chunk i has window e_(i mod 4) and, for odd i, a second one."""
    vectors = []
    for i, _ in enumerate(chunks):
        first = np.eye(DIMENSION, dtype=np.float32)[i % DIMENSION] * 0.8 + 0.1
        windows = [_unit(*first)]
        if i % 2:
            windows.append(_unit(1.0, 2.0, 3.0, float(i)))
        vectors.append(np.vstack(windows))
    return vectors


def corpus_sections(source: str) -> list[Section]:
    return [
        Section(section_id, heading, len(path) + 1, (), path, content, f"{heading}\n", ordinal)
        for ordinal, (source_, section_id, heading, path, _, content) in enumerate(_ROWS)
        if source_ == source
    ]


def corpus_extraction(source: str) -> Extraction:
    if source == "a.md":
        return Extraction(
            definitions=[
                Definition("Escrow agent", "the person who holds escrow funds", source,
                           "article-1", "a.md#1")
            ],
            references=[CrossRef("Article 1", source, "a.md#2", "article-17", "article-1", source)],
            chunk_terms=[("a.md#3", normalize_term("Escrow agent"))],
        )  # fmt: skip
    return Extraction(acronyms=[Acronym("EA", "Escrow Agent", source, "b.md#1")])


def write_corpus(store: Store, source: str, content_hash: str = "h1") -> list[StoredChunk]:
    document, sections, chunks, vectors, extraction = corpus_document(source, content_hash)
    store.write_document(document, sections, chunks, vectors, extraction)
    return chunks


def corpus_document(
    source: str, content_hash: str = "h1"
) -> tuple[DocumentRecord, list[Section], list[StoredChunk], list[np.ndarray], Extraction]:
    """What :func:`write_corpus` writes of ``source``, as ``write_document`` takes it."""
    chunks = corpus_chunks(source)
    document = DocumentRecord(source, _TITLES[source], content_hash, "md", 100, len(chunks))
    if source == "a.md":
        document = replace(document, pages=6, metadata=_METADATA)
    return (document, corpus_sections(source), chunks, corpus_vectors(chunks),
            corpus_extraction(source))  # fmt: skip


def bm25_reference(documents: Sequence[Sequence[str]], query: Sequence[str]) -> list[float]:
    """BM25 as Lucene and tantivy score it (:mod:`hierdoc.text.bm25`)."""
    count = len(documents)
    average = sum(len(d) for d in documents) / count
    scores = [0.0] * count
    for term in dict.fromkeys(query):
        having = sum(term in d for d in documents)
        if not having:
            continue
        idf = bm25.idf(count, having)
        for i, document in enumerate(documents):
            tf = document.count(term)
            scores[i] += idf * bm25.term_score(tf, len(document), average) if tf else 0.0
    return scores


FILTERS = [
    SearchFilter(),
    SearchFilter(sources=("b.md",)),
    SearchFilter(chunk_types=("definition", "requirement")),
    SearchFilter(section_prefix="article-17"),
    SearchFilter(section_prefix="article-1"),
    SearchFilter(section_prefix="article"),
    SearchFilter(section_prefix="chapter-1", chunk_types=("content",)),
    SearchFilter(sources=("a.md",), section_prefix="article-170"),
]


def _expected_names(documents: Sequence[DocumentRecord]) -> set[tuple[str, str, str, str]]:
    return {(kind, *row, d.source) for d in documents for kind, *row in name_keys(d)}


def _name_rows(store: Store, documents: Sequence[DocumentRecord]) -> set[tuple[str, ...]]:
    """The stored name keys of every key ``documents`` have (kind, key, value, source)."""
    found: set[tuple[str, ...]] = set()
    for kind in (WRITTEN, SHORT, WORD, NAMES):
        keys = sorted({key for k, key, _, _ in _expected_names(documents) if k == kind})
        rows = store.name_keys(kind, keys)
        assert len(rows) == len(set(rows)), rows
        found |= {(kind, *row) for row in rows}
    return found


def _ids(hits: Sequence) -> list[str]:
    return [h.chunk_id for h in hits]


class StoreFixtures:
    """The corpus every part of the contract writes; see the module docstring for the
    fixtures a subclass provides."""

    SHARES_WRITES = False

    @pytest.fixture
    def filled(self, store: Store) -> Store:
        write_corpus(store, "a.md")
        write_corpus(store, "b.md")
        store.flush()
        return store

    @staticmethod
    def all_chunks() -> list[StoredChunk]:
        return corpus_chunks("a.md") + corpus_chunks("b.md")


class LifecycleContract(StoreFixtures):
    """Every store: whole-document writes, deletes, rebuilds, the meta, the context cache
    and the one writer; what is written is checked through each index it reaches."""

    def test_each_declared_capability_is_tested(self, store: Store) -> None:
        parts = {
            Capability.RECORDS: RecordsContract,
            Capability.LEXICAL: LexicalContract,
            Capability.VECTORS: VectorsContract,
            Capability.ACRONYM_KEYS: LookupsContract,
            Capability.NAME_KEYS: LookupsContract,
        }
        untested = {c for c in store.capabilities if not isinstance(self, parts[c])}
        assert untested == set(), f"{type(self).__name__} does not run the tests of {untested}"

    def test_generation_grows_with_each_write(self, store: Store) -> None:
        before = store.generation
        write_corpus(store, "a.md")
        after_write = store.generation
        store.delete_documents(["a.md"])
        assert before < after_write < store.generation

    def test_a_new_version_replaces_the_whole_document(self, filled: Store) -> None:
        chunk = replace(corpus_chunks("a.md")[0].chunk, chunk_id="a.md#new", content="Gone.")
        document = DocumentRecord("a.md", "Alpha Act", "h2", "md", 5, 1)
        vector = np.eye(DIMENSION, dtype=np.float32)[:1]
        filled.write_document(document, [], [StoredChunk(chunk, "")], [vector], Extraction())
        filled.flush()
        assert filled.document_hashes()["a.md"] == "h2"
        assert _ids(c.chunk for c in filled.chunks_of_source("a.md")) == ["a.md#new"]
        assert not filled.get_chunks(["a.md#1"])
        assert filled.definitions([normalize_term("Escrow agent")]) == []
        assert filled.references_from(["a.md#2"]) == []
        hits = _ids(filled.keyword_search(TEXT_ANALYZER.terms("escrow"), 10, None))
        assert hits and all(h.startswith("b.md") for h in hits)
        vector_hits = _ids(filled.vector_search(vector[0], 10, None))
        assert "a.md#new" in vector_hits and "a.md#1" not in vector_hits

    def test_a_refused_write_keeps_the_previous_version(self, filled: Store) -> None:
        """Chunk ids are unique across documents: a new version of a.md that reuses one of
        b.md's ids is refused with a StoreError, and a.md stays as it was."""
        clash = replace(corpus_chunks("a.md")[0].chunk, chunk_id="b.md#0")
        document = DocumentRecord("a.md", "Alpha Act", "h2", "md", 5, 1)
        vector = np.eye(DIMENSION, dtype=np.float32)[:1]
        with pytest.raises(StoreError):
            filled.write_document(document, [], [StoredChunk(clash, "")], [vector], Extraction())
        filled.flush()
        assert filled.document_hashes() == {"a.md": "h1", "b.md": "h1"}
        assert len(filled.chunks_of_source("a.md")) == 4
        assert filled.get_chunks(["b.md#0"])["b.md#0"].chunk.source == "b.md"
        assert "a.md#1" in _ids(filled.keyword_search(TEXT_ANALYZER.terms("funds"), 10, None))
        assert filled.definitions([normalize_term("Escrow agent")])

    def test_delete_and_clear(self, filled: Store) -> None:
        filled.context_cache.put("m", "p1", "doc", "chunk", "kept context")
        filled.delete_documents(["b.md"])
        filled.flush()
        assert filled.document_hashes() == {"a.md": "h1"}
        assert filled.acronyms() == []
        assert not any(h.startswith("b.md") for h in _ids(filled.vector_search(
            np.ones(DIMENSION, dtype=np.float32) / 2, 10, None)))  # fmt: skip
        filled.clear()
        filled.flush()
        assert filled.documents() == [] and filled.all_definitions() == []
        assert filled.keyword_search(TEXT_ANALYZER.terms("escrow"), 10, None) == []
        assert filled.context_cache.get("m", "p1", "doc", "chunk") == "kept context"

    def test_a_rebuild_is_seen_whole_once_published(self, request: pytest.FixtureRequest) -> None:
        """Until :meth:`~Store.publish_rebuild`, another store sees every document of the
        old index (a backend may show some in their new version); after it, exactly the
        documents written since :meth:`~Store.begin_rebuild`. The context cache is kept."""
        store: Store = request.getfixturevalue("store")
        assert not store.begin_rebuild()  # an empty index: nothing for readers to keep
        write_corpus(store, "a.md")
        write_corpus(store, "b.md")
        store.context_cache.put("m", "p1", "doc", "chunk", "kept context")
        store.flush()
        second = request.getfixturevalue("second_store") if self.SHARES_WRITES else None
        funds = TEXT_ANALYZER.terms("funds")
        with store.lock_writer():
            assert store.begin_rebuild() and not store.begin_rebuild()
            write_corpus(store, "b.md", "h2")
            store.flush()
            if second is not None:
                second.refresh()
                assert set(second.document_hashes()) == {"a.md", "b.md"}
                assert "a.md#1" in _ids(second.keyword_search(funds, 10, None))
            store.publish_rebuild()
        for reader in [store] if second is None else [store, second]:
            reader.refresh()
            assert reader.document_hashes() == {"b.md": "h2"}
            assert reader.keyword_search(funds, 10, None) == []
            assert {h.chunk_id for h in reader.vector_search(_unit(1, 1, 1, 1), 10, None)} == {
                c.chunk.chunk_id for c in corpus_chunks("b.md")
            }
            assert reader.context_cache.get("m", "p1", "doc", "chunk") == "kept context"

    def test_an_abandoned_rebuild_leaves_every_document(self, filled: Store) -> None:
        with filled.lock_writer():
            assert filled.begin_rebuild()
            write_corpus(filled, "b.md", "h2")
            filled.abandon_rebuild()
        assert set(filled.document_hashes()) == {"a.md", "b.md"}
        assert "a.md#1" in _ids(filled.keyword_search(TEXT_ANALYZER.terms("funds"), 10, None))
        filled.publish_rebuild()  # nothing under way: nothing happens
        assert set(filled.document_hashes()) == {"a.md", "b.md"}

    def test_meta_and_context_cache(self, store: Store) -> None:
        meta = IndexMeta("model-x", DIMENSION, "abc123", {"calls": 3, "model": "m"})
        store.write_meta(meta)
        assert store.read_meta() == meta
        assert store.context_cache.get("m", "p1", "d", "c") is None
        store.context_cache.put("m", "p1", "d", "c", "situated")
        assert store.context_cache.get("m", "p1", "d", "c") == "situated"
        assert store.context_cache.get("m", "p2", "d", "c") is None
        store.context_cache.put("m", "p2", "d", "c", "another")
        assert sorted(store.context_cache.entries(), key=str) == [
            ContextEntry("m", "p1", "d", "c", "situated"),
            ContextEntry("m", "p2", "d", "c", "another"),
        ]

    def test_a_second_store_sees_flushed_writes(self, request: pytest.FixtureRequest) -> None:
        if not self.SHARES_WRITES:
            pytest.skip("this backend's stores do not share a location")
        first: Store = request.getfixturevalue("store")
        second: Store = request.getfixturevalue("second_store")
        write_corpus(first, "b.md")
        first.flush()
        second.refresh()
        assert second.document_hashes() == {"b.md": "h1"}
        assert _ids(second.keyword_search(TEXT_ANALYZER.terms("notice"), 10, None))
        assert len(second.vector_search(np.ones(DIMENSION, dtype=np.float32), 10, None)) == 2

    def test_the_writer_lock_is_reentrant_and_writes_are_visible_after(self, store: Store) -> None:
        with store.lock_writer(), store.lock_writer(wait=False):
            write_corpus(store, "b.md")
        assert store.document_hashes() == {"b.md": "h1"}
        assert _ids(store.keyword_search(TEXT_ANALYZER.terms("notice"), 10, None))

    def test_one_writer_at_a_time(self, request: pytest.FixtureRequest) -> None:
        if not self.SHARES_WRITES:
            pytest.skip("this backend's stores do not share a location")
        first: Store = request.getfixturevalue("store")
        second: Store = request.getfixturevalue("second_store")
        with first.lock_writer():
            with pytest.raises(IndexBusyError), second.lock_writer(wait=False):
                pass  # pragma: no cover - the lock is held by the first store
            write_corpus(first, "b.md")
        with second.lock_writer(wait=False):
            write_corpus(second, "a.md")
        first.refresh()
        assert first.document_hashes() == {"a.md": "h1", "b.md": "h1"}


class RecordsContract(StoreFixtures):
    """:attr:`Capability.RECORDS`: records read back by id, source and section."""

    def test_declares_records(self, store: Store) -> None:
        assert Capability.RECORDS in store.capabilities
        assert isinstance(store, Records)

    def test_documents_and_hashes(self, filled: Store) -> None:
        assert [d.source for d in filled.documents()] == ["a.md", "b.md"]
        alpha = filled.documents()[0]
        assert alpha == DocumentRecord("a.md", "Alpha Act", "h1", "md", 100, 4, pages=6)
        assert alpha.metadata == _METADATA
        assert filled.documents()[1].pages is None and filled.documents()[1].metadata == {}
        stamp = filled.documents()[0].ingested_at
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp), stamp
        assert filled.document_hashes() == {"a.md": "h1", "b.md": "h1"}

    def test_chunks_come_back_as_written(self, filled: Store) -> None:
        expected = {s.chunk.chunk_id: s for s in self.all_chunks()}
        got = filled.get_chunks([*expected, "missing#9"])
        assert set(got) == set(expected)
        for chunk_id, stored in got.items():
            assert replace(stored.chunk, sections=()) == replace(
                expected[chunk_id].chunk, sections=()
            )
            assert (stored.context, stored.context_source) == (
                expected[chunk_id].context,
                "structural",
            )
        assert _ids(c.chunk for c in filled.chunks_of_source("a.md")) == [
            f"a.md#{i}" for i in range(4)
        ]

    def test_section_holders_are_the_first_documents_with_the_section(self, filled: Store) -> None:
        for section_id in ("article-17", "article-1", "nowhere"):
            expected = [s.source for s in filled.sections(section_id) if s.chunk_id]
            for limit in (1, 2, 10):
                assert filled.section_holders(section_id, limit) == expected[:limit]
        assert filled.section_holders("article-1", 10, ["a.md", "c.md"]) == ["a.md"]
        assert filled.section_holders("article-1", 10, ["b.md"]) == []
        assert filled.section_holders("article-1", 10, []) == []

    def test_chunks_of_sections_and_under(self, filled: Store) -> None:
        assert _ids(c.chunk for c in filled.chunks_of_sections(["article-17"])) == ["a.md#2"]
        under = filled.chunks_under("article-17")
        assert _ids(c.chunk for c in under) == ["a.md#2", "a.md#3"]
        assert filled.chunk_ids_under("article-17") == ["a.md#2", "a.md#3"]
        assert filled.chunk_ids_under("nowhere") == []
        assert filled.chunks_of_sections(["nowhere"]) == []

    def test_section_starts_are_the_chunks_of_sections_in_brief(self, filled: Store) -> None:
        for ids in (["article-17"], ["article-17", "article-1", "nowhere"], ["nowhere"], []):
            expected = [
                (s.chunk.source, s.chunk.chunk_id, s.chunk.section_id)
                for s in filled.chunks_of_sections(ids)
            ]
            assert filled.section_starts(ids) == expected, ids
        assert filled.section_starts(["article-17"]) == [("a.md", "a.md#2", "article-17")]
        both = ["article-17", "article-2"]
        assert [s[0] for s in filled.section_starts(both)] == ["a.md", "b.md"]
        assert filled.section_starts(both, ["b.md"]) == [("b.md", "b.md#1", "article-2")]
        assert filled.section_starts(both, ["c.md"]) == filled.section_starts(both, []) == []

    def test_sections_are_counted_up_to_a_limit(self, filled: Store) -> None:
        ids = ["article-17", "article-2", "article-1", "nowhere"]
        assert filled.count_sections(ids, 10) == 3
        assert filled.count_sections(ids, 2) == 2
        assert filled.count_sections(["nowhere"], 10) == filled.count_sections([], 10) == 0
        assert filled.count_sections(ids, 10, ["b.md"]) == 1  # article-2 alone
        assert filled.count_sections(ids, 10, []) == 0

    def test_sections_and_headings(self, filled: Store) -> None:
        (article,) = filled.sections("article-17")
        assert (article.source, article.parent_id, article.chunk_id) == (
            "a.md",
            "chapter-1",
            "a.md#2",
        )
        children = filled.children("a.md", "chapter-1")
        assert [s.section_id for s in children] == ["article-1", "article-17"]
        assert filled.sections_with_heading("  article 17 ") == ["article-17"]
        whole = filled.sections_of_source("a.md")
        assert [s.section_id for s in whole] == ["chapter-1", "article-1", "article-17",
                                                 "article-17-3"]  # fmt: skip
        assert [s.ordinal for s in whole] == [0, 1, 2, 3]
        assert (whole[3].parent_id, whole[3].level, whole[3].text) == (
            "article-17", 3, "Paragraph 3\nParagraph 3 applies the escrow rules to the right to "
            "erasure.")  # fmt: skip
        assert filled.sections_of_source("missing.md") == []
        assert filled.sections_with_heading("Article") == []
        begun = filled.sections_in_chunks([("b.md", "b.md#1"), ("a.md", "a.md#2")])
        assert [(s.source, s.section_id) for s in begun] == [
            ("a.md", "article-17"),
            ("b.md", "article-2"),
        ]
        assert filled.sections_in_chunks([("b.md", "a.md#2")]) == []
        assert filled.sections_in_chunks([]) == []

    def test_a_heading_as_long_as_a_page_is_stored_and_found(self, store: Store) -> None:
        """Converted documents give headings of thousands of characters (a paragraph set
        in a heading style); an index on the heading text must not refuse them."""
        heading = " ".join(["Confidential information"] * 400)
        section = Section("long", heading, 1, (), (), "Body.", f"{heading}\n", 0)
        document = DocumentRecord("long.md", "Long", "h", "md", 10, 0)
        store.write_document(document, [section], [], [])
        store.flush()
        assert store.sections_with_heading(heading.upper()) == ["long"]

    def test_definitions_acronyms_terms_references(self, filled: Store) -> None:
        norm = normalize_term("Escrow agent")
        assert [d.chunk_id for d in filled.definitions([norm])] == ["a.md#1"]
        assert [d.term for d in filled.all_definitions()] == ["Escrow agent"]
        assert filled.acronyms() == [Acronym("EA", "Escrow Agent", "b.md", "b.md#1")]
        assert filled.chunk_terms(["a.md#3", "a.md#0"]) == {"a.md#3": [norm]}
        (ref,) = filled.references_from(["a.md#2"])
        assert (ref.target_section_id, ref.resolved) == ("article-1", True)
        assert filled.references_to(["article-1"]) == [ref]
        assert filled.references_to(["article-1"], into=ref.target_source or ref.source) == [ref]
        assert filled.references_to(["article-1"], into="elsewhere.md") == []

    def test_stats_count_what_is_stored(self, filled: Store) -> None:
        stats = filled.stats()
        assert (stats.documents, stats.sections, stats.chunks) == (2, 6, 6)
        assert (stats.vectors, stats.definitions, stats.acronyms, stats.crossrefs) == (9, 1, 1, 1)
        assert stats.generation == filled.generation

    def test_sources_with_context(self, filled: Store) -> None:
        assert filled.sources_with_context("structural") == {"a.md", "b.md"}
        assert filled.sources_with_context("llm") == set()

    @pytest.mark.parametrize("filt", [f for f in FILTERS if f.section_prefix], ids=str)
    def test_chunks_under_agree_with_the_filter_rule(
        self, filled: Store, filt: SearchFilter
    ) -> None:
        assert filt.section_prefix
        allowed = {s.chunk.chunk_id for s in self.all_chunks() if filt.matches(s.chunk)}
        under = filled.chunks_under(filt.section_prefix, filt)
        assert {s.chunk.chunk_id for s in under} == allowed
        ids = filled.chunk_ids_under(filt.section_prefix, filt)
        assert ids == [s.chunk.chunk_id for s in under]


class LexicalContract(StoreFixtures):
    """:attr:`Capability.LEXICAL`: BM25 against a reference formula, phrases, filters."""

    def test_declares_lexical(self, store: Store) -> None:
        assert Capability.LEXICAL in store.capabilities
        assert isinstance(store, Lexical)

    def test_keyword_search_scores_bm25(self, filled: Store) -> None:
        chunks = self.all_chunks()
        documents = [TEXT_ANALYZER.terms(f"{s.context}\n{s.chunk.content}") for s in chunks]
        query = TEXT_ANALYZER.terms("escrow notice")
        expected = bm25_reference(documents, query)
        hits = filled.keyword_search(query, 10, None)
        assert {h.chunk_id for h in hits} == {
            s.chunk.chunk_id for s, score in zip(chunks, expected, strict=True) if score
        }
        by_id = {s.chunk.chunk_id: score for s, score in zip(chunks, expected, strict=True)}
        for hit in hits:
            assert hit.score == pytest.approx(by_id[hit.chunk_id], rel=1e-3)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert filled.doc_freq(query) == {t: sum(t in d for d in documents) for t in query}
        filt = SearchFilter(sources=("a.md",))
        within = [d for s, d in zip(chunks, documents, strict=True) if filt.matches(s.chunk)]
        counted = {t: sum(t in d for d in within) for t in query}
        assert filled.doc_freq(query, filt) == counted != filled.doc_freq(query)
        assert len(filled.keyword_search(query, 2, None)) == 2
        assert filled.keyword_search([], 10, None) == []

    def test_phrase_search(self, filled: Store) -> None:
        words = TEXT_ANALYZER.words
        assert _ids(filled.phrase_search(words("holds escrow funds"), 10, None)) == ["a.md#1"]
        assert filled.phrase_search(words("funds escrow"), 10, None) == []
        assert _ids(filled.phrase_search(words("Article 170"), 10, None)) == ["b.md#0"]

    @pytest.mark.parametrize("filt", FILTERS, ids=str)
    def test_lexical_filters_agree_with_the_reference_rule(
        self, filled: Store, filt: SearchFilter
    ) -> None:
        chunks = self.all_chunks()
        allowed = {s.chunk.chunk_id for s in chunks if filt.matches(s.chunk)}
        everywhere = TEXT_ANALYZER.terms("escrow notice controller")
        keyword = filled.keyword_search(everywhere, 100, filt)
        having = {
            s.chunk.chunk_id
            for s in chunks
            if set(everywhere) & set(TEXT_ANALYZER.terms(f"{s.context}\n{s.chunk.content}"))
        }
        assert set(_ids(keyword)) == allowed & having
        phrase = filled.phrase_search(TEXT_ANALYZER.words("escrow"), 100, filt)
        assert set(_ids(phrase)) == allowed & {
            s.chunk.chunk_id for s in chunks if "escrow" in s.chunk.content.lower()
        }


class VectorsContract(StoreFixtures):
    """:attr:`Capability.VECTORS`: best-window cosine, stored windows, filters."""

    def test_declares_vectors(self, store: Store) -> None:
        assert Capability.VECTORS in store.capabilities
        assert isinstance(store, Vectors)

    def test_vector_search_scores_the_best_window(self, filled: Store) -> None:
        chunks = self.all_chunks()
        windows = corpus_vectors(corpus_chunks("a.md")) + corpus_vectors(corpus_chunks("b.md"))
        query = windows[3][1]  # a.md#3's second window
        hits = filled.vector_search(query, 10, None)
        assert hits[0].chunk_id == "a.md#3" and hits[0].score == pytest.approx(1.0, abs=1e-5)
        expected = {
            s.chunk.chunk_id: float(np.max(w @ query)) for s, w in zip(chunks, windows, strict=True)
        }
        for hit in hits:
            assert hit.score == pytest.approx(expected[hit.chunk_id], abs=1e-5)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        stored = dict(filled.iter_vectors())
        assert set(stored) == set(expected)
        assert np.allclose(stored["a.md#3"], windows[3])
        some = filled.vectors_of(["b.md#1", "a.md#3", "missing#1"])
        assert set(some) == {"b.md#1", "a.md#3"}
        assert np.allclose(some["a.md#3"], windows[3]) and some["b.md#1"].shape == (2, DIMENSION)

    @pytest.mark.parametrize("filt", FILTERS, ids=str)
    def test_vector_filters_agree_with_the_reference_rule(
        self, filled: Store, filt: SearchFilter
    ) -> None:
        allowed = {s.chunk.chunk_id for s in self.all_chunks() if filt.matches(s.chunk)}
        vector = filled.vector_search(np.ones(DIMENSION, dtype=np.float32) / 2, 100, filt)
        assert set(_ids(vector)) == allowed


class LookupsContract(StoreFixtures):
    """:attr:`Capability.ACRONYM_KEYS` and :attr:`Capability.NAME_KEYS`: look-ups by key."""

    def test_declares_the_key_lookups(self, store: Store) -> None:
        assert {Capability.ACRONYM_KEYS, Capability.NAME_KEYS} <= store.capabilities
        assert isinstance(store, Lookups)

    def test_name_keys_are_stored_and_go_with_their_document(self, filled: Store) -> None:
        """The name keys of each document (text.names.name_keys) are looked up by kind
        and key, a new version's replace the old, and a deleted document's are gone."""
        documents = filled.documents()
        assert filled.document_count() == 2
        assert filled.chunk_count() == sum(d.chunk_count for d in documents) > 0
        assert filled.name_keys(WORD, []) == []
        assert _name_rows(filled, documents) == _expected_names(documents)
        found = filled.name_keys(WORD, ["alpha", "beta", "gamma"])
        assert sorted(found) == [("alpha", "", "a.md"), ("beta", "", "b.md")]
        renamed = replace(documents[1], title="Gamma Services Agreement", metadata={})
        chunks = corpus_chunks("b.md")
        filled.write_document(renamed, corpus_sections("b.md"), chunks, corpus_vectors(chunks))
        filled.flush()
        assert _name_rows(filled, [documents[0], renamed]) == _expected_names(
            [documents[0], renamed]
        )
        assert filled.name_keys(WORD, ["beta"]) == []
        filled.delete_documents(["a.md"])
        filled.flush()
        assert filled.document_count() == 1
        assert _name_rows(filled, [documents[0], renamed]) == _expected_names([renamed])

    def test_acronyms_are_looked_up_by_their_keys(self, filled: Store) -> None:
        """By the acronym's key (``normalize_acronym``: "E.A." finds "EA") or the long
        form's (``normalize_phrase``), in stored order; nothing for other keys."""
        (acronym,) = filled.acronyms()
        assert filled.acronyms_matching([normalize_acronym("E.A.")], []) == [acronym]
        assert filled.acronyms_matching([], [normalize_phrase("escrow-agent")]) == [acronym]
        assert filled.acronyms_matching(["ea"], ["escrow agent"]) == [acronym]
        assert filled.acronyms_matching(["xyz"], ["no such phrase"]) == []
        assert filled.acronyms_matching([], []) == []


class StoreContract(
    LifecycleContract, RecordsContract, LexicalContract, VectorsContract, LookupsContract
):
    """The whole contract, for a backend that declares every capability; a backend that
    declares fewer inherits :class:`LifecycleContract` and the parts it declares."""
