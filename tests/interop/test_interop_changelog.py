"""Our changelog tables (producers input, lookup, full-compaction) read by two other implementations.

pypaimon-rust (apache/paimon-rust's Python binding, its own venv made by
scripts/paimon_rust_venv.sh) reads each snapshot's changelog incrementally
(``ReadBuilder.with_include_row_kind(True).new_incremental_scan(start, end, 'changelog')``, the
range ``(start, end]``) with the same rows and row kinds as ``changelog_splits`` + ``read_split``;
pypaimon 2.1.0 still reads every snapshot's rows. The tests skip, with the reason, when a venv is
missing and cannot be created."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.scan.changes import changelog_splits
from paimon_sql.scan.reader import read_split
from paimon_sql.table.table import Table
from tests.helpers.interop_util import REPO, PypaimonIO, assert_same_rows

RUST_VENV = REPO / ".venv-paimon-rust"
RUST_PYTHON = RUST_VENV / "bin" / "python"
RUST_SCRIPT = REPO / "scripts" / "paimon_rust_venv.sh"
KINDS = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string()), ("n", pa.int64()),
                    ("dt", pa.string())])

# reads (start, end] of a table in the given mode; prints one JSON list of [rowkind, id, v, n, dt]
_RUST_READ = textwrap.dedent("""
    import json, sys
    import pyarrow as pa
    from pypaimon_rust.datafusion import PaimonCatalog
    warehouse, name, start, end, mode = sys.argv[1:6]
    table = PaimonCatalog({"warehouse": warehouse}).get_table(name)
    rb = table.new_read_builder().with_include_row_kind(True)
    plan = rb.new_incremental_scan(int(start), int(end), mode).plan()
    batches = rb.new_read().read(plan.splits())
    rows = pa.Table.from_batches(batches).to_pylist() if batches else []
    print(json.dumps([[r["rowkind"], r["id"], r["v"], r["n"], r["dt"]] for r in rows]))
