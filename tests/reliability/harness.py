"""What the reliability tests share: corpora with a unique marker per document, child
processes (from a fork server that has hierdoc imported, so a child costs milliseconds)
that ingest and may be killed, the consistency verdict on an index, and the figures.

Every child uses the hash embedder (tests/hash_embedder.py): what is tested here is
storage and recovery, not retrieval quality.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import resource
import shutil
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hierdoc import Index
from hierdoc.config import Settings
from hierdoc.errors import HierdocError
from hierdoc.store.local.bm25 import Bm25Index
from hierdoc.store.local.builds import live_data
from hierdoc.store.local.check import full_check
from hierdoc.store.local.store import RECORDS_FILE
from hierdoc.text.analyze import TEXT_ANALYZER
from tests.hash_embedder import HashEmbedder

FIGURES_FILE = Path(os.environ.get("HIERDOC_RELIABILITY_FIGURES", "/tmp/hierdoc-reliability.json"))
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["hierdoc.api", "tests.hash_embedder", "tests.reliability.harness"])

EXIT_OK, EXIT_ERROR, EXIT_BUG = 0, 3, 4
"""Child exit codes: done, a HierdocError (a clear error), anything else (a bug)."""


def marker(n: int) -> str:
    return f"zqmark{n:04d}"


def write_corpus(folder: Path, count: int, version: int = 0, start: int = 0) -> dict[str, str]:
    """``count`` documents of three sections each, document ``n`` holding ``marker(n)``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    for n in range(start, start + count):
        text = f"# Agreement {n}\n\n## Article 1\n\nThe {marker(n)} party pays fees v{version}.\n\n"
        text += "## Article 2\n\nNotices are given in writing within thirty days.\n\n"
        text += f"## Article 3\n\nLiability is capped at {n + version} euros per claim.\n"
        path = folder / f"doc{n:04d}.md"
        path.write_text(text)
        written[str(path)] = text
    return written


def open_index(directory: Path, mode: str | None = None, wait: bool = False) -> Index:
    return Index.open(directory, Settings(), embedder=HashEmbedder(), mode=mode, wait=wait)  # type: ignore[arg-type]


# -- children -----------------------------------------------------------------------------


def _child(
    directory: str, folders: list[str], env: dict[str, str], wait: bool, force: bool, out: Any
) -> None:
    os.environ.update(env)
    code, result = EXIT_OK, {}
    try:
        with open_index(Path(directory), "w" if wait else None, wait=wait) as index:
            report = index.ingest([Path(f) for f in folders], force=force)
        problems = [[p.source, p.reason] for p in report.problems]
        result = {"added": report.added, "problems": problems}
    except HierdocError as error:
        code, result = EXIT_ERROR, {"error": str(error)}
    except BaseException:  # noqa: BLE001 - reported to the test as a bug
        code, result = EXIT_BUG, {"error": traceback.format_exc()}
    result["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out.put(result)
    out.close()
    out.join_thread()
    os._exit(code)


@dataclass
class Child:
    """An ingest running in a child process."""

    process: Any
    queue: Any

    def wait(self, timeout: float = 300) -> tuple[int, dict[str, Any]]:
        """Exit code and what the child reported (empty when it crashed or was killed)."""
        deadline = time.monotonic() + timeout
        result: dict[str, Any] = {}
        while not result and time.monotonic() < deadline:
            try:
                result = self.queue.get(timeout=0.2)
            except queue.Empty:
                if not self.process.is_alive():
                    break
        self.process.join(max(1.0, deadline - time.monotonic()))
        return self.process.exitcode, result

    def kill(self) -> None:
        self.process.kill()


def start_ingest(
    directory: Path,
    folders: list[Path],
    env: dict[str, str] | None = None,
    wait: bool = False,
    force: bool = False,
) -> Child:
    """An ingest of ``folders`` in a child process (``force``: a rebuild, ``ingest --force``)."""
    queue = _CONTEXT.Queue()
    paths = [str(f) for f in folders]
    process = _CONTEXT.Process(
        target=_child, args=(str(directory), paths, env or {}, wait, force, queue)
    )
    process.start()
    return Child(process, queue)


def interrupted_ingest(
    directory: Path,
    folders: list[Path],
    env: dict[str, str],
    kill_after: float | None,
    force: bool = False,
) -> int:
    """The exit code of an ingest in a child that a crash point named in ``env`` ends, or
    a kill after ``kill_after`` seconds."""
    child = start_ingest(directory, folders, env, force=force)
    if kill_after is not None:
        time.sleep(kill_after)
        child.kill()
    return child.wait()[0]


def killed_wait(child: Child) -> int:
    """Wait for a child that is expected to die (no report)."""
    child.process.join(120)
    return child.process.exitcode


# -- verdicts -------------------------------------------------------------------------------


def _bm25_reader(path: Path) -> Bm25Index:
    return Bm25Index(path, TEXT_ANALYZER.version, read_only=True)


def check_report(directory: Path) -> list[str]:
    """What ``hierdoc check`` finds wrong with the index (empty: consistent)."""
    report = full_check(live_data(directory)[0], RECORDS_FILE, _bm25_reader)
    return [f"{f.part}: {f.problem}" for f in report.findings]


def stored_chunks(directory: Path) -> dict[str, tuple[str, str]]:
    """chunk id -> (source, content) from SQLite, through a reader."""
    with open_index(directory, "r") as index:
        store = index.store
        return {
            s.chunk.chunk_id: (s.chunk.source, s.chunk.content) for s in store.records.iter_chunks()
        }


def reference_chunks(folder_sets: list[Path], workdir: Path) -> dict[str, tuple[str, str]]:
    """The chunks of a clean, uninterrupted ingest of the same folders."""
    reference = workdir / "reference-index"
    shutil.rmtree(reference, ignore_errors=True)
    with open_index(reference) as index:
        index.ingest(folder_sets)
    chunks = stored_chunks(reference)
    shutil.rmtree(reference, ignore_errors=True)
    return chunks


def search_problems(directory: Path, markers: dict[str, str]) -> list[str]:
    """For each document (source -> marker) held by the index: its marker is found, by
    keyword and by semantic search, in that document's chunks only, without duplicates."""
    problems = []
    with open_index(directory, "r") as index:
        present = {d.source for d in index.documents()}
        for source, mark in markers.items():
            if source not in present:
                continue
            for mode, query in (("keyword", mark), ("exact", f'"{mark}"')):
                results = index.search(query, mode=mode, top_k=10).results
                ids = [r.chunk_id for r in results]
                if len(ids) != len(set(ids)):
                    problems.append(f"{mode} {mark}: duplicate results")
                if not results or {r.source for r in results} != {source}:
                    problems.append(f"{mode} {mark}: {sorted({r.source for r in results})}")
            semantic = index.search(mark, mode="semantic", top_k=10, source=source).results
            if not semantic or {r.source for r in semantic} != {source}:
                problems.append(f"semantic {mark}: the document's vectors are not found")
    return problems


# -- figures --------------------------------------------------------------------------------


@dataclass
class Figures:
    """Counts a test adds to the suite's figures file (merged across tests)."""

    name: str
    values: dict[str, Any] = field(default_factory=dict)

    def save(self) -> None:
        try:
            data = json.loads(FIGURES_FILE.read_text())
        except (OSError, ValueError):
            data = {}
        data[self.name] = self.values
        FIGURES_FILE.write_text(json.dumps(data, indent=2, sort_keys=True))
