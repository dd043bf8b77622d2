"""Retrieval-quality evaluation on benchmark sets, through the public ``Index`` API.

One job per module:

* :mod:`.datasets`: corpora, queries and judgements, and their loaders;
* :mod:`.metrics`: Recall, MRR, nDCG, Pass@k and span recall at k;
* :mod:`.embed_cache`: document vectors cached on disk between runs;
* :mod:`.method`: what is scored, a method ranking chunk ids for a query;
* :mod:`.variants`: the hierdoc variant grid and the index each variant needs;
* :mod:`.baselines`: dense, BM25 and rank_bm25 + numpy + RRF over the same chunks;
* :mod:`.judging`: one query's rankings turned into every metric and its misses;
* :mod:`.indexes`: the cached evaluation indexes and the digest of the ingest code;
* :mod:`.report`: results, the markdown table and the JSON;
* :mod:`.runner`: :func:`~.runner.run_eval`, every method over the same queries;
* :mod:`.passage_eval`: passages scored against gold spans (precision, recall, budgets);
* :mod:`.passage_methods`: hierdoc's passages beside splitter baselines, one run;
* :mod:`.splitters`: the fixed and recursive character splitters of those baselines;

``hierdoc eval`` is its command line (:mod:`hierdoc.cli.evaluate`).
"""
