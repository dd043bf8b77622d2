"""A section's text stored as a span of the chunk it begins in: stored once.

Chunks are character spans of their sections' text (``pipeline.chunk``), so the text of a
section is, as a rule, a slice of the content of the chunk that starts it. A store keeps
``(start, end, rest)``: the text is ``content[start:end] + rest``. ``rest`` is empty for a
section inside its chunk, the whitespace the chunk's ``strip()`` removed for the last one,
and the continuation for a section that runs on into the next chunks; a section found in
no chunk keeps its whole text (``start`` and ``end`` None). The writer finds the span and
the reader slices: what is read back is the text written, character for character.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Section, StoredChunk

PROBE_CHARS = 64
"""Characters of a section's text looked for in the chunk when the text runs past its end."""


def text_span(content: str, text: str) -> tuple[int | None, int | None, str]:
    """(start, end, rest) with ``content[start:end] + rest == text``, as much of the text as
    possible in the span; (None, None, text) when no part of it starts in ``content``, or
    when a NUL comes before the span's end (SQLite's substr stops at the first NUL)."""
    at = content.find(text)
    if at >= 0:
        span = at, at + len(text), ""
    else:
        start = _start_of_tail(content, text)
        if start is None:
            return None, None, text
        span = start, len(content), text[len(content) - start :]
    return (None, None, text) if "\0" in content[: span[1]] else span


def _start_of_tail(content: str, text: str) -> int | None:
    """The first offset from which the rest of ``content`` begins ``text`` (the section
    runs past the chunk's end), or None."""
    probe = text[:PROBE_CHARS]
    if not probe:
        return None
    at = content.find(probe)
    while at >= 0:
        if text.startswith(content[at:]):
            return at
        at = content.find(probe, at + 1)
    for start in range(max(0, len(content) - len(probe) + 1), len(content)):
        if text.startswith(content[start:]):
            return start
    return None


def section_text(content: str | None, start: int | None, end: int | None, rest: str) -> str:
    """The text :func:`text_span` stored as ``(start, end, rest)`` in a chunk's ``content``."""
    if start is None or end is None or content is None:
        return rest
    return content[start:end] + rest


def section_rows(
    source: str, sections: Sequence[Section], chunks: Sequence[StoredChunk]
) -> list[tuple]:
    """The stored rows of one document's sections: (source, section id, heading, level,
    parent id, ordinal, kind, id of the chunk it begins in, rest, start, end)."""
    starts = {i: stored.chunk for stored in chunks for i in stored.chunk.sections}
    rows = []
    for s in sections:
        text = s.heading_line + s.body
        chunk = starts.get(s.section_id)
        start, end, rest = text_span(chunk.content, text) if chunk else (None, None, text)
        parent = s.path[-1] if s.path else None
        chunk_id = chunk.chunk_id if chunk else None
        rows.append(
            (source, s.section_id, s.heading, s.level, parent, s.ordinal, s.kind, chunk_id)
            + (rest, start, end)
        )
    return rows
