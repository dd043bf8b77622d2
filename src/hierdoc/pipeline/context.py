"""Contextualize stage: the short text placed before a chunk when it is indexed.

Without an LLM the context is structural: the document title and the chunk's
parent chain, so "Article 17" is embedded knowing it sits in "Chapter III >
Section 3" of the GDPR. The context goes in front of the chunk for embedding
and BM25; results show the original chunk text.
"""

from __future__ import annotations

from ..models import Chunk


def structural_context(chunk: Chunk) -> str:
    chain = [part for part in chunk.parent_chain if part]
    if chain and chain[0].strip().lower() == chunk.title.strip().lower():
        chain = chain[1:]
    return " > ".join([chunk.title, *chain]) if chain else chunk.title
