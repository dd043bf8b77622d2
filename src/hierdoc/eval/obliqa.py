"""ObliQA (Gokhan et al., RIRAG, arXiv 2409.05677): regulatory questions over 40 ADGM
rulebooks and guidance documents, each with its gold passages.

Two forms of the same questions:

* passages (:func:`load_obliqa_passages`): each of the 13,012 non-empty passages is a given
  chunk with id ``DocumentID:PassageID``, judged by id as the shared task scores it
  (Recall@10, MAP@10), so the figures stand beside the published ones;
* documents (:func:`load_obliqa_documents`): the 40 documents as plain text, structured and
  chunked by hierdoc; a gold passage is found when a returned chunk holds its text.

Each question keeps its ``Group``: a question written from one passage, or from a topic
of several (its gold passages number 1-6); the report gives both groups apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from ..models import TextDocument
from .datasets import EvalCorpus, EvalQuery

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


def load_obliqa_documents(directory: str | Path, split: str = "dev") -> EvalCorpus:
    """The 40 documents as plain text (source = the file name, title chosen by hierdoc), the
    questions judged by containment: a chunk counts for a gold passage that it holds whole
    (whitespace normalised)."""
    root = Path(directory)
    documents = [
        TextDocument(path.name, path.read_text(encoding="utf-8"))
        for path in sorted((root / "documents").glob("*.txt"))
    ]
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
    )


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
