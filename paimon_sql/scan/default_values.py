"""``fields.<name>.default-value``: the value a read returns for a null column.

The facts follow Apache Paimon up to 1.2 (``DefaultValueAssigner``, ``DefaultValueRow`` and, up to
1.1, ``SchemaValidation.validateDefaultValues``; Paimon 1.3 replaced the option by column defaults
kept in the schema and applied when writing):

* Reads only: after the merge of a primary-key table (every merge engine) and after schema
  evolution, a null value of a column with a default value reads as that value; data files keep
  their nulls (writes, compaction and rescale never fill them in). Append tables too. Only the
  columns a read returns (or filters on) are filled.
* The value is the option's text cast to the column's type with Paimon's STRING -> type cast
  (``CastExecutors``): character strings, BOOLEAN, BINARY / VARBINARY, the numeric types, DATE,
  TIME, TIMESTAMP and TIMESTAMP WITH LOCAL TIME ZONE; no other type can have a default value.
* Filters: a conjunct of a read's filter that names a column with a default value does not prune
  partitions, manifests or files (a file holding nulls may hold matching rows once they read as the
  default); it is still applied to the rows, after the defaults are filled in, as Spark and Flink
  apply it after Paimon's reader.
* At CREATE TABLE and ALTER TABLE (Paimon up to 1.1): no default value on a partition or primary
  key column, and the value must cast to the column's type. paimon_sql also refuses a value the cast
  turns into null (a DECIMAL that overflows), which Paimon would keep as no default at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.casting import cast_array
from paimon_sql.errors import PaimonError, UnsupportedError, ValidationError
from paimon_sql.options import CoreOptions
from paimon_sql.predicate import Predicate, and_, referenced_columns, split_and
from paimon_sql.types import MAX_LENGTH, DataField, DataType, VarCharType

SUPPORTED_ROOTS = frozenset({
    "CHAR", "VARCHAR", "BOOLEAN", "BINARY", "VARBINARY", "DECIMAL", "TINYINT", "SMALLINT", "INT",
    "BIGINT", "FLOAT", "DOUBLE", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ",
})
"""The types Paimon 1.2's ``CastExecutors`` casts a STRING to (no ARRAY / MAP / ROW rules yet)."""

_STRING = VarCharType(MAX_LENGTH)


def option_key(column: str) -> str:
    return f"fields.{column}.default-value"


def _of(where: str) -> str:
    return f" of table {where}" if where else ""


@lru_cache(maxsize=256)
def _cast(text: str, t: DataType) -> pa.Scalar:
    return cast_array(pa.array([text], pa.string()), _STRING, t)[0]


def default_value(field: DataField, text: str, where: str = "") -> pa.Scalar:
    """The default value of ``field`` as an Arrow scalar of its type (a null scalar when the cast
    gives null). Raises a ValidationError naming the option and column when ``text`` does not cast,
    an UnsupportedError when the column's type can have no default value."""
    key = option_key(field.name)
    if field.type.root not in SUPPORTED_ROOTS:
        raise UnsupportedError(
            f"Option {key!r}{_of(where)}: column {field.name!r} has type {field.type.to_string()}, "
            "which cannot have a default value"
        )
    try:
        return _cast(text, field.type)
    except PaimonError as e:
        raise ValidationError(
            f"Option {key!r} = {text!r}{_of(where)}: the default value of column {field.name!r} cannot be "
            f"cast to {field.type.to_string()} ({e})"
        ) from None


def default_value_errors(
    fields: Sequence[DataField],
    primary_keys: Sequence[str],
    partition_keys: Sequence[str],
    options: Mapping[str, str],
    where: str,
) -> list[str]:
    """The problems of a schema's default values, one message each (CREATE / ALTER TABLE)."""
    defaults = CoreOptions(options).field_default_values()
    if not defaults:
        return []
    errors = []
    keyed: set[str] = set()
    for kind, keys in (("partition", partition_keys), ("primary key", primary_keys)):
        for k in keys:
            if k in defaults and k not in keyed:
                keyed.add(k)
                errors.append(
                    f"Option {option_key(k)!r}{_of(where)}: {kind} column {k!r} cannot have a default value"
                )
    for f in fields:
        text = defaults.get(f.name)
        if text is None or f.name in keyed:
            continue
        try:
            value = default_value(f, text, where)
        except PaimonError as e:
            errors.append(str(e))
            continue
        if not value.is_valid:
            errors.append(
                f"Option {option_key(f.name)!r} = {text!r}{_of(where)}: the default value of column "
                f"{f.name!r} does not fit {f.type.to_string()} (it would read as null)"
            )
    return errors


def check_default_values(
    fields: Sequence[DataField],
    primary_keys: Sequence[str],
    partition_keys: Sequence[str],
    options: Mapping[str, str],
    where: str,
) -> None:
    errors = default_value_errors(fields, primary_keys, partition_keys, options, where)
    if errors:
        raise ValidationError("\n".join(errors))


def fill_defaults(table: pa.Table, fields: Sequence[DataField], options: CoreOptions, where: str = "") -> pa.Table:
    """``table`` (columns named as ``fields``) with the nulls of every column that has a default
    value replaced by it."""
    defaults = options.field_default_values()
    if not defaults:
        return table
    by_name = {f.name: f for f in fields}
    for i, name in enumerate(table.column_names):
        text = defaults.get(name)
        field = by_name.get(name)
        if text is None or field is None:
            continue
        value = default_value(field, text, where)
        col = table.column(i)
        if col.null_count == 0 or not value.is_valid:
            continue
        table = table.set_column(i, table.field(i), pc.fill_null(col, value.cast(col.type)))
    return table


def without_default_columns(predicate: Predicate | None, options: CoreOptions) -> Predicate | None:
    """``predicate`` without the conjuncts naming a column with a default value (Paimon's
    ``DefaultValueAssigner.handlePredicate``): what may prune partitions and files."""
    if predicate is None:
        return None
    defaults = options.field_default_values()
    if not defaults:
        return predicate
    kept = [c for c in split_and(predicate) if not referenced_columns(c) & defaults.keys()]
    return and_(*kept) if kept else None
