"""Bridge calls on tables: loading one (its Spark schema, properties, time travel and bucket
layout) and the DDL (CREATE, ALTER, DROP, RENAME)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from paimon_sql.catalog.catalog import Catalog, system_database_error
from paimon_sql.catalog.identifier import Identifier
from paimon_sql.errors import (
    DatabaseNotFoundError,
    PaimonError,
    TableNotFoundError,
    UnsupportedError,
    ValidationError,
)
from paimon_sql.meta.schema import TableSchema
from paimon_sql.meta.schema_change import (
    AddColumn,
    DropColumn,
    Move,
    RemoveOption,
    RenameColumn,
    SchemaChange,
    SetOption,
    UpdateColumnComment,
    UpdateColumnNullability,
    UpdateColumnPosition,
    UpdateColumnType,
    UpdateComment,
)
from paimon_sql.meta.travel import TimeTravel, resolve
from paimon_sql.options import CoreOptions, validate_options
from paimon_sql.spark import spark_types
from paimon_sql.spark.column_defaults import (
    add_default_metadata,
    alter_with_defaults,
    column_default_changes,
    spark_defaults,
)
from paimon_sql.spark.handlers.common import (
    IGNORED_PROPS,
    OPTION_PREFIX,
    PROP_COMMENT,
    PROP_EXTERNAL,
    PROP_LOCATION,
    PROP_PROVIDER,
    PROVIDER,
    catalog_of,
    data_table,
    identifier,
    source_options,
    str_param,
)
from paimon_sql.spark.handlers.registry import WARNINGS_KEY, Params, Result, handler
from paimon_sql.spark.source_options import (
    OPT_CATALOG_OPTIONS,
    check_connector_options,
    dynamic_options,
    time_travel,
)
from paimon_sql.table.table import Table

if TYPE_CHECKING:
    import pyarrow as pa


@handler("list_tables", read_only=True)
def list_tables(params: Params) -> Result:
    return {"tables": catalog_of(params).list_tables(str_param(params, "namespace"))}


def _time_travel(table: Table, params: Params) -> tuple[dict[str, str], TableSchema]:
    """Data source options and the schema of ``VERSION AS OF`` (Paimon's ``scan.version``) /
    ``TIMESTAMP AS OF`` (microseconds: ``scan.timestamp-millis``)."""
    version = params.get("version")
    ts_micros = params.get("timestamp_micros")
    if version is None and ts_micros is None:
        return {}, table.schema
    if version is not None:
        tt = TimeTravel.of_version(str(version), table.store)
    else:
        tt = TimeTravel(timestamp_ms=int(ts_micros) // 1000)  # type: ignore[arg-type]
    _, store, _ = resolve(table.store, tt, f"a read of table {table.name}")
    return tt.as_options(), store.schema


def _table_properties(table: Table, schema: TableSchema) -> dict[str, str]:
    props = dict(schema.options)
    if schema.primary_keys:
        props["primary-key"] = ",".join(schema.primary_keys)
    props[PROP_PROVIDER] = PROVIDER
    if schema.comment is not None:  # DESCRIBE TABLE EXTENDED's 'Comment' row, as Paimon's SparkTable
        props[PROP_COMMENT] = schema.comment
    props[PROP_LOCATION] = table.path
    return props


CATALOG_OPTIONS = "catalog_options"  # the global system table whose rows are the catalog's options


def _describe_global(cat: Catalog, ident: Identifier, params: Params) -> Result:
    """A table of database ``sys`` (``sys.tables``...): read-only, no time travel; the data source
    of ``sys.catalog_options`` gets the catalog's options (its rows)."""
    table = cat.get_table(ident)  # an unknown name: TableNotFoundError
    assert not isinstance(table, Table)
    if params.get("version") is not None or params.get("timestamp_micros") is not None:
        raise UnsupportedError(f"System table {table.name} has no time travel")
    options = source_options(cat, table.name)
    if table.SYSTEM_NAME == CATALOG_OPTIONS:
        options[OPT_CATALOG_OPTIONS] = json.dumps(cat.options)
    return {
        "schema": spark_types.spark_schema_json(table.fields, _legacy(params)),
        "properties": {PROP_PROVIDER: PROVIDER},
        "partition_keys": [],
        "primary_keys": [],
        "options": options,
        "read_only": True,
    }


def _legacy(params: Params) -> bool:
    """Paimon's ``spark.paimon.legacy-timestamp-mapping.enabled`` (the shim sends the session's):
    Paimon TIMESTAMP is Spark TIMESTAMP, and Spark TIMESTAMP of new columns is Paimon TIMESTAMP."""
    return spark_types.legacy_timestamp_mapping(
        params.get("legacy_timestamp_mapping"), "spark.paimon." + spark_types.LEGACY_TIMESTAMP_MAPPING
    )


def _refuse_system(ident: Identifier, action: str) -> None:
    """DDL on a system table (``t$files``) or a table of database ``sys`` is refused, naming it."""
    if ident.system_table is not None or ident.in_system_database:
        raise UnsupportedError(f"System table {ident.full_name} cannot be {action}: system tables are read-only")


def _describe(cat: Catalog, ident: Identifier, params: Params) -> Result:
    base_opts = source_options(cat, ident.full_name)
    if ident.in_system_database:
        return _describe_global(cat, ident, params)
    if ident.system_table is not None:
        if not cat.table_exists(Identifier(ident.database, ident.table)):
            if not cat.database_exists(ident.database):
                raise DatabaseNotFoundError(f"Database {ident.database} does not exist")
            raise TableNotFoundError(f"Table {ident.database}.{ident.table} does not exist")
        sys_table = cat.get_table(ident)  # an unknown system table: NotFoundError naming the known ones
        tt_opts: dict[str, str] = {}
        if params.get("version") is not None or params.get("timestamp_micros") is not None:
            if not getattr(sys_table, "TIME_TRAVEL", False):
                raise UnsupportedError(
                    f"System table {ident.full_name} has no time travel (only $files, $manifests, "
                    "$partitions, $buckets and $ro have)"
                )
            tt_opts, _ = _time_travel(data_table(cat, Identifier(ident.database, ident.table, ident.branch)), params)
        fields = getattr(sys_table, "fields", None)  # Paimon's declared columns (nullability included)
        schema_json = (
            spark_types.spark_schema_json(fields, _legacy(params))
            if fields is not None
            else spark_types.spark_schema_json_from_arrow(sys_table.arrow_schema, _legacy(params))
        )
        return {
            "schema": schema_json,
            "properties": {PROP_PROVIDER: PROVIDER},
            "partition_keys": [],
            "primary_keys": [],
            "options": {**base_opts, **tt_opts},
            "read_only": True,
        }
    stored = data_table(cat, ident)
    dyn = _dynamic_options(params)
    check_connector_options(dyn, ident.full_name)
    table = stored.copy(dynamic_options(dyn))  # refuses options that cannot change or are not applied
    tt_opts, schema = _time_travel(table, params)
    if not tt_opts:  # no VERSION/TIMESTAMP AS OF: a time-travel dynamic option picks the schema
        tt = time_travel(dyn, table)
        if tt:
            schema = table.resolve_read(**tt)[1].schema
    return _describe_schema(stored, schema, {**base_opts, **tt_opts}, bool(tt_opts), params)


def _describe_schema(stored: Table, schema: TableSchema, options: dict[str, str], read_only: bool,
                     params: Params) -> Result:
    """The description of ``stored`` read or written with ``schema`` (its current one, a time
    travel's, or one a write has planned but not committed yet)."""
    bucket, bucket_keys, bucket_key_types = _bucket_layout(schema)
    return {
        "schema": add_default_metadata(spark_types.spark_schema_json(schema.fields, _legacy(params)), schema.fields),
        "properties": _table_properties(stored, schema),
        "partition_keys": list(schema.partition_keys),
        "primary_keys": list(schema.primary_keys),
        "options": options,
        "read_only": read_only,
        # the shim clusters writes of fixed-bucket tables by (partition, paimon_bucket(bucket, keys))
        "bucket": bucket,
        "bucket_keys": bucket_keys,
        "bucket_key_types": bucket_key_types,
    }


def _dynamic_options(params: Params) -> dict[str, str]:
    """Paimon's dynamic options from the Spark session (``spark.paimon.<key>`` and
    ``spark.paimon.<catalog>.<db>.<table>.<key>``, collected by the shim for this table)."""
    raw = params.get("dynamic_options") or {}
    if not isinstance(raw, Mapping):
        raise ValidationError(f"'dynamic_options' must be an object, got {raw!r}")
    return {str(k): str(v) for k, v in raw.items()}


def _bucket_layout(schema: TableSchema) -> tuple[int, list[str], list[str]]:
    """(bucket option, bucket-key columns, their Paimon type strings) of a table; a bad option or
    bucket key gives (-1, [], []): loading the table must not fail on it (writing it does)."""
    try:
        bucket = CoreOptions(schema.options).bucket
        keys = schema.bucket_keys
        types = [schema.field(k).type.to_string() for k in keys]
    except (PaimonError, ValueError):
        return -1, [], []
    return bucket, keys, types


@handler("load_table", read_only=True)
def load_table(params: Params) -> Result:
    return _describe(catalog_of(params), identifier(params), params)


def _create_options(ident: Identifier, cat: Catalog, properties: Mapping[str, str]) -> tuple[dict[str, str], str | None]:
    """Paimon options and comment from Spark's CREATE TABLE properties."""
    options: dict[str, str] = {}
    comment = None
    for key, value in properties.items():
        if key.startswith(OPTION_PREFIX):
            options[key[len(OPTION_PREFIX):]] = value
        elif key == PROP_PROVIDER:
            if value.lower() != PROVIDER:
                raise ValidationError(
                    f"Table {ident.full_name} of the Paimon catalog cannot be created USING {value}: "
                    f"its tables are Paimon tables (USING {PROVIDER} or no USING clause)"
                )
        elif key == PROP_COMMENT:
            comment = value
        elif key == PROP_LOCATION:
            expected = cat.table_path(ident)
            if value.rstrip("/").removeprefix("file:") != expected.rstrip("/").removeprefix("file:"):
                raise UnsupportedError(
                    f"Table {ident.full_name} cannot have LOCATION {value!r}: Paimon tables live in "
                    f"their database folder ({expected})"
                )
        elif key == PROP_EXTERNAL:
            if value.lower() == "true":
                raise UnsupportedError(f"EXTERNAL tables are not supported (table {ident.full_name})")
        elif key in IGNORED_PROPS:
            continue
        else:
            options[key] = value
    return options, comment


@handler("create_table")
def create_table(params: Params) -> Result:
    cat = catalog_of(params)
    ident = identifier(params)
    if ident.in_system_database:
        raise system_database_error(f"create table {ident.full_name}")
    ident.check_plain()
    d = table_definition(cat, ident, params)
    cat.create_table(ident, d.schema, partition_keys=d.partition_keys, options=d.options, comment=d.comment,
                     column_defaults=spark_defaults(str_param(params, "schema")))
    out = _describe(cat, ident, {"legacy_timestamp_mapping": d.legacy})
    out[WARNINGS_KEY] = d.warnings
    return out


class TableDefinition(NamedTuple):
    """A CREATE / REPLACE TABLE request's table: Arrow schema, partition keys, options (the
    validation's warnings), comment, and whether timestamps use the legacy mapping."""

    schema: pa.Schema
    partition_keys: list[str]
    options: dict[str, str]
    comment: str | None
    warnings: list[str]
    legacy: bool


def table_definition(cat: Catalog, ident: Identifier, params: Params) -> TableDefinition:
    """The table a CREATE / REPLACE TABLE request defines (``schema``, ``partition_keys``,
    ``properties``), its options validated."""
    legacy = _legacy(params)
    schema = spark_types.arrow_schema(str_param(params, "schema"), f"table {ident.full_name}", legacy)
    partition_keys = [str(k) for k in params.get("partition_keys") or []]
    options, comment = _create_options(ident, cat, params.get("properties") or {})
    pks = [k.strip() for k in options.get("primary-key", "").split(",") if k.strip()]
    warnings = validate_options(
        {k: v for k, v in options.items() if k != "primary-key"}, ident.full_name, primary_keys=pks
    )
    return TableDefinition(schema, partition_keys, options, comment, warnings, legacy)


def _path(change: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(n) for n in change.get("name") or [])


def _move(position: object, column: tuple[str, ...], table: str) -> Move | None:
    """Spark's column position (the shim sends ``first`` / ``after:<column>``) as a Move."""
    if not position:
        return None
    text = str(position)
    if text == "first":
        return Move.first(column[-1])
    if text.startswith("after:"):
        return Move.after(column[-1], text[len("after:"):])
    raise UnsupportedError(f"Column position {text!r} of column {'.'.join(column)} of table {table} is not supported")


def _schema_changes(
    table: Table, changes: Sequence[Mapping[str, Any]], legacy: bool = False
) -> list[SchemaChange]:
    """Spark's ordered ALTER TABLE changes, each as one schema change (Paimon's
    SparkCatalog.toSchemaChange), in the same order; ``legacy``: Spark TIMESTAMP is Paimon TIMESTAMP."""
    name = table.name
    columns = set(table.schema.field_names)
    dropped = {tuple(ch.get("name") or ()) for ch in changes if ch.get("op") == "drop_column"}
    if {(c,) for c in columns} <= dropped and any(ch.get("op") == "add_column" for ch in changes):
        # Spark turns REPLACE COLUMNS into dropping every column and adding the new ones: new field
        # ids would make the data files' columns unreadable (Paimon's PaimonAnalysis refuses it)
        raise UnsupportedError(
            "ALTER TABLE ... REPLACE COLUMNS is not supported for Paimon tables. Please use RENAME COLUMN, "
            f"ALTER COLUMN TYPE, DROP COLUMN, and ADD COLUMN instead. (table {name})"
        )
    out: list[SchemaChange] = []
    for ch in changes:
        op = ch.get("op")
        if op in ("set_property", "remove_property"):
            key = str(ch["key"])
            if key == "primary-key":  # Paimon's SparkCatalog.validateAlterProperty
                raise UnsupportedError("Alter primary key is not supported")
            if key in (PROP_LOCATION, PROP_PROVIDER, PROP_EXTERNAL):
                raise UnsupportedError(
                    f"ALTER TABLE {name} cannot set {key!r}: a Paimon table lives in its warehouse folder "
                    "and cannot be moved, made external or given another provider"
                )
            if op == "set_property":
                value = str(ch["value"])
                out.append(UpdateComment(value) if key == PROP_COMMENT
                           else SetOption(key.removeprefix(OPTION_PREFIX), value))
            else:
                out.append(UpdateComment(None) if key == PROP_COMMENT else RemoveOption(key.removeprefix(OPTION_PREFIX)))
        elif op == "add_column":
            path = _path(ch)
            if ch.get("has_default"):  # Paimon's CatalogUtils.checkNoDefaultValue
                raise UnsupportedError(
                    f"Unsupported table change: Cannot add column [{', '.join(path)}] with default value "
                    f"{ch.get('default')} (table {name})"
                )
            spark_type = spark_types.parse_spark_type(ch["type"])
            field = {"name": path[-1] if path else "", "type": spark_type, "nullable": bool(ch.get("nullable", True)),
                     "metadata": {}}
            added = AddColumn.of_arrow(spark_types.arrow_field(field, f"table {name}", legacy))
            out.append(AddColumn(path, added.data_type, str(ch["comment"]) if ch.get("comment") else None,
                                 _move(ch.get("position"), path, name)))
        elif op == "drop_column":
            path = _path(ch)
            if len(path) == 1 and path[0] not in columns and ch.get("if_exists"):
                continue
            out.append(DropColumn(path))
        elif op == "rename_column":
            out.append(RenameColumn(_path(ch), str(ch["new_name"])))
        elif op == "update_column_type":
            path = _path(ch)
            arrow_type = spark_types.arrow_type(
                spark_types.parse_spark_type(ch["type"]), f"column {'.'.join(path)!r}", legacy
            )
            out.append(UpdateColumnType.of_arrow(path, arrow_type))
        elif op == "update_column_nullability":
            out.append(UpdateColumnNullability.of(_path(ch), bool(ch.get("nullable"))))
        elif op == "update_column_comment":
            out.append(UpdateColumnComment(_path(ch), ch.get("comment") or None))
        elif op == "update_column_default":
            pass  # column_default_changes
        elif op == "update_column_position":
            path = _path(ch)
            move = _move(ch.get("position"), path, name)
            if move is None:
                raise UnsupportedError(f"ALTER TABLE {name}: column {'.'.join(path)!r} moved to no position")
            out.append(UpdateColumnPosition(move, path[:-1]))
        else:
            raise UnsupportedError(f"ALTER TABLE {name}: change {ch.get('description', ch)} is not supported")
    return out


@handler("alter_table")
def alter_table(params: Params) -> Result:
    cat = catalog_of(params)
    ident = identifier(params)
    _refuse_system(ident, "altered")
    table = data_table(cat, ident)
    legacy = _legacy(params)
    raw_changes = list(params.get("changes") or [])
    changes = _schema_changes(table, raw_changes, legacy)
    defaults = column_default_changes(table, raw_changes)
    warnings: list[str] = []
    if defaults:
        alter_with_defaults(table, changes, defaults)
    elif changes:
        altered = table.alter(*changes)  # refuses first (immutable options, bad values): no warning then
        new_keys = {c.key for c in changes if isinstance(c, SetOption)}
        warnings = [
            w for w in validate_options(altered.options, table.name, primary_keys=table.primary_keys)
            if any(repr(k) in w for k in new_keys)
        ]
        if altered.options.get("bucket") != table.options.get("bucket") and table.latest_snapshot() is not None:
            warnings.append(
                f"Option 'bucket' of table {table.name} changed to {altered.options.get('bucket')}: the partitions "
                f"written keep their bucket count (writes into them are refused) until INSERT OVERWRITE or "
                f"CALL sys.rescale(table => '{table.name}') rewrites them"
            )
    if defaults or changes:
        cat.sync_table(ident)  # a JDBC catalog's paimon_table_properties
    out = _describe(cat, ident, {"legacy_timestamp_mapping": legacy})
    out[WARNINGS_KEY] = warnings
    return out


@handler("drop_table")
def drop_table(params: Params) -> Result:
    cat = catalog_of(params)
    ident = identifier(params)
    _refuse_system(ident, "dropped")
    if ident.branch is not None:
        raise UnsupportedError(f"Drop branch {ident.branch!r} of {ident.database}.{ident.table} with a procedure")
    if not cat.table_exists(ident):
        return {"dropped": False}
    cat.drop_table(ident)
    return {"dropped": True}


@handler("rename_table")
def rename_table(params: Params) -> Result:
    cat = catalog_of(params)
    src = identifier(params)
    dst = identifier(params, "new_namespace", "new_table")
    cat.rename_table(src, dst)
    return {}
