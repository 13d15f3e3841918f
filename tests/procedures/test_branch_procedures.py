"""The branch, tag and rollback procedures of issue 11 as registry entries: Paimon's parameter
names, order and output columns, calls by name and by position, and bad arguments that name the
argument and change nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import AlreadyExistsError, NotFoundError, TableNotFoundError, ValidationError
from paimon_sql.procedures import PROCEDURES, call_procedure

# name -> (parameters (name, type, required), output columns) as Paimon's Spark procedures declare them
PAIMON = {
    "create_branch": ([("table", "STRING", True), ("branch", "STRING", True), ("tag", "STRING", False),
                       ("ignoreIfExists", "STRING", False)], [("result", "BOOLEAN")]),
    "delete_branch": ([("table", "STRING", True), ("branch", "STRING", True)], [("result", "BOOLEAN")]),
    "rename_branch": ([("table", "STRING", True), ("from_branch", "STRING", True), ("to_branch", "STRING", True)],
                      [("result", "BOOLEAN")]),
    "fast_forward": ([("table", "STRING", True), ("branch", "STRING", True)], [("result", "BOOLEAN")]),
    "replace_tag": ([("table", "STRING", True), ("tag", "STRING", True), ("snapshot", "BIGINT", False),
                     ("time_retained", "STRING", False)], [("result", "BOOLEAN")]),
    "rename_tag": ([("table", "STRING", True), ("tag", "STRING", True), ("target_tag", "STRING", True)],
                   [("result", "BOOLEAN")]),
    # Paimon declares 'timestamp' optional but reads it as a number regardless (null -> 0): required here
    "create_tag_from_timestamp": ([("table", "STRING", True), ("tag", "STRING", True),
                                   ("timestamp", "BIGINT", True), ("time_retained", "STRING", False)],
                                  [("tagName", "STRING"), ("snapshot", "BIGINT"), ("commit_time", "BIGINT"),
                                   ("watermark", "STRING")]),
    "rollback_to_timestamp": ([("table", "STRING", True), ("timestamp", "BIGINT", True)],
                              [("previous_snapshot_id", "BIGINT"), ("current_snapshot_id", "BIGINT")]),
    "rollback_to_watermark": ([("table", "STRING", True), ("watermark", "BIGINT", True)],
                              [("previous_snapshot_id", "BIGINT"), ("current_snapshot_id", "BIGINT")]),
}


@pytest.fixture()
def t(catalog: Catalog) -> Table:
    table = catalog.create_table("db.t", pa.schema([("id", pa.int64())]))
    assert isinstance(table, Table)
    for i in range(1, 5):
        table.write(pa.table({"id": [i]}))
    return table


def _tree(path: str) -> dict[str, bytes]:
    out = {}
    for root, _, names in os.walk(path):
        for n in names:
            p = os.path.join(root, n)
            out[os.path.relpath(p, path)] = Path(p).read_bytes()
    return out


def _ids(catalog: Catalog, name: str) -> list[int]:
    table = catalog.get_table(name)
    assert isinstance(table, Table)
    return sorted(table.read()["id"].to_pylist())


@pytest.mark.parametrize("name", sorted(PAIMON))
def test_declared_as_paimon_declares_them(name: str) -> None:
    proc = PROCEDURES[name]
    params, output = PAIMON[name]
    assert [(p.name, p.type, p.required) for p in proc.params] == params
    assert list(proc.output) == output


def test_branch_procedures_by_name_and_position(catalog: Catalog, t: Table) -> None:
    call_procedure(catalog, "create_tag", {"table": "db.t", "tag": "t2", "snapshot": 2})
    r = call_procedure(catalog, "create_branch", {"table": "db.t", "branch": "b", "tag": "t2"})
    assert r.rows == [(True,)] and r.columns == [("result", "BOOLEAN")]
    assert _ids(catalog, "db.t$branch_b") == [1, 2]
    assert call_procedure(catalog, "sys.create_branch", ["db.t", "e"]).rows == [(True,)]
    assert call_procedure(catalog, "create_branch", ["db.t", "e", None, "TRUE"]).rows == [(True,)]
    assert call_procedure(catalog, "create_branch", {"table": "t", "branch": "e2", "IGNOREIFEXISTS": "false"},
                          current_database="db").rows == [(True,)]
    assert t.branches() == ["b", "e", "e2"]
    assert call_procedure(catalog, "rename_branch", ["db.t", "e2", "e3"]).rows == [(True,)]
    assert call_procedure(catalog, "delete_branch", {"table": "db.t", "branch": "e, e3"}).rows == [(True,)]
    assert t.branches() == ["b"]
    t.switch_to_branch("b").write(pa.table({"id": [10]}))
    assert call_procedure(catalog, "fast_forward", ["db.t", "b"]).rows == [(True,)]
    assert _ids(catalog, "db.t") == [1, 2, 10]


def test_tag_and_rollback_procedures(catalog: Catalog, t: Table) -> None:
    times = {sid: t.snapshot(sid).time_millis for sid in t.snapshot_ids()}
    call_procedure(catalog, "create_tag", ["db.t", "a", 1])
    assert call_procedure(catalog, "replace_tag", ["db.t", "a", 3, "1 d"]).rows == [(True,)]
    assert t.store.tags.tagged_snapshot("a").id == 3
    assert call_procedure(catalog, "rename_tag", {"table": "db.t", "tag": "a", "target_tag": "b"}).rows == [(True,)]
    assert t.store.tags.tag_names() == ["b"]
    r = call_procedure(catalog, "create_tag_from_timestamp", ["db.t", "c", times[1]])
    assert r.rows == [("c", 1, times[1], "null")]
    r = call_procedure(catalog, "rollback_to_timestamp", {"table": "db.t", "timestamp": times[4]})
    assert r.rows == [(4, 4)]
    r = call_procedure(catalog, "rollback_to_timestamp", {"table": "db.t", "timestamp": times[2]})
    assert r.rows[0][0] == 4 and r.rows[0][1] <= 2  # commit times may share a millisecond
    assert r.columns == [("previous_snapshot_id", "BIGINT"), ("current_snapshot_id", "BIGINT")]


@pytest.mark.parametrize(
    ("name", "args", "error", "match"),
    [
        ("create_branch", {"table": "db.t", "branch": "main"}, ValidationError, "default branch"),
        ("create_branch", {"table": "db.t", "branch": "007"}, ValidationError, "only digits"),
        ("create_branch", {"table": "db.t", "branch": "x", "tag": "nope"}, NotFoundError, "'tag'"),
        ("create_branch", {"table": "db.t", "branch": "x", "ignoreIfExists": "1"}, ValidationError,
         "'ignoreIfExists' must be 'true' or 'false'"),
        ("create_branch", {"table": "db.t", "branch": "b"}, AlreadyExistsError, "'b'"),
        ("create_branch", {"table": "db.nope", "branch": "x"}, TableNotFoundError, "db.nope"),
        ("create_branch", {"table": "db.t", "branch": 5}, ValidationError, "'branch': must be a string"),
        ("create_branch", {"table": "db.t"}, ValidationError, "missing required argument 'branch'"),
        ("delete_branch", {"table": "db.t", "branch": "b,zz"}, NotFoundError, "'zz'"),
        ("delete_branch", {"table": "db.t", "branch": "main"}, ValidationError, "main branch"),
        ("rename_branch", ["db.t", "b", "b"], AlreadyExistsError, "'to_branch'"),
        ("rename_branch", ["db.t", "zz", "y"], NotFoundError, "'from_branch'"),
        ("rename_branch", ["db.t", "b", "a,b"], ValidationError, "'to_branch'"),
        ("fast_forward", ["db.t", "main"], ValidationError, "'branch'"),
        ("fast_forward", ["db.t", "b"], NotFoundError, "no snapshot"),
        ("replace_tag", ["db.t", "nope"], NotFoundError, "'nope'"),
        ("replace_tag", ["db.t", "a", -1], ValidationError, "'snapshot'"),
        ("replace_tag", ["db.t", "a", 1, "1 week"], ValidationError, "'time_retained'"),
        ("rename_tag", ["db.t", "a", "a"], AlreadyExistsError, "'target_tag'"),
        ("rename_tag", ["db.t", "nope", "z"], NotFoundError, "'tag'"),
        ("create_tag_from_timestamp", ["db.t", "a", 0], AlreadyExistsError, "'a'"),
        ("create_tag_from_timestamp", {"table": "db.t", "tag": "z"}, ValidationError, "'timestamp'"),
        ("create_tag_from_timestamp", ["db.t", "z", 2**62], NotFoundError, "at or after timestamp"),
        ("rollback_to_timestamp", ["db.t", -1], NotFoundError, "at or before timestamp -1"),
        ("rollback_to_timestamp", ["db.t", "1"], ValidationError, "'timestamp': must be an integer"),
        ("rollback_to_watermark", ["db.t", 5], NotFoundError, "watermark at or before 5"),
        ("rollback_to_watermark", {"table": "db.t", "watermark": None}, ValidationError, "'watermark'"),
        ("rollback_to_watermark", ["db.t", 1, 2], ValidationError, "at most 2 arguments"),
    ],
)
def test_bad_arguments_name_the_argument_and_change_nothing(
    catalog: Catalog, t: Table, name: str, args: Any, error: type[Exception], match: str
) -> None:
    t.create_tag("a", 1)
    t.create_branch("b")
    before = _tree(t.path)
    with pytest.raises(error, match=match):
        call_procedure(catalog, name, args)
    assert _tree(t.path) == before
