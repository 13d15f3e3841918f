"""The JSON-lines bridge between the JVM shim and the engine: ``python -m paimon_sql.spark.bridge``.

The shim starts one such process per JVM (on the Spark driver) and writes one request per line::

    {"id": 1, "method": "load_table", "params": {"warehouse": "...", "namespace": "db", "table": "t"}}

and reads one response line per request::

    {"id": 1, "result": {...}, "warnings": ["..."]}
    {"id": 1, "error": {"kind": "NoSuchTable", "message": "...", "traceback": null}}

Requests are handled one at a time. The process's real stdout carries only the protocol: anything
else written to stdout (a stray print, a native library) goes to stderr, which the JVM shows.
The process ends when its stdin closes.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from typing import IO, Any

from paimon_sql.spark.handlers import dispatch, dumps


def serve(requests: IO[str], responses: IO[str]) -> None:
    """Answers every request line of ``requests`` on ``responses`` until end of input."""
    for line in requests:
        if not line.strip():
            continue
        req_id: Any = None
        try:
            req = json.loads(line)
            req_id = req.get("id")
            method = req["method"]
            params = req.get("params") or {}
            if not isinstance(method, str) or not isinstance(params, dict):
                raise TypeError("'method' must be a string and 'params' an object")
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            resp: dict[str, Any] = {
                "error": {"kind": "Internal", "message": f"Bad bridge request {line.strip()[:200]!r}: {e}", "traceback": None}
            }
        else:
            resp = dispatch(method, params)
        resp["id"] = req_id
        responses.write(dumps(resp) + "\n")
        responses.flush()


def main() -> None:
    # keep the protocol channel for ourselves: fd 1 becomes stderr for everybody else
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    # the JVM closing the pipe or interrupting us is a normal end of the bridge
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        serve(sys.stdin, protocol)


if __name__ == "__main__":
    main()
