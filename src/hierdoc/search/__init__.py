"""The search stage: analyse the query, rank each modality, fuse, build located results.

analyze (the BM25 analyzer, shared with indexing) -> glossary (acronyms and defined
terms) -> searcher (query parsing, exact lookups, modalities, results) -> fuse (RRF).
"""
