"""Lifecycle options: snapshot and changelog expiration, consumers, tags, partition expiration."""

from __future__ import annotations

from typing import Any

from paimon_sql.options.option import Option, at_least, kept
from paimon_sql.options.parsing import (
    BOOL,
    DURATION,
    INT,
    INT_MAX,
    STRING,
    enum,
)

SNAPSHOT_NUM_RETAINED_MIN: Option[int] = Option(
    "snapshot.num-retained.min",
    INT,
    "10",
    "Snapshots always kept by expiration (at least 1).",
    check=at_least(1),
)

SNAPSHOT_NUM_RETAINED_MAX: Option[int] = Option(
    "snapshot.num-retained.max",
    INT,
    str(INT_MAX),
    "Snapshots kept at most by expiration (at least snapshot.num-retained.min).",
)

SNAPSHOT_TIME_RETAINED: Option[int] = Option(
    "snapshot.time-retained",
    DURATION,
    "1 h",
    "Snapshots younger than this are kept by expiration.",
)

SNAPSHOT_EXPIRE_LIMIT: Option[int] = Option(
    "snapshot.expire.limit",
    INT,
    "50",
    "At most this many snapshots expire in one run.",
    check=at_least(1),
)

SNAPSHOT_EXPIRE_EXECUTION_MODE: Option[str] = Option(
    "snapshot.expire.execution-mode",
    enum(("sync", "async")),
    "sync",
    "Expiration after a commit runs in the committing thread (sync) or on a background thread "
    "whose failure the next commit raises (async).",
)

SNAPSHOT_CLEAN_EMPTY_DIRECTORIES: Option[bool] = Option(
    "snapshot.clean-empty-directories",
    BOOL,
    "false",
    "Remove the bucket and partition folders (in the table) that snapshot, changelog or tag expiry "
    "left empty.",
    fallback_keys=("snapshot.expire.clean-empty-directories",),
)

CHANGELOG_NUM_RETAINED_MIN: Option[int | None] = Option(
    "changelog.num-retained.min",
    INT,
    None,
    "Changelogs always kept; default: snapshot.num-retained.min.",
    check=at_least(1),
)

CHANGELOG_NUM_RETAINED_MAX: Option[int | None] = Option(
    "changelog.num-retained.max",
    INT,
    None,
    "Changelogs kept at most; default: snapshot.num-retained.max.",
)

CHANGELOG_TIME_RETAINED: Option[int | None] = Option(
    "changelog.time-retained",
    DURATION,
    None,
    "Changelog retention time; default: snapshot.time-retained.",
)

CONSUMER_CHANGELOG_ONLY: Option[bool] = Option(
    "consumer.changelog-only",
    BOOL,
    "false",
    "With a decoupled changelog lifecycle, consumers protect only changelogs from expiry, not "
    "snapshots.",
)

CONSUMER_EXPIRATION_TIME: Option[int | None] = Option(
    "consumer.expiration-time",
    DURATION,
    None,
    "Consumer records not updated for this long are removed (none expire by default).",
)

# Paimon options kept (their values checked) but not interpreted.
TAG_DEFAULT_TIME_RETAINED: Option[int | None] = Option(
    "tag.default-time-retained",
    DURATION,
    None,
    "Retention of a tag created without one through Table.create_tag (Paimon's Table.createTag); "
    "expire_tags deletes tags whose retention passed.",
)

PARTITION_EXPIRATION_TIME: Option[int | None] = Option(
    "partition.expiration-time",
    DURATION,
    None,
    "Partitions older than this are dropped after commits (see partition.expiration-strategy) and by "
    "expire_partitions; none expire by default.",
)

PARTITION_EXPIRATION_STRATEGY: Option[str] = Option(
    "partition.expiration-strategy",
    enum(("values-time", "update-time")),
    "values-time",
    "How a partition's age is read: from its values (values-time, see partition.timestamp-pattern "
    "and partition.timestamp-formatter) or from the creation time of its newest file (update-time).",
)

PARTITION_EXPIRATION_CHECK_INTERVAL: Option[int] = Option(
    "partition.expiration-check-interval",
    DURATION,
    "1 h",
    "Commits of one process check partition expiration at most this often (the first check comes a "
    "random part of the interval after the process starts, as Paimon's writers do); 0 checks after "
    "every commit.",
)

PARTITION_EXPIRATION_MAX_NUM: Option[int] = Option(
    "partition.expiration-max-num",
    INT,
    "100",
    "At most this many partitions expire in one run (the oldest by their values' text).",
    check=at_least(1),
)

PARTITION_EXPIRATION_BATCH_SIZE: Option[int | None] = Option(
    "partition.expiration-batch-size",
    INT,
    None,
    "Expired partitions are dropped in commits of at most this many partitions (default: one commit).",
    check=at_least(1),
)

PARTITION_TIMESTAMP_FORMATTER: Option[str | None] = Option(
    "partition.timestamp-formatter",
    STRING,
    None,
    "A Java DateTimeFormatter pattern reading a partition's time (e.g. 'yyyyMMdd'); default "
    "'yyyy-MM-dd HH:mm:ss' or 'yyyy-MM-dd'.",
)

