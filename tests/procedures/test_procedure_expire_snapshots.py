"""``CALL sys.expire_snapshots``: Paimon's parameters, positional order and output column (our
counts only with ``verbose => true``), the ``options`` argument, ``dry_run``, and bad arguments (a clear error naming the
argument, nothing changed). The rules themselves are tested in tests/ops/test_ops_expire.py."""

from __future__ import annotations

import datetime as dt
import os
import time
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog, Table
from paimon_sql.errors import NotFoundError, UnsupportedError, ValidationError
from paimon_sql.procedures import PROCEDURES, call_procedure


@pytest.fixture()
def t(catalog: Catalog) -> Table:
    table = catalog.create_table("db.t", pa.schema([("id", pa.int64())]))
    assert isinstance(table, Table)
    for i in range(1, 6):
        table.write(pa.table({"id": [i]}), overwrite=i % 2 == 0)
        time.sleep(0.003)
    return table


def _state(table: Table) -> set[str]:
    return {os.path.join(r, n) for r, _, ns in os.walk(table.path) for n in ns}


def test_declaration_matches_paimon() -> None:
    p = PROCEDURES["expire_snapshots"]
    assert [(x.name, x.type, x.required) for x in p.params] == [
        ("table", "STRING", True), ("retain_max", "INT", False), ("retain_min", "INT", False),
        ("older_than", "STRING", False), ("max_deletes", "INT", False), ("options", "STRING", False),
        ("dry_run", "BOOLEAN", False), ("verbose", "BOOLEAN", False),
    ]
    assert p.output == (("deleted_snapshots_count", "INT"),)  # ExpireSnapshotsProcedure's only column
    assert [c for c, _ in p.verbose_output] == [
        "deleted_data_files_count", "deleted_manifests_count", "deleted_index_files_count", "deleted_bytes",
    ]


def test_named_and_positional(catalog: Catalog, t: Table) -> None:
    r = call_procedure(catalog, "sys.expire_snapshots", {"table": "db.t", "retain_max": 4, "retain_min": 1})
    assert r.rows[0][0] == 1 and t.snapshot_ids() == [2, 3, 4, 5]
    assert r.columns[0] == ("deleted_snapshots_count", "INT")
    assert r.rows == [(1,)] and r.columns == [("deleted_snapshots_count", "INT")]  # Paimon's Row(1)
    r = call_procedure(catalog, "expire_snapshots", ["db.t", 2, 1, None, None, None, False, True])  # verbose
    assert r.rows[0][0] == 2 and t.snapshot_ids() == [4, 5]
    assert [c for c, _ in r.columns] == ["deleted_snapshots_count", "deleted_data_files_count",
                                         "deleted_manifests_count", "deleted_index_files_count", "deleted_bytes"]
    assert all(isinstance(v, int) and v >= 0 for v in r.rows[0])
    assert r.rows[0][1] > 0 and r.rows[0][4] > 0  # data files and bytes
    assert sorted(t.read()["id"].to_pylist()) == [4, 5]


def test_older_than_and_max_deletes(catalog: Catalog, t: Table) -> None:
    """Paimon's 'parameter older_than with string type': a java.sql.Timestamp string."""
    latest = dt.datetime.fromtimestamp(t.snapshot(5).time_millis / 1000).isoformat(sep=" ", timespec="milliseconds")
    r = call_procedure(catalog, "expire_snapshots",
                       {"table": "db.t", "older_than": latest, "max_deletes": 2, "retain_min": 1})
    assert r.rows[0][0] == 2 and t.snapshot_ids() == [3, 4, 5]


def test_options_argument_and_table_options(catalog: Catalog, t: Table) -> None:
    r = call_procedure(catalog, "expire_snapshots", {
        "table": "db.t", "options": "snapshot.num-retained.max = 3, snapshot.num-retained.min=1",
    })
    assert r.rows[0][0] == 2 and t.snapshot_ids() == [3, 4, 5]
    assert "snapshot.num-retained.max" not in t.refresh().options  # per call only
    t.alter(set_options={"snapshot.num-retained.max": "2", "snapshot.num-retained.min": "1"})
    r = call_procedure(catalog, "expire_snapshots", {"table": "db.t"})
    assert r.rows[0][0] == 1 and t.snapshot_ids() == [4, 5]


def test_dry_run(catalog: Catalog, t: Table) -> None:
    before = _state(t)
    dry = call_procedure(catalog, "expire_snapshots", {"table": "db.t", "retain_max": 2, "retain_min": 1,
                                                       "dry_run": True, "verbose": True})
    assert dry.rows[0][0] == 3 and len(dry.rows[0]) == 5 and _state(t) == before
    real = call_procedure(catalog, "expire_snapshots", {"table": "db.t", "retain_max": 2, "retain_min": 1,
                                                        "verbose": True})
    assert real.rows == dry.rows


def test_python_api(t: Table) -> None:
    r = t.expire_snapshots(retain_max=3, retain_min=1, dry_run=True)
    assert r.dry_run and r.expired_snapshot_ids == (1, 2) and t.snapshot_ids() == [1, 2, 3, 4, 5]
    r = t.expire_snapshots(options={"snapshot.num-retained.max": "3", "snapshot.num-retained.min": "1"})
    assert r.expired_snapshot_ids == (1, 2) and r.earliest_snapshot_id == 3
    with pytest.raises(NotFoundError, match="Snapshot 2 of table db.t"):
        t.read(snapshot_id=2)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ({"retain_max": 2, "retain_min": 3}, ValidationError, "retain_max 2 must not be less than retain_min 3"),
        ({"retain_max": 2}, ValidationError, "retain_min 10"),
        ({"retain_max": 0}, ValidationError, "'retain_max'"),
        ({"retain_min": "1"}, ValidationError, "'retain_min'"),
        ({"max_deletes": -3}, ValidationError, "'max_deletes'"),
        ({"older_than": "2024-13-45 99:00:00"}, ValidationError, "'older_than'"),
        ({"options": "snapshot.num-retained.max"}, ValidationError, "'options'"),
        ({"options": "snapshot.num-retained.max=x"}, ValidationError, "snapshot.num-retained.max"),
        ({"options": "bucket=3"}, UnsupportedError, "bucket"),
        ({"dry_run": "yes"}, ValidationError, "'dry_run'"),
    ],
)
def test_bad_arguments_change_nothing(
    catalog: Catalog, t: Table, args: dict[str, object], error: type[Exception], match: str
) -> None:
    before = _state(t)
    with pytest.raises(error, match=match):
        call_procedure(catalog, "expire_snapshots", {"table": "db.t", **args})
    assert _state(t) == before


def test_unknown_table(catalog: Catalog, t: Table) -> None:
    with pytest.raises(NotFoundError, match="db.nope"):
        call_procedure(catalog, "expire_snapshots", {"table": "db.nope", "retain_max": 1})
    assert Path(t.path, "snapshot", "snapshot-1").exists()
