"""Definitions looked up from the term, on the labelled corpus: what they add, what they
answer that they should not, and what they cost.

    python benchmarks/define_lookup.py               # the whole corpus (archive + ObliQA)
    python benchmarks/define_lookup.py --subset      # the test subset, seconds
    python benchmarks/define_lookup.py --examples 20 # also some answers of each kind

One index per round of distinct titles, as ``benchmarks/structure.py`` builds them (hash
stand-in embedder), then for every document with gold definitions:

gold terms
    ``Index.define(term, source=document)`` for each gold term, sorted by what answered:
    a stored definition (right or wrong, as ``structure.py`` judges one), the lookup from
    the term's sentence (style ``sentence``: right or wrong), nothing.
false answers
    Terms that are not gold terms of the document, each asked within it: its most frequent
    capitalised phrases and noun phrases (two words, no stop word) and gold terms of other
    documents (a fixed sample), none whose key is a gold term's. The rate is the share the
    lookup answers (a stored definition of a non-gold term is ingest's precision, counted
    apart). A gold list may leave out a real definition, so an answer counted here is not
    always wrong: ``--examples`` prints some to judge.
latency
    Each call's seconds: ``define`` answered by a stored definition, and ``define`` that ran
    the lookup (p50 and p95, and their ratio): the lookup's cost on an index of the whole
    corpus.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from structure import DEFAULT_CACHE, corpus, defines, sources_by_path, title_rounds  # noqa: E402
from structure_gold import LabelledDocument  # noqa: E402

from hierdoc import Index  # noqa: E402
from hierdoc.config import Settings  # noqa: E402
from hierdoc.models import LOOKED_UP  # noqa: E402
from hierdoc.text.analyze import ENGLISH_STOP_WORDS  # noqa: E402
from tests.hash_embedder import HashEmbedder  # noqa: E402
from tests.realdocs.harness import term_key  # noqa: E402

_CAPITALISED = re.compile(r"\b[A-Z][a-z]{2,}(?: [A-Z][a-z]{2,}){0,2}\b")
_PAIR = re.compile(r"\b([a-z]{3,}) ([a-z]{3,})\b")


@dataclass
class Tally:
    """Counts over the corpus, with a few examples of each kind."""

    counts: Counter = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    stored_seconds: list[float] = field(default_factory=list)
    lookup_seconds: list[float] = field(default_factory=list)
    largest_index: int = 0
    """Chunks of the largest index the lookups ran on."""

    def add(self, kind: str, example: str) -> None:
        self.counts[kind] += 1
        self.examples.setdefault(kind, []).append(example)


def timed_define(index: Index, term: str, source: str):
    start = time.perf_counter()
    lookup = index.define(term, source=source)
    return lookup.definitions, time.perf_counter() - start


def gold_terms(doc: LabelledDocument, index: Index, source: str, tally: Tally) -> None:
    for gold in doc.definitions or ():
        if not term_key(gold.term):
            continue
        found, seconds = timed_define(index, gold.term, source)
        looked_up = any(d.style == LOOKED_UP for d in found)
        (tally.lookup_seconds if looked_up or not found else tally.stored_seconds).append(seconds)
        right = any(defines(d.term, d.definition, gold.term, gold.text) for d in found)
        where = "lookup" if looked_up else "stored"
        kind = f"gold {where} {'right' if right else 'wrong'}" if found else "gold none"
        shown = f"{doc.id}: {gold.term} = {found[0].definition[:70]}" if found else gold.term
        tally.add(kind, shown)


def negative_terms(
    doc: LabelledDocument, text: str, others: Sequence[str], per_kind: int
) -> list[str]:
    """What the document's ``text`` says often that is no gold term of it (see the module)."""
    golds = {term_key(g.term) for g in doc.definitions or ()}
    capitalised = Counter(_CAPITALISED.findall(text))
    pairs = Counter(" ".join(m) for m in _PAIR.findall(text) if not set(m) & ENGLISH_STOP_WORDS)
    chosen: list[str] = []
    for counter in (capitalised, pairs):
        ranked = [t for t, _ in counter.most_common() if term_key(t) not in golds]
        chosen += ranked[:per_kind]
    chosen += [t for t in others if term_key(t) not in golds][:per_kind]
    return [t for t in dict.fromkeys(chosen) if term_key(t)]


