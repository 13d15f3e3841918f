"""pypaimon 2.1.0 reads the tables of the compaction changelog producers (lookup: level-0 files moved
up by every write, rewritten ones below the top level, changelog manifests; full-compaction with
delta-commits) with the rows we read, at every snapshot."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from tests.helpers.interop_util import PypaimonIO, assert_same_rows

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("n", pa.int64())])


@pytest.mark.parametrize("opts", [
    {"changelog-producer": "lookup"},
    {"changelog-producer": "lookup", "merge-engine": "partial-update"},
    {"changelog-producer": "lookup", "merge-engine": "first-row"},
    pytest.param(
        {"changelog-producer": "lookup", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum"},
        marks=pytest.mark.xfail(strict=True, reason=(
            "pypaimon 2.1.0 merges every level of a lookup table; Paimon (PrimaryKeyFileStoreTable: "
            "LookupMergeFunction when needLookup) merges only the lowest level above 0, whose row "
            "already holds the older levels' aggregate, so pypaimon counts them twice")),
    ),
    {"changelog-producer": "lookup", "deletion-vectors.enabled": "true"},
    {"changelog-producer": "lookup", "changelog-producer.row-deduplicate": "true"},
    {"changelog-producer": "full-compaction", "full-compaction.delta-commits": "1"},
    {"changelog-producer": "full-compaction", "merge-engine": "aggregation", "fields.n.aggregate-function": "sum",
     "full-compaction.delta-commits": "2"},
], ids=["lookup", "lookup-partial-update", "lookup-first-row", "lookup-aggregation", "lookup-dv", "lookup-row-dedup", "full",
        "full-aggregation"])
def test_pypaimon_reads_changelog_producer_tables(
    opts: dict[str, str], warehouse: Path, pypaimon: PypaimonIO,
) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA, primary_keys=["id"],
                     options={"bucket": "2", "num-sorted-run.compaction-trigger": "2", **opts})
    for i in range(6):
        ids = [(i * 5 + k) % 17 for k in range(6)]
        cat.get_table("db.t").write(pa.table(
            {"id": ids, "v": [None if k % 3 == 0 else f"v{i}" for k in ids], "n": [i] * 6}, schema=SCHEMA))
    t = cat.get_table("db.t")
    assert any(t.store.snapshots.snapshot(s).changelog_manifest_list for s in t.snapshot_ids())
    ours = {sid: t.read(snapshot_id=sid) for sid in t.snapshot_ids()}
    theirs = pypaimon.read_all("db.t")
    assert sorted(theirs) == sorted(ours)
    for sid, rows in ours.items():
        assert_same_rows(theirs[sid], rows, f"pypaimon reading snapshot {sid}")
