"""paimon_sql and pypaimon 2.1.0 take turns committing to one table (file:// warehouse URI); both read
the same rows at every snapshot. Catches sequence numbers, bucket assignment and dynamic-bucket
indexes that one writer continues from the other's state."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from tests.helpers.interop_util import (
    Delete,
    Overwrite,
    PypaimonIO,
    Write,
    apply_step,
    assert_same_rows,
    case_by_name,
    engine_step,
)

MIXED_CASES = [
    "append_partitioned",
    "append_fixed_bucket",
    "pk_fixed_bucket_unpartitioned",
    "pk_fixed_bucket_partitioned",
    "pk_dynamic_bucket",
    "pk_composite_string_key",
    "pk_partitioned_date_int",
    "all_types_pk",
]


@pytest.mark.parametrize("name", MIXED_CASES)
def test_writers_take_turns(name: str, warehouse: Any, pypaimon_python: Any, tmp_path: Any) -> None:
    case = case_by_name(name)
    uri = warehouse.resolve().as_uri()
    scratch = tmp_path / "ipc"
    scratch.mkdir()
    pypaimon = PypaimonIO(pypaimon_python, uri, scratch)  # type: ignore[arg-type]
    catalog = Catalog(uri)
    catalog.create_database("db", ignore_if_exists=True)
    table_name = f"db.{name}"
    table = catalog.create_table(
        table_name,
        case.schema,
        primary_keys=case.primary_keys or None,
        partition_keys=case.partition_keys or None,
        options=case.options,
    )
    expected: dict[int, pa.Table] = {}
    state = case.schema.empty_table()
    writers = []
    for i, step in enumerate(case.steps):
        # odd steps by pypaimon, except deletes (pypaimon deletes need a 'rowkind.field' column)
        if i % 2 == 1 and not isinstance(step, Delete):
            writers.append("pypaimon")
            if isinstance(step, Overwrite):
                pypaimon.write(
                    table_name,
                    step.data,
                    overwrite=step.partition is None,
                    overwrite_partition=step.partition,
                )
            else:
                assert isinstance(step, Write)
                pypaimon.write(table_name, step.data)
        else:
            writers.append("paimon_sql")
            engine_step(catalog.get_table(table_name), step)
        state = apply_step(case, state, step)
        new_ids = [s for s in catalog.get_table(table_name).snapshot_ids() if s not in expected]
        assert new_ids, f"{name}: step {i} by {writers[-1]} made no snapshot"
        for snapshot_id in new_ids:
            expected[snapshot_id] = state
    assert "pypaimon" in writers and "paimon_sql" in writers

    table = catalog.get_table(table_name)
    for snapshot_id, rows in expected.items():
        assert_same_rows(
            table.read(snapshot_id=snapshot_id), rows, f"{name} ({writers}): we read snapshot {snapshot_id}"
        )
    read = pypaimon.read_all(table_name)
    assert sorted(read) == sorted(expected)
    for snapshot_id, rows in expected.items():
        assert_same_rows(
            read[snapshot_id], rows, f"{name} ({writers}): pypaimon reads snapshot {snapshot_id}"
        )
