"""Benchmark corpora: documents to index, queries and their relevance judgements.

A corpus (:class:`EvalCorpus`) is judged in one of three units:

* ``document``: judgements name documents (BEIR, SciFact); a document's rank is
  the rank of its first chunk, later chunks of the same document are skipped;
* ``chunk``: judgements name chunks (the Anthropic codebase, pre-chunked);
* ``span``: judgements are character spans of one document (ContractNLI); a
  chunk is relevant when it overlaps a gold span, and the query is searched
  within its own document (a source filter);
* ``contains``: judgements are passages of text (whitespace normalised); a chunk
  counts for each one it holds whole (ObliQA's documents chunked by hierdoc).

Loaders read the files as published; :func:`load_dataset` picks one by name.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..pipeline.ingest import TextDocument
from .metrics import CHAR_METRICS, CUTOFFS, Span

if TYPE_CHECKING:
    from .obliqa_citations import CitationQuery

Unit = Literal["document", "chunk", "span", "contains"]

NLI_CHOICES = ("Entailment", "Contradiction")


@dataclass(frozen=True)
class EvalQuery:
    """A query and what is relevant to it.

    ``relevant`` is ``{document or chunk id: grade}`` (grade > 0 is relevant) for
    the document and chunk units, and a list of ``(start, end)`` character spans
    of the ``source_filter`` document for the span unit.
    """

    id: str
    text: str
    relevant: dict[str, float] | list[Span]
    source_filter: str | None = None
    document: str | None = None
    """For a span-unit query searched over every document: the document its spans are in."""
    group: str | None = None
    """The question group the report gives apart (ObliQA: one gold passage or several)."""


@dataclass
class EvalCorpus:
    """Documents, queries and how to score them (``metrics`` in table order)."""

    name: str
    documents: list[TextDocument]
    queries: list[EvalQuery]
    unit: Unit
    metrics: tuple[str, ...]
    main_metric: str
    aliases: dict[str, str] = field(default_factory=dict)
    """Chunk id -> the key it is judged by (the cookbook matches chunks by content)."""
    description: str = ""
    published: dict[str, dict[str, float]] = field(default_factory=dict)
    """Published figures to print beside the measured ones: who and where -> metric -> value."""
    citations: list[CitationQuery] = field(default_factory=list)
    """Queries citing a passage by its number, scored apart (:mod:`.obliqa_citations`)."""

    def citations_within(self, documents: Sequence[TextDocument]) -> list[CitationQuery]:
        """The citation queries whose cited document is one of ``documents``."""
        kept = {d.source for d in documents}
        return [c for c in self.citations if c.source in kept]

    @property
    def prechunked(self) -> bool:
        return bool(self.documents) and all(d.chunks is not None for d in self.documents)

    def fingerprint(self) -> str:
        digest = hashlib.sha1(self.name.encode())
        for document in sorted(self.documents, key=lambda d: d.source):
            digest.update(f"\0{document.source}\0{document.content_hash}".encode())
        return digest.hexdigest()[:12]


def _read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _read_qrels(path: Path) -> dict[str, dict[str, float]]:
    qrels: dict[str, dict[str, float]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            qrels.setdefault(row["query-id"], {})[row["corpus-id"]] = float(row["score"])
    return qrels


def _recall_names(prefix: str) -> tuple[str, ...]:
    return tuple(f"{prefix}@{k}" for k in CUTOFFS)


def load_beir(directory: str | Path, split: str = "test", name: str | None = None) -> EvalCorpus:
    """A BEIR dataset: ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl``,
    ``qrels/<split>.tsv``. Each document is a TextDocument (source = its id, title kept
    apart: hierdoc puts it in the structural context); queries are those with at least
    one positive judgement on a document of the corpus."""
    root = Path(directory)
    documents = [
        TextDocument(str(d["_id"]), d.get("text") or "", (d.get("title") or "").strip())
        for d in _read_jsonl(root / "corpus.jsonl")
    ]
    known = {d.source for d in documents}
    qrels = _read_qrels(root / "qrels" / f"{split}.tsv")
    queries = []
    for row in _read_jsonl(root / "queries.jsonl"):
        judged = {d: g for d, g in qrels.get(str(row["_id"]), {}).items() if d in known}
        if any(g > 0 for g in judged.values()):
            queries.append(EvalQuery(str(row["_id"]), row["text"], judged))
    return EvalCorpus(
        name or root.name,
        documents,
        queries,
        "document",
        ("nDCG@10", *_recall_names("R"), "MRR@10"),
        "nDCG@10",
        description=f"BEIR {root.name} ({split}): nDCG@10 by document",
    )


def load_scifact(directory: str | Path) -> EvalCorpus:
    """BEIR SciFact, test split (300 claims, 5,183 abstracts): nDCG@10 by document."""
    return load_beir(directory, "test", "scifact")


def load_anthropic_codebase(directory: str | Path) -> EvalCorpus:
    """The contextual-retrieval cookbook's codebase: 90 files in 737 given chunks.

    Each file is a TextDocument with its chunks as given (chunk id
    ``<doc uuid>:<original_index>``, so golden ``[doc_uuid, original_index]``
    pairs are chunk ids). The cookbook matches a retrieved chunk to a golden one
    by stripped content, so chunks with the same content (licence headers) count
    for each other: ``aliases`` maps every chunk id to the first id with its content.
    """
    root = Path(directory)
    files = json.loads((root / "codebase_chunks.json").read_text(encoding="utf-8"))
    documents, aliases, first_by_content = [], {}, {}
    for item in files:
        chunks = item["chunks"]
        ids = [f"{item['original_uuid']}:{c['original_index']}" for c in chunks]
        for chunk_id, chunk in zip(ids, chunks, strict=True):
            aliases[chunk_id] = first_by_content.setdefault(chunk["content"].strip(), chunk_id)
        texts = [c["content"] for c in chunks]
        documents.append(TextDocument(item["doc_id"], item["content"], "", texts, ids))
    queries = [
        EvalQuery(
            f"q{n}",
            row["query"],
            {f"{uuid}:{index}": 1.0 for uuid, index in row["golden_chunk_uuids"]},
        )
        for n, row in enumerate(_read_jsonl(root / "evaluation_set.jsonl"))
    ]
    return EvalCorpus(
        "anthropic-codebase",
        documents,
        queries,
        "chunk",
        ("Pass@10", "Pass@1", "Pass@5", "Pass@20", "MRR@10", "nDCG@10"),
        "Pass@10",
        aliases,
        "Anthropic cookbook codebase: Pass@k (golden chunks in the top k / golden chunks, x100)",
    )


def load_contractnli(path: str | Path, corpus_wide: bool = False) -> EvalCorpus:
    """ContractNLI (``test.json`` or ``dev.json``): each NDA one TextDocument chunked by
    hierdoc; one query per (NDA, hypothesis) whose choice is Entailment or
    Contradiction, searched within that NDA, relevant = its evidence spans.

    ``corpus_wide``: each hypothesis is prefixed with its NDA's title (its file name, the
    only name the set gives; most NDAs leave the parties blank), as LegalBench-RAG does
    ("Consider <title>; <hypothesis>"), and searched over all the NDAs; ``Doc@1`` is the
    share of first results from the right NDA."""
    if corpus_wide:
        return _corpus_wide(load_contractnli(path))
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    hypotheses = {key: label["hypothesis"] for key, label in data["labels"].items()}
    documents, queries = [], []
    for doc in data["documents"]:
        source = f"contractnli/{doc['id']}"
        documents.append(TextDocument(source, doc["text"], doc["file_name"].strip()))
        annotations = doc["annotation_sets"][0]["annotations"]
        for key in sorted(annotations):
            annotation = annotations[key]
            if annotation["choice"] not in NLI_CHOICES or not annotation["spans"]:
                continue
            spans = [tuple(doc["spans"][i]) for i in annotation["spans"]]
            queries.append(EvalQuery(f"{doc['id']}/{key}", hypotheses[key], spans, source))
    return EvalCorpus(
        f"contractnli-{Path(path).stem}",
        documents,
        queries,
        "span",
        ("SpanR@1", "SpanR@5", "SpanR@10", "SpanR@20", "MRR@10", "nDCG@10", *CHAR_METRICS),
        "SpanR@1",
        description="ContractNLI: span recall@k within the NDA (a chunk overlapping a gold span)",
    )


def _corpus_wide(corpus: EvalCorpus) -> EvalCorpus:
    titles = {d.source: d.title for d in corpus.documents}
    queries = [
        EvalQuery(
            q.id,
            f"Consider {titles[q.source_filter or '']}; {q.text}",
            q.relevant,
            None,
            q.source_filter,
        )
        for q in corpus.queries
    ]
    return EvalCorpus(
        corpus.name.replace("contractnli-", "contractnli-wide-", 1),
        corpus.documents,
        queries,
        "span",
        ("Doc@1", *corpus.metrics),
        corpus.main_metric,
        description="ContractNLI corpus-wide: 'Consider <NDA title>; <hypothesis>' over all "
        "NDAs; Doc@1 = first result from the right NDA, span recall@k in it",
    )


def slice_corpus(
    corpus: EvalCorpus, queries: int, distractors: int | None = None, seed: int = 13
) -> EvalCorpus:
    """The first ``queries`` queries; with ``distractors``, only the documents they
    judge (or are filtered to) plus that many random others (fixed seed)."""
    kept = corpus.queries[:queries]
    documents = corpus.documents
    if distractors is not None:
        needed = _needed_sources(corpus, kept)
        others = sorted(d.source for d in documents if d.source not in needed)
        picked = set(random.Random(seed).sample(others, min(distractors, len(others))))
        documents = [d for d in documents if d.source in needed or d.source in picked]
    name = f"{corpus.name}-q{len(kept)}" + ("" if distractors is None else f"-d{distractors}")
    return EvalCorpus(
        name,
        documents,
        kept,
        corpus.unit,
        corpus.metrics,
        corpus.main_metric,
        corpus.aliases,
        corpus.description,
        corpus.published,
        corpus.citations_within(documents),
    )


def first_documents(corpus: EvalCorpus, count: int) -> EvalCorpus:
    """The first ``count`` documents and only the queries answered within them (every judged
    chunk or document, or every passage a ``contains`` query judges, is theirs): a corpus too
    big to embed on the machine at hand, measured on a part that is whole."""
    if corpus.unit == "span":
        raise ValueError("first_documents: span corpora search each query in its own document")
    kept = corpus.documents[:count]
    owners = {d.source for d in kept} | {c for d in kept for c in d.chunk_ids or ()}
    texts = " ".join(d.text for d in kept) if corpus.unit == "contains" else ""
    if corpus.unit == "contains":
        texts = " ".join(texts.split())
    queries = [q for q in corpus.queries if all(_within(key, owners, texts) for key in q.relevant)]
    name = f"{corpus.name}-first{len(kept)}"
    citations = corpus.citations_within(kept)
    return replace(corpus, name=name, documents=kept, queries=queries, citations=citations)


def _within(key: str, owners: set[str], texts: str) -> bool:
    return key in owners or bool(texts) and key in texts


def _needed_sources(corpus: EvalCorpus, queries: Sequence[EvalQuery]) -> set[str]:
    if corpus.unit == "span":
        return {s for q in queries if (s := q.source_filter or q.document)}
    if corpus.unit == "document":
        return {d for q in queries for d in q.relevant}  # type: ignore[union-attr]
    if corpus.unit == "contains":
        return {d.source for d in corpus.documents}
    owner = {cid: d.source for d in corpus.documents for cid in d.chunk_ids or ()}
    return {owner[c] for q in queries for c in q.relevant if c in owner}  # type: ignore[union-attr]


#: The repository when hierdoc runs from a source checkout (src/hierdoc/eval/ is three below it).
_CHECKOUT = Path(__file__).resolve().parents[3]


def default_datasets() -> Path:
    """The folder of the benchmark corpora, for the tests, ``benchmarks/`` and ``hierdoc eval``.

    ``$HIERDOC_DATASETS`` when set, else ``../shared/datasets`` beside the repository (from
    a source checkout) or beside the current directory (from an installed package).
    """
    if value := os.environ.get("HIERDOC_DATASETS"):
        return Path(value)
    checkout = _CHECKOUT if (_CHECKOUT / "pyproject.toml").is_file() else Path.cwd()
    return checkout.parent / "shared" / "datasets"


DATASET_PATHS = {
    "scifact": "scifact",
    "anthropic": "anthropic-codebase",
    "contractnli": "contractnli/{split}.json",
    "contractnli-wide": "contractnli/{split}.json",
    "obliqa": "obliqa",
    "obliqa-documents": "obliqa",
    "obliqa-files": "obliqa",
}


def dataset_path(dataset: str, split: str = "test", root: Path | None = None) -> Path:
    """Where a dataset's files lie under ``root`` (default :func:`default_datasets`)."""
    return (root or default_datasets()) / DATASET_PATHS[dataset].format(split=split)


