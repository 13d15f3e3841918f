"""The procedure registry: declarations as Paimon's Spark procedures, argument decoding, and every
bad argument of create_tag / delete_tag / rollback (the table stays as it was)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import AlreadyExistsError, NotFoundError, TableNotFoundError, ValidationError
from paimon_sql.procedures import (
    PROCEDURES,
    Procedure,
    ProcedureArgs,
    ProcedureParam,
    ProcedureResult,
    call_procedure,
    decode_args,
    optional,
    register,
    required,
)
from paimon_sql.procedures.registry import TABLE


@pytest.fixture()
def t(catalog: Catalog) -> Table:
    table = catalog.create_table("db.t", pa.schema([("id", pa.int64())]))
    assert isinstance(table, Table)
    for i in range(1, 5):
        table.write(pa.table({"id": [i]}))
    return table


def _state(table: Table) -> set[str]:
    out = set()
    for root, _, names in os.walk(table.path):
        for n in names:
            p = os.path.join(root, n)
            out.add(f"{os.path.relpath(p, table.path)}:{Path(p).read_bytes()!r}")
    return out


def _ids(table: Table) -> list[int]:
    return sorted(table.read()["id"].to_pylist())


# ----------------------------------------------------------------------------------------------
# Declarations
# ----------------------------------------------------------------------------------------------


def test_declarations_are_paimons() -> None:
    def sig(name: str) -> list[tuple[str, str, bool]]:
        return [(p.name, p.type, p.required) for p in PROCEDURES[name].params]

    assert sig("create_tag") == [("table", "STRING", True), ("tag", "STRING", True),
                                 ("snapshot", "BIGINT", False), ("time_retained", "STRING", False)]
    assert sig("delete_tag") == [("table", "STRING", True), ("tag", "STRING", True)]
    assert sig("rollback") == [("table", "STRING", True), ("version", "STRING", False),
                               ("snapshot", "BIGINT", False), ("tag", "STRING", False)]
    assert PROCEDURES["create_tag"].output == (("result", "BOOLEAN"),)
    assert PROCEDURES["delete_tag"].output == (("result", "BOOLEAN"),)
    assert PROCEDURES["rollback"].output == (("previous_snapshot_id", "BIGINT"), ("current_snapshot_id", "BIGINT"))
    for p in PROCEDURES.values():
        assert p.description and p.name == p.name.lower()
    assert PROCEDURES["rollback"].signature == (
        "rollback(table STRING, version STRING = NULL, snapshot BIGINT = NULL, tag STRING = NULL)"
    )


def test_parameter_helpers_are_paimons_required_and_optional() -> None:
    assert required("tag", "STRING") == ProcedureParam("tag", "STRING", True)
    assert optional("dry_run", "BOOLEAN", False) == ProcedureParam("dry_run", "BOOLEAN", False, False)
    assert str(optional("snapshot", "BIGINT")) == "snapshot BIGINT = NULL"
    with pytest.raises(ValidationError, match="unknown type 'TEXT'"):
        required("x", "TEXT")


def test_unknown_procedure(catalog: Catalog) -> None:
    with pytest.raises(NotFoundError) as e:
        call_procedure(catalog, "expire_everything", {})
    assert "expire_everything" in str(e.value)
    for name in ("create_tag", "delete_tag", "rollback"):
        assert name in str(e.value)


@pytest.fixture()
def typed() -> Iterator[Procedure]:
    seen: list[dict[str, Any]] = []

    def fn(catalog: Catalog, args: dict[str, Any]) -> list[tuple[Any, ...]]:
        seen.append(args)
        return [(args["i"], args["b"])]

    proc = register(Procedure(
        "zz_typed",
        (ProcedureParam("s", "STRING", True), ProcedureParam("i", "INT", False, 7),
         ProcedureParam("b", "BOOLEAN", False, False), ProcedureParam("d", "DOUBLE", False),
         ProcedureParam("l", "BIGINT", False)),
        (("i", "INT"), ("b", "BOOLEAN")), "test procedure", fn,
    ))
    yield proc
    del PROCEDURES["zz_typed"]


def test_decoding(catalog: Catalog, typed: Procedure) -> None:
    assert decode_args(typed, {"S": "x", "d": 2}) == {"s": "x", "i": 7, "b": False, "d": 2.0, "l": None}
    assert decode_args(typed, ["x", 3, True, 1.5, 2**62]) == {"s": "x", "i": 3, "b": True, "d": 1.5, "l": 2**62}
    assert decode_args(typed, ["x", None]) == {"s": "x", "i": 7, "b": False, "d": None, "l": None}
    res = call_procedure(catalog, "SYS.ZZ_TYPED", {"s": "x", "b": True})
    assert res == ProcedureResult([("i", "INT"), ("b", "BOOLEAN")], [(7, True)])
    bad: list[Any] = [
        ({"i": 1}, "missing required argument 's'"),
        ({"s": None}, "missing required argument 's'"),
        ({"s": "x", "nope": 1}, "no parameter 'nope'"),
        ({"s": "x", "S": "y"}, "given twice"),
        (["x", 1, True, 1.0, 1, 9], "at most 5 arguments"),
        ({"s": 1}, "argument 's': must be a string"),
        ({"s": "x", "i": "1"}, "argument 'i': must be an integer"),
        ({"s": "x", "i": True}, "argument 'i': must be an integer"),
        ({"s": "x", "i": 2**31}, "argument 'i': must be an integer between"),
        ({"s": "x", "l": 2**63}, "argument 'l': must be an integer between"),
        ({"s": "x", "b": 1}, "argument 'b': must be true or false"),
        ({"s": "x", "d": "1.0"}, "argument 'd': must be a number"),
        ("s=x", "mapping or a sequence"),
    ]
    for args, message in bad:
        with pytest.raises(ValidationError, match="zz_typed") as e:
            call_procedure(catalog, "zz_typed", args)
        assert message in str(e.value), args
    with pytest.raises(ValidationError):
        register(Procedure("zz_typed", (), (), "dup", lambda c, a: []))
    with pytest.raises(ValidationError):
        ProcedureParam("x", "VARCHAR", True)


# ----------------------------------------------------------------------------------------------
# create_tag
# ----------------------------------------------------------------------------------------------


def test_table_argument_resolved_by_the_registry(catalog: Catalog, t: Table) -> None:
    """``args.table(catalog)``: the shared ``table`` parameter resolved in one place, its errors
    naming the procedure and the argument; a bare name is in the call's current database."""
    def fn(c: Catalog, args: ProcedureArgs) -> list[tuple[Any, ...]]:
        return [(args.table(c).identifier, args.procedure)]

    register(Procedure("zz_table", (TABLE,), (("name", "STRING"), ("procedure", "STRING")), "test", fn))
    try:
        decoded = decode_args(PROCEDURES["zz_table"], ["db.t"])
        assert isinstance(decoded, ProcedureArgs) and decoded == {"table": "db.t"}
        assert call_procedure(catalog, "zz_table", {"table": "db.t"}).rows == [("db.t", "zz_table")]
        assert call_procedure(catalog, "zz_table", ["t"], current_database="db").rows == [("db.t", "zz_table")]
        with pytest.raises(TableNotFoundError, match=r"^Procedure zz_table: .*db\.missing"):
            call_procedure(catalog, "zz_table", ["db.missing"])
        with pytest.raises(ValidationError, match=r"^Procedure zz_table: argument 'table' must name a table"):
            call_procedure(catalog, "zz_table", ["db.t$snapshots"])
        with pytest.raises(ValidationError, match=r"^Procedure zz_table: argument 'table' must name a table"):
            call_procedure(catalog, "zz_table", ["  "])
    finally:
        del PROCEDURES["zz_table"]


