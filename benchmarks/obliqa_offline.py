"""ObliQA passages offline: ranking changes tried on an eval index's stored chunks and vectors
in numpy, without re-indexing, and a query-side linear adapter learnt in cross-validation.

    python benchmarks/obliqa_offline.py --index /work/cache/obliqa/obliqa-passages-XXXX \
        --embeddings /work/cache/obliqa/embeddings.sqlite

BM25 here is a numpy BM25 over hierdoc's analyzer (``analyze`` for the chunk's context and
text, the primary ``analyze_query`` terms for the question; k1 1.2, b 0.75 unless varied),
the dense side the stored windows (a chunk scores as its best window), 50 candidates a side
fused by hierdoc's own :func:`~hierdoc.search.fuse.score_fusion`. No exact modality and no
named-document ranking, so the figures sit within 0.01 of ``hierdoc eval``'s.

The adapter: a 384 x 384 matrix applied to the question's vector (passage vectors unchanged,
so nothing is re-embedded), started at the identity and trained with the multiple-negatives
loss (gold passage against 1,024 random passages, scale 20) on the questions of one half,
measured on the other half, then the halves swapped (seed 0); the pooled figure is reported.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from pathlib import Path

import numpy as np
import scipy.sparse as sparse

from hierdoc import Index, Settings
from hierdoc.eval.datasets import dataset_path, load_dataset
from hierdoc.eval.embed_cache import CachingEmbedder
from hierdoc.models import Hit
from hierdoc.pipeline.embed import LocalEmbedder
from hierdoc.search.fuse import score_fusion
from hierdoc.text.analyze import analyze, analyze_query

DEPTH = 50
QUESTION_WORDS = frozenset(
    term
    for word in [
        "what",
        "how",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "does",
        "do",
        "did",
        "can",
        "could",
        "would",
        "please",
        "you",
        "your",
        "i",
        "we",
        "our",
        "us",
        "me",
        "provide",
        "explain",
        "clarify",
        "describe",
        "specific",
        "examples",
        "give",
        "tell",
        "any",
        "context",
        "regarding",
        "should",
        "must",
        "ensure",
    ]
    for term in analyze(word)
)
"""Question phrasing (its stems): dropped from the query by the ``question words`` rows."""


class Bm25:
    """BM25 over term lists, a text's fields weighted (a field's term counts times weight)."""

    def __init__(self, fields: list[list[list[str]]], weights: list[float], k1=1.2, b=0.75):
        vocab: dict[str, int] = {}
        rows, cols, counts, lengths = [], [], [], []
        for row, parts in enumerate(fields):
            counted: Counter[str] = Counter()
            for terms, weight in zip(parts, weights, strict=True):
                for term in terms:
                    counted[term] += weight
            lengths.append(sum(counted.values()))
            for term, count in counted.items():
                rows.append(row)
                cols.append(vocab.setdefault(term, len(vocab)))
                counts.append(count)
        shape = (len(fields), len(vocab))
        tf = sparse.coo_matrix((counts, (rows, cols)), shape=shape)
        having = np.bincount(tf.col[tf.data > 0], minlength=len(vocab))
        self.idf = np.log(1 + (len(fields) - having + 0.5) / (having + 0.5))
        length = np.asarray(lengths)[tf.row]
        norm = k1 * (1 - b + b * length / np.mean(lengths))
        weight = tf.data * (k1 + 1) / (tf.data + norm)
        self.matrix = sparse.csr_matrix((weight, (tf.row, tf.col)), shape=shape)
        self.vocab = vocab

    def scores(self, queries: list[list[str]]) -> np.ndarray:
        rows, cols, values = [], [], []
        for column, terms in enumerate(queries):
            for term in set(terms):
                if term in self.vocab:
                    rows.append(self.vocab[term])
                    cols.append(column)
                    values.append(self.idf[self.vocab[term]])
        asked = sparse.csr_matrix((values, (rows, cols)), shape=(len(self.vocab), len(queries)))
        return (self.matrix @ asked).T.toarray()


def top(scores: np.ndarray) -> list[list[Hit]]:
    best = np.argpartition(-scores, DEPTH, axis=1)[:, :DEPTH]
    ranked = []
    for row, chosen in enumerate(best):
        order = chosen[np.argsort(-scores[row, chosen], kind="stable")]
        ranked.append([Hit(str(i), float(scores[row, i])) for i in order if scores[row, i] > 0])
    return ranked


class Corpus:
    """The index's chunks and windows, the questions, their vectors and gold passages."""

    def __init__(self, directory: Path, embeddings: Path) -> None:
        corpus = load_dataset("obliqa", dataset_path("obliqa"))
        with Index.open(directory, Settings(), mode="r") as index:
            stored = list(index.iter_chunks())
            blocks = [windows for _, windows in index.iter_vectors()]
        self.keys = [s.chunk.chunk_id.split("~")[0] for s in stored]
        self.fields = [[analyze(s.context or ""), analyze(s.chunk.content)] for s in stored]
        self.windows = np.vstack(blocks)
        self.starts = np.cumsum([0] + [len(b) for b in blocks[:-1]])
        self.first = self.windows[self.starts]
        cached = CachingEmbedder(LocalEmbedder(), embeddings)
        cached.embed_queries([q.text for q in corpus.queries])
        self.vectors = np.vstack([cached.embed_query(q.text) for q in corpus.queries])
        cached.close()
        self.questions = [q.text for q in corpus.queries]
        self.gold = [set(q.relevant) for q in corpus.queries]

    def dense(self, vectors: np.ndarray) -> list[list[Hit]]:
        return top(np.maximum.reduceat(self.windows @ vectors.T, self.starts, axis=0).T)

    def measure(self, ranked: list[list[str]]) -> dict[str, float]:
        totals = Counter()
        for ids, gold in zip(ranked, self.gold, strict=True):
            keys = list(dict.fromkeys(self.keys[int(i)] for i in ids))[:10]
            hits = [key in gold for key in keys]
            found = np.cumsum(hits)
            totals["R@10"] += sum(hits) / len(gold)
            totals["MAP@10"] += sum(found[r] / (r + 1) for r in range(len(hits)) if hits[r]) / len(
                gold
            )
            totals["R@1"] += hits[0] / len(gold) if hits else 0.0
        return {name: round(value / len(ranked), 4) for name, value in totals.items()}


