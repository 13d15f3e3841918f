"""``t$ro`` (Paimon's ReadOptimizedTable): a primary-key table read from its highest level only (no
merge; what is not compacted yet is not seen), deletion vectors applied, time travel; an append
table reads as itself; read-only."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import ValidationError
from paimon_sql.table.system import SystemTable

SCHEMA = pa.schema([("k", pa.int64()), ("v", pa.string())])


def _ro(catalog: Catalog, name: str) -> SystemTable:
    t = catalog.get_table(name)
    assert isinstance(t, SystemTable)
    return t


def _rows(t: Any, **kw: Any) -> list[tuple[int, str]]:
    return sorted((r["k"], r["v"]) for r in t.read(**kw).to_pylist())


@pytest.mark.parametrize("options", [{}, {"deletion-vectors.enabled": "true"}])
def test_primary_key_table_reads_its_top_level(catalog: Catalog, options: dict[str, str]) -> None:
    t = catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1", **options})
    t.write(pa.table({"k": [1, 2, 3], "v": ["a", "b", "c"]}))
    ro = _ro(catalog, "db.t$ro")
    assert [f.name for f in ro.fields] == ["k", "v"] and ro.arrow_schema == t.arrow_schema
    assert _rows(ro) == ([] if not options else [(1, "a"), (2, "b"), (3, "c")])  # DV writers move level 0 up
    t.compact()
    assert _rows(ro) == [(1, "a"), (2, "b"), (3, "c")]
    t.refresh().write(pa.table({"k": [2, 4], "v": ["b2", "d"]}))
    t.refresh().delete("k = 3")
    full = _rows(t.refresh())
    assert full == [(1, "a"), (2, "b2"), (4, "d")]
    if options:  # deletion-vector writers move their rows up at once: the top level is the table
        assert _rows(ro) == full
    else:  # not compacted yet: $ro still shows the compacted rows
        assert _rows(ro) == [(1, "a"), (2, "b"), (3, "c")]
    t.refresh().compact()
    assert _rows(ro) == full
    # projection, filter, time travel
    assert ro.read(columns=["v"], filter="k > 1").column("v").to_pylist() == ["b2", "d"]
    first_compact = next(i for i in t.refresh().snapshot_ids() if t.snapshot(i).commit_kind == "COMPACT")
    assert _rows(ro, snapshot_id=first_compact) == [(1, "a"), (2, "b"), (3, "c")]


def test_append_table_reads_as_itself(catalog: Catalog) -> None:
    t = catalog.create_table("db.a", SCHEMA)
    t.write(pa.table({"k": [1, 1], "v": ["a", "b"]}))
    assert _rows(_ro(catalog, "db.a$ro")) == [(1, "a"), (1, "b")]


def test_read_only(catalog: Catalog) -> None:
    catalog.create_table("db.t", SCHEMA, primary_keys=["k"], options={"bucket": "1"})
    ro = _ro(catalog, "db.t$ro")
    assert not hasattr(ro, "write")
    with pytest.raises(ValidationError, match="names a branch or system table"):
        catalog.drop_table("db.t$ro")
