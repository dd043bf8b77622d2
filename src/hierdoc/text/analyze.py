"""The BM25 analyzer: text -> index terms, applied identically to documents and queries.

Design
------
Formal documents are full of identifiers ("401(k)", "Section 403(b)(2)", "§ 4.2",
"Regulation 2016/679", "EACA", "U.S.C.") that an ordinary word tokenizer destroys:
"401(k)" becomes "401" and "k", and "k" then matches anything.

1. Normalise once per text: NFKC, then fold curly quotes and odd hyphens to ASCII
   (skipped for ASCII text, which both leave unchanged).
2. One compiled regex (``_TOKEN_RE``) finds candidate tokens: runs of word
   characters glued by ``. - / ' & ,`` and followed by short parenthesised groups
   (``403(b)(2)``).  Everything else (``§``, ``$``, ``%``, spaces, brackets,
   dashes) separates tokens.
3. Each distinct token is expanded once; the expansion is cached in a dict whose
   ``__missing__`` computes it, so the hot path is a C-level dict lookup per token:

   * a plain word is lower-cased, dropped if it is a stop word (Lucene's classic
     English set) and Snowball-stemmed (PyStemmer);
   * a number keeps its digits (``1,000`` -> ``1000``; ``$`` and ``%`` are
     separators, so ``25%`` -> ``25``);
   * a dotted acronym loses its dots (``U.S.C.`` -> ``usc``) and then counts as a
     word, so it matches ``USC``;
   * an identifier is emitted whole and unstemmed (``403(b)(2)``), then its
     hierarchical prefixes, longest first (``403(b)``; only for tokens with
     parentheses or dots: ``1.2.3`` -> ``1.2``), then its parts (``403``, ``b``,
     ``2``).  A part that is one character or contains a digit is kept verbatim,
     even if it is a stop word ("a" in ``6(1)(a)``); a longer alphabetic part is
     treated as a word (stop-word filtered and stemmed), so ``co-operation`` and
     ``getUserName`` are also found by ``operation`` and ``user``.  A compound
     inside a qualified name is also emitted whole (``self.getTarget()`` ->
     ``gettarget``), so a query naming it finds where it is called.

Query side
----------
``analyze()`` gives everything a document should be findable by.  A query must be
more precise: "401(k)" must not match a chunk that only says "401".  So
``analyze_query()`` returns, per query token, its *primary* term(s), each with
*backoff* alternatives that the index uses only when the primary term does not
occur in it at all:

* identifiers with parentheses or dots: the whole term; backoff to its prefixes,
  longest first ("403(b)(2)(A)" -> "403(b)(2)" -> "403(b)"), never to bare parts;
  except dotted names without digits ("self.inner.run"), which end with their parts;
* other identifiers ("2016/679", "COVID-19") and letter-digit run-ons ("401k"):
  the whole term; backoff to its parts;
* plain words and word compounds ("co-operation", "getUserName"): the stem, or the
  whole plus its word parts, all as ordinary terms.

Every query term is a term that ``analyze()`` emits for the same text, so a
document containing the query text always matches it.

``analyze_words()`` is the unstemmed, stop-word-keeping variant used for the
exact-phrase field: one lower-cased whole token per candidate, no parts.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Generic, NamedTuple, TypeVar

import Stemmer

__all__ = [
    "ANALYZER_VERSION",
    "ENGLISH_STOP_WORDS",
    "QueryTerm",
    "TEXT_ANALYZER",
    "TextAnalyzer",
    "analyze",
    "analyze_query",
    "analyze_words",
    "normalize",
    "token_spans",
    "token_words",
    "tokens_terms",
]

#: Bump whenever the output of analyze()/analyze_words() changes: indexes built
#: with another version must be rebuilt.
ANALYZER_VERSION = 2

#: Lucene's classic English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET).
# fmt: off
ENGLISH_STOP_WORDS: frozenset[str] = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into",
    "is", "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then",
    "there", "these", "they", "this", "to", "was", "will", "with",
})
# fmt: on

#: Longest term kept; longer whole tokens (hashes, base64) keep only their parts.
MAX_TERM_CHARS = 80
#: At most this many parts are taken from one token.
MAX_PARTS = 32
#: A cache is cleared when it grows past this many distinct tokens.
CACHE_LIMIT = 500_000
#: Longer tokens are analysed each time, not cached: a cache must not hold a document's
#: megabyte-long runs (``1.1.1...``) after the document is gone.
CACHED_TOKEN_CHARS = 1000

_GROUP = r"\(\w{1,6}\)"  # a short parenthesised part: (b), (2), (iii)
_TOKEN_RE = re.compile(rf"(?:\w+|{_GROUP})(?:{_GROUP}|[./\-'&,]\w+)*")
_THOUSANDS_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
# A structured token's segments: a group, or an optional connector then letters/digits.
_SEGMENT_RE = re.compile(r"\(([^\W_]+)\)|(?:[./\-'&]|_+)?([^\W_]+)")
# Atoms of one segment: digit runs, camelCase humps (ASCII), other letter runs.
_ATOM_RE = re.compile(r"\d+|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[^\W\d_]+")
_PLAIN_ATOM_RE = re.compile(r"\d+|[^\W\d_]+")
_PIECE_SPLIT_RE = re.compile(r"[./()]+")
_ACRONYM_RE = re.compile(r"[^\W\d_](?:\.[^\W\d_])+")

_FOLD = {
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u02bc": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"', "\u00ab": '"',
    "\u00bb": '"', "\u2010": "-", "\u2011": "-",
    "\u00ad": "",  # soft hyphen: invisible, must not split a word
}  # fmt: skip
# A regex scan is much faster than str.translate() on non-ASCII text.
_FOLD_RE = re.compile("[" + "".join(_FOLD) + "]")

_stemmer = Stemmer.Stemmer("english")
_V = TypeVar("_V")


@dataclass(frozen=True)
class TextAnalyzer:
    """How text becomes lexical terms; a store indexes exactly what this returns.

    ``terms`` gives the BM25 terms of a text (indexing and queries alike), ``words``
    the unstemmed words for exact phrases. ``version`` changes whenever either
    changes, so a lexical index built with other terms is rebuilt.
    """

    version: int
    terms: Callable[[str], list[str]]
    words: Callable[[str], list[str]]


class QueryTerm(NamedTuple):
    """One term of an analysed query.

    ``backoff`` holds alternative term sets, tried in order when ``term`` is not in
    the index; the first set with at least one indexed term replaces ``term``.
    """

    term: str
    backoff: tuple[tuple[str, ...], ...] = ()


class _Token(NamedTuple):
    """Everything the three analyses need from one candidate token."""

    index: tuple[str, ...]
    query: tuple[QueryTerm, ...]
    words: tuple[str, ...]


class _Cache(dict, Generic[_V]):
    """A bounded memo: a miss calls ``compute`` (C-speed lookups on a hit)."""

    def __init__(self, compute: Callable[[str], _V]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, key: str) -> _V:
        if len(key) > CACHED_TOKEN_CHARS:
            return self._compute(key)
        if len(self) >= CACHE_LIMIT:
            self.clear()
        value = self[key] = self._compute(key)
        return value


def normalize(text: str) -> str:
    """NFKC-normalise and fold typographic quotes and hyphens to ASCII."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text)
    return _FOLD_RE.sub(lambda m: _FOLD[m.group()], text) if _FOLD_RE.search(text) else text


