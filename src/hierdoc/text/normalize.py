"""Normalisers: the lookup keys under which definitions and acronyms are written and read.

The store keys what ingest extracts by these, and the search stage keys a query's words
by the same functions, so "cross-border processing" finds the definition of
"Cross Border Processing" and "E.A.C.A." finds "EACA".
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "article_forms",
    "is_plural_acronym",
    "normalize_acronym",
    "normalize_phrase",
    "normalize_term",
    "number_forms",
]


def normalize_term(term: str) -> str:
    """A lookup key: casefolded, quotes dropped, hyphens and whitespace unified.

    Hyphens count as spaces, so "cross-border processing" finds "cross border processing".
    """
    text = unicodedata.normalize("NFKC", term).casefold()
    text = text.replace("’", "'").replace("‘", "'").replace("`", "'")
    text = re.sub(r"[\u2010-\u2015\u2212\-]+", " ", text)
    text = text.strip().strip("\"'“”*_").strip()
    text = text.rstrip(".,;:")
    return " ".join(text.split())


def article_forms(term_norm: str) -> list[str]:
    """A term key with and without a leading article: a document may define "The Program"
    and be asked for "Program", or the other way round."""
    bare = re.sub(r"^(?:the|a|an) ", "", term_norm)
    return list(dict.fromkeys((term_norm, bare, f"the {bare}")))


def number_forms(term_norm: str) -> list[str]:
    """A term key with its last word in the other number, as English forms it: asked
    "data subjects", a glossary may define "data subject"; asked "party", "parties". A
    candidate that is no word ("bus" -> "bu") finds nothing, so every likely form is given."""
    head, _, last = term_norm.rpartition(" ")
    prefix = f"{head} " if head else ""
    if len(last) < 3 or not last.isalpha():
        return []
    forms = []
    if last.endswith("ies") and len(last) > 4:
        forms.append(last[:-3] + "y")
    if last.endswith(("ses", "xes", "zes", "ches", "shes")):
        forms.append(last[:-2])
    if last.endswith("s") and not last.endswith("ss"):
        forms.append(last[:-1])
    else:
        plural = last[:-1] + "ies" if re.search(r"[^aeiou]y$", last) else last + "s"
        forms.append(plural)
        if last.endswith(("s", "x", "z", "ch", "sh")):
            forms.append(last + "es")
    return [prefix + form for form in dict.fromkeys(forms) if form != last]


def normalize_acronym(text: str) -> str:
    """A lookup key: "EACA", "eaca", "E.A.C.A.", "E-A-C-A" -> "eaca"; "SMEs" -> "sme"."""
    core = re.sub(r"[^0-9A-Za-z]", "", unicodedata.normalize("NFKC", text))
    if is_plural_acronym(core):
        core = core[:-1]
    return core.casefold()


def normalize_phrase(text: str) -> str:
    """Casefolded, hyphens as spaces, punctuation dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = re.sub(r"[\u2010-\u2015\u2212\-/]+", " ", text)
    text = re.sub(r"[^\w\s]", "", text)
    return " ".join(text.split())


def is_plural_acronym(core: str) -> bool:
    """True for a plural acronym: capitals and a final lower-case s ("SMEs", "HCEs")."""
    body = core[:-1]
    return core.endswith("s") and sum(c.isupper() for c in body) >= 2 and body == body.upper()
