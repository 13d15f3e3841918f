"""The JSON-lines bridge process (``python -m paimon_sql.spark.bridge``), without Spark."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import Any

from paimon_sql.spark.bridge import serve


def _exchange(proc: subprocess.Popen[str], req: dict[str, Any]) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(req) + "\n")
    proc.stdin.flush()
    line = proc.stdout.readline()
    resp: dict[str, Any] = json.loads(line)
    return resp


def test_bridge_process_answers_requests_in_order(tmp_path: Any) -> None:
    wh = str(tmp_path / "wh")
    proc = subprocess.Popen(
        [sys.executable, "-m", "paimon_sql.spark.bridge"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        r = _exchange(proc, {"id": 1, "method": "ping", "params": {}})
        assert r["id"] == 1 and r["result"]["pid"] == proc.pid
        r = _exchange(proc, {"id": 2, "method": "initialize", "params": {"warehouse": wh}})
        assert r["id"] == 2 and "result" in r
        r = _exchange(proc, {"id": 3, "method": "load_table", "params": {"warehouse": wh, "namespace": "default", "table": "x"}})
        assert r["id"] == 3 and r["error"]["kind"] == "NoSuchTable"
        r = _exchange(proc, {"id": 4, "method": "list_namespaces", "params": {"warehouse": wh}})
        assert r == {"id": 4, "result": {"namespaces": ["default"]}}
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0


def test_stray_prints_do_not_corrupt_the_protocol() -> None:
    code = (
        "import paimon_sql.spark.handlers as h\n"
        "def noisy(p):\n"
        "    print('noise on stdout')\n"
        "    import os; os.write(1, b'native noise\\n')\n"
        "    return {'fine': True}\n"
        "h.HANDLERS['ping'] = noisy\n"
        "from paimon_sql.spark.bridge import main\n"
        "main()\n"
    )
    req = json.dumps({"id": 7, "method": "ping", "params": {}}) + "\n"
    out = subprocess.run([sys.executable, "-c", code], input=req, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ['{"result":{"fine":true},"id":7}']
    assert "noise on stdout" in out.stderr and "native noise" in out.stderr


def test_bad_request_lines_get_an_error_and_serving_goes_on() -> None:
    requests = io.StringIO('not json\n\n{"id": 5, "params": {}}\n{"id": 6, "method": "ping"}\n')
    responses = io.StringIO()
    serve(requests, responses)
    lines = [json.loads(x) for x in responses.getvalue().splitlines()]
    assert len(lines) == 3
    assert lines[0]["id"] is None and lines[0]["error"]["kind"] == "Internal"
    assert lines[1]["id"] == 5 and "error" in lines[1]
    assert lines[2]["id"] == 6 and "pid" in lines[2]["result"]
