"""Two servers over one PostgreSQL, an ingest running and 32 clients at once; then one
server killed mid-request, the database restarted mid-ingest and every connection dropped.

Nothing may be lost or doubled, every call must be answered or fail with a clear error,
and both servers must recover. The figures of the run go to
``/tmp/hierdoc-deployment.json`` (or ``$HIERDOC_DEPLOYMENT_FIGURES``), the processes' logs
to the folder of the same name ending ``.logs``.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from hierdoc import Index, Settings
from hierdoc.faults import PAUSE_ENV
from tests.contract.test_store_postgres_server import PostgresServer, started_server
from tests.deployment.harness import (
    Load,
    Server,
    answered_after,
    child_env,
    first_success_after,
    hierdoc,
    marker,
    percentile,
    session_at,
    write_config,
    write_corpus,
)
from tests.hash_embedder import HashEmbedder

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

CLIENTS = 32
CALM_SECONDS = 10.0
SCHEMA = "deployment"
FIGURES = Path(os.environ.get("HIERDOC_DEPLOYMENT_FIGURES", "/tmp/hierdoc-deployment.json"))


@pytest.fixture
def database() -> Any:
    started = started_server()
    if isinstance(started, str):
        pytest.skip(started)
    yield started
    started.stop()


def test_two_servers_an_ingest_32_clients_and_faults(tmp_path: Path, database: PostgresServer):
    config = write_config(tmp_path, database.url, SCHEMA)
    index = tmp_path / "index"
    served = write_corpus(tmp_path / "first", range(0, 30))
    arriving = write_corpus(tmp_path / "second", range(100, 160))
    ingest_until_done(config, index, tmp_path / "first")
    servers = [Server(config, index, tmp_path / f"server-{n}.log") for n in range(2)]
    for server in servers:
        server.start()
    try:
        asyncio.run(warm(servers))
        load = Load(servers, served, CLIENTS)
        events = asyncio.run(scenario(load, servers, database, config, index, tmp_path))
        ingest_until_done(config, index, tmp_path / "second")
        final = asyncio.run(final_checks(servers, arriving))
    finally:
        for server in servers:
            server.stop()
        keep_logs(tmp_path)
    stored = stored_documents(database.url)
    expected = reference_chunks(tmp_path, [tmp_path / "first", tmp_path / "second"])
    figures = summarise(load, events, stored, expected, final)
    FIGURES.write_text(json.dumps(figures, indent=2))
    print(json.dumps(figures, indent=2))

    assert figures["documents"]["lost"] == [] and figures["documents"]["doubled"] == []
    assert figures["documents"]["wrong chunk counts"] == {}
    assert figures["documents"]["chunks without vectors"] == 0
    assert figures["calls"]["unanswered"] == 0, figures["unanswered examples"]
    assert figures["unclear errors"] == [], figures["unclear errors"]
    assert all(value < 60 for value in figures["recovery seconds"].values()), figures
    assert final["markers found"] == final["markers asked"]
    assert events["ingest exit code"] != 0  # it lost its writer lock mid-ingest: it stops
    assert figures["calls"]["ok"] > 10 * CLIENTS


def keep_logs(tmp_path: Path) -> None:
    """The servers' and the ingest's logs beside the figures, for a failed run's reader."""
    logs = FIGURES.with_suffix(".logs")
    logs.mkdir(parents=True, exist_ok=True)
    for log in tmp_path.glob("*.log"):
        shutil.copy(log, logs / log.name)


def ingest_until_done(config: Path, index: Path, folder: Path, tries: int = 5) -> list[int]:
    """Run ``hierdoc ingest`` as an operator would: again after a failure, until it exits 0."""
    codes = []
    for _ in range(tries):
        done = subprocess.run(
            hierdoc(config, index, "ingest", str(folder)),
            env=child_env(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        codes.append(done.returncode)
        if done.returncode == 0:
            return codes
    raise AssertionError(f"ingest kept failing: {codes}: {done.stderr[-2000:]}")


async def warm(servers: list[Server]) -> None:
    """Each server answers a search (its model loaded) before the clients start."""
    for server in servers:
        async with session_at(server.url) as session:
            await session.call_tool("search", {"query": "records"})


async def scenario(
    load: Load,
    servers: list[Server],
    database: PostgresServer,
    config: Path,
    index: Path,
    tmp_path: Path,
) -> dict[str, Any]:
    """The load with an ingest and the faults during it, then :data:`CALM_SECONDS` without
    faults; the moments (seconds since the load began) of each fault."""
    events: dict[str, Any] = {}
    clients = asyncio.create_task(load.run())
    ingest = subprocess.Popen(  # it stops itself before writing its 6th document
        hierdoc(config, index, "ingest", str(tmp_path / "second")),
        env={**child_env(), PAUSE_ENV: "before-write:6"},
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "ingest.log").open("w"),
    )
    await asyncio.sleep(6)
    events["server killed"] = load_time(load)
    killed = time.monotonic()
    await asyncio.to_thread(servers[0].kill)
    await asyncio.to_thread(servers[0].start)
    events["server restarted"] = load_time(load)
    events["killed server answers after (s)"] = await answered_after(servers[0], killed)
    await asyncio.to_thread(wait_until_stopped, ingest)
    events["documents before the database restart"] = document_count(database.url)
    events["database stopped"] = load_time(load)
    await asyncio.to_thread(database.halt, "immediate")
    await asyncio.sleep(2)
    await asyncio.to_thread(database.launch)
    events["database started"] = load_time(load)
    ingest.send_signal(signal.SIGCONT)  # mid-ingest, its writer lock gone with the restart
    await asyncio.sleep(3)
    events["connections dropped"] = load_time(load)
    events["connections ended"] = await asyncio.to_thread(drop_connections, database.url)
    events["ingest exit code"] = await asyncio.to_thread(ingest.wait, 600)
    await asyncio.sleep(CALM_SECONDS)
    load.stop.set()
    await clients
    events["load ended"] = load_time(load)
    return events


def load_time(load: Load) -> float:
    return round(time.monotonic() - load.origin, 2)


def wait_until_stopped(process: subprocess.Popen, seconds: float = 300) -> None:
    """Wait until ``process`` has stopped itself at its pause point (``HIERDOC_PAUSE_AT``)."""
    stat = Path(f"/proc/{process.pid}/stat")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, "the ingest ended before its pause point"
        if stat.read_text().rsplit(")", 1)[1].split()[0] == "T":
            return
        time.sleep(0.05)
    raise AssertionError("the ingest never reached its pause point")


def document_count(url: str) -> int:
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True) as conn:
            return conn.execute(f"SELECT count(*) FROM {SCHEMA}.documents").fetchone()[0]
    except psycopg.Error:
        return 0


