"""ObliQA (Gokhan et al., RIRAG, arXiv 2409.05677): regulatory questions over 40 ADGM
rulebooks and guidance documents, each with its gold passages.

The same questions in two forms:

* passages (:func:`load_obliqa_passages`): each of the 13,012 non-empty passages is a given
  chunk with id ``DocumentID:PassageID``, judged by id as the shared task scores it
  (Recall@10, MAP@10), so the figures stand beside the published ones;
* documents (:func:`load_obliqa_documents`): the documents as plain text, structured and
  chunked by hierdoc, read by one reader (:func:`read_documents`) and judged one of two
  ways: ``contains`` (dataset ``obliqa-documents``: all 40 documents, every question, a
  gold passage found when a returned chunk holds its text) or ``spans`` (dataset
  ``obliqa-files``: the documents under :data:`MAX_CHARS`, the questions whose gold lies
  in one of them, halved into ``dev`` and ``test``, judged by the gold passages' character
  spans).

Each question keeps its ``Group``: a question written from one passage, or from a topic
of several (its gold passages number 1-6); the report gives both groups apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Literal, NamedTuple

from ..models import TextDocument
from .datasets import EvalCorpus, EvalQuery
from .metrics import CHAR_METRICS, Span, merged_spans
from .obliqa_citations import citation_queries

PASSAGE_METRICS = ("R@10", "MAP@10", "R@1", "MRR@10")
DOCUMENT_METRICS = ("R@10", "R@1", "R@5", "R@20", "MRR@10")

PUBLISHED = {
    "LeSeR (test split; fine-tuned BGE + BM25 rerank; arXiv 2412.06009)": {
        "R@10": 0.8201,
        "MAP@10": 0.6655,
    }
}
"""Published figures on ObliQA's test split (the development split is measured here)."""

_SPACE = re.compile(r"\s+")


def normalized(text: str) -> str:
    """Text with every run of whitespace one space, trimmed: how containment is judged."""
    return _SPACE.sub(" ", text).strip()


def _document_map(root: Path) -> dict[str, dict]:
    return json.loads((root / "document_map.json").read_text(encoding="utf-8"))


def passage_id(document: int | str, passage: str) -> str:
    return f"{document}:{passage}"


def _group(row: dict) -> str:
    return "one passage" if len(row["Passages"]) == 1 else "several passages"


def load_obliqa_passages(directory: str | Path, split: str = "dev") -> EvalCorpus:
    """The passages of the 40 documents as given chunks (``DocumentID:PassageID``), one
    TextDocument per document titled as ObliQA's document map names it. A PassageID used
    twice in a document gets ``~2``, ``~3``... and is judged as the first (an alias)."""
    root = Path(directory)
    titles = _document_map(root)
    documents, aliases = [], {}
    for number in sorted(titles, key=int):
        rows = json.loads((root / "passages" / f"{number}.json").read_text(encoding="utf-8"))
        texts, ids = [], []
        for row in rows:
            if not row["Passage"].strip():
                continue
            base = passage_id(number, row["PassageID"])
            chunk_id, copy = base, 1
            while chunk_id in aliases:
                copy += 1
                chunk_id = f"{base}~{copy}"
            aliases[chunk_id] = base
            texts.append(row["Passage"])
            ids.append(chunk_id)
        source = f"obliqa/{number}"
        title = titles[number]["title"]
        documents.append(TextDocument(source, "\n\n".join(texts), title, texts, ids))
    queries = _queries(root, split, lambda p: passage_id(p["DocumentID"], p["PassageID"]))
    return EvalCorpus(
        "obliqa-passages",
        documents,
        queries,
        "chunk",
        PASSAGE_METRICS,
        "R@10",
        {c: b for c, b in aliases.items() if c != b},
        f"ObliQA {split}, passages as given chunks: Recall@10 and MAP@10 by passage id",
        published=PUBLISHED,
    )


MAX_CHARS = 60_000
"""The ``spans`` form indexes the ObliQA documents of at most this many characters (19 of
the 40, 0.45M characters, 254 development questions): the passage baselines embed every
document in 500-character pieces, which all 40 (5.3M characters) would make a run of hours
on 2 cores."""

Judged = Literal["contains", "spans"]


class ObliqaDocument(NamedTuple):
    """One of ObliQA's documents: its DocumentID, file name, title (the document map's) and
    text."""

    number: int
    file: str
    title: str
    text: str


