"""What the JVM shim asks Python: catalog metadata, procedures and statement rewrites.

Every handler takes the request's ``params`` (a JSON object) and returns a JSON-able dict. The
bridge (``python -m paimon_sql.spark.bridge``) calls :func:`dispatch`, which also turns exceptions
into ``{"kind", "message", "traceback"}``; ``kind`` tells the shim which Spark exception to raise
(``NoSuchTable``, ``NoSuchNamespace``, ``AlreadyExists``, ``NonEmptyNamespace``,
``IllegalArgument``, ``Unsupported``, ``NotFound``, ``CommitConflict``, ``PaimonError``,
``Internal``). Engine messages pass through unchanged. No pyspark import here.

Data source options a loaded table carries (the contract with ``paimon_sql.spark.datasource``):
``warehouse``, ``table`` (``db.t``, ``db.t$branch_b``, ``db.t$files``) and, for time travel, one of
``scan.snapshot-id`` / ``scan.tag-name`` / ``scan.timestamp-millis``.
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal
import json
import os
import re
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from paimon_sql.catalog.catalog import Catalog
from paimon_sql.catalog.identifier import Identifier
from paimon_sql.errors import (
    AlreadyExistsError,
    CommitConflictError,
    DatabaseNotFoundError,
    NotFoundError,
    PaimonError,
    TableNotFoundError,
    UnsupportedError,
    ValidationError,
)
from paimon_sql.meta.schema import TableSchema
from paimon_sql.options import CoreOptions, validate_options
from paimon_sql.spark import spark_types
from paimon_sql.spark.source_options import check_connector_options, dynamic_options, time_travel
from paimon_sql.table.table import Table
from paimon_sql.table.travel import TimeTravel, resolve

Params = Mapping[str, Any]
Result = dict[str, Any]
Handler = Callable[[Params], Result]

PROVIDER = "paimon"
WARNINGS_KEY = "_warnings"
"""A handler's result may carry warnings under this key; the bridge sends them separately."""

# Spark's reserved table properties (TableCatalog.PROP_*) and how CREATE TABLE treats them
_PROP_PROVIDER = "provider"
_PROP_LOCATION = "location"
_PROP_COMMENT = "comment"
_PROP_OWNER = "owner"
_PROP_EXTERNAL = "external"
_IGNORED_PROPS = {_PROP_OWNER, "is_managed_location", "collation", "table_type"}
_OPTION_PREFIX = "option."

_catalogs: dict[str, Catalog] = {}


def _catalog(params: Params) -> Catalog:
    warehouse = params.get("warehouse")
    if not isinstance(warehouse, str) or not warehouse:
        raise ValidationError("The Paimon catalog needs a 'warehouse' option (a folder or URI)")
    cat = _catalogs.get(warehouse)
    if cat is None:
        cat = Catalog(warehouse)
        _catalogs[warehouse] = cat
    return cat


def _with_kind(err: PaimonError, kind: str) -> PaimonError:
    """Marks ``err`` with the error kind the shim should map it to."""
    err.bridge_kind = kind  # type: ignore[attr-defined]
    return err


def error_kind(exc: BaseException) -> str:
    kind = getattr(exc, "bridge_kind", None)
    if isinstance(kind, str):
        return kind
    if isinstance(exc, DatabaseNotFoundError):
        return "NoSuchNamespace"
    if isinstance(exc, TableNotFoundError):
        return "NoSuchTable"
    if isinstance(exc, NotFoundError):
        return "NotFound"
    if isinstance(exc, AlreadyExistsError):
        return "AlreadyExists"
    if isinstance(exc, ValidationError):
        return "IllegalArgument"
    if isinstance(exc, UnsupportedError):
        return "Unsupported"
    if isinstance(exc, CommitConflictError):
        return "CommitConflict"
    if isinstance(exc, PaimonError):
        return "PaimonError"
    return "Internal"


