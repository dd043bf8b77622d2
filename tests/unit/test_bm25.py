"""The tantivy BM25 index: ranking, identifiers, persistence, filters, phrases."""

from __future__ import annotations

import json
import math
import random
import threading
from pathlib import Path

import pytest

from hierdoc.models import SearchFilter
from hierdoc.search.searcher import keyword_terms
from hierdoc.store.local import check
from hierdoc.store.local.bm25 import STATE_FILE, Bm25Entry, Bm25Index
from hierdoc.text.analyze import ANALYZER_VERSION, analyze, analyze_words


def entry(
    chunk_id: str,
    text: str,
    source: str = "doc",
    chunk_type: str = "content",
    section_path: tuple[str, ...] = (),
) -> Bm25Entry:
    return Bm25Entry(chunk_id, source, analyze(text), analyze_words(text), chunk_type, section_path)


class QueriedIndex(Bm25Index):
    """The BM25 index as the search stage queries it: the query analysed by hierdoc's
    analyzer, back-offs resolved against this index's term frequencies."""

    def __init__(self, directory: Path) -> None:
        super().__init__(directory, ANALYZER_VERSION)

    def search(self, query: str, k: int, filt: SearchFilter | None = None):  # type: ignore[override]
        return super().search(keyword_terms(self, query), k, filt)

    def phrase_search(self, phrase: str, k: int, filt: SearchFilter | None = None):  # type: ignore[override]
        return super().phrase_search(analyze_words(phrase), k, filt)


@pytest.fixture
def index(tmp_path: Path):
    idx = QueriedIndex(tmp_path / "bm25")
    yield idx
    idx.close()


def build(index: Bm25Index, *entries: Bm25Entry, generation: int = 1) -> Bm25Index:
    index.add(entries)
    index.commit(generation)
    return index


def ids(hits) -> list[str]:
    return [h.chunk_id for h in hits]


def test_empty_index(index: Bm25Index) -> None:
    assert index.count() == 0
    assert index.generation is None
    assert index.search("anything", 10) == []
    assert index.phrase_search("any thing", 10) == []


def test_more_occurrences_rank_higher(index: Bm25Index) -> None:
    build(
        index,
        entry("once", "the escrow agent holds funds for the buyer and seller"),
        entry("twice", "the escrow agent holds escrow funds for the buyer and seller"),
        entry("none", "the buyer pays the seller on closing of the sale"),
    )
    hits = index.search("escrow", 10)
    assert ids(hits) == ["twice", "once"]
    assert hits[0].score > hits[1].score > 0


def test_identifier_queries(index: Bm25Index) -> None:
    build(
        index,
        entry("b2", "Distributions under section 403(b)(2) are limited."),
        entry("k", "A 401(k) plan may include an EACA."),
        entry("bare401", "Section 401 sets general qualification rules."),
        entry("other", "Unrelated text about dividends."),
    )
    assert ids(index.search("403(b)", 10)) == ["b2"]
    assert ids(index.search("Section 403(b)(2)", 10))[0] == "b2"
    assert ids(index.search("401(k)", 10)) == ["k"]
    assert "bare401" not in ids(index.search("401(k)", 10))
    assert ids(index.search("EACA", 10)) == ["k"]
    # a deeper citation than the corpus has backs off to its indexed ancestor
    assert ids(index.search("403(b)(2)(A)", 10)) == ["b2"]


def test_identifier_without_whole_term_does_not_match_parts(index: Bm25Index) -> None:
    build(index, entry("bare401", "Section 401 and paragraph k."))
    assert index.search("401(k)", 10) == []
    assert ids(index.search("401k", 10)) == ["bare401"]  # a run-on backs off to its parts


def test_stemming(index: Bm25Index) -> None:
    build(
        index,
        entry("sa", "Each supervisory authority shall be independent."),
        entry("other", "The controller shall keep records."),
    )
    assert ids(index.search("supervisory authorities", 10)) == ["sa"]
    assert ids(index.search("SUPERVISORY AUTHORITIES", 10)) == ["sa"]


def test_delete_source(index: Bm25Index) -> None:
    build(
        index,
        entry("a1", "alpha clause", source="a"),
        entry("a2", "alpha term", source="a"),
        entry("b1", "alpha clause", source="b"),
    )
    index.delete_source("a")
    index.commit(2)
    assert index.count() == 1
    assert ids(index.search("alpha", 10)) == ["b1"]


def test_uncommitted_changes_are_invisible(index: Bm25Index) -> None:
    build(index, entry("x", "visible text"))
    index.add([entry("y", "visible later")])
    assert ids(index.search("visible", 10)) == ["x"]
    index.commit(2)
    assert set(ids(index.search("visible", 10))) == {"x", "y"}


