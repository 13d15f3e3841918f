from __future__ import annotations

import decimal
import glob
import json
import math
import os
import re
import time
from pathlib import Path
from typing import Any

import fastavro
import numpy as np
import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paimon_sql.errors import ValidationError
from paimon_sql.format.binary_row import encode_row, encode_rows
from paimon_sql.format.murmur import (
    bucket_of,
    bucket_of_hashes,
    hash_columns,
    murmur_hash_bytes,
    murmur_hash_matrix,
    murmur_hash_rows,
)
from paimon_sql.types import (
    BigIntType,
    BooleanType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    IntType,
    SmallIntType,
    TimestampType,
    TinyIntType,
    VarBinaryType,
    VarCharType,
    parse_data_field,
    to_arrow_type,
)

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures"
if not FIXTURES.is_dir():
    FIXTURES = Path("/work/shared/fixtures")

MASK = 0xFFFFFFFF


def _to_int32(x: int) -> int:
    x &= MASK
    return x - (1 << 32) if x >= 1 << 31 else x


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & MASK


def _mix_k1(k: int) -> int:
    k = (k * 0xCC9E2D51) & MASK
    k = _rotl(k, 15)
    return (k * 0x1B873593) & MASK


def _mix_h1(h: int, k: int) -> int:
    h ^= k
    h = _rotl(h, 13)
    return (h * 5 + 0xE6546B64) & MASK


def reference_hash(data: bytes, seed: int = 42) -> int:
    """MurmurHashUtils.hashBytes transcribed literally: little-endian int words, then each trailing
    byte mixed as a sign-extended Java byte, then fmix with the byte length."""
    h = seed & MASK
    aligned = len(data) - len(data) % 4
    for i in range(0, aligned, 4):
        h = _mix_h1(h, _mix_k1(int.from_bytes(data[i : i + 4], "little")))
    for i in range(aligned, len(data)):
        b = data[i] - 256 if data[i] >= 128 else data[i]
        h = _mix_h1(h, _mix_k1(b & MASK))
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & MASK
    h ^= h >> 16
    return _to_int32(h)


def java_bucket(h: int, n: int) -> int:
    return abs(int(math.fmod(h, n)))


# Published MurmurHash3_x86_32 vectors (word-aligned inputs, where Java's variant is standard).
@pytest.mark.parametrize(
    ("data", "seed", "expected"),
    [
        (b"", 0, 0),
        (b"", 1, 0x514E28B7),
        (b"", 0xFFFFFFFF, 0x81F16F39),
        (b"\xff\xff\xff\xff", 0, 0x76293B50),
        (b"\x21\x43\x65\x87", 0, 0xF55B516B),
        (b"\x21\x43\x65\x87", 0x5082EDEE, 0x2362F9DE),
    ],
)
def test_published_vectors(data: bytes, seed: int, expected: int) -> None:
    assert murmur_hash_bytes(data, seed) == _to_int32(expected)
    assert reference_hash(data, seed) == _to_int32(expected)


@given(st.binary(max_size=80), st.integers(0, MASK))
@settings(max_examples=400, deadline=None)
def test_numpy_murmur_equals_reference(data: bytes, seed: int) -> None:
    assert murmur_hash_bytes(data, seed) == reference_hash(data, seed)


@given(st.integers(0, 40), st.integers(1, 30), st.data())
@settings(max_examples=100, deadline=None)
def test_matrix_murmur_equals_reference(length: int, n: int, data: st.DataObject) -> None:
    rows = [data.draw(st.binary(min_size=length, max_size=length)) for _ in range(n)]
    mat = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(n, length)
    got = murmur_hash_matrix(mat)
    assert got.dtype == np.int32
    assert got.tolist() == [reference_hash(r) for r in rows]


def test_signed_tail_bytes_differ_from_standard_murmur3() -> None:
    # Java sign-extends trailing bytes; standard murmur3 would mix 0x80 as 0x00000080.
    standard = _mix_k1(0x80)
    java = _mix_k1(0xFFFFFF80)
    assert standard != java
    assert murmur_hash_bytes(b"\x80") == reference_hash(b"\x80")


KEY_TYPES: list[DataType] = [
    IntType(nullable=False),
    IntType(),
    BigIntType(),
    TinyIntType(),
    SmallIntType(),
    BooleanType(),
    DoubleType(),
    DateType(),
    DecimalType(10, 2),
    DecimalType(30, 4),
    TimestampType(3),
    TimestampType(6),
    VarCharType(),
    VarBinaryType(),
]


def _values(t: DataType) -> st.SearchStrategy[Any]:
    if isinstance(t, (IntType, DateType)):
        v: st.SearchStrategy[Any] = st.integers(-(2**31), 2**31 - 1)
    elif isinstance(t, (BigIntType, TimestampType)):
        v = st.integers(-(2**63), 2**63 - 1)
    elif isinstance(t, TinyIntType):
        v = st.integers(-128, 127)
    elif isinstance(t, SmallIntType):
        v = st.integers(-(2**15), 2**15 - 1)
    elif isinstance(t, BooleanType):
        v = st.booleans()
    elif isinstance(t, DoubleType):
        v = st.floats(allow_nan=False)
    elif isinstance(t, DecimalType):
        bound = 10**t.precision - 1
        scale = t.scale

        def as_decimal(u: int) -> decimal.Decimal:
            return decimal.Decimal(f"{u}e-{scale}")

        v = st.integers(-bound, bound).map(as_decimal)
    elif isinstance(t, VarCharType):
        v = st.text(max_size=20)
    else:
        v = st.binary(max_size=20)
    if isinstance(t, DateType):
        v = st.integers(-100_000, 100_000)
    return st.none() | v if t.nullable else v


