"""Options of files: data file format and compression, file names, manifests, column statistics,
file indexes, and the options passed to format writers."""

from __future__ import annotations

from typing import Any

from paimon_sql.options.option import Family, Option, at_least, kept, one_of
from paimon_sql.options.parsing import (
    BOOL,
    DOUBLE,
    INT,
    LIST,
    LONG,
    MEMORY,
    STATS_MODE,
    STRING,
    enum,
)

FILE_FORMATS = ("parquet", "orc", "avro")
"""Data file formats of Paimon tables (``type`` = table)."""
FORMAT_TABLE_FORMATS = ("parquet", "orc", "avro", "csv", "json", "text", "lance", "blob")
"""Formats Paimon accepts for other table types (format tables)."""


FILE_FORMAT: Option[str] = Option(
    "file.format",
    STRING,
    "parquet",
    "Format of data files: parquet, orc or avro (case-insensitive).",
    check=one_of(FORMAT_TABLE_FORMATS),
)

FILE_COMPRESSION: Option[str] = Option(
    "file.compression",
    STRING,
    "zstd",
    "Compression codec of data files.",
)

FILE_COMPRESSION_ZSTD_LEVEL: Option[int] = Option(
    "file.compression.zstd-level",
    INT,
    "1",
    "zstd level used for data files.",
    check=at_least(1),
)

DATA_FILE_PREFIX: Option[str] = Option(
    "data-file.prefix",
    STRING,
    "data-",
    "File name prefix of data files.",
)

CHANGELOG_FILE_PREFIX: Option[str] = Option(
    "changelog-file.prefix",
    STRING,
    "changelog-",
    "File name prefix of changelog files.",
)

TARGET_FILE_SIZE: Option[int | None] = Option(
    "target-file-size",
    MEMORY,
    None,
    "Size at which a data file is rolled over. Without a value: 128 mb for primary-key tables, "
    "256 mb for append tables.",
    check=at_least(1),
)

MANIFEST_FORMAT: Option[str] = Option(
    "manifest.format",
    STRING,
    "avro",
    "Format of manifest files and manifest lists: avro, orc or parquet.",
    check=one_of(FILE_FORMATS),
)

MANIFEST_COMPRESSION: Option[str] = Option(
    "manifest.compression",
    STRING,
    "zstd",
    "Compression codec of manifest files.",
)

MANIFEST_TARGET_FILE_SIZE: Option[int] = Option(
    "manifest.target-file-size",
    MEMORY,
    "8 mb",
    "Size a manifest file aims at when manifests are merged.",
)

MANIFEST_MERGE_MIN_COUNT: Option[int] = Option(
    "manifest.merge-min-count",
    INT,
    "30",
    "Manifest files are merged once at least this many small ones have accumulated.",
    check=at_least(1),
)

MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE: Option[int] = Option(
    "manifest.full-compaction-threshold-size",
    MEMORY,
    "16 mb",
    "Manifests are fully compacted once deleted entries amount to this size.",
)

METADATA_STATS_MODE: Option[str] = Option(
    "metadata.stats-mode",
    STATS_MODE,
    "truncate(16)",
    "Column statistics kept in manifests: none, counts (null counts only), full (null counts, "
    "min and max) or truncate(n) (like full, strings cut to n characters). A column can "
    "override it with fields.<name>.stats-mode.",
)

METADATA_STATS_DENSE_STORE: Option[bool] = Option(
    "metadata.stats-dense-store",
    BOOL,
    "true",
    "Store statistics only for the columns that have them (writes _VALUE_STATS_COLS).",
)

FILE_INDEX_IN_MANIFEST_THRESHOLD: Option[int] = Option(
    "file-index.in-manifest-threshold",
    MEMORY,
    "500 B",
    "File indexes up to this size are embedded in the manifest entry instead of a separate file.",
)

FILE_INDEX_READ_ENABLED: Option[bool] = Option(
    "file-index.read.enabled",
    BOOL,
    "true",
    "Use file indexes to skip data files on read.",
)


FILE_INDEX_COLUMNS: Family[list[str] | None] = Family(
    r"file-index\.[^.]+\.columns",
    Option(
        "file-index.<type>.columns",
        LIST,
        None,
        "Columns that get a file index of <type> (bloom-filter, bitmap, bsi, range-bitmap).",
    ),
)

FILE_INDEX_COLUMN_OPTION: Family[str | None] = Family(
    r"file-index\.[^.]+\.[^.]+\.[^.]+",
    Option(
        "file-index.<type>.<column>.<option>",
        STRING,
        None,
        "An option of one column's file index, e.g. file-index.bloom-filter.c.fpp.",
    ),
)

FILE_INDEX_OPTION: Family[str | None] = Family(
    r"file-index\.[^.]+\.[^.]+",
    Option(
        "file-index.<type>.<option>",
        STRING,
        None,
        "An option of every file index of <type>, e.g. file-index.bitmap.version.",
    ),
)

FORMAT_OPTION: Family[str | None] = Family(
    r"(?:parquet|orc|avro|csv|json|text|lance)\..+",
    Option(
        "<format>.<option>",
        STRING,
        None,
        "Passed to the file format writer/reader as is (e.g. parquet.block.size).",
        used=False,
    ),
)

