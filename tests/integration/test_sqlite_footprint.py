"""A section's text is stored once: as a span of the chunk it begins in.

Sections are read back character for character as they were written, from a new file
(GDPR and the fixtures, with chunks small enough that sections run on into the next
ones, and with overlap), from a file written before the spans (read as it is, then
migrated by a writer while a reader stays open), and through the footprint benchmark.
"""

from __future__ import annotations

import importlib.util
import random
import sqlite3
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hierdoc import Index, Settings
from hierdoc.models import DocumentRecord, Section, SectionRecord
from hierdoc.store.local.records import PAGE_SIZE, RecordStore
from hierdoc.store.local.schema import SCHEMA_VERSION
from hierdoc.store.local.sections import select_sections
from hierdoc.store.section_spans import section_text, text_span
from hierdoc.store.testing import corpus_chunks
from tests.datasets import GDPR_MD, require
from tests.hash_embedder import HashEmbedder
from tests.paths import REPOSITORY, TESTS

FIXTURES = TESTS / "fixtures"
BENCHMARK = REPOSITORY / "benchmarks" / "sqlite_footprint.py"


@pytest.mark.parametrize(
    ("content", "text", "expected"),
    [
        ("## A\n\nbody\n\n## B\n\nmore", "## B\n\nmore", (12, 22, "")),
        ("## A\n\nbody", "## A\n\nbody\n\n", (0, 10, "\n\n")),  # the chunk's strip()
        ("## A\n\nbody one", "body one two three", (6, 14, " two three")),  # runs on
        ("## A\n\nbody", "elsewhere", (None, None, "elsewhere")),
        ("abc", "", (0, 0, "")),
        ("x" * 100 + "tail", "tail and on", (100, 104, " and on")),
        ("a\0b", "b", (None, None, "b")),  # SQLite's substr stops at a NUL
    ],
)
def test_text_span_keeps_what_the_chunk_holds_and_the_rest(
    content: str, text: str, expected: tuple[int | None, int | None, str]
) -> None:
    assert text_span(content, text) == expected
    assert section_text(content, *text_span(content, text)) == text


def test_text_span_rebuilds_any_text() -> None:
    rng = random.Random(18)
    for _ in range(3000):
        content = "".join(rng.choice("ab \n§é") for _ in range(rng.randint(0, 120)))
        if rng.random() < 0.5 and content:
            start = rng.randint(0, len(content))
            text = content[start : rng.randint(start, len(content))]
            text += "".join(rng.choice("ab \n") for _ in range(rng.randint(0, 5)))
        else:
            text = "".join(rng.choice("ab \n§é") for _ in range(rng.randint(0, 80)))
        assert section_text(content, *text_span(content, text)) == text


def test_sqlite_slices_characters_as_python_does(tmp_path: Path) -> None:
    """Offsets are characters: SQLite's substr over 2-, 3- and 4-byte UTF-8 gives the
    Python slice; a NUL before the end keeps the text whole (substr would stop there)."""
    content = "## Über 😀\n\n中文 text é\n\n## Next\n\nnul\0 after"
    texts = ["## Über 😀\n\n中文 text é\n\n", "## Next\n\nnul\0 after", "中文 text"]
    sections = [Section(f"s{i}", f"s{i}", 1, (), (), text, "", i) for i, text in enumerate(texts)]
    template = corpus_chunks("a.md")[0]
    chunk = replace(template.chunk, content=content, sections=("s0", "s1", "s2"))
    records = RecordStore(tmp_path / "records.sqlite")
    records.set_up()
    document = DocumentRecord("a.md", "A", "h", "md", len(content), 1)
    records.replace_document(document, sections, [replace(template, chunk=chunk)], [])
    assert [r.text for r in records.sections_of_source("a.md")] == texts
    spans = records._db.execute("SELECT text_start FROM sections ORDER BY ordinal").fetchall()
    assert spans == [(0,), (None,), (content.index("中文"),)]
    # a reader that has not seen the columns yet is told to ask again with spans
    assert select_sections(records._db, "WHERE s.source = 'a.md'", [], False) is None
    records.close()


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict]]:
    """An index of GDPR and the fixtures, with the text of every section as written."""
    texts: dict[tuple[str, str], str] = {}
    original = RecordStore.replace_document

    def spy(self, document, sections, chunks, vectors, extraction=None):  # type: ignore[no-untyped-def]
        for s in sections:
            texts[(document.source, s.section_id)] = s.heading_line + s.body
        return original(self, document, sections, chunks, vectors, extraction)

    directory = tmp_path_factory.mktemp("footprint") / "index"
    settings = Settings(max_chunk_tokens=96, chunk_overlap=16)
    sources = [require(GDPR_MD), *sorted(FIXTURES.rglob("*.md"))]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RecordStore, "replace_document", spy)
        with Index.open(directory, settings, embedder=HashEmbedder(), mode="w") as index:  # type: ignore[arg-type]
            assert not index.ingest(sources).problems
    yield directory, texts


