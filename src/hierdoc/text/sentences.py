"""Sentence boundaries of a block of text, as pysbd finds them, at a fraction of its cost.

pysbd (which knows "Sec.", "U.S.C.", "e.g.") spends most of its time on two things that do
not change its answer:

* it finds each sentence back in the text with a regular expression made of the escaped
  sentence, compiled once per sentence: that floods Python's cache of compiled patterns
  (512 entries), so its own few hundred rules are compiled again and again;
* for each of its 188 abbreviations found anywhere in a line ("no" is in "notice") it
  runs two searches and a substitution per occurrence, although every substitution it can
  make replaces the period that follows the abbreviation.

:class:`_Segmenter` finds the sentences with ``str.find`` (the same first match at or after
the previous sentence's end, with the whitespace after it) and skips an abbreviation
without a period after it anywhere in the line. Everything else is pysbd's own code, so
the boundaries are pysbd's (tests/test_scale_paths.py compares them on GDPR, ContractNLI,
code and synthetic acts).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from functools import lru_cache
from itertools import pairwise

import pysbd
from pysbd.lang.english import English
from pysbd.utils import TextSpan


class _AbbreviationReplacer(English.AbbreviationReplacer):  # type: ignore[misc]
    def search_for_abbreviations_in_string(self, text: str) -> str:
        """pysbd's own loop, skipping an abbreviation (without inner periods) that no period
        follows in the line: each replacement it makes turns that period into '∯', so
        without one it changes nothing. ``lowered`` may still hold a period already
        replaced: the replacement is then tried and changes nothing, as in pysbd."""
        lowered = text.lower()
        for abbr in self.lang.Abbreviation.ABBREVIATIONS:
            stripped = abbr.strip()
            if stripped not in lowered:
                continue
            if "." not in stripped and stripped + "." not in lowered:
                continue
            found = re.findall(rf"(?:^|\s|\r|\n){stripped}", text, flags=re.IGNORECASE)
            if not found:
                continue
            next_word_start = r"(?<={" + re.escape(stripped) + "} ).{1}"
            char_array = re.findall(next_word_start, text)
            for index, match in enumerate(found):
                text = self.scan_for_replacements(text, match, index, char_array)
        return text


class _English(English):  # type: ignore[misc]
    AbbreviationReplacer = _AbbreviationReplacer


class _Segmenter(pysbd.Segmenter):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__(language="en", clean=False, char_span=True)
        self.language_module = _English

    def sentences_with_char_spans(self, sentences: list[str]) -> list[TextSpan]:
        """pysbd's spans: each sentence's first occurrence (with the whitespace after it)
        ending after the previous one's end, occurrences taken without overlap from the
        start of the text.

        The walk over a sentence's occurrences is the same each time it is repeated, and
        ``prior`` only grows, so a repeated sentence resumes its walk at the occurrence
        it took last time: linear, not quadratic, in a paragraph of repeated sentences
        (dot leaders), with pysbd's alignment of overlapping occurrences ('. . .')."""
        text = self.original_text
        spans = []
        prior = 0
        resume: dict[str, int] = {}
        for sentence in sentences:
            at = resume.get(sentence, 0)
            while sentence:
                found = text.find(sentence, at)
                if found < 0:
                    break
                end = _after_space(text, found + len(sentence))
                if end > prior:
                    spans.append(TextSpan(text[found:end], found, end))
                    prior = end
                    resume[sentence] = found
                    break
                at = end
        return spans


def _after_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


_PER_THREAD = threading.local()


def _segmenter() -> _Segmenter:
    """This thread's segmenter: pysbd keeps the text being segmented on the object, and
    ingest's reading thread segments while a search may do so on another thread."""
    segmenter: _Segmenter | None = getattr(_PER_THREAD, "segmenter", None)
    if segmenter is None:
        segmenter = _PER_THREAD.segmenter = _Segmenter()
    return segmenter


@lru_cache(maxsize=4096)
def block_cuts(block: str) -> tuple[int, ...]:
    """Offsets inside ``block`` (none at 0 or its end) where pysbd starts a sentence.

    Cached: chunking and the stored sentence offsets split the same paragraphs."""
    starts = {span.start for span in _segmenter().segment(block)}
    return tuple(sorted(c for c in starts if 0 < c < len(block)))


_BLOCK_BREAK = re.compile(r"\n[ \t]*\n")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text`` as chunking splits it (paragraphs, then
    pysbd sentences); the spans tile the text."""
    return [s for start, end in block_spans(text) for s in block_sentence_spans(text, start, end)]


def sentence_cuts(text: str) -> tuple[int, ...]:
    """Where each sentence of :func:`sentence_spans` but the first starts: what a chunk
    stores (``Chunk.sentences``) so that a search never segments text."""
    return tuple(start for start, _ in sentence_spans(text)[1:])


def spans_from_cuts(text: str, cuts: tuple[int, ...]) -> list[tuple[int, int]]:
    """:func:`sentence_spans` of ``text`` again, from its :func:`sentence_cuts`."""
    bounds = [0, *cuts, len(text)]
    return [(left, right) for left, right in pairwise(bounds) if left < right]


def block_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each paragraph of ``text``, its blank lines included; they tile it."""
    start = 0
    for match in _BLOCK_BREAK.finditer(text):
        yield start, match.end()
        start = match.end()
    if start < len(text):
        yield start, len(text)


def block_sentence_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Sentence spans of ``text[start:end]`` that tile it exactly."""
    block = text[start:end]
    bounds = [0, *block_cuts(block), len(block)]
    for left, right in zip(bounds, bounds[1:], strict=False):
        if left < right:
            yield start + left, start + right