DATA_FILE_PATH_DIRECTORY: Option[str | None] = Option(
    "data-file.path-directory",
    STRING,
    None,
    "Folder (relative to the table's folder) holding the partition and bucket folders of data files.",
)

DATA_FILE_EXTERNAL_PATHS: Option[str | None] = Option(
    "data-file.external-paths",
    STRING,
    None,
    "Comma-separated roots (URIs) where new data files are written instead of the table's folder, "
    "under <root>/<partition>/bucket-<n>/; only local file: roots are supported by paimon_sql. "
    "Used when data-file.external-paths.strategy is not none.",
)

EXTERNAL_PATH_STRATEGIES = ("none", "specific-fs", "round-robin", "entropy-inject", "weight-robin")

DATA_FILE_EXTERNAL_PATHS_STRATEGY: Option[str] = Option(
    "data-file.external-paths.strategy",
    enum(EXTERNAL_PATH_STRATEGIES),
    "none",
    "How a new data file picks its external root: none (the table's folder), round-robin, "
    "specific-fs (round-robin over the roots of data-file.external-paths.specific-fs's scheme), "
    "entropy-inject (round-robin, plus hash folders from the file name), weight-robin (drawn by "
    "data-file.external-paths.weights).",
)

DATA_FILE_EXTERNAL_PATHS_SPECIFIC_FS: Option[str | None] = Option(
    "data-file.external-paths.specific-fs",
    STRING,
    None,
    "The scheme of the roots used by the specific-fs strategy.",
)

DATA_FILE_EXTERNAL_PATHS_WEIGHTS: Option[str | None] = Option(
    "data-file.external-paths.weights",
    STRING,
    None,
    "Comma-separated positive weights of the roots of data-file.external-paths (weight-robin).",
)

# Paimon options kept (their values checked) but not interpreted.
_KEPT: tuple[Option[Any], ...] = (
    kept("file.compression.per.level", STRING),
    kept("file.format.per.level", STRING),
    kept("changelog-file.format", STRING),
    kept("changelog-file.compression", STRING),
    kept("changelog-file.stats-mode", STRING),
    kept("file.suffix.include.compression", BOOL, "false"),
    kept("file.block-size", MEMORY),
    kept("variant.shreddingSchema", STRING, None, ("parquet.variant.shreddingSchema",)),
    kept("variant.inferShreddingSchema", BOOL, "false"),
    kept("variant.shredding.inferenceMode", enum(("per-file", "adaptive")), "per-file"),
    kept("variant.shredding.maxSchemaWidth", INT, "300"),
    kept("variant.shredding.maxSchemaDepth", INT, "50"),
    kept("variant.shredding.minFieldCardinalityRatio", DOUBLE, "0.1"),
    kept("variant.shredding.maxInferBufferRow", INT, "4096"),
    kept("variant.shredding.adaptive.maxInferBufferRow", INT, "256"),
    kept("variant.shredding.adaptive.retentionRatio", DOUBLE, "0.05"),
    kept("manifest-sort.enabled", BOOL, "false"),
    kept("manifest-sort.partition-field", STRING),
    kept("manifest-sort.max-rewrite-size", MEMORY, "256 mb"),
    kept("manifest.merge-optimize.enabled", BOOL, "true"),
    kept("cache-page-size", MEMORY, "64 kb"),
    kept("blob.target-file-size", MEMORY),
    kept("blob.split-by-file-size", BOOL),
    kept("blob.copy-buffer-size", MEMORY, "4 kb"),
    kept("metadata.stats-mode.per.level", STRING),
    kept("metadata.stats-keep-first-n-columns", INT, "-1"),
    kept("parquet.enable.dictionary", INT),
    kept("manifest.delete-file-drop-stats", BOOL, "false"),
    kept("data-file.thin-mode", BOOL, "false"),
    kept("blob-compaction.enabled", BOOL, "false"),
    kept("index-file-in-data-file-dir", BOOL, "false"),
    kept("global-index.external-path", STRING),
    kept("global-index.column-update-action", STRING, "THROW_ERROR"),
    kept("format-table.implementation", enum(("paimon", "engine")), "paimon"),
    kept("format-table.partition-path-only-value", BOOL, "false"),
    kept("format-table.file.compression", STRING),
    kept("format-table.commit-hive-sync-url", STRING),
    kept("blob-field", STRING),
    kept("blob-external-storage-path", STRING),
    kept("blob-external-storage-field", STRING),
    kept("blob-descriptor-field", STRING, None, ("blob.stored-descriptor-fields",)),
    kept("blob-as-descriptor", BOOL, "false"),
    kept("global-index.row-count-per-shard", LONG, "100000"),
    kept("global-index.build.max-shard", INT, "32"),
    kept("global-index.build.max-parallelism", INT, "4096"),
    kept("global-index.enabled", BOOL, "true"),
    kept("global-index.thread-num", INT),
    kept("vector.file.format", STRING),
    kept("vector-field", STRING),
    kept("vector.target-file-size", MEMORY),
    kept("vector-search.distribute.enabled", BOOL, "false"),
    kept("vector-search.lateral-join.batch-size", INT, "256"),
    kept("pk-vector.index.columns", STRING),
    kept("pk-btree.index.columns", STRING),
    kept("pk-bitmap.index.columns", STRING),
    kept("pk-multivalue.index.columns", STRING),
    kept("pk-full-text.index.columns", STRING),
)
