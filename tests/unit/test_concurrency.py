"""Readers in many threads while another process writes: no errors, no torn state."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from hierdoc import Index, Settings
from tests.hash_embedder import HashEmbedder
from tests.paths import TESTS

DOCUMENTS = 40
THREADS = 8

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[2])
    from hash_embedder import HashEmbedder
    from hierdoc import Index, Settings
    from hierdoc.pipeline.ingest import TextDocument

    with Index.open(Path(sys.argv[1]), Settings(), embedder=HashEmbedder()) as index:
        for n in range(1, int(sys.argv[3])):
            text = f"# Clause {n}\\n\\nThe escrow agent holds deposit number{n} for the buyer."
            index.ingest_texts([TextDocument(f"doc{n}.md", text, title=f"Agreement {n}")])
            if n % 5 == 0:
                revised = f"# Clause 0\\n\\nRevised {n}: escrow."
                index.ingest_texts([TextDocument("doc0.md", revised)])
    """
)


@pytest.mark.slow
def test_eight_threads_search_while_another_process_ingests(tmp_path: Path) -> None:
    from hierdoc.pipeline.ingest import TextDocument

    directory = tmp_path / "index"
    with Index.open(directory, Settings(), embedder=HashEmbedder()) as first:
        first.ingest_texts([TextDocument("doc0.md", "# Clause 0\n\nThe escrow agent.")])
    reader = Index.open(directory, Settings(), embedder=HashEmbedder())
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(directory), str(TESTS), str(DOCUMENTS)]
    )
    errors: list[BaseException] = []
    searches = [0] * THREADS

    def search_until_done(slot: int) -> None:
        modes = ["hybrid", "keyword", "semantic", "exact"]
        while writer.poll() is None or searches[slot] < 5:
            try:
                mode = modes[searches[slot] % len(modes)]
                response = reader.search("escrow agent deposit", mode=mode, top_k=20)
                for result in response.results:
                    assert result.content and result.source.startswith("doc")
                    assert "escrow" in result.content.lower() or mode in ("semantic", "hybrid")
            except BaseException as error:  # noqa: BLE001 - collected and asserted below
                errors.append(error)
                return
            searches[slot] += 1

    threads = [threading.Thread(target=search_until_done, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert writer.wait(timeout=300) == 0
    assert not errors, errors[:3]
    assert all(count >= 5 for count in searches), searches
    print("searches per thread:", searches)
    final = reader.search("deposit", mode="keyword", top_k=100).results
    assert {r.source for r in final} == {f"doc{n}.md" for n in range(1, DOCUMENTS)}
    semantic = reader.search("escrow agent deposit", mode="semantic", top_k=100).results
    assert len(semantic) == DOCUMENTS
    reader.close()
