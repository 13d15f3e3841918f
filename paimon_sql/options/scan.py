"""Options of reading: scan modes, time travel (snapshot, tag, timestamp, version, watermark),
incremental reads, splits, corrupt and lost files."""

from __future__ import annotations

from typing import Any

from paimon_sql.options.option import Option, at_least, kept
from paimon_sql.options.parsing import (
    BOOL,
    DOUBLE,
    DURATION,
    INT,
    INT_MIN,
    LONG,
    LONG_MAX,
    MEMORY,
    STRING,
    enum,
)

SCAN_MODES = (
    "default",
    "latest-full",
    "full",
    "latest",
    "compacted-full",
    "from-timestamp",
    "from-creation-timestamp",
    "from-file-creation-time",
    "from-snapshot",
    "from-snapshot-full",
    "incremental",
)


SCAN_MODE: Option[str] = Option(
    "scan.mode",
    enum(SCAN_MODES),
    "default",
    "Where a scan starts.",
    fallback_keys=("log.scan",),
)

SCAN_SNAPSHOT_ID: Option[int | None] = Option(
    "scan.snapshot-id",
    LONG,
    None,
    "Read this snapshot (time travel).",
)

SCAN_TAG_NAME: Option[str | None] = Option(
    "scan.tag-name",
    STRING,
    None,
    "Read this tag (time travel).",
)

SCAN_TIMESTAMP_MILLIS: Option[int | None] = Option(
    "scan.timestamp-millis",
    LONG,
    None,
    "Read the latest snapshot committed at or before this epoch millisecond (time travel).",
    fallback_keys=("log.scan.timestamp-millis",),
)

SCAN_TIMESTAMP: Option[str | None] = Option(
    "scan.timestamp",
    STRING,
    None,
    "Like scan.timestamp-millis, as a 'yyyy-MM-dd HH:mm:ss' local time string.",
)

SCAN_VERSION: Option[str | None] = Option(
    "scan.version",
    STRING,
    None,
    "Time travel version (VERSION AS OF): a tag name, 'watermark-<n>', else a snapshot id.",
)

SCAN_WATERMARK: Option[int | None] = Option(
    "scan.watermark",
    LONG,
    None,
    "Read the earliest snapshot whose watermark is at least this (time travel).",
)

INCREMENTAL_BETWEEN: Option[str | None] = Option(
    "incremental-between",
    STRING,
    None,
    "Read the changes between two snapshots or tags: 'start,end' (start exclusive, end inclusive; two "
    "tags read the diff of their snapshots unless incremental-between-tag-to-snapshot).",
)

INCREMENTAL_BETWEEN_TIMESTAMP: Option[str | None] = Option(
    "incremental-between-timestamp",
    STRING,
    None,
    "Read the changes between two times: 'start,end' (start exclusive), epoch milliseconds or "
    "'yyyy-MM-dd HH:mm:ss' local times.",
)

INCREMENTAL_BETWEEN_SCAN_MODE: Option[str] = Option(
    "incremental-between-scan-mode",
    enum(("auto", "delta", "changelog", "diff")),
    "auto",
    "What an incremental read reads: delta (the files APPEND snapshots added), changelog (the changelog "
    "files), diff (the difference of the two snapshots), auto (changelog when the table has a changelog "
    "producer, else delta).",
)

INCREMENTAL_TO_AUTO_TAG: Option[str | None] = Option(
    "incremental-to-auto-tag",
    STRING,
    None,
    "Read the diff between the automatic tag before this automatic tag and it (empty when either is "
    "missing).",
)

INCREMENTAL_BETWEEN_TAG_TO_SNAPSHOT: Option[bool] = Option(
    "incremental-between-tag-to-snapshot",
    BOOL,
    "false",
    "incremental-between with two tags reads the snapshots between the tags' snapshots (delta / "
    "changelog) instead of the diff of the two.",
)

TABLE_READ_SEQUENCE_NUMBER_ENABLED: Option[bool] = Option(
    "table-read.sequence-number.enabled",
    BOOL,
    "false",
    "Primary-key tables: $audit_log and $binlog show each row's _SEQUENCE_NUMBER (after rowkind). A table "
    "option (not a per-read one, as in Paimon).",
)