""")


def _rust_python() -> Path:
    def ok() -> bool:
        if not RUST_PYTHON.exists():
            return False
        proc = subprocess.run([str(RUST_PYTHON), "-c", "import pypaimon_rust.datafusion, pyarrow"],
                              capture_output=True, text=True)
        return proc.returncode == 0

    if not ok():
        try:
            proc = subprocess.run(["bash", str(RUST_SCRIPT), str(RUST_VENV)], capture_output=True, text=True,
                                  timeout=900)
        except (OSError, subprocess.TimeoutExpired) as e:
            pytest.skip(f"cannot create the pypaimon-rust venv at {RUST_VENV}: {e}")
        if proc.returncode != 0 or not ok():
            pytest.skip(f"the pypaimon-rust venv at {RUST_VENV} is missing and could not be created "
                        f"({RUST_SCRIPT} exited {proc.returncode}): {(proc.stderr or proc.stdout)[-600:]}")
    return RUST_PYTHON


@pytest.fixture(scope="session")
def rust_python() -> Path:
    return _rust_python()


def _rust_read(python: Path, warehouse: Path, name: str, start: int, end: int, mode: str) -> list[tuple[Any, ...]]:
    proc = subprocess.run([str(python), "-c", _RUST_READ, str(warehouse), name, str(start), str(end), mode],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [tuple(r) for r in json.loads(proc.stdout.strip().splitlines()[-1])]


def _our_changelog(t: Table, snapshot_id: int) -> list[tuple[Any, ...]]:
    store = t.store
    out = []
    for split in changelog_splits(store, store.snapshots.snapshot(snapshot_id)):
        tbl = read_split(store, split, list(store.schema.fields), None, keep_row_kind=True)
        out += [(KINDS[r["_VALUE_KIND"]], r["id"], r["v"], r["n"], r["dt"]) for r in tbl.to_pylist()]
    return out


def _history(t: Table) -> None:
    """Writes of +I / +U / -D records over two partitions, a DELETE, a compaction, another write."""
    def rows(ids: list[int], tag: str, dt: str) -> pa.Table:
        return pa.table({"id": ids, "v": [f"{tag}{i}" for i in ids], "n": [i * 10 for i in ids],
                         "dt": [dt] * len(ids)}, schema=SCHEMA)

    t.write(pa.concat_tables([rows([1, 2, 3, 4], "a", "p1"), rows([5, 6], "a", "p2")]))
    tw = t.new_write()
    tw.write(rows([2, 7], "b", "p1"), kind=2)
    tw.write(rows([3], "a", "p1"), kind=3)
    tw.write(rows([2], "c", "p1"), kind=0)
    t.commit_changes([tw.prepare_commit()])
    t.delete("n >= 50 AND dt = 'p2'")
    t.compact(full=True)
    t.write(rows([1, 8], "d", "p1"))


@pytest.mark.parametrize("fmt", ["parquet", "avro"])
def test_paimon_rust_reads_our_input_changelog(rust_python: Path, tmp_path: Path, fmt: str) -> None:
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA, primary_keys=["dt", "id"], partition_keys=["dt"], options={
        "bucket": "2", "changelog-producer": "input", "changelog-file.format": fmt})
    t = cat.get_table("db.t")
    _history(t)
    t = cat.get_table("db.t")
    ids = t.snapshot_ids()
    assert [t.snapshot(i).commit_kind for i in ids] == ["APPEND", "APPEND", "APPEND", "COMPACT", "APPEND"]
    for sid in ids:
        ours = _our_changelog(t, sid)
        theirs = _rust_read(rust_python, tmp_path, "db.t", sid - 1, sid, "changelog")
        assert sorted(theirs, key=repr) == sorted(ours, key=repr), sid
        assert (len(ours) > 0) == (t.snapshot(sid).commit_kind == "APPEND")
    # the whole range at once, and 'auto' follows the table's producer (input: the changelog)
    everything = [r for sid in ids for r in _our_changelog(t, sid)]
    for mode in ("changelog", "auto"):
        got = _rust_read(rust_python, tmp_path, "db.t", 0, ids[-1], mode)
        assert sorted(got, key=repr) == sorted(everything, key=repr), mode
    # the DELETE's -D rows are full rows
    assert sorted(r for r in _our_changelog(t, 3)) == [("-D", 5, "a5", 50, "p2"), ("-D", 6, "a6", 60, "p2")]


def test_pypaimon_reads_input_tables(pypaimon: PypaimonIO, warehouse: Path) -> None:
    cat = Catalog(str(warehouse))
    cat.create_database("db")
    cat.create_table("db.t", SCHEMA, primary_keys=["dt", "id"], partition_keys=["dt"], options={
        "bucket": "2", "changelog-producer": "input"})
    t = cat.get_table("db.t")
    _history(t)
    t = cat.get_table("db.t")
    theirs = pypaimon.read_all("db.t")
    assert sorted(theirs) == t.snapshot_ids()
    for sid, rows in theirs.items():
        assert_same_rows(rows.select(SCHEMA.names), t.read(snapshot_id=sid), f"snapshot {sid}")


@pytest.mark.parametrize("producer", ["lookup", "full-compaction"])
def test_paimon_rust_reads_our_compaction_changelog(rust_python: Path, tmp_path: Path, producer: str) -> None:
    """The changelog the compaction producers write (in the COMPACT snapshots: -U/+U of updated
    keys, -D of deleted ones) reads the same in pypaimon-rust, per snapshot and over the range."""
    cat = Catalog(str(tmp_path))
    cat.create_database("db")
    options = {"bucket": "2", "changelog-producer": producer}
    if producer == "full-compaction":
        options["full-compaction.delta-commits"] = "1"
    cat.create_table("db.t", SCHEMA, primary_keys=["dt", "id"], partition_keys=["dt"], options=options)
    t = cat.get_table("db.t")
    _history(t)
    t = cat.get_table("db.t")
    ids = t.snapshot_ids()
    kinds = set()
    for sid in ids:
        ours = _our_changelog(t, sid)
        kinds |= {r[0] for r in ours}
        theirs = _rust_read(rust_python, tmp_path, "db.t", sid - 1, sid, "changelog")
        assert sorted(theirs, key=repr) == sorted(ours, key=repr), sid
        if ours:
            assert t.snapshot(sid).commit_kind == "COMPACT", sid
    assert kinds == {"+I", "-U", "+U", "-D"}
    everything = [r for sid in ids for r in _our_changelog(t, sid)]
    for mode in ("changelog", "auto"):
        got = _rust_read(rust_python, tmp_path, "db.t", 0, ids[-1], mode)
        assert sorted(got, key=repr) == sorted(everything, key=repr), mode