def read_documents(root: Path, max_chars: int | None = None) -> list[ObliqaDocument]:
    """The documents of the document map (at most ``max_chars`` characters each, when
    given), by DocumentID."""
    documents = []
    for key, entry in sorted(_document_map(root).items(), key=lambda item: int(item[0])):
        text = (root / "documents" / entry["file"]).read_text(encoding="utf-8")
        if max_chars is None or len(text) <= max_chars:
            documents.append(ObliqaDocument(int(key), entry["file"], entry["title"], text))
    return documents


def load_obliqa_documents(
    directory: str | Path, split: str = "dev", judged: Judged = "contains"
) -> EvalCorpus:
    """The documents as plain text, chunked by hierdoc, judged ``contains`` or ``spans``
    (the module docstring says how). ``split`` is ObliQA's for ``contains`` (only ``dev``
    is held here); for ``spans`` it is the half of the development questions: ``dev``
    the even ones (for choosing settings), ``test`` the odd ones."""
    root = Path(directory)
    if judged == "contains":
        return _contained(root, split)
    if judged == "spans":
        return _spanned(root, split)
    raise ValueError(f"ObliQA documents are judged by contains or spans, not {judged!r}")


def _contained(root: Path, split: str) -> EvalCorpus:
    """All 40 documents by file name (source = the file name, title chosen by hierdoc), the
    questions judged by containment: a chunk counts for a gold passage that it holds whole
    (whitespace normalised)."""
    read = read_documents(root)
    documents = [TextDocument(d.file, d.text) for d in sorted(read, key=lambda d: d.file)]
    queries = _queries(root, split, lambda p: normalized(p["Passage"]))
    return EvalCorpus(
        "obliqa-documents",
        documents,
        queries,
        "contains",
        DOCUMENT_METRICS,
        "R@10",
        description=f"ObliQA {split}, the 40 documents chunked by hierdoc: Recall@k by "
        "containment (a returned chunk holds the gold passage)",
        citations=citation_queries(root, {d.number: d.file for d in read}),
    )


def _spanned(root: Path, split: str) -> EvalCorpus:
    """The documents under :data:`MAX_CHARS` (source ``obliqa/<file>``, the map's title),
    judged in spans: each development question of the ``split`` half whose gold passages
    all lie in one indexed document, searched over every indexed document, relevant =
    where its gold passages' text is in that document."""
    if split not in ("dev", "test"):
        raise ValueError(f"ObliQA split is dev or test, not {split!r}")
    documents = {
        d.number: TextDocument(f"obliqa/{d.file}", d.text, d.title)
        for d in read_documents(root, MAX_CHARS)
    }
    sources = {number: document.source for number, document in documents.items()}
    rows = json.loads((root / "dev.json").read_text(encoding="utf-8"))
    queries = []
    for position, row in enumerate(rows):
        owners = {p["DocumentID"] for p in row["Passages"]}
        if position % 2 != (split == "test") or len(owners) != 1 or not owners <= documents.keys():
            continue
        document = documents[owners.pop()]
        spans = [s for p in row["Passages"] if (s := found(document.text, p["Passage"]))]
        if spans:
            queries.append(
                EvalQuery(
                    row["QuestionID"], row["Question"], merged_spans(spans), None, document.source
                )
            )
    return EvalCorpus(
        f"obliqa-files-{split}",
        list(documents.values()),
        queries,
        "span",
        ("Doc@1", "SpanR@1", "SpanR@5", "SpanR@10", "SpanR@20", "MRR@10", "nDCG@10", *CHAR_METRICS),
        "SpanR@10",
        description="ObliQA rulebooks as files: span recall@k of the gold passages' text, "
        "searched over the indexed documents",
        citations=citation_queries(root, sources),
    )


def found(text: str, passage: str) -> Span | None:
    """Where ``passage`` is in ``text``: verbatim, else with any whitespace run matching any."""
    passage = passage.strip()
    if not passage:
        return None
    at = text.find(passage)
    if at >= 0:
        return at, at + len(passage)
    pattern = r"\s+".join(map(re.escape, passage.split()))
    match = re.search(pattern, text)
    return (match.start(), match.end()) if match else None


def _queries(root: Path, split: str, key: Callable[[dict], str]) -> list[EvalQuery]:
    """The split's questions, each judging ``key`` of its non-empty gold passages."""
    path = root / f"{split}.json"
    if not path.is_file():
        raise ValueError(f"no ObliQA split {split!r} at {path}")
    return [
        EvalQuery(
            row["QuestionID"],
            row["Question"],
            {key(p): 1.0 for p in row["Passages"] if p["Passage"].strip()},
            group=_group(row),
        )
        for row in json.loads(path.read_text(encoding="utf-8"))
    ]