def _str(params: Params, key: str) -> str:
    v = params.get(key)
    if not isinstance(v, str) or not v:
        raise ValidationError(f"Bridge request is missing the string parameter {key!r}")
    return v


# ----------------------------------------------------------------------------------------------
# catalog life cycle
# ----------------------------------------------------------------------------------------------


def ping(params: Params) -> Result:
    from paimon_sql import __version__

    return {"pid": os.getpid(), "version": __version__}


def initialize(params: Params) -> Result:
    """Opens the warehouse and creates its default database (as Paimon's Spark catalog does)."""
    cat = _catalog(params)
    default = params.get("default_database") or "default"
    cat.create_database(str(default), ignore_if_exists=True)
    return {"warehouse": cat.warehouse, "pid": os.getpid()}


# ----------------------------------------------------------------------------------------------
# namespaces (databases)
# ----------------------------------------------------------------------------------------------


def list_namespaces(params: Params) -> Result:
    return {"namespaces": _catalog(params).list_databases()}


def namespace_exists(params: Params) -> Result:
    return {"exists": _catalog(params).database_exists(_str(params, "namespace"))}


def load_namespace_metadata(params: Params) -> Result:
    cat = _catalog(params)
    ns = _str(params, "namespace")
    if not cat.database_exists(ns):
        raise DatabaseNotFoundError(f"Database {ns} does not exist")
    return {"metadata": {"location": cat.database_path(ns)}}


def create_namespace(params: Params) -> Result:
    cat = _catalog(params)
    ns = _str(params, "namespace")
    meta = dict(params.get("metadata") or {})
    warnings = []
    loc = meta.get("location")
    if loc and loc.rstrip("/") != cat.database_path(ns).rstrip("/"):
        raise UnsupportedError(
            f"Database {ns} cannot have LOCATION {loc!r}: Paimon databases live in the warehouse "
            f"({cat.database_path(ns)})"
        )
    ignored = sorted(k for k in meta if k not in ("location", _PROP_OWNER))
    if ignored:
        warnings.append(f"Database {ns}: properties {ignored} are not stored (Paimon databases have none)")
    cat.create_database(ns)
    return {WARNINGS_KEY: warnings}


def drop_namespace(params: Params) -> Result:
    cat = _catalog(params)
    ns = _str(params, "namespace")
    if not cat.database_exists(ns):
        return {"dropped": False}
    cascade = bool(params.get("cascade"))
    if not cascade:
        tables = cat.list_tables(ns)
        if tables:
            raise _with_kind(
                ValidationError(f"Database {ns} is not empty (tables: {tables}); use DROP ... CASCADE"),
                "NonEmptyNamespace",
            )
    cat.drop_database(ns, cascade=cascade)
    return {"dropped": True}


# ----------------------------------------------------------------------------------------------
# tables
# ----------------------------------------------------------------------------------------------


def list_tables(params: Params) -> Result:
    return {"tables": _catalog(params).list_tables(_str(params, "namespace"))}


def _identifier(params: Params, ns_key: str = "namespace", table_key: str = "table") -> Identifier:
    return Identifier.parse((_str(params, ns_key), _str(params, table_key)))


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
    props[_PROP_PROVIDER] = PROVIDER
    if schema.comment:
        props[_PROP_COMMENT] = schema.comment
    props[_PROP_LOCATION] = table.path
    return props