def test_create_tag(catalog: Catalog, t: Table) -> None:
    res = call_procedure(catalog, "create_tag", {"table": "db.t", "tag": "two", "snapshot": 2})
    assert res.columns == [("result", "BOOLEAN")] and res.rows == [(True,)]
    assert call_procedure(catalog, "sys.create_tag", ["db.t", "latest", None, "2 h"]).rows == [(True,)]
    tags = catalog.get_table("db.t$tags").read(columns=["tag_name", "snapshot_id", "time_retained"]).to_pylist()
    assert tags == [{"tag_name": "latest", "snapshot_id": 4, "time_retained": "PT2H"},
                    {"tag_name": "two", "snapshot_id": 2, "time_retained": None}]
    assert sorted(t.read(tag="two")["id"].to_pylist()) == [1, 2]


def test_create_tag_in_default_database(catalog: Catalog) -> None:
    catalog.create_database("default")
    d = catalog.create_table("plain", pa.schema([("id", pa.int64())]))
    assert isinstance(d, Table)
    d.write(pa.table({"id": [1]}))
    call_procedure(catalog, "create_tag", {"table": "plain", "tag": "x"})
    assert d.store.tags.tag_names() == ["x"]
    call_procedure(catalog, "create_tag", {"table": "`default`.`plain`", "tag": "y"})
    assert sorted(d.store.tags.tag_names()) == ["x", "y"]


