"""Schema changes as values (Paimon's SchemaChange, applied in order by one function): the order of
the list is the order of application, positions of added columns (SchemaManagerTest's moves),
and the keyword form of ``Table.alter`` builds the same list."""

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
    RemoveOption,
    RenameColumn,
    SetOption,
    UpdateColumnComment,
    UpdateColumnType,
    UpdateComment,
)
from paimon_sql.ops.alter import changes_from_arguments

SCHEMA = pa.schema([("k", pa.int64()), ("a", pa.int32()), ("b", pa.string())])


def test_changes_apply_in_their_order(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"}, comment="c0")
    t.write(pa.table({"k": [1], "a": [2], "b": ["x"]}))
    t = t.alter(
        AddColumn.of("n", pt.IntType(), "new one"),
        RenameColumn.of("n", "n2"),  # renames the column added just before: kwargs cannot say this
        UpdateColumnType.of("n2", pt.BigIntType()),
        UpdateColumnComment.of("a", "the a"),
        DropColumn.of("b"),
        SetOption("snapshot.num-retained.max", "9"),
        RemoveOption("snapshot.num-retained.max"),
        SetOption("target-file-size", "64 mb"),
        UpdateComment(None),
    )
    assert [f.name for f in t.schema.fields] == ["k", "a", "n2"]
    f = {f.name: f for f in t.schema.fields}
    assert f["n2"].type == pt.BigIntType() and f["n2"].description == "new one" and f["n2"].id == 3
    assert f["a"].description == "the a"
    assert t.options == {"bucket": "1", "target-file-size": "64 mb"}
    assert t.schema.comment is None and t.schema.id == 1
    assert t.read().to_pylist() == [{"k": 1, "a": 2, "n2": None}]


def test_added_column_positions(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA)
    t.write(pa.table({"k": [1], "a": [2], "b": ["x"]}))
    t = t.alter(AddColumn.of("f", pt.IntType(), move=Move.first("f")),
                AddColumn.of("m", pt.VarCharType(pt.MAX_LENGTH), move=Move.after("m", "a")),
                AddColumn.of("p", pt.VarCharType(pt.MAX_LENGTH), move=Move.before("p", "k")),
                AddColumn.of("z", pt.VarCharType(pt.MAX_LENGTH), move=Move.last("z")))
    assert [f.name for f in t.schema.fields] == ["f", "p", "k", "a", "m", "b", "z"]
    t.write(pa.table({"f": [9], "p": ["p"], "k": [2], "a": [3], "m": ["m"], "b": ["y"], "z": ["z"]}))
    assert sorted((tuple(r.values()) for r in t.read().to_pylist()), key=lambda r: r[2]) == [
        (None, None, 1, 2, None, "x", None), (9, "p", 2, 3, "m", "y", "z")]
    with pytest.raises(ValidationError, match="column 'nope' does not exist"):
        t.alter(AddColumn.of("q", pt.IntType(), move=Move.after("q", "nope")))


def test_a_failed_change_writes_nothing(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA)
    with pytest.raises(ValidationError, match="Cannot drop column 'zz'"):
        t.alter(AddColumn.of("n", pt.IntType()), DropColumn.of("zz"))
    with pytest.raises(ValidationError, match="not a schema change"):
        t.alter("add n")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="not both"):
        t.alter(AddColumn.of("n", pt.IntType()), drop_columns=["a"])
    assert t.refresh().schema.id == 0


def test_keyword_arguments_build_the_list() -> None:
    changes = changes_from_arguments(
        "db.t", comment="c", set_options={"x": 1}, add_columns=[pa.field("n", pa.int32())],
        rename_columns={"a": "a2"}, drop_columns=["b"], change_types={"k": pa.int64()},
        column_comments={"a2": ""}, remove_options=["y"],
    )
    assert changes == [
        DropColumn(("b",)), RenameColumn(("a",), "a2"), UpdateColumnType(("k",), pt.BigIntType(), True),
        AddColumn(("n",), pt.IntType()), UpdateColumnComment(("a2",), None), SetOption("x", "1"),
        RemoveOption("y"), UpdateComment("c"),
    ]
    with pytest.raises(ValidationError, match="drop_columns must be a list of column names"):
        changes_from_arguments("db.t", drop_columns="b")
