"""Chunk stage: sections to chunks under a token budget, losing no text.

The chunker composes three steps (as docling's HybridChunker does):

1. structural: one group per section; a tiny section (a heading with at most a
   short line) is carried into the first chunk of the section that follows it
   when that section is its descendant, so "Chapter III" is not indexed alone;
2. budget: a group over ``max_tokens`` is split at paragraph boundaries, a
   paragraph over budget at sentence boundaries (pysbd, which knows "Sec.",
   "U.S.C.", "e.g."), and a sentence over budget at token boundaries;
3. overlap: optionally each later piece of a section starts with the last
   ``overlap_tokens`` tokens of the piece before it.

Pieces are character spans of the original text, so concatenating the pieces
of a section (minus overlap) gives the section back.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise

from ..config import ChunkingSettings
from ..models import Chunk, ConvertedDocument, Section
from ..text.numbering import slugify
from ..text.sentences import block_sentence_spans, block_spans, sentence_cuts
from ..text.tokenizer import Tokenizer, token_boundary
from .headings import CLAUSE_WORDS
from .structure import bounded_id, section_scopes, short_heading

TINY_TOKENS = 24
"""A section with at most this many tokens of its own (a heading alone) joins the next one."""
MAX_ID_PART = 80
"""Longest section id a chunk id carries whole (see :func:`_id_part`)."""


@dataclass(frozen=True)
class Piece:
    text: str
    overlap_chars: int = 0


def document_key(source: str) -> str:
    """A short, readable, stable key for a source path: ``gdpr-3f2a1c``."""
    stem = source.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    digest = hashlib.sha1(source.encode("utf-8")).hexdigest()[:6]
    return f"{slugify(stem, 24)}-{digest}"


def chunk_document(
    document: ConvertedDocument,
    sections: list[Section],
    tokenizer: Tokenizer,
    settings: ChunkingSettings | None = None,
    sentences: bool = True,
) -> list[Chunk]:
    """Chunks of one document, in reading order, with stable ids; with their sentence
    offsets unless ``sentences`` is false (ingest finds them on its reading thread while
    the chunks embed, see ``reading.py``)."""
    settings = settings or ChunkingSettings()
    key = document_key(document.source)
    chunks: list[Chunk] = []
    per_section: dict[str, int] = {}
    scopes = section_scopes(sections)
    pages = PageTracker(document.text, document.page_starts)
    for unit in _section_units(sections, tokenizer, settings.chunking_strategy):
        for piece in _with_overlap(
            _pack(unit, tokenizer, settings.max_chunk_tokens), tokenizer, settings.chunk_overlap
        ):
            content = piece.text.strip()
            page_start, page_end = pages.span(piece.text, piece.overlap_chars, content)
            if not content:
                continue
            section = piece.section
            number = per_section.get(section.section_id, 0)
            per_section[section.section_id] = number + 1
            lead = len(piece.text) - len(piece.text.lstrip())
            chunks.append(
                Chunk(
                    chunk_id=f"{key}:{_id_part(section.section_id)}:{number}",
                    source=document.source,
                    title=document.title,
                    section_id=section.section_id,
                    heading=short_heading(section.heading),
                    parent_chain=section.parent_chain,
                    section_path=scopes[section.section_id],
                    content=content,
                    ordinal=len(chunks),
                    token_count=tokenizer.count(content),
                    chunk_type="header" if _is_heading_only(content) else "content",
                    overlap_chars=max(0, piece.overlap_chars - lead),
                    sections=piece.starts,
                    page_start=page_start,
                    page_end=page_end,
                    sentences=sentence_cuts(content) if sentences else None,
                )
            )
    return chunks


class PageTracker:
    """The physical pages of consecutive pieces of a document's text.

    Sections in order give the text back and pieces tile their sections, so a running
    offset finds each piece; a piece not found there (text that was altered) is searched
    for from the last place found. ``page_starts`` is ConvertedDocument.page_starts.
    """

    def __init__(self, text: str, page_starts: tuple[int, ...]) -> None:
        self._text = text
        self._starts = page_starts
        self._cursor = 0

    def span(self, piece: str, overlap_chars: int, content: str) -> tuple[int | None, int | None]:
        """First and last page (1-based) of ``content``, the stripped ``piece``."""
        start = self._cursor - overlap_chars
        self._cursor = start + len(piece)
        if not self._starts or not content:
            return None, None
        begin = start + len(piece) - len(piece.lstrip())
        if not self._text.startswith(content, begin):
            begin = self._text.find(content, max(0, begin - len(piece)))
            if begin < 0:
                return None, None
            self._cursor = begin + len(content)
        last = begin + len(content) - 1
        return bisect_right(self._starts, begin) or 1, bisect_right(self._starts, last) or 1


def _id_part(section_id: str) -> str:
    """The section's id as chunk ids carry it: a very long one (a clause nested hundreds
    deep) shortened, with a digest keeping it unique, as every piece of the section and
    every table keyed by chunk repeats it."""
    return bounded_id(section_id, MAX_ID_PART)


def _is_heading_only(content: str) -> bool:
    """Only heading lines, none of which is a clause written as a heading (see
    :data:`~.headings.CLAUSE_WORDS`): such a chunk is a header, not content."""
    lines = [line.strip() for line in content.splitlines() if line.strip()]
    return all(
        set(line) <= set("=-") or (line.startswith("#") and len(line.split()) <= CLAUSE_WORDS + 1)
        for line in lines
    )


@dataclass(frozen=True)
class _Atom:
    """A run of text that starts inside one section."""

    section: Section
    text: str
    tokens: int
    starts: tuple[str, ...]
    """Ids of the sections that begin in this text."""


@dataclass(frozen=True)
class _Packed:
    section: Section
    text: str
    starts: tuple[str, ...]
    overlap_chars: int = 0


def _section_units(
    sections: list[Section], tokenizer: Tokenizer, strategy: str
) -> Iterator[list[_Atom]]:
    """A block section with its numbered paragraphs and points, as atoms in order.

    A unit with hardly any text of its own (a heading alone) is carried into
    the next unit when that one is its descendant; the preamble (the title
    heading and what precedes the first section) counts as enclosing everything.
    """

    def atom(section: Section, carried: list[_Atom]) -> _Atom:
        text = "".join(a.text for a in carried) + section.heading_line + section.body
        starts = tuple(i for a in carried for i in a.starts) + (section.section_id,)
        return _Atom(section, text, tokenizer.count(text), starts)

    if strategy == "token":
        yield [atom(s, []) for s in sections]
        return
    unit: list[_Atom] = []
    carried: list[_Atom] = []
    for position, section in enumerate(sections):
        if section.kind == "enum" and unit:
            unit.append(atom(section, []))
            continue
        if unit:
            yield unit
        unit = [atom(section, carried)]
        carried = []
        following = sections[position + 1] if position + 1 < len(sections) else None
        encloses = (
            following is not None
            and following.kind != "enum"
            and (section.section_id in following.path or section.kind == "preamble")
        )
        if encloses and tokenizer.count(section.body) <= TINY_TOKENS:
            carried, unit = unit, []
    if unit or carried:
        yield unit or carried


def _pack(unit: list[_Atom], tokenizer: Tokenizer, max_tokens: int) -> list[_Packed]:
    """Greedily join consecutive atoms within budget; split an atom over budget."""
    if sum(a.tokens for a in unit) <= max_tokens:
        return [
            _Packed(
                unit[0].section,
                "".join(a.text for a in unit),
                tuple(i for a in unit for i in a.starts),
            )
        ]
    atoms: list[_Atom] = []
    for a in unit:
        if a.tokens <= max_tokens:
            atoms.append(a)
            continue
        for number, piece in enumerate(split_text(a.text, tokenizer, max_tokens)):
            starts = a.starts if number == 0 else ()
            atoms.append(_Atom(a.section, piece.text, tokenizer.count(piece.text), starts))
    packed: list[list[_Atom]] = []
    budget = 0
    for a in atoms:
        if packed and budget + a.tokens <= max_tokens:
            packed[-1].append(a)
            budget += a.tokens
        else:
            packed.append([a])
            budget = a.tokens
    return [
        _Packed(
            group[0].section,
            "".join(a.text for a in group),
            tuple(i for a in group for i in a.starts),
        )
        for group in packed
    ]


def _with_overlap(pieces: list[_Packed], tokenizer: Tokenizer, overlap: int) -> list[_Packed]:
    """Start each later piece of a unit with the last ``overlap`` tokens of the one before."""
    if not overlap or len(pieces) < 2:
        return pieces
    result = [pieces[0]]
    for previous, piece in pairwise(pieces):
        tail = _tail(previous.text, tokenizer, overlap)
        result.append(_Packed(piece.section, tail + piece.text, piece.starts, len(tail)))
    return result


def _tail(text: str, tokenizer: Tokenizer, tokens: int) -> str:
    offsets = tokenizer.offsets(text)
    return text if len(offsets) <= tokens else text[offsets[-tokens][0] :]


def split_text(
    text: str, tokenizer: Tokenizer, max_tokens: int, overlap_tokens: int = 0
) -> list[Piece]:
    """Split ``text`` into pieces of at most ``max_tokens`` tokens (plus overlap)."""
    if tokenizer.count(text) <= max_tokens:
        return [Piece(text)]
    spans = _pack_spans(list(_text_units(text, tokenizer, max_tokens)), max_tokens)
    pieces = [Piece(text[start:end]) for start, end, _ in spans]
    if overlap_tokens:
        pieces = _add_overlap(pieces, tokenizer, overlap_tokens)
    return pieces


def _text_units(text: str, tokenizer: Tokenizer, max_tokens: int) -> Iterator[tuple[int, int, int]]:
    """(start, end, tokens) spans covering ``text``: paragraphs, else sentences, else token runs."""
    for start, end in block_spans(text):
        tokens = tokenizer.count(text[start:end])
        if tokens <= max_tokens:
            yield start, end, tokens
            continue
        for s_start, s_end in block_sentence_spans(text, start, end):
            s_tokens = tokenizer.count(text[s_start:s_end])
            if s_tokens <= max_tokens:
                yield s_start, s_end, s_tokens
            else:
                yield from _token_cuts(text, s_start, s_end, tokenizer, max_tokens)


def _token_cuts(
    text: str, start: int, end: int, tokenizer: Tokenizer, max_tokens: int
) -> Iterator[tuple[int, int, int]]:
    """Cut an over-long sentence at token boundaries, preferring a word start. The sentence
    is tokenized a window at a time, from where the last piece ends to where a token must
    start: memory stays bounded whatever the sentence's length."""
    base = start
    chars = 4 * max_tokens
    while base < end:
        segment, offsets = _token_window(text, base, end, tokenizer, max_tokens, chars)
        chars = int(len(segment) / max(len(offsets), 1) * (max_tokens + 1) * 1.25) + 16
        stop = min(max_tokens, len(offsets))
        if stop < len(offsets):
            stop = _word_start_at_or_before(segment, offsets, stop, 0)
        right = base + len(segment) if stop >= len(offsets) else base + offsets[stop][0]
        if stop == 0:  # nothing but what the tokenizer drops
            right = end
        yield base, right, stop
        base = right


