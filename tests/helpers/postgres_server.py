"""A private PostgreSQL server on 127.0.0.1 for the JDBC catalog tests: one per test session, in a
temp folder, on a free port, with password authentication (scram-sha-256). Each test gets a new
database (``new_database()``). Import ``postgres_server_fixture`` into a test module for the
fixture ``postgres_server``; it skips, saying why, when the PostgreSQL binaries are absent.

The binaries are looked up on PATH, in /usr/local/bin and in /usr/lib/postgresql/*/bin. PostgreSQL
refuses to run as root: as root, the server runs as the user ``postgres`` (``runuser``)."""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

USER = "paimon"
PASSWORD = "paimon-secret"


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for d in ["/usr/local/bin", *sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]:
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PostgresServer:
    port: int
    root: Path

    def uri(self, database: str = "postgres") -> str:
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{database}"

    def options(self, database: str) -> dict[str, str]:
        """The JDBC catalog's options for ``database`` on this server."""
        return {"metastore": "jdbc", "uri": self.uri(database), "jdbc.user": USER, "jdbc.password": PASSWORD}

    def connect(self, database: str = "postgres"):  # type: ignore[no-untyped-def]
        import pg8000.dbapi

        conn = pg8000.dbapi.connect(user=USER, password=PASSWORD, host="127.0.0.1", port=self.port,
                                    database=database)
        conn.autocommit = True
        return conn

    def new_database(self) -> str:
        name = f"db_{uuid.uuid4().hex[:12]}"
        conn = self.connect()
        try:
            conn.cursor().execute(f"CREATE DATABASE {name}")
        finally:
            conn.close()
        return name

    def rows(self, database: str, sql: str) -> list[tuple]:  # type: ignore[type-arg]
        conn = self.connect(database)
        try:
            cur = conn.cursor()
            cur.execute(sql)
            return [tuple(r) for r in cur.fetchall()]
        finally:
            conn.close()


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


@contextlib.contextmanager
def running_postgres(tmp: Path) -> Iterator[PostgresServer]:
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found on PATH, /usr/local/bin or "
                    "/usr/lib/postgresql/*/bin")
    try:
        import pg8000  # noqa: F401
    except ImportError:
        pytest.skip("the PostgreSQL driver pg8000 is not installed (pip install 'paimon-sql[postgres]')")
    data, pwfile, sock = tmp / "data", tmp / "pw", tmp / "sock"
    sock.mkdir(exist_ok=True)
    pwfile.write_text(PASSWORD + "\n")
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres")
        shutil.chown(pwfile, "postgres")
        shutil.chown(sock, "postgres")
    subprocess.run(_as_server_user([initdb, "-D", str(data), "-U", USER, "--pwfile", str(pwfile),
                                    "--auth=scram-sha-256", "-E", "UTF8", "--no-sync"]),
                   check=True, capture_output=True, timeout=120)
    port = _free_port()
    opts = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={sock} -c fsync=off"
    log = tmp / "server.log"
    if os.geteuid() == 0:
        log.touch()
        shutil.chown(log, "postgres")
    subprocess.run(_as_server_user([pg_ctl, "-D", str(data), "-l", str(log), "-o", opts, "-w", "-t", "60",
                                    "start"]), check=True, capture_output=True, timeout=90)
    server = PostgresServer(port, tmp)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                server.connect().close()
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield server
    finally:
        subprocess.run(_as_server_user([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"]),
                       capture_output=True, timeout=60)


@pytest.fixture(scope="session", name="postgres_server")
def postgres_server_fixture() -> Iterator[PostgresServer]:
    # not under pytest's temp folder: that one is private to this user, the server's user cannot enter it
    tmp = Path(tempfile.mkdtemp(prefix="paimon-pg-"))
    try:
        with running_postgres(tmp) as server:
            yield server
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
