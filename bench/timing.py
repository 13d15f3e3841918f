"""The timing helper the micro-benchmarks share (run them as scripts: ``bench/`` is on the path)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best(fn: Callable[[], object], runs: int = 5) -> float:
    """The fastest of ``runs`` calls of ``fn``, in seconds."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)
