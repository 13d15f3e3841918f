"""ALTER TABLE refuses what Paimon refuses once a table has data (SchemaManager.checkAlterTableOption /
checkResetTableOption; SchemaManagerTest.testAlterImmutableOptionsOnEmptyTable, SchemaChangeITCase
testSetAndResetImmutableOptionsOn*Tables and testAlterBucket), with Paimon's messages; a refused
ALTER leaves the table as it was (same schema, same snapshot, same rows). Dynamic options follow the
same rules (AbstractFileStoreTable.checkImmutability)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import UnsupportedError, ValidationError
from paimon_sql.options.support import IMMUTABLE

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.int64())])
AGG = {"bucket": "1", "merge-engine": "aggregation", "fields.v.aggregate-function": "sum"}

# Paimon's CoreOptions fields annotated @Immutable (read from paimon-api CoreOptions.java)
PAIMON_IMMUTABLE = {
    "type", "bucket-key", "bucket-function.type", "data-file.path-directory", "merge-engine",
    "sequence.snapshot-ordering", "aggregation.remove-record-on-delete", "partial-update.remove-record-on-delete",
    "partial-update.remove-record-on-sequence-group", "rowkind.field", "primary-key", "primary-key.nullable",
    "partition", "dynamic-bucket.initial-buckets", "force-lookup", "row-tracking.enabled",
    "data-evolution.enabled", "index-file-in-data-file-dir", "blob-field", "blob-descriptor-field",
    "blob-view-field", "pk-clustering-override",
}


def _state(t: object) -> tuple[object, ...]:
    t = t.refresh()  # type: ignore[attr-defined]
    rows = sorted(tuple(r.values()) for r in t.read().to_pylist())  # type: ignore[attr-defined]
    return t.schema.id, t.latest_snapshot().id, rows  # type: ignore[attr-defined]


def test_the_immutable_set_is_paimons() -> None:
    assert IMMUTABLE == PAIMON_IMMUTABLE


@pytest.mark.parametrize("key", sorted(PAIMON_IMMUTABLE))
def test_every_immutable_option_is_refused_on_a_table_with_data(catalog: Catalog, key: str) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options=AGG)
    t.write(pa.table({"k": [1, 1], "v": [3, 7]}))
    before = _state(t)
    assert before[2] == [(1, 10)]
    message = f"Change '{key}' is not supported yet."
    with pytest.raises(UnsupportedError) as e:
        t.alter(set_options={key: "another-value"})
    assert str(e.value) == message
    with pytest.raises(UnsupportedError) as e:
        t.alter(remove_options=[key])
    assert str(e.value) == message
    assert _state(t) == before
    with pytest.raises(UnsupportedError) as e:  # nor as a dynamic option
        t.copy({key: "another-value"})
    assert str(e.value) == message


def test_the_aggregation_table_keeps_its_sum(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options=AGG)
    t.write(pa.table({"k": [1], "v": [3]}))
    t.write(pa.table({"k": [1], "v": [7]}))
    with pytest.raises(UnsupportedError, match=r"^Change 'merge-engine' is not supported yet\.$"):
        t.alter(set_options={"merge-engine": "deduplicate"})
    with pytest.raises(UnsupportedError, match=r"^Change 'merge-engine' is not supported yet\.$"):
        t.alter(remove_options=["merge-engine"])
    t = t.refresh()
    assert t.options["merge-engine"] == "aggregation"
    assert t.read().to_pylist() == [{"k": 1, "v": 10}]
    # setting the value it has is no change
    assert t.alter(set_options={"merge-engine": "aggregation"}).read().to_pylist() == [{"k": 1, "v": 10}]


def test_immutable_options_change_freely_on_an_empty_table(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    t = t.alter(set_options={"merge-engine": "first-row"})
    t.write(pa.table({"k": [1, 2, 1, 2], "v": [10, 20, 11, 21]}))
    assert sorted(tuple(r.values()) for r in t.read().to_pylist()) == [(1, 10), (2, 20)]
    with pytest.raises(UnsupportedError, match=r"^Change 'merge-engine' is not supported yet\.$"):
        t.alter(set_options={"merge-engine": "deduplicate"})
    t2 = catalog.create_table("db.t2", SCHEMA, primary_keys=["k"], options={"bucket": "1", "merge-engine": "first-row"})
    t2 = t2.alter(remove_options=["merge-engine"])
    t2.write(pa.table({"k": [1, 2, 1, 2], "v": [10, 20, 11, 21]}))
    assert sorted(tuple(r.values()) for r in t2.read().to_pylist()) == [(1, 11), (2, 21)]


def test_type_is_refused_even_without_data(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA)
    for change in ({"set_options": {"type": "format-table"}}, {"remove_options": ["type"]}):
        with pytest.raises(UnsupportedError, match=r"^Change 'type' is not supported yet\.$"):
            t.alter(**change)
    assert t.alter(set_options={"type": "TABLE"}).schema.id == 1  # the default, any case: no change
    assert "type" not in t.refresh().options


def test_primary_key_and_partition_named_as_they_are_are_no_change(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    t.write(pa.table({"k": [1], "v": [1]}))
    t = t.alter(set_options={"primary-key": " k "})
    assert "primary-key" not in t.options and t.primary_keys == ["k"]
    with pytest.raises(UnsupportedError, match=r"^Change 'primary-key' is not supported yet\.$"):
        t.alter(set_options={"primary-key": "k,v"})


def test_conditional_refusals(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    t = t.alter(set_options={"ignore-delete": "true"})  # no data yet: anything goes
    t = t.alter(set_options={"ignore-delete": "false"})
    t = t.alter(set_options={"ignore-delete": "true"})
    t.write(pa.table({"k": [1], "v": [1]}))
    before = _state(t)
    with pytest.raises(UnsupportedError, match=r"^Cannot change ignore-delete from true to false\.$"):
        t.alter(set_options={"ignore-delete": "false"})
    with pytest.raises(UnsupportedError, match=r"^Cannot change deletion vectors mode from false to true\. "
                                               r"If modifying table deletion-vectors mode without full-compaction"):
        t.alter(set_options={"deletion-vectors.enabled": "true"})
    with pytest.raises(UnsupportedError, match=r"^Cannot change ignore-delete from true to false\.$"):
        t.copy({"ignore-delete": "false"})
    assert _state(t) == before
    t.alter(remove_options=["ignore-delete"])  # a reset is not a change to false (Paimon checks only SET)
    dv = catalog.create_table("db.dv", SCHEMA, primary_keys=["k"], options={"bucket": "1", "deletion-vectors.enabled": "true"})
    dv.write(pa.table({"k": [1], "v": [1]}))
    with pytest.raises(UnsupportedError, match=r"^Cannot change deletion vectors mode from true to false\."):
        dv.alter(remove_options=["deletion-vectors.enabled"])


def test_bucket_rules(catalog: Catalog) -> None:
    dyn = catalog.create_table("db.d", SCHEMA, primary_keys=["k"], options={"bucket": "-1"})
    dyn.write(pa.table({"k": [1], "v": [1]}))
    with pytest.raises(UnsupportedError, match=r"^Cannot reset bucket\.$"):
        dyn.alter(remove_options=["bucket"])
    with pytest.raises(UnsupportedError, match=r"^Cannot change bucket when it is -1\.$"):
        dyn.alter(set_options={"bucket": "1"})
    fixed = catalog.create_table("db.f", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    fixed.write(pa.table({"k": [1], "v": [1]}))
    with pytest.raises(UnsupportedError, match=r"^Cannot change bucket to -1\.$"):
        fixed.alter(set_options={"bucket": "-1"})
    with pytest.raises(UnsupportedError, match=r"^Cannot change bucket to -1\.$"):
        fixed.copy({"bucket": "-1"})
    with pytest.raises(UnsupportedError, match="postpone bucket mode"):
        fixed.alter(set_options={"bucket": "-2"})
    empty = catalog.create_table("db.e", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    assert empty.alter(set_options={"bucket": "-1"}).options["bucket"] == "-1"  # no data: allowed


PSCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("dt", pa.string())])


def _buckets(t: object) -> dict[str, set[int]]:
    t = t.refresh()  # type: ignore[attr-defined]
    out: dict[str, set[int]] = {}
    for e in t.store.manifests.live_entries(t.latest_snapshot()):  # type: ignore[attr-defined]
        out.setdefault(e.partition.hex(), set()).add(e.total_buckets)
    return out


@pytest.mark.parametrize("pk", [True, False])
def test_alter_bucket_on_a_table_with_data(catalog: Catalog, pk: bool) -> None:
    """Paimon's RescaleProcedureTest 'rescale with ALTER TABLE and write validation': the ALTER is
    accepted, reads are unchanged, a write into a partition of the old bucket count is refused until
    it is overwritten or rescaled; new partitions get the new count."""
    opts = {"bucket": "2"} if pk else {"bucket": "2", "bucket-key": "id"}
    t = catalog.create_table("db.t", PSCHEMA, primary_keys=["id", "dt"] if pk else None, partition_keys=["dt"],
                             options=opts)
    t.write(pa.table({"id": list(range(20)), "v": ["a"] * 20, "dt": ["d1", "d2"] * 10}))
    before = sorted(tuple(r.values()) for r in t.read().to_pylist())
    snap = t.latest_snapshot().id  # type: ignore[union-attr]
    t = t.alter(set_options={"bucket": "4"})
    assert t.options["bucket"] == "4" and t.latest_snapshot().id == snap  # type: ignore[union-attr]
    assert sorted(tuple(r.values()) for r in t.read().to_pylist()) == before
    with pytest.raises(ValidationError, match=r"Try to write partition \{dt=d1\} with a new bucket num 4, but the "
                                              r"previous bucket num is 2\. .*CALL sys\.rescale"):
        t.write(pa.table({"id": [100], "v": ["x"], "dt": ["d1"]}))
    t.write(pa.table({"id": [100], "v": ["x"], "dt": ["d3"]}))  # a new partition: the new count
    t.write(pa.table({"id": [200], "v": ["o"], "dt": ["d2"]}), overwrite={"dt": "d2"})  # overwrite: the new count
    assert sorted(map(sorted, _buckets(t).values())) == [[2], [4], [4]]
    assert t.rescale() is not None  # every partition, to the table's bucket
    assert sorted(map(sorted, _buckets(t).values())) == [[4], [4], [4]]
    t = t.refresh()
    t.write(pa.table({"id": [101], "v": ["y"], "dt": ["d1"]}))
    rows = sorted(tuple(r.values()) for r in t.read().to_pylist())
    expected = sorted([r for r in before if r[2] != "d2"] + [(100, "x", "d3"), (200, "o", "d2"), (101, "y", "d1")])
    assert rows == expected


def test_dynamic_bucket_option_reads_and_refuses_mixed_writes(catalog: Catalog) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    t.write(pa.table({"k": [1, 2], "v": [1, 2]}))
    c = t.copy({"bucket": "3"})
    assert sorted(r["k"] for r in c.read().to_pylist()) == [1, 2]
    with pytest.raises(ValidationError, match=r"Try to write table with a new bucket num 3, but the previous bucket num is 1"):
        c.write(pa.table({"k": [3], "v": [3]}))
