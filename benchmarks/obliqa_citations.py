"""The citation queries of ``hierdoc eval``'s ObliQA document forms, without the questions.

    python benchmarks/obliqa_citations.py --dataset obliqa-documents --misses 20
    python benchmarks/obliqa_citations.py --dataset obliqa-files --embedder minilm

``hierdoc eval --dataset obliqa-documents`` (all 40 documents, hierdoc's titles) embeds
10,000 windows with the real model, an hour on two shared cores; a citation is resolved by
the exact modality, so the hash stand-in embedder (the default here) measures it in a
minute. Same corpus, queries (:mod:`hierdoc.eval.obliqa_citations`) and judging as
``hierdoc eval``; the indexes are kept under ``--index-dir``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.hash_embedder

from hierdoc.eval.datasets import load_dataset  # noqa: E402
from hierdoc.eval.runner import run_eval  # noqa: E402
from hierdoc.eval.variants import VARIANTS  # noqa: E402
from hierdoc.pipeline.embed import Embedder, LocalEmbedder  # noqa: E402


def embedder_named(name: str) -> Embedder:
    from tests.hash_embedder import HashEmbedder

    return LocalEmbedder() if name == "minilm" else HashEmbedder()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", choices=("obliqa-documents", "obliqa-files"))
    parser.add_argument("--embedder", choices=("hash", "minilm"), default="hash")
    parser.add_argument("--index-dir", type=Path, default=Path("/tmp/hierdoc-citations"))
    parser.add_argument("--misses", type=int, default=0, help="misses to print")
    args = parser.parse_args()
    corpus = replace(load_dataset(args.dataset, split="dev"), queries=[])
    root = args.index_dir / args.embedder
    report = run_eval(corpus, [VARIANTS["hybrid"]], [], root, embedder_named(args.embedder))
    print(f"{args.dataset}, {len(corpus.documents)} documents, {args.embedder} embedder\n")
    print(report.citation_table())
    cited = report.results[0].citations
    for query, got in list(cited.misses.items() if cited else [])[: args.misses]:
        print(f"  miss: {query!r} -> {got}")


if __name__ == "__main__":
    main()
