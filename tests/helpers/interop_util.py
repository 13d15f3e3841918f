"""Helpers for the pypaimon interop tests: canonical rows, the table cases, an expected-state model and a
driver for scripts/pypaimon_io.py (which runs in the separate pypaimon venv)."""

from __future__ import annotations

import atexit
import contextlib
import datetime as dt
import json
import math
import os
import select
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

REPO = Path(__file__).resolve().parents[2]
PYPAIMON_VENV = REPO / ".venv-pypaimon"
PYPAIMON_PYTHON = PYPAIMON_VENV / "bin" / "python"
VENV_SCRIPT = REPO / "scripts" / "pypaimon_venv.sh"
IO_SCRIPT = REPO / "scripts" / "pypaimon_io.py"
PYPAIMON_VERSION = "2.1.0"

# ---------------------------------------------------------------------------------------------------
# The pypaimon venv


def ensure_pypaimon_python() -> tuple[Path | None, str]:
    """Return (python, "") when the pypaimon venv is usable, creating it if needed; else (None, why)."""
    if _pypaimon_ok():
        return PYPAIMON_PYTHON, ""
    if VENV_SCRIPT.exists():
        cmd = ["bash", str(VENV_SCRIPT), str(PYPAIMON_VENV)]
    else:
        cmd = [sys.executable, "-c", _CREATE_VENV, str(PYPAIMON_VENV), PYPAIMON_VERSION]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"cannot create the pypaimon {PYPAIMON_VERSION} venv at {PYPAIMON_VENV}: {exc}"
    if proc.returncode != 0 or not _pypaimon_ok():
        tail = (proc.stderr or proc.stdout).strip()[-800:]
        return None, (
            f"pypaimon {PYPAIMON_VERSION} venv at {PYPAIMON_VENV} is missing and could not be "
            f"created ({' '.join(cmd)} exited {proc.returncode}): {tail}"
        )
    return PYPAIMON_PYTHON, ""


_CREATE_VENV = (
    "import subprocess, sys, venv\n"
    "venv.create(sys.argv[1], with_pip=True)\n"
    "subprocess.check_call([sys.argv[1] + '/bin/python', '-m', 'pip', 'install', '--quiet',\n"
    "                       'pypaimon==' + sys.argv[2], 'zstandard'])\n"
)


def _pypaimon_ok() -> bool:
    if not PYPAIMON_PYTHON.exists():
        return False
    proc = subprocess.run(
        [str(PYPAIMON_PYTHON), "-c", "from importlib.metadata import version; print(version('pypaimon'))"],
        capture_output=True,
        text=True,
    )
    return proc.returncode == 0 and proc.stdout.strip() == PYPAIMON_VERSION


# ---------------------------------------------------------------------------------------------------
# Arrow IPC exchange


def write_ipc(table: pa.Table, path: Path) -> Path:
    with pa.OSFile(str(path), "wb") as sink, ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return path


def read_ipc(path: Path) -> pa.Table:
    with pa.memory_map(str(path), "r") as source:
        return ipc.open_file(source).read_all()