def _all_sections(index: Index) -> dict[tuple[str, str], SectionRecord]:
    return {
        (r.source, r.section_id): r
        for d in index.documents()
        for r in index.store.sections_of_source(d.source)  # type: ignore[attr-defined]
    }


def _stored_text_chars(path: Path) -> tuple[int, int]:
    """(characters in ``sections.text``, sections with a span) of a records file."""
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        columns = {row[1] for row in db.execute("PRAGMA table_info(sections)")}
        spans = "count(text_start)" if "text_start" in columns else "0"
        chars, spanned = db.execute(f"SELECT sum(length(text)), {spans} FROM sections").fetchone()
    finally:
        db.close()
    return chars, spanned


def _free_pages(path: Path) -> int:
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return db.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        db.close()


def test_sections_read_back_as_written_from_spans(written: tuple[Path, dict]) -> None:
    directory, texts = written
    with Index.open(directory, Settings(), embedder=HashEmbedder(), mode="r") as index:  # type: ignore[arg-type]
        records = _all_sections(index)
        assert {key: r.text for key, r in records.items()} == texts
        chunk_content = {s.chunk.chunk_id: s.chunk.content for s in index.iter_chunks()}
        some = next(r for r in records.values() if r.chunk_id and r.text.strip())
        assert index.sections(some.section_id, some.source) == [some]
        assert some.text.strip()[:40] in chunk_content[some.chunk_id]
        runs_on = [r for r in records.values() if r.chunk_id and r.text.rstrip() not in
                   chunk_content[r.chunk_id]]  # fmt: skip
        assert runs_on  # 96-token chunks: some sections continue into the next chunk
    chars, spanned = _stored_text_chars(directory / "records.sqlite")
    whole = sum(len(t) for t in texts.values())
    assert spanned >= 0.9 * len(texts)
    assert chars < 0.35 * whole  # only what the chunks do not hold (runs-on, stripped space)


def test_a_new_file_has_large_pages(written: tuple[Path, dict]) -> None:
    db = sqlite3.connect(written[0] / "records.sqlite")
    try:
        assert db.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE == 8192
    finally:
        db.close()


def _as_version_4(path: Path) -> None:
    """Turn a file back into what schema version 4 wrote: whole texts, no span columns."""
    db = sqlite3.connect(path)
    rows = db.execute(
        "SELECT s.rowid, s.text_start, s.text_end, s.text, c.content FROM sections s "
        "LEFT JOIN chunks c ON c.chunk_id = s.chunk_id"
    ).fetchall()
    db.executemany(
        "UPDATE sections SET text = ?, text_start = NULL, text_end = NULL WHERE rowid = ?",
        [(section_text(content, start, end, rest), rowid)
         for rowid, start, end, rest, content in rows],
    )  # fmt: skip
    db.executescript(
        "ALTER TABLE sections DROP COLUMN text_start; ALTER TABLE sections DROP COLUMN text_end;"
        "UPDATE meta SET value = '4' WHERE key = 'schema_version';"
    )
    db.commit()
    db.close()


def test_an_older_file_is_read_whole_then_migrated_to_spans(
    written: tuple[Path, dict], tmp_path: Path
) -> None:
    texts = written[1]
    directory = tmp_path / "index"
    directory.mkdir()
    source_db = sqlite3.connect(written[0] / "records.sqlite")
    source_db.execute("VACUUM INTO ?", (str(directory / "records.sqlite"),))
    source_db.close()
    path = directory / "records.sqlite"
    _as_version_4(path)
    whole_chars, spanned = _stored_text_chars(path)
    assert spanned == 0 and whole_chars == sum(len(t) for t in texts.values())

    reader = RecordStore(path, read_only=True)
    before = path.read_bytes()
    old = {(r.source, r.section_id): r.text for r in _records(reader)}
    assert old == texts and path.read_bytes() == before  # read as it is, nothing written

    whole_bytes = path.stat().st_size
    writer = RecordStore(path)
    assert not writer.current
    writer.set_up()
    assert writer.current and writer.get_meta("schema_version") == str(SCHEMA_VERSION)
    assert {(r.source, r.section_id): r.text for r in _records(writer)} == texts
    assert {(r.source, r.section_id): r.text for r in _records(reader)} == texts  # still open
    chars, spanned = _stored_text_chars(path)
    assert spanned >= 0.9 * len(texts) and chars < 0.35 * whole_chars
    assert _free_pages(path) == 0  # VACUUMed after the migration: the dropped text is given back
    assert whole_bytes - path.stat().st_size > 0.5 * (whole_chars - chars)
    writer.close()
    reader.close()