@st.composite
def _key_columns(draw: st.DrawFn) -> tuple[list[DataType], list[pa.Array]]:
    types = draw(st.lists(st.sampled_from(KEY_TYPES), min_size=1, max_size=4))
    n = draw(st.integers(1, 40))
    cols = [pa.array(draw(st.lists(_values(t), min_size=n, max_size=n)), to_arrow_type(t)) for t in types]
    return types, cols


@given(_key_columns(), st.integers(1, 37))
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_hash_columns_equals_scalar_hash_of_encoded_rows(
    data: tuple[list[DataType], list[pa.Array]], buckets: int
) -> None:
    types, cols = data
    blobs = encode_rows(cols, types)
    expected = [reference_hash(b[4:]) for b in blobs]
    assert hash_columns(cols, types).tolist() == expected
    assert murmur_hash_rows(blobs).tolist() == expected
    assert murmur_hash_rows(pa.array(blobs, pa.binary())).tolist() == expected
    assert murmur_hash_rows([b[4:] for b in blobs], serialized=False).tolist() == expected
    assert bucket_of(cols, types, buckets).tolist() == [java_bucket(h, buckets) for h in expected]


def test_java_remainder_semantics() -> None:
    hashes = np.array([-(2**31), -7, -1, 0, 5, 2**31 - 1], dtype=np.int32)
    assert bucket_of_hashes(hashes, 3).tolist() == [java_bucket(int(h), 3) for h in hashes]
    assert bucket_of_hashes(hashes, 3).tolist() == [2, 1, 1, 0, 2, 1]
    with pytest.raises(ValidationError):
        bucket_of_hashes(hashes, 0)
    with pytest.raises(ValidationError):
        hash_columns([], [])
    with pytest.raises(ValidationError):
        murmur_hash_rows([b"\x00"])


def test_empty_row_hash() -> None:
    assert murmur_hash_rows([encode_row([], [])]).tolist() == [reference_hash(bytes(8))]


def _read_manifest(path: str) -> list[dict[str, Any]]:
    with open(path, "rb") as f:
        if f.read(3) == b"Obj":
            f.seek(0)
            return list(fastavro.reader(f))  # type: ignore[arg-type]
    return orc.read_table(path).to_pylist()  # type: ignore[no-any-return]


def test_java_written_files_are_in_the_bucket_we_compute() -> None:
    roots = sorted(
        os.path.dirname(os.path.dirname(p))
        for p in glob.glob(str(FIXTURES / "**/schema/schema-0"), recursive=True)
        if "/branch/" not in p
    )
    checked_rows = 0
    multi_bucket_tables = set()
    for root in roots:
        schemas = {}
        for s in glob.glob(root + "/schema/schema-*"):
            doc = json.loads(Path(s).read_text())
            schemas[doc["id"]] = doc
        seen = set()
        for mf in sorted(glob.glob(root + "/manifest/manifest-*")):
            if "manifest-list" in mf:
                continue
            for e in _read_manifest(mf):
                fm = e["_FILE"]
                name = fm["_FILE_NAME"]
                if e["_KIND"] != 0 or name in seen or fm["_SCHEMA_ID"] not in schemas:
                    continue
                seen.add(name)
                sch = schemas[fm["_SCHEMA_ID"]]
                opts = sch["options"]
                total = e.get("_TOTAL_BUCKETS")
                num_buckets = int(total) if total is not None else int(opts.get("bucket", "-1"))
                if num_buckets <= 0:
                    continue
                bucket_key = opts.get("bucket-key")
                keys = (
                    bucket_key.split(",")
                    if bucket_key
                    else [k for k in sch["primaryKeys"] if k not in sch["partitionKeys"]]
                )
                if not keys:
                    continue
                paths = glob.glob(f"{root}/**/bucket-{e['_BUCKET']}/{name}", recursive=True)
                assert paths, f"{root}: {name} not found"
                path = paths[0]
                if path.endswith(".parquet"):
                    table = pq.read_table(path)
                elif path.endswith(".orc"):
                    table = orc.read_table(path)
                else:
                    continue
                fields = {f["name"]: parse_data_field(f) for f in sch["fields"]}
                cols = [table[k] if k in table.column_names else table["_KEY_" + k] for k in keys]
                bucket = int(re.search(r"bucket-(\d+)", path).group(1))  # type: ignore[union-attr]
                got = bucket_of(cols, [fields[k].type for k in keys], num_buckets)
                assert (got == bucket).all(), f"{path}: {got.tolist()} != {bucket}"
                checked_rows += table.num_rows
                if num_buckets > 1:
                    multi_bucket_tables.add(os.path.basename(root))
    assert checked_rows > 300
    assert {
        "append_10",
        "pk_09",
        "pk_table_scan_and_read_mor",
        "pk_table_with_total_buckets",
    } <= multi_bucket_tables


def test_append_10_buckets_are_not_all_the_same() -> None:
    # bucket key f2 with 2 buckets: value 1 lands in bucket 0, value 0 in bucket 1 (as Java wrote)
    assert bucket_of([pa.array([1, 0], pa.int32())], [IntType()], 2).tolist() == [0, 1]


def test_two_million_bigint_keys_fast() -> None:
    n = 2_000_000
    col = pa.array(np.arange(n, dtype=np.int64) * 31 - 10**12)
    bucket_of([col[:100]], [BigIntType()], 16)  # warm up
    best = min(_timed(lambda: bucket_of([col], [BigIntType()], 16)) for _ in range(3))
    assert best < 0.6, best
    sample = np.random.default_rng(0).choice(n, 200, replace=False)
    buckets = bucket_of([col], [BigIntType()], 16)
    for i in sample.tolist():
        blob = encode_row([col[i].as_py()], [BigIntType()])
        assert buckets[i] == java_bucket(reference_hash(blob[4:]), 16)


def _timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0
