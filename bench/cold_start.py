"""Benchmark: cold start, the first statements of a fresh ``paimon-sql`` shell (issue 22).

    .venv/bin/python bench/cold_start.py                 # parquet, paimon append, paimon PK; 1 round
    .venv/bin/python bench/cold_start.py --repeat 3      # best and median of 3 fresh shells each
    .venv/bin/python bench/cold_start.py --shell OTHER/.venv/bin/paimon-sql --label before
                                                         # another checkout's shell (before/after)

Each round runs one fresh ``paimon-sql -f script.sql`` per table kind (a new JVM, new Python
workers, a new bridge process) on a new warehouse, with the same statements:

    CREATE TABLE t (id BIGINT, v STRING) ...     -- USING parquet / an append table / a PK table
    INSERT INTO t VALUES (1, 'a')                -- the first write of the shell
    SELECT * FROM t                              -- the first read
    INSERT INTO t VALUES (2, 'b')
    SELECT * FROM t
    SELECT snapshot_id FROM `t$snapshots`        -- the first system-table query (paimon only)

and reports Spark's own "Time taken" line of each statement and the wall time of the whole shell
run. The parquet table lives in Spark's in-memory session catalog (``spark_catalog.default.t``,
``--conf spark.sql.warehouse.dir`` in the round's folder). Not a test; prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHELL = os.path.join(os.path.dirname(sys.executable), "paimon-sql")

STEPS = ["create", "insert_1", "select_1", "insert_2", "select_2", "system_table"]
TIME_TAKEN = re.compile(r"^Time taken: ([0-9.]+) seconds", re.M)

DDL = {
    "parquet": "CREATE TABLE {t} (id BIGINT, v STRING) USING parquet",
    "append": "CREATE TABLE {t} (id BIGINT, v STRING)",
    "pk": "CREATE TABLE {t} (id BIGINT, v STRING) TBLPROPERTIES ('primary-key' = 'id', 'bucket' = '1')",
}


def script(kind: str) -> str:
    t = "spark_catalog.default.t" if kind == "parquet" else "t"
    lines = [
        DDL[kind].format(t=t),
        f"INSERT INTO {t} VALUES (1, 'a')",
        f"SELECT * FROM {t}",
        f"INSERT INTO {t} VALUES (2, 'b')",
        f"SELECT * FROM {t}",
    ]
    if kind != "parquet":
        lines.append("SELECT snapshot_id FROM `t$snapshots`")
    return ";\n".join(lines) + ";\n"


def run_once(kind: str, folder: str, master: str, shell: str = SHELL) -> dict[str, float]:
    """One fresh shell: the seconds of each statement (Spark's "Time taken") and of the run."""
    path = os.path.join(folder, f"{kind}.sql")
    with open(path, "w", encoding="utf-8") as f:
        f.write(script(kind))
    cmd = [
        shell, "--warehouse", os.path.join(folder, "wh"), "--master", master,
        "--conf", f"spark.sql.warehouse.dir={os.path.join(folder, 'spark-wh')}", "-f", path,
    ]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=folder, timeout=900)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"paimon-sql failed for {kind} (exit {out.returncode}):\n{out.stderr[-3000:]}")
    taken = [float(x) for x in TIME_TAKEN.findall(out.stderr)]
    result = dict(zip(STEPS, taken, strict=False))
    result["whole_run"] = round(wall, 2)
    return result


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1, help="fresh shells per table kind (default 1)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--kinds", default="parquet,append,pk")
    parser.add_argument("--shell", action="append", default=None,
                        help="a paimon-sql to run (repeatable: the shells take turns); default this checkout's")
    parser.add_argument("--label", action="append", default=None, help="a name per --shell (default: its path)")
    args = parser.parse_args(argv)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    shells = args.shell or [SHELL]
    labels = args.label or ([""] if not args.shell else shells)
    if len(labels) != len(shells):
        parser.error("give one --label per --shell")
    runs_of = [(f"{label}:{kind}" if label else kind, kind, shell)
               for kind in kinds for label, shell in zip(labels, shells, strict=True)
               if not (kind == "parquet" and shell != shells[0])]  # parquet needs no second shell
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in runs_of}
    for _ in range(args.repeat):
        for name, kind, shell in runs_of:  # they take turns: a busy moment of the machine hits each alike
            with tempfile.TemporaryDirectory(prefix=f"cold-{kind}-") as folder:
                rounds[name].append(run_once(kind, folder, args.master, shell))
    report: dict[str, Any] = {"repeat": args.repeat, "master": args.master, "kinds": {}}
    for kind, runs in rounds.items():
        keys = [k for k in [*STEPS, "whole_run"] if all(k in r for r in runs)]
        report["kinds"][kind] = {
            k: {"best": min(r[k] for r in runs), "median": round(statistics.median(r[k] for r in runs), 3)}
            for k in keys
        }
    base_name = next((n for n in report["kinds"] if n.split(":")[-1] == "parquet"), None)
    if base_name is not None:
        base = report["kinds"][base_name]
        report["first_insert_minus_parquet"] = {
            kind: round(v["insert_1"]["median"] - base["insert_1"]["median"], 3)
            for kind, v in report["kinds"].items() if kind != base_name and "insert_1" in v and "insert_1" in base
        }
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
