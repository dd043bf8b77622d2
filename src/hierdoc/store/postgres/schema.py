"""The PostgreSQL schema of an index, created and migrated by hierdoc.

Each migration is a list of statements applied once, in order, in one transaction
under an advisory lock (two processes opening a new database at once do not race);
the version reached is recorded in ``meta.schema_version``. The ``vectors`` column is
``vector(N)`` with the embedder's dimension, fixed when the schema is created and
changed only by a reset (``ingest --force`` with another model).
"""

from __future__ import annotations

import psycopg
from psycopg import sql
from psycopg_pool import ConnectionPool

from ...errors import NotFoundError, StoreError
from ..base import DimensionError
from .connection import transaction
from .postings import BLOCK

HNSW_INDEX = "CREATE INDEX vectors_hnsw ON vectors USING hnsw (embedding vector_ip_ops)"
"""The vectors' HNSW index (inner product: the vectors are normalised)."""

SCHEMA_LOCK = 0x68696572  # "hier": the advisory lock key of schema changes
WRITE_LOCK = 0x646F6373  # "docs": the writers' advisory lock key (with the schema, .lock)

MIGRATIONS: list[list[str]] = [
    [
        "CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)",
        """CREATE TABLE state (
            id int PRIMARY KEY CHECK (id = 1),
            generation bigint NOT NULL,
            chunks bigint NOT NULL,
            tokens bigint NOT NULL,
            words bigint NOT NULL)""",
        "INSERT INTO state VALUES (1, 0, 0, 0, 0)",
        """CREATE TABLE documents (
            source text PRIMARY KEY,
            title text NOT NULL,
            content_hash text NOT NULL,
            format text NOT NULL,
            chars integer NOT NULL,
            chunk_count integer NOT NULL,
            ingested_at timestamptz NOT NULL DEFAULT now())""",
        """CREATE TABLE sections (
            source text NOT NULL REFERENCES documents ON DELETE CASCADE,
            section_id text NOT NULL,
            heading text NOT NULL,
            level integer NOT NULL,
            parent_id text,
            ordinal integer NOT NULL,
            kind text NOT NULL,
            chunk_id text,
            text text NOT NULL,
            PRIMARY KEY (source, section_id))""",
        "CREATE INDEX sections_by_id ON sections (section_id)",
        "CREATE INDEX sections_by_heading ON sections (lower(heading))",
        """CREATE TABLE chunks (
            chunk_id text PRIMARY KEY,
            source text NOT NULL REFERENCES documents ON DELETE CASCADE,
            ordinal integer NOT NULL,
            section_id text NOT NULL,
            heading text NOT NULL,
            parent_chain text[] NOT NULL,
            section_path text[] NOT NULL,
            section_prefixes text[] NOT NULL,
            chunk_type text NOT NULL,
            content text NOT NULL,
            context text NOT NULL,
            token_count integer NOT NULL,
            overlap_chars integer NOT NULL,
            context_source text NOT NULL,
            llm_context text NOT NULL,
            context_truncated boolean NOT NULL,
            length integer NOT NULL,
            norm integer NOT NULL,
            words text[] NOT NULL,
            words_norm integer NOT NULL)""",
        "CREATE INDEX chunks_by_source ON chunks (source, ordinal)",
        "CREATE INDEX chunks_by_section ON chunks (section_id)",
        "CREATE INDEX chunks_by_prefix ON chunks USING gin (section_prefixes)",
        "CREATE INDEX chunks_by_words ON chunks USING gin (words)",
        """CREATE TABLE postings (
            term text NOT NULL,
            chunk_id text NOT NULL REFERENCES chunks ON DELETE CASCADE,
            tf integer NOT NULL,
            PRIMARY KEY (term, chunk_id))""",
        "CREATE INDEX postings_by_chunk ON postings (chunk_id)",
        "CREATE TABLE term_stats (term text PRIMARY KEY, df integer NOT NULL)",
        """CREATE TABLE vectors (
            chunk_id text NOT NULL REFERENCES chunks ON DELETE CASCADE,
            window_no integer NOT NULL,
            embedding vector({dimension}) NOT NULL,
            PRIMARY KEY (chunk_id, window_no))""",
        HNSW_INDEX,
        """CREATE TABLE definitions (
            id bigserial PRIMARY KEY,
            source text NOT NULL REFERENCES documents ON DELETE CASCADE,
            term text NOT NULL,
            term_norm text NOT NULL,
            definition text NOT NULL,
            section_id text NOT NULL,
            chunk_id text NOT NULL,
            style text NOT NULL)""",
        "CREATE INDEX definitions_by_term ON definitions (term_norm)",
        """CREATE TABLE acronyms (
            id bigserial PRIMARY KEY,
            source text NOT NULL REFERENCES documents ON DELETE CASCADE,
            acronym text NOT NULL,
            long_form text NOT NULL,
            chunk_id text NOT NULL)""",
        """CREATE TABLE crossrefs (
            id bigserial PRIMARY KEY,
            source text NOT NULL REFERENCES documents ON DELETE CASCADE,
            chunk_id text NOT NULL,
            section_id text NOT NULL,
            text text NOT NULL,
            target_section_id text,
            target_source text,
            external boolean NOT NULL)""",
        "CREATE INDEX crossrefs_by_chunk ON crossrefs (chunk_id)",
        "CREATE INDEX crossrefs_by_target ON crossrefs (target_section_id)",
        """CREATE TABLE chunk_terms (
            id bigserial PRIMARY KEY,
            chunk_id text NOT NULL REFERENCES chunks ON DELETE CASCADE,
            term_norm text NOT NULL)""",
        "CREATE INDEX chunk_terms_by_chunk ON chunk_terms (chunk_id)",
        """CREATE TABLE contexts (
            model text NOT NULL,
            prompt_version text NOT NULL,
            document_hash text NOT NULL,
            chunk_hash text NOT NULL,
            context text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (model, prompt_version, document_hash, chunk_hash))""",
    ],
    [
        "ALTER TABLE documents ADD COLUMN pages integer",
        "ALTER TABLE documents ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'",
        "ALTER TABLE chunks ADD COLUMN page_start integer",
        "ALTER TABLE chunks ADD COLUMN page_end integer",
        "ALTER TABLE chunks ADD COLUMN sentences integer[]",
        # the glossary's lookup keys (normalize_acronym, normalize_phrase of the long form)
        "ALTER TABLE acronyms ADD COLUMN acronym_norm text NOT NULL DEFAULT ''",
        "ALTER TABLE acronyms ADD COLUMN long_form_norm text NOT NULL DEFAULT ''",
        "CREATE INDEX acronyms_by_key ON acronyms (acronym_norm)",
        "CREATE INDEX acronyms_by_long_form ON acronyms (long_form_norm)",
        # a btree entry holds at most ~2.7 kB: a heading as long as a paragraph broke the
        # old index; lookups go through the digest, then compare the text
        "DROP INDEX sections_by_heading",
        "CREATE INDEX sections_by_heading ON sections (md5(lower(heading)))",
    ],
    [
        # what names each document, by the key a query finds it by (text.names.name_keys);
        # the documents already stored get theirs from the next writer (.names)
        """CREATE TABLE document_names (
            id bigserial PRIMARY KEY,
            source text NOT NULL REFERENCES documents ON DELETE CASCADE,
            kind text NOT NULL,
            key text NOT NULL,
            value text NOT NULL)""",
        "CREATE INDEX document_names_by_key ON document_names (kind, md5(key))",
        "CREATE INDEX document_names_by_source ON document_names (source)",
    ],
    [
        # a section's text as a span of the chunk it begins in (store.section_spans): text
        # keeps what the span leaves out; a text its chunk holds whole becomes a span
        "ALTER TABLE sections ADD COLUMN text_start integer",
        "ALTER TABLE sections ADD COLUMN text_end integer",
        "UPDATE sections s SET text_start = strpos(c.content, s.text) - 1, "
        "text_end = strpos(c.content, s.text) - 1 + char_length(s.text), text = '' "
        "FROM chunks c WHERE c.chunk_id = s.chunk_id AND strpos(c.content, s.text) > 0",
    ],
    [
        # packed postings (.postings): chunks numbered (a document's consecutively), terms
        # numbered with the bounds of their weight, the postings of a term in a few rows of
        # arrays and each chunk's terms on a forward row; the analyzer version is forgotten,
        # so the next writer rebuilds the lexical index from the chunks (.reindex)
        "ALTER TABLE chunks ADD COLUMN chunk_no integer",
        "UPDATE chunks c SET chunk_no = n.no FROM (SELECT chunk_id, "
        "row_number() OVER (ORDER BY source, ordinal)::int AS no FROM chunks) n "
        "WHERE n.chunk_id = c.chunk_id",
        "ALTER TABLE chunks ALTER COLUMN chunk_no SET NOT NULL",
        "CREATE UNIQUE INDEX chunks_by_no ON chunks (chunk_no)",
        "ALTER TABLE documents ADD COLUMN first_no integer NOT NULL DEFAULT 0",
        "ALTER TABLE documents ADD COLUMN last_no integer NOT NULL DEFAULT -1",
        "UPDATE documents d SET first_no = r.low, last_no = r.high FROM (SELECT source, "
        "min(chunk_no) AS low, max(chunk_no) AS high FROM chunks GROUP BY source) r "
        "WHERE r.source = d.source",
        "ALTER TABLE state ADD COLUMN next_no integer NOT NULL DEFAULT 1",
        "UPDATE state SET next_no = (SELECT coalesce(max(chunk_no), 0) + 1 FROM chunks)",
        "DROP TABLE postings",
        "DROP TABLE term_stats",
        """CREATE TABLE term_stats (
            term text PRIMARY KEY,
            term_id integer GENERATED ALWAYS AS IDENTITY UNIQUE,
            df integer NOT NULL,
            max_tf integer NOT NULL,
            min_norm integer NOT NULL,
            small_rows integer NOT NULL)""",
        """CREATE TABLE postings (
            term_id integer NOT NULL,
            first_no integer NOT NULL,
            last_no integer NOT NULL,
            n integer NOT NULL,
            nos bytea NOT NULL,
            tfs bytea NOT NULL,
            norms bytea NOT NULL)
            WITH (toast_tuple_target = 8160)""",
        "ALTER TABLE postings ALTER COLUMN nos SET STORAGE EXTERNAL",
        "CREATE INDEX postings_by_term ON postings (term_id, last_no, first_no)",
        f"CREATE INDEX postings_small ON postings (term_id) WHERE n < {BLOCK}",
        """CREATE TABLE forward (
            chunk_no integer PRIMARY KEY,
            term_ids bytea NOT NULL,
            tfs bytea NOT NULL)""",
        "DELETE FROM meta WHERE key = 'analyzer_version'",
    ],
]
SCHEMA_VERSION = len(MIGRATIONS)


