"""Options of the table's layout: table type, path and branch, primary and partition keys, buckets,
partition directory names."""

from __future__ import annotations

from typing import Any

from paimon_sql.options.option import Option, at_least, kept, minus_one_or_positive
from paimon_sql.options.parsing import (
    BOOL,
    DURATION,
    INT,
    LIST,
    LONG,
    MEMORY,
    STRING,
    enum,
)

TABLE_TYPES = ("table", "format-table", "materialized-table", "object-table", "lance-table", "iceberg-table")


def _bucket_check(v: int) -> str | None:
    if v in (-1, -2) or v > 0:
        return None
    return (
        "expected -1 (dynamic bucket mode), -2 (postpone bucket mode, primary-key tables only) "
        "or a positive number of buckets"
    )


TYPE: Option[str] = Option(
    "type",
    enum(TABLE_TYPES),
    "table",
    "Kind of table; paimon_sql handles ordinary Paimon tables.",
)

PATH: Option[str | None] = Option(
    "path",
    STRING,
    None,
    "Filesystem location of the table (set by catalogs, not by users).",
)

BRANCH: Option[str] = Option(
    "branch",
    STRING,
    "main",
    "Branch the table reads and writes.",
)

PRIMARY_KEY: Option[list[str] | None] = Option(
    "primary-key",
    LIST,
    None,
    "Primary key columns given as an option instead of in the DDL (not both).",
)

PARTITION: Option[list[str] | None] = Option(
    "partition",
    LIST,
    None,
    "Partition columns given as an option instead of in the DDL (not both).",
)

BUCKET: Option[int] = Option(
    "bucket",
    INT,
    "-1",
    "Number of buckets: -1 is dynamic bucket mode (primary-key tables) or unaware bucket mode "
    "(append tables), -2 is postpone bucket mode (primary-key tables), a positive number is "
    "fixed bucket mode. 0 and values below -2 are invalid.",
    check=_bucket_check,
)

BUCKET_KEY: Option[list[str] | None] = Option(
    "bucket-key",
    LIST,
    None,
    "Columns hashed to choose a row's bucket in fixed bucket mode; defaults to the primary key "
    "(without partition columns), or the whole row when there is none. Not allowed with bucket -1.",
)

DYNAMIC_BUCKET_TARGET_ROW_NUM: Option[int] = Option(
    "dynamic-bucket.target-row-num",
    LONG,
    "2000000",
    "Dynamic bucket mode: a bucket takes new keys until it holds this many rows.",
    check=at_least(1),
)

DYNAMIC_BUCKET_INITIAL_BUCKETS: Option[int | None] = Option(
    "dynamic-bucket.initial-buckets",
    INT,
    None,
    "Dynamic bucket mode: number of buckets a partition starts with in the assigner.",
)

DYNAMIC_BUCKET_MAX_BUCKETS: Option[int] = Option(
    "dynamic-bucket.max-buckets",
    INT,
    "-1",
    "Dynamic bucket mode: upper bound of buckets per partition; -1 means unlimited. When set, it "
    "also caps the number of bucket assigners (see dynamic-bucket.assigner-parallelism).",
    check=minus_one_or_positive,
)

DYNAMIC_BUCKET_ASSIGNER_PARALLELISM: Option[int | None] = Option(
    "dynamic-bucket.assigner-parallelism",
    INT,
    None,
    "Dynamic bucket mode: number of bucket assigners of a write (each owns the buckets b with "
    "b % assigners = its id, so a partition's new keys spread over that many buckets). Default: "
    "dynamic-bucket.max-buckets when set, else one; dynamic-bucket.initial-buckets, when set, is "
    "capped by it (Paimon's Spark writer rule, with the parallelism unknown). Cross-partition upsert "
    "tables: the larger of this and dynamic-bucket.initial-buckets, else one.",
    check=at_least(1),
)

CROSS_PARTITION_UPSERT_INDEX_TTL: Option[int | None] = Option(
    "cross-partition-upsert.index-ttl",
    DURATION,
    None,
    "Cross-partition upsert (bucket -1, a primary key without every partition column): the global "
    "key index a write bootstraps skips the buckets whose data files are all older than this, so "
    "their keys are treated as new (may leave duplicates, as in Paimon); unset: every key is indexed.",
)

CROSS_PARTITION_UPSERT_BOOTSTRAP_PARALLELISM: Option[int] = Option(
    "cross-partition-upsert.bootstrap-parallelism",
    INT,
    "10",
    "Cross-partition upsert: number of threads reading the table's keys when a write bootstraps "
    "its global key index (capped by the machine's CPU count).",
    check=at_least(1),
)

PARTITION_DEFAULT_NAME: Option[str] = Option(
    "partition.default-name",
    STRING,
    "__DEFAULT_PARTITION__",
    "Directory value used for a partition whose value is null or the empty string.",
)

PARTITION_LEGACY_NAME: Option[bool] = Option(
    "partition.legacy-name",
    BOOL,
    "true",
    "When true, partition paths use the values' legacy string form (DATE as the number of days "
    "since the epoch); when false, values are cast to strings (DATE as yyyy-mm-dd).",
)

# Paimon options kept (their values checked) but not interpreted.
_KEPT: tuple[Option[Any], ...] = (
    kept("upsert-key", STRING),
    kept("bucket-append-ordered", BOOL, "true"),
    kept("bucket-function.type", enum(("default", "mod", "hive")), "default"),
    kept("chain-table.enabled", BOOL, "false"),
    kept("chain-table.chain-partition-keys", STRING),
    kept("chain-table.streaming.merge-snapshot", BOOL, "false"),
    kept("chain-table.split.key-range-enabled", BOOL, "true"),
    kept("auto-create", BOOL, "false"),
    kept("primary-key.nullable", BOOL, "false"),
    kept("partition.sink-strategy", STRING, "NONE"),
    kept("metastore.partitioned-table", BOOL, "false"),
    kept("sink.watermark-time-zone", STRING, "UTC"),
    kept("sink.process-time-zone", STRING),
    kept("query-auth.enabled", BOOL, "false"),
    kept("materialized-table.definition-query", STRING),
    kept("materialized-table.interval-freshness", STRING),
    kept("materialized-table.interval-freshness.time-unit", STRING),
    kept("materialized-table.logical-refresh-mode", STRING),
    kept("materialized-table.refresh-mode", STRING),
    kept("materialized-table.refresh-status", STRING),
    kept("materialized-table.refresh-handler-description", STRING),
    kept("materialized-table.refresh-handler-bytes", STRING),
    kept("alter-column-null-to-not-null.disabled", BOOL, "true"),
    kept("disable-explicit-type-casting", BOOL, "false"),
    kept("add-column-before-partition", BOOL, "false"),
    kept("local-kv-db.block-size", MEMORY, "4 kb"),
    kept("row-tracking.enabled", BOOL, "false"),
    kept("row-tracking.partition-group-on-commit", BOOL, "true"),
    kept("data-evolution.enabled", BOOL, "false"),
)
