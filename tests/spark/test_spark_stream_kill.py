"""A streaming read killed mid-run (SIGKILL of the driver process) and restarted from its
checkpoint loses no row and duplicates none (a Paimon table streamed into Spark's parquet sink,
whose commit log makes its output exactly-once given a replayable source)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow as pa
import pytest

pytestmark = pytest.mark.slow

CHILD = r'''
import json, sys
from paimon_sql.spark import session
wh, out, cp, mode = sys.argv[1:5]
spark = session(warehouse=wh, master="local[2]", **{"spark.ui.enabled": "false",
                "spark.sql.shuffle.partitions": "1"})
spark.sparkContext.setLogLevel("FATAL")
df = (spark.readStream.format("paimon").option("read.stream.maxFilesPerTrigger", "1")
      .load(wh + "/db.db/t"))
w = df.writeStream.format("parquet").option("path", out).option("checkpointLocation", cp)
if mode == "run":
    q = w.start()
    print("started", flush=True)
    q.awaitTermination()
else:
    w.trigger(availableNow=True).start().awaitTermination()
    rows = sorted(tuple(r) for r in spark.read.parquet(out).collect())
    print("ROWS " + json.dumps(rows), flush=True)
'''


def test_stream_read_killed_and_restarted(tmp_path: Path) -> None:
    from paimon_sql import Catalog

    wh = str(tmp_path / "wh")
    cat = Catalog(wh)
    cat.create_database("db")
    schema = pa.schema([pa.field("a", pa.int32(), False), ("b", pa.string())])
    t = cat.create_table("db.t", schema, primary_keys=["a"], options={"bucket": "2"})
    expected = []
    for n in range(30):
        ids = list(range(10 * n, 10 * n + 10))
        t.write(pa.table({"a": pa.array(ids, pa.int32()), "b": [f"v_{i}" for i in ids]}, schema=schema))
        expected += [[i, f"v_{i}"] for i in ids]
    out, cp = str(tmp_path / "out"), str(tmp_path / "cp")
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    child = subprocess.Popen([sys.executable, str(script), wh, out, cp, "run"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 300
        # kill it once a few batches committed (the full phase reads 2 splits, one per batch)
        while time.time() < deadline:
            done = os.path.isdir(f"{cp}/commits") and len(os.listdir(f"{cp}/commits")) >= 4
            if done or child.poll() is not None:
                break
            time.sleep(0.2)
        assert child.poll() is None, "the streaming query ended before it was killed"
        assert done, "no batch committed in time"
    finally:
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    # more data while it is down
    ids = list(range(1000, 1010))
    t.write(pa.table({"a": pa.array(ids, pa.int32()), "b": [f"v_{i}" for i in ids]}, schema=schema))
    expected += [[i, f"v_{i}"] for i in ids]
    res = subprocess.run([sys.executable, str(script), wh, out, cp, "verify"], env=env, capture_output=True,
                         text=True, timeout=600)
    line = [x for x in res.stdout.splitlines() if x.startswith("ROWS ")]
    assert line, res.stderr[-3000:]
    rows = json.loads(line[0][5:])
    assert rows == sorted(expected)  # every row once: none lost, none duplicated
