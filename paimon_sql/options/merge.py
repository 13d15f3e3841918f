"""Options of primary-key tables: merge engines, sequence and row-kind fields, the per-column
``fields.<name>.*`` options, changelog producers, deletion vectors."""

from __future__ import annotations

from typing import Any

from paimon_sql.options.option import Family, Option, kept
from paimon_sql.options.parsing import (
    BOOL,
    INT,
    INT_MAX,
    LIST,
    MEMORY,
    STATS_MODE,
    STRING,
    enum,
)

MERGE_ENGINES = ("deduplicate", "partial-update", "aggregation", "first-row")
CHANGELOG_PRODUCERS = ("none", "input", "full-compaction", "lookup")
AGGREGATE_FUNCTIONS = (
    "sum",
    "product",
    "max",
    "min",
    "last_value",
    "last_non_null_value",
    "first_value",
    "first_non_null_value",
    "first_not_null_value",
    "listagg",
    "bool_and",
    "bool_or",
    "collect",
    "merge_map",
    "merge_map_with_keytime",
    "nested_update",
    "nested_partial_update",
    "rbm32",
    "rbm64",
    "hll_sketch",
    "theta_sketch",
    "primary-key",
)
"""Field aggregators built into Paimon 1.4 (``first_not_null_value`` is the legacy spelling)."""

FIELD = r"[^.]+"
"""A field-name segment of a ``fields.<name>.*`` key: Paimon takes the name(s) from the second
dot-separated segment."""


MERGE_ENGINE: Option[str] = Option(
    "merge-engine",
    enum(MERGE_ENGINES),
    "deduplicate",
    "How rows with the same primary key merge: deduplicate keeps the last, partial-update "
    "keeps the last non-null value of each column, aggregation aggregates each column, "
    "first-row keeps the first.",
)

SEQUENCE_FIELD: Option[list[str] | None] = Option(
    "sequence.field",
    LIST,
    None,
    "Columns that order rows of the same key (instead of write order); a later sequence wins.",
)

SEQUENCE_FIELD_SORT_ORDER: Option[str] = Option(
    "sequence.field.sort-order",
    enum(("ascending", "descending")),
    "ascending",
    "Whether the largest (ascending) or smallest (descending) sequence.field wins.",
)

ROWKIND_FIELD: Option[str | None] = Option(
    "rowkind.field",
    STRING,
    None,
    "Column whose value ('+I', '-U', '+U', '-D') gives each input row's kind.",
)

IGNORE_DELETE: Option[bool] = Option(
    "ignore-delete",
    BOOL,
    "false",
    "Drop delete (-D) rows on write.",
    fallback_keys=(
        "first-row.ignore-delete",
        "deduplicate.ignore-delete",
        "partial-update.ignore-delete",
    ),
)

IGNORE_UPDATE_BEFORE: Option[bool] = Option(
    "ignore-update-before",
    BOOL,
    "false",
    "Drop update-before (-U) rows on write.",
)

PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE: Option[bool] = Option(
    "partial-update.remove-record-on-delete",
    BOOL,
    "false",
    "partial-update engine: a -D row removes the whole row.",
)

PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP: Option[list[str] | None] = Option(
    "partial-update.remove-record-on-sequence-group",
    LIST,
    None,
    "partial-update engine: sequence fields; a -D row that advances the group of one of them (its "
    "sequence fields set and not older than the row's) removes the whole row.",
)

AGGREGATION_REMOVE_RECORD_ON_DELETE: Option[bool] = Option(
    "aggregation.remove-record-on-delete",
    BOOL,
    "false",
    "aggregation engine: a -D row removes the whole row.",
)

FIELDS_DEFAULT_AGGREGATE_FUNCTION: Option[str | None] = Option(
    "fields.default-aggregate-function",
    enum(AGGREGATE_FUNCTIONS),
    None,
    "Aggregate function of every column without its own fields.<name>.aggregate-function "
    "(aggregation and partial-update engines).",
)

CHANGELOG_PRODUCER: Option[str] = Option(
    "changelog-producer",
    enum(CHANGELOG_PRODUCERS),
    "none",
    "How changelog files are produced: none, input (written alongside the data), "
    "full-compaction or lookup. Only for primary-key tables.",
)

CHANGELOG_ROW_DEDUPLICATE: Option[bool] = Option(
    "changelog-producer.row-deduplicate",
    BOOL,
    "false",
    "lookup and full-compaction producers: emit no -U/+U for a key whose row did not change.",
)

CHANGELOG_ROW_DEDUPLICATE_IGNORE_FIELDS: Option[str] = Option(
    "changelog-producer.row-deduplicate-ignore-fields",
    STRING,
    None,
    "Comma-separated columns changelog-producer.row-deduplicate does not compare.",
)

LOOKUP_COMPACT: Option[str] = Option(
    "lookup-compact",
    STRING,
    "RADICAL",
    "Tables that need lookup: RADICAL moves level-0 files up at every compaction; GENTLE only at "
    "every lookup-compact.max-interval-th compaction pick of a writer (case-insensitive).",
)

LOOKUP_COMPACT_MAX_INTERVAL: Option[int] = Option(
    "lookup-compact.max-interval",
    INT,
    None,
    "lookup-compact GENTLE: compaction picks between forced moves of level 0 (default: twice "
    "num-sorted-run.compaction-trigger, never less than it).",
)