def test_create_tag_bad_arguments(catalog: Catalog, t: Table) -> None:
    call_procedure(catalog, "create_tag", {"table": "db.t", "tag": "exists"})
    before = _state(t)
    cases: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"tag": "a"}, ValidationError, "missing required argument 'table'"),
        ({"table": "db.t"}, ValidationError, "missing required argument 'tag'"),
        ({"table": 5, "tag": "a"}, ValidationError, "argument 'table': must be a string"),
        ({"table": "", "tag": "a"}, ValidationError, "table"),
        ({"table": "a.b.c", "tag": "a"}, ValidationError, "table"),
        ({"table": "db.nope", "tag": "a"}, TableNotFoundError, "db.nope"),
        ({"table": "nodb.t", "tag": "a"}, NotFoundError, "nodb"),
        ({"table": "db.t$files", "tag": "a"}, ValidationError, "system table"),
        ({"table": "db.t$branch_x", "tag": "a"}, NotFoundError, "Branch 'x'"),
        ({"table": "db.t", "tag": ""}, ValidationError, "blank"),
        ({"table": "db.t", "tag": "a/b"}, ValidationError, "Invalid tag name"),
        ({"table": "db.t", "tag": 3}, ValidationError, "argument 'tag': must be a string"),
        ({"table": "db.t", "tag": "exists"}, AlreadyExistsError, "'exists'"),
        ({"table": "db.t", "tag": "a", "snapshot": "2"}, ValidationError, "argument 'snapshot': must be an integer"),
        ({"table": "db.t", "tag": "a", "snapshot": True}, ValidationError, "argument 'snapshot'"),
        ({"table": "db.t", "tag": "a", "snapshot": 0}, ValidationError, "snapshot"),
        ({"table": "db.t", "tag": "a", "snapshot": 99}, NotFoundError, "snapshot 99"),
        ({"table": "db.t", "tag": "a", "time_retained": "1 parsec"}, ValidationError, "time_retained"),
        ({"table": "db.t", "tag": "a", "time_retained": ""}, ValidationError, "time_retained"),
        ({"table": "db.t", "tag": "a", "time_retained": 60}, ValidationError, "argument 'time_retained': must be a string"),
        ({"table": "db.t", "tag": "a", "bogus": 1}, ValidationError, "no parameter 'bogus'"),
    ]
    for args, err, message in cases:
        with pytest.raises(err) as e:
            call_procedure(catalog, "create_tag", args)
        assert message in str(e.value), (args, str(e.value))
    assert _state(t) == before


# ----------------------------------------------------------------------------------------------
# delete_tag
# ----------------------------------------------------------------------------------------------


def test_delete_tag(catalog: Catalog, t: Table) -> None:
    for name in ("a", "b", "c"):
        call_procedure(catalog, "create_tag", {"table": "db.t", "tag": name})
    res = call_procedure(catalog, "delete_tag", {"table": "db.t", "tag": "a, b,missing"})
    assert res.columns == [("result", "BOOLEAN")] and res.rows == [(True,)]
    assert t.store.tags.tag_names() == ["c"]
    assert call_procedure(catalog, "delete_tag", ["db.t", "c"]).rows == [(True,)]
    assert t.store.tags.tag_names() == []
    assert _ids(t) == [1, 2, 3, 4]


