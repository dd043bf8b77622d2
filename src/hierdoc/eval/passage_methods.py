"""The methods of the passage evaluation, run in one run over the same questions.

From one hierdoc search per question (the index's defaults, ``top_k`` :data:`DEPTH`):

* ``hierdoc chunks``: each result's whole chunk;
* ``hierdoc passage``: each result's ``passage``;
* ``hierdoc passages``: each result's ``passages``, the best first;
* ``random same-length``: in each result's chunk, a span as long as its ``passage`` placed
  at random (seeded by the question), the chance level of choosing a passage;

and ranked at the passage level from the same results and query vector, as a search
with ``passage_results`` ranks them:

* ``hierdoc passage results``: each result's ``passage``, in that ranking;

and over every document the question is searched in, cut by a splitter (:mod:`.splitters`)
and embedded with the same model (all-MiniLM-L6-v2, through the run's embedding cache),
ranked by cosine to the question:

* ``fixed 500 + MiniLM``; ``recursive 500 + MiniLM``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..config import Settings
from ..models import SearchResponse, SearchResult
from ..pipeline.embed import Embedder, EmbedInput, LocalEmbedder
from .datasets import EvalCorpus, EvalQuery
from .embed_cache import CachingEmbedder
from .indexes import Log, open_index
from .judging import ChunkTable
from .passage_eval import MEASURES, PassageRanker, Returned, mean_measures, measure
from .report import markdown_table
from .splitters import fixed_spans, recursive_spans
from .variants import ingest_key, passage_span

if TYPE_CHECKING:
    from ..api import Index

DEPTH = 10
"""Results asked of hierdoc per question: enough passages for the 8,000-character budget."""
SPLIT_CHARS = 500
EMBED_BATCH = 256


def _no_log(message: str) -> None:
    pass


@dataclass
class PassageReport:
    """Mean measures per method over one corpus's questions."""

    corpus: str
    queries: int
    means: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def table(self) -> str:
        header = ["method", *MEASURES, "ms/query"]
        rows = []
        for name, means in self.means.items():
            cells = [
                "-"
                if means[m] != means[m]
                else f"{means[m]:.0f}"
                if m == "chars@1"
                else f"{means[m]:.3f}"
                for m in MEASURES
            ]
            rows.append([name, *cells, f"{1000 * self.seconds[name] / max(self.queries, 1):.0f}"])
        return f"{self.corpus}, {self.queries} questions\n\n" + markdown_table(header, rows, 1)

    def to_dict(self) -> dict:
        return {
            "corpus": self.corpus,
            "queries": self.queries,
            "methods": {
                name: {m: (None if v != v else round(v, 4)) for m, v in means.items()}
                for name, means in self.means.items()
            },
        }


def result_items(
    response: SearchResponse,
    table: ChunkTable,
    parts: Callable[[SearchResult], list[tuple[int, int]]],
) -> list[Returned]:
    """What ``parts`` picks of each result (spans in its content), as document spans."""
    items = []
    for group, result in enumerate(response.results):
        chunk = table.span.get(result.chunk_id)
        if chunk is None:
            continue
        whole = parts is _whole
        for start, end in parts(result):
            span = (chunk[0] + start, min(chunk[1], chunk[0] + end))
            items.append(Returned(result.source, span, group, None if whole else chunk))
    return items


def _whole(result: SearchResult) -> list[tuple[int, int]]:
    return [(0, len(result.content.strip()))]


def first_passage(result: SearchResult) -> list[tuple[int, int]]:
    return [passage_span(result.content, result.passage)] if result.passage else _whole(result)


def _all(result: SearchResult) -> list[tuple[int, int]]:
    if not result.passages:
        return first_passage(result)
    return [passage_span(result.content, p) for p in result.passages]


def _random_part(seed: str) -> Callable[[SearchResult], list[tuple[int, int]]]:
    chooser = random.Random(seed)

    def part(result: SearchResult) -> list[tuple[int, int]]:
        (start, end), size = first_passage(result)[0], len(result.content.strip())
        length = end - start
        at = chooser.randint(0, max(0, size - length))
        return [(at, at + length)]

    return part


def hierdoc_items(
    response: SearchResponse, table: ChunkTable, seed: str
) -> dict[str, list[Returned]]:
    """The four readings of one hierdoc response."""
    return {
        "hierdoc chunks": result_items(response, table, _whole),
        "hierdoc passage": result_items(response, table, first_passage),
        "hierdoc passages": result_items(response, table, _all),
        "random same-length": result_items(response, table, _random_part(seed)),
    }


