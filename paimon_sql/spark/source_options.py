"""The ``paimon_sql`` data source's options and the table they name, without pyspark: the data
source (in Spark's Python workers) and the bridge (planning native reads) both read them."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.meta import travel
from paimon_sql.meta.file_store import FileStore
from paimon_sql.options import is_table_option

NAME = "paimon_sql"

OPT_WAREHOUSE = "warehouse"
OPT_TABLE = "table"
OPT_PATH = "path"
OPT_SNAPSHOT_ID = travel.SNAPSHOT_ID
OPT_TAG_NAME = travel.TAG_NAME
OPT_TIMESTAMP_MILLIS = travel.TIMESTAMP_MILLIS
OPT_VERSION = travel.VERSION
OPT_SPLIT_TARGET_SIZE = "source.split.target-size"
OPT_SPLIT_OPEN_FILE_COST = "source.split.open-file-cost"
OPT_PARALLELISM = "paimon.read.parallelism"
OPT_BATCH_ROWS = "paimon.read.batch-rows"
OPT_OVERWRITE = "paimon.overwrite"
OPT_OVERWRITE_PARTITION = "paimon.overwrite.partition"
# a row-level write (UPDATE / MERGE INTO / DELETE of a primary-key table, the shim's PaimonRowLevel):
# "delta", and the statement (UPDATE, MERGE, DELETE)
OPT_ROW_LEVEL = "paimon.row-level"
OPT_ROW_LEVEL_COMMAND = "paimon.row-level.command"
OPT_SCAN_LOG = "paimon.debug.scan-log"
OPT_FILTER_PUSHDOWN = "paimon.filter-pushdown"
# set by the catalog shim on the Python part of a scan whose other buckets Spark's parquet reader
# reads (see paimon_sql.spark.native_read): the buckets to leave out, and the snapshot both parts read
OPT_SKIP_BUCKETS = "paimon.read.skip-buckets"
OPT_LATEST_SNAPSHOT = "paimon.read.latest-snapshot-id"
# set by the catalog shim on the scan of a row-level operation (UPDATE / MERGE INTO / DELETE of an
# append table): read only these data files (a JSON list of file names)
OPT_READ_FILES = "paimon.read.files"
# set by the catalog shim on a Python scan whose query may call input_file_name() (every scan of a
# session without the shim's SQL extension, else those its InputFileScans rule marks): the last
# column of the read schema is the hidden input-file column (paimon_sql.spark.reader.INPUT_FILE_COLUMN)
OPT_INPUT_FILE = "paimon.read.input-file"
# set by the catalog shim on every scan: the JVM's default time zone, whose wall clock system tables
# show instants in (Paimon's ZoneId.systemDefault())
OPT_TIME_ZONE = "paimon.read.time-zone"
# set by the catalog shim on a scan of sys.catalog_options: the catalog's options (JSON object),
# which are that table's rows
OPT_CATALOG_OPTIONS = "paimon.catalog-options"


@dataclass(frozen=True)
class TableRef:
    """Where a table lives: the warehouse and the identifier text (``db.t``, ``db.t$branch_b``,
    ``db.t$files``, ``sys.tables``), and the catalog's options where the table needs them."""

    warehouse: str
    table: str
    catalog_options: tuple[tuple[str, str], ...] = ()

    @staticmethod
    def of(options: Mapping[str, str]) -> TableRef:
        opts = _lower(options)
        wh, name = opts.get(OPT_WAREHOUSE), opts.get(OPT_TABLE)
        if (not wh or not name) and opts.get(OPT_PATH):
            parent, db, t = split_table_path(opts[OPT_PATH], f"Option 'path' of the {NAME} data source")
            wh, name = wh or parent, name or f"{db}.{t}"
        if not wh or not name:
            raise ValidationError(
                f"The {NAME} data source needs the options 'warehouse' and 'table' (or 'path'); "
                f"got {sorted(opts)}"
            )
        return TableRef(wh, name, _catalog_options(opts.get(OPT_CATALOG_OPTIONS)))

    @property
    def is_system(self) -> bool:
        from paimon_sql.catalog.identifier import Identifier

        ident = Identifier.parse(self.table)
        return ident.system_table is not None or ident.in_system_database

    def catalog(self) -> Any:
        from paimon_sql.catalog.factory import worker_catalog
        from paimon_sql.catalog.identifier import Identifier

        lists = Identifier.parse(self.table).in_system_database  # sys.tables & co. list the catalog
        return worker_catalog(self.warehouse, dict(self.catalog_options), lists)

    def load(self, options: Mapping[str, str] | None = None) -> Any:
        """The engine table (or system table) object; a data table with the Paimon table options
        among ``options`` (the scan's or write's: per-query and ``spark.paimon.*`` session options)
        applied as dynamic options (``Table.copy``)."""
        obj = self.catalog().get_table(self.table)
        if options is not None and hasattr(obj, "copy"):
            check_connector_options(options, self.table)
            obj = obj.copy(dynamic_options(options))
        return obj


