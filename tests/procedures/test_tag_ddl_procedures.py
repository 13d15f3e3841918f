"""The procedures behind the SQL tag statements (``paimon_sql.procedures.tag_ddl``): Paimon's
CreateOrReplaceTagExec / DeleteTagExec / RenameTagExec semantics, no output, not listed."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import AlreadyExistsError, NotFoundError, ValidationError
from paimon_sql.procedures import PROCEDURES, ProcedureResult, call_procedure, get_procedure
from paimon_sql.procedures.registry import listed_procedures

EMPTY = ProcedureResult([], [])


@pytest.fixture()
def t(catalog: Catalog) -> Table:
    table = catalog.create_table("db.t", pa.schema([("id", pa.int64())]))
    assert isinstance(table, Table)
    for i in range(1, 4):
        table.write(pa.table({"id": [i]}))
    return table


def _tags(catalog: Catalog) -> list[tuple[Any, ...]]:
    rows = catalog.get_table("db.t$tags").read().select(["tag_name", "snapshot_id", "time_retained"])
    return [tuple(r.values()) for r in rows.to_pylist()]


def _create(catalog: Catalog, **args: Any) -> ProcedureResult:
    return call_procedure(catalog, "alter_table_create_tag", {"table": "db.t", **args})


def test_declared_without_output_and_not_listed() -> None:
    for name in ("alter_table_create_tag", "alter_table_delete_tag", "alter_table_rename_tag"):
        proc = get_procedure(name)
        assert proc.output == () and not proc.listed and proc.description
        assert name not in listed_procedures()
    assert "create_tag" in listed_procedures()
    # the unlisted statement procedures: the three tag statements
    assert len(listed_procedures()) == len(PROCEDURES) - 3
    with pytest.raises(NotFoundError) as e:
        get_procedure("nope")
    assert "alter_table_create_tag" not in str(e.value) and "create_tag" in str(e.value)


def test_create_retain_and_as_of_version(catalog: Catalog, t: Table) -> None:
    assert _create(catalog, tag="tag-1") == EMPTY
    assert _create(catalog, tag="tag-2", time_retained="2 days") == EMPTY
    assert _create(catalog, tag="tag-3", snapshot=1) == EMPTY
    assert _create(catalog, tag="tag-4", snapshot=2, time_retained="3 hours") == EMPTY
    assert _tags(catalog) == [("tag-1", 3, None), ("tag-2", 3, "PT48H"), ("tag-3", 1, None), ("tag-4", 2, "PT3H")]


def test_create_existing_fails_unless_if_not_exists(catalog: Catalog, t: Table) -> None:
    _create(catalog, tag="tag-1")
    with pytest.raises(AlreadyExistsError, match=r"table db.t: Tag tag-1 is exists\."):
        _create(catalog, tag="tag-1")
    # IF NOT EXISTS keeps the tag as it is, whatever the other clauses say
    assert _create(catalog, tag="tag-1", if_not_exists=True, time_retained="10 hours") == EMPTY
    assert _create(catalog, tag="tag-1", if_not_exists=True, snapshot=99) == EMPTY
    assert _tags(catalog) == [("tag-1", 3, None)]


def test_replace_and_create_or_replace(catalog: Catalog, t: Table) -> None:
    _create(catalog, tag="tag-1", snapshot=1)
    assert _create(catalog, tag="tag-1", snapshot=2, time_retained="1 hours", replace=True) == EMPTY
    assert _tags(catalog) == [("tag-1", 2, "PT1H")]
    # a missing tag is created (Paimon's REPLACE TAG too, not only CREATE OR REPLACE)
    _create(catalog, tag="tag-2", snapshot=1, replace=True)
    assert _tags(catalog)[1] == ("tag-2", 1, None)
    # replacing without a retention drops it; without a version: the latest snapshot
    _create(catalog, tag="tag-1", replace=True)
    assert _tags(catalog)[0] == ("tag-1", 3, None)


def test_create_errors_name_the_clause(catalog: Catalog, t: Table) -> None:
    with pytest.raises(ValidationError, match="AS OF VERSION must name a snapshot id"):
        _create(catalog, tag="x", snapshot=0)
    with pytest.raises(NotFoundError, match="snapshot 42"):
        _create(catalog, tag="x", snapshot=42)
    with pytest.raises(NotFoundError, match="snapshot 42"):
        _create(catalog, tag="x", snapshot=42, replace=True)
    with pytest.raises(ValidationError, match="RETAIN"):
        _create(catalog, tag="x", time_retained="2 weeks")
    with pytest.raises(ValidationError, match="','"):
        _create(catalog, tag="a,b")
    assert _tags(catalog) == []


def test_create_on_an_empty_table(catalog: Catalog) -> None:
    catalog.create_table("db.t", pa.schema([("id", pa.int64())]))
    with pytest.raises(NotFoundError, match="no snapshot"):
        _create(catalog, tag="x")


def test_delete_several_and_missing(catalog: Catalog, t: Table) -> None:
    for name in ("a", "b", "c", "d"):
        _create(catalog, tag=name)
    delete = "alter_table_delete_tag"
    assert call_procedure(catalog, delete, {"table": "db.t", "tag": "a"}) == EMPTY
    assert call_procedure(catalog, delete, {"table": "db.t", "tag": "b, c"}) == EMPTY
    assert call_procedure(catalog, delete, {"table": "db.t", "tag": "zz"}) == EMPTY  # missing: skipped
    assert [r[0] for r in _tags(catalog)] == ["d"]
    with pytest.raises(ValidationError, match="DELETE TAG"):
        call_procedure(catalog, delete, {"table": "db.t", "tag": "d,"})
    assert [r[0] for r in _tags(catalog)] == ["d"]


def test_rename(catalog: Catalog, t: Table) -> None:
    _create(catalog, tag="tag-1", snapshot=2)
    _create(catalog, tag="other")
    rename = "alter_table_rename_tag"
    assert call_procedure(catalog, rename, {"table": "db.t", "tag": "tag-1", "target_tag": "tag-2"}) == EMPTY
    assert _tags(catalog) == [("other", 3, None), ("tag-2", 2, None)]
    with pytest.raises(NotFoundError, match="'tag-1'"):
        call_procedure(catalog, rename, {"table": "db.t", "tag": "tag-1", "target_tag": "x"})
    with pytest.raises(AlreadyExistsError, match="'other'"):
        call_procedure(catalog, rename, {"table": "db.t", "tag": "tag-2", "target_tag": "other"})


def test_bare_table_is_in_the_current_database(catalog: Catalog, t: Table) -> None:
    call_procedure(catalog, "alter_table_create_tag", {"table": "t", "tag": "x"}, current_database="db")
    assert [r[0] for r in _tags(catalog)] == ["x"]
    with pytest.raises(NotFoundError):
        call_procedure(catalog, "alter_table_create_tag", {"table": "t", "tag": "y"})
