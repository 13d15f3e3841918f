"""Damaged data files never return wrong rows silently: one-byte flips anywhere in a parquet file,
a truncated file, a file replaced by another valid file of the table, a missing file. Each read
returns exactly the original rows or raises CorruptFileError / NotFoundError naming the file;
``scan.ignore-corrupt-files`` / ``scan.ignore-lost-files`` skip such files instead."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pyarrow as pa
import pytest

from paimon_sql import Catalog
from paimon_sql.errors import CorruptFileError, NotFoundError, PaimonError
from paimon_sql.table.table import Table

N = 3000


def _rows(offset: int = 0) -> pa.Table:
    ids = list(range(offset, offset + N))
    return pa.table({
        "id": pa.array(ids, pa.int64()),
        "name": [f"name-{i % 97}-{i}" for i in ids],
        "x": pa.array([i * 0.25 for i in ids], pa.float64()),
        "ts": pa.array([1_700_000_000_000 + i for i in ids], pa.timestamp("ms")),
        "d": pa.array([i % 1000 for i in ids], pa.decimal128(10, 2)).cast(pa.decimal128(10, 2)),
    })


def _table(tmp_path: Path, fmt: str, pk: bool = False) -> Table:
    cat = Catalog(str(tmp_path / "wh"))
    cat.create_database("db")
    opts = {"file.format": fmt, "bucket": "1" if pk else "-1"}
    t = cat.create_table("db.t", _rows().schema, primary_keys=["id"] if pk else None, options=opts)
    t.write(_rows())
    return t


def _data_files(t: Table) -> list[Path]:
    return sorted(Path(t.path).rglob("data-*"))


def _flip_outcomes(t: Table, positions: list[int]) -> dict[str, int]:
    """Flips one byte at each position (one at a time) and classifies each read."""
    (path,) = _data_files(t)
    original = path.read_bytes()
    want = t.read().sort_by("id")
    outcome = {"identical": 0, "CorruptFileError": 0}
    for pos in positions:
        damaged = bytearray(original)
        damaged[pos] ^= 0xFF
        path.write_bytes(bytes(damaged))
        try:
            got = t.read().sort_by("id")
        except CorruptFileError as e:
            assert path.name in str(e)
            outcome["CorruptFileError"] += 1
            continue
        except PaimonError as e:  # pragma: no cover - reported by the assertion below
            raise AssertionError(f"flip at {pos}: {type(e).__name__}: {e}") from e
        assert got.equals(want), f"flip at byte {pos} of {len(original)} changed the rows silently"
        outcome["identical"] += 1
    path.write_bytes(original)
    assert t.read().sort_by("id").equals(want)
    return outcome


def _positions(size: int, n: int, seed: int) -> list[int]:
    """``n`` positions spread over the file: the header, every region, and the footer's tail."""
    rng = random.Random(seed)
    fixed = [0, 1, 3, size - 1, size - 4, size - 8, size - 12]
    return sorted(set(fixed + [rng.randrange(size) for _ in range(n - len(fixed))]))


@pytest.mark.parametrize("pk", [False, True])
def test_byte_flips_in_parquet_files_are_detected_or_harmless(tmp_path: Path, pk: bool) -> None:
    t = _table(tmp_path, "parquet", pk)
    (path,) = _data_files(t)
    outcome = _flip_outcomes(t, _positions(path.stat().st_size, 64, 42 + pk))
    assert outcome["CorruptFileError"] > outcome["identical"]  # most flips hit checked bytes


@pytest.mark.parametrize("fmt", ["orc", "avro"])
def test_byte_flips_in_other_formats_are_errors_not_crashes(tmp_path: Path, fmt: str) -> None:
    """ORC and Avro files carry no checksum of their own: a flip may change values, but it never
    escapes as anything but a CorruptFileError (or a clean read)."""
    t = _table(tmp_path, fmt)
    (path,) = _data_files(t)
    original = path.read_bytes()
    rng = random.Random(7)
    for pos in _positions(len(original), 48, 7) + [rng.randrange(len(original)) for _ in range(8)]:
        damaged = bytearray(original)
        damaged[pos] ^= 0xFF
        path.write_bytes(bytes(damaged))
        try:
            t.read()
        except CorruptFileError as e:
            assert path.name in str(e)
    path.write_bytes(original)


@pytest.mark.parametrize("fmt", ["parquet", "orc", "avro"])
def test_truncated_replaced_and_missing_files(tmp_path: Path, fmt: str) -> None:
    t = _table(tmp_path, fmt)
    t.write(_rows(N))  # a second, equally shaped file
    a, b = _data_files(t)
    original = a.read_bytes()
    a.write_bytes(original[: len(original) // 2])
    with pytest.raises(CorruptFileError, match=f"{a.name}.*bytes"):
        t.read()
    shutil.copyfile(b, a)  # another valid file of the table in its place
    with pytest.raises(CorruptFileError, match=a.name):
        t.read()
    a.write_bytes(original)
    assert t.read().num_rows == 2 * N
    a.unlink()
    with pytest.raises(NotFoundError, match=a.name):
        t.read()
    a.write_bytes(original)


def test_ignore_corrupt_and_lost_files(tmp_path: Path) -> None:
    t = _table(tmp_path, "parquet")
    t.write(_rows(N))
    a, b = _data_files(t)
    good_ids = set(t.read(columns=["id"]).column("id").to_pylist())
    a.write_bytes(b"corrupt file")
    with pytest.raises(CorruptFileError):
        t.read()
    t2 = t.alter(set_options={"scan.ignore-corrupt-files": "true"})
    left = t2.read(columns=["id"]).column("id").to_pylist()
    assert len(left) == N and set(left) < good_ids
    a.unlink()
    with pytest.raises(NotFoundError):  # a lost file is not a corrupt one (as in Paimon)
        t2.read()
    t3 = t2.alter(set_options={"scan.ignore-lost-files": "true"})
    assert t3.read().num_rows == N