def false_answers(
    doc: LabelledDocument, index: Index, source: str, terms: Sequence[str], tally: Tally
) -> None:
    for term in terms:
        found, seconds = timed_define(index, term, source)
        looked_up = [d for d in found if d.style == LOOKED_UP]
        if looked_up:
            tally.lookup_seconds.append(seconds)
        kind = "negative lookup" if looked_up else "negative stored" if found else "negative none"
        shown = f"{doc.id}: {term} = {found[0].definition[:70]}" if found else term
        tally.add(kind, shown)


def measure(documents: Sequence[LabelledDocument], folder: Path, per_kind: int) -> Tally:
    tally = Tally()
    all_terms = sorted({g.term for d in documents for g in d.definitions or ()})
    for number, members in enumerate(title_rounds(documents)):
        with Index.open(folder / f"index-{number}", Settings(), embedder=HashEmbedder()) as index:
            for doc in members:
                index.ingest([doc.document])
            sources = sources_by_path(index)
            tally.largest_index = max(tally.largest_index, index.store.stats().chunks)
            for doc in members:
                source = sources.get(doc.document.resolve())
                if source is None or not doc.definitions:
                    continue
                others = random.Random(doc.id).sample(all_terms, min(3 * per_kind, len(all_terms)))
                gold_terms(doc, index, source, tally)
                text = "\n".join(c.chunk.content for c in index.store.chunks_of_source(source))
                negatives = negative_terms(doc, text, others, per_kind)
                false_answers(doc, index, source, negatives, tally)
    return tally


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def report(tally: Tally, examples: int) -> str:
    counts = tally.counts
    gold = sum(n for k, n in counts.items() if k.startswith("gold"))
    negatives = sum(n for k, n in counts.items() if k.startswith("negative"))
    lines = [
        f"gold terms {gold}: "
        + ", ".join(f"{k[5:]} {counts[k]}" for k in sorted(counts) if k.startswith("gold"))
    ]
    lines.append(
        f"non-gold terms {negatives}: lookup answered {counts['negative lookup']} "
        f"({100 * counts['negative lookup'] / max(negatives, 1):.1f}%), "
        f"stored definition {counts['negative stored']}, nothing {counts['negative none']}"
    )
    stored_p50 = statistics.median(tally.stored_seconds) if tally.stored_seconds else 0.0
    lookup_p50 = statistics.median(tally.lookup_seconds) if tally.lookup_seconds else 0.0
    lines.append(
        f"define ms: stored p50 {1000 * stored_p50:.2f} p95 "
        f"{1000 * percentile(tally.stored_seconds, 0.95):.2f}; with the lookup p50 "
        f"{1000 * lookup_p50:.2f} p95 {1000 * percentile(tally.lookup_seconds, 0.95):.2f} "
        f"(p50 ratio {lookup_p50 / max(stored_p50, 1e-9):.1f}x; largest index "
        f"{tally.largest_index:,} chunks)"
    )
    for kind in sorted(tally.examples) if examples else ():
        lines.append(f"-- {kind}")
        lines += [f"   {e}" for e in tally.examples[kind][:examples]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subset", action="store_true", help="the test subset only")
    parser.add_argument("--doc", action="append", default=[], help="only these document ids")
    parser.add_argument("--per-kind", type=int, default=8, help="non-gold terms of each kind")
    parser.add_argument("--examples", type=int, default=0, help="answers shown per kind")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="the unpacked corpus")
    args = parser.parse_args(argv)
    documents = [d for d in corpus(args.subset, args.cache) if not args.doc or d.id in args.doc]
    if not documents:
        parser.error("no document to measure")
    with tempfile.TemporaryDirectory() as folder:
        tally = measure(documents, Path(folder), args.per_kind)
    print(report(tally, args.examples))


if __name__ == "__main__":
    main()