class PypaimonIO:
    """Drives scripts/pypaimon_io.py in the pypaimon venv against one warehouse."""

    def __init__(self, python: Path, warehouse: Path, scratch: Path) -> None:
        self.python = python
        self.warehouse = warehouse
        self.scratch = scratch
        self._n = 0

    def _run(self, *args: str) -> dict[str, Any]:
        argv = [args[0], "--warehouse", str(self.warehouse), *args[1:]]
        return _server(self.python).request(argv, f"pypaimon {' '.join(args[:3])}")

    def _tmp(self, stem: str) -> Path:
        self._n += 1
        return self.scratch / f"{stem}-{self._n}.arrow"

    def write(
        self,
        table: str,
        data: pa.Table | None,
        *,
        spec: dict[str, Any] | None = None,
        delete: pa.Table | None = None,
        overwrite: bool = False,
        overwrite_partition: dict[str, str] | None = None,
    ) -> int:
        args = ["write", "--table", table]
        if data is not None:
            args += ["--data", str(write_ipc(data, self._tmp("data")))]
        if delete is not None:
            args += ["--delete", str(write_ipc(delete, self._tmp("delete")))]
        if spec is not None:
            args += ["--spec", json.dumps(spec)]
        if overwrite_partition is not None:
            args += ["--overwrite-partition", json.dumps(overwrite_partition)]
        elif overwrite:
            args += ["--overwrite"]
        snapshot_id = self._run(*args)["snapshot_id"]
        assert isinstance(snapshot_id, int)
        return snapshot_id

    def read(self, table: str, snapshot_id: int | None = None) -> pa.Table:
        out = self._tmp("read")
        args = ["read", "--table", table, "--out", str(out)]
        if snapshot_id is not None:
            args += ["--snapshot-id", str(snapshot_id)]
        self._run(*args)
        return read_ipc(out)

    def read_all(self, table: str) -> dict[int, pa.Table]:
        out_dir = self.scratch / f"all-{table}-{self._n}"
        self._n += 1
        ids = self._run("read-all", "--table", table, "--out-dir", str(out_dir))["snapshot_ids"]
        return {sid: read_ipc(out_dir / f"snapshot-{sid}.arrow") for sid in ids}

    def read_filtered(self, table: str, filters: Sequence[str]) -> list[pa.Table]:
        """The latest snapshot read once per WHERE clause."""
        out_dir = self.scratch / f"filtered-{table}-{self._n}"
        self._n += 1
        self._run(
            "read-filtered",
            "--table",
            table,
            "--filters",
            json.dumps(list(filters)),
            "--out-dir",
            str(out_dir),
        )
        return [read_ipc(out_dir / f"filter-{i}.arrow") for i in range(len(filters))]

    def snapshot_ids(self, table: str) -> list[int]:
        ids: list[int] = self._run("snapshots", "--table", table)["snapshot_ids"]
        return ids


class PypaimonError(RuntimeError):
    """A pypaimon_io.py command failed."""


