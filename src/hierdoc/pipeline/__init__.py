"""The ingest pipeline, one module per stage, typed data in and out (``hierdoc.models``).

convert -> structure (outline, numbering, code_outline) -> chunk (tokenizer) ->
extract -> context / contextualize (context_records, limiter) -> embed; ``ingest``
runs the stages over files or texts and writes each document to a store.
"""
