"""Options of writing: write buffers, compaction triggers, commits and their retries, overwrites."""

from __future__ import annotations

from typing import Any

from paimon_sql.options.option import Family, Option, at_least, kept
from paimon_sql.options.parsing import (
    BOOL,
    DOUBLE,
    DURATION,
    INT,
    LONG,
    LONG_MAX,
    MEMORY,
    STRING,
    enum,
)

WRITE_BUFFER_SIZE: Option[int] = Option(
    "write-buffer-size",
    MEMORY,
    "256 mb",
    "Memory a writer buffers before it sorts and flushes a sorted run.",
    check=at_least(1),
)

PAGE_SIZE: Option[int] = Option(
    "page-size",
    MEMORY,
    "64 kb",
    "Size of one memory page of the write buffer.",
    check=at_least(1),
)

WRITE_ONLY: Option[bool] = Option(
    "write-only",
    BOOL,
    "false",
    "Skip compaction and snapshot expiration in writers (for a separate compaction job).",
    fallback_keys=("write.compaction-skip",),
)

NUM_SORTED_RUN_COMPACTION_TRIGGER: Option[int] = Option(
    "num-sorted-run.compaction-trigger",
    INT,
    "5",
    "Number of sorted runs (each level-0 file, each higher level) that triggers a compaction.",
    check=at_least(1),
)

NUM_SORTED_RUN_STOP_TRIGGER: Option[int | None] = Option(
    "num-sorted-run.stop-trigger",
    INT,
    None,
    "Number of sorted runs at which writes wait for compaction; default: compaction trigger + 3.",
)

NUM_LEVELS: Option[int | None] = Option(
    "num-levels",
    INT,
    None,
    "Number of LSM levels; default: compaction trigger + 1.",
    check=at_least(1),
)

COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT: Option[int] = Option(
    "compaction.max-size-amplification-percent",
    INT,
    "200",
    "Full compaction is picked when the runs above the oldest exceed this percentage of its size.",
)

COMPACTION_SIZE_RATIO: Option[int] = Option(
    "compaction.size-ratio",
    INT,
    "1",
    "Percentage slack when grouping sorted runs of similar size for a compaction.",
)

def _hour_or_off(v: int) -> str | None:
    return None if v == -1 or 0 <= v <= 23 else "expected an hour between 0 and 23, or -1 (off)"


COMPACTION_OFFPEAK_START_HOUR: Option[int] = Option(
    "compaction.offpeak.start.hour",
    INT,
    "-1",
    "First hour (0-23, local time) of the off-peak hours; -1 disables them.",
    check=_hour_or_off,
)

COMPACTION_OFFPEAK_END_HOUR: Option[int] = Option(
    "compaction.offpeak.end.hour",
    INT,
    "-1",
    "End hour (0-23, exclusive, local time) of the off-peak hours; -1 disables them.",
    check=_hour_or_off,
)

COMPACTION_OFFPEAK_RATIO: Option[int] = Option(
    "compaction.offpeak-ratio",
    INT,
    "0",
    "Added to compaction.size-ratio during off-peak hours (more aggressive compaction then).",
)

COMPACTION_MIN_FILE_NUM: Option[int] = Option(
    "compaction.min.file-num",
    INT,
    "5",
    "Append tables: the minimum number of small files that a compaction merges.",
    check=at_least(1),
)

COMPACTION_DELETE_RATIO_THRESHOLD: Option[float] = Option(
    "compaction.delete-ratio-threshold",
    DOUBLE,
    "0.2",
    "Bucket-unaware append tables with deletion vectors: a file whose deleted rows exceed this share of "
    "its rows is compacted whatever its size.",
)

COMPACTION_OPTIMIZATION_INTERVAL: Option[int | None] = Option(
    "compaction.optimization-interval",
    DURATION,
    None,
    "Primary-key tables: a full compaction when the writer's last one is older than this (a new writer "
    "has none, so a batch write compacts fully once).",
)

COMPACTION_TOTAL_SIZE_THRESHOLD: Option[int | None] = Option(
    "compaction.total-size-threshold",
    MEMORY,
    None,
    "Primary-key tables: a full compaction when a bucket's files together are smaller than this.",
)

COMPACTION_INCREMENTAL_SIZE_THRESHOLD: Option[int | None] = Option(
    "compaction.incremental-size-threshold",
    MEMORY,
    None,
    "Primary-key tables: a full compaction when the files above a bucket's highest level exceed this.",
)

COMPACTION_SMALL_FILE_RATIO: Option[float] = Option(
    "compaction.small-file-ratio",
    DOUBLE,
    "0.7",
    "Files smaller than target-file-size times this ratio are rewritten by compaction; larger ones "
    "that overlap nothing only move up a level.",
)

FULL_COMPACTION_DELTA_COMMITS: Option[int | None] = Option(
    "full-compaction.delta-commits",
    INT,
    None,
    "Batch writes (every paimon_sql write): when > 0, each write fully compacts the buckets it wrote "
    "before its commit (Paimon's batch rule; streaming writers compact every this many commits). "
    "Primary-key tables; not on bucket-unaware append tables.",
)

