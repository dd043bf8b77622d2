"""Retrieval-quality evaluation on benchmark sets, through the public API."""
