"""Documents named in a query, read by key from the store: the same answers as
the names built from every document record, without reading the records.

Each document's name keys are written with it (``document_names``); a query looks up the
keys its words can match. The keyed names are compared with the in-memory ones on the
real documents' names and on random titles, and an index written without the keys is
read from its records by a reader and filled once by a writer."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from hierdoc import Index, Settings
from hierdoc.errors import StoreError
from hierdoc.models import DocumentRecord
from hierdoc.search.names import DocumentNames, KeyedNames, document_names
from hierdoc.store.base import Capability
from hierdoc.store.local.names import NAMES_STAMP
from hierdoc.store.local.records import RecordStore
from hierdoc.text.names import name_keys
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS
from tests.unit.test_names import TITLES

#: The real documents (tests/realdocs) by their file names and titles, with the names of
#: tests/unit/test_names.py and parties in metadata.
REAL = {
    "realdocs/common-paper-data-processing-agreement.docx": "Data Processing Agreement",
    "realdocs/common-paper-pilot-agreement.docx": "Pilot Agreement",
    "realdocs/common-paper-software-license-agreement.docx": "Software License Agreement",
    "realdocs/federal-register-2020-17221.pdf": "Federal Register Vol. 85, No. 162",
    "realdocs/github-corporate-terms-of-service.md": "GitHub Corporate Terms of Service",
    "realdocs/github-terms-of-service.md": "GitHub Terms of Service",
    "realdocs/gnu-fdl-1.3.html": "GNU Free Documentation License v1.3 - GNU Project",
    "realdocs/gnu-gpl-3.0.html": "GNU General Public License v3.0 - GNU Project",
    "realdocs/nist-fips-200.pdf": "Minimum Security Requirements for Federal Information Systems",
    "realdocs/nist-sp-800-63b.pdf": "Digital Identity Guidelines: Authentication",
    "realdocs/openagreements-restrictive-covenant-wyoming.docx": "Restrictive Covenant",
    **TITLES,
}
_WORDS = [
    *("data", "processing", "pilot", "software", "service", "cloud", "security", "privacy"),
    *("master", "general", "public", "free", "documentation", "federal", "information"),
    *("systems", "digital", "identity", "of", "the", "and", "for", "on", "in", "to", "by"),
    *(f"{a}{b}" for a in ("zor", "blax", "quen", "mira", "tov") for b in ("ix", "an", "ol", "ur")),
]
#: The document words random titles hold: a fixed list, so that the random corpus stays the
#: same when the product learns another word.
_TITLE_KINDS = [
    *("act", "agreement", "bill", "bylaw", "charter", "code", "contract", "deed", "directive"),
    *("document", "file", "guidance", "guideline", "law", "lease", "licence", "license"),
    *("manual", "memorandum", "nda", "notice", "policy", "regulation", "schedule"),
    *("specification", "standard", "statute", "term"),
]
_IDENTIFIERS = ["FIPS 200", "SP 800-63B", "SP 800-53", "GPL 3.0", "ISO 27001", "v1.3", "2020/17"]
_PARTIES = ["Acme Corp", "Globex Inc", "Initech LLC", "Umbrella Ltd", "Hooli"]


def _records(titles: dict[str, str]) -> list[DocumentRecord]:
    found = []
    for i, (source, title) in enumerate(sorted(titles.items())):
        metadata = {"parties": _PARTIES[i % 3 : i % 3 + 2]} if i % 4 == 0 else {}
        found.append(DocumentRecord(source, title, "h", "x", 1, metadata=metadata))
    return found


def _random_title(rng: random.Random) -> str:
    words = rng.choices(_WORDS, k=rng.randint(1, 4))
    words.insert(rng.randint(0, len(words)), rng.choice(_TITLE_KINDS))
    if rng.random() < 0.3:
        words.append(rng.choice(_IDENTIFIERS))
    title = " ".join(w.title() if rng.random() < 0.7 else w for w in words)
    return f"{title} - {rng.choice(_WORDS).title()} Project" if rng.random() < 0.2 else title


def _random_documents(count: int, seed: int) -> list[DocumentRecord]:
    rng = random.Random(seed)
    titles = {}
    for i in range(count):
        title = _random_title(rng)
        stem = "-".join(title.lower().split()[:4]) if rng.random() < 0.5 else f"doc_{i}"
        titles[f"{rng.choice(['c', 'p', 's'])}/{stem}-{i}.{rng.choice(['md', 'pdf'])}"] = title
    return _records(titles)


def _queries(documents: list[DocumentRecord], rng: random.Random) -> list[str]:
    """Queries that write documents' names in every way (whole, in short, by their words,
    lower-cased, as acronyms and identifiers) and queries that name nothing."""
    found = ["the agreement may be terminated", "what is a Business Day", "Section 200"]
    for document in documents:
        words = document.title.replace(" - ", " ").split()
        start = rng.randrange(len(words))
        run = " ".join(words[start : start + rng.randint(1, 4)])
        initials = "".join(w[0] for w in words if w[0].isalpha()).upper()
        found += [
            f"Section 3.2 of the {document.title}",
            f"what does {document.title.lower()} say",
            f"Section 4 of the {run}",
            f"the {run.title()} notice period",
            f"in the {run.lower()} agreement who pays",
            f"Article 5 of the {initials}",
            f"Consider {Path(document.source).name}; who owns the IP?",
            f"the {' '.join(rng.sample(words, min(2, len(words))))} agreement",
            " ".join(rng.choices(_WORDS + ["agreement", "policy", "act"], k=5)),
        ]
    return found


def _store(path: Path, documents: list[DocumentRecord]) -> RecordStore:
    records = RecordStore(path)
    records.set_up()
    for document in documents:
        records.replace_document(document, [], [], [])
    return records


def _differences(
    keyed: DocumentNames, whole: DocumentNames, queries: list[str], scopes: list[list[str]]
) -> list[tuple[str, list[str]]]:
    """The (query, scope) whose naming differs; each query unscoped, every third in each
    of ``scopes`` too."""
    return [
        (query, scope)
        for i, query in enumerate(queries)
        for scope in ([[], *scopes] if i % 3 == 0 else [[]])
        if keyed.named(query, scope) != whole.named(query, scope)
    ]


@pytest.mark.parametrize(
    "documents", [_records(REAL), _random_documents(300, 1)], ids=["real", "random"]
)
def test_the_keyed_names_answer_as_the_names_of_every_record(
    documents: list[DocumentRecord], tmp_path: Path
) -> None:
    records = _store(tmp_path / "records.sqlite", documents)
    keyed = document_names(records)
    assert isinstance(keyed, KeyedNames) and keyed.count == len(documents)
    whole = DocumentNames(documents)
    rng = random.Random(7)
    queries = _queries(documents, rng)
    sources = [d.source for d in documents]
    scopes = [rng.sample(sources, 3), sources[:1]]
    assert not _differences(keyed, whole, queries, scopes)
    found = [whole.named(q) for q in queries]
    hows = {n.how for n in found if n is not None}
    assert hows == {"as written", "by a short name", "by its name's words"}
    assert sum(n is not None for n in found) > len(queries) / 5
    assert sum(n is None for n in found) > len(queries) / 10
    records.close()


def test_naming_reads_no_document_record(tmp_path: Path) -> None:
    """Naming reads the keys a query's words can match, and counts the documents."""
    documents = _records(REAL)
    records = _store(tmp_path / "records.sqlite", documents)
    statements: list[str] = []
    records._db.set_trace_callback(statements.append)
    names = document_names(records)
    for query in _queries(documents, random.Random(3)):
        names.named(query)
    records._db.set_trace_callback(None)
    read = "\n".join(statements)
    assert "FROM documents" in read and "count(*)" in read
    assert "title" not in read and "FROM documents ORDER BY" not in read
    assert "FROM document_names WHERE kind = 'names'" in read
    records.close()


