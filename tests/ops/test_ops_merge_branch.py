"""merge_branch (Paimon's MergeBranchProcedureTest and FileSystemBranchManager.mergeBranch checks):
files a branch has and the target lacks are added to the target in one APPEND commit; primary-key
tables, missing branches, incomplete or non-append histories and schema mismatches are refused with
nothing changed; merged files stay readable when the source branch is deleted and main expires."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import NotFoundError, ValidationError
from paimon_sql.procedures import call_procedure

SCHEMA = pa.schema([("id", pa.int32()), ("name", pa.string())])


def _rows(t: Any) -> list[tuple[int, str]]:
    return sorted((r["id"], r["name"]) for r in t.refresh().read().to_pylist())


def _append_table(catalog: Catalog, **options: str) -> Any:
    t = catalog.create_table("db.t", SCHEMA, options=options)
    t.write(pa.table({"id": pa.array([1], pa.int32()), "name": ["a"]}))
    t.create_tag("tag1", 1)
    return t.refresh()


def test_merge_branch_into_main(catalog: Catalog) -> None:
    t = _append_table(catalog)
    t.create_branch("b", tag="tag1")
    b = t.switch_to_branch("b")
    b.write(pa.table({"id": pa.array([2], pa.int32()), "name": ["b"]}))
    b.refresh().write(pa.table({"id": pa.array([3], pa.int32()), "name": ["c"]}))
    assert call_procedure(catalog, "merge_branch", {"table": "db.t", "source_branch": "b"}).rows == [(True,)]
    t = t.refresh()
    assert _rows(t) == [(1, "a"), (2, "b"), (3, "c")]
    assert [t.snapshot(i).commit_kind for i in t.snapshot_ids()] == ["APPEND", "APPEND"]
    # nothing left to merge: no commit
    assert t.merge_branch("b").files == 0 and len(t.refresh().snapshot_ids()) == 2
    # the merged files outlive the branch and main's expiry of older snapshots
    t.delete_branch("b")
    t.delete_tag("tag1")
    t.refresh().expire_snapshots(retain_max=1, retain_min=1, older_than="2999-01-01 00:00:00")
    assert _rows(t) == [(1, "a"), (2, "b"), (3, "c")]


def test_merge_into_another_branch(catalog: Catalog) -> None:
    t = _append_table(catalog)
    t.create_branch("branchA", tag="tag1")
    t.create_branch("branchB", tag="tag1")
    t.switch_to_branch("branchA").write(pa.table({"id": pa.array([2], pa.int32()), "name": ["b"]}))
    call_procedure(catalog, "merge_branch", {"table": "db.t", "source_branch": "branchA", "target_branch": "branchB"})
    assert _rows(t.switch_to_branch("branchB")) == [(1, "a"), (2, "b")]
    assert _rows(t) == [(1, "a")]


@pytest.mark.parametrize("args,error,match", [
    ({"source_branch": "nonexistent"}, NotFoundError, "nonexistent"),
    ({"source_branch": "b", "target_branch": "b"}, ValidationError, "into itself"),
    ({"source_branch": " "}, ValidationError, "blank"),
])
def test_bad_branches(catalog: Catalog, args: dict[str, str], error: type, match: str) -> None:
    t = _append_table(catalog)
    t.create_branch("b", tag="tag1")
    with pytest.raises(error, match=match):
        call_procedure(catalog, "merge_branch", {"table": "db.t", **args})
    assert len(t.refresh().snapshot_ids()) == 1


def test_primary_key_tables_are_refused(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1"})
    t.write(pa.table({"id": pa.array([1], pa.int32()), "name": ["a"]}))
    t.create_branch("b")
    t.switch_to_branch("b").write(pa.table({"id": pa.array([2], pa.int32()), "name": ["b"]}))
    with pytest.raises(ValidationError, match="only supported for append-only tables"):
        t.merge_branch("b")


def test_history_must_be_complete_and_append_only(catalog: Catalog) -> None:
    t = _append_table(catalog)
    t.write(pa.table({"id": pa.array([5], pa.int32()), "name": ["x"]}), overwrite=True)
    t.create_branch("b", tag="tag1")
    t.switch_to_branch("b").write(pa.table({"id": pa.array([2], pa.int32()), "name": ["b"]}))
    with pytest.raises(ValidationError, match="snapshot 2 on branch 'main' has commit kind 'OVERWRITE'"):
        t.merge_branch("b")
    t.refresh().create_tag("tag2", 2)
    t.refresh().create_branch("c", tag="tag2")
    with pytest.raises(ValidationError, match="does not start at snapshot 1"):
        t.merge_branch("c", "b")
    assert _rows(t) == [(5, "x")]


def test_schema_mismatch(catalog: Catalog) -> None:
    t = _append_table(catalog)
    t.create_branch("b", tag="tag1")
    b = t.switch_to_branch("b").alter(add_columns=[("extra", pa.int64())])
    b.write(pa.table({"id": pa.array([2], pa.int32()), "name": ["b"], "extra": [1]}))
    with pytest.raises(ValidationError, match="schema mismatch"):
        t.merge_branch("b")
    assert _rows(t) == [(1, "a")]
