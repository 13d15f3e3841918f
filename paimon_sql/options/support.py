"""Which options paimon_sql applies: the options it refuses (not implemented yet) and the options a
table keeps for life. Plain data: one key per entry, grouped by the reason given in errors."""

from __future__ import annotations

from collections.abc import Mapping

_TAG_CALLBACKS = "tag callbacks are Java classes (Paimon's TagCallback implementations), which paimon_sql cannot run"
_TAG_SUCCESS_FILE = "paimon_sql does not write tag success files (tag/tag-success-file/<tag>_SUCCESS) yet"
_RECORD_EXPIRY = "record-level expiry (dropping expired rows in compaction) is not implemented yet"
_COMPACTION = "this compaction option is not implemented yet (universal compaction with its size-ratio, size-amplification and sorted-run triggers is)"
_DV_WRITES = "this deletion-vector option is not implemented yet (deletion-vectors.enabled and deletion-vectors.merge-on-read are)"
_FEATURE = "this Paimon feature is not implemented by paimon_sql yet"
# Options paimon_sql knows but does not apply: set to anything but their default at CREATE TABLE,
# ALTER TABLE or per read, they are refused (UnsupportedError naming them) rather than silently
# ignored. Tables that already carry them (written by Paimon) still read. Options that only tune
# Flink, streaming reads, caches, spilling or parallelism are not here: they change no result.
NOT_IMPLEMENTED: dict[str, str] = {
    "tag.callbacks": _TAG_CALLBACKS,
    "tag.create-success-file": _TAG_SUCCESS_FILE,
    **dict.fromkeys(["record-level.expire-time", "record-level.time-field"], _RECORD_EXPIRY),
    **dict.fromkeys([
        "compaction.force-up-level-0",
        "compaction.file-num-limit", "compaction.force-rewrite-all-files",
        "compaction.skip-expired-partitions",
        "force-lookup", "clustering.columns", "clustering.strategy", "clustering.incremental",
        "clustering.incremental.mode", "clustering.incremental.optimize-write",
        "sort-compaction.range-strategy", "sort-compaction.local-sample.magnification",
    ], _COMPACTION),
    **dict.fromkeys([
        "deletion-vectors.modifiable",
    ], _DV_WRITES),
    **dict.fromkeys([
        "bucket-function.type", "chain-table.enabled",
        "chain-table.chain-partition-keys", "blob-field", "blob-as-descriptor", "blob-descriptor-field",
        "blob-external-storage-field", "blob-external-storage-path", "blob-compaction.enabled",
        "blob.target-file-size", "blob.split-by-file-size", "vector-field", "vector.file.format",
        "vector.target-file-size", "data-evolution.enabled", "row-tracking.enabled", "global-index.enabled",
        "pk-bitmap.index.columns", "pk-btree.index.columns", "pk-full-text.index.columns",
        "pk-multivalue.index.columns", "pk-vector.index.columns", "data-file.thin-mode",
        "file.format.per.level", "file.compression.per.level", "metadata.stats-mode.per.level",
        "file.suffix.include.compression", "index-file-in-data-file-dir",
        "commit.callbacks", "commit.discard-duplicate-files", "commit.force-create-snapshot",
        "commit.strict-mode.last-safe-snapshot", "snapshot.ignore-empty-commit",
        "metastore.partitioned-table", "metastore.tag-to-partition", "sequence.snapshot-ordering",
        "write.sequence-number-init-mode", "upsert-key", "primary-key.nullable", "postpone.batch-write-fixed-bucket",
        "postpone.default-bucket-num", "target-file-row-num", "visibility-callback.enabled", "query-auth.enabled",
        "key-value.sequence_number.enabled", "ignore-update-before",
        "scan.bucket", "scan.creation-time-millis",
        "scan.primary-branch", "scan.fallback-delta-branch",
        "scan.fallback-snapshot-branch",
    ], _FEATURE),
}

