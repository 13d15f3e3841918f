"""Schema evolution: a new schema version from the current one plus changes."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import cast

import pyarrow as pa

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.lsm.engines import engine_of
from paimon_sql.meta.file_store import FileStore
from paimon_sql.meta.schema import TableSchema
from paimon_sql.options import CoreOptions, check_implemented, validate_options
from paimon_sql.options.validation import check_full_compaction_delta_commits
from paimon_sql.scan.default_values import check_default_values
from paimon_sql.types import DataType, DefaultTypeVisitor, fields_from_arrow_schema, from_arrow_type

_INT_RANK = {"TINYINT": 0, "SMALLINT": 1, "INT": 2, "BIGINT": 3}
# decimal digits of the largest value of each integer type (127, 32767, 2147483647, 9.2e18)
_INT_DIGITS = {"TINYINT": 3, "SMALLINT": 5, "INT": 10, "BIGINT": 19}


def is_safe_widening(old: DataType, new: DataType) -> bool:
    """Type changes every old value survives unchanged (Paimon allows more with explicit casts)."""
    if old.copy(True) == new.copy(True):
        return True
    return new.accept(_WidensFrom(old))


class _WidensFrom(DefaultTypeVisitor[bool]):
    """Whether the visited (new) type holds every value of ``old`` unchanged."""

    def __init__(self, old: DataType) -> None:
        self.old = old

    def default(self, t: DataType) -> bool:
        return False

    def integer(self, t: DataType) -> bool:
        return self.old.root in _INT_RANK and _INT_RANK[self.old.root] <= _INT_RANK[t.root]

    def visit_tinyint(self, t: pt.TinyIntType) -> bool:
        return self.integer(t)

    def visit_smallint(self, t: pt.SmallIntType) -> bool:
        return self.integer(t)

    def visit_int(self, t: pt.IntType) -> bool:
        return self.integer(t)

    def visit_bigint(self, t: pt.BigIntType) -> bool:
        return self.integer(t)

    def visit_float(self, t: pt.FloatType) -> bool:
        return self.old.root in ("TINYINT", "SMALLINT")

    def visit_double(self, t: pt.DoubleType) -> bool:
        return self.old.root in _INT_RANK or self.old.root == "FLOAT"

    def visit_decimal(self, t: pt.DecimalType) -> bool:
        old = self.old
        if old.root in _INT_RANK:  # every value of the integer type fits the integer digits
            return t.precision - t.scale >= _INT_DIGITS[old.root]
        if old.root == "DECIMAL":
            d = cast(pt.DecimalType, old)
            return t.scale >= d.scale and t.precision - t.scale >= d.precision - d.scale
        return False

    def visit_varchar(self, t: pt.VarCharType) -> bool:
        return self.old.root == "VARCHAR" and t.length >= cast(pt.VarCharType, self.old).length


def check_column_name(name: object, table: str) -> str:
    """A column name: a non-blank string (Paimon's rule) without control characters."""
    if not isinstance(name, str) or not name.strip() or any(ord(c) < 32 for c in name):
        raise ValidationError(f"Invalid column name {name!r} for table {table}: a column needs a non-blank name")
    return name


_RENAMED_FIELD_OPTIONS = ("aggregate-function", "ignore-retract", "distinct", "list-agg-delimiter")


def rename_in_options(options: Mapping[str, str], renames: Mapping[str, str]) -> dict[str, str]:
    """The options after renaming columns, as Paimon's SchemaManager rewrites them: column lists in
    ``bucket-key`` and ``sequence.field``, the column in ``fields.<col>.<aggregate-function |
    ignore-retract | distinct | list-agg-delimiter>`` keys, and both sides of
    ``fields.<cols>.<sequence-group | nested-key>``."""

    def rename_list(text: str) -> str:
        return ",".join(renames.get(c, c) for c in text.split(","))

    out: dict[str, str] = {}
    for key, value in options.items():
        if key in ("bucket-key", "sequence.field") and value.strip():
            out[key] = rename_list(value)
            continue
        if key.startswith("fields.") and key.count(".") >= 2:
            cols, suffix = key[len("fields."):].rsplit(".", 1)
            if suffix in _RENAMED_FIELD_OPTIONS and cols in renames:
                out[f"fields.{renames[cols]}.{suffix}"] = value
                continue
            if suffix in ("sequence-group", "nested-key"):
                out[f"fields.{rename_list(cols)}.{suffix}"] = rename_list(value)
                continue
        out[key] = value
    return out


ALTER_ARGUMENTS = ("add_columns", "drop_columns", "rename_columns", "change_types", "set_options",
                   "remove_options", "comment", "column_comments")


def _schema_like(v: object) -> bool:
    if isinstance(v, pa.Schema):
        return True
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
        return False
    try:
        pa.schema(list(v))
    except (TypeError, ValueError, pa.ArrowException):
        return False
    return True


def _check_arguments(table: str, **args: object) -> None:
    """Each argument of ``alter_schema`` has the shape it documents; else a ValidationError naming it."""

    def bad(name: str, expected: str) -> ValidationError:
        return ValidationError(f"alter of table {table}: {name} must be {expected}, got {args[name]!r}")

    def names(v: object) -> bool:
        return isinstance(v, Sequence) and not isinstance(v, (str, bytes)) and all(isinstance(x, str) for x in v)

    def mapping(v: object, value_ok: Callable[[object], bool]) -> bool:
        return isinstance(v, Mapping) and all(isinstance(k, str) and value_ok(x) for k, x in v.items())

    checks: dict[str, tuple[Callable[[object], bool], str]] = {
        "add_columns": (_schema_like, "a pyarrow.Schema or a list of pyarrow.Field / (name, type) pairs"),
        "drop_columns": (names, "a list of column names"),
        "remove_options": (names, "a list of option keys"),
        "rename_columns": (lambda v: mapping(v, lambda x: isinstance(x, str)), "a dict of old name -> new name"),
        "change_types": (lambda v: mapping(v, lambda x: isinstance(x, pa.DataType)), "a dict of column -> pyarrow type"),
        "set_options": (lambda v: mapping(v, lambda x: isinstance(x, (str, int, float, bool))),
                        "a dict of option key -> value"),
        "column_comments": (lambda v: mapping(v, lambda x: x is None or isinstance(x, str)), "a dict of column -> comment"),
        "comment": (lambda v: isinstance(v, str), "a string"),
    }
    for name, value in args.items():
        ok, expected = checks[name]
        if value is not None and not ok(value):
            raise bad(name, expected)


def alter_schema(
    store: FileStore,
    add_columns: pa.Schema | Sequence[pa.Field] | None = None,
    drop_columns: Sequence[str] | None = None,
    rename_columns: Mapping[str, str] | None = None,
    change_types: Mapping[str, pa.DataType] | None = None,
    set_options: Mapping[str, str] | None = None,
    remove_options: Sequence[str] | None = None,
    comment: str | None = None,
    column_comments: Mapping[str, str | None] | None = None,
) -> TableSchema:
    schema = store.schema
    table = store.name
    _check_arguments(table, add_columns=add_columns, drop_columns=drop_columns, rename_columns=rename_columns,
                     change_types=change_types, set_options=set_options, remove_options=remove_options,
                     comment=comment, column_comments=column_comments)
    fields = list(schema.fields)
    names = [f.name for f in fields]
    protected = set(schema.primary_keys) | set(schema.partition_keys)
    highest = schema.highest_field_id
    options = dict(schema.options)

    for name in drop_columns or ():
        if name not in names:
            raise ValidationError(f"Cannot drop column {name!r} of table {table}: it does not exist")
        if name in protected:
            raise ValidationError(f"Cannot drop column {name!r} of table {table}: it is a primary key or partition column")
        fields = [f for f in fields if f.name != name]
        names = [f.name for f in fields]
    if not fields:
        raise ValidationError(f"Cannot drop all columns of table {table}")

    for old, new in (rename_columns or {}).items():
        check_column_name(new, table)
        if old not in names:
            raise ValidationError(f"Cannot rename column {old!r} of table {table}: it does not exist")
        if new in names:
            raise ValidationError(f"Cannot rename column {old!r} of table {table} to {new!r}: that name exists")
        if old in protected:
            raise UnsupportedError(f"Renaming primary key or partition column {old!r} of table {table} is not supported")
        fields = [dataclasses.replace(f, name=new) if f.name == old else f for f in fields]
        names = [f.name for f in fields]
    if rename_columns:
        options = rename_in_options(options, dict(rename_columns))

    for name, arrow_type in (change_types or {}).items():
        if name not in names:
            raise ValidationError(f"Cannot change the type of column {name!r} of table {table}: it does not exist")
        i = names.index(name)
        old_t = fields[i].type
        new_t = from_arrow_type(arrow_type, old_t.nullable)
        if not is_safe_widening(old_t, new_t):
            raise ValidationError(
                f"Cannot change column {name!r} of table {table} from {old_t.to_string()} to "
                f"{new_t.to_string()}: only widening changes are supported"
            )
        if name in protected and old_t != new_t:
            raise UnsupportedError(f"Changing the type of key/partition column {name!r} of table {table} is not supported")
        fields[i] = dataclasses.replace(fields[i], type=new_t)

    if add_columns:
        add_schema = add_columns if isinstance(add_columns, pa.Schema) else pa.schema(list(add_columns))
        for f in add_schema:
            check_column_name(f.name, table)
            if f.name in names:
                raise ValidationError(f"Cannot add column {f.name!r} to table {table}: it exists")
            if not f.nullable:
                raise ValidationError(f"Cannot add NOT NULL column {f.name!r} to table {table}: existing rows have no value")
        new_fields, highest = fields_from_arrow_schema(add_schema, highest + 1)
        highest = max(highest, schema.highest_field_id)
        fields += new_fields
        names = [f.name for f in fields]

    for name, text in (column_comments or {}).items():
        if name not in names:
            raise ValidationError(f"Cannot comment on column {name!r} of table {table}: it does not exist")
        i = names.index(name)
        fields[i] = dataclasses.replace(fields[i], description=text or None)

    if set_options:
        set_opts = {str(k): str(v) for k, v in set_options.items()}
        validate_options({**options, **set_opts}, table, columns=names)
        check_implemented({k: v for k, v in set_opts.items() if options.get(k) != v}, table)
        if "bucket" in set_opts and set_opts["bucket"] != options.get("bucket", "-1"):
            if store.snapshots.latest_id() is not None:
                raise UnsupportedError(
                    f"Changing 'bucket' of table {table} that has data is not supported (it needs a rescale)"
                )
        for k in ("primary-key", "partition"):
            if k in set_opts and set_opts[k] != options.get(k):
                raise ValidationError(f"Option {k!r} of table {table} cannot be changed")
        k = "data-file.path-directory"  # where existing files are looked up: Paimon's checkAlterTableOption
        if k in set_opts and set_opts[k] != options.get(k):
            raise UnsupportedError(f"Change '{k}' is not supported yet. (table {table})")
        options.update(set_opts)
    for k in remove_options or ():
        if k == "bucket":
            raise ValidationError(f"Option 'bucket' of table {table} cannot be removed")
        if k == "data-file.path-directory" and k in options:
            raise UnsupportedError(f"Change '{k}' is not supported yet. (table {table})")
        options.pop(k, None)
    validate_options(options, table, columns=names)
    check_default_values(fields, schema.primary_keys, schema.partition_keys, options, table)
    if {*(set_options or {}), *(remove_options or ())} & {"full-compaction.delta-commits", "write-only"}:
        check_full_compaction_delta_commits(CoreOptions(options, table), bool(schema.primary_keys), table)
    if schema.primary_keys:  # the merge engine's options against the new columns, as CREATE TABLE checks them
        pks = list(schema.primary_keys)
        core = CoreOptions(options, table)
        engine_of(core).spec(core, pks, fields, pks, table)

    return TableSchema(
        id=schema.id + 1,
        fields=tuple(fields),
        highest_field_id=highest,
        partition_keys=schema.partition_keys,
        primary_keys=schema.primary_keys,
        options=options,
        comment=comment if comment is not None else schema.comment,
        time_millis=TableSchema.now_ms(),
    )