def _describe(cat: Catalog, ident: Identifier, params: Params) -> Result:
    base_opts = {"warehouse": cat.warehouse, "table": ident.full_name}
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
                    "$partitions and $buckets have)"
                )
            tt_opts, _ = _time_travel(_data_table(cat, Identifier(ident.database, ident.table, ident.branch)), params)
        fields = getattr(sys_table, "fields", None)  # Paimon's declared columns (nullability included)
        schema_json = (
            spark_types.spark_schema_json(fields)
            if fields is not None
            else spark_types.spark_schema_json_from_arrow(sys_table.arrow_schema)
        )
        return {
            "schema": schema_json,
            "properties": {_PROP_PROVIDER: PROVIDER},
            "partition_keys": [],
            "primary_keys": [],
            "options": {**base_opts, **tt_opts},
            "read_only": True,
        }
    stored = _data_table(cat, ident)
    dyn = _dynamic_options(params)
    check_connector_options(dyn, ident.full_name)
    table = stored.copy(dynamic_options(dyn))  # refuses options that cannot change or are not applied
    tt_opts, schema = _time_travel(table, params)
    if not tt_opts:  # no VERSION/TIMESTAMP AS OF: a time-travel dynamic option picks the schema
        tt = time_travel(dyn, table)
        if tt:
            schema = table.resolve_read(**tt)[1].schema
    bucket, bucket_keys, bucket_key_types = _bucket_layout(schema)
    return {
        "schema": spark_types.spark_schema_json(schema.fields),
        "properties": _table_properties(stored, schema),
        "partition_keys": list(schema.partition_keys),
        "primary_keys": list(schema.primary_keys),
        "options": {**base_opts, **tt_opts},
        "read_only": bool(tt_opts),
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


def _data_table(cat: Catalog, ident: Identifier) -> Table:
    table = cat.get_table(ident)
    if not isinstance(table, Table):
        raise ValidationError(f"{ident.full_name} is a system table, not a data table")
    return table


def load_table(params: Params) -> Result:
    return _describe(_catalog(params), _identifier(params), params)


def _create_options(ident: Identifier, cat: Catalog, properties: Mapping[str, str]) -> tuple[dict[str, str], str | None]:
    """Paimon options and comment from Spark's CREATE TABLE properties."""
    options: dict[str, str] = {}
    comment = None
    for key, value in properties.items():
        if key.startswith(_OPTION_PREFIX):
            options[key[len(_OPTION_PREFIX):]] = value
        elif key == _PROP_PROVIDER:
            if value.lower() != PROVIDER:
                raise ValidationError(
                    f"Table {ident.full_name} of the Paimon catalog cannot be created USING {value}: "
                    f"its tables are Paimon tables (USING {PROVIDER} or no USING clause)"
                )
        elif key == _PROP_COMMENT:
            comment = value
        elif key == _PROP_LOCATION:
            expected = cat.table_path(ident)
            if value.rstrip("/").removeprefix("file:") != expected.rstrip("/").removeprefix("file:"):
                raise UnsupportedError(
                    f"Table {ident.full_name} cannot have LOCATION {value!r}: Paimon tables live in "
                    f"their database folder ({expected})"
                )
        elif key == _PROP_EXTERNAL:
            if value.lower() == "true":
                raise UnsupportedError(f"EXTERNAL tables are not supported (table {ident.full_name})")
        elif key in _IGNORED_PROPS:
            continue
        else:
            options[key] = value
    return options, comment


def create_table(params: Params) -> Result:
    cat = _catalog(params)
    ident = _identifier(params)
    ident.check_plain()
    schema = spark_types.arrow_schema(_str(params, "schema"), f"table {ident.full_name}")
    partition_keys = [str(k) for k in params.get("partition_keys") or []]
    options, comment = _create_options(ident, cat, params.get("properties") or {})
    pks = [k.strip() for k in options.get("primary-key", "").split(",") if k.strip()]
    warnings = validate_options(
        {k: v for k, v in options.items() if k != "primary-key"}, ident.full_name, primary_keys=pks
    )
    cat.create_table(ident, schema, partition_keys=partition_keys, options=options, comment=comment)
    out = _describe(cat, ident, {})
    out[WARNINGS_KEY] = warnings
    return out


def _column(change: Mapping[str, Any], table: str) -> str:
    name = change.get("name") or []
    if len(name) != 1:
        raise UnsupportedError(
            f"Changing nested field {'.'.join(name)} of table {table} is not supported (top-level columns only)"
        )
    return str(name[0])


def _alter_kwargs(table: Table, changes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    name = table.name
    columns = set(table.schema.field_names)
    add: list[pa.Field] = []
    drop: list[str] = []
    rename: dict[str, str] = {}
    types: dict[str, pa.DataType] = {}
    set_opts: dict[str, str] = {}
    remove: list[str] = []
    comment: str | None = None
    column_comments: dict[str, str | None] = {}
    for ch in changes:
        op = ch.get("op")
        if op == "set_property":
            key, value = str(ch["key"]), str(ch["value"])
            if key in (_PROP_LOCATION, _PROP_PROVIDER, _PROP_EXTERNAL):
                raise UnsupportedError(
                    f"ALTER TABLE {name} cannot set {key!r}: a Paimon table lives in its warehouse folder "
                    "and cannot be moved, made external or given another provider"
                )
            if key == _PROP_COMMENT:
                comment = value
            else:
                set_opts[key.removeprefix(_OPTION_PREFIX)] = value
        elif op == "remove_property":
            key = str(ch["key"])
            if key == _PROP_COMMENT:
                comment = ""
            else:
                remove.append(key.removeprefix(_OPTION_PREFIX))
        elif op == "add_column":
            col = _column(ch, name)
            if ch.get("position"):
                raise UnsupportedError(
                    f"ADD COLUMN {col} {ch['position'].upper()} on table {name}: new columns are added last"
                )
            if ch.get("has_default"):
                raise UnsupportedError(f"ADD COLUMN {col} with a DEFAULT value on table {name} is not supported")
            meta = {"comment": str(ch["comment"])} if ch.get("comment") else {}
            field = {"name": col, "type": spark_types.parse_spark_type(ch["type"]),
                     "nullable": bool(ch.get("nullable", True)), "metadata": meta}
            add.append(spark_types.arrow_field(field, f"table {name}"))
        elif op == "drop_column":
            col = _column(ch, name)
            if col not in columns and ch.get("if_exists"):
                continue
            drop.append(col)
        elif op == "rename_column":
            rename[_column(ch, name)] = str(ch["new_name"])
        elif op == "update_column_type":
            col = _column(ch, name)
            types[col] = spark_types.arrow_type(spark_types.parse_spark_type(ch["type"]), f"column {col!r}")
        elif op == "update_column_nullability":
            col = _column(ch, name)
            if col in columns and table.schema.field(col).type.nullable == bool(ch.get("nullable")):
                continue
            raise UnsupportedError(f"Changing the nullability of column {col!r} of table {name} is not supported")
        elif op == "update_column_comment":
            column_comments[_column(ch, name)] = ch.get("comment") or None
        elif op == "update_column_position":
            raise UnsupportedError(f"Moving column {_column(ch, name)!r} of table {name} is not supported")
        else:
            raise UnsupportedError(f"ALTER TABLE {name}: change {ch.get('description', ch)} is not supported")
    kwargs: dict[str, Any] = {}
    if add:
        kwargs["add_columns"] = add
    if drop:
        kwargs["drop_columns"] = drop
    if rename:
        kwargs["rename_columns"] = rename
    if types:
        kwargs["change_types"] = types
    if set_opts:
        kwargs["set_options"] = set_opts
    if remove:
        kwargs["remove_options"] = remove
    if comment is not None:
        kwargs["comment"] = comment
    if column_comments:
        kwargs["column_comments"] = column_comments
    return kwargs


def alter_table(params: Params) -> Result:
    cat = _catalog(params)
    ident = _identifier(params)
    if ident.system_table is not None:
        raise UnsupportedError(f"System table {ident.full_name} cannot be altered")
    table = _data_table(cat, ident)
    kwargs = _alter_kwargs(table, list(params.get("changes") or []))
    warnings: list[str] = []
    if "set_options" in kwargs:
        new_keys = kwargs["set_options"]
        merged = {**table.options, **new_keys}
        warnings = [
            w for w in validate_options(merged, table.name, primary_keys=table.primary_keys)
            if any(repr(k) in w for k in new_keys)
        ]
    if kwargs:
        table.alter(**kwargs)
    out = _describe(cat, ident, {})
    out[WARNINGS_KEY] = warnings
    return out


def _writable_table(params: Params, statement: str) -> Table:
    """The data table (or branch) named by the data source option text ``table``."""
    cat = _catalog(params)
    ident = Identifier.parse(_str(params, "table"))
    if ident.system_table is not None:
        raise UnsupportedError(f"Cannot {statement} system table {ident.full_name}: system tables are read-only")
    return _data_table(cat, ident)


def delete_where(params: Params) -> Result:
    """``DELETE FROM t WHERE <where>`` (Spark SQL text built by the shim): one commit, or none
    when no row matches."""
    table = _writable_table(params, "DELETE FROM")
    return {"snapshot": table.delete(_str(params, "where"))}


def plan_native_read(params: Params) -> Result:
    """Plans a catalog scan (``options``: the scan's data source options; ``columns``: Spark's
    required columns; ``filters``: Spark SQL text of each offered filter, or None) and says whether
    Spark's own parquet reader can read its files as they are (see ``paimon_sql.spark.native_read``)."""
    from paimon_sql.spark.native_read import plan_native

    columns = params.get("columns")
    filters = params.get("filters") or []
    if not isinstance(columns, list) or not isinstance(filters, list):
        raise ValidationError("plan_native_read needs 'columns' and 'filters' (lists)")
    table, read = _scan_table(params, "plan_native_read")
    if table is None:
        return {"native": False, "reason": "a system table", "accepted": [False] * len(filters), "files": []}
    mixed = params.get("mixed") is True
    return plan_native(table, read, [str(c) for c in columns], filters, mixed).to_json()


def _scan_table(params: Params, method: str) -> tuple[Table | None, dict[str, Any]]:
    """The data table a catalog scan's ``options`` name (None for a system table), and the
    snapshot it reads (``Table.plan``'s keyword arguments: time travel, or the pinned latest)."""
    from paimon_sql.spark.source_options import TableRef, dynamic_options, read_snapshot

    options = params.get("options")
    if not isinstance(options, Mapping):
        raise ValidationError(f"{method} needs 'options' (an object)")
    ref = TableRef.of(options)
    table = _catalog({"warehouse": ref.warehouse}).get_table(ref.table)
    if not isinstance(table, Table):
        return None, {}
    table = table.copy(dynamic_options(options))
    return table, read_snapshot(options, table)


def count_rows(params: Params) -> Result:
    """``SELECT count(*)`` of a catalog scan (``options``: the scan's data source options) from the
    manifests, when the files' row counts are the table's (see ``native_read.count_rows``)."""
    from paimon_sql.spark.native_read import count_rows as count

    table, read = _scan_table(params, "count_rows")
    if table is None:
        return {"count": None, "reason": "a system table", "snapshot": None}
    return count(table, read).to_json()


def truncate_table(params: Params) -> Result:
    """``TRUNCATE TABLE t``: one OVERWRITE commit that keeps no file."""
    table = _writable_table(params, "TRUNCATE")
    return {"snapshot": table.truncate()}


def drop_table(params: Params) -> Result:
    cat = _catalog(params)
    ident = _identifier(params)
    if ident.system_table is not None:
        raise UnsupportedError(f"System table {ident.full_name} cannot be dropped")
    if ident.branch is not None:
        raise UnsupportedError(f"Drop branch {ident.branch!r} of {ident.database}.{ident.table} with a procedure")
    if not cat.table_exists(ident):
        return {"dropped": False}
    cat.drop_table(ident)
    return {"dropped": True}


def rename_table(params: Params) -> Result:
    cat = _catalog(params)
    src = _identifier(params)
    dst = _identifier(params, "new_namespace", "new_table")
    cat.rename_table(src, dst)
    return {}


# ----------------------------------------------------------------------------------------------
# procedures
# ----------------------------------------------------------------------------------------------


def _procedures() -> Mapping[str, Any]:
    from paimon_sql.procedures import PROCEDURES

    return PROCEDURES


def _find_procedure(name: str) -> Any:
    """The procedure ``name``; an unknown one raises NotFoundError listing the known ones."""
    from paimon_sql.procedures import get_procedure

    return get_procedure(name)


def sql_literal(value: Any) -> str:
    """A Python default value as a Spark SQL literal (a procedure parameter's default)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, decimal.Decimal)):
        return str(value)
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    raise ValidationError(f"Procedure default {value!r} has no SQL literal form")


def list_procedures(params: Params) -> Result:
    return {"procedures": sorted(_procedures())}


def describe_procedure(params: Params) -> Result:
    proc = _find_procedure(_str(params, "name"))
    return {
        "name": proc.name,
        "description": proc.description,
        "params": [
            {
                "name": p.name,
                "type": p.type,
                "required": bool(p.required),
                "default_sql": None if p.required else sql_literal(p.default),
            }
            for p in proc.params
        ],
        "output": spark_types.ddl_columns([(c, t) for c, t in proc.output]),
    }


def _json_value(v: Any, spark_sql_type: str) -> Any:
    t = spark_sql_type.strip().upper()
    if v is None:
        return None
    if isinstance(v, _dt.datetime):
        if t.startswith("TIMESTAMP"):
            if v.tzinfo is None:
                v = v.replace(tzinfo=_dt.timezone.utc)
            delta = v - _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)
            return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
        return v.isoformat(sep=" ")
    if isinstance(v, _dt.date):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (bytes, bytearray)):
        return base64.b64encode(bytes(v)).decode("ascii")
    if isinstance(v, (list, tuple)):
        inner = t[6:-1] if t.startswith("ARRAY<") else "STRING"
        return [_json_value(x, inner) for x in v]
    if isinstance(v, Mapping):
        return {str(k): _json_value(x, "STRING") for k, x in v.items()}
    if t.startswith("STRING") and not isinstance(v, str):
        return str(v)
    return v


def call_procedure(params: Params) -> Result:
    from paimon_sql.procedures import call_procedure as run

    name = _str(params, "name")
    proc = _find_procedure(name)
    required = {p.name for p in proc.params if p.required}
    args = {k: v for k, v in dict(params.get("args") or {}).items() if v is not None or k in required}
    current = params.get("current_database")
    result = run(_catalog(params), proc.name, args, current if isinstance(current, str) and current else None)
    types = [t for _, t in proc.output]
    rows = [[_json_value(v, types[i] if i < len(types) else "STRING") for i, v in enumerate(row)] for row in result.rows]
    return {"columns": list(result.columns), "rows": rows}


# ----------------------------------------------------------------------------------------------
# statement rewrite (parser extension)
# ----------------------------------------------------------------------------------------------

_WORD_RE = re.compile(r"^[A-Za-z_0-9]+$")


def _tokens(sql: str) -> list[Any]:
    from sqlglot.dialects.spark import Spark

    return list(Spark().tokenize(sql))


def _is_word(tok: Any) -> bool:
    from sqlglot.tokens import TokenType

    if tok.token_type == TokenType.IDENTIFIER:
        return True
    if tok.token_type in (TokenType.STRING, TokenType.NUMBER, TokenType.PARAMETER):
        return False
    return bool(_WORD_RE.match(tok.text))


def _dollar_edits(tokens: Sequence[Any], offset: int) -> list[tuple[int, int, str]]:
    """Edits quoting ``t$files`` / ``t$branch_b$files`` (words glued by ``$``) as one identifier."""
    from sqlglot.tokens import TokenType

    edits = []
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if not _is_word(tok):
            i += 1
            continue
        j = i
        parts = [tok.text]
        while (
            j + 2 < n
            and tokens[j + 1].token_type == TokenType.PARAMETER
            and tokens[j + 1].text == "$"
            and tokens[j + 1].start == tokens[j].end + 1
            and tokens[j + 2].start == tokens[j + 1].end + 1
            and _is_word(tokens[j + 2])
        ):
            parts += ["$", tokens[j + 2].text]
            j += 2
        if j > i:
            name = "".join(parts)
            edits.append((offset + tok.start, offset + tokens[j].end + 1, spark_types.quote_ident(name)))
        i = j + 1
    return edits


def rewrite_sql(sql: str, catalog: str | None = None) -> str:
    """``sql`` with unquoted ``$`` names quoted and, when ``catalog`` is given, ``CALL sys.x``
    qualified as ``CALL `catalog`.sys.x``. Uses sqlglot's Spark tokenizer (not its parser, which
    reads ``db.t$files`` as ``db.t`` aliased). Text it cannot tokenize is returned unchanged."""
    from sqlglot.errors import TokenError
    from sqlglot.tokens import TokenType

    try:
        tokens = _tokens(sql)
    except TokenError:
        return sql
    edits: list[tuple[int, int, str]] = []
    head = tokens
    for k, tok in enumerate(tokens):
        if tok.token_type == TokenType.COMMAND and tok.text.upper() == "CALL":
            head = tokens[:k]
            rest_start = tok.end + 1
            try:
                rest = _tokens(sql[rest_start:])
            except TokenError:
                rest = []
            edits += _dollar_edits(rest, rest_start)
            if (
                catalog
                and len(rest) >= 2
                and rest[0].text.lower() == "sys"
                and rest[1].token_type == TokenType.DOT
            ):
                pos = rest_start + rest[0].start
                edits.append((pos, pos, spark_types.quote_ident(catalog) + "."))
            break
    edits += _dollar_edits(head, 0)
    if not edits:
        return sql
    out = []
    last = 0
    for start, end, text in sorted(edits):
        out.append(sql[last:start])
        out.append(text)
        last = end
    out.append(sql[last:])
    return "".join(out)


def rewrite_statement(params: Params) -> Result:
    sql = params.get("sql")
    if not isinstance(sql, str):
        raise ValidationError("rewrite_statement needs the 'sql' text")
    catalog = params.get("catalog")
    out = rewrite_sql(sql, catalog if isinstance(catalog, str) and catalog else None)
    return {"sql": out, "changed": out != sql}


# ----------------------------------------------------------------------------------------------
# dispatch
# ----------------------------------------------------------------------------------------------

HANDLERS: dict[str, Handler] = {
    "ping": ping,
    "initialize": initialize,
    "list_namespaces": list_namespaces,
    "namespace_exists": namespace_exists,
    "load_namespace_metadata": load_namespace_metadata,
    "create_namespace": create_namespace,
    "drop_namespace": drop_namespace,
    "list_tables": list_tables,
    "load_table": load_table,
    "create_table": create_table,
    "alter_table": alter_table,
    "drop_table": drop_table,
    "delete_where": delete_where,
    "plan_native_read": plan_native_read,
    "count_rows": count_rows,
    "truncate_table": truncate_table,
    "rename_table": rename_table,
    "list_procedures": list_procedures,
    "describe_procedure": describe_procedure,
    "call_procedure": call_procedure,
    "rewrite_statement": rewrite_statement,
}


def dispatch(method: str, params: Params) -> dict[str, Any]:
    """Runs one request; returns ``{"result": ..., "warnings": [...]}`` or ``{"error": {...}}``."""
    handler = HANDLERS.get(method)
    if handler is None:
        return {"error": {"kind": "Internal", "message": f"Unknown bridge method {method!r}", "traceback": None}}
    try:
        result = handler(params)
    except Exception as e:  # every failure becomes an error response, the bridge keeps serving
        kind = error_kind(e)
        tb = traceback.format_exc() if kind == "Internal" else None
        message = str(e) if kind != "Internal" else f"{type(e).__name__}: {e}"
        return {"error": {"kind": kind, "message": message, "traceback": tb}}
    warnings = result.pop(WARNINGS_KEY, None) or []
    out: dict[str, Any] = {"result": result}
    if warnings:
        out["warnings"] = [str(w) for w in warnings]
    return out


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), default=str)
