"""When a ``TableWrite`` compacts the buckets it wrote."""

from __future__ import annotations

from enum import Enum

from paimon_sql.errors import ValidationError


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

    @classmethod
    def of(cls, value: CompactionPolicy | str) -> CompactionPolicy:
        """The policy itself or its name (``"sync"`` / ``"defer"``, any case); anything else is a
        ValidationError naming the ``compaction`` argument."""
        if isinstance(value, CompactionPolicy):
            return value
        if isinstance(value, str):
            for policy in cls:
                if policy.value == value.strip().lower():
                    return policy
        names = ", ".join(repr(p.value) for p in cls)
        raise ValidationError(f"compaction: expected a CompactionPolicy or one of {names}, got {value!r}")

