"""How Spark's Python workers manage memory: the C allocator tuned once per worker for the engine's
column arrays, and the garbage collector kept off the engine's own long-lived objects
(``prepare_worker``, called at the start of every read, write and job task).

A merged read or a write allocates numpy arrays of one value per row (key codes, orders, masks:
megabytes each) and frees them a moment later, task after task in the same reused worker. glibc's
``malloc`` serves such blocks with fresh ``mmap`` pages and gives them back on ``free``, so every
array is paid again in page faults (a kernel entry and a zeroed page per 4 KiB: about a fifth of
the CPU of a merged ``SELECT sum(id)`` task, see docs/benchmarks.md). ``tune_worker_allocator``
raises glibc's mmap threshold (blocks up to ``MMAP_THRESHOLD`` come from the heap and are reused)
and its trim threshold (up to ``TRIM_THRESHOLD`` of free heap is kept for the next task), as
``MALLOC_MMAP_THRESHOLD_`` / ``MALLOC_TRIM_THRESHOLD_`` would at process start.

Only Spark's Python workers do it (processes Spark starts for tasks; never the driver's or a
user's own Python process), once per process, where the C library has ``mallopt`` (glibc; others
are left as they are). ``PAIMON_SQL_WORKER_MALLOC=default`` in the workers' environment
(``spark.executorEnv.PAIMON_SQL_WORKER_MALLOC``) keeps the allocator's defaults; ``tuned`` (or
unset) tunes it; any other value keeps the defaults and logs a warning naming the variable.

The garbage collector: pyspark's daemon runs a full ``gc.collect()`` after every task of a reused
worker, which walks every object the process holds: once the engine is imported, some 60,000
(modules, classes, functions), 10-20 ms of CPU per task, about a third of a merged ``SELECT
sum(id)`` task's own work. ``freeze_worker_heap`` moves the objects alive at a task's start into
the collector's permanent generation (``gc.freeze``) when modules were imported since the last
freeze (the first task, and a task that needed more of the engine), so the collection after each
task walks only what later tasks made. The daemon has just collected before a task starts, so
what is frozen is what the process keeps (imports, caches); reference counting still frees frozen
objects as usual; only a reference cycle among them would stay unreclaimed.
``PAIMON_SQL_WORKER_GC=default`` in the workers' environment keeps the collector as it is;
``freeze`` (or unset) freezes; any other value keeps it as it is and logs a warning.
"""

from __future__ import annotations

import ctypes
import gc
import logging
import os
import sys
import threading

_LOG = logging.getLogger(__name__)
ENV = "PAIMON_SQL_WORKER_MALLOC"
MMAP_THRESHOLD = 64 << 20
TRIM_THRESHOLD = 256 << 20
_M_TRIM_THRESHOLD = -1  # glibc's malloc.h
_M_MMAP_THRESHOLD = -3

GC_ENV = "PAIMON_SQL_WORKER_GC"

_lock = threading.Lock()
_done: list[bool] = []
_frozen_at: list[int] = [0]  # the number of modules at the last freeze
_gc_mode: list[bool] = []  # whether this process freezes (the environment, read once)


def prepare_worker() -> None:
    """What a task of Spark's Python workers does first: ``tune_worker_allocator`` and
    ``freeze_worker_heap``."""
    tune_worker_allocator()
    freeze_worker_heap()


def freeze_worker_heap() -> bool:
    """Freezes the objects this process holds out of the garbage collector's walks (see the
    module's doc) if modules were imported since the last freeze; whether it froze now."""
    with _lock:
        if not _gc_mode:
            _gc_mode.append(_gc_freezes())
        modules = len(sys.modules)
        if not _gc_mode[0] or modules <= _frozen_at[0]:
            return False
        _frozen_at[0] = modules
        gc.freeze()
        return True


def _gc_freezes() -> bool:
    mode = os.environ.get(GC_ENV, "freeze").strip().lower()
    if mode not in ("freeze", "default"):
        _LOG.warning("%s must be 'freeze' or 'default', got %r: the garbage collector is left as it is",
                     GC_ENV, os.environ.get(GC_ENV))
    return mode == "freeze"


def tune_worker_allocator() -> bool:
    """Tunes this process's allocator (see the module's doc) the first time it is called; whether
    it is tuned."""
    with _lock:
        if not _done:
            _done.append(_tune())
        return _done[0]


def _tune() -> bool:
    mode = os.environ.get(ENV, "tuned").strip().lower()
    if mode != "tuned":
        if mode != "default":
            _LOG.warning("%s must be 'tuned' or 'default', got %r: the allocator keeps its defaults",
                         ENV, os.environ.get(ENV))
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # mallopt returns 1 on success; musl's stub returns 0
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