def test_persistence_across_reopen(tmp_path: Path) -> None:
    path = tmp_path / "bm25"
    first = build(QueriedIndex(path), entry("x", "persistent indemnity clause"), generation=7)
    first.close()
    again = QueriedIndex(path)
    assert again.generation == 7
    assert again.count() == 1
    assert ids(again.search("indemnity", 5)) == ["x"]
    again.add([entry("y", "indemnity again")])
    again.commit(8)
    again.close()
    assert QueriedIndex(path).generation == 8


def test_generation_none_when_state_missing_or_foreign(tmp_path: Path) -> None:
    path = tmp_path / "bm25"
    build(QueriedIndex(path), entry("x", "text"), generation=3).close()
    (path / STATE_FILE).write_text('{"generation": 3, "schema": 1, "analyzer": -1}')
    assert QueriedIndex(path).generation is None
    (path / STATE_FILE).write_text("not json")
    assert QueriedIndex(path).generation is None
    (path / STATE_FILE).unlink()
    assert QueriedIndex(path).generation is None


def test_state_without_index_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "bm25"
    build(QueriedIndex(path), entry("x", "text"), generation=3).close()
    for child in path.iterdir():
        if child.name != STATE_FILE:
            child.unlink()
    reopened = QueriedIndex(path)
    assert reopened.generation is None
    assert reopened.count() == 0


def test_corrupt_directory_raises_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bm25"
    build(QueriedIndex(path), entry("x", "text")).close()
    (path / "meta.json").write_text("garbage")
    with pytest.raises(RuntimeError, match="cannot open the BM25 index"):
        QueriedIndex(path)


class PanicException(BaseException):
    """What pyo3 raises when tantivy's Rust code panics (its own class has this name)."""


def test_a_panic_in_tantivy_on_a_damaged_file_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bm25"
    build(QueriedIndex(path), entry("x", "text")).close()

    def panics(path: str) -> bool:
        raise PanicException("assertion failed: end <= orig_range.end")

    monkeypatch.setattr("tantivy.Index.is_compatible", panics)
    with pytest.raises(RuntimeError, match="cannot open the BM25 index .*assertion failed"):
        QueriedIndex(path)


def test_reset(index: Bm25Index) -> None:
    build(index, entry("old", "obsolete wording"), generation=1)
    index.reset()
    assert index.generation is None  # a crash now would force a rebuild
    assert ids(index.search("obsolete", 10)) == ["old"]  # readers keep the old data
    index.add([entry("new", "fresh wording")])
    index.commit(2)
    assert index.count() == 1
    assert index.search("obsolete", 10) == []
    assert ids(index.search("wording", 10)) == ["new"]
    assert index.generation == 2


def test_filters(index: Bm25Index) -> None:
    build(
        index,
        entry("a", "notice period", source="s1", section_path=("ch-1", "sec-1")),
        entry("b", "notice period notice", source="s2", section_path=("ch-1", "sec-2")),
        entry("c", "notice", source="s3", chunk_type="definition", section_path=("ch-2",)),
    )
    unfiltered = {h.chunk_id: h.score for h in index.search("notice", 10)}
    assert set(unfiltered) == {"a", "b", "c"}
    assert set(ids(index.search("notice", 10, SearchFilter(sources=("s1", "s3"))))) == {"a", "c"}
    assert ids(index.search("notice", 10, SearchFilter(chunk_types=("definition",)))) == ["c"]
    in_ch1 = index.search("notice", 10, SearchFilter(section_prefix="ch-1"))
    assert ids(in_ch1) == ["b", "a"]
    # filters restrict, they do not change scores
    assert all(h.score == pytest.approx(unfiltered[h.chunk_id]) for h in in_ch1)
    both = SearchFilter(sources=("s1", "s2"), section_prefix="sec-2")
    assert ids(index.search("notice", 10, both)) == ["b"]
    assert index.search("notice", 10, SearchFilter(sources=("nope",))) == []
    assert ids(index.search("notice", 10, SearchFilter())) == ids(index.search("notice", 10))
    assert ids(index.phrase_search("notice period", 10, SearchFilter(sources=("s2",)))) == ["b"]


def test_phrase_search(index: Bm25Index) -> None:
    build(
        index,
        entry("p1", "The Parties shall use reasonable best efforts to close."),
        entry("p2", "Reasonable best efforts, as defined, apply."),
        entry("apart", "Best efforts that are reasonable; efforts best reasonable."),
        entry("stem", "reasonable best effort"),
    )
    assert set(ids(index.phrase_search("reasonable best efforts", 10))) == {"p1", "p2"}
    assert set(ids(index.phrase_search("“Reasonable   BEST efforts”", 10))) == {"p1", "p2"}
    assert set(ids(index.phrase_search("efforts", 10))) == {"p1", "p2", "apart"}
    assert index.phrase_search("...", 10) == []


