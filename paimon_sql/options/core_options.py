"""``CoreOptions``: typed, read-only access to a table's options, like Paimon's ``CoreOptions``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TypeVar, overload

from paimon_sql.errors import ValidationError
from paimon_sql.fs.data_paths import (
    ExternalPathProvider,
    check_data_directory,
    local_roots,
    parse_root,
    parse_weights,
)
from paimon_sql.options.formats import (
    CHANGELOG_FILE_PREFIX,
    DATA_FILE_EXTERNAL_PATHS,
    DATA_FILE_EXTERNAL_PATHS_SPECIFIC_FS,
    DATA_FILE_EXTERNAL_PATHS_STRATEGY,
    DATA_FILE_EXTERNAL_PATHS_WEIGHTS,
    DATA_FILE_PATH_DIRECTORY,
    DATA_FILE_PREFIX,
    FILE_COMPRESSION,
    FILE_COMPRESSION_ZSTD_LEVEL,
    FILE_FORMAT,
    FILE_INDEX_COLUMNS,
    MANIFEST_COMPRESSION,
    MANIFEST_FORMAT,
    MANIFEST_MERGE_MIN_COUNT,
    METADATA_STATS_MODE,
    TARGET_FILE_SIZE,
)
from paimon_sql.options.layout import (
    BRANCH,
    BUCKET,
    BUCKET_KEY,
    DYNAMIC_BUCKET_ASSIGNER_PARALLELISM,
    DYNAMIC_BUCKET_INITIAL_BUCKETS,
    DYNAMIC_BUCKET_MAX_BUCKETS,
    DYNAMIC_BUCKET_TARGET_ROW_NUM,
    PARTITION,
    PARTITION_DEFAULT_NAME,
    PARTITION_LEGACY_NAME,
    PATH,
    PRIMARY_KEY,
    TYPE,
)
from paimon_sql.options.lifecycle import (
    CHANGELOG_NUM_RETAINED_MAX,
    CHANGELOG_NUM_RETAINED_MIN,
    CHANGELOG_TIME_RETAINED,
    CONSUMER_EXPIRATION_TIME,
    SNAPSHOT_CLEAN_EMPTY_DIRECTORIES,
    SNAPSHOT_EXPIRE_LIMIT,
    SNAPSHOT_NUM_RETAINED_MAX,
    SNAPSHOT_NUM_RETAINED_MIN,
    SNAPSHOT_TIME_RETAINED,
)
from paimon_sql.options.merge import (
    AGGREGATION_REMOVE_RECORD_ON_DELETE,
    CHANGELOG_PRODUCER,
    DELETION_VECTORS_BITMAP64,
    DELETION_VECTORS_ENABLED,
    DELETION_VECTORS_MERGE_ON_READ,
    FIELD_AGGREGATE_FUNCTION,
    FIELD_COUNT_LIMIT,
    FIELD_DISTINCT,
    FIELD_IGNORE_RETRACT,
    FIELD_LIST_AGG_DELIMITER,
    FIELD_NESTED_KEY,
    FIELD_SEQUENCE_GROUP,
    FIELD_STATS_MODE,
    FIELD_TS_FIELD,
    FIELDS_DEFAULT_AGGREGATE_FUNCTION,
    IGNORE_DELETE,
    MERGE_ENGINE,
    PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE,
    PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP,
    ROWKIND_FIELD,
    SEQUENCE_FIELD,
    SEQUENCE_FIELD_SORT_ORDER,
)
from paimon_sql.options.option import Option
from paimon_sql.options.parsing import INT_MAX
from paimon_sql.options.registry import option_def
from paimon_sql.options.scan import (
    READ_ALLOW_FULL_SCAN,
    SCAN_IGNORE_CORRUPT_FILES,
    SCAN_IGNORE_LOST_FILES,
    SCAN_MODE,
    SCAN_SNAPSHOT_ID,
    SCAN_TAG_NAME,
    SCAN_TIMESTAMP_MILLIS,
    SOURCE_SPLIT_OPEN_FILE_COST,
)
from paimon_sql.options.write import (
    COMMIT_MAX_RETRIES,
    COMMIT_MAX_RETRY_WAIT,
    COMMIT_MIN_RETRY_WAIT,
    COMMIT_TIMEOUT,
    COMPACTION_INCREMENTAL_SIZE_THRESHOLD,
    COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT,
    COMPACTION_MIN_FILE_NUM,
    COMPACTION_OPTIMIZATION_INTERVAL,
    COMPACTION_SIZE_RATIO,
    COMPACTION_SMALL_FILE_RATIO,
    COMPACTION_TOTAL_SIZE_THRESHOLD,
    FULL_COMPACTION_DELTA_COMMITS,
    NUM_LEVELS,
    NUM_SORTED_RUN_COMPACTION_TRIGGER,
    NUM_SORTED_RUN_STOP_TRIGGER,
    WRITE_BUFFER_SIZE,
    WRITE_ONLY,
)

T = TypeVar("T")


def where_suffix(where: str | None) -> str:
    return f" of table {where}" if where else ""


def invalid_message(key: str, value: str, where: str | None, expected: str) -> str:
    return f"Invalid value {value!r} for option {key!r}{where_suffix(where)}: {expected}"


class CoreOptions(Mapping[str, str]):
    """Typed, read-only view of a table's options (a ``Mapping[str, str]`` itself).

    Accessors parse on use and raise ``ValidationError`` naming the key, the value and the table
    (``where``) for a bad value. Unknown keys are kept and returned as raw strings by ``get``.
    """

    def __init__(self, options: Mapping[str, str], where: str | None = None) -> None:
        self._options: dict[str, str] = dict(options)
        self._where = where

    # --- Mapping ---------------------------------------------------------------------------
    def __getitem__(self, key: str) -> str:
        return self._options[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._options)

    def __len__(self) -> int:
        return len(self._options)

    def __repr__(self) -> str:
        return f"CoreOptions({self._options!r})"

    @property
    def raw(self) -> dict[str, str]:
        """A copy of the options as strings."""
        return dict(self._options)

    @property
    def where(self) -> str | None:
        return self._where

    def with_options(self, updates: Mapping[str, str]) -> CoreOptions:
        """These options with ``updates`` applied (e.g. dynamic options of one read)."""
        merged = dict(self._options)
        merged.update(updates)
        return CoreOptions(merged, self._where)

    # --- generic access --------------------------------------------------------------------
    def _lookup(self, d: Option[Any], key: str) -> tuple[str, str] | None:
        if key in self._options:
            return key, self._options[key]
        for fk in d.fallback_keys:
            if fk in self._options:
                return fk, self._options[fk]
        return None

    def _parse(self, d: Option[T], key: str, text: str) -> T:
        try:
            return d.parse(text)
        except ValidationError as e:
            raise ValidationError(invalid_message(key, text, self._where, str(e))) from None

    def _value(self, d: Option[Any], key: str, default: Any) -> Any:
        found = self._lookup(d, key)
        if found is not None:
            return self._parse(d, found[0], found[1])
        if d.default is not None:
            return self._parse(d, key, d.default)
        return default

    @overload
    def get(self, key: Option[T], /) -> T: ...

    @overload
    def get(self, key: str, default: Any = None, /) -> Any: ...

    def get(self, key: Option[Any] | str, default: Any = None, /) -> Any:
        """Typed value of an option: ``get(BUCKET)`` is the value of ``bucket`` (or of one of its
        fallback keys), else its default (None for an option without one).

        ``get(key)`` with a key string does the same for the option ``key`` names (its default,
        else ``default``, when unset); a key matching no definition returns its raw string (or
        ``default``)."""
        if isinstance(key, Option):
            return self._value(key, key.key, None)
        d = option_def(key)
        if d is None:
            return self._options.get(key, default)
        return self._value(d, key, default)

    def contains(self, key: Option[Any] | str) -> bool:
        """True when ``key`` (or one of its fallback keys) is set."""
        if isinstance(key, Option):
            return self._lookup(key, key.key) is not None
        d = option_def(key)
        if d is None:
            return key in self._options
        return self._lookup(d, key) is not None

    # --- table layout ----------------------------------------------------------------------
    @property
    def table_type(self) -> str:
        return self.get(TYPE)

    @property
    def path(self) -> str | None:
        return self.get(PATH)

    @property
    def branch(self) -> str:
        return self.get(BRANCH)

    @property
    def primary_keys(self) -> list[str]:
        return self.get(PRIMARY_KEY) or []

    @property
    def partition_keys(self) -> list[str]:
        return self.get(PARTITION) or []

    @property
    def bucket(self) -> int:
        return self.get(BUCKET)

    @property
    def bucket_key(self) -> list[str]:
        """The ``bucket-key`` option (empty when unset; the default key depends on the schema)."""
        return self.get(BUCKET_KEY) or []

    @property
    def dynamic_bucket_target_row_num(self) -> int:
        return self.get(DYNAMIC_BUCKET_TARGET_ROW_NUM)

    @property
    def dynamic_bucket_initial_buckets(self) -> int | None:
        return self.get(DYNAMIC_BUCKET_INITIAL_BUCKETS)

    @property
    def dynamic_bucket_max_buckets(self) -> int:
        return self.get(DYNAMIC_BUCKET_MAX_BUCKETS)

    def dynamic_bucket_assigners(self, parallelism: int | None = None) -> int:
        """Number of bucket assigners of one dynamic-bucket write, by Paimon's Spark writer rule:
        the assigner parallelism (``dynamic-bucket.assigner-parallelism``, else the engine's
        ``parallelism``; none for the Python API) is capped by ``dynamic-bucket.max-buckets`` when
        that is not -1 (and is the max-buckets when there is no parallelism); then
        ``dynamic-bucket.initial-buckets``, when set, is capped by it. One assigner when nothing
        applies."""
        p = self.get(DYNAMIC_BUCKET_ASSIGNER_PARALLELISM) or parallelism
        max_buckets = self.dynamic_bucket_max_buckets
        if max_buckets != -1:
            p = max_buckets if p is None else min(max_buckets, p)
        initial = self.dynamic_bucket_initial_buckets
        if initial is not None:
            return max(1, initial if p is None else min(initial, p))
        return max(1, p or 1)

    @property
    def partition_default_name(self) -> str:
        return self.get(PARTITION_DEFAULT_NAME)

    @property
    def partition_legacy_name(self) -> bool:
        return self.get(PARTITION_LEGACY_NAME)

    # --- files -----------------------------------------------------------------------------
    @property
    def file_format(self) -> str:
        """Data file format, lower case (Paimon normalises it)."""
        return self.get(FILE_FORMAT).lower()

    @property
    def file_compression(self) -> str:
        return self.get(FILE_COMPRESSION)

    @property
    def file_compression_zstd_level(self) -> int:
        return self.get(FILE_COMPRESSION_ZSTD_LEVEL)

    @property
    def manifest_format(self) -> str:
        return self.get(MANIFEST_FORMAT).lower()

    @property
    def manifest_compression(self) -> str:
        return self.get(MANIFEST_COMPRESSION)

    @property
    def manifest_merge_min_count(self) -> int:
        return self.get(MANIFEST_MERGE_MIN_COUNT)

    @property
    def data_file_prefix(self) -> str:
        return self.get(DATA_FILE_PREFIX)

    @property
    def changelog_file_prefix(self) -> str:
        return self.get(CHANGELOG_FILE_PREFIX)

    def data_file_path_directory(self, where: str | None = None) -> str | None:
        """``data-file.path-directory``, checked (a relative folder inside the table), or None."""
        v = self.get(DATA_FILE_PATH_DIRECTORY)
        if v is None:
            return None
        return check_data_directory(DATA_FILE_PATH_DIRECTORY.key, v, where or self._where or "")

    def external_path_provider(self, where: str | None = None) -> ExternalPathProvider | None:
        """The provider of external roots for new data files (Paimon's ``createExternalPaths``):
        None unless ``data-file.external-paths`` is set and the strategy is not ``none``. Each root
        needs a scheme; ``specific-fs`` keeps the roots of its scheme (and needs one); only local
        ``file:`` roots are supported (UnsupportedError naming the option otherwise)."""
        text = self.get(DATA_FILE_EXTERNAL_PATHS)
        strategy = self.get(DATA_FILE_EXTERNAL_PATHS_STRATEGY)
        if not text or strategy == "none":
            return None
        w = where or self._where or ""
        key = DATA_FILE_EXTERNAL_PATHS.key
        elements = [parse_root(key, part, w) for part in text.split(",")]
        of = where_suffix(w)
        if strategy == "specific-fs":
            fs = self.get(DATA_FILE_EXTERNAL_PATHS_SPECIFIC_FS)
            if fs is None:
                raise ValidationError(
                    f"Option {DATA_FILE_EXTERNAL_PATHS_SPECIFIC_FS.key!r}{of}: External path specificFS "
                    "should not be null when strategy is specificFS."
                )
            elements = [(sch, r) for sch, r in elements if sch.lower() == fs.lower()]
        if not elements:
            raise ValidationError(f"Option {key!r} = {text!r}{of}: External paths should not be empty")
        roots = local_roots(key, elements, w)
        weights = None
        weights_text = self.get(DATA_FILE_EXTERNAL_PATHS_WEIGHTS)
        if weights_text is not None:
            weights = parse_weights(DATA_FILE_EXTERNAL_PATHS_WEIGHTS.key, weights_text, w)
            if strategy == "weight-robin" and len(roots) >= 2 and len(weights) != len(roots):
                raise ValidationError(
                    f"Option {DATA_FILE_EXTERNAL_PATHS_WEIGHTS.key!r} = {weights_text!r}{of}: The number of "
                    f"external paths and weights should be the same. Paths: {len(roots)}, Weights: {len(weights)}"
                )
        return ExternalPathProvider(strategy, roots, weights)

    def target_file_size(self, has_pk: bool) -> int:
        """Bytes: the option, else 128 mb for primary-key tables and 256 mb for append tables."""
        v = self.get(TARGET_FILE_SIZE)
        return (128 if has_pk else 256) * 1024 * 1024 if v is None else v

    @property
    def compaction_optimization_interval_ms(self) -> int | None:
        return self.get(COMPACTION_OPTIMIZATION_INTERVAL)

    @property
    def compaction_total_size_threshold(self) -> int | None:
        return self.get(COMPACTION_TOTAL_SIZE_THRESHOLD)

    @property
    def compaction_incremental_size_threshold(self) -> int | None:
        return self.get(COMPACTION_INCREMENTAL_SIZE_THRESHOLD)

    @property
    def compaction_min_file_num(self) -> int:
        return self.get(COMPACTION_MIN_FILE_NUM)

    def compaction_file_size(self, has_pk: bool) -> int:
        """Bytes: files below this size are rewritten by compaction (target-file-size times
        compaction.small-file-ratio, as Paimon's compactionFileSize)."""
        return int(self.target_file_size(has_pk) * self.get(COMPACTION_SMALL_FILE_RATIO))

    @property
    def metadata_stats_mode(self) -> str:
        return self.get(METADATA_STATS_MODE)

    def field_stats_mode(self, name: str) -> str:
        """Stats mode of one column: ``fields.<name>.stats-mode``, else ``metadata.stats-mode``."""
        v = self.get(FIELD_STATS_MODE.of(name))
        return self.metadata_stats_mode if v is None else v

    def file_index_columns(self) -> dict[str, list[str]]:
        """Index type -> columns, from the ``file-index.<type>.columns`` options."""
        out: dict[str, list[str]] = {}
        for key in self._options:
            if key.startswith("file-index.") and key.endswith(".columns") and key.count(".") == 2:
                index_type = key[len("file-index.") : -len(".columns")]
                columns = self.get(FILE_INDEX_COLUMNS.of(index_type))
                out[index_type] = columns or []
        return out

    # --- writing ---------------------------------------------------------------------------
    @property
    def write_buffer_size(self) -> int:
        return self.get(WRITE_BUFFER_SIZE)

    @property
    def write_only(self) -> bool:
        return self.get(WRITE_ONLY)

    @property
    def num_sorted_run_compaction_trigger(self) -> int:
        return self.get(NUM_SORTED_RUN_COMPACTION_TRIGGER)

    @property
    def num_sorted_run_stop_trigger(self) -> int:
        """The option (default compaction trigger + 3), never below the compaction trigger."""
        trigger = self.num_sorted_run_compaction_trigger
        stop = self.get(NUM_SORTED_RUN_STOP_TRIGGER)
        if stop is None:
            stop = min(trigger + 3, INT_MAX)
        return max(trigger, stop)

    @property
    def num_levels(self) -> int:
        """The option, default compaction trigger + 1 (so compaction never ends in level 0)."""
        v = self.get(NUM_LEVELS)
        return min(self.num_sorted_run_compaction_trigger + 1, INT_MAX) if v is None else v

    @property
    def compaction_max_size_amplification_percent(self) -> int:
        return self.get(COMPACTION_MAX_SIZE_AMPLIFICATION_PERCENT)

    @property
    def compaction_size_ratio(self) -> int:
        return self.get(COMPACTION_SIZE_RATIO)

    @property
    def full_compaction_delta_commits(self) -> int | None:
        return self.get(FULL_COMPACTION_DELTA_COMMITS)

    @property
    def commit_max_retries(self) -> int:
        return self.get(COMMIT_MAX_RETRIES)

    @property
    def commit_timeout_ms(self) -> int | None:
        return self.get(COMMIT_TIMEOUT)

    @property
    def commit_min_retry_wait_ms(self) -> int:
        return self.get(COMMIT_MIN_RETRY_WAIT)

    @property
    def commit_max_retry_wait_ms(self) -> int:
        return self.get(COMMIT_MAX_RETRY_WAIT)

    # --- primary-key tables ----------------------------------------------------------------
    @property
    def merge_engine(self) -> str:
        return self.get(MERGE_ENGINE)

    @property
    def sequence_fields(self) -> list[str]:
        return self.get(SEQUENCE_FIELD) or []

    @property
    def sequence_field_ascending(self) -> bool:
        return self.get(SEQUENCE_FIELD_SORT_ORDER) == "ascending"

    @property
    def rowkind_field(self) -> str | None:
        return self.get(ROWKIND_FIELD)

    @property
    def ignore_delete(self) -> bool:
        return self.get(IGNORE_DELETE)

    @property
    def partial_update_remove_record_on_delete(self) -> bool:
        return self.get(PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE)

    @property
    def partial_update_remove_record_on_sequence_group(self) -> list[str]:
        return self.get(PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP) or []

    @property
    def aggregation_remove_record_on_delete(self) -> bool:
        return self.get(AGGREGATION_REMOVE_RECORD_ON_DELETE)

    @property
    def fields_default_aggregate_function(self) -> str | None:
        return self.get(FIELDS_DEFAULT_AGGREGATE_FUNCTION)

    def field_aggregate_function(self, name: str) -> str | None:
        """``fields.<name>.aggregate-function`` (None when unset; no default applied)."""
        return self.get(FIELD_AGGREGATE_FUNCTION.of(name))

    def field_ignore_retract(self, name: str) -> bool:
        return self.get(FIELD_IGNORE_RETRACT.of(name))

    def field_nested_key(self, name: str) -> list[str]:
        return self.get(FIELD_NESTED_KEY.of(name)) or []

    def field_count_limit(self, name: str) -> int:
        return self.get(FIELD_COUNT_LIMIT.of(name))

    def field_distinct(self, name: str) -> bool:
        return self.get(FIELD_DISTINCT.of(name))

    def field_list_agg_delimiter(self, name: str) -> str:
        return self.get(FIELD_LIST_AGG_DELIMITER.of(name))

    def field_merge_map_ts_field(self, name: str) -> str | None:
        return self.get(FIELD_TS_FIELD.of(name))

    def field_default_values(self) -> dict[str, str]:
        """Every ``fields.<name>.default-value``: column name -> the value's text (the name is the
        key between ``fields.`` and ``.default-value``, as Paimon takes it)."""
        prefix, suffix = "fields.", ".default-value"
        return {
            key[len(prefix):-len(suffix)]: value
            for key, value in self._options.items()
            if key.startswith(prefix) and key.endswith(suffix) and len(key) > len(prefix) + len(suffix)
        }

    def sequence_groups(self) -> dict[tuple[str, ...], list[str]]:
        """partial-update sequence groups: sequence columns -> the columns they guard."""
        out: dict[tuple[str, ...], list[str]] = {}
        for key in self._options:
            if key.startswith("fields.") and key.endswith(".sequence-group"):
                seq = key[len("fields.") : -len(".sequence-group")]
                if "." in seq:
                    continue
                guarded = self.get(FIELD_SEQUENCE_GROUP.of(seq))
                out[tuple(s.strip() for s in seq.split(","))] = guarded or []
        return out

    @property
    def changelog_producer(self) -> str:
        return self.get(CHANGELOG_PRODUCER)

    @property
    def deletion_vectors_enabled(self) -> bool:
        return self.get(DELETION_VECTORS_ENABLED)

    @property
    def deletion_vectors_merge_on_read(self) -> bool:
        return self.get(DELETION_VECTORS_MERGE_ON_READ)

    @property
    def deletion_vectors_bitmap64(self) -> bool:
        return self.get(DELETION_VECTORS_BITMAP64)

    # --- snapshots -------------------------------------------------------------------------
    @property
    def snapshot_num_retained_min(self) -> int:
        return self.get(SNAPSHOT_NUM_RETAINED_MIN)

    @property
    def snapshot_num_retained_max(self) -> int:
        return self.get(SNAPSHOT_NUM_RETAINED_MAX)

    @property
    def snapshot_time_retained_ms(self) -> int:
        return self.get(SNAPSHOT_TIME_RETAINED)

    @property
    def snapshot_expire_limit(self) -> int:
        return self.get(SNAPSHOT_EXPIRE_LIMIT)

    @property
    def snapshot_clean_empty_directories(self) -> bool:
        return self.get(SNAPSHOT_CLEAN_EMPTY_DIRECTORIES)

    @property
    def changelog_num_retained_min(self) -> int:
        v = self.get(CHANGELOG_NUM_RETAINED_MIN)
        return self.snapshot_num_retained_min if v is None else v

    @property
    def changelog_num_retained_max(self) -> int:
        v = self.get(CHANGELOG_NUM_RETAINED_MAX)
        return self.snapshot_num_retained_max if v is None else v

    @property
    def changelog_time_retained_ms(self) -> int:
        v = self.get(CHANGELOG_TIME_RETAINED)
        return self.snapshot_time_retained_ms if v is None else v

    @property
    def consumer_expiration_time_ms(self) -> int | None:
        return self.get(CONSUMER_EXPIRATION_TIME)

    # --- reading ---------------------------------------------------------------------------
    @property
    def scan_mode(self) -> str:
        return self.get(SCAN_MODE)

    @property
    def scan_snapshot_id(self) -> int | None:
        return self.get(SCAN_SNAPSHOT_ID)

    @property
    def scan_tag_name(self) -> str | None:
        return self.get(SCAN_TAG_NAME)

    @property
    def scan_timestamp_millis(self) -> int | None:
        return self.get(SCAN_TIMESTAMP_MILLIS)

    @property
    def source_split_open_file_cost(self) -> int:
        return self.get(SOURCE_SPLIT_OPEN_FILE_COST)

    @property
    def read_allow_full_scan(self) -> bool:
        return self.get(READ_ALLOW_FULL_SCAN)

    @property
    def scan_ignore_corrupt_files(self) -> bool:
        return self.get(SCAN_IGNORE_CORRUPT_FILES)

    @property
    def scan_ignore_lost_files(self) -> bool:
        return self.get(SCAN_IGNORE_LOST_FILES)
