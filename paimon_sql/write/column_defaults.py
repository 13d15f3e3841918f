"""Column default values kept in the schema (``DataField.default_value``, the schema JSON's
``defaultValue``), as Paimon 1.3+ applies them: when writing, a null value of such a column is
written as the default (Paimon's ``TableWriteImpl`` wraps every row in a ``DefaultValueRow``).

The stored text is SQL as Spark gives it (``5``, ``'my_value'``): surrounding single quotes are
removed and the rest cast from STRING to the column's type with Paimon's casts
(``DefaultValueUtils.convertDefaultValue``); a value that does not cast is refused when the default
is set (:func:`check_column_default`), so writes never meet one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from functools import lru_cache

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql.casting import cast_array
from paimon_sql.errors import PaimonError, UnsupportedError, ValidationError
from paimon_sql.meta.schema import TableSchema
from paimon_sql.types import MAX_LENGTH, DataField, DataType, VarCharType

_STRING = VarCharType(MAX_LENGTH)


def default_text(sql: str | None) -> str | None:
    """The default value text a column keeps for Spark's ``DEFAULT <sql>`` (None: no default;
    ``DEFAULT NULL`` is none)."""
    if sql is None or sql.strip().upper() == "NULL":
        return None
    return sql.strip()


@lru_cache(maxsize=256)
def _value(text: str, t: DataType) -> pa.Scalar:
    if len(text) >= 2 and text.startswith("'") and text.endswith("'"):
        text = text[1:-1]
    return cast_array(pa.array([text], pa.string()), _STRING, t)[0]


def check_column_default(field: DataField, text: str, where: str) -> None:
    """Refuses a default value that does not cast to the column's type, with Paimon's message."""
    try:
        value = _value(text, field.type)
    except PaimonError as e:
        raise UnsupportedError(
            f"Unsupported default value `{text}` for type {field.type.to_string()} (column {field.name!r} "
            f"of table {where}: {e})"
        ) from None
    if not value.is_valid:
        raise UnsupportedError(
            f"Unsupported default value `{text}` for type {field.type.to_string()} (column {field.name!r} "
            f"of table {where}: it casts to null)"
        )


def fill_column_defaults(fields: Sequence[DataField], data: pa.Table) -> pa.Table:
    """``data`` (the table's columns, in order) with the nulls of each column that has a default
    value replaced by it."""
    for i, f in enumerate(fields):
        if f.default_value is None:
            continue
        col = data.column(i)
        if col.null_count == 0:
            continue
        value = _value(f.default_value, f.type)
        if not value.is_valid:
            continue
        data = data.set_column(i, data.schema.field(i), pc.fill_null(col, value.cast(col.type)))
    return data


def with_defaults(schema: TableSchema, defaults: Mapping[str, str | None], where: str) -> TableSchema:
    """``schema`` with these columns' default values set (None: removed), each checked."""
    if not defaults:
        return schema
    names = [f.name for f in schema.fields]
    unknown = sorted(set(defaults) - set(names))
    if unknown:
        raise ValidationError(f"Cannot set a default value on column(s) {unknown} of table {where}: no such column")
    fields: list[DataField] = []
    for f in schema.fields:
        if f.name in defaults:
            text = defaults[f.name]
            if text is not None:
                check_column_default(f, text, where)
            f = dataclasses.replace(f, default_value=text)
        fields.append(f)
    return dataclasses.replace(schema, fields=tuple(fields))
