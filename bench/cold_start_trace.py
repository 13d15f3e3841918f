"""Trace of a cold ``paimon-sql`` shell: which Python processes start when (issue 22).

    .venv/bin/python bench/cold_start_trace.py                # paimon append table
    .venv/bin/python bench/cold_start_trace.py --kind pk      # primary-key table
    .venv/bin/python bench/cold_start_trace.py --kind parquet  # Spark's parquet table

Runs one fresh ``paimon-sql -f`` with the statements of ``bench/cold_start.py`` and
``--conf spark.pyspark.python=WRAPPER``, a shell script that logs the time and argv of every Python
process Spark (or the bridge) starts, then ``exec``s the real interpreter (so signals and exit codes
are the interpreter's own). Prints one JSON object: the process starts and each statement's "Time
taken" line, both in seconds since the shell was launched. Forked children of a Python daemon are not
new processes and do not appear: one line per daemon (one per worker module), the bridge, and any
non-daemon worker. Not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cold_start import SHELL, script  # noqa: E402


def trace(kind: str, shell: str, python: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="cold-trace-") as folder:
        log = os.path.join(folder, "starts.log")
        wrapper = os.path.join(folder, "python.sh")
        with open(wrapper, "w") as f:
            f.write(
                "#!/bin/bash\n"
                f'echo "$(date +%s.%N) $$ $*" >> {log}\n'
                f'exec {python} "$@"\n'
            )
        os.chmod(wrapper, 0o755)
        sql = os.path.join(folder, "script.sql")
        with open(sql, "w") as f:
            f.write(script(kind))
        cmd = [
            shell, "--warehouse", os.path.join(folder, "wh"), "--master", "local[2]", "-f", sql,
            "--conf", f"spark.pyspark.python={wrapper}",
            "--conf", f"spark.sql.warehouse.dir={os.path.join(folder, 'spark-wh')}",
        ]
        t0 = time.time()
        proc = subprocess.Popen(cmd, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        events: list[tuple[float, str]] = []
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("Time taken"):
                events.append((time.time() - t0, line.strip()))
        rc = proc.wait()
        starts: list[tuple[float, str]] = []
        if os.path.exists(log):
            with open(log) as f:
                for row in f:
                    ts, _pid, args = row.rstrip("\n").split(" ", 2)
                    starts.append((float(ts) - t0, args))
    return {
        "kind": kind,
        "rc": rc,
        "statements": [[round(t, 2), s] for t, s in events],
        "python_starts": [[round(t, 2), a] for t, a in starts],
        "wall_s": round(time.time() - t0, 2),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kind", choices=["parquet", "append", "pk"], default="append")
    p.add_argument("--shell", default=SHELL)
    p.add_argument("--python", default=sys.executable,
                   help="the interpreter the wrapper runs (that of the shell's checkout)")
    a = p.parse_args()
    print(json.dumps(trace(a.kind, a.shell, a.python), indent=1))


if __name__ == "__main__":
    main()
