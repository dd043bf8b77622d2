"""The search stage: analyse the query, rank each modality, fuse, build located results.

glossary (acronyms and defined terms) -> searcher (query parsing, exact lookups,
modalities, results) -> fuse (RRF); the BM25 analyzer it shares with indexing is
:mod:`hierdoc.text.analyze`.
"""
