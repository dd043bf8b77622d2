"""Acronym definitions: "Long Form (ACR)" and "ACR (Long Form)".

After Schwartz & Hearst (2003), "A simple algorithm for identifying abbreviation
definitions in biomedical text": the candidate long form is the
``min(|A| + 5, 2 * |A|)`` words before the parenthesis, and the acronym's characters must
occur in it in order, the first one starting a word. Plain S&H takes the shortest match,
which for "Treaty on the Functioning of the European Union (TFEU)" picks "the Functioning
..." (its T from "the", its F from "of"). Here every possible alignment is scored instead:
fewest content words that give no letter, then most letters at word starts, then the
shortest long form. Small words (of, and, the, ...) need not give a letter and do not
count towards the word limit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ...text.normalize import is_plural_acronym, normalize_acronym, normalize_phrase

MAX_ACRONYM = 10
_SMALL_WORDS = "of and the for on in to a an at by with from or & under upon into as per via"
_STOPWORDS = frozenset(_SMALL_WORDS.split())
_PAREN = re.compile(r"\((?P<inner>[^()\n]{1,200})\)")
# "(EACA)", "(the “EACA”)", "(‘TFEU’)", "(SMEs, as defined below)"
_INNER_ACRONYM = re.compile(
    r"\s*(?:(?i:the|hereinafter(?:\s+referred\s+to\s+as)?(?:\s+the)?)\s+)?"
    r"[\"'‘“]?(?P<acr>[A-Za-z0-9][A-Za-z0-9.\-&/]{1,13})[\"'’”]?\s*(?:[,;][^()]*)?"
)
_ACRONYM_BEFORE = re.compile(r"(?<![\w\-.])(?P<acr>[A-Za-z0-9][A-Za-z0-9.\-&/]{1,13})\s*$")
# Where a long form cannot reach back across: sentence and clause ends, brackets, tables.
_BOUNDARY = re.compile(r"[.;:!?](?=\s)|[()\[\]|{}]|\n[ \t]*\n|[\"“”](?=\s*\()")
_WORD = re.compile(r"\S+")
_SUBWORD = re.compile(r"[A-Za-z0-9]+")


@dataclass(frozen=True)
class FoundAcronym:
    """An acronym with its long form; ``start``/``end`` span the whole "Long Form (ACR)"."""

    acronym: str
    long_form: str
    start: int
    end: int


def find_acronyms(text: str) -> list[FoundAcronym]:
    """Each (acronym, long form) pair defined in ``text``, once, in text order."""
    found: list[FoundAcronym] = []
    seen: set[tuple[str, str]] = set()
    for match in _PAREN.finditer(text):
        pair = _long_form_first(text, match) or _acronym_first(text, match)
        if pair is None:
            continue
        key = (normalize_acronym(pair.acronym), normalize_phrase(pair.long_form))
        if key not in seen:
            seen.add(key)
            found.append(pair)
    return found


def _acronym_shape(acronym: str) -> bool:
    """2-10 characters, at least two capitals, mostly capitals: not a word nor a citation."""
    core = acronym.replace(".", "")
    letters = [c for c in core if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    return (
        2 <= len(core) <= MAX_ACRONYM
        and core[0].isalnum()
        and core[-1].isalnum()
        and upper >= 2
        and upper * 2 >= len(letters)
    )


def _letters(acronym: str) -> list[str]:
    """Spellings to match, the singular first for a plural acronym ("SMEs" -> "sme", "smes")."""
    core = "".join(c for c in acronym.casefold() if c.isalnum())
    return [core[:-1], core] if is_plural_acronym(re.sub(r"[^0-9A-Za-z]", "", acronym)) else [core]


# --- Long Form (ACR) -----------------------------------------------------------------------


def _long_form_first(text: str, match: re.Match[str]) -> FoundAcronym | None:
    inner = _INNER_ACRONYM.fullmatch(match.group("inner"))
    if inner is None or not _acronym_shape(inner.group("acr")):
        return None
    acronym = inner.group("acr")
    window_start = _window_start(text, match.start())
    words = [
        (w.start() + window_start, w.group())
        for w in _WORD.finditer(text[window_start : match.start()])
    ]
    for letters in _letters(acronym):
        start = _best_start(words, letters)
        if start is not None:
            long_form = " ".join(text[start : match.start()].split()).rstrip(",")
            if _spells_out(acronym, long_form):
                return None
            return FoundAcronym(acronym, long_form, start, match.end())
    start = _titled_start(words, acronym)
    if start is None:
        return None
    return FoundAcronym(acronym, " ".join(text[start : match.start()].split()), start, match.end())


#: The last word of a rulebook's or a law's title: "General Rulebook (GEN)", "Market Rules
#: (MKT)", "Conduct of Business Rulebook (COBS)".
TITLE_ENDS = frozenset({"rules", "rulebook", "regulations", "manual", "code", "act"})
_TITLE_JOINERS = frozenset({"of", "and", "for", "on", "in", "&", "-", "–", "—"})


def _titled_start(words: list[tuple[int, str]], acronym: str) -> int | None:
    """Where the title before an abbreviation that does not spell it out begins: a run of
    capitalised words (and joiners: "of", "and", "–") that ends with a word of
    :data:`TITLE_ENDS` and begins with the abbreviation's first letter, as publishers
    abbreviate their rulebooks ("General Rulebook (GEN)", "Prudential – Investment,
    Insurance Intermediation and Banking Rules (PRU)"); None when there is none."""
    if not words or words[-1][1].casefold() not in TITLE_ENDS:
        return None
    start = None
    for offset, word in reversed(words):
        bare = word.rstrip(",")
        if bare[:1].isupper():
            start = offset if bare[:1].casefold() == acronym[:1].casefold() else start
        elif bare.casefold() not in _TITLE_JOINERS:
            break
    return start


def _spells_out(acronym: str, long_form: str) -> bool:
    """Whether the "acronym" is a word of its long form: a capitalised alias such as
    'the University ("UNIVERSITY")', not an abbreviation."""
    return normalize_acronym(acronym) in {normalize_acronym(w) for w in long_form.split()}


def _window_start(text: str, paren: int) -> int:
    """Start of the clause before ``paren``, at most 300 characters back."""
    lower = max(0, paren - 300)
    start = lower
    for boundary in _BOUNDARY.finditer(text, lower, paren):
        start = boundary.end()
    return start


def _best_start(words: list[tuple[int, str]], letters: str) -> int | None:
    """Offset of the best-scoring long form among the last words, or None."""
    limit = min(len(letters) + 5, 2 * len(letters))
    best: tuple[tuple[int, int], int] | None = None
    content = 0
    for index in range(len(words) - 1, -1, -1):
        word = words[index][1]
        if word.casefold().strip("\"'‘’“”,") not in _STOPWORDS:
            content += 1
            if content > limit:
                break
            cost = _alignment_cost([w for _, w in words[index:]], letters)
            if cost is not None and (best is None or cost < best[0]):
                best = (cost, words[index][0])
    if best is None or best[0][0] > _allowed_gaps(letters):
        return None
    return best[1]


def _allowed_gaps(letters: str) -> int:
    """Content words that may give no letter: none for short acronyms, one for long ones."""
    return 0 if len(letters) <= 4 else 1


def _alignment_cost(words: list[str], letters: str) -> tuple[int, int] | None:
    """Cost of the best alignment of ``letters`` to ``words`` (first letter at the first
    word's start, last letter in the last word): (content words giving no letter, minus
    the letters at word starts). None when the letters do not fit."""
    chars: list[tuple[str, int, bool]] = []  # (char, word index, starts a sub-word)
    content: list[bool] = []
    for index, word in enumerate(words):
        content.append(word.casefold().strip("\"'‘’“”,") not in _STOPWORDS)
        for sub in _SUBWORD.finditer(word):
            chars += [(c.casefold(), index, k == 0) for k, c in enumerate(sub.group())]
    if not chars or chars[0][0] != letters[0] or not chars[0][2]:
        return None
    gaps = [0]
    for flag in content:
        gaps.append(gaps[-1] + flag)
    return _solve(tuple(chars), letters, tuple(gaps), len(words))


def _solve(
    chars: tuple[tuple[str, int, bool], ...], letters: str, gaps: tuple[int, ...], n_words: int
) -> tuple[int, int] | None:
    """Dynamic programme over (letter, position); ``gaps[i]`` counts content words before i."""
    positions: dict[str, list[int]] = {}
    for index, (char, _, _) in enumerate(chars):
        positions.setdefault(char, []).append(index)

    @cache
    def best(k: int, p: int) -> tuple[int, int] | None:
        word = chars[p][1]
        if k == len(letters):
            return (0, 0) if word == n_words - 1 else None
        result = None
        for q in positions.get(letters[k], ()):
            if q <= p:
                continue
            rest = best(k + 1, q)
            if rest is None:
                continue
            q_word, initial = chars[q][1], chars[q][2]
            skipped = gaps[q_word] - gaps[word + 1] if q_word > word + 1 else 0
            cost = (skipped + rest[0], rest[1] - initial)
            result = cost if result is None else min(result, cost)
        return result

    rest = best(1, 0)
    return None if rest is None else (rest[0], rest[1] - 1)


# --- ACR (Long Form) -----------------------------------------------------------------------


def _acronym_first(text: str, match: re.Match[str]) -> FoundAcronym | None:
    inner = match.group("inner").strip()
    before = _ACRONYM_BEFORE.search(text, max(0, match.start() - 20), match.start())
    if before is None or len(inner.split()) < 2 or not _acronym_shape(before.group("acr")):
        return None
    acronym = before.group("acr")
    long_form = re.sub(r"(?i)^the\s+", "", inner)
    for letters in _letters(acronym):
        cost = _alignment_cost(long_form.split(), letters)
        if cost is not None and cost[0] == 0 and not _spells_out(acronym, long_form):
            return FoundAcronym(acronym, " ".join(long_form.split()), before.start(), match.end())
    return None
