"""The embedded default backend: SQLite records, a tantivy BM25 index, a numpy vector matrix."""