def load_dataset(dataset: str, path: str | Path | None = None, split: str = "test") -> EvalCorpus:
    """A corpus by dataset name (scifact, anthropic, contractnli, obliqa, obliqa-documents,
    obliqa-files, beir); ``split`` picks ContractNLI's file (test, dev), the half of ObliQA's
    development questions obliqa-files takes and BEIR's qrels (ObliQA's passages and
    documents take the whole development split, the only one the datasets folder holds)."""
    from .obliqa import load_obliqa_documents, load_obliqa_passages

    if path is None:
        if dataset not in DATASET_PATHS:
            raise ValueError(f"--path is required for {dataset}")
        path = dataset_path(dataset, split)
    loaders: dict[str, Callable[[], EvalCorpus]] = {
        "scifact": lambda: load_scifact(path),
        "anthropic": lambda: load_anthropic_codebase(path),
        "contractnli": lambda: load_contractnli(path),
        "contractnli-wide": lambda: load_contractnli(path, corpus_wide=True),
        "obliqa": lambda: load_obliqa_passages(path),
        "obliqa-documents": lambda: load_obliqa_documents(path),
        "obliqa-files": lambda: load_obliqa_documents(path, split, judged="spans"),
        "beir": lambda: load_beir(path, split),
    }
    if dataset not in loaders:
        raise ValueError(f"unknown dataset {dataset!r}")
    return loaders[dataset]()
