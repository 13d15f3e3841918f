"""External data paths and data-file.path-directory across engines: pypaimon 2.1.0 reads the files
we write to external roots (by their _EXTERNAL_PATH) and under a path directory, and we read
pypaimon's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from tests.helpers.interop_util import PypaimonIO

ROWS = pa.table({"id": pa.array(range(20), pa.int64()), "v": [f"v{i}" for i in range(20)],
                 "dt": ["a", "b"] * 10})


def _sorted(t: pa.Table) -> list[tuple[Any, ...]]:
    return sorted(tuple(r.values()) for r in t.select(["id", "v", "dt"]).to_pylist())


def _options(ext: Path, strategy: str) -> dict[str, str]:
    return {"bucket": "2", "data-file.external-paths": f"file://{ext}/r1,file://{ext}/r2",
            "data-file.external-paths.strategy": strategy, "data-file.path-directory": "data"}


@pytest.mark.parametrize("strategy", ["round-robin", "entropy-inject"])
def test_pypaimon_reads_our_external_files(warehouse: Path, tmp_path: Path, pypaimon: PypaimonIO,
                                           strategy: str) -> None:
    ext = tmp_path / "ext"
    catalog = Catalog(str(warehouse))
    catalog.create_database("db")
    t = catalog.create_table("db.t", ROWS.schema, primary_keys=["id", "dt"], partition_keys=["dt"],
                             options=_options(ext, strategy))
    t.write(ROWS)
    catalog.get_table("db.t").write(ROWS.slice(0, 5).set_column(1, "v", pa.array(["w"] * 5)))
    expected = _sorted(catalog.get_table("db.t").read())
    assert not list((warehouse / "db.db" / "t").rglob("*.parquet"))
    assert _sorted(pypaimon.read("db.t")) == expected


def test_we_read_pypaimon_external_files(warehouse: Path, tmp_path: Path, pypaimon: PypaimonIO) -> None:
    ext = tmp_path / "ext"
    spec = {"primary_keys": ["id", "dt"], "partition_keys": ["dt"], "options": _options(ext, "round-robin")}
    pypaimon.write("db.p", ROWS, spec=spec)
    t = Catalog(str(warehouse)).get_table("db.p")
    entries = list(t.store.manifests.live_entries(t.store.snapshots.latest()))
    assert entries and all(e.file.external_path for e in entries)
    assert all("/data/dt=" in e.file.external_path for e in entries)
    assert _sorted(t.read()) == _sorted(ROWS)
    # and we append to it: our files land beside pypaimon's
    t.write(ROWS.slice(0, 3).set_column(1, "v", pa.array(["x"] * 3)))
    got = _sorted(Catalog(str(warehouse)).get_table("db.p").read())
    assert got == _sorted(pypaimon.read("db.p"))
    assert sorted(r for r in got if r[1] == "x") == [(0, "x", "a"), (1, "x", "b"), (2, "x", "a")]
