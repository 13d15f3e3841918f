"""Spark's Python workers tune glibc's allocator once (``paimon_sql.spark.worker_memory``): blocks of
a few megabytes, freed and allocated again task after task, come from the heap instead of fresh
pages; and they keep the garbage collector's walk after each task off the objects the engine's
imports made. Each case runs in a process of its own (both last for the life of a process)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from typing import cast

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBE = """
import resource, sys
import numpy as np
from paimon_sql.spark.worker_memory import tune_worker_allocator
tuned = False
if sys.argv[1] == "tune":
    tuned = tune_worker_allocator()
    assert tune_worker_allocator() == tuned  # once per process: the same answer again
def churn():
    for _ in range(5):  # a task's arrays: 1 MB each, 40 alive at once, then freed
        arrays = [np.empty(131_072, dtype=np.int64) for _ in range(40)]
        for a in arrays:
            a.fill(1)
        del arrays
churn()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
churn()
print(tuned, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""

glibc = pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc",
                           reason="the tuning is glibc's mallopt")


def _probe(mode: str, env: dict[str, str] | None = None) -> tuple[bool, int]:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": ROOT, **(env or {})}).stdout.split()
    return out[0] == "True", int(out[1])


@glibc
def test_a_tuned_worker_reuses_freed_blocks() -> None:
    tuned, faults = _probe("tune")
    assert tuned
    untuned, faults_default = _probe("none")
    assert not untuned
    # 200 blocks of 256 pages each: a page fault per page untuned, next to none tuned
    assert faults_default > 5_000
    assert faults < 500


@glibc
def test_the_environment_keeps_the_allocators_defaults() -> None:
    tuned, faults = _probe("tune", {"PAIMON_SQL_WORKER_MALLOC": "default"})
    assert not tuned
    assert faults > 5_000
    assert _probe("tune", {"PAIMON_SQL_WORKER_MALLOC": " Tuned "})[0]


def test_a_malformed_setting_is_named_and_keeps_the_defaults(caplog: pytest.LogCaptureFixture) -> None:
    from paimon_sql.spark import worker_memory

    with pytest.MonkeyPatch.context() as m, caplog.at_level("WARNING"):
        m.setenv("PAIMON_SQL_WORKER_MALLOC", "defualt")
        assert worker_memory._tune() is False  # this process's allocator is left alone
    assert "PAIMON_SQL_WORKER_MALLOC must be 'tuned' or 'default', got 'defualt'" in caplog.text


GC_PROBE = """
import gc, json, sys, time
from paimon_sql.spark.worker_memory import freeze_worker_heap, prepare_worker
import paimon_sql.spark.reader  # what a read task's worker holds
def collect_ms():  # pyspark's daemon: gc.collect() after every task of a reused worker
    best = None
    for _ in range(3):
        t0 = time.perf_counter(); gc.collect(); t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    return best * 1000
out = {"before": collect_ms(), "held": len(gc.get_objects())}
prepare_worker()  # task 1
out["frozen"] = gc.get_freeze_count()
out["walked"] = len(gc.get_objects())
out["after"] = collect_ms()
out["again"] = freeze_worker_heap()  # task 2, nothing imported since: nothing to freeze
import paimon_sql.lsm.merge_runs, paimon_sql.scan.table_scan, email.mime.text  # task 2 imported more
out["more"] = freeze_worker_heap()  # task 3
out["frozen_more"] = gc.get_freeze_count()
class Node:
    other: object = None
a, b = Node(), Node()
a.other, b.other = b, a  # a cycle made after the freeze
del a, b
out["cycle_collected"] = gc.collect() >= 2
print(json.dumps(out))
"""


def _gc_probe(env: dict[str, str] | None = None) -> dict[str, object]:
    import json

    out = subprocess.run([sys.executable, "-c", GC_PROBE], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": ROOT, **(env or {})}).stdout
    return cast(dict[str, object], json.loads(out))


def test_a_worker_freezes_what_its_imports_made_out_of_the_collectors_walks() -> None:
    got = _gc_probe()
    held = cast(int, got["held"])
    assert held > 20_000  # the engine's modules, classes and functions
    assert cast(int, got["frozen"]) >= held
    assert cast(int, got["walked"]) < 1_000  # what a full collection still walks
    # a collection after a task walks only what later tasks made: a small part of the time
    assert cast(float, got["after"]) < cast(float, got["before"]) / 5
    assert got["again"] is False
    assert got["more"] is True and cast(int, got["frozen_more"]) > cast(int, got["frozen"])
    assert got["cycle_collected"] is True  # garbage made by tasks is still collected


def test_the_environment_keeps_the_collector_as_it_is(caplog: pytest.LogCaptureFixture) -> None:
    got = _gc_probe({"PAIMON_SQL_WORKER_GC": "default"})
    assert got["frozen"] == 0 and got["more"] is False
    assert _gc_probe({"PAIMON_SQL_WORKER_GC": " Freeze "})["more"] is True
    from paimon_sql.spark import worker_memory

    with pytest.MonkeyPatch.context() as m, caplog.at_level("WARNING"):
        m.setenv("PAIMON_SQL_WORKER_GC", "off")
        assert worker_memory._gc_freezes() is False  # this process's collector is left alone
    assert "PAIMON_SQL_WORKER_GC must be 'freeze' or 'default', got 'off'" in caplog.text