class SchemaError(StoreError):
    """The database holds a hierdoc schema newer than this version of hierdoc knows."""


def migrate(pool: ConnectionPool, dimension: int) -> None:
    """Bring the schema to :data:`SCHEMA_VERSION`, creating it in an empty schema."""
    with transaction(pool) as conn:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        version = _version(conn)
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"the database has hierdoc schema version {version}; this hierdoc knows up to "
                f"{SCHEMA_VERSION}: upgrade hierdoc"
            )
        for number in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[number]:
                conn.execute(statement.replace("{dimension}", str(int(dimension))))
        if version < SCHEMA_VERSION:
            _set_meta(conn, "schema_version", str(SCHEMA_VERSION))
            if version == 0:
                _set_meta(conn, "dimension", str(dimension))


def _version(conn: psycopg.Connection) -> int:
    exists = conn.execute("SELECT to_regclass('meta') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return 0
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def _set_meta(conn: psycopg.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def check_readable(pool: ConnectionPool, schema: str, location: str) -> None:
    """For a read-only store: an index at the version this hierdoc knows must be there
    (nothing is created or migrated); else a :class:`NotFoundError` or :class:`StoreError`."""
    with pool.connection() as conn:
        row = conn.execute("SELECT current_schema() = %s", (schema,)).fetchone()
        version = _version(conn) if row and row[0] else 0
    if version == 0:
        raise NotFoundError(f"no index at {location}: run `hierdoc ingest PATH`")
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"the database has hierdoc schema version {version}; this hierdoc knows up to "
            f"{SCHEMA_VERSION}: upgrade hierdoc"
        )
    if version < SCHEMA_VERSION:
        raise StoreError(
            f"the index at {location} has schema version {version}, older than this "
            "hierdoc's: open it for writing once (hierdoc ingest) to migrate it"
        )


def dimension_to_set(pool: ConnectionPool, dimension: int, reset: bool) -> bool:
    """Whether the vectors column must change to ``dimension`` (a reset, or none recorded);
    another embedder's vectors without a reset are refused with a :class:`DimensionError`."""
    with pool.connection() as conn:
        row = conn.execute("SELECT value FROM meta WHERE key = 'dimension'").fetchone()
        model = conn.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
    stored = int(row[0]) if row else None
    if stored == dimension:
        return False
    if stored is not None and not reset:
        raise DimensionError(
            f"this index was built with {model[0] if model else 'another model'} "
            f"({stored}-dimensional vectors) but the embedder makes {dimension}: use the same "
            "model, or rebuild with: hierdoc ingest --force",
            stored,
        )
    return True


def set_dimension(conn: psycopg.Connection, dimension: int) -> None:
    """Empty the vectors and switch their column to ``dimension`` (inside a transaction,
    under the writer lock)."""
    conn.execute("DROP INDEX IF EXISTS vectors_hnsw")
    conn.execute("DELETE FROM vectors")
    conn.execute(
        sql.SQL("ALTER TABLE vectors ALTER COLUMN embedding TYPE vector({})").format(
            sql.Literal(int(dimension))
        )
    )
    conn.execute(HNSW_INDEX)
    _set_meta(conn, "dimension", str(dimension))
