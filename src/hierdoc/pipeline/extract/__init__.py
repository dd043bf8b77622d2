"""Extraction of definitions, acronyms and cross-references from chunk text."""