def test_phrase_search_keeps_stop_words_and_identifiers(index: Bm25Index) -> None:
    build(
        index,
        entry("x", "subject to the provisions of section 403(b)(2)"),
        entry("y", "subject to provisions of the section"),
    )
    assert ids(index.phrase_search("to the provisions of", 10)) == ["x"]
    assert ids(index.phrase_search("section 403(b)(2)", 10)) == ["x"]


@pytest.mark.parametrize(
    "query",
    ["", "   ", "the of and", "...", "()", "§§", '"', "'", ":", "?!", "a an the"],
)
def test_empty_analysed_query_returns_nothing(index: Bm25Index, query: str) -> None:
    build(index, entry("x", "the text of a clause"))
    assert index.search(query, 10) == []


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced quote',
        "title:foo",
        "(paren AND [bracket",
        "401(k) OR -NOT +must",
        "field:(a OR b)^2 ~3 *",
        "back\\slash {brace}",
    ],
)
def test_punctuation_never_raises(index: Bm25Index, query: str) -> None:
    build(index, entry("x", "title foo paren bracket must brace 401(k)"))
    index.search(query, 10)
    index.phrase_search(query, 10)


def test_k_limits_results(index: Bm25Index) -> None:
    build(index, *(entry(f"c{i}", "common word " * (i + 1)) for i in range(20)))
    assert len(index.search("common", 5)) == 5
    assert index.search("common", 0) == []


def test_repeated_query_terms_count_once(index: Bm25Index) -> None:
    build(index, entry("x", "alpha beta"), entry("y", "beta gamma"), entry("z", "delta"))
    once = index.search("alpha beta", 10)
    repeated = index.search("alpha alpha alpha beta", 10)
    assert ids(once) == ids(repeated)
    assert [h.score for h in once] == pytest.approx([h.score for h in repeated])


def test_concurrent_reads_while_writing(index: Bm25Index) -> None:
    build(index, *(entry(f"c{i}", f"shared token number {i}") for i in range(50)))
    errors: list[BaseException] = []

    def reader() -> None:
        try:
            for _ in range(50):
                assert len(index.search("shared token", 10)) == 10
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for i in range(5):
        index.add([entry(f"n{i}", "shared token extra")])
        index.commit(2 + i)
    for t in threads:
        t.join()
    assert not errors
    assert index.count() == 55


def test_closed_index_raises(tmp_path: Path) -> None:
    idx = QueriedIndex(tmp_path / "bm25")
    idx.close()
    with pytest.raises(RuntimeError, match="closed"):
        idx.search("x", 1)


# -- reference implementation --------------------------------------------------

# fmt: off
VOCAB = [
    "contract", "party", "notice", "termination", "liability", "indemnify", "payment",
    "breach", "agreement", "confidential", "escrow", "seller", "buyer", "closing",
    "warranty", "remedy", "damages", "dispute", "court", "governing", "law", "assignment",
    "consent", "obligation", "period", "written",
]
# fmt: on


def lucene_bm25(corpus: list[list[str]]):
    """rank_bm25's BM25Okapi with tantivy's parameters and Lucene's IDF."""
    rank_bm25 = pytest.importorskip("rank_bm25")

    class LuceneBM25(rank_bm25.BM25Okapi):
        def _calc_idf(self, nd: dict[str, int]) -> None:
            for word, freq in nd.items():
                self.idf[word] = math.log(1 + (self.corpus_size - freq + 0.5) / (freq + 0.5))

    return LuceneBM25(corpus, k1=1.2, b=0.75)


def test_ranking_matches_reference_bm25(index: Bm25Index) -> None:
    rng = random.Random(1234)
    weights = [1 / (r + 1) for r in range(len(VOCAB))]
    texts = [" ".join(rng.choices(VOCAB, weights, k=rng.randint(4, 30))) for _ in range(60)]
    build(index, *(entry(f"d{i}", t) for i, t in enumerate(texts)))
    reference = lucene_bm25([analyze(t) for t in texts])

    queries = [" ".join(rng.sample(VOCAB, rng.randint(1, 4))) for _ in range(25)]
    for query in queries:
        terms = list(dict.fromkeys(analyze(query)))
        expected = reference.get_scores(terms)
        hits = index.search(query, 10)
        assert hits, query
        got = {int(h.chunk_id[1:]): h.score for h in hits}
        for doc, score in got.items():
            assert score == pytest.approx(expected[doc], rel=1e-3), query
        # the same top 10, in the same order up to ties
        ranked = sorted(range(len(texts)), key=lambda d: -expected[d])
        cutoff = expected[ranked[len(hits) - 1]]
        assert all(expected[d] >= cutoff - 1e-4 for d in got), query
        scores = [expected[int(h.chunk_id[1:])] for h in hits]
        assert all(a >= b - 1e-4 for a, b in zip(scores, scores[1:], strict=False)), query


