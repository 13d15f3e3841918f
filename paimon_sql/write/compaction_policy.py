"""When a ``TableWrite`` compacts the buckets it wrote."""

from __future__ import annotations

from enum import Enum


class CompactionPolicy(Enum):
    """What ``TableWrite.prepare_commit`` does with the primary-key buckets written.

    ``SYNC`` (the default): compacts them and waits, as Paimon's batch writer does
    (``prepareCommit(waitCompaction=true)``; every bucket fully with ``full-compaction.delta-commits``
    > 0). ``DEFER``: writes only; no compaction at prepare-commit (Paimon's streaming
    ``prepareCommit(waitCompaction=false)`` without the background compaction), for a caller that
    must not stall, e.g. a streaming micro-batch that leaves compaction to a later ``compact``
    call. Under both, a bucket that reaches ``num-sorted-run.stop-trigger`` while the write runs is
    compacted then, as Paimon's writer waits for its compaction at that trigger."""

    SYNC = "sync"
    DEFER = "defer"