def fused(keyword: list[list[Hit]], semantic: list[list[Hit]]) -> list[list[str]]:
    weights = Settings().search_settings().weights
    return [
        [c for c, _ in score_fusion({"keyword": k, "semantic": s}, weights)]
        for k, s in zip(keyword, semantic, strict=True)
    ]


def adapter_vectors(corpus: Corpus, folds: int = 2, epochs: int = 10) -> np.ndarray:
    """Each question's vector through the adapter trained on the other folds."""
    import torch

    order = list(range(len(corpus.questions)))
    random.Random(0).shuffle(order)
    position = {key: n for n, key in reversed(list(enumerate(corpus.keys)))}
    passages = torch.tensor(corpus.first / np.linalg.norm(corpus.first, axis=1, keepdims=True))
    result = corpus.vectors.copy()
    for fold in range(folds):
        held = set(order[fold::folds])
        pairs = [
            (q, position[g])
            for q in range(len(corpus.questions))
            if q not in held
            for g in corpus.gold[q]
            if g in position
        ]
        started = time.perf_counter()
        matrix = train_adapter(torch.tensor(corpus.vectors), passages, pairs, epochs)
        print(f"fold {fold}: {len(pairs)} pairs, {time.perf_counter() - started:.0f} s", flush=True)
        for q in held:
            result[q] = corpus.vectors[q] @ matrix
    return result / np.linalg.norm(result, axis=1, keepdims=True)


def train_adapter(vectors, passages, pairs, epochs: int, batch: int = 64) -> np.ndarray:
    import torch

    torch.manual_seed(0)
    identity = torch.eye(vectors.shape[1])
    matrix = torch.nn.Parameter(identity.clone())
    optimizer = torch.optim.Adam([matrix], lr=1e-3)
    for epoch in range(epochs):
        random.Random(epoch).shuffle(pairs)
        for start in range(0, len(pairs), batch):
            part = pairs[start : start + batch]
            noise = random.Random(start + epoch).sample(range(len(passages)), 1024)
            pool = torch.tensor([p for _, p in part] + noise)
            queries = torch.nn.functional.normalize(vectors[[q for q, _ in part]] @ matrix, dim=-1)
            logits = queries @ passages[pool].T * 20
            loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(part)))
            loss = loss + 1e-2 * ((matrix - identity) ** 2).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return matrix.detach().numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, required=True, help="an obliqa-passages eval index")
    parser.add_argument("--embeddings", type=Path, required=True, help="its embedding cache")
    args = parser.parse_args()
    corpus = Corpus(args.index, args.embeddings)
    terms = [[t.term for t in analyze_query(q)] for q in corpus.questions]
    plain = [[t for t in ts if t not in QUESTION_WORDS] for ts in terms]
    semantic = corpus.dense(corpus.vectors)
    rows = {"semantic": [[h.chunk_id for h in hits] for hits in semantic]}
    for name, weights, k1, b, asked in (
        ("context and text", [1.0, 1.0], 1.2, 0.75, terms),
        ("question words dropped", [1.0, 1.0], 1.2, 0.75, plain),
        ("text only", [0.0, 1.0], 1.2, 0.75, terms),
        ("k1 0.9", [1.0, 1.0], 0.9, 0.75, terms),
    ):
        keyword = top(Bm25(corpus.fields, weights, k1, b).scores(asked))
        rows[f"keyword, {name}"] = [[h.chunk_id for h in hits] for hits in keyword]
        rows[f"hybrid, {name}"] = fused(keyword, semantic)
        if name == "context and text":
            base_keyword = keyword
    adapted = corpus.dense(adapter_vectors(corpus))
    rows["semantic, adapter (2-fold CV)"] = [[h.chunk_id for h in hits] for hits in adapted]
    rows["hybrid, adapter (2-fold CV)"] = fused(base_keyword, adapted)
    print("| method | R@10 | MAP@10 | R@1 |\n|---|---:|---:|---:|")
    for name, ranked in rows.items():
        figures = corpus.measure(ranked)
        print(f"| {name} | {figures['R@10']} | {figures['MAP@10']} | {figures['R@1']} |")


if __name__ == "__main__":
    main()
