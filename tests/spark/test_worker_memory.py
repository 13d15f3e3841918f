"""Spark's Python workers tune glibc's allocator once (``paimon_sql.spark.worker_memory``): blocks of
a few megabytes, freed and allocated again task after task, come from the heap instead of fresh
pages. Each case runs in a process of its own (the tuning is for the life of a process)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

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
