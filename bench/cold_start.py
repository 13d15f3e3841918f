"""Benchmark: cold start, the first statements of a fresh ``paimon-sql`` shell (issue 22).

    .venv/bin/python bench/cold_start.py                 # parquet, paimon append, paimon PK; 1 round
    .venv/bin/python bench/cold_start.py --repeat 3      # best and median of 3 fresh shells each
    .venv/bin/python bench/cold_start.py --shell OTHER/.venv/bin/paimon-sql --label before
                                                         # another checkout's shell (before/after)
    .venv/bin/python bench/cold_start.py --variant warm=spark.paimon_sql.warmup.enabled=true \
        --variant cold=spark.paimon_sql.warmup.enabled=false --pause 6
                                                         # this checkout with and without the
                                                         # background start of the Python workers,
                                                         # a user "typing" 6 s after CREATE TABLE

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
``--conf spark.sql.warehouse.dir`` in the round's folder) and runs without paimon_sql's background
start of Python workers (plain Spark's first statement). ``--pause S`` adds a statement that sleeps S
seconds after the CREATE TABLE (its time is reported as ``pause``). Not a test; prints one JSON
object.
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


PAUSE = "SELECT reflect('java.lang.Thread', 'sleep', CAST({ms} AS BIGINT))"


def steps(pause: float) -> list[str]:
    """The statements' names, in order (with ``pause``: the pause after the CREATE TABLE)."""
    return [STEPS[0], "pause", *STEPS[1:]] if pause > 0 else STEPS


def script(kind: str, pause: float = 0.0) -> str:
    t = "spark_catalog.default.t" if kind == "parquet" else "t"
    lines = [
        DDL[kind].format(t=t),
        *([PAUSE.format(ms=int(pause * 1000))] if pause > 0 else []),
        f"INSERT INTO {t} VALUES (1, 'a')",
        f"SELECT * FROM {t}",
        f"INSERT INTO {t} VALUES (2, 'b')",
        f"SELECT * FROM {t}",
    ]
    if kind != "parquet":
        lines.append("SELECT snapshot_id FROM `t$snapshots`")
    return ";\n".join(lines) + ";\n"


def run_once(kind: str, folder: str, master: str, shell: str = SHELL, pause: float = 0.0,
             confs: list[str] | None = None) -> dict[str, float]:
    """One fresh shell: the seconds of each statement (Spark's "Time taken") and of the run."""
    path = os.path.join(folder, f"{kind}.sql")
    with open(path, "w", encoding="utf-8") as f:
        f.write(script(kind, pause))
    cmd = [
        shell, "--warehouse", os.path.join(folder, "wh"), "--master", master,
        "--conf", f"spark.sql.warehouse.dir={os.path.join(folder, 'spark-wh')}", "-f", path,
    ]
    if kind == "parquet":  # the baseline is Spark without paimon_sql's Python workers
        cmd += ["--conf", "spark.paimon_sql.warmup.enabled=false"]
    for c in confs or []:
        cmd += ["--conf", c]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=folder, timeout=900)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"paimon-sql failed for {kind} (exit {out.returncode}):\n{out.stderr[-3000:]}")
    taken = [float(x) for x in TIME_TAKEN.findall(out.stderr)]
    result = dict(zip(steps(pause), taken, strict=False))
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
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds the script sleeps after CREATE TABLE (a user typing the next statement)")
    parser.add_argument("--variant", action="append", default=None, metavar="LABEL=KEY=VALUE[,KEY=VALUE]",
                        help="run this checkout's shell with these Spark settings, as a shell of its own "
                             "(repeatable, e.g. --variant warm=spark.paimon_sql.warmup.enabled=true --variant cold=spark.paimon_sql.warmup.enabled=false)")
    args = parser.parse_args(argv)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    shells = args.shell or [SHELL]
    labels = args.label or ([""] if not args.shell else shells)
    if len(labels) != len(shells):
        parser.error("give one --label per --shell")
    confs_of: list[list[str]] = [[] for _ in shells]
    if args.variant:
        if args.shell:
            parser.error("give --shell or --variant, not both")
        labels = [v.split("=", 1)[0] for v in args.variant]
        shells = [SHELL] * len(labels)
        confs_of = [[c for c in v.split("=", 1)[1].split(",") if c.count("=") == 1] if "=" in v else []
                    for v in args.variant]
    runs_of = [(f"{label}:{kind}" if label else kind, kind, shell, confs)
               for kind in kinds for label, shell, confs in zip(labels, shells, confs_of, strict=True)
               if not (kind == "parquet" and label != labels[0])]  # parquet needs no second shell
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name, _, _, _ in runs_of}
    for _ in range(args.repeat):
        for name, kind, shell, confs in runs_of:  # they take turns: a busy moment hits each alike
            with tempfile.TemporaryDirectory(prefix=f"cold-{kind}-") as folder:
                rounds[name].append(run_once(kind, folder, args.master, shell, args.pause, confs))
    report: dict[str, Any] = {"repeat": args.repeat, "master": args.master, "pause": args.pause, "kinds": {}}
    for kind, runs in rounds.items():
        keys = [k for k in [*steps(args.pause), "whole_run"] if all(k in r for r in runs)]
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