def drop_connections(url: str) -> int:
    """End every other connection to the database, as a failover or a network cut does."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE pid <> pg_backend_pid() AND datname = current_database()"
        ).fetchall()
    return len(rows)


async def final_checks(servers: list[Server], arriving: list[str]) -> dict[str, int]:
    """After the faults, both servers find the documents the interrupted ingest brought."""
    asked = found = 0
    for number, server in enumerate(servers):
        async with session_at(server.url) as session:
            for source in arriving[number::6]:
                asked += 1
                result = await session.call_tool("search", {"query": marker(source)})
                top = (result.structuredContent or {}).get("results") or [{}]
                found += int(not result.isError and Path(top[0].get("source", "")).name == source)
    return {"markers asked": asked, "markers found": found}


def stored_documents(url: str) -> dict[str, Any]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        counts = dict(
            conn.execute(
                f"SELECT d.source, count(c.chunk_id) FROM {SCHEMA}.documents d "
                f"LEFT JOIN {SCHEMA}.chunks c ON c.source = d.source GROUP BY d.source"
            ).fetchall()
        )
        bare = conn.execute(
            f"SELECT count(*) FROM {SCHEMA}.chunks c WHERE NOT EXISTS "
            f"(SELECT 1 FROM {SCHEMA}.vectors v WHERE v.chunk_id = c.chunk_id)"
        ).fetchone()[0]
    return {"chunks": counts, "without vectors": bare}


def reference_chunks(tmp_path: Path, folders: list[Path]) -> dict[str, int]:
    """Chunks per document of a clean local ingest of the same folders."""
    with Index.open(tmp_path / "reference", Settings(), embedder=HashEmbedder()) as index:
        for folder in folders:
            index.ingest(folder)
        return {record.source: record.chunk_count for record in index.documents()}


def summarise(
    load: Load,
    events: dict[str, Any],
    stored: dict[str, Any],
    expected: dict[str, int],
    final: dict[str, int],
) -> dict[str, Any]:
    calls = load.calls
    outcomes = Counter(call.outcome for call in calls)
    killed = events["server killed"]
    in_flight = [
        call
        for call in calls
        if call.outcome == "timeout" and call.server == 0 and call.started <= killed <= call.ended
    ]
    unanswered = [call for call in calls if call.outcome == "timeout" and call not in in_flight]
    ok_seconds = [call.seconds * 1000 for call in calls if call.outcome == "ok"]
    errors = Counter(
        f"{call.outcome}: {call.detail[:90]}" for call in calls if call.outcome not in ("ok",)
    )
    held = stored["chunks"]
    return {
        "clients": load.clients,
        "events": events,
        "calls": {
            "total": len(calls),
            **outcomes,
            "unanswered": len(unanswered),
            "in flight on the killed server": len(in_flight),
        },
        "ok latency ms": {
            "p50": round(percentile(ok_seconds, 0.5), 1),
            "p99": round(percentile(ok_seconds, 0.99), 1),
        },
        "errors by kind": dict(errors.most_common(12)),
        "unclear errors": sorted(
            {
                call.detail
                for call in calls
                if call.outcome == "tool-error" and not clear(call.detail)
            }
        ),
        "unanswered examples": [vars(call) for call in unanswered[:5]],
        "recovery seconds": {
            "killed server answers again": events["killed server answers after (s)"],
            "after the database restart": first_success_after(calls, events["database started"]),
            "after connections dropped": first_success_after(calls, events["connections dropped"]),
        },
        "documents": {
            "expected": len(expected),
            "stored": len(held),
            "examples": sorted(held)[:2],
            "lost": sorted(set(expected) - set(held)),
            "doubled": sorted(set(held) - set(expected)),
            "wrong chunk counts": {
                source: [held[source], count]
                for source, count in expected.items()
                if source in held and held[source] != count
            },
            "chunks without vectors": stored["without vectors"],
        },
        "final": final,
    }


def clear(message: str) -> bool:
    """A tool error an agent can act on: one line naming the problem, no traceback."""
    return "Traceback" not in message and "\n" not in message.strip() and len(message) < 400
