"""How Spark's Python workers allocate: the C allocator tuned once per worker for the engine's
column arrays.

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
"""

from __future__ import annotations

import ctypes
import logging
import os
import threading

_LOG = logging.getLogger(__name__)
ENV = "PAIMON_SQL_WORKER_MALLOC"
MMAP_THRESHOLD = 64 << 20
TRIM_THRESHOLD = 256 << 20
_M_TRIM_THRESHOLD = -1  # glibc's malloc.h
_M_MMAP_THRESHOLD = -3

_lock = threading.Lock()
_done: list[bool] = []


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