def _token_window(
    text: str, base: int, end: int, tokenizer: Tokenizer, max_tokens: int, chars: int
) -> tuple[str, list[tuple[int, int]]]:
    """``text`` from ``base`` to a token boundary holding more than ``max_tokens`` tokens
    (or to ``end``), with its token offsets: ``chars`` characters or more, doubled until
    the window holds enough."""
    while True:
        stop = token_boundary(text, min(base + chars, end), end)
        segment = text[base:stop]
        offsets = tokenizer.offsets(segment)
        if stop >= end or len(offsets) > max_tokens:
            return segment, offsets
        chars *= 2


def _word_start_at_or_before(
    segment: str, offsets: list[tuple[int, int]], stop: int, floor: int
) -> int:
    candidate = stop
    while candidate > floor + 1:
        begin = offsets[candidate][0]
        if begin == 0 or not segment[begin - 1].isalnum():
            return candidate
        candidate -= 1
    return stop


def _pack_spans(units: list[tuple[int, int, int]], max_tokens: int) -> list[tuple[int, int, int]]:
    """Greedily join consecutive units while the sum stays within budget."""
    packed: list[tuple[int, int, int]] = []
    for start, end, tokens in units:
        if packed and packed[-1][2] + tokens <= max_tokens:
            p_start, _, p_tokens = packed[-1]
            packed[-1] = (p_start, end, p_tokens + tokens)
        else:
            packed.append((start, end, tokens))
    return packed


def _add_overlap(pieces: list[Piece], tokenizer: Tokenizer, overlap_tokens: int) -> list[Piece]:
    result = [pieces[0]]
    for previous, piece in pairwise(pieces):
        tail = _tail(previous.text, tokenizer, overlap_tokens)
        result.append(Piece(tail + piece.text, overlap_chars=len(tail)))
    return result