class SplitIndex:
    """Every document cut by a splitter, each piece embedded: ranked by cosine to a query."""

    def __init__(
        self,
        corpus: EvalCorpus,
        split: Callable[[str, int], list[tuple[int, int]]],
        embedder: CachingEmbedder,
        log: Log = _no_log,
    ) -> None:
        self.embedder = embedder
        self.sources: list[str] = []
        self.spans: list[tuple[int, int]] = []
        texts = []
        for document in corpus.documents:
            for start, end in split(document.text, SPLIT_CHARS):
                self.sources.append(document.source)
                self.spans.append((start, end))
                texts.append(document.text[start:end])
        log(f"[{corpus.name}] {len(texts)} pieces by {split.__name__}")
        rows = []
        for first in range(0, len(texts), EMBED_BATCH):
            batch = [EmbedInput("", t) for t in texts[first : first + EMBED_BATCH]]
            rows += [windows[0] for windows in embedder.embed_documents(batch)]
        self.vectors = np.vstack(rows) if rows else np.zeros((0, embedder.dimension), np.float32)
        self.of_source: dict[str, np.ndarray] = {}
        for source in dict.fromkeys(self.sources):
            self.of_source[source] = np.flatnonzero(np.asarray(self.sources) == source)

    def rank(self, query: EvalQuery, depth: int = 20) -> list[Returned]:
        pool = (
            np.arange(len(self.spans))
            if query.source_filter is None
            else self.of_source.get(query.source_filter, np.zeros(0, dtype=np.int64))
        )
        scores = self.vectors[pool] @ self.embedder.embed_query(query.text)
        top = pool[np.argsort(-scores, kind="stable")[:depth]]
        return [Returned(self.sources[i], self.spans[i], rank) for rank, i in enumerate(top)]


def run_passage_eval(
    corpus: EvalCorpus,
    index_dir: str | Path,
    embedder: Embedder | None = None,
    log: Log = _no_log,
    settings: Settings | None = None,
) -> PassageReport:
    """Every method over the corpus's questions (a span corpus), in one run."""
    if corpus.unit != "span":
        raise ValueError(f"{corpus.name} has no gold spans; the passage evaluation needs them")
    root = Path(index_dir)
    cached = CachingEmbedder(embedder or LocalEmbedder(), root / "embeddings.sqlite")
    settings = settings or Settings()
    opened = open_index(corpus, ingest_key(settings, corpus), root, cached, log)
    try:
        rankers = _rankers(corpus, opened.index, opened.table, cached, log, settings)
        return _score(corpus, rankers, log)
    finally:
        opened.index.close()
        cached.close()


def _rankers(
    corpus: EvalCorpus,
    index: Index,
    table: ChunkTable,
    cached: CachingEmbedder,
    log: Log,
    settings: Settings,
) -> dict[str, PassageRanker]:
    """Each method's ranker; the hierdoc readings share one search per question and one
    with ``passage_results`` (results ranked at the passage level)."""
    search = settings.search_settings()
    last: dict[str, tuple[str, dict[str, list[Returned]]]] = {}

    def reading(name: str) -> PassageRanker:
        def rank(query: EvalQuery) -> list[Returned]:
            if last.get("q", ("",))[0] != query.id:
                response = index.search(
                    query.text, top_k=DEPTH, source=query.source_filter, settings=search
                )
                items = hierdoc_items(response, table, query.id)
                ranked = index.search(
                    query.text,
                    top_k=DEPTH,
                    source=query.source_filter,
                    settings=search,
                    passage_results=True,
                )
                items["hierdoc passage results"] = result_items(ranked, table, first_passage)
                last["q"] = (query.id, items)
            return last["q"][1][name]

        return rank

    readings = (
        "hierdoc chunks",
        "hierdoc passage",
        "hierdoc passages",
        "random same-length",
        "hierdoc passage results",
    )
    rankers: dict[str, PassageRanker] = {name: reading(name) for name in readings}
    for name, split in (
        ("fixed 500 + MiniLM", fixed_spans),
        ("recursive 500 + MiniLM", recursive_spans),
    ):
        rankers[name] = SplitIndex(corpus, split, cached, log).rank
    return rankers


def _score(corpus: EvalCorpus, rankers: dict[str, PassageRanker], log: Log) -> PassageReport:
    report = PassageReport(corpus.name, len(corpus.queries))
    for name, rank in rankers.items():
        started = time.perf_counter()
        rows = [measure(query, rank(query)) for query in corpus.queries]
        report.seconds[name] = time.perf_counter() - started
        report.means[name] = mean_measures(rows)
        log(f"[{corpus.name}] {name}: R@2k {report.means[name]['R@2k']:.3f}")
    return report
