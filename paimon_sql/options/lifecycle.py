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
    "Remove directories that expiration left empty.",
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

_KEPT: tuple[Option[Any], ...] = (
    kept("partition.expiration-strategy", STRING, "values-time"),
    kept("partition.expiration-time", DURATION),
    kept("partition.expiration-check-interval", DURATION, "1 h"),
    kept("partition.expiration-max-num", INT, "100"),
    kept("partition.expiration-batch-size", INT),
    kept("partition.timestamp-formatter", STRING),
    kept("partition.timestamp-pattern", STRING),
    kept("partition.timestamp-format.strict", BOOL, "false"),
    kept("partition.end-input-to-done", BOOL, "false"),
    kept("consumer-id", STRING),
    kept("consumer.mode", enum(("exactly-once", "at-least-once")), "exactly-once"),
    kept("consumer.ignore-progress", BOOL, "false"),
    kept("consumer.changelog-only", BOOL, "false"),
    kept("end-input.check-partition-expire", BOOL, "false"),
    kept("tag.callbacks", STRING, ""),
    kept("partition.mark-done-action", STRING, "success-file"),
    kept("partition.mark-done-action.custom.class", STRING),
    kept("partition.mark-done-action.http.url", STRING),
    kept("partition.mark-done-action.http.params", STRING),
    kept("metastore.tag-to-partition", STRING),
    kept("metastore.tag-to-partition.preview", enum(("none", "process-time", "watermark", "batch")), "none"),
    kept("tag.automatic-creation", enum(("none", "process-time", "watermark", "batch")), "none"),
    kept("tag.create-success-file", BOOL, "false"),
    kept("tag.creation-period", enum(("daily", "hourly", "two-hours")), "daily"),
    kept("tag.creation-delay", DURATION, "0 ms"),
    kept("tag.period-formatter", enum(("with_dashes", "without_dashes", "without_dashes_and_spaces")), "with_dashes"),
    kept("tag.creation-period-duration", DURATION),
    kept("tag.num-retained-max", INT),
    kept("tag.time-expire-enabled", BOOL, "true"),
    kept("tag.automatic-completion", BOOL, "false"),
    kept("tag.batch.customized-name", STRING),
    kept("scan.plan-auto-tag-for-read.time-retained", DURATION),
    kept("snapshot.watermark-idle-timeout", DURATION),
    kept("record-level.expire-time", DURATION),
    kept("record-level.time-field", STRING),
    kept("partition.idle-time-to-report-statistic", DURATION, "0 ms"),
)
