"""The distributed path: a Spark standalone cluster on 127.0.0.1 (one master, two workers, each a
separate process); reads, writes and a streaming read run in the executors' Python workers."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

pyspark = pytest.importorskip("pyspark")
SPARK_HOME = os.path.dirname(pyspark.__file__)
HERE = Path(__file__).resolve().parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, timeout: float = 90) -> None:
    end = time.time() + timeout
    while time.time() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, installed_wheel):  # type: ignore[no-untyped-def]
    # the executors' Python is a virtualenv holding only the built wheel (no source tree)
    env = dict(os.environ, SPARK_HOME=SPARK_HOME, SPARK_LOCAL_IP="127.0.0.1",
               PYSPARK_PYTHON=str(installed_wheel), SPARK_NO_DAEMONIZE="1")
    env.pop("PYTHONPATH", None)
    logs = tmp_path_factory.mktemp("cluster-logs")
    port, ui = _free_port(), _free_port()
    spark_class = os.path.join(SPARK_HOME, "bin", "spark-class")
    procs = [subprocess.Popen(
        [spark_class, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
         "--port", str(port), "--webui-port", str(ui)],
        env=env, stdout=open(logs / "master.log", "w"), stderr=subprocess.STDOUT)]
    try:
        _wait_port(port)
        url = f"spark://127.0.0.1:{port}"
        for i in range(2):
            procs.append(subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1",
                 "--cores", "1", "--memory", "1g", "--webui-port", str(_free_port()),
                 "--work-dir", str(logs / f"work{i}")],
                env=env, stdout=open(logs / f"worker{i}.log", "w"), stderr=subprocess.STDOUT))
        yield url, procs, logs
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()


def test_reads_and_writes_on_a_standalone_cluster(cluster, installed_wheel, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The driver and the executors run paimon_sql installed from its wheel, not the source tree."""
    url, procs, logs = cluster
    warehouse = tmp_path / "warehouse"
    env = dict(os.environ, PYSPARK_PYTHON=str(installed_wheel), SPARK_LOCAL_IP="127.0.0.1")
    env.pop("PYTHONPATH", None)
    run = subprocess.run([str(installed_wheel), str(HERE / "cluster_job.py"), url, str(warehouse)],
                         env=env, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    lines = [ln for ln in run.stdout.splitlines() if ln.startswith("RESULT ")]
    assert run.returncode == 0 and lines, f"job failed:\n{run.stdout[-3000:]}\n{run.stderr[-6000:]}"
    out = json.loads(lines[-1][len("RESULT "):])
    assert out["executors"] == 2
    # the driver's and the Python workers' paimon_sql is the installed wheel's
    assert all("/site-packages/" in f for f in out["engine_files"]), out["engine_files"]
    assert out["pk_count"] == 20000
    assert out["pk_new"] == 10000
    assert out["pk_v1"] == 0
    assert out["ap_sum"] == sum(range(10000))
    assert out["ap_sum_python"] == sum(range(10000))
    # the primary-key table's two commits overlap (merged in Python workers); the append table's
    # files are read by the executors' parquet reader
    assert out["paths"] == {"db.pk": "python", "db.ap": "native"}
    assert out["snapshots"] == [1, 2]
    # CALL sys.compact ran one Spark task per bucket (3 partitions x 4 buckets) and committed once
    assert out["compact_result"] == [[True]]
    assert out["compact_tasks"] == 12
    assert out["compact_kind"] == "COMPACT"
    assert out["pk_files_after"] == 12
    assert (out["pk_count_after"], out["pk_new_after"]) == (20000, 10000)
    # cross-partition upsert: every moved key left its old partition (6000 keys, one copy each)
    assert out["xp"] == [["moved", 3000, 3000], ["old", 3000, 0]]
    # row-level DML ran in the executors: 2000 merged keys (1000 updated, 1000 inserted), 90 updated
    # and 1000 deleted rows of the append table, each statement one snapshot
    assert out["dml"] == [[["merged", 2000], ["new", 9500]], [[9000, 90, 8999]],
                          ["APPEND", "OVERWRITE", "OVERWRITE"]]
    # a streaming read (AvailableNow, two files a batch) of the append table after the DML (9000
    # rows), then, restarted from its checkpoint, of the one row inserted since
    total = sum(range(9000))
    assert out["stream"] == [[9000, total], [9001, total + 100000, 1]]
    # the Python work ran in the workers' processes, not in the driver
    assert out["driver_pid"] not in out["worker_pids"]
    worker_jvms = {p.pid for p in procs[1:]}
    assert worker_jvms  # two worker JVMs were started as separate processes
    # data files were written by the executors into the shared warehouse
    assert any(warehouse.rglob("data-*.parquet"))
