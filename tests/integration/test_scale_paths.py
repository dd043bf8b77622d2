"""Work kept off the query path: sentence offsets computed at ingest and
stored with each chunk, so that a search never segments text; the faster pysbd wrapper
finds pysbd's own boundaries."""

from __future__ import annotations

import json
import random
import re
import shutil
import sqlite3
from bisect import bisect_left
from collections.abc import Iterator
from pathlib import Path

import pysbd
import pytest

from hierdoc import Index, Settings
from hierdoc.pipeline import sentences
from hierdoc.pipeline.chunk import sentence_cuts, sentence_spans, spans_from_cuts
from hierdoc.pipeline.extract.acronyms import normalize_phrase
from hierdoc.search import glossary, passages
from hierdoc.search.analyze import analysed_tokens, analyze, token_spans, token_words
from hierdoc.search.glossary import Glossary, KeyedGlossary
from hierdoc.store.base import Store
from tests.datasets import DATASETS, GDPR_MD, require
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS

FIXTURES = TESTS / "fixtures"


def _pysbd_cuts(block: str) -> tuple[int, ...]:
    """The boundaries of pysbd as it is shipped (what chunking used before)."""
    segmenter = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return tuple(sorted({s.start for s in segmenter.segment(block)} - {0, len(block)}))


def _blocks(text: str) -> list[str]:
    """The paragraphs chunking hands to the segmenter one at a time."""
    return [block for block in re.split(r"\n[ \t]*\n", text) if block.strip()]


