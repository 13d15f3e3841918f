"""Nested schema changes (Paimon's SchemaManager nested updates): struct fields, also inside arrays
(``v.element.f``) and maps (``v.value.f``), added / renamed / dropped / widened / commented, with
positions; old files read by nested field id in every format."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql import types as pt
from paimon_sql.errors import ValidationError
from paimon_sql.meta.schema_change import (
    AddColumn,
    DropColumn,
    Move,
    RenameColumn,
    UpdateColumnComment,
    UpdateColumnType,
)

S = pa.struct([("f1", pa.int32()), ("f2", pa.string())])
SCHEMA = pa.schema([("k", pa.int64()), ("s", S), ("a", pa.list_(S)), ("m", pa.map_(pa.string(), S))])


def _row(i: int) -> dict[str, object]:
    return {"f1": i, "f2": f"v{i}"}


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_nested_changes_read_old_files(catalog: Catalog, fmt: str) -> None:
    t = catalog.create_table("db.t", SCHEMA, options={"file.format": fmt})
    t.write(pa.table({"k": [1, 2], "s": [_row(1), None], "a": [[_row(3)], None],
                      "m": [[("x", _row(4))], None]}, schema=SCHEMA))
    t = t.alter(
        AddColumn.of(["s", "f3"], pt.VarCharType(2147483647)),
        RenameColumn.of(["s", "f1"], "g"),
        UpdateColumnType.of(["s", "g"], pt.BigIntType()),
        DropColumn.of(["s", "f2"]),
        AddColumn(("a", "element", "f0"), pt.IntType(), None, Move.first("f0")),
        DropColumn.of(["a", "element", "f2"]),
        RenameColumn.of(["m", "value", "f2"], "h"),
        AddColumn(("m", "value", "z"), pt.IntType(), None, Move.after("z", "f1")),
        UpdateColumnComment.of(["s", "g"], "the g"),
    )
    s_type = t.schema.field("s").type
    assert isinstance(s_type, pt.RowType)
    assert [(f.name, f.type.to_string(), f.description) for f in s_type.fields] == [
        ("g", "BIGINT", "the g"), ("f3", "STRING", None)]
    # nested ids: 0 k, 1 s, 2 f1, 3 f2, 4 a, 5 f1, 6 f2, 7 m, 8 f1, 9 f2; new ones 10, 11, 12
    assert t.schema.highest_field_id == 12
    assert [f.id for f in s_type.fields] == [2, 10]
    rows = sorted(t.read().to_pylist(), key=lambda r: r["k"])
    assert rows[0]["s"] == {"g": 1, "f3": None}
    assert rows[0]["a"] == [{"f0": None, "f1": 3}]
    assert dict(rows[0]["m"])["x"] == {"f1": 4, "z": None, "h": "v4"}
    assert rows[1]["s"] is None and rows[1]["a"] is None and rows[1]["m"] is None


def test_nested_refusals(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA)
    with pytest.raises(ValidationError, match="Cannot add column 's.f1' to table db.t: it exists"):
        t.alter(AddColumn.of(["s", "f1"], pt.IntType()))
    with pytest.raises(ValidationError, match="column 'zz' does not exist"):
        t.alter(AddColumn.of(["zz", "f1"], pt.IntType()))
    with pytest.raises(ValidationError, match="not a field of a ROW type"):
        t.alter(AddColumn.of(["k", "f1"], pt.IntType()))
    with pytest.raises(ValidationError, match=r"Column type f1\[INT\] cannot be converted to DATE without losing"):
        t.alter(UpdateColumnType.of(["s", "f1"], pt.DateType()))
    with pytest.raises(ValidationError, match="all fields of 's'"):
        t.alter(DropColumn.of(["s", "f1"]), DropColumn.of(["s", "f2"]))
    assert t.refresh().schema.id == 0
