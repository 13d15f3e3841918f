"""pypaimon 2.1.0 writes (several commits, updates, deletes), paimon_sql reads the same rows at every
snapshot."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from tests.helpers.interop_util import (
    CASE_IDS,
    Case,
    Delete,
    Overwrite,
    PypaimonIO,
    Write,
    apply_step,
    assert_same_rows,
    case_by_name,
)

ROWKIND = "_rk"


def with_row_kind_column(case: Case) -> Case:
    """pypaimon 2.1.0 writes DELETE records only through the table option 'rowkind.field' (a STRING
    column holding '+I'/'-D'; pypaimon/write/row_kind.py): cases with deletes get that column."""
    if not any(isinstance(step, Delete) for step in case.steps):
        return case

    def add(data: pa.Table) -> pa.Table:
        return data.append_column(ROWKIND, pa.array(["+I"] * data.num_rows, pa.string()))

    steps: list[Write | Overwrite | Delete] = []
    for step in case.steps:
        if isinstance(step, Write):
            steps.append(Write(add(step.data)))
        elif isinstance(step, Overwrite):
            steps.append(Overwrite(add(step.data), step.partition))
        else:
            steps.append(step)
    return Case(
        case.name,
        case.schema.append(pa.field(ROWKIND, pa.string())),
        case.primary_keys,
        case.partition_keys,
        {**case.options, "rowkind.field": ROWKIND},
        steps,
    )


def pypaimon_step(
    pypaimon: PypaimonIO, table: str, case: Case, state: pa.Table, step: Any, first: bool
) -> int:
    spec = case.spec() if first else None
    if isinstance(step, Write):
        return pypaimon.write(table, step.data, spec=spec)
    if isinstance(step, Overwrite):
        return pypaimon.write(
            table, step.data, spec=spec, overwrite=step.partition is None, overwrite_partition=step.partition
        )
    assert not first
    return pypaimon.write(table, None, delete=state.filter(step.mask(state)))


@dataclass
class Written:
    """A table pypaimon wrote, and the rows expected at each of its snapshots."""

    warehouse: Path
    table: str
    case: Case
    expected: dict[int, pa.Table]
    state: pa.Table


@pytest.fixture(scope="module")
def pypaimon_tables(
    pypaimon_python: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], Written]:
    """Writes each case's table with pypaimon once per module (the tests below only read it)."""
    root = tmp_path_factory.mktemp("pypaimon-written")
    warehouse = root / "warehouse"
    scratch = root / "ipc"
    warehouse.mkdir()
    scratch.mkdir()
    pypaimon = PypaimonIO(pypaimon_python, warehouse, scratch)
    cache: dict[str, Written] = {}

    def get(name: str) -> Written:
        if name not in cache:
            case = with_row_kind_column(case_by_name(name))
            table_name = f"db.{name}"
            expected: dict[int, pa.Table] = {}
            state = case.schema.empty_table()
            for i, step in enumerate(case.steps):
                snapshot_id = pypaimon_step(pypaimon, table_name, case, state, step, first=i == 0)
                state = apply_step(case, state, step)
                expected[snapshot_id] = state
            assert pypaimon.snapshot_ids(table_name) == sorted(expected)
            cache[name] = Written(warehouse, table_name, case, expected, state)
        return cache[name]

    return get


@pytest.mark.parametrize("name", CASE_IDS)
def test_we_read_what_pypaimon_writes(name: str, pypaimon_tables: Callable[[str], Written]) -> None:
    written = pypaimon_tables(name)
    table = Catalog(str(written.warehouse)).get_table(written.table)
    expected = written.expected
    assert table.snapshot_ids() == sorted(expected), f"{name}: we list snapshots {table.snapshot_ids()}"
    for snapshot_id, rows in expected.items():
        assert_same_rows(table.read(snapshot_id=snapshot_id), rows, f"{name}: reading snapshot {snapshot_id}")
    assert_same_rows(table.read(), written.state, f"{name}: reading the latest snapshot")


@pytest.mark.parametrize("name", CASE_IDS)
def test_we_filter_what_pypaimon_writes(name: str, pypaimon_tables: Callable[[str], Written]) -> None:
    """Our reads prune pypaimon's files by the statistics pypaimon wrote; the filter must also hold
    on the rows returned (exact filtering is part of our read contract)."""
    written = pypaimon_tables(name)
    table = Catalog(str(written.warehouse)).get_table(written.table)
    for flt in written.case.filters:
        got = table.read(filter=flt.sql)
        assert_same_rows(
            got, flt.apply(written.state), f"{name}: we read pypaimon's table with filter {flt.sql!r}"
        )