class _PypaimonServer:
    """One long-lived ``pypaimon_io.py serve`` process per pypaimon python: each command is one JSON
    line in and one out, so a test run imports pypaimon once instead of once per call (~1-2 s each).
    A process that dies or does not answer within the timeout is killed and started again for the next
    request; the failed request raises PypaimonError with the end of its stderr."""

    TIMEOUT = 600.0

    def __init__(self, python: Path) -> None:
        self.python = python
        self._proc: subprocess.Popen[str] | None = None
        self._stderr: Any = None

    def _start(self) -> subprocess.Popen[str]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self.close()
        self._stderr = tempfile.TemporaryFile(mode="w+", prefix="pypaimon-serve-")
        self._proc = subprocess.Popen(
            [str(self.python), str(IO_SCRIPT), "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        return self._proc

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.flush()
        self._stderr.seek(0)
        tail: str = self._stderr.read()[-4000:]
        return tail

    def request(self, argv: list[str], what: str) -> dict[str, Any]:
        proc = self._start()
        assert proc.stdin is not None and proc.stdout is not None
        env = {"PYPAIMON_CATALOG_OPTIONS": os.environ.get("PYPAIMON_CATALOG_OPTIONS")}
        try:
            proc.stdin.write(json.dumps({"argv": argv, "env": env}) + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], self.TIMEOUT)
            line = proc.stdout.readline() if ready else ""
        except OSError as exc:
            line = ""
            why = f"{type(exc).__name__}: {exc}"
        else:
            why = "no answer within the timeout" if not ready else "the process ended"
        if not line:
            tail = self._stderr_tail()
            self.close()
            raise PypaimonError(f"{what} failed ({why}):\n{tail}")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise PypaimonError(f"{what} failed: {answer['error']}\n{self._stderr_tail()[-2000:]}")
        result: dict[str, Any] = answer["ok"]
        return result

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.stdin is not None:
                with contextlib.suppress(OSError):
                    proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


_SERVERS: dict[Path, _PypaimonServer] = {}


def _server(python: Path) -> _PypaimonServer:
    server = _SERVERS.get(python)
    if server is None:
        server = _SERVERS[python] = _PypaimonServer(python)
    return server


@atexit.register
def _close_servers() -> None:
    for server in _SERVERS.values():
        server.close()


# ---------------------------------------------------------------------------------------------------
# Canonical rows (nanosecond-safe)

_TS_FACTOR = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


@dataclass(frozen=True)
class Nan:
    """Stands for a float NaN so that NaN == NaN in canonical rows."""

    def __repr__(self) -> str:
        return "NaN"


def _decode(arr: pa.Array) -> pa.Array:
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if pa.types.is_dictionary(t):
        return _decode(arr.dictionary_decode())
    if hasattr(pa.types, "is_string_view") and pa.types.is_string_view(t):
        return arr.cast(pa.string())
    if hasattr(pa.types, "is_binary_view") and pa.types.is_binary_view(t):
        return arr.cast(pa.binary())
    return arr


def canonical_values(arr: pa.Array | pa.ChunkedArray) -> list[Any]:
    """Python values of an Arrow array that compare equal across Arrow types of the same Paimon type.

    Timestamps become integer nanoseconds since the epoch (Python ints: no overflow, no precision loss,
    the unit and time zone annotation do not matter); NaN becomes `Nan()`; lists and maps become tuples
    (maps keep entry order as lists of (key, value) pairs); structs become tuples of (name, value)."""
    arr = _decode(arr)  # type: ignore[arg-type]
    t = arr.type
    valid = arr.is_valid().to_pylist()
    if pa.types.is_timestamp(t):
        factor = _TS_FACTOR[t.unit]
        raw = arr.cast(pa.int64()).to_pylist()
        return [None if v is None else v * factor for v in raw]
    if pa.types.is_floating(t):
        return [Nan() if isinstance(v, float) and math.isnan(v) else v for v in arr.to_pylist()]
    if pa.types.is_map(t):
        flat = list(zip(canonical_values(arr.keys), canonical_values(arr.items), strict=True))
        return _split(arr, valid, flat)
    if pa.types.is_fixed_size_list(t):
        arr = arr.cast(pa.list_(t.value_field))
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _split(arr, valid, canonical_values(arr.values))
    if pa.types.is_struct(t):
        names = [t.field(i).name for i in range(t.num_fields)]
        children = [canonical_values(child) for child in arr.flatten()]
        return [
            tuple(zip(names, (c[i] for c in children), strict=True)) if valid[i] else None
            for i in range(len(arr))
        ]
    if pa.types.is_fixed_size_binary(t):
        return arr.cast(pa.binary()).to_pylist()
    return arr.to_pylist()


def _split(arr: pa.Array, valid: list[bool], flat: list[Any]) -> list[Any]:
    """Cut `flat` (canonical values of the whole child array, unsliced) by the list offsets."""
    offsets = arr.offsets.to_pylist()
    return [tuple(flat[offsets[i] : offsets[i + 1]]) if ok else None for i, ok in enumerate(valid)]


def canonical_rows(table: pa.Table) -> list[tuple[Any, ...]]:
    """Rows as tuples of canonical values (columns in name order), sorted deterministically."""
    names = sorted(table.schema.names)
    cols = [canonical_values(table.column(name)) for name in names]
    rows = list(zip(*cols, strict=True)) if cols else []
    return sorted(rows, key=repr)


def canonical_type(t: pa.DataType) -> str:
    """A type string that is equal for Arrow types carrying the same Paimon type."""
    if pa.types.is_dictionary(t):
        return canonical_type(t.value_type)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or str(t) == "string_view":
        return "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return "binary"
    if str(t) == "binary_view":
        return "binary"
    if pa.types.is_timestamp(t):
        return "timestamp_ltz" if t.tz is not None else "timestamp"
    if pa.types.is_map(t):
        return f"map<{canonical_type(t.key_type)},{canonical_type(t.item_type)}>"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return f"list<{canonical_type(t.value_type)}>"
    if pa.types.is_struct(t):
        inner = ",".join(f"{t.field(i).name}:{canonical_type(t.field(i).type)}" for i in range(t.num_fields))
        return f"struct<{inner}>"
    return str(t)


def assert_same_rows(actual: pa.Table, expected: pa.Table, what: str) -> None:
    """Same column names, same canonical types, same multiset of canonical rows."""
    assert sorted(actual.schema.names) == sorted(expected.schema.names), (
        f"{what}: columns differ: got {actual.schema.names}, expected {expected.schema.names}"
    )
    type_diffs = {
        name: (str(actual.schema.field(name).type), str(expected.schema.field(name).type))
        for name in expected.schema.names
        if canonical_type(actual.schema.field(name).type) != canonical_type(expected.schema.field(name).type)
    }
    assert not type_diffs, f"{what}: column types differ (got, expected): {type_diffs}"
    got = canonical_rows(actual)
    want = canonical_rows(expected)
    if got == want:
        return
    names = sorted(expected.schema.names)
    missing = list((Counter(want) - Counter(got)).elements())
    extra = list((Counter(got) - Counter(want)).elements())

    def show(rows: list[tuple[Any, ...]]) -> str:
        return "\n".join("    " + repr(dict(zip(names, r, strict=True))) for r in rows[:8]) + (
            f"\n    ... ({len(rows)} in all)" if len(rows) > 8 else ""
        )

    raise AssertionError(
        f"{what}: rows differ ({len(got)} read, {len(want)} expected)\n"
        f"  expected but not read:\n{show(missing)}\n  read but not expected:\n{show(extra)}"
    )


def assert_filtered_rows(actual: pa.Table, state: pa.Table, flt: Filter, what: str) -> None:
    """`actual` came from a read with `flt` pushed down. Readers may return rows the filter rejects
    (pypaimon documents its filter as best effort for primary-key value columns), but never lose a
    matching row nor invent one: the rows `flt` selects from `actual` are exactly those it selects from
    the table's `state`, and every row of `actual` is a row of `state`."""
    assert_same_rows(flt.apply(actual), flt.apply(state), f"{what}, filter {flt.sql!r}")
    names = sorted(state.schema.names)
    extra = Counter(canonical_rows(actual.select(names))) - Counter(canonical_rows(state.select(names)))
    assert not extra, f"{what}, filter {flt.sql!r}: rows not in the table: {list(extra.elements())[:5]}"


# ---------------------------------------------------------------------------------------------------
# Cases: a table definition and a sequence of commits, with the expected state after each commit


@dataclass
class Write:
    data: pa.Table


@dataclass
class Overwrite:
    data: pa.Table
    partition: dict[str, str] | None = None


@dataclass
class Delete:
    sql: str
    mask: Callable[[pa.Table], pa.Array]  # rows of the current state that the predicate selects


Step = Write | Overwrite | Delete


@dataclass
class Filter:
    """A WHERE clause (for our `read(filter=...)` and pypaimon's parser) and the rows it selects."""

    sql: str
    mask: Callable[[pa.Table], pa.Array]

    def apply(self, table: pa.Table) -> pa.Table:
        return table.filter(pc.fill_null(self.mask(table), False))


@dataclass
class Case:
    name: str
    schema: pa.Schema
    primary_keys: list[str] = field(default_factory=list)
    partition_keys: list[str] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    filters: list[Filter] = field(default_factory=list)

    @property
    def is_pk(self) -> bool:
        return bool(self.primary_keys)

    def spec(self) -> dict[str, Any]:
        return {
            "primary_keys": self.primary_keys,
            "partition_keys": self.partition_keys,
            "options": self.options,
        }


def _key_tuples(table: pa.Table, keys: Sequence[str]) -> list[tuple[Any, ...]]:
    return list(zip(*(canonical_values(table.column(k)) for k in keys), strict=True))


def apply_step(case: Case, state: pa.Table, step: Step) -> pa.Table:
    """The table's rows after `step`, Paimon semantics (deduplicate merge engine: last write wins)."""
    if isinstance(step, Delete):
        mask = step.mask(state)
        return state.filter(pc.invert(pc.fill_null(mask, False)))
    data = step.data.select(state.schema.names).cast(state.schema)
    if isinstance(step, Overwrite):
        if step.partition is None:
            state = state.schema.empty_table()
        else:
            keep = None
            for k, v in step.partition.items():
                cond = pc.equal(state.column(k).cast(pa.string()), pa.scalar(v))
                keep = cond if keep is None else pc.and_(keep, cond)
            assert keep is not None
            state = state.filter(pc.invert(pc.fill_null(keep, False)))
    combined = pa.concat_tables([state, data])
    if not case.is_pk:
        return combined
    last: dict[tuple[Any, ...], int] = {}
    for i, key in enumerate(_key_tuples(combined, case.primary_keys)):
        last[key] = i
    return combined.take(pa.array(sorted(last.values()), type=pa.int64()))


def engine_step(table: Any, step: Step) -> int | None:
    """Run one step on our table; returns what write() returned (None for delete)."""
    if isinstance(step, Write):
        return table.write(step.data)  # type: ignore[no-any-return]
    if isinstance(step, Overwrite):
        return table.write(step.data, overwrite=step.partition if step.partition is not None else True)  # type: ignore[no-any-return]
    table.delete(step.sql)
    return None


def expected_states(case: Case) -> list[pa.Table]:
    """Expected rows after each step."""
    state = case.schema.empty_table()
    out = []
    for step in case.steps:
        state = apply_step(case, state, step)
        out.append(state)
    return out


# --- data ------------------------------------------------------------------------------------------

SIMPLE = pa.schema([("id", pa.int64()), ("name", pa.string()), ("v", pa.float64())])
PARTITIONED = pa.schema([("dt", pa.string()), ("id", pa.int64()), ("name", pa.string()), ("v", pa.float64())])


def simple_rows(
    ids: Sequence[int], tag: str, schema: pa.Schema = SIMPLE, dts: Sequence[str] = ()
) -> pa.Table:
    cols: dict[str, Any] = {
        "id": pa.array(list(ids), pa.int64()),
        "name": pa.array([None if i % 7 == 3 else f"{tag}-{i}" for i in ids], pa.string()),
        "v": pa.array([None if i % 11 == 5 else i * 1.5 + len(tag) for i in ids], pa.float64()),
    }
    if "dt" in schema.names:
        days = list(dts) or ["2024-01-01", "2024-01-02", "2024-01-03"]
        cols["dt"] = pa.array([days[i % len(days)] for i in ids], pa.string())
    return pa.table({n: cols[n] for n in schema.names}, schema=schema)


def _in(column: str, values: Sequence[int]) -> Callable[[pa.Table], pa.Array]:
    def mask(t: pa.Table) -> pa.Array:
        return pc.is_in(t.column(column), value_set=pa.array(list(values), pa.int64()))

    return mask


ALL_TYPES = pa.schema(
    [
        ("id", pa.int64()),
        ("b", pa.bool_()),
        ("i8", pa.int8()),
        ("i16", pa.int16()),
        ("i32", pa.int32()),
        ("i64", pa.int64()),
        ("f32", pa.float32()),
        ("f64", pa.float64()),
        ("d10", pa.decimal128(10, 2)),
        ("d38", pa.decimal128(38, 10)),
        ("s", pa.string()),
        ("bin", pa.binary()),
        ("d", pa.date32()),
        ("ts3", pa.timestamp("ms")),
        ("ts6", pa.timestamp("us")),
        ("ltz", pa.timestamp("us", tz="UTC")),
        ("arr", pa.list_(pa.int32())),
        ("m", pa.map_(pa.string(), pa.int32())),
        ("st", pa.struct([("a", pa.int32()), ("b", pa.string())])),
    ]
)

_EPOCH = dt.datetime(1970, 1, 1)


def all_types_rows(ids: Sequence[int], tag: str) -> pa.Table:
    """Rows covering every primitive type plus ARRAY/MAP/ROW, with nulls and edge values."""
    n = len(ids)

    def pick(i: int, values: list[Any]) -> Any:
        return values[i % len(values)]

    ts_values = [
        _EPOCH + dt.timedelta(days=19_723, milliseconds=123),
        _EPOCH - dt.timedelta(milliseconds=1),  # 1969-12-31 23:59:59.999: negative, sub-second
        dt.datetime(2262, 4, 11, 23, 47, 16, 854000),
        dt.datetime(1900, 1, 1, 0, 0, 0),
        None,
    ]
    ts6_values = [
        _EPOCH + dt.timedelta(days=19_723, microseconds=123_456),
        _EPOCH - dt.timedelta(microseconds=1),
        dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
        dt.datetime(1, 1, 1, 0, 0, 0),
        None,
    ]
    cols: dict[str, pa.Array] = {
        "id": pa.array(list(ids), pa.int64()),
        "b": pa.array([pick(i, [True, False, None]) for i in ids], pa.bool_()),
        "i8": pa.array([pick(i, [-128, 127, 0, None, i % 100]) for i in ids], pa.int8()),
        "i16": pa.array([pick(i, [-32768, 32767, None, i]) for i in ids], pa.int16()),
        "i32": pa.array([pick(i, [-(2**31), 2**31 - 1, None, i * 1000]) for i in ids], pa.int32()),
        "i64": pa.array([pick(i, [-(2**63), 2**63 - 1, None, i * 10**12]) for i in ids], pa.int64()),
        "f32": pa.array([pick(i, [1.5, -0.25, None, float(i), 3.4e38]) for i in ids], pa.float32()),
        "f64": pa.array(
            [pick(i, [1e-300, -2.5, None, i / 3, float("inf"), -1e308, float("nan")]) for i in ids],
            pa.float64(),
        ),
        "d10": pa.array(
            [pick(i, [Decimal("12345678.91"), Decimal("-99999999.99"), None, Decimal(i) / 100]) for i in ids],
            pa.decimal128(10, 2),
        ),
        "d38": pa.array(
            [
                pick(
                    i,
                    [
                        Decimal("9999999999999999999999999999.9999999999"),
                        Decimal("-0.0000000001"),
                        None,
                        (Decimal(i) / 7).quantize(Decimal("1e-10")),
                    ],
                )
                for i in ids
            ],
            pa.decimal128(38, 10),
        ),
        "s": pa.array(
            [pick(i, [f"{tag}-{i}", "", None, "ünïcødé ✓ 字", "x" * 100]) for i in ids], pa.string()
        ),
        "bin": pa.array(
            [pick(i, [b"\x00\x01\xff", b"", None, f"{tag}{i}".encode()]) for i in ids], pa.binary()
        ),
        "d": pa.array(
            [
                pick(
                    i,
                    [
                        dt.date(2024, 1, 1),
                        dt.date(1969, 12, 31),
                        None,
                        dt.date(1, 1, 1),
                        dt.date(9999, 12, 31),
                    ],
                )
                for i in ids
            ],
            pa.date32(),
        ),
        "ts3": pa.array([pick(i, ts_values) for i in ids], pa.timestamp("ms")),
        "ts6": pa.array([pick(i, ts6_values) for i in ids], pa.timestamp("us")),
        "ltz": pa.array(
            [
                None if pick(i, ts6_values) is None else pick(i, ts6_values).replace(tzinfo=dt.timezone.utc)
                for i in ids
            ],
            pa.timestamp("us", tz="UTC"),
        ),
        "arr": pa.array([pick(i, [[1, 2, 3], [], None, [None, i], [i]]) for i in ids], pa.list_(pa.int32())),
        "m": pa.array(
            [pick(i, [[("a", 1), ("b", None)], [], None, [(f"k{i}", i)]]) for i in ids],
            pa.map_(pa.string(), pa.int32()),
        ),
        "st": pa.array(
            [pick(i, [{"a": 1, "b": "x"}, {"a": None, "b": None}, None, {"a": i, "b": tag}]) for i in ids],
            pa.struct([("a", pa.int32()), ("b", pa.string())]),
        ),
    }
    assert all(len(c) == n for c in cols.values())
    return pa.table(cols, schema=ALL_TYPES)


NANOS = pa.schema([("id", pa.int64()), ("ts9", pa.timestamp("ns")), ("ltz9", pa.timestamp("ns", tz="UTC"))])


def nanos_rows(ids: Sequence[int]) -> pa.Table:
    values: list[int | None] = [1_700_000_000_123_456_789, -1, 0, None, 1]
    ts = [None if (base := values[i % 5]) is None else base + i for i in ids]
    return pa.table(
        {
            "id": pa.array(list(ids), pa.int64()),
            "ts9": pa.array(ts, pa.int64()).cast(pa.timestamp("ns")),
            "ltz9": pa.array(ts, pa.int64()).cast(pa.timestamp("ns", tz="UTC")),
        },
        schema=NANOS,
    )


COMPOSITE = pa.schema([("k", pa.string()), ("n", pa.int32()), ("v", pa.float64())])


def composite_rows(ids: Sequence[int], tag: str) -> pa.Table:
    """String keys of 0..23 characters (inline and out-of-line in BinaryRow) plus an INT key."""
    return pa.table(
        {
            "k": pa.array(
                [("k" * (i % 24))[: i % 24] + (str(i) if i % 24 else "") for i in ids], pa.string()
            ),
            "n": pa.array([i % 5 - 2 for i in ids], pa.int32()),
            "v": pa.array([i + len(tag) / 10 for i in ids], pa.float64()),
        },
        schema=COMPOSITE,
    )


TYPED_PARTS = pa.schema([("d", pa.date32()), ("h", pa.int32()), ("id", pa.int64()), ("s", pa.string())])


def typed_part_rows(ids: Sequence[int], tag: str, null_parts: bool = False) -> pa.Table:
    """Partitioned by DATE and INT columns (null partition values when `null_parts`)."""
    days = [dt.date(2024, 1, 1), dt.date(1969, 12, 31), dt.date(2024, 2, 29)]
    return pa.table(
        {
            "d": pa.array([None if null_parts and i % 9 == 4 else days[i % 3] for i in ids], pa.date32()),
            "h": pa.array([None if null_parts and i % 5 == 1 else i % 4 - 1 for i in ids], pa.int32()),
            "id": pa.array(list(ids), pa.int64()),
            "s": pa.array([f"{tag}-{i}" for i in ids], pa.string()),
        },
        schema=TYPED_PARTS,
    )


def _col(name: str) -> Callable[[pa.Table], pa.ChunkedArray]:
    return lambda t: t.column(name)


SIMPLE_FILTERS = [
    Filter("id >= 10 AND id < 30", lambda t: pc.and_(pc.greater_equal(t["id"], 10), pc.less(t["id"], 30))),
    Filter("name = 'c2-44'", lambda t: pc.equal(t["name"], "c2-44")),
    Filter("v IS NULL", lambda t: pc.is_null(t["v"])),
    Filter(
        "id IN (1, 45, 100) OR v > 100",
        lambda t: pc.or_kleene(
            pc.is_in(t["id"], value_set=pa.array([1, 45, 100], pa.int64())), pc.greater(t["v"], 100.0)
        ),
    ),
]
PARTITIONED_FILTERS = [
    *SIMPLE_FILTERS,
    Filter("dt = '2024-01-02'", lambda t: pc.equal(t["dt"], "2024-01-02")),
    Filter(
        "dt = '2024-01-03' AND id > 40",
        lambda t: pc.and_(pc.equal(t["dt"], "2024-01-03"), pc.greater(t["id"], 40)),
    ),
]
ALL_TYPES_FILTERS = [
    Filter("i32 > 0", lambda t: pc.greater(t["i32"], 0)),
    Filter("i64 < 0", lambda t: pc.less(t["i64"], 0)),
    Filter("s = ''", lambda t: pc.equal(t["s"], "")),
    Filter("f64 >= 1.0", lambda t: pc.greater_equal(t["f64"], 1.0)),
    Filter("i8 IS NULL", lambda t: pc.is_null(t["i8"])),
]
COMPOSITE_FILTERS = [
    Filter("n = -1", lambda t: pc.equal(t["n"], -1)),
    Filter("k = 'kkk3'", lambda t: pc.equal(t["k"], "kkk3")),
    Filter("k > 'kkkkkkkkkkkk'", lambda t: pc.greater(t["k"], "kkkkkkkkkkkk")),
]
TYPED_PART_FILTERS = [
    Filter("h = 0", lambda t: pc.equal(t["h"], 0)),
    Filter("h IS NULL", lambda t: pc.is_null(t["h"])),
    Filter("id < 10 AND h >= 1", lambda t: pc.and_(pc.less(t["id"], 10), pc.greater_equal(t["h"], 1))),
]
NANOS_FILTERS = [Filter("id > 3", lambda t: pc.greater(t["id"], 3))]
FILTERS_BY_SCHEMA: list[tuple[pa.Schema, list[Filter]]] = [
    (SIMPLE, SIMPLE_FILTERS),
    (PARTITIONED, PARTITIONED_FILTERS),
    (ALL_TYPES, ALL_TYPES_FILTERS),
    (COMPOSITE, COMPOSITE_FILTERS),
    (TYPED_PARTS, TYPED_PART_FILTERS),
    (NANOS, NANOS_FILTERS),
]


def build_cases() -> list[Case]:
    r = range
    cases = [
        Case(
            "append_unpartitioned",
            SIMPLE,
            steps=[
                Write(simple_rows(r(0, 40), "c1")),
                Write(simple_rows(r(20, 60), "c2")),
                Write(simple_rows(r(0, 5), "c3")),
            ],
        ),
        Case(
            "append_partitioned",
            PARTITIONED,
            partition_keys=["dt"],
            steps=[
                Write(simple_rows(r(0, 60), "c1", PARTITIONED)),
                Write(simple_rows(r(60, 90), "c2", PARTITIONED)),
                Overwrite(
                    simple_rows(r(200, 210), "c3", PARTITIONED, dts=["2024-01-02"]), {"dt": "2024-01-02"}
                ),
                Write(simple_rows(r(300, 310), "c4", PARTITIONED, dts=["2024-02-01"])),
            ],
        ),
        Case(
            "append_fixed_bucket",
            SIMPLE,
            options={"bucket": "3", "bucket-key": "id"},
            steps=[
                Write(simple_rows(r(0, 50), "c1")),
                Write(simple_rows(r(25, 80), "c2")),
                Overwrite(simple_rows(r(100, 130), "c3")),
            ],
        ),
        Case(
            "pk_fixed_bucket_unpartitioned",
            SIMPLE,
            primary_keys=["id"],
            options={"bucket": "2"},
            steps=[
                Write(simple_rows(r(0, 50), "c1")),
                Write(
                    simple_rows(list(r(40, 70)) + [3, 3, 3], "c2")
                ),  # updates, new keys, duplicate key in one commit
                Delete("id IN (1, 2, 45, 69)", _in("id", [1, 2, 45, 69])),
                Write(simple_rows([1, 45, 5, 100], "c4")),  # re-insert deleted keys
                Delete("id >= 60", lambda t: pc.greater_equal(t.column("id"), 60)),
            ],
        ),
        Case(
            "pk_fixed_bucket_partitioned",
            PARTITIONED,
            primary_keys=["dt", "id"],
            partition_keys=["dt"],
            options={"bucket": "2"},
            steps=[
                Write(simple_rows(r(0, 60), "c1", PARTITIONED)),
                Write(simple_rows(r(30, 75), "c2", PARTITIONED)),
                Delete("id IN (3, 4, 5, 70)", _in("id", [3, 4, 5, 70])),
                Write(simple_rows(r(3, 6), "c4", PARTITIONED)),
            ],
        ),
        Case(
            "pk_dynamic_bucket",
            SIMPLE,
            primary_keys=["id"],
            steps=[
                Write(simple_rows(r(0, 50), "c1")),
                Write(simple_rows(r(25, 75), "c2")),
                Delete("id IN (0, 30, 74)", _in("id", [0, 30, 74])),
                Write(simple_rows([0, 30, 1, 200], "c4")),
            ],
        ),
        Case(
            "pk_dynamic_bucket_partitioned",
            PARTITIONED,
            primary_keys=["dt", "id"],
            partition_keys=["dt"],
            options={"bucket": "-1"},
            steps=[
                Write(simple_rows(r(0, 45), "c1", PARTITIONED)),
                Write(simple_rows(r(20, 60), "c2", PARTITIONED)),
                Delete("id IN (20, 21, 22)", _in("id", [20, 21, 22])),
            ],
        ),
        Case(
            "pk_composite_string_key",
            COMPOSITE,
            primary_keys=["k", "n"],
            options={"bucket": "3"},
            steps=[
                Write(composite_rows(r(0, 60), "c1")),
                Write(composite_rows(r(30, 90), "c2")),
                Delete("n = 0", lambda t: pc.equal(t.column("n"), 0)),
                Write(composite_rows(r(0, 10), "c4")),
            ],
        ),
        Case(
            "pk_partitioned_date_int",
            TYPED_PARTS,
            primary_keys=["d", "h", "id"],
            partition_keys=["d", "h"],
            options={"bucket": "2"},
            steps=[
                Write(typed_part_rows(r(0, 50), "c1")),
                Write(typed_part_rows(r(25, 70), "c2")),
                Delete("id IN (1, 2, 3, 69)", _in("id", [1, 2, 3, 69])),
            ],
        ),
        Case(
            "append_partitioned_date_int_nulls",
            TYPED_PARTS,
            partition_keys=["d", "h"],
            steps=[
                Write(typed_part_rows(r(0, 50), "c1", null_parts=True)),
                Write(typed_part_rows(r(50, 80), "c2", null_parts=True)),
            ],
        ),
        Case(
            "all_types_append",
            ALL_TYPES,
            steps=[Write(all_types_rows(r(0, 30), "c1")), Write(all_types_rows(r(30, 47), "c2"))],
        ),
        Case(
            "all_types_pk",
            ALL_TYPES,
            primary_keys=["id"],
            options={"bucket": "2"},
            steps=[
                Write(all_types_rows(r(0, 30), "c1")),
                Write(all_types_rows(r(20, 40), "c2")),
                Delete("id IN (0, 21)", _in("id", [0, 21])),
            ],
        ),
        Case(
            "timestamp_nanos_append",
            NANOS,
            steps=[Write(nanos_rows(r(0, 10))), Write(nanos_rows(r(5, 15)))],
        ),
        Case(
            "timestamp_nanos_pk",
            NANOS,
            primary_keys=["id"],
            options={"bucket": "1"},
            steps=[Write(nanos_rows(r(0, 10))), Write(nanos_rows(r(5, 15)))],
        ),
    ]
    for case in cases:
        case.filters = next(f for schema, f in FILTERS_BY_SCHEMA if schema.equals(case.schema))
    return cases


CASES = build_cases()
CASE_IDS = [c.name for c in CASES]


def case_by_name(name: str) -> Case:
    for c in CASES:
        if c.name == name:
            return c
    raise KeyError(name)


def env_info() -> str:
    return f"pyarrow {pa.__version__}, python {sys.version.split()[0]}, cwd {os.getcwd()}"