@pytest.fixture
def old_file(tmp_path: Path) -> Iterator[Path]:
    """A version-3 file: written before the name keys were stored."""
    path = tmp_path / "records.sqlite"
    _store(path, _random_documents(60, 2)).close()
    db = sqlite3.connect(path)
    db.executescript(
        "DROP TABLE document_names; UPDATE meta SET value = '3' WHERE key = 'schema_version'; "
        f"DELETE FROM meta WHERE key = '{NAMES_STAMP}';"
    )
    db.close()
    yield path


def test_an_older_file_is_named_from_its_records_and_filled_by_a_writer(old_file: Path) -> None:
    before = old_file.read_bytes()
    reader = RecordStore(old_file, read_only=True)
    assert Capability.NAME_KEYS not in reader.capabilities
    documents = reader.documents()
    whole = document_names(reader)
    assert not isinstance(whole, KeyedNames)
    assert old_file.read_bytes() == before  # a reader writes nothing

    writer = RecordStore(old_file)
    assert not writer.current
    writer.set_up()
    assert writer.current
    keyed = document_names(writer)
    assert isinstance(keyed, KeyedNames)
    queries = _queries(documents, random.Random(5))
    assert not _differences(keyed, whole, queries, [])
    rows = writer._db.execute("SELECT count(*) FROM document_names").fetchone()[0]
    assert rows == sum(len(name_keys(d)) for d in documents)
    # the reader sees the keys once the writer has filled them
    assert isinstance(document_names(reader), KeyedNames)
    writer.close()
    reader.close()