SOURCE_SPLIT_TARGET_SIZE: Option[int] = Option(
    "source.split.target-size",
    MEMORY,
    "128 mb",
    "Target size of a read split.",
    check=at_least(1),
)

SOURCE_SPLIT_OPEN_FILE_COST: Option[int] = Option(
    "source.split.open-file-cost",
    MEMORY,
    "4 mb",
    "Size each file counts for when packing files into splits.",
)

READ_BATCH_SIZE: Option[int] = Option(
    "read.batch-size",
    INT,
    "1024",
    "Rows per batch read from a file.",
    check=at_least(1),
)

SCAN_IGNORE_CORRUPT_FILES: Option[bool] = Option(
    "scan.ignore-corrupt-files",
    BOOL,
    "false",
    "Skip (with a warning) data files that fail their checks or do not decode, instead of failing the read.",
)

SCAN_IGNORE_LOST_FILES: Option[bool] = Option(
    "scan.ignore-lost-files",
    BOOL,
    "false",
    "Skip (with a warning) data files that no longer exist, instead of failing the read.",
)

READ_ALLOW_FULL_SCAN: Option[bool] = Option(
    "read.allow.fullScan",
    BOOL,
    "true",
    "Paimon's Spark connector option (spark.paimon.read.allow.fullScan, or per read): false refuses "
    "a read of a partitioned table that skips no data file ('Full scan is not supported.'); "
    "filter on the partition columns.",
    fallback_keys=("read.allow.fullscan",),  # Spark passes option keys in lower case
)

# Paimon options kept (their values checked) but not interpreted.
_KEPT: tuple[Option[Any], ...] = (
    kept("scan.fallback-snapshot-branch", STRING),
    kept("scan.fallback-delta-branch", STRING),
    kept("continuous.discovery-interval", DURATION, "10 s"),
    kept("scan.max-splits-per-task", INT, "10"),
    kept("scan.bucket", INT),
    kept("scan.file-creation-time-millis", LONG),
    kept("scan.creation-time-millis", LONG),
    kept("scan.bounded.watermark", LONG),
    kept("scan.manifest.parallelism", INT),
    kept("format-table.scan.list-parallelism", INT, "64"),
    kept("streaming.read.snapshot.delay", DURATION),
    kept("streaming-read-overwrite", BOOL, "false"),
    kept("streaming-read-append-overwrite", BOOL, "false"),
    kept("scan.plan-sort-partition", BOOL, "false"),
    kept("lookup.hash-load-factor", DOUBLE, "0.75"),
    kept("lookup.cache-rows", LONG, "10000"),
    kept("lookup.continuous.discovery-interval", DURATION),
    kept("lookup.cache-file-retention", DURATION, "1 h"),
    kept("lookup.cache-max-disk-size", MEMORY, f"{LONG_MAX} bytes"),
    kept("lookup.cache-spill-compression", STRING, "zstd"),
    kept("lookup.blob-as-descriptor", BOOL, "false"),
    kept("lookup.cache.high-priority-pool-ratio", DOUBLE, "0.25"),
    kept("lookup.cache.bloom.filter.enabled", BOOL, "true"),
    kept("lookup.cache.bloom.filter.fpp", DOUBLE, "0.05"),
    kept("lookup.remote-file.enabled", BOOL, "false"),
    kept("lookup.remote-file.level-threshold", INT, str(INT_MIN)),
    kept("stream-scan-mode", enum(("none", "compact-bucket-table", "file-monitor")), "none"),
    kept("batch-scan-mode", enum(("none", "compact")), "none"),
    kept("file-reader-async-threshold", MEMORY, "10 mb"),
    kept("scan.fallback-branch", STRING),
    kept("scan.fallback-branch.read-fail-fast", BOOL, "false"),
    kept("scan.primary-branch", STRING),
    kept("lookup.merge-buffer-size", MEMORY, "8 mb"),
    kept("lookup.merge-records-threshold", INT, "1024"),
)