COMMIT_FORCE_COMPACT: Option[bool] = Option(
    "commit.force-compact",
    BOOL,
    "false",
    "Wait for the compaction a write triggered before its commit (Paimon's MergeTreeWriter); paimon_sql's "
    "writers compact synchronously, so every commit does either way.",
)

COMMIT_MAX_RETRIES: Option[int] = Option(
    "commit.max-retries",
    INT,
    "10",
    "Times a commit is retried after a conflict.",
    check=at_least(0),
)

COMMIT_TIMEOUT: Option[int | None] = Option(
    "commit.timeout",
    DURATION,
    None,
    "Time limit for retrying a commit (no limit by default).",
)

COMMIT_MIN_RETRY_WAIT: Option[int] = Option(
    "commit.min-retry-wait",
    DURATION,
    "10 ms",
    "Shortest wait before a commit retry.",
)

COMMIT_MAX_RETRY_WAIT: Option[int] = Option(
    "commit.max-retry-wait",
    DURATION,
    "10 s",
    "Longest wait before a commit retry.",
)

COMMIT_USER_PREFIX: Option[str | None] = Option(
    "commit.user-prefix",
    STRING,
    None,
    "Prefix of generated commit user names.",
)

DYNAMIC_PARTITION_OVERWRITE: Option[bool] = Option(
    "dynamic-partition-overwrite",
    BOOL,
    "true",
    "INSERT OVERWRITE of a partitioned table replaces only the partitions it writes to.",
)


CALLBACK_PARAM: Family[str | None] = Family(
    r"(?:commit|tag)\.callback\.[^.]+\.param",
    Option(
        "commit.callback.<n>.param / tag.callback.<n>.param",
        STRING,
        None,
        "Parameter of a commit or tag callback class.",
        used=False,
    ),
)

ZORDER_VAR_LENGTH_CONTRIBUTION: Option[int] = Option(
    "zorder.var-length-contribution",
    INT,
    "8",
    "Sort compaction by zorder: the bytes a string or binary column contributes to the z-value.",
)

# Paimon options kept (their values checked) but not interpreted.
_KEPT: tuple[Option[Any], ...] = (
    kept("compaction.force-rewrite-all-files", BOOL, "false"),
    kept("sort-engine", enum(("min-heap", "loser-tree")), "loser-tree"),
    kept("sort-spill-threshold", INT),
    kept("sort-spill-buffer-size", MEMORY, "64 mb"),
    kept("spill-compression", STRING, "zstd"),
    kept("spill-compression.zstd-level", INT, "1"),
    kept("write-buffer-spill.max-disk-size", MEMORY, f"{LONG_MAX} bytes"),
    kept("write-buffer-spillable", BOOL, "true"),
    kept("write-buffer-for-append", BOOL, "false"),
    kept("write-max-writers-to-spill", INT, "10"),
    kept("local-sort.max-num-file-handles", INT, "128"),
    kept("target-file-row-num", LONG, str(LONG_MAX)),
    kept("write.sequence-number-init-mode", enum(("scan", "snapshot")), "scan"),
    kept("compaction.force-up-level-0", BOOL, "false"),
    kept("compaction.file-num-limit", INT, "100000"),
    kept("compaction.skip-expired-partitions", BOOL, "false"),
    kept("write.batch-size", INT, "1024", ("orc.write.batch-size",)),
    kept("write.batch-memory", MEMORY, "128 mb"),
    kept("commit.callbacks", STRING, ""),
    kept("local-merge-buffer-size", MEMORY),
    kept("commit.force-create-snapshot", BOOL, "false"),
    kept("sort-compaction.range-strategy", STRING, "SIZE"),
    kept("sort-compaction.local-sample.magnification", INT, "1000"),
    kept("file-operation.thread-num", INT, None, ("delete-file.thread-num",)),
    kept("async-file-write", BOOL, "true"),
    kept("commit.strict-mode.last-safe-snapshot", LONG),
    kept("clustering.columns", STRING, None, ("sink.clustering.by-columns",)),
    kept("clustering.strategy", STRING, "auto", ("sink.clustering.strategy",)),
    kept("clustering.incremental", BOOL, "false"),
    kept("clustering.history-partition.limit", INT, "5"),
    kept("clustering.history-partition.idle-to-full-sort", DURATION),
    kept("clustering.incremental.optimize-write", BOOL, "false"),
    kept("clustering.incremental.mode", enum(("global-sort", "local-sort")), "global-sort"),
    kept("snapshot.ignore-empty-commit", BOOL),
    kept("commit.discard-duplicate-files", BOOL, "false"),
    kept("postpone.batch-write-fixed-bucket", BOOL, "true"),
    kept("postpone.batch-write-fixed-bucket.max-parallelism", INT, "2048"),
    kept("postpone.default-bucket-num", INT, "1"),
    kept("overwrite-upgrade", BOOL, "true"),
    kept("visibility-callback.enabled", BOOL, "false"),
    kept("visibility-callback.timeout", DURATION, "30 min"),
    kept("visibility-callback.check-interval", DURATION, "10 s"),
)
