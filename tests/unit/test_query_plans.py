"""Every SQLite access on the query path uses an index.

The searches, ``show``, ``define`` and ``references`` of a small local index are
traced on the record store's connection, and each SELECT they issue is run again
under ``EXPLAIN QUERY PLAN``. SQLite chooses plans from the schema, not from the
size of the tables (no ``ANALYZE`` is ever run), so the plans of a small index are
those of a large one.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from hierdoc import Index, Settings
from hierdoc.models import DocumentRecord, SearchFilter
from hierdoc.store.local.records import RecordStore
from hierdoc.store.local.schema import SCHEMA_VERSION
from hierdoc.store.testing import corpus_chunks, corpus_sections
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS

FIXTURES = TESTS / "fixtures"

#: Tables that grow with the corpus: a full scan of any of them is a failure. The other
#: tables may be scanned: ``meta`` holds a handful of keys, and ``documents`` one row per
#: document (``resolve_sources`` lists them to match a source name against paths).
LARGE_TABLES = {
    "sections",
    "chunks",
    "chunk_sections",
    "definitions",
    "acronyms",
    "crossrefs",
    "chunk_terms",
    "vectors",
    "document_names",
}
#: The aliases the record store's statements give those tables (a plan names the alias).
ALIASES = {"c": "chunks", "cs": "chunk_sections", "v": "vectors", "s": "sections"}
_SCAN = re.compile(r"\bSCAN (?:TABLE )?(\w+)")


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("plans") / "index"
    sources = sorted(FIXTURES.rglob("*.md"))
    with Index.open(directory, Settings(), embedder=HashEmbedder(), mode="w") as index:  # type: ignore[arg-type]
        report = index.ingest(sources)
        assert not report.problems, report.problems
    return directory


@pytest.fixture
def index(index_dir: Path) -> Iterator[Index]:
    with Index.open(index_dir, Settings(), embedder=HashEmbedder(), mode="r") as opened:  # type: ignore[arg-type]
        yield opened


def _connection(index: Index) -> sqlite3.Connection:
    return index.store.records._db  # type: ignore[attr-defined]


def _query_path_statements(index: Index) -> list[str]:
    """Every SELECT that searches (each mode, with and without filters), ``show``,
    ``define`` and ``references`` issue, with their parameters bound."""
    index.glossary()
    store = index.store
    with_children = next(
        s
        for d in index.documents()
        for s in store.sections_of_source(d.source)  # type: ignore[attr-defined]
        if store.children(s.source, s.section_id)  # type: ignore[attr-defined]
    )
    source = Path(with_children.source).name
    statements: list[str] = []
    db = _connection(index)
    db.set_trace_callback(statements.append)
    try:
        filters: list[dict[str, str]] = [
            {},
            {"section": with_children.section_id},
            {"source": source},
            {"section": with_children.section_id, "source": source},
            {"chunk_type": "definition"},
        ]
        for mode in ("hybrid", "semantic", "keyword", "exact"):
            for filt in filters:
                for query in (
                    with_children.heading,
                    '"Business Day" escrow',
                    "deposit fee",
                    "Section 2.1(a) fees",
                    "Section 2",
                    "deposit fee under the escrow agreement",
                ):
                    index.search(query, mode=mode, **filt)
        index.show(with_children.section_id)
        index.show(index.store.chunks_of_source(with_children.source)[0].chunk.chunk_id)  # type: ignore[attr-defined]
        index.references(with_children.section_id)
        index.define("Business Day")
        index.define("ADP")
    finally:
        db.set_trace_callback(None)
    return [s for s in dict.fromkeys(statements) if s.lstrip().upper().startswith("SELECT")]


def test_every_query_path_statement_uses_an_index(index: Index) -> None:
    statements = _query_path_statements(index)
    db = _connection(index)
    scans = {}
    for sql in statements:
        plan = [row[3] for row in db.execute(f"EXPLAIN QUERY PLAN {sql}")]
        large = [
            line
            for line in plan
            if (m := _SCAN.search(line)) and ALIASES.get(m[1], m[1]) in LARGE_TABLES
        ]
        if large:
            scans[sql] = plan
    assert not scans, scans
    # the key lookups of the query path are among the statements checked
    text = "\n".join(statements)
    for needle in (
        "FROM sections WHERE lower(heading) = ",
        "FROM chunk_sections WHERE section_id = ",
        "FROM definitions WHERE term_norm IN",
        "FROM crossrefs WHERE chunk_id IN",
        "FROM crossrefs WHERE target_section_id IN",
        "FROM chunk_terms WHERE chunk_id IN",
        "FROM chunks WHERE source IN",
        "FROM chunks WHERE chunk_type IN",
        "FROM sections s LEFT JOIN chunks c ON c.chunk_id = s.chunk_id WHERE s.source = ",
        "SELECT source FROM sections WHERE section_id = ",
        "FROM acronyms WHERE acronym_norm IN",
        "FROM acronyms WHERE long_form_norm IN",
        "SELECT c.source, c.chunk_id, c.section_id FROM chunks c",
        "FROM chunk_sections cs WHERE cs.chunk_id = chunks.chunk_id",
        "FROM document_names WHERE kind = 'written' AND key IN",
        "FROM document_names WHERE kind = 'short' AND key IN",
        "FROM document_names WHERE kind = 'word' AND key IN",
        "FROM document_names WHERE kind = 'names' AND key IN",
    ):
        assert needle in text, needle


def test_every_cascading_delete_looks_rows_up_by_index(index: Index) -> None:
    """Deleting a document cascades (``ON DELETE CASCADE``) to each child table by its
    foreign key column: that column leads an index (or the primary key) of the table."""
    db = _connection(index)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    checked = 0
    for table in tables:
        leading = set()
        for index_row in db.execute(f"PRAGMA index_list({table})"):
            columns = db.execute(f"PRAGMA index_info({index_row[1]})").fetchall()
            if columns:
                leading.add(columns[0][2])
        for fk in db.execute(f"PRAGMA foreign_key_list({table})"):
            assert fk[3] in leading, f"{table}.{fk[3]} (references {fk[2]}) has no index"
            checked += 1
    assert checked >= 7


def _record_store(path: Path, paths: list[tuple[str, ...]]) -> RecordStore:
    records = RecordStore(path)
    records.set_up()
    template = corpus_chunks("a.md")[0]
    chunks = [
        replace(
            template,
            chunk=replace(template.chunk, chunk_id=f"a.md#{i}", ordinal=i, section_path=path),
        )
        for i, path in enumerate(paths)
    ]
    document = DocumentRecord("a.md", "Alpha", "hash", "md", 10, len(chunks))
    records.replace_document(document, corpus_sections("a.md"), chunks, [])
    return records


_PATHS = [
    ("article-17",),
    ("article-170",),
    ("chapter-1", "article-17-3-b"),
    ("article-17.5",),
    ("article-17-",),
    ("article-1",),
    ("Article-17",),
    ("article-17-é",),
    ("article_17",),
    (),
]
_PREFIXES = ["article-17", "article-1", "article", "article-17-3", "chapter-1", "Article-17", "a%"]


def _expected(prefix: str, paths: list[tuple[str, ...]]) -> set[str]:
    filt = SearchFilter(section_prefix=prefix)
    template = corpus_chunks("a.md")[0].chunk
    return {
        f"a.md#{i}"
        for i, path in enumerate(paths)
        if filt.matches(replace(template, section_path=path))
    }


def test_section_filter_follows_the_reference_rule(tmp_path: Path) -> None:
    records = _record_store(tmp_path / "records.sqlite", _PATHS)
    try:
        for prefix in _PREFIXES:
            found = records.chunk_ids_matching(SearchFilter(section_prefix=prefix))
            assert found == _expected(prefix, _PATHS), prefix
            # with a source, the subtree is looked up row by row (_section_of_row)
            within = SearchFilter(sources=("a.md",), section_prefix=prefix)
            assert records.chunk_ids_matching(within) == _expected(prefix, _PATHS), prefix
            elsewhere = SearchFilter(sources=("b.md",), section_prefix=prefix)
            assert records.chunk_ids_matching(elsewhere) == set()
    finally:
        records.close()


def test_a_version_1_file_is_read_as_it_is_and_migrated_by_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "records.sqlite"
    # the version-1 query (LIKE) ignores ASCII case, unlike the reference rule: lower case here
    plain = [p for p in _PATHS if p != ("Article-17",)]
    prefixes = [p for p in _PREFIXES if p == p.lower()]
    records = _record_store(path, plain)
    db = records._db
    db.executescript(
        "DROP TABLE chunk_sections; DROP INDEX sections_by_heading; "
        "DROP INDEX definitions_by_source; UPDATE meta SET value = '1' "
        "WHERE key = 'schema_version';"
    )
    expected = {p: _expected(p, plain) for p in prefixes}
    for prefix, ids in expected.items():
        assert records.chunk_ids_matching(SearchFilter(section_prefix=prefix)) == ids
    records.close()
    before = path.read_bytes()

    reader = RecordStore(path, read_only=True)
    assert reader.ready and not reader.current
    for prefix, ids in expected.items():
        assert reader.chunk_ids_matching(SearchFilter(section_prefix=prefix)) == ids
    assert reader.headings_matching("article 17") == ["article-17"]
    assert path.read_bytes() == before  # a reader of a version-1 file writes nothing

    writer = RecordStore(path)
    assert not writer.current
    writer.set_up()
    assert writer.current
    assert writer.get_meta("schema_version") == str(SCHEMA_VERSION)
    for prefix, ids in expected.items():
        assert writer.chunk_ids_matching(SearchFilter(section_prefix=prefix)) == ids
    names = {r[0] for r in writer._db.execute("SELECT name FROM sqlite_master")}
    assert {"chunk_sections", "sections_by_heading", "definitions_by_source"} <= names
    # the reader sees the migration without reopening
    for prefix, ids in expected.items():
        assert reader.chunk_ids_matching(SearchFilter(section_prefix=prefix)) == ids
    assert reader._has_chunk_sections()
    assert writer.headings_matching("article 17") == ["article-17"]
    writer.close()
    reader.close()


def test_a_version_2_file_is_read_without_pages_and_migrated_by_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "records.sqlite"
    records = _record_store(path, _PATHS[:3])
    records._db.executescript(
        "ALTER TABLE chunks DROP COLUMN page_start; ALTER TABLE chunks DROP COLUMN page_end; "
        "ALTER TABLE documents DROP COLUMN pages; ALTER TABLE documents DROP COLUMN metadata; "
        "UPDATE meta SET value = '2' WHERE key = 'schema_version';"
    )
    records.close()
    before = path.read_bytes()

    reader = RecordStore(path, read_only=True)
    assert [(d.source, d.pages, d.metadata) for d in reader.documents()] == [("a.md", None, {})]
    assert {s.chunk.page_start for s in reader.iter_chunks()} == {None}
    assert path.read_bytes() == before  # a reader of a version-2 file writes nothing

    writer = RecordStore(path)
    writer.set_up()
    assert writer.get_meta("schema_version") == str(SCHEMA_VERSION) == "5"
    document = DocumentRecord("b.md", "Beta", "h", "pdf", 5, 0, pages=4, metadata={"type": "x"})
    writer.replace_document(document, [], [], [])
    assert writer.documents()[1] == document and writer.documents()[1].metadata == {"type": "x"}
    assert len(reader.documents()) == 2 and reader.documents()[1].pages == 4
    writer.close()
    reader.close()