def _sample_texts() -> list[str]:
    gdpr = require(GDPR_MD).read_text()
    texts = [gdpr[: len(gdpr) // 3]]
    contracts = DATASETS / "contractnli" / "test.json"
    if contracts.exists():
        texts += [d["text"] for d in json.loads(contracts.read_text())["documents"][:4]]
    code = DATASETS / "anthropic-codebase" / "codebase_chunks.json"
    if code.exists():
        texts += [c["content"] for d in json.loads(code.read_text())[:3] for c in d["chunks"]]
    texts.append(
        "The plan under Sec. 403(b) of title 26, U.S.C. applies, e.g. to employers. "
        "See No. 5 and Art. 17. Mr. Smith agreed at 5 p.m. on Jan. 3. Is it so? Yes!"
    )
    return texts


@pytest.mark.slow
def test_the_fast_segmenter_finds_pysbds_boundaries() -> None:
    blocks = [b for text in _sample_texts() for b in _blocks(text)]
    assert len(blocks) > 200
    differ = [b[:80] for b in blocks if sentences.block_cuts(b) != _pysbd_cuts(b)]
    assert not differ, differ[:5]


def test_abbreviations_and_offsets_match_pysbd_on_a_hard_block() -> None:
    block = (
        "The plan under Sec. 403(b) of title 26, U.S.C. applies, e.g. to employers. "
        "See No. 5 and Art. 17.  Mr. Smith agreed at 5 p.m. on Jan. 3. Is it so? Yes!\n"
        "(a) the first point; (b) the second. The same sentence. The same sentence."
    )
    assert sentences.block_cuts(block) == _pysbd_cuts(block)
    assert len(sentences.block_cuts(block)) >= 5


def test_dot_leaders_are_split_as_pysbd_splits_them() -> None:
    """Repeated overlapping sentences ('. . .'): pysbd takes its occurrences without
    overlap from the start of the text; searching from the previous end shifts them."""
    block = (
        "The Candidate / Disclosee\nName . . . . . . . . . . . . . . . . . . . . . . . .\n"
        "Signature . . . . . . . . . . . . . . . . Date . . . . . . . . . . End."
    )
    assert sentences.block_cuts(block) == _pysbd_cuts(block)


def test_cuts_give_the_sentence_spans_back() -> None:
    text = "# Article 1\n\nFirst sentence. Second one, e.g. this.\n\n\n(a) a point; (b) another."
    cuts = sentence_cuts(text)
    assert cuts and 0 not in cuts
    assert spans_from_cuts(text, cuts) == sentence_spans(text)
    assert spans_from_cuts("", sentence_cuts("")) == []


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("scale-paths") / "index"
    sources = [*sorted(FIXTURES.rglob("*.md"))[:6], require(GDPR_MD)]
    with Index.open(directory, Settings(), embedder=HashEmbedder(), mode="w") as index:  # type: ignore[arg-type]
        report = index.ingest(sources)
        assert not report.problems, report.problems
    return directory


@pytest.fixture
def index(index_dir: Path) -> Iterator[Index]:
    with Index.open(index_dir, Settings(), embedder=HashEmbedder(), mode="r") as opened:  # type: ignore[arg-type]
        yield opened


def test_stored_sentence_offsets_are_the_ingest_time_computation(index: Index) -> None:
    stored = [s for d in index.documents() for s in index.store.chunks_of_source(d.source)]  # type: ignore[attr-defined]
    assert len(stored) > 100
    for item in stored:
        assert item.chunk.sentences == sentence_cuts(item.chunk.content), item.chunk.chunk_id
    assert sum(len(s.chunk.sentences or ()) for s in stored) > len(stored)


def test_a_search_segments_no_text(index: Index, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = {
        query: [(r.chunk_id, r.passage) for r in index.search(query, top_k=8).results]
        for query in ("erasure of personal data without undue delay", "Article 17(3)(b)")
    }
    passages.sentence_units.cache_clear()
    sentences.block_cuts.cache_clear()

    def refuse(self: object, text: str) -> list:
        raise AssertionError("pysbd ran during a search")

    monkeypatch.setattr(pysbd.Segmenter, "segment", refuse)
    for query, results in expected.items():
        found = index.search(query, top_k=8).results
        assert [(r.chunk_id, r.passage) for r in found] == results
        assert all(r.passage for r in found)


def test_chunks_without_offsets_get_the_same_passages(index_dir: Path, tmp_path: Path) -> None:
    """An index written before the offsets were stored (NULL, or no column at all) gives
    the same passages, computing the sentences when needed."""
    query = "erasure of personal data without undue delay"
    with Index.open(index_dir, Settings(), embedder=HashEmbedder(), mode="r") as index:  # type: ignore[arg-type]
        expected = [(r.chunk_id, r.passage) for r in index.search(query, top_k=8).results]
    for statement in (
        "UPDATE chunks SET sentences = NULL",
        "ALTER TABLE chunks DROP COLUMN sentences",
    ):
        copy = tmp_path / statement.split()[0].lower()
        shutil.copytree(index_dir, copy)
        db = sqlite3.connect(copy / "records.sqlite")
        db.execute(statement)
        db.commit()
        db.close()
        with Index.open(copy, Settings(), embedder=HashEmbedder(), mode="r") as index:  # type: ignore[arg-type]
            found = [(r.chunk_id, r.passage) for r in index.search(query, top_k=8).results]
            first = index.store.chunks_of_source(index.documents()[0].source)[0]  # type: ignore[attr-defined]
        assert found == expected
        assert first.chunk.sentences is None


def test_a_writer_adds_the_offsets_column_to_a_version_3_file_without_it(
    index_dir: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(index_dir, copy)
    added = tmp_path / "added.md"
    added.write_text("# Added\n\n## Section 1\n\nOne sentence. Another one, e.g. this.\n")
    db = sqlite3.connect(copy / "records.sqlite")
    db.execute("ALTER TABLE chunks DROP COLUMN sentences")
    db.commit()
    db.close()
    with Index.open(copy, Settings(), embedder=HashEmbedder(), mode="w") as index:  # type: ignore[arg-type]
        report = index.ingest([added])
        assert not report.problems
        written = [s.chunk for s in index.store.chunks_of_source(str(added.resolve()))]  # type: ignore[attr-defined]
    assert written and all(c.sentences == sentence_cuts(c.content) for c in written)


@pytest.fixture(scope="module")
def vocabulary_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    directory = tmp_path_factory.mktemp("vocabulary") / "index"
    sources = [FIXTURES / "acronyms", FIXTURES / "definitions", require(GDPR_MD)]
    with Index.open(directory, Settings(), embedder=HashEmbedder(), mode="w") as index:  # type: ignore[arg-type]
        report = index.ingest(sources)
        assert not report.problems, report.problems
    with Index.open(directory, Settings(), embedder=HashEmbedder(), mode="r") as opened:  # type: ignore[arg-type]
        yield opened


def _vocabulary_queries(store: Store) -> list[str]:
    terms = sorted({d.term for d in store.all_definitions()})
    acronyms = store.acronyms()
    queries = ["processing of personal data", "the right to erasure", "Article 17(3)(b)"]
    for term in terms:
        queries += [term, f"what is {term}?", f"obligations of the {term} under the law"]
    for item in acronyms:
        queries += [item.acronym, f"What does {item.acronym} stand for", item.long_form]
        queries.append(f"{item.long_form.lower()} and the {terms[0]} in {item.acronym}s")
    return queries


def test_the_keyed_glossary_answers_as_the_whole_one(vocabulary_index: Index) -> None:
    store = vocabulary_index.store
    glossary = vocabulary_index.glossary()
    assert isinstance(glossary, KeyedGlossary)
    whole = Glossary(store.acronyms(), store.all_definitions(), store.documents())
    queries = _vocabulary_queries(store)
    assert len(queries) > 200
    differ = [q for q in queries if glossary.lookup(q) != whole.lookup(q)]
    assert not differ, differ[:5]
    found = [glossary.lookup(q) for q in queries]
    assert sum(bool(v.expansions) for v in found) > 20
    assert sum(bool(v.defining_chunks) for v in found) > 20


def test_the_glossary_reads_no_whole_table(vocabulary_index: Index) -> None:
    """Opening the glossary reads the document records only; a lookup reads by key."""
    db = vocabulary_index.store.records._db  # type: ignore[attr-defined]
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    try:
        vocabulary_index._glossary = None  # type: ignore[attr-defined]
        vocabulary_index.glossary().lookup("What does the DPO of the controller do?")
    finally:
        db.set_trace_callback(None)
    read = " ".join(statements)
    assert "FROM acronyms WHERE acronym_norm IN" in read
    assert "FROM definitions WHERE term_norm IN" in read
    assert "FROM acronyms ORDER BY" not in read
    assert "FROM definitions  ORDER BY" not in read and "FROM definitions ORDER BY" not in read


def test_a_file_without_acronym_keys_reads_the_whole_glossary(
    index_dir: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(index_dir, copy)
    db = sqlite3.connect(copy / "records.sqlite")
    db.executescript(
        "DROP INDEX acronyms_by_key; DROP INDEX acronyms_by_long_form; "
        "ALTER TABLE acronyms DROP COLUMN acronym_norm; "
        "ALTER TABLE acronyms DROP COLUMN long_form_norm;"
    )
    db.close()
    with Index.open(copy, Settings(), embedder=HashEmbedder(), mode="r") as index:  # type: ignore[arg-type]
        assert not isinstance(index.glossary(), KeyedGlossary)
        expected = [r.chunk_id for r in index.search("personal data", top_k=5).results]
    with Index.open(copy, Settings(), embedder=HashEmbedder(), mode="w") as index:  # type: ignore[arg-type]
        assert index.store.records.acronyms_matching(["x"], []) == []  # type: ignore[attr-defined]
        assert isinstance(index.glossary(), KeyedGlossary)
        assert [r.chunk_id for r in index.search("personal data", top_k=5).results] == expected


def test_analysed_tokens_are_each_tokens_own_analysis() -> None:
    extra = " Über-Gesetz naïve café’s “quoted” Art. 17(3)(b)"
    text = require(GDPR_MD).read_text()[:60_000] + extra
    found = analysed_tokens(text)
    expected = [
        (start, end, tuple(dict.fromkeys(analyze(text[start:end]))))
        for start, end in token_spans(text)
    ]
    assert len(found) > 5_000
    assert found == expected


def _reference_hits(content: str, idf: dict[str, float]) -> list[tuple[int, int, tuple]]:
    """What the passages took as term hits before (every token of the chunk analysed)."""
    return [
        (start, end, tuple(t for t in terms if t in idf))
        for start, end, terms in analysed_tokens(content)
        if any(t in idf for t in terms)
    ]


def test_term_hits_and_sentence_lengths_are_those_of_every_token(index: Index) -> None:
    """The passages scan only the sentences that hold a query term; the hits and each
    sentence's token count are those of the whole chunk's tokens, also when sentences touch
    (a token may then run across them: the whole chunk is scanned)."""
    stored = [s for d in index.documents() for s in index.store.chunks_of_source(d.source)]  # type: ignore[attr-defined]
    scanned_whole = 0
    for item in stored[::3]:
        content = item.chunk.content
        terms = list(dict.fromkeys(analyze(content)))
        idf = {t: 1.0 for t in terms[::5]} | {"absent-term": 1.0}
        middle = len(content) // 2
        for units in (
            passages.sentence_units(content, item.chunk.sentences),
            ((0, middle), (middle, len(content))),
        ):
            assert passages._term_hits(content, units, idf) == _reference_hits(content, idf)
            starts = [s for s, _ in token_spans(content)]
            expected = tuple(bisect_left(starts, e) - bisect_left(starts, s) for s, e in units)
            tokens = passages._tokens(content, units)
            assert tokens.lengths == expected
            scanned_whole += tokens.words is None
    assert scanned_whole > 10


def _act(number: int) -> str:
    return (
        f"# Act {number} on supervision\n\n## Article 1 Scope\n\n1. Act {number} applies to "
        "banks.\n\n2. It also applies to insurers.\n\n## Article 2 Duties\n\n1. Each bank "
        "shall report, as referred to in Article 1(2).\n\n2. Each insurer shall report.\n"
    )


@pytest.fixture(scope="module")
def acts_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    folder = tmp_path_factory.mktemp("acts")
    (folder / "docs").mkdir()
    for number in range(4):
        (folder / "docs" / f"act-{number}.md").write_text(_act(number))
    (folder / "docs" / "notes.md").write_text("# Notes\n\n## Chapter 1 Notes\n\nNo articles.\n")
    with Index.open(folder / "index", Settings(), embedder=HashEmbedder(), mode="w") as index:  # type: ignore[arg-type]
        assert not index.ingest(folder / "docs").problems
    with Index.open(folder / "index", Settings(), embedder=HashEmbedder(), mode="r") as index:  # type: ignore[arg-type]
        yield index


def test_a_number_every_document_has_is_pinned_without_reading_its_chunks(
    acts_index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A citation (or a heading) that every document has is pinned in each from the chunks'
    ids (Store.section_starts), not by reading one whole chunk per document."""
    searches = [
        ("Article 2(1)", {}),
        ("Article 2(1) report", {"mode": "exact"}),
        ("Article 1(2)", {"source": "act-1.md"}),
        ("Article 2", {"chunk_type": "content"}),
        ("Duties", {}),
        ("Article 7", {}),
    ]
    expected = [acts_index.search(q, **kw).to_dict() for q, kw in searches]
    pinned = [r["chunk_id"] for r in expected[0]["results"] if r["pinned"]]
    assert len(pinned) == 4 and len({p.split("#")[0] for p in pinned}) == 4
    assert any("not in notes.md" in note for note in expected[0]["notes"])

    def refuse(self: object, section_ids: object) -> list:
        raise AssertionError("a whole chunk was read for each document")

    monkeypatch.setattr(type(acts_index.store), "chunks_of_sections", refuse)
    assert [acts_index.search(q, **kw).to_dict() for q, kw in searches] == expected


def test_a_chunk_said_to_hold_no_query_term_has_no_token_yielding_one() -> None:
    """passages.may_hold skips analysing a chunk that cannot hold a query term: for every
    ASCII token of real corpora (legislation, contracts, code), each of its index terms is
    found as may_hold looks for it, and a term absent from a text is mostly ruled out."""
    texts = _sample_texts() + [p.read_text() for p in sorted(FIXTURES.rglob("*.md"))]
    tokens = {t for text in texts for t in token_words(text) if t.isascii()}
    assert len(tokens) > 3_000
    missed = [(t, term) for t in tokens for term in analyze(t) if not passages.may_hold(t, [term])]
    assert not missed, missed[:10]
    gdpr = require(GDPR_MD).read_text()[:5_000]
    assert passages.may_hold(gdpr, ["process"])
    assert not passages.may_hold(gdpr, ["zebra", "quokka"])


def test_the_tokens_analysed_for_a_passage_are_those_may_hold_lets_through() -> None:
    """passages._may_yield finds, for all of a chunk's distinct tokens at once, the ones
    may_hold lets through one by one (and every non-ASCII token): only those are analysed."""
    texts = _sample_texts() + [p.read_text() for p in sorted(FIXTURES.rglob("*.md"))]
    tokens = tuple(dict.fromkeys(t for text in texts for t in token_words(text)))
    vocabulary = sorted({term for t in tokens[:2_000] for term in analyze(t)})
    held = passages._Tokens(tokens, (), None)
    rng = random.Random(18)
    for size in (1, 2, 5, 12):
        terms = rng.sample(vocabulary, size) + ["1,000", "u.s.c", "zebra"][: size % 4]
        expected = [t for t in tokens if not t.isascii() or passages.may_hold(t, terms)]
        assert passages._may_yield(held, terms) == expected, terms
    assert passages._may_yield(held, ["x", "zebra"]) == list(tokens)


def test_a_few_glossary_keys_are_found_as_the_compiled_pattern_finds_them() -> None:
    """A glossary read by key holds a few keys per query: they are looked for without
    compiling a pattern (glossary._scan), with the pattern's matches."""
    keys = {
        k: {}
        for k in (
            "personal data", "personal", "data", "data subject", "processing", "eu",
            "member state", "state", "third party", "party", "co-operation", "a", "ab",
        )
    }  # fmt: skip
    scanned = glossary._phrase_pattern(keys)
    assert isinstance(scanned, tuple)
    compiled = re.compile(r"(?<![\w-])(" + "|".join(re.escape(k) for k in scanned) + r")(?![\w-])")
    texts = [
        "personal data of the data subject; personal-data, personal datas, data",
        "member states and a member state; third party-parties; eu-wide eu",
        "co-operation, non-co-operation, a ab abc a-b _a a_ ab",
        normalize_phrase(require(GDPR_MD).read_text()[:20_000]),
    ]
    for text in texts:
        assert glossary._scan(scanned, text) == compiled.findall(text), text[:60]
    many = {f"term {i}": {} for i in range(glossary.MAX_SCANNED_KEYS + 1)}
    assert isinstance(glossary._phrase_pattern(many), re.Pattern)


def test_a_number_most_documents_have_reads_no_list_of_every_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Citing a number more documents have than the policy's ``crowded_citation``, or one no
    document has, counts the documents but does not read every document's source."""
    from hierdoc.config import DEFAULT_POLICY

    crowd = DEFAULT_POLICY.crowded_citation

    folder = tmp_path / "docs"
    folder.mkdir()
    for number in range(crowd + 2):
        (folder / f"act-{number:03d}.md").write_text(_act(number))
    (folder / "notes.md").write_text("# Notes\n\n## Chapter 1 Notes\n\nNo articles.\n")
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder(), mode="w") as index:  # type: ignore[arg-type]
        assert not index.ingest(folder).problems
    with Index.open(tmp_path / "index", Settings(), embedder=HashEmbedder(), mode="r") as index:  # type: ignore[arg-type]
        store_type = type(index.store)
        read = store_type.document_hashes
        with monkeypatch.context() as patch:

            def refuse(self: object) -> dict:
                raise AssertionError("every document's source was read")

            patch.setattr(store_type, "document_hashes", refuse)
            response = index.search("Article 2(1) report")
        assert sum(r.pinned for r in response.results) >= 1
        assert any(f"in more than {crowd} documents" in n for n in response.notes)
        index.resolve_sources(["act-000.md"])  # the file-name map: once per generation
        patch_reads: list[int] = []

        def counted(self: object) -> dict:
            patch_reads.append(1)
            return read(self)

        monkeypatch.setattr(store_type, "document_hashes", counted)
        within = index.search("Article 2(1)", source=["act-000.md", "notes.md"])
        assert any("not in notes.md" in n for n in within.notes) and not patch_reads
        nowhere = index.search("Article 2(7)")
        assert any(f"any of the {crowd + 3} documents" in n for n in nowhere.notes)
        assert not patch_reads
        some = index.search("Article 1(2) notes", source=[f"act-{i:03d}.md" for i in range(3)])
        assert any("Article 1(2) is in" in n for n in some.notes) and not patch_reads