def test_keys_of_another_version_are_rebuilt_by_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "records.sqlite"
    documents = _random_documents(20, 3)
    records = _store(path, documents)
    records._db.executescript(
        f"UPDATE meta SET value = '0' WHERE key = '{NAMES_STAMP}'; "
        "DELETE FROM document_names WHERE kind = 'word';"
    )
    records.close()
    reader = RecordStore(path, read_only=True)
    assert Capability.NAME_KEYS not in reader.capabilities
    with pytest.raises(StoreError, match="no current name keys"):
        reader.name_keys("word", ["data"])
    writer = RecordStore(path)
    assert not writer.current
    writer.set_up()
    expected = {(d.source, *key) for d in documents for key in name_keys(d)}
    stored = set(writer._db.execute("SELECT source, kind, key, value FROM document_names"))
    assert stored == expected
    writer.close()
    reader.close()


FIXTURES = TESTS / "fixtures"


def test_an_index_written_before_is_read_as_before_and_migrated_on_open(tmp_path: Path) -> None:
    """A reader of a version-3 index names documents from their records; opening it for
    writing (the default) fills the keys once, and searches give the same results."""
    directory = tmp_path / "index"
    with Index.open(directory, Settings(), embedder=HashEmbedder(), mode="w") as index:  # type: ignore[arg-type]
        assert not index.ingest(sorted(FIXTURES.rglob("*.md"))).problems
    db = sqlite3.connect(directory / "records.sqlite")
    db.executescript(
        "DROP TABLE document_names; UPDATE meta SET value = '3' WHERE key = 'schema_version'; "
        f"DELETE FROM meta WHERE key = '{NAMES_STAMP}';"
    )
    db.close()
    queries = ["deposit fee under the escrow agreement", "Source Code Escrow Agreement fees"]
    with Index.open(directory, Settings(), embedder=HashEmbedder(), mode="r") as index:  # type: ignore[arg-type]
        assert not isinstance(index.glossary().names, KeyedNames)
        before = [[r.chunk_id for r in index.search(q).results] for q in queries]
        named = [index.glossary().names.named(q) for q in queries]
    assert named[0] is not None
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as index:  # type: ignore[arg-type]
        statements: list[str] = []
        index.store.records._db.set_trace_callback(statements.append)  # type: ignore[attr-defined]
        assert isinstance(index.glossary().names, KeyedNames)
        index.glossary().lookup(queries[0])
        index.store.records._db.set_trace_callback(None)  # type: ignore[attr-defined]
        assert statements and not [s for s in statements if "FROM documents ORDER BY" in s]
        assert [[r.chunk_id for r in index.search(q).results] for q in queries] == before
        assert [index.glossary().names.named(q) for q in queries] == named


@pytest.mark.postgres
def test_a_postgres_index_without_keys_is_read_as_before_and_filled_by_a_writer() -> None:
    from tests.contract.test_store_postgres import open_pg
    from tests.contract.test_store_postgres_server import drop_schema, fresh_options

    options = fresh_options()
    documents = _random_documents(30, 4)
    try:
        holder = open_pg(options, hold_writer=True)
        for document in documents:
            holder.write_document(document, [], [], [])
        with psycopg.connect(options["url"]) as conn:
            conn.execute(f"SET search_path TO {options['schema']}")
            conn.execute("DELETE FROM document_names")  # as migration 3 leaves them
            conn.execute(f"DELETE FROM meta WHERE key = '{NAMES_STAMP}'")
        # another process writes: this one opens and names from the records
        for store in (open_pg(options), open_pg(options, read_only=True)):
            assert Capability.NAME_KEYS not in store.capabilities
            assert not isinstance(document_names(store), KeyedNames)
            store.close()
        holder.close()
        open_pg(options).close()  # the next writer fills the keys
        reader = open_pg(options, read_only=True)
        keyed = document_names(reader)
        assert isinstance(keyed, KeyedNames) and keyed.count == len(documents)
        whole = DocumentNames(reader.documents())
        assert not _differences(keyed, whole, _queries(documents, random.Random(2)), [])
        reader.close()
    finally:
        drop_schema(options)
