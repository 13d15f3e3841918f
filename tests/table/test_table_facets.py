"""The Table facade's sub-facades (``table.tags``, ``table.branches``, ``table.snapshots``,
``table.partitions``, ``table.maintenance``) and the flat methods that delegate to them: both doors
reach the same operation, with the same signature, result and refusal."""

from __future__ import annotations

import inspect

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import NotFoundError, ValidationError
from paimon_sql.table.branches import Branches
from paimon_sql.table.maintenance import Maintenance
from paimon_sql.table.partitions import Partitions
from paimon_sql.table.snapshots import Snapshots
from paimon_sql.table.table import Table
from paimon_sql.table.tags import Tags

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.string()), ("dt", pa.string())])


def rows(keys: list[int], dt: str = "a") -> pa.Table:
    return pa.table({"k": keys, "v": [str(k) for k in keys], "dt": [dt] * len(keys)}, schema=SCHEMA)


@pytest.fixture
def t(catalog: Catalog) -> Table:
    table = catalog.create_table("db.t", SCHEMA, partition_keys=["dt"])
    assert isinstance(table, Table)
    table.write(rows([1, 2]))
    table.write(rows([3], "b"))
    return table


def test_tags_and_snapshots_through_both_doors(t: Table) -> None:
    assert t.snapshots() == t.snapshot_ids() == [1, 2]
    t.tags.create("one", 1)
    t.create_tag("two", 2)
    assert t.tags() == ["one", "two"]
    t.tags.rename("one", "first")
    t.rename_tag("two", "second")
    assert t.tags() == ["first", "second"]
    assert t.tags.expire() == [] and t.expire_tags() == []
    t.tags.delete("second")
    t.delete_tag("nothing")  # as Paimon: nothing happens
    assert t.tags() == ["first"]
    t.snapshots.rollback(tag="first")
    assert t.snapshots() == [1]
    assert t.read().column("k").to_pylist() == [1, 2]


def test_branches_through_both_doors(t: Table) -> None:
    t.create_tag("one", 1)
    assert t.branches() == []
    t.branches.create("b1", "one")
    t.create_branch("b2")
    assert t.branches() == ["b1", "b2"]
    b1 = t.branches.switch_to("b1")
    assert b1.identifier == "db.t$branch_b1" and b1.read().column("k").to_pylist() == [1, 2]
    with pytest.raises(NotFoundError, match="Branch 'nope' of table db.t does not exist"):
        t.switch_to_branch("nope")
    t.branches.rename("b2", "b3")
    t.delete_branch("b3")
    assert t.branches() == ["b1"]


def test_partitions_and_maintenance_through_both_doors(t: Table) -> None:
    assert [p.spec for p in t.partitions()] == [{"dt": "a"}, {"dt": "b"}]
    t.partitions.drop([{"dt": "b"}])
    assert [p.spec for p in t.partitions()] == [{"dt": "a"}]
    with pytest.raises(ValidationError, match="compact of table db.t: Only partition predicate is supported"):
        t.maintenance.compact(where="k = 1")
    with pytest.raises(ValidationError, match="compact of table db.t: Specifying buckets is only supported"):
        t.compact(buckets=[0])
    assert t.maintenance.bucket_mode_name() == "BUCKET_UNAWARE"
    assert t.maintenance.clear_consumers() == [] and t.clear_consumers() == []


@pytest.mark.parametrize(("name", "facet", "method"), [
    ("create_tag", Tags, "create"), ("expire_snapshots", Snapshots, "expire"),
    ("merge_branch", Branches, "merge"), ("drop_partitions", Partitions, "drop"),
    ("compact", Maintenance, "compact"), ("remove_orphan_files", Maintenance, "remove_orphan_files"),
])
def test_flat_methods_keep_the_sub_facade_signature_and_doc(name: str, facet: type, method: str) -> None:
    flat, real = getattr(Table, name), getattr(facet, method)
    assert flat.__doc__ == real.__doc__ and flat.__doc__
    params = list(inspect.signature(flat).parameters)
    assert params == list(inspect.signature(real).parameters) and params[0] == "self"