def split_table_path(path: str, what: str) -> tuple[str, str, str]:
    """The warehouse, database and table of a table folder ``<warehouse>/<db>.db/<table>`` (a
    path or URI); the names are checked when the catalog opens the table. ``what`` names the
    argument in the error."""
    db_dir, t = os.path.split(str(path).rstrip("/"))
    parent, db = os.path.split(db_dir)
    if not db.endswith(".db") or len(db) <= 3 or not t or not parent:
        raise ValidationError(f"{what} must be a table folder <warehouse>/<db>.db/<table>, got {path!r}")
    return parent, db[:-3], t


def _catalog_options(text: str | None) -> tuple[tuple[str, str], ...]:
    if not text:
        return ()
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if not isinstance(obj, dict):
        raise ValidationError(f"Option {OPT_CATALOG_OPTIONS!r} must be a JSON object of catalog options, got {text!r}")
    return tuple((str(k), str(v)) for k, v in obj.items())


# time travel is resolved by paimon_sql.meta.travel (not a dynamic option of the table)
TIME_TRAVEL_KEYS = (*travel.TRAVEL_OPTIONS, "log.scan.timestamp-millis")

# Paimon's Spark connector options (SparkConnectorOptions) that change results and that paimon_sql
# does not implement: the only value accepted (their default) and why. The others (streaming read
# limits, write.use-v2-write, requiredSparkConfsCheck.enabled, split sizing...) change nothing here;
# read.allow.fullScan is applied (a table option of the engine, see paimon_sql.options.scan);
# write.hive-style-dynamic-partition.enabled is applied by the shim's HiveStyleDynamicPartition rule,
# legacy-timestamp-mapping.enabled by the shim and the Spark type mapping (spark_types.py);
# write.merge-schema* by the shim's MergeSchemaWrites rule for batch writes by name and by
# paimon_sql.spark.stream_writer for streaming writes.
CONNECTOR_NOT_IMPLEMENTED: dict[str, tuple[str, str]] = {
    "read.changelog": ("false", "batch reads with row kinds are not implemented (streaming reads take it: "
                       "spark.readStream.format('paimon').option('read.changelog', 'true').load(path))"),
}



def check_connector_options(
    options: Mapping[str, str], table: str, refused: Mapping[str, tuple[str, str]] = CONNECTOR_NOT_IMPLEMENTED,
) -> None:
    """Refuses Spark connector options paimon_sql does not implement (UnsupportedError naming them
    and saying why) instead of ignoring them."""
    lowered = {k.lower(): (k, v) for k, v in refused.items()}
    for key, value in _lower(options).items():
        if key not in lowered:
            continue
        name, (accepted, why) = lowered[key]
        if value.strip().lower() != accepted:
            raise UnsupportedError(
                f"Option {name!r} = {value!r} (table {table}) is not supported by paimon_sql yet; "
                f"only {accepted!r} is: {why}"
            )


