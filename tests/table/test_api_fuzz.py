"""Random garbage through the public API: only PaimonError escapes, and a failed call leaves no new
snapshot, schema or file behind (hypothesis, derandomized so CI runs the same examples)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_sql import Catalog
from paimon_sql.errors import PaimonError
from paimon_sql.ops.alter import ALTER_ARGUMENTS
from paimon_sql.table.table import Table

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string()), ("n", pa.int32()), ("dt", pa.string())])
SETTINGS = settings(max_examples=250, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
                    st.floats(allow_nan=True), st.text(max_size=12), st.binary(max_size=8))
garbage = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                       max_leaves=8)
names = st.one_of(st.sampled_from(["id", "v", "n", "dt", "nope", "", "ID", "../x", "a\x00"]), st.text(max_size=8))
sql = st.lists(st.sampled_from([
    "id", "v", "n", "dt", "nope", "=", "<", ">=", "<>", "1", "-1", "'a'", "'2024-01-01'", "1e999", "(", ")",
    "AND", "OR", "NOT", "IN", "NULL", "IS", ",", "LIKE", "'%a_'", "BETWEEN", "TRUE", "CAST", "AS", "INT",
    "+", "*", "x'00'", "DATE", "TIMESTAMP", ";", "--",
]), max_size=14).map(" ".join)
arrow_types = st.sampled_from([pa.int8(), pa.int64(), pa.float64(), pa.string(), pa.binary(), pa.bool_(),
                               pa.date32(), pa.timestamp("us"), pa.list_(pa.int32()), pa.null(),
                               pa.decimal128(5, 2)])


@st.composite
def arrow_tables(draw: Any) -> pa.Table:
    cols = draw(st.lists(st.sampled_from(["id", "v", "n", "dt", "extra"]), min_size=1, max_size=5, unique=True))
    n = draw(st.integers(0, 4))
    arrays, fields = [], []
    for c in cols:
        t = draw(arrow_types)
        values = draw(st.lists(st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=3)), min_size=n, max_size=n))
        try:
            arr = pa.array(values, type=t)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            arr = pa.nulls(n, t)
        arrays.append(arr)
        fields.append(pa.field(c, t))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _state(t: Table) -> tuple[list[str], list[int]]:
    files = sorted(str(p.relative_to(t.path)) for p in Path(t.path).rglob("*") if p.is_file())
    return files, t.snapshot_ids()


def _new_table(pk: bool) -> Table:
    cat = Catalog(tempfile.mkdtemp(prefix="fuzz-"))
    cat.create_database("db")
    t = cat.create_table("db.t", SCHEMA, primary_keys=["id", "dt"] if pk else None, partition_keys=["dt"],
                         options={"bucket": "2" if pk else "-1"})
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"], "n": [1, 2], "dt": ["x", "y"]}, schema=SCHEMA))
    return t


TABLES = {True: _new_table(True), False: _new_table(False)}


def _call(t: Table, op: str, args: dict[str, Any]) -> None:
    before = _state(t)
    try:
        if op == "write":
            t.write(args["data"], overwrite=args.get("overwrite", False))
        elif op == "read":
            t.read(**args)
        elif op == "delete":
            t.delete(args["predicate"])
        elif op == "alter":
            t.alter(**args)
        elif op == "commit_changes":
            t.commit_changes(args["changes"])
    except PaimonError:
        assert _state(t) == before, f"failed {op}({args!r}) left files or snapshots behind"


@SETTINGS
@given(pk=st.booleans(), data=st.one_of(garbage, arrow_tables()),
       overwrite=st.one_of(st.just(False), garbage, st.dictionaries(names, scalars, max_size=2)))
def test_fuzz_write(pk: bool, data: Any, overwrite: Any) -> None:
    _call(TABLES[pk], "write", {"data": data, "overwrite": overwrite})


@SETTINGS
@given(pk=st.booleans(), columns=st.one_of(st.none(), garbage, st.lists(names, max_size=4)),
       filter=st.one_of(st.none(), sql, garbage), snapshot_id=st.one_of(st.none(), garbage),
       tag=st.one_of(st.none(), names, garbage), timestamp_ms=st.one_of(st.none(), garbage))
def test_fuzz_read(pk: bool, columns: Any, filter: Any, snapshot_id: Any, tag: Any, timestamp_ms: Any) -> None:
    _call(TABLES[pk], "read", {"columns": columns, "filter": filter, "snapshot_id": snapshot_id, "tag": tag,
                               "timestamp_ms": timestamp_ms})


@SETTINGS
@given(pk=st.booleans(), predicate=st.one_of(sql, garbage))
def test_fuzz_delete(pk: bool, predicate: Any) -> None:
    _call(TABLES[pk], "delete", {"predicate": predicate})


@SETTINGS
@given(pk=st.booleans(), changes=st.dictionaries(
    st.one_of(st.sampled_from(ALTER_ARGUMENTS), st.text(max_size=5)),
    st.one_of(garbage, st.lists(names, max_size=3), st.dictionaries(names, st.one_of(names, scalars), max_size=2),
              st.lists(st.builds(pa.field, names, arrow_types), max_size=2)),
    max_size=3))
def test_fuzz_alter(pk: bool, changes: dict[str, Any]) -> None:
    t = TABLES[pk]
    _call(t, "alter", changes)
    TABLES[pk] = t.refresh()


@SETTINGS
@given(changes=garbage)
def test_fuzz_commit_changes(changes: Any) -> None:
    _call(TABLES[True], "commit_changes", {"changes": changes})


@SETTINGS
@given(identifier=st.one_of(garbage, names, st.tuples(names, names)), schema=st.one_of(garbage, st.just(SCHEMA)),
       primary_keys=st.one_of(st.none(), garbage, st.lists(names, max_size=2)),
       options=st.one_of(st.none(), garbage, st.dictionaries(st.sampled_from([
           "bucket", "bucket-key", "merge-engine", "sequence.field", "file.format", "write-buffer-size",
           "fields.v.aggregate-function", "commit.max-retries", "nope"]), st.one_of(names, scalars), max_size=3)))
def test_fuzz_create_table(identifier: Any, schema: Any, primary_keys: Any, options: Any) -> None:
    cat = Catalog(str(Path(TABLES[True].path).parent.parent))
    before = sorted(str(p) for p in Path(cat.warehouse).rglob("*"))
    try:
        cat.create_table(identifier, schema, primary_keys=primary_keys, options=options)
    except PaimonError:
        assert sorted(str(p) for p in Path(cat.warehouse).rglob("*")) == before
    else:
        cat.drop_table(identifier)