def analyze(text: str) -> list[str]:
    """Return the index terms of ``text``, in order (see the module docstring)."""
    tokens = _TOKEN_RE.findall(normalize(text))
    return list(chain.from_iterable(map(_INDEX.__getitem__, tokens)))


def analyze_words(text: str) -> list[str]:
    """Return lower-cased whole tokens: no stemming, no stop words, no parts.

    Used for the exact-phrase field, at index time and on the phrase at query time.
    """
    tokens = _TOKEN_RE.findall(normalize(text))
    return list(chain.from_iterable(map(_WORDS.__getitem__, tokens)))


def token_spans(text: str, start: int = 0, end: int = sys.maxsize) -> list[tuple[int, int]]:
    """(start, end) of each candidate token of ``text`` as written (not normalised), so
    that ``analyze(text[start:end])`` gives that token's terms: what highlighting marks.
    ``start`` and ``end`` bound the scan (as ``re.Pattern.finditer``'s do)."""
    return [match.span() for match in _TOKEN_RE.finditer(text, start, end)]


def token_words(text: str, start: int = 0, end: int = sys.maxsize) -> list[str]:
    """The tokens of :func:`token_spans` as strings (three times faster, no offsets)."""
    return _TOKEN_RE.findall(text, start, end)


def analysed_tokens(text: str) -> list[tuple[int, int, tuple[str, ...]]]:
    """(start, end, distinct terms) of each token of :func:`token_spans`: the terms are
    ``analyze(text[start:end])``, read straight from the token cache when the token is
    ASCII (normalising leaves it as it is, and a whole match of the token pattern is one
    token again), four times faster than analysing each token on its own."""
    found = []
    for match in _TOKEN_RE.finditer(text):
        token = match.group()
        terms = _INDEX[token] if token.isascii() else analyze(token)
        found.append((*match.span(), tuple(dict.fromkeys(terms))))
    return found