def dynamic_options(options: Mapping[str, str]) -> dict[str, str]:
    """The Paimon table options among a scan's or write's options (time travel aside, which
    ``time_travel`` reads); data-source keys (``warehouse``, ``paimon.*``) and unknown keys are not."""
    return {
        k: str(v) for k, v in _lower(options).items()
        if k not in TIME_TRAVEL_KEYS and k != OPT_PATH and is_table_option(k)
    }


def _lower(options: Mapping[str, str]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in options.items()}


def _bool_option(opts: Mapping[str, str], key: str) -> bool:
    """``opts[key]`` as true or false (unset: false); a ValidationError naming the option, and the
    table when the options name one (``table`` or ``path``), otherwise."""
    raw = (opts.get(key) or "false").strip().lower()
    if raw not in ("true", "false"):
        table = opts.get(OPT_TABLE) or opts.get(OPT_PATH)
        of = f" of table {table}" if table else ""
        raise ValidationError(f"Option {key!r}{of} must be true or false, got {opts.get(key)!r}")
    return raw == "true"


def _int_option(opts: Mapping[str, str], key: str) -> int | None:
    raw = opts.get(key)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValidationError(f"Option {key!r} must be an integer, got {raw!r}") from None


def time_travel(options: Mapping[str, str], table: Any) -> dict[str, Any]:
    """Keyword arguments of ``Table.plan`` for the time-travel options (at most one may be set;
    ``paimon_sql.meta.travel`` resolves them)."""
    opts = {k: v for k, v in _lower(options).items() if k in TIME_TRAVEL_KEYS}
    tt = travel.TimeTravel.of_options(opts, table.store)
    return {k: v for k, v in dataclasses.asdict(tt).items() if v is not None}


def _resolved_store(table: Any, tt: Mapping[str, Any]) -> FileStore:
    """The store (schema) a read of ``table`` with time travel ``tt`` uses, without planning."""
    store: FileStore = table.resolve_read(**tt)[1]
    return store


def skip_buckets(options: Mapping[str, str]) -> frozenset[tuple[bytes, int]]:
    """The (partition BinaryRow, bucket) pairs of ``paimon.read.skip-buckets`` (JSON: a list of
    [partition hex, bucket])."""
    raw = _lower(options).get(OPT_SKIP_BUCKETS)
    if not raw:
        return frozenset()
    try:
        pairs = json.loads(raw)
        return frozenset((bytes.fromhex(str(p)), int(b)) for p, b in pairs)
    except (ValueError, TypeError) as e:
        raise ValidationError(f"Option {OPT_SKIP_BUCKETS!r} must be a JSON list of [partition hex, bucket]: {e}") from e


def read_files(options: Mapping[str, str]) -> frozenset[str] | None:
    """The data file names of ``paimon.read.files`` (None: every file)."""
    raw = _lower(options).get(OPT_READ_FILES)
    if raw is None:
        return None
    try:
        names = json.loads(raw)
        if not isinstance(names, list):
            raise TypeError("not a list")
        return frozenset(str(n) for n in names)
    except (ValueError, TypeError) as e:
        raise ValidationError(f"Option {OPT_READ_FILES!r} must be a JSON list of data file names: {e}") from e


def read_snapshot(options: Mapping[str, str], table: Any) -> dict[str, Any]:
    """Keyword arguments of ``Table.plan`` for a scan: its time travel, else the snapshot the shim
    pinned as the latest (``paimon.read.latest-snapshot-id``), else none (the latest)."""
    tt = time_travel(options, table)
    pinned = _int_option(_lower(options), OPT_LATEST_SNAPSHOT)
    if not tt and pinned is not None:
        return {"latest_snapshot_id": pinned}
    return tt
