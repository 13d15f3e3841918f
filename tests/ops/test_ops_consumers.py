"""reset_consumer / clear_consumers (Paimon's procedures): the consumer files, what expiry keeps
because of them, regular expressions, bad input."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import ValidationError
from paimon_sql.procedures import call_procedure


def _table(catalog: Catalog, n: int) -> object:
    t = catalog.create_table("db.t", pa.schema([("id", pa.int64())]), options={"write-only": "true"})
    for i in range(n):
        t.write(pa.table({"id": [i]}))
    return catalog.get_table("db.t")


def test_reset_consumer_protects_snapshots_and_deletes(catalog: Catalog) -> None:
    t = _table(catalog, 6)
    assert call_procedure(catalog, "reset_consumer", {"table": "db.t", "consumerId": "job1",
                                                     "nextSnapshotId": 3}).rows == [(True,)]
    path = Path(t.path) / "consumer" / "consumer-job1"  # type: ignore[attr-defined]
    assert path.read_text() == '{\n  "nextSnapshot" : 3\n}'
    rows = catalog.get_table("db.t$consumers").read().to_pylist()
    assert rows == [{"consumer_id": "job1", "next_snapshot_id": 3}]
    r = catalog.get_table("db.t").expire_snapshots(retain_max=1, retain_min=1)
    assert catalog.get_table("db.t").snapshot_ids() == [3, 4, 5, 6] and r.deleted_snapshots == 2
    call_procedure(catalog, "reset_consumer", ["db.t", "job1"])  # positional, no id: deleted
    assert not path.exists()
    catalog.get_table("db.t").expire_snapshots(retain_max=1, retain_min=1)
    assert catalog.get_table("db.t").snapshot_ids() == [6]


def test_clear_consumers_with_patterns(catalog: Catalog) -> None:
    t = _table(catalog, 1)
    for cid in ("flink_a", "flink_b", "spark_a", "keep"):
        t.reset_consumer(cid, 1)  # type: ignore[attr-defined]
    assert t.clear_consumers("flink_.*", "flink_b") == ["flink_a"]  # type: ignore[attr-defined]
    call_procedure(catalog, "clear_consumers", {"table": "db.t", "includingConsumers": "spark.*"})
    ids = [r["consumer_id"] for r in catalog.get_table("db.t$consumers").read().to_pylist()]
    assert sorted(ids) == ["flink_b", "keep"]
    call_procedure(catalog, "clear_consumers", {"table": "db.t"})
    assert catalog.get_table("db.t$consumers").read().num_rows == 0


def test_bad_consumer_input_changes_nothing(catalog: Catalog) -> None:
    t = _table(catalog, 1)
    with pytest.raises(ValidationError, match="consumer"):
        t.reset_consumer("../escape", 1)  # type: ignore[attr-defined]
    with pytest.raises(ValidationError, match="nextSnapshotId"):
        t.reset_consumer("c", 0)  # type: ignore[attr-defined]
    with pytest.raises(ValidationError, match="regular expression"):
        t.clear_consumers("(")  # type: ignore[attr-defined]
    assert not (Path(t.path) / "consumer").exists() or not any((Path(t.path) / "consumer").iterdir())  # type: ignore[attr-defined]