def tokens_terms(tokens: Collection[str]) -> dict[str, Sequence[str]]:
    """The index terms of each of ``tokens`` (distinct tokens of :func:`token_spans`), as
    ``analyze`` gives them (repeats kept), read at C speed from the token cache when all
    are ASCII (see :func:`analysed_tokens`)."""
    if all(map(str.isascii, tokens)):
        return dict(zip(tokens, map(_INDEX.__getitem__, tokens), strict=True))
    return {token: _INDEX[token] if token.isascii() else analyze(token) for token in tokens}


def analyze_query(text: str) -> list[QueryTerm]:
    """Return the distinct query terms of ``text``, in order of first appearance."""
    terms: dict[str, QueryTerm] = {}
    for tok in _TOKEN_RE.findall(normalize(text)):
        for qt in _TOKENS[tok].query:
            terms.setdefault(qt.term, qt)
    return list(terms.values())


def _stem(lower: str) -> str | None:
    """Stem a lower-case word; None for a stop word or an over-long word."""
    if lower in ENGLISH_STOP_WORDS or len(lower) > MAX_TERM_CHARS:
        return None
    return _stemmer.stemWord(lower)


def _expand(tok: str) -> _Token:
    """Classify one candidate token and compute its terms."""
    if tok.isalpha():
        if tok.islower() or tok[1:].islower() or tok.rstrip("s").isupper():
            return _word(tok.lower())  # word, Word, WORD, EACAs
        if not tok.isascii():
            return _word(tok.lower())
        return _compound(tok.lower(), _atoms(tok))  # camelCase / PascalCase
    if tok.isdigit():
        return _number(tok)
    if "," in tok:
        return _commas(tok)
    if "_" in tok and tok.strip("_") != tok:  # __init__, ____ (a form blank)
        return _TOKENS[tok.strip("_")] if tok.strip("_") else _Token((), (), ())
    if _ACRONYM_RE.fullmatch(tok):  # U.S.C. -> usc
        return _word(tok.replace(".", "").lower())
    if tok.isalnum():  # 401k, 10b5, Section403
        return _run_on(tok)
    if tok.replace("'", "").isalpha():  # employer's, don't: the stemmer knows these
        return _word(tok.lower())
    if tok[0] == "(" and tok.count("(") == 1 and tok[-1] == ")":  # a bare "(a)", "(EACA)"
        return _bare_group(tok[1:-1])
    if tok.endswith("'s"):  # possessive: "401(k)'s"
        return _TOKENS[tok[:-2]]
    return _structured(tok)


def _word(lower: str) -> _Token:
    stem = _stem(lower)
    if stem is None:
        return _Token((), (), (lower,))
    return _Token((stem,), (QueryTerm(stem),), (lower,))


def _number(tok: str) -> _Token:
    if len(tok) > MAX_TERM_CHARS:
        return _Token((), (), (tok,))
    return _Token((tok,), (QueryTerm(tok),), (tok,))


def _commas(tok: str) -> _Token:
    """``1,000,000.50`` is one number; otherwise a comma separates tokens."""
    if _THOUSANDS_RE.fullmatch(tok):
        return _TOKENS[tok.replace(",", "")]
    pieces = [_TOKENS[p] for p in _TOKEN_RE.findall(tok.replace(",", " "))]
    return _Token(*(tuple(chain.from_iterable(field)) for field in zip(*pieces, strict=True)))


def _atoms(segment: str) -> list[str]:
    """Split one segment into digit runs, camelCase humps and letter runs."""
    pattern = _ATOM_RE if segment.isascii() else _PLAIN_ATOM_RE
    return pattern.findall(segment)