# Values of an option that paimon_sql does not apply yet (the option's other values it does):
# refused like NOT_IMPLEMENTED keys. One line per value, so that each lands with its feature.
NOT_IMPLEMENTED_VALUES: dict[str, dict[str, str]] = {}


# Options a table keeps for life: exactly Paimon's @Immutable options (CoreOptions.IMMUTABLE_OPTIONS).
# Once a table has a snapshot, ALTER TABLE cannot set or remove them; a dynamic (per-read, session)
# option can never change them (Table.copy). 'bucket' is not here: its own rule is in
# check_option_change.
IMMUTABLE: frozenset[str] = frozenset({
    "type", "bucket-key", "bucket-function.type", "data-file.path-directory", "merge-engine",
    "sequence.snapshot-ordering", "aggregation.remove-record-on-delete", "partial-update.remove-record-on-delete",
    "partial-update.remove-record-on-sequence-group", "rowkind.field", "primary-key", "primary-key.nullable",
    "partition", "dynamic-bucket.initial-buckets", "force-lookup", "row-tracking.enabled",
    "data-evolution.enabled", "index-file-in-data-file-dir", "blob-field", "blob-descriptor-field",
    "blob-view-field", "pk-clustering-override",
})

# Options that name where a table lives or which branch is read: never a dynamic option.
NOT_DYNAMIC: frozenset[str] = frozenset({"path", "branch"})


def _flag(value: str | None, default: bool) -> bool:
    return default if value is None else value.strip().lower() == "true"


def _bucket(value: str | None) -> int | None:
    try:
        return -1 if value is None else int(value.strip())
    except ValueError:
        return None  # not a number: option validation names it


def option_change_error(options: Mapping[str, str], key: str, old: str | None, new: str) -> str | None:
    """Why option ``key`` of a table with data (``options``) cannot change from ``old`` to ``new``
    (Paimon's SchemaManager.checkAlterTableOption, also applied to dynamic options); None when it can."""
    if key in IMMUTABLE:
        return f"Change '{key}' is not supported yet."
    if key == "bucket":
        before, after = _bucket(old), _bucket(new)
        if before == -1:
            return "Cannot change bucket when it is -1."
        if after == -1:
            return "Cannot change bucket to -1."
        if -2 in (before, after):  # beyond Paimon's rule: postpone bucket mode is not implemented
            return (f"Cannot change bucket from {old} to {new}: postpone bucket mode (-2) is not implemented "
                    "by paimon_sql")
    if key == "deletion-vectors.enabled" and not _flag(options.get("deletion-vectors.modifiable"), False):
        before_dv, after_dv = _flag(old, False), _flag(new, False)
        if before_dv != after_dv:
            return (f"Cannot change deletion vectors mode from {str(before_dv).lower()} to "
                    f"{str(after_dv).lower()}. If modifying table deletion-vectors mode without full-compaction, "
                    "this may result in data duplication. If you are confident, you can set table option "
                    "'deletion-vectors.modifiable' = 'true' to allow deletion vectors modification.")
    if key in ("ignore-delete", "ignore-update-before") and _flag(old, False) and not _flag(new, False):
        return f"Cannot change {key} from true to false."
    if key == "clustering.columns" and "pk-clustering-override" in options:
        return "Cannot change clustering.columns when pk-clustering-override enabled."
    return None


def option_reset_error(options: Mapping[str, str], key: str) -> str | None:
    """Why option ``key`` of a table with data cannot be removed (Paimon's
    SchemaManager.checkResetTableOption); None when it can."""
    if key in IMMUTABLE:
        return f"Change '{key}' is not supported yet."
    if key == "bucket":
        return "Cannot reset bucket."
    if key == "deletion-vectors.enabled":
        return option_change_error(options, key, options.get(key), "false")
    if key == "clustering.columns" and "pk-clustering-override" in options:
        return "Cannot reset clustering.columns when pk-clustering-override enabled."
    return None