def test_delete_tag_bad_arguments(catalog: Catalog, t: Table) -> None:
    call_procedure(catalog, "create_tag", {"table": "db.t", "tag": "keep"})
    before = _state(t)
    cases: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"table": "db.t"}, ValidationError, "missing required argument 'tag'"),
        ({"tag": "keep"}, ValidationError, "missing required argument 'table'"),
        ({"table": "db.t", "tag": "keep,"}, ValidationError, "delete_tag"),  # an empty name: nothing deleted
        ({"table": "db.t", "tag": "keep, a/b"}, ValidationError, "delete_tag"),
        ({"table": "db.t", "tag": ["keep"]}, ValidationError, "must be a string"),
        ({"table": "db.nope", "tag": "keep"}, TableNotFoundError, "db.nope"),
        ({"table": "db.t$tags", "tag": "keep"}, ValidationError, "system table"),
    ]
    for args, err, message in cases:
        with pytest.raises(err) as e:
            call_procedure(catalog, "delete_tag", args)
        assert message in str(e.value), (args, str(e.value))
    assert _state(t) == before


# ----------------------------------------------------------------------------------------------
# rollback
# ----------------------------------------------------------------------------------------------


def test_rollback_by_version_snapshot_and_tag(catalog: Catalog, t: Table) -> None:
    call_procedure(catalog, "create_tag", {"table": "db.t", "tag": "three", "snapshot": 3})
    res = call_procedure(catalog, "rollback", {"table": "db.t", "version": "three"})
    assert res.columns == [("previous_snapshot_id", "BIGINT"), ("current_snapshot_id", "BIGINT")]
    assert res.rows == [(4, 3)] and _ids(t) == [1, 2, 3]
    assert call_procedure(catalog, "rollback", {"table": "db.t", "version": "2"}).rows == [(3, 2)]
    assert _ids(t) == [1, 2]
    t.write(pa.table({"id": [10]}))
    call_procedure(catalog, "create_tag", {"table": "db.t", "tag": "one", "snapshot": 1})
    assert call_procedure(catalog, "rollback", ["db.t", None, 2]).rows == [(3, 2)]
    assert call_procedure(catalog, "rollback", {"table": "db.t", "tag": "one"}).rows == [(2, 1)]
    assert _ids(t) == [1]


def test_rollback_bad_arguments(catalog: Catalog, t: Table) -> None:
    call_procedure(catalog, "create_tag", {"table": "db.t", "tag": "two", "snapshot": 2})
    before = _state(t)
    cases: list[tuple[dict[str, Any], type[Exception], str]] = [
        ({"table": "db.t"}, ValidationError, "exactly one"),
        ({"table": "db.t", "version": "  "}, ValidationError, "exactly one"),
        ({"table": "db.t", "version": "2", "snapshot": 2}, ValidationError, "only one"),
        ({"table": "db.t", "version": "two", "tag": "two"}, ValidationError, "only one"),
        ({"table": "db.t", "snapshot": 2, "tag": "two"}, ValidationError, "exactly one"),
        ({"table": "db.t", "version": "9"}, NotFoundError, "snapshot 9"),
        ({"table": "db.t", "version": "99999999999999999999"}, ValidationError, "out of range"),
        ({"table": "db.t", "snapshot": 99}, NotFoundError, "snapshot 99"),
        ({"table": "db.t", "snapshot": "2"}, ValidationError, "argument 'snapshot': must be an integer"),
        ({"table": "db.t", "tag": "nope"}, NotFoundError, "tag 'nope'"),
        ({"table": "db.t", "version": "nope"}, NotFoundError, "tag 'nope'"),
        ({"table": "db.t", "tag": "a/b"}, ValidationError, "Invalid tag name"),
        ({"table": "db.t", "tag": 2}, ValidationError, "argument 'tag': must be a string"),
        ({"table": "db.nope", "version": "1"}, TableNotFoundError, "db.nope"),
        ({"table": "db.t$snapshots", "version": "1"}, ValidationError, "system table"),
        ({"version": "1"}, ValidationError, "missing required argument 'table'"),
    ]
    for args, err, message in cases:
        with pytest.raises(err) as e:
            call_procedure(catalog, "rollback", args)
        assert message in str(e.value), (args, str(e.value))
    assert _state(t) == before
    assert _ids(t) == [1, 2, 3, 4]


def test_rollback_empty_table(catalog: Catalog) -> None:
    catalog.create_table("db.e", pa.schema([("id", pa.int64())]))
    with pytest.raises(NotFoundError, match="no snapshot"):
        call_procedure(catalog, "rollback", {"table": "db.e", "snapshot": 1})