def _part_terms(atoms: list[str]) -> list[str]:
    """Terms of identifier parts: short or numeric parts verbatim, words stemmed."""
    terms: list[str] = []
    for atom in atoms[:MAX_PARTS]:
        lower = atom.lower()
        term = lower if len(lower) == 1 or not lower.isalpha() else _stem(lower)
        if term and term not in terms and len(term) <= MAX_TERM_CHARS:
            terms.append(term)
    return terms


def _bare_group(content: str) -> _Token:
    """A lone parenthesised part: a one-character marker is kept, the rest analysed."""
    if len(content) == 1 and content.isalnum():
        lower = content.lower()
        return _Token((lower,), (QueryTerm(lower),), (lower,))
    return _TOKENS[content]


def _compound(whole: str, atoms: list[str]) -> _Token:
    """Words glued together (camelCase, snake_case, hyphens): whole + word parts."""
    parts = _part_terms(atoms)
    index = _dedupe([whole] if len(whole) <= MAX_TERM_CHARS else [], parts)
    return _Token(index, tuple(QueryTerm(t) for t in index), (whole,))


def _run_on(tok: str) -> _Token:
    """Letters and digits run together ("401k"): whole, parts only as backoff."""
    return _identifier(tok.lower(), [], _part_terms(_atoms(tok)), hierarchical=False)


def _structured(tok: str) -> _Token:
    """A token with connectors or groups: an identifier, or a word compound."""
    starts: list[int] = []
    atoms: list[str] = []
    for m in _SEGMENT_RE.finditer(tok):
        starts.append(m.start())
        seg = m.group(1) or m.group(2)
        seg_atoms = _atoms(seg)
        if len(seg_atoms) > 1 and not seg.isalpha():
            atoms.append(seg)  # "10b" in "10b-5" is findable as itself
        atoms += seg_atoms
    if not atoms:
        return _Token((), (), ())
    whole = tok.lower()
    hierarchical = "(" in tok or "." in tok
    if not hierarchical and "/" not in tok and not any(c.isdigit() for c in tok):
        return _compound(whole, atoms)  # co-operation, get_user_name, AT&T
    # only prefixes that can be terms: all of them would be quadratic in the token's length
    prefixes = (
        [whole[:s] for s in reversed(starts[2:]) if s <= MAX_TERM_CHARS] if hierarchical else []
    )
    parts = _dedupe(_inner_compounds(tok), _part_terms(atoms))
    dotted_name = "(" not in tok and not any(c.isdigit() for c in tok)  # self.inner.run
    strict = hierarchical and tok[0] != "(" and not dotted_name
    return _identifier(whole, prefixes, list(parts), strict)


def _inner_compounds(tok: str) -> list[str]:
    """Compounds inside a dotted or grouped token, whole: ``self.getTarget()`` ->
    ``gettarget``, ``self.frame_timer`` -> ``frame_timer``, so that a query naming
    the compound finds it where it is called or qualified."""
    pieces = (p.strip("_-'&") for p in _PIECE_SPLIT_RE.split(tok))
    return [
        p.lower()
        for p in pieces
        if len(_atoms(p)) > 1 and not p.isdigit() and len(p) <= MAX_TERM_CHARS
    ]


def _identifier(whole: str, prefixes: list[str], parts: list[str], hierarchical: bool) -> _Token:
    """Index: whole, prefixes, parts.  Query: the whole, backing off (see module doc)."""
    if len(whole) > MAX_TERM_CHARS:
        return _Token(tuple(parts), tuple(QueryTerm(t) for t in parts), (whole,))
    prefixes = [p for p in prefixes if len(p) <= MAX_TERM_CHARS]
    backoff = [(p,) for p in prefixes]
    if not hierarchical and parts:
        backoff.append(tuple(parts))
    index = _dedupe([whole], prefixes, parts)
    return _Token(index, (QueryTerm(whole, tuple(backoff)),), (whole,))


def _dedupe(*groups: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t for group in groups for t in group))


_TOKENS: _Cache[_Token] = _Cache(_expand)
_INDEX: _Cache[tuple[str, ...]] = _Cache(lambda tok: _TOKENS[tok].index)
_WORDS: _Cache[tuple[str, ...]] = _Cache(lambda tok: _TOKENS[tok].words)


#: The analyzer stores index with: BM25 terms, phrase words and their version.
TEXT_ANALYZER = TextAnalyzer(ANALYZER_VERSION, analyze, analyze_words)