PARTITION_TIMESTAMP_PATTERN: Option[str | None] = Option(
    "partition.timestamp-pattern",
    STRING,
    None,
    "How a partition's time is built from its values, e.g. '$dt' or '$year-$month-$day $hour:00:00'; "
    "default: the first partition column.",
)

END_INPUT_CHECK_PARTITION_EXPIRE: Option[bool] = Option(
    "end-input.check-partition-expire",
    BOOL,
    "false",
    "Check partition expiration after every (batch) commit, whatever partition.expiration-check-interval says.",
)

_MARK_DONE_ACTIONS = ("success-file", "done-partition", "mark-event", "http-report", "custom")


def _mark_done_actions_problem(value: str) -> str | None:
    bad = [a for a in (x.strip() for x in value.split(",")) if a not in _MARK_DONE_ACTIONS]
    return f"expected a comma-separated list of {list(_MARK_DONE_ACTIONS)}, got {bad}" if bad else None


PARTITION_MARK_DONE_ACTION: Option[str] = Option(
    "partition.mark-done-action",
    STRING,
    "success-file",
    "What mark_partition_done does: 'success-file' writes a _SUCCESS file into the partition's "
    "folder (the other Paimon actions need a metastore or a custom class).",
    check=lambda v: _mark_done_actions_problem(v),
)

TAG_AUTOMATIC_CREATION: Option[str] = Option(
    "tag.automatic-creation",
    enum(("none", "process-time", "watermark", "batch")),
    "none",
    "Tags created after commits: one per period by the commit time (process-time) or the snapshot's "
    "watermark (watermark), or one per day for batch writes (batch: 'batch-write-yyyy-MM-dd').",
)

TAG_CREATION_PERIOD: Option[str] = Option(
    "tag.creation-period",
    enum(("daily", "hourly", "two-hours")),
    "daily",
    "The period of automatic tags; a tag is named by the start of its period.",
)

TAG_CREATION_DELAY: Option[int] = Option(
    "tag.creation-delay",
    DURATION,
    "0 ms",
    "How long after the end of a period its tag is created (less than one period).",
)

TAG_PERIOD_FORMATTER: Option[str] = Option(
    "tag.period-formatter",
    enum(("with_dashes", "without_dashes", "without_dashes_and_spaces")),
    "with_dashes",
    "Names of automatic tags: 'yyyy-MM-dd' / 'yyyy-MM-dd HH', without dashes 'yyyyMMdd' / "
    "'yyyyMMdd HH', without dashes and spaces 'yyyyMMddHH' (two-hours always uses dashes).",
)

TAG_CREATION_PERIOD_DURATION: Option[int | None] = Option(
    "tag.creation-period-duration",
    DURATION,
    None,
    "A custom period of automatic tags (named 'yyyyMMddHHmm'); overrides tag.creation-period.",
    check=lambda v: None if v is None or v > 0 else "expected a positive duration",
)

TAG_NUM_RETAINED_MAX: Option[int | None] = Option(
    "tag.num-retained-max",
    INT,
    None,
    "Automatic tags kept at most (the oldest go; batch mode counts every tag).",
    check=at_least(1),
)

TAG_TIME_EXPIRE_ENABLED: Option[bool] = Option(
    "tag.time-expire-enabled",
    BOOL,
    "true",
    "After every commit, delete the tags whose time_retained has passed.",
)

TAG_AUTOMATIC_COMPLETION: Option[bool] = Option(
    "tag.automatic-completion",
    BOOL,
    "false",
    "Create the tags of skipped periods one after another instead of jumping to the latest period.",
)

TAG_BATCH_CUSTOMIZED_NAME: Option[str | None] = Option(
    "tag.batch.customized-name",
    STRING,
    None,
    "The name of the tag batch mode creates (default 'batch-write-yyyy-MM-dd').",
)

_KEPT: tuple[Option[Any], ...] = (
    kept("partition.timestamp-format.strict", BOOL, "false"),
    kept("partition.end-input-to-done", BOOL, "false"),
    kept("consumer-id", STRING),
    kept("consumer.mode", enum(("exactly-once", "at-least-once")), "exactly-once"),
    kept("consumer.ignore-progress", BOOL, "false"),
    kept("tag.callbacks", STRING, ""),
    kept("partition.mark-done-action.custom.class", STRING),
    kept("partition.mark-done-action.http.url", STRING),
    kept("partition.mark-done-action.http.params", STRING),
    kept("metastore.tag-to-partition", STRING),
    kept("metastore.tag-to-partition.preview", enum(("none", "process-time", "watermark", "batch")), "none"),
    kept("tag.create-success-file", BOOL, "false"),
    kept("scan.plan-auto-tag-for-read.time-retained", DURATION),
    kept("snapshot.watermark-idle-timeout", DURATION),
    kept("record-level.expire-time", DURATION),
    kept("record-level.time-field", STRING),
    kept("partition.idle-time-to-report-statistic", DURATION, "0 ms"),
)
