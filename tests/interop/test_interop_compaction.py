"""pypaimon 2.1.0 reads our compacted tables (files at higher levels, COMPACT snapshots, rewritten
and upgraded files, first-row tables whose files writers moved up, deletion vectors we wrote) with the rows we read, at every
snapshot; and we compact a table pypaimon wrote and both read the same rows."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from tests.helpers.interop_util import PypaimonIO, assert_same_rows

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("n", pa.int64())])


@pytest.mark.parametrize("opts", [
    {"merge-engine": "deduplicate"},
    {"merge-engine": "partial-update"},
    {"merge-engine": "first-row"},
    {"merge-engine": "aggregation", "fields.n.aggregate-function": "sum"},
    {"merge-engine": "deduplicate", "deletion-vectors.enabled": "true"},
    {"merge-engine": "partial-update", "deletion-vectors.enabled": "true"},
], ids=["deduplicate", "partial-update", "first-row", "aggregation", "dv-deduplicate", "dv-partial-update"])
def test_pypaimon_reads_our_compacted_tables(opts: dict[str, str], warehouse: Path, pypaimon: PypaimonIO) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db")
    t = cat.create_table("db.t", SCHEMA, primary_keys=["id"], partition_keys=None,
                         options={"bucket": "2", "num-sorted-run.compaction-trigger": "2", **opts})
    for i in range(8):
        ids = [(i * 5 + k) % 23 for k in range(6)]
        cat.get_table("db.t").write(pa.table(
            {"id": ids, "v": [None if k % 3 == 0 else f"v{i}" for k in ids], "n": [i] * 6}, schema=SCHEMA))
    cat.get_table("db.t").compact()
    t = cat.get_table("db.t")
    kinds = {t.store.snapshots.snapshot(s).commit_kind for s in t.snapshot_ids()}
    assert "COMPACT" in kinds
    ours = {sid: t.read(snapshot_id=sid) for sid in t.snapshot_ids()}
    theirs = pypaimon.read_all("db.t")
    assert sorted(theirs) == sorted(ours)
    for sid, rows in ours.items():
        assert_same_rows(theirs[sid], rows, f"pypaimon reading compacted snapshot {sid}")


def test_we_compact_what_pypaimon_wrote(warehouse: Path, pypaimon: PypaimonIO) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA, primary_keys=["id"], options={"bucket": "1", "write-only": "true"})
    for i in range(4):
        ids = list(range(i, i + 5))
        pypaimon.write("db.t", pa.table({"id": ids, "v": [f"p{i}"] * 5, "n": [i] * 5}, schema=SCHEMA))
    t = cat.get_table("db.t")
    before = t.read()
    assert t.compact().snapshot_id is not None
    t = cat.get_table("db.t")
    assert_same_rows(t.read(), before, "our read after compacting pypaimon's files")
    assert_same_rows(pypaimon.read("db.t"), before, "pypaimon reading our compaction of its files")
