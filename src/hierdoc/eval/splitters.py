"""The text splitters of the passage baselines, as character spans of a document.

* :func:`fixed_spans`: consecutive windows of ``size`` characters, no overlap;
* :func:`recursive_spans`: the recursive character splitter (LangChain's
  ``RecursiveCharacterTextSplitter`` with ``chunk_overlap=0``): split on the first separator
  of ``"\\n\\n"``, ``"\\n"``, ``" "``, ``""`` that occurs in the text, split any piece still
  longer than ``size`` on the next separators, then merge neighbouring pieces while they fit
  ``size``; each chunk is stripped of surrounding whitespace.
"""

from __future__ import annotations

from collections.abc import Sequence

Span = tuple[int, int]

SEPARATORS = ("\n\n", "\n", " ", "")


def fixed_spans(text: str, size: int = 500) -> list[Span]:
    """``text`` cut every ``size`` characters."""
    if size < 1:
        raise ValueError("size must be at least 1")
    return [(start, min(start + size, len(text))) for start in range(0, len(text), size)]


def recursive_spans(
    text: str, size: int = 500, separators: Sequence[str] = SEPARATORS
) -> list[Span]:
    """The recursive character splitter's chunks of ``text``, each at most ``size``
    characters (a piece that no separator splits below ``size`` is cut every ``size``)."""
    if size < 1:
        raise ValueError("size must be at least 1")
    chunks = _split(text, 0, len(text), size, tuple(separators))
    return [s for s in (_stripped(text, span) for span in chunks) if s]


def _split(text: str, start: int, end: int, size: int, separators: tuple[str, ...]) -> list[Span]:
    """``text[start:end]`` split on the first separator found in it (kept at the end of the
    piece before it), neighbouring pieces merged while they fit ``size``; a piece longer
    than ``size`` is split again on the next separators, apart from its neighbours."""
    chosen = next((i for i, s in enumerate(separators) if s == "" or s in text[start:end]), None)
    if chosen is None or separators[chosen] == "":
        return [(at, min(at + size, end)) for at in range(start, end, size)]
    separator, rest = separators[chosen], separators[chosen + 1 :]
    chunks: list[Span] = []
    pending: list[Span] = []
    cursor = start
    while cursor < end:
        at = text.find(separator, cursor, end)
        stop = end if at < 0 else at + len(separator)
        if stop - cursor <= size:
            pending.append((cursor, stop))
        else:
            chunks += _merged(pending, size) + _split(text, cursor, stop, size, rest)
            pending = []
        cursor = stop
    return chunks + _merged(pending, size)


def _merged(pieces: Sequence[Span], size: int) -> list[Span]:
    """Neighbouring pieces joined while the join fits ``size``."""
    merged: list[Span] = []
    for start, end in pieces:
        if merged and end - merged[-1][0] <= size:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _stripped(text: str, span: Span) -> Span | None:
    piece = text[span[0] : span[1]]
    left = len(piece) - len(piece.lstrip())
    right = len(piece.rstrip())
    return (span[0] + left, span[0] + right) if right > left else None
