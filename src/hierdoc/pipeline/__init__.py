"""The ingest pipeline, one module per stage, typed data in and out (``hierdoc.models``).

convert -> structure (outline, code_outline) -> chunk -> extract -> context /
contextualize (context_records, limiter) -> embed; ``ingest`` runs the stages over files
or texts and writes each document to a store. The text rules the stages share with
storage and search (the citation grammar, tokenizer, sentences, normalisers, window
geometry) are in :mod:`hierdoc.text`.
"""
