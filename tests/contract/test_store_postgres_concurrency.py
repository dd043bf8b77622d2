"""Two hierdoc processes on one PostgreSQL database: one ingests while the other searches
500 times, with no error, and each search sees every document the writer has committed."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from hierdoc import Index, Settings
from tests.contract.test_store_postgres_server import drop_schema, fresh_options
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS

pytestmark = pytest.mark.postgres

DOCUMENTS = 30
SEARCHES = 500

WRITER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[2])
    from hash_embedder import HashEmbedder
    from hierdoc import Index, Settings
    from hierdoc.pipeline.ingest import TextDocument

    settings = Settings(database={"provider": "postgres", **json.loads(sys.argv[1])})
    with Index.open(Path("unused"), settings, embedder=HashEmbedder()) as index:
        for n in range(1, int(sys.argv[3]) + 1):
            text = f"# Clause {n}\\n\\nThe escrow agent holds deposit number{n} for the buyer."
            index.ingest_texts([TextDocument(f"doc{n}.md", text, title=f"Agreement {n}")])
            print(n, flush=True)
    """
)


def test_a_search_process_sees_each_commit_of_an_ingest_process(tmp_path: Path) -> None:
    options = fresh_options()
    settings = Settings(database={"provider": "postgres", **options})
    try:
        reader = Index.open(tmp_path / "unused", settings, embedder=HashEmbedder())
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, json.dumps(options), str(TESTS),
             str(DOCUMENTS)],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        committed = [0]

        def follow() -> None:
            for line in writer.stdout or ():
                committed[0] = int(line)

        follower = threading.Thread(target=follow)
        follower.start()
        errors: list[str] = []
        during = 0
        modes = ["keyword", "hybrid", "semantic", "exact"]
        for i in range(SEARCHES):
            seen = committed[0]
            during += writer.poll() is None
            mode = modes[i % len(modes)]
            response = reader.search(f"deposit number{max(seen, 1)}", mode=mode, top_k=50)
            sources = {r.source for r in response.results}
            if seen and mode == "keyword" and f"doc{seen}.md" not in sources:
                errors.append(f"search {i}: doc{seen}.md committed but not found")
        assert writer.wait(timeout=300) == 0
        follower.join(timeout=10)
        assert not errors, errors[:3]
        assert during > 0, "no search ran while the writer was ingesting"
        assert committed[0] == DOCUMENTS
        final = reader.search("deposit", mode="keyword", top_k=100).results
        assert {r.source for r in final} == {f"doc{n}.md" for n in range(1, DOCUMENTS + 1)}
        reader.close()
    finally:
        drop_schema(options)
