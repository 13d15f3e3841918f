"""Schema evolution on write (Paimon's ``write.merge-schema``): the written data's schema merged into
the table's, as Paimon's ``SchemaMergingUtils.mergeSchemas`` + ``diffSchemaChanges`` do, then the
data aligned to the merged schema by name.

* Columns (and ROW fields, also inside ARRAY elements and MAP values) the data has and the table
  lacks are added, nullable, at the end of their ROW, in the data's order.
* Columns the table has and the data lacks stay (written as null).
* Existing leaf types stay unless ``type_widening``: then the table's type becomes the data's when
  Paimon's ``DataTypeCasts`` allows it (implicit casts; explicit ones too with ``explicit_cast``),
  a decimal keeps its scale and takes the larger precision (different scales are refused), and a
  shorter length / lower precision is refused unless ``explicit_cast``.
* Names match case-insensitively unless ``case_sensitive``.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql import types as pt
from paimon_sql.errors import UnsupportedError
from paimon_sql.meta.schema import TableSchema
from paimon_sql.meta.schema_change import AddColumn, FieldPath, SchemaChange, UpdateColumnType
from paimon_sql.type_casts import supports_cast
from paimon_sql.types import DataField, DataType, fields_from_arrow_schema, to_arrow_type


def merge_schema_changes(
    schema: TableSchema, data: pa.Schema, type_widening: bool = False, explicit_cast: bool = False,
    case_sensitive: bool = False,
) -> list[SchemaChange]:
    """The schema changes that merge ``data``'s columns into ``schema`` (empty: nothing to merge)."""
    fields, _ = fields_from_arrow_schema(data)
    changes: list[SchemaChange] = []
    _Merger(type_widening, explicit_cast, case_sensitive, changes).fields(list(schema.fields), fields, ())
    return changes


class _Merger:
    def __init__(self, widening: bool, explicit: bool, case_sensitive: bool, out: list[SchemaChange]) -> None:
        self.widening = widening
        self.explicit = explicit
        self.case_sensitive = case_sensitive
        self.out = out

    def key(self, name: str) -> str:
        return name if self.case_sensitive else name.lower()

    def fields(self, base: list[DataField], update: list[DataField], path: FieldPath) -> None:
        by_name = {self.key(f.name): f for f in base}
        for u in update:
            b = by_name.get(self.key(u.name))
            if b is None:
                self.out.append(AddColumn.of((*path, u.name), u.type.copy(True), u.description))
            else:
                self.type(b.type, u.type, (*path, b.name))

    def type(self, base: DataType, update: DataType, path: FieldPath) -> None:
        if base.copy(True) == update.copy(True):
            return
        if isinstance(base, pt.RowType) and isinstance(update, pt.RowType):
            self.fields(list(base.fields), list(update.fields), path)
        elif isinstance(base, pt.ArrayType) and isinstance(update, pt.ArrayType):
            self.type(base.element, update.element, (*path, "element"))
        elif isinstance(base, pt.MapType) and isinstance(update, pt.MapType):
            if base.key.copy(True) != update.key.copy(True) and self.widening:
                raise UnsupportedError(
                    f"Failed to merge data types {base.to_string()} and {update.to_string()} (column "
                    f"{'.'.join(path)!r}): map keys differ"
                )
            self.type(base.value, update.value, (*path, "value"))
        elif not self.widening:
            return  # the table's type stays: the data is cast to it
        else:
            self.out.append(UpdateColumnType.of(path, self.widened(base, update, path)))

    def widened(self, base: DataType, update: DataType, path: FieldPath) -> DataType:
        column = f" (column {'.'.join(path)!r})"
        if isinstance(base, pt.DecimalType) and isinstance(update, pt.DecimalType):
            if base.scale != update.scale:
                raise UnsupportedError(
                    f"Failed to merge decimal types with different scale: {base.to_string()} and "
                    f"{update.to_string()}{column}"
                )
            return pt.DecimalType(max(base.precision, update.precision), base.scale, nullable=base.nullable)
        if not supports_cast(base.copy(True), update.copy(True), self.explicit):
            raise UnsupportedError(f"Failed to merge data types {base.to_string()} and {update.to_string()}{column}")
        for attr, what in (("length", "a smaller length"), ("precision", "a lower precision")):
            old, new = getattr(base, attr, None), getattr(update, attr, None)
            if isinstance(old, int) and isinstance(new, int) and not self.explicit and old > new:
                raise UnsupportedError(
                    f"Failed to merge the target type that has {what}: {base.to_string()} and "
                    f"{update.to_string()}{column}"
                )
        return update.copy(base.nullable)


def align_to_schema(schema: TableSchema, data: pa.Table, case_sensitive: bool = False) -> pa.Table:
    """``data`` with the table's columns, matched by name (ROW fields too, also inside ARRAY elements
    and MAP values): columns the data lacks
    are null; the values keep their Arrow types (the write casts them to the table's)."""
    columns = [_align(data.column(n) if n else None, f.type, data.num_rows, case_sensitive)
               for f, n in zip(schema.fields, _match([f.name for f in schema.fields], data.column_names, case_sensitive))]
    return pa.Table.from_arrays(columns, names=[f.name for f in schema.fields])


def _match(names: list[str], available: list[str], case_sensitive: bool) -> list[str | None]:
    by_key = {(a if case_sensitive else a.lower()): a for a in available}
    return [by_key.get(n if case_sensitive else n.lower()) for n in names]


def _align(arr: pa.ChunkedArray | pa.Array | None, t: DataType, n: int, case_sensitive: bool) -> pa.Array:
    if arr is None:
        return pa.nulls(n, to_arrow_type(t))
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if isinstance(t, pt.RowType) and pa.types.is_struct(arr.type):
        names = [arr.type.field(i).name for i in range(arr.type.num_fields)]
        matched = _match([f.name for f in t.fields], names, case_sensitive)
        children = [_align(arr.field(names.index(m)) if m is not None else None, f.type, len(arr), case_sensitive)
                    for f, m in zip(t.fields, matched)]
        mask = arr.is_null() if arr.null_count else None
        return pa.StructArray.from_arrays(children, names=[f.name for f in t.fields], mask=mask)
    if isinstance(t, pt.ArrayType) and (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)):
        offsets = arr.offsets
        start = offsets[0].as_py()
        inner = arr.values.slice(start, offsets[-1].as_py() - start)
        values = _align(inner, t.element, len(inner), case_sensitive)
        if start:
            offsets = pc.subtract(offsets, pa.scalar(start, offsets.type))
        mask = arr.is_null() if arr.null_count else None
        cls = pa.LargeListArray if pa.types.is_large_list(arr.type) else pa.ListArray
        return cls.from_arrays(offsets, values, mask=mask)
    if isinstance(t, pt.MapType) and pa.types.is_map(arr.type):
        offsets = arr.offsets
        start = offsets[0].as_py()
        length = offsets[-1].as_py() - start
        keys, items = arr.keys.slice(start, length), arr.items.slice(start, length)
        values = _align(items, t.value, len(items), case_sensitive)
        if start:
            offsets = pc.subtract(offsets, pa.scalar(start, offsets.type))
        mask = arr.is_null() if arr.null_count else None
        return pa.MapArray.from_arrays(offsets, keys, values, mask=mask)
    return arr