LOOKUP_CACHE_MAX_MEMORY_SIZE: Option[int] = Option(
    "lookup.cache-max-memory-size",
    MEMORY,
    "256 mb",
    "changelog-producer lookup: at most this much of a looked-up file is decoded in memory at a time "
    "(compactions read the levels above their output in batches of a quarter of it).",
)

DELETION_VECTORS_ENABLED: Option[bool] = Option(
    "deletion-vectors.enabled",
    BOOL,
    "false",
    "Mark replaced and deleted rows in deletion vectors at write time so reads need no merge "
    "(primary-key tables: rows replaced by newer ones; append tables: rows a DELETE removes).",
)

DV_INDEX_FILE_TARGET_SIZE: Option[int] = Option(
    "deletion-vector.index-file.target-size",
    MEMORY,
    "2 mb",
    "Bucket-unaware append tables: a new deletion-vector index file is started once one grows past this.",
)

DELETION_VECTORS_BITMAP64: Option[bool] = Option(
    "deletion-vectors.bitmap64",
    BOOL,
    "false",
    "Store deletion vectors as 64-bit roaring bitmaps (the Iceberg-compatible layout).",
)

DELETION_VECTORS_MERGE_ON_READ: Option[bool] = Option(
    "deletion-vectors.merge-on-read",
    BOOL,
    "false",
    "Deletion-vector primary-key tables: batch reads also read the level-0 files that compaction "
    "has not turned into deletion vectors yet, merging them by key (by default they are skipped).",
)

PK_CLUSTERING_OVERRIDE: Option[bool] = Option(
    "pk-clustering-override",
    BOOL,
    "false",
    "Cluster primary-key tables by other columns (requires deletion vectors).",
)


FIELD_AGGREGATE_FUNCTION: Family[str | None] = Family(
    rf"fields\.{FIELD}\.aggregate-function",
    Option(
        "fields.<name>.aggregate-function",
        enum(AGGREGATE_FUNCTIONS),
        None,
        "Aggregate function of a column (aggregation engine; partial-update with sequence groups).",
    ),
)

FIELD_IGNORE_RETRACT: Family[bool] = Family(
    rf"fields\.{FIELD}\.ignore-retract",
    Option(
        "fields.<name>.ignore-retract",
        BOOL,
        "false",
        "Aggregation: ignore retractions (-U/-D) for this column instead of failing.",
    ),
)

FIELD_SEQUENCE_GROUP: Family[list[str] | None] = Family(
    rf"fields\.{FIELD}\.sequence-group",
    Option(
        "fields.<name>.sequence-group",
        LIST,
        None,
        "partial-update: the columns updated only when the sequence column(s) <name> "
        "(comma-separated in the key) advance.",
    ),
)

FIELD_DEFAULT_VALUE: Family[str | None] = Family(
    rf"fields\.{FIELD}\.default-value",
    Option(
        "fields.<name>.default-value",
        STRING,
        None,
        "Value a read returns for a null value of this column, after the merge (Paimon up to 1.2; "
        "not on key or partition columns; Paimon 1.3+ keeps column defaults in the schema instead).",
    ),
)

FIELD_NESTED_KEY: Family[list[str] | None] = Family(
    rf"fields\.{FIELD}\.nested-key",
    Option(
        "fields.<name>.nested-key",
        LIST,
        None,
        "nested_update / nested_partial_update aggregators: the key fields of the nested rows.",
    ),
)

FIELD_COUNT_LIMIT: Family[int] = Family(
    rf"fields\.{FIELD}\.count-limit",
    Option(
        "fields.<name>.count-limit",
        INT,
        str(INT_MAX),
        "nested_update aggregator: keep at most this many nested rows.",
    ),
)

FIELD_DISTINCT: Family[bool] = Family(
    rf"fields\.{FIELD}\.distinct",
    Option(
        "fields.<name>.distinct",
        BOOL,
        "false",
        "collect / listagg aggregators: drop duplicate elements.",
    ),
)

FIELD_LIST_AGG_DELIMITER: Family[str] = Family(
    rf"fields\.{FIELD}\.list-agg-delimiter",
    Option(
        "fields.<name>.list-agg-delimiter",
        STRING,
        ",",
        "listagg aggregator: separator between concatenated values.",
    ),
)

FIELD_TS_FIELD: Family[str | None] = Family(
    rf"fields\.{FIELD}\.ts-field",
    Option(
        "fields.<name>.ts-field",
        STRING,
        None,
        "merge_map_with_keytime aggregator: the time field of the map values.",
    ),
)

FIELD_STATS_MODE: Family[str | None] = Family(
    rf"fields\.{FIELD}\.stats-mode",
    Option(
        "fields.<name>.stats-mode",
        STATS_MODE,
        None,
        "Statistics mode of one column, overriding metadata.stats-mode.",
    ),
)

# Paimon options kept (their values checked) but not interpreted.
_KEPT: tuple[Option[Any], ...] = (
    kept("key-value.sequence_number.enabled", BOOL, "false"),
    kept("sequence.snapshot-ordering", BOOL, "false"),
    kept("deletion-vectors.modifiable", BOOL, "false"),
    kept("delete.force-produce-changelog", BOOL, "false"),
    kept("force-lookup", BOOL, "false"),
    kept("lookup-wait", BOOL, "true", ("changelog-producer.lookup-wait",)),
)
