"""What names a document, computed when the document is written: its *name keys*.

A store writes these keys with each document, keyed by what a query must hold to name it (a
written name by its first two words, a short name by its first two tokens, a name word by
itself), and the search stage reads them back by the keys a query's words can match
(:mod:`hierdoc.search.names`). :data:`NAME_KEYS_VERSION` versions what the keys are: a store
holding keys of another version rebuilds them.
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath
from urllib.parse import unquote

from ..models import DocumentRecord
from .analyze import ENGLISH_STOP_WORDS
from .short_names import self_given, short_names

#: Words with which people name a document ("the cloud agreement", "the PCI standard").
# fmt: off
DOCUMENT_WORDS = frozenset({
    "agreement", "contract", "policy", "term", "standard", "regulation", "directive", "act",
    "statute", "law", "licence", "license", "nda", "document", "file", "code", "bill",
    "guideline", "guidance", "manual", "specification", "charter", "bylaw", "deed", "lease",
    "memorandum", "notice", "schedule", "addendum",
})
# fmt: on
NAME_WORD = re.compile(r"[a-z0-9]+")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")
#: Company suffixes: "Acme Corp" is named by "Acme".
COMPANY_WORDS = frozenset(
    {
        "inc",
        "corp",
        "corporation",
        "llc",
        "ltd",
        "limited",
        "plc",
        "gmbh",
        "co",
        "sa",
        "ag",
        "nv",
        "bv",
        "lp",
        "llp",
    }
)
_PARTY_KEY = re.compile(r"part(y|ies)|counterpart(y|ies)|client|customer|vendor|supplier|company")


NAME_KEYS_VERSION = 7
"""Changes whenever :func:`name_keys` would give a document other keys: a store holding
keys of another version rebuilds them (a writer) or is read as records (a reader)."""
WRITTEN, SHORT, WORD, NAMES = "written", "short", "word", "names"
"""The kinds of name key: a written-form name by its opening words, a short name by its
first two tokens, a name word (its holders give its document frequency), a document's names
(their word sets, JSON) by its source."""

NameKey = tuple[str, str, str]
"""(kind, key, value) of one thing that names a document."""


def name_strings(document: DocumentRecord) -> list[str]:
    """The strings that name a document: source, file name, file stem, title, metadata title."""
    path = PurePosixPath(document.source)
    titles = [document.title, str(document.metadata.get("title") or ""), *self_given(document)]
    found = [document.source, path.name, path.stem, *titles]
    return list(dict.fromkeys(" ".join(s.split()).lower() for s in found if s and s.strip()))


def written_form(name: str) -> bool:
    """A name that cannot be an ordinary phrase of a question."""
    return len(name) >= 4 and (bool(re.search(r"[0-9._%\-]", name)) or len(name.split()) >= 3)


def name_words(document: DocumentRecord) -> list[set[str]]:
    """The words of each of a document's names: title and file stem (no file extension)
    together, then each party; document words and company suffixes left out."""
    titles = [document.title, str(document.metadata.get("title") or "")]
    stems = [_EXTENSION.sub("", unquote(t)) for t in titles]
    path = unquote(PurePosixPath(document.source).stem)
    names = [" ".join([*stems, path]), *parties(document)]
    found = [name_words_of(name) - DOCUMENT_WORDS - COMPANY_WORDS for name in names]
    return [words for words in found if words]


def parties(document: DocumentRecord) -> list[str]:
    """The parties a document's metadata names (front matter or properties such as
    ``parties: [Acme Corp, Globex Inc]``, ``client: ...``): "the agreement between Acme
    and Globex" names it."""
    found: list[str] = []
    for key, value in document.metadata.items():
        if _PARTY_KEY.fullmatch(str(key).strip().lower()):
            found += [str(v) for v in value] if isinstance(value, list) else [str(value)]
    return found


#: How a file is stamped with its version or date: "VER05" and "181223" of
#: ``Guidance - Virtual Asset Activities in ADGM (VER05.181223).txt``; nobody names the
#: document by them.
FILE_STAMP = re.compile(r"ver\d+|\d{6,}")


def name_words_of(text: str) -> set[str]:
    """Lower-cased words (letters or digits), stop words and file stamps (:data:`FILE_STAMP`)
    out, a plural "s" dropped; camel case ("ConfidentialityAgreement") split."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text).lower()
    return {
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in NAME_WORD.findall(spaced)
        if w not in ENGLISH_STOP_WORDS and not FILE_STAMP.fullmatch(w)
    }


def name_keys(document: DocumentRecord) -> list[NameKey]:
    """Everything that names ``document``, each under the key a query finds it by: what a
    store writes with the document (the in-memory :class:`DocumentNames` reads the same)."""
    found: dict[NameKey, None] = {}
    for name in name_strings(document):
        opening = NAME_WORD.findall(name)[:2]
        if written_form(name) and opening:
            found[(WRITTEN, " ".join(opening), name)] = None
    for short in sorted(short_names(document, DOCUMENT_WORDS), key=lambda n: n.value):
        found[(SHORT, short.key, short.value)] = None
    names = name_words(document)
    for word in sorted(set().union(*names)):
        found[(WORD, word, "")] = None
    if names:
        found[(NAMES, document.source, json.dumps([sorted(words) for words in names]))] = None
    return list(found)
