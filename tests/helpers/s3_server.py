"""moto's standalone S3 server on 127.0.0.1 for the object-store tests (``pip install
"moto[server]"``, in the ``test`` extra): one server per test session, one new bucket per test.
Import ``s3_server_fixture`` / ``s3_warehouse_fixture`` into a test module for the fixtures
``s3_server`` / ``s3_warehouse``.
Each request the server answers is one line of its log (``requests()`` counts them by method)."""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ACCESS_KEY = "testing-access"
SECRET_KEY = "testing-secret"
# a request line of moto's (werkzeug's) log; the method may be wrapped in ANSI colour codes
_REQUEST = re.compile(r'"(?:\x1b\[[0-9;]*m)*(GET|PUT|POST|HEAD|DELETE) ([^ ]*) HTTP/')


@dataclass
class S3Server:
    endpoint: str
    log: Path

    def options(self) -> dict[str, str]:
        """The catalog options of a warehouse on this server (Paimon's names)."""
        return {"s3.endpoint": self.endpoint, "s3.access-key": ACCESS_KEY, "s3.secret-key": SECRET_KEY,
                "s3.path.style.access": "true", "s3.region": "us-east-1"}

    def client(self):  # type: ignore[no-untyped-def]
        import botocore.session

        return botocore.session.get_session().create_client(
            "s3", endpoint_url=self.endpoint, aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
            region_name="us-east-1")

    def new_bucket(self) -> str:
        name = f"b-{uuid.uuid4().hex[:16]}"
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str) -> list[str]:
        out: list[str] = []
        for page in self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket):
            out += [o["Key"] for o in page.get("Contents", [])]
        return out

    def lost_puts(self, bucket: str, key_pattern: str) -> int:
        """Conditional PUTs the server refused (412) on keys of ``bucket`` matching ``key_pattern``."""
        line = re.compile(r'PUT /' + re.escape(bucket) + r'/(' + key_pattern + r') HTTP/[^"]*" 412')
        return len(line.findall(self.log.read_text(errors="replace")))

    def requests(self) -> Counter[str]:
        """Requests answered so far, by method (GET counts listings and reads, PUT writes)."""
        return Counter(m.group(1) for m in _REQUEST.finditer(self.log.read_text(errors="replace")))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def running_s3_server(folder: Path, authenticate: bool = False) -> Iterator[S3Server]:
    """``authenticate``: moto checks every request's credentials (no IAM user exists, so every key
    pair is refused, as a store refuses wrong credentials)."""
    try:
        import botocore  # noqa: F401
        import moto.server  # noqa: F401
    except ImportError as e:
        pytest.skip(f"moto[server] is not installed ({e}): pip install 'moto[server]'")
    port = _free_port()
    log = folder / "moto.log"
    env = {**os.environ, **({"INITIAL_NO_AUTH_ACTION_COUNT": "0"} if authenticate else {})}
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.skip(f"moto's S3 server did not start: {log.read_text(errors='replace')[-500:]}")
            time.sleep(0.2)
        yield S3Server(f"http://127.0.0.1:{port}", log)
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)


@pytest.fixture(scope="session", name="s3_server")
def s3_server_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    with running_s3_server(tmp_path_factory.mktemp("s3")) as server:
        yield server


@dataclass
class S3Warehouse:
    server: S3Server
    bucket: str
    uri: str
    options: dict[str, str]


@pytest.fixture(name="s3_warehouse")
def s3_warehouse_fixture(s3_server: S3Server) -> S3Warehouse:
    bucket = s3_server.new_bucket()
    return S3Warehouse(s3_server, bucket, f"s3://{bucket}/warehouse", s3_server.options())