def test_equal_scores_rank_by_chunk_id_also_at_the_cut(index: Bm25Index) -> None:
    """Ties must not depend on where documents landed in tantivy's segments (one commit
    each here, in reverse order), so that two builds of one corpus rank alike."""
    for generation, chunk_id in enumerate(["d", "c", "b", "a"], start=1):
        build(index, entry(chunk_id, "identical escrow clause"), generation=generation)
    build(index, entry("z", "escrow escrow escrow clause"), generation=9)
    assert ids(index.search("escrow", 10)) == ["z", "a", "b", "c", "d"]
    assert ids(index.search("escrow", 3)) == ["z", "a", "b"]
    assert ids(index.phrase_search("escrow clause", 2)) == ["a", "b"]


def test_a_commit_checksums_only_the_files_it_wrote(
    index: Bm25Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tantivy never rewrites a segment's file: a commit keeps the recorded checksums of
    the files it did not write and reads only new files and meta.json, so its cost does
    not grow with the index; the state still lists every current file."""
    build(index, *(entry(f"a{i}", f"first batch text {i}") for i in range(20)), generation=1)
    first = json.loads((index.directory / STATE_FILE).read_text())["files"]
    read: list[str] = []
    original = check.bm25_checksum
    monkeypatch.setattr(check, "bm25_checksum", lambda p: read.append(p.name) or original(p))
    build(index, entry("b", "second batch text"), generation=2)
    recorded = json.loads((index.directory / STATE_FILE).read_text())["files"]
    kept = [name for name in first if name in recorded and name != "meta.json"]
    assert kept and not set(kept) & set(read)
    assert "meta.json" in read
    assert set(recorded) == {p.name for p in check._segment_files(index.directory)}
    assert index.damage() is None


def test_large_files_are_checked_by_samples_and_damage_in_a_sample_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file over BM25_WHOLE_BYTES is recorded as "s:<crc>" of its size and 64 blocks
    (opening a large index reads a few MB, not all of it); flipping a byte that a block
    reads is damage. Checksums recorded whole (by an older version) still verify."""
    monkeypatch.setattr(check, "BM25_WHOLE_BYTES", 256)
    path = tmp_path / "bm25"
    index = build(QueriedIndex(path), *(entry(f"c{i}", f"clause {i} " * 30) for i in range(50)))
    files = json.loads((path / STATE_FILE).read_text())["files"]
    sampled = [name for name, crc in files.items() if crc.startswith("s:")]
    assert sampled and index.damage() is None
    target = max((path / name for name in sampled), key=lambda p: p.stat().st_size)
    data = bytearray(target.read_bytes())
    data[0] ^= 0xFF
    target.write_bytes(bytes(data))
    assert index.damage() == f"{target.name} does not match its checksum"
    index.close()
    monkeypatch.setattr(check, "BM25_WHOLE_BYTES", 64 << 20)
    whole = tmp_path / "whole"
    older = build(QueriedIndex(whole), *(entry(f"c{i}", f"clause {i} " * 30) for i in range(50)))
    recorded = json.loads((whole / STATE_FILE).read_text())["files"]
    assert not any(c.startswith("s:") for c in recorded.values())
    monkeypatch.setattr(check, "BM25_WHOLE_BYTES", 256)
    assert older.damage() is None  # whole checksums recorded earlier still verify whole
    build(older, entry("y", "more text"), generation=2)
    renewed = json.loads((whole / STATE_FILE).read_text())["files"]
    big = [n for n in recorded if n in renewed and (whole / n).stat().st_size > 256]
    assert big and all(renewed[n].startswith("s:") for n in big)
    assert older.damage() is None


def test_hits_tied_with_the_kth_are_ordered_by_chunk_id_whatever_the_build(tmp_path: Path) -> None:
    """Boilerplate repeated across documents ties: the top k are the best, then the tied
    ones with the smallest chunk ids, the same for any order the chunks were added in."""
    tied = [entry(f"copy-{n:03d}", "The supplier shall keep records.") for n in range(120)]
    better = [entry(f"best-{n}", "records records records kept by the supplier") for n in range(3)]
    other = [entry(f"other-{n}", "Termination for convenience.") for n in range(40)]
    found = []
    for seed in (0, 1):
        entries = tied + better + other
        random.Random(seed).shuffle(entries)
        index = QueriedIndex(tmp_path / f"bm25-{seed}")
        build(index, *entries)
        found.append(index.search("supplier records", 10))
        index.close()
    assert ids(found[0]) == ids(found[1])
    assert ids(found[0]) == [f"best-{n}" for n in range(3)] + [f"copy-{n:03d}" for n in range(7)]
    assert len({h.score for h in found[0][3:]}) == 1