def _records(store: RecordStore) -> list[SectionRecord]:
    return [r for d in store.documents() for r in store.sections_of_source(d.source)]


def _benchmark() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sqlite_footprint", BENCHMARK)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_footprint_benchmark_counts_every_table(written: tuple[Path, dict], tmp_path: Path) -> None:
    footprint = _benchmark()
    found = footprint.measure(footprint.records_file(written[0]))
    names = {item.name for item in found.objects}
    assert {"sections", "chunks", "vectors", "sqlite_autoindex_sections_1"} <= names
    assert sum(item.pages for item in found.objects) + found.free_bytes == found.file_bytes
    assert found.chunks > 0 and found.sections > found.chunks
    table = footprint.table(found, 5)
    assert "B/chunk" in table and len(table.splitlines()) == 4 + 5
    compact = footprint.measure(footprint.compacted(found.path, tmp_path))
    assert compact.free_bytes == 0 and compact.chunks == found.chunks


@pytest.mark.postgres
def test_postgres_stores_spans_and_migrates_whole_texts(written: tuple[Path, dict]) -> None:
    """The same index copied to PostgreSQL (``hierdoc migrate``) reads back the same texts,
    stored as spans; an index of the previous schema (whole texts) is migrated by SQL."""
    import psycopg

    from hierdoc.cli.migrate import migrate, open_source, open_target
    from hierdoc.store.postgres.schema import MIGRATIONS
    from tests.contract.test_store_postgres import open_pg
    from tests.contract.test_store_postgres_server import drop_schema, fresh_options

    directory, texts = written
    spans_migration = next(
        n for n, statements in enumerate(MIGRATIONS) if any("text_start" in s for s in statements)
    )
    options = fresh_options()
    origin = open_source(str(directory), "public")
    try:
        target = open_target(options["url"], options["schema"], HashEmbedder.dimension)
        migrate(origin, target)
        records = _store_sections(origin)
        contents = {
            s.chunk.chunk_id: s.chunk.content
            for d in origin.documents()
            for s in origin.chunks_of_source(d.source)
        }
        assert {key: r.text for key, r in _store_sections(target).items()} == texts
        target.close()
        with psycopg.connect(options["url"], autocommit=True) as conn:
            conn.execute(f"SET search_path TO {options['schema']}")
            spanned, chars = conn.execute(
                "SELECT count(text_start), sum(char_length(text)) FROM sections"
            ).fetchone()
            assert spanned >= 0.9 * len(texts)
            assert chars < 0.35 * sum(len(t) for t in texts.values())
            for key, text in texts.items():  # as the previous schema wrote them
                conn.execute(
                    "UPDATE sections SET text = %s WHERE source = %s AND section_id = %s",
                    (text, *key),
                )
            conn.execute("ALTER TABLE sections DROP COLUMN text_start, DROP COLUMN text_end")
            for statement in MIGRATIONS[spans_migration]:  # as a writer upgrading runs it
                conn.execute(statement)
        open_pg(options, dimension=HashEmbedder.dimension).close()
        reader = open_pg(options, dimension=HashEmbedder.dimension, read_only=True)
        assert {key: r.text for key, r in _store_sections(reader).items()} == texts
        reader.close()
        with psycopg.connect(options["url"]) as conn:
            conn.execute(f"SET search_path TO {options['schema']}")
            row = conn.execute("SELECT count(text_start) FROM sections").fetchone()
        held_whole = sum(r.chunk_id is not None and r.text in contents[r.chunk_id]
                         for r in records.values())  # fmt: skip
        assert row is not None and row[0] == held_whole > 0
    finally:
        origin.close()
        drop_schema(options)


def _store_sections(store: Any) -> dict[tuple[str, str], SectionRecord]:
    return {
        (r.source, r.section_id): r
        for d in store.documents()
        for r in store.sections_of_source(d.source)
    }
