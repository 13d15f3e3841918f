"""The correction of pyarrow's ORC TIMESTAMP values (paimon_sql.format.orc_timestamps).

Expected values are what Apache Paimon (Java's ORC reader) returns: the README values of the corpus
tables orc/append_with_multiple_ts_precision_and_timezone, orc/append_with_cast_timestamp and
orc/append_complex_build_in_fieldid (written in Asia/Shanghai), and for the synthetic files the wall
clock Java's ORC writer was given.
"""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path
from zoneinfo import ZoneInfo

import pyarrow as pa
import pyarrow.orc as paorc
import pytest

from paimon_sql.errors import CorruptFileError
from paimon_sql.format import orc_timestamps as ot
from paimon_sql.format.data_files import read_file
from paimon_sql.fs.file_io import FileIO

CORPUS = Path("/work/shared/fixtures/java-corpus/orc")
NS = 1_000_000_000


def _corpus_file(table: str, name: str | None = None) -> Path:
    folder = CORPUS / f"{table}.db" / table / "bucket-0"
    if not folder.is_dir():
        pytest.skip(f"Java corpus table {table} not found")
    files = sorted(folder.glob(name or "data-*.orc"))
    assert files, folder
    return files[0]


def _read_corrected(path: Path) -> tuple[pa.Table, pa.Table]:
    """(pyarrow's table, the corrected table) of an ORC file."""
    data = path.read_bytes()
    raw = paorc.ORCFile(pa.BufferReader(data)).read()
    return raw, ot.correct_timestamps(raw, pa.BufferReader(data), str(path))


def _ns(table: pa.Table, column: str) -> list[int | None]:
    return table.column(column).cast(pa.int64()).to_pylist()


def test_reader_probe_matches_this_pyarrow() -> None:
    data = ot.build_probe_file("Asia/Shanghai", ot._PROBE_SECONDS, ot._PROBE_NANOS)
    raw = paorc.ORCFile(pa.BufferReader(data)).read().column("ts")[0].value
    assert raw in (1_000_000, 1_001_000_000)  # right, or one second late
    assert ot.reader_has_late_second_bug() == (raw == 1_001_000_000)
    fixed = ot.correct_timestamps(paorc.ORCFile(pa.BufferReader(data)).read(), pa.BufferReader(data))
    assert fixed.column("ts")[0].value == 1_000_000  # 1970-01-01T00:00:00.001


# ----------------------------------------------------------------------------------------------
# The corpus files
# ----------------------------------------------------------------------------------------------


def test_multiple_ts_precision_and_timezone() -> None:
    raw, fixed = _read_corrected(_corpus_file("append_with_multiple_ts_precision_and_timezone"))
    # README: TIMESTAMP columns hold 1/3/5 s, 1/3/5 ms, 1 us, 1/3 ns (Timestamp(1000l,0), Timestamp(1l,0), ...)
    assert _ns(fixed, "ts_sec") == [1 * NS, 3 * NS, 5 * NS]
    assert _ns(fixed, "ts_milli") == [1_000_000, 3_000_000, 5_000_000]
    assert _ns(fixed, "ts_micro") == [1000, None, None]
    assert _ns(fixed, "ts_nano") == [1, 3, None]
    for col in ("ts_tz_sec", "ts_tz_milli", "ts_tz_micro", "ts_tz_nano"):  # LTZ: untouched
        assert fixed.column(col).equals(raw.column(col))
    assert _ns(fixed, "ts_tz_milli") == [2_000_000, 4_000_000, None]
    if ot.reader_has_late_second_bug():
        assert _ns(raw, "ts_milli") == [1_001_000_000, 1_003_000_000, 1_005_000_000]
    assert fixed.schema.equals(raw.schema, check_metadata=True)


def test_cpp_written_gmt_file_unchanged() -> None:
    raw, fixed = _read_corrected(
        _corpus_file("append_with_multiple_ts_precision_and_timezone", "cpp_paimon_write_apache_orc_9.orc"))
    assert fixed.equals(raw)
    assert _ns(fixed, "ts_milli")[0] == 1_000_000


def test_cast_timestamp_table() -> None:
    raw, fixed = _read_corrected(_corpus_file("append_with_cast_timestamp"))
    assert _ns(fixed, "ts_milli") == [1_000_000, 3_000_000, 5_000_000]
    assert _ns(fixed, "ts_sec") == [1 * NS, 3 * NS, 5 * NS]
    for col in ("ts_micro", "ts_nano", "ts_tz_sec", "ts_tz_milli", "ts_tz_micro", "ts_tz_nano", "int_ts_sec"):
        assert fixed.column(col).equals(raw.column(col))


def test_complex_build_in_fieldid() -> None:
    raw, fixed = _read_corrected(_corpus_file("append_complex_build_in_fieldid"))
    t0 = 2 * 60 * NS + 3 * NS + 123_123_000  # 1970-01-01T00:02:03.123123
    assert _ns(fixed, "f4") == [t0, t0, 0]
    for col in ("f1", "f2", "f3", "f5", "f6"):
        assert fixed.column(col).equals(raw.column(col))


def test_stripe_zones_of_the_corpus_file() -> None:
    path = _corpus_file("append_with_cast_timestamp")
    data = path.read_bytes()
    zones = ot.read_stripe_zones(lambda off, n: data[off : off + n], len(data), str(path))
    assert zones == [ot.StripeZone(3, "Asia/Shanghai")]


def test_read_file_orc_branch_corrects(tmp_path: Path) -> None:
    path = _corpus_file("append_with_cast_timestamp")
    file_io, _ = FileIO.for_uri(str(path.parent))
    table = read_file(file_io, str(path), "orc", ["ts_milli", "ts_tz_milli"])
    assert table.column_names == ["ts_milli", "ts_tz_milli"]
    assert _ns(table, "ts_milli") == [1_000_000, 3_000_000, 5_000_000]
    assert _ns(table, "ts_tz_milli") == [2_000_000, 4_000_000, None]


# ----------------------------------------------------------------------------------------------
# Synthetic files
# ----------------------------------------------------------------------------------------------


def _java_stored(wall: dt.datetime, zone: str) -> tuple[int, int]:
    """What Java's ORC writer in a JVM of ``zone`` stores for the wall clock ``wall``: seconds
    (epoch millis truncated toward zero, minus 2015-01-01 in the zone) and the encoded nanos."""
    z = ZoneInfo(zone)
    instant = wall.replace(tzinfo=z)
    micros = (instant - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)) // dt.timedelta(microseconds=1)
    millis = micros // 1000
    secs = abs(millis) // 1000 * (1 if millis >= 0 else -1)
    epoch = int(dt.datetime(2015, 1, 1, tzinfo=z).timestamp())
    nanos = wall.microsecond * 1000
    if nanos == 0:
        encoded = 0
    elif nanos % 100:
        encoded = nanos << 3
    else:
        n, zeros = nanos // 100, 1
        while n % 10 == 0 and zeros < 7:
            n, zeros = n // 10, zeros + 1
        encoded = n << 3 | zeros
    return secs - epoch, encoded


def _wall_ns(wall: dt.datetime) -> int:
    return (wall - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1) * 1000


@pytest.mark.parametrize(
    ("zone", "wall", "affected"),
    [
        ("Asia/Shanghai", dt.datetime(1970, 1, 1, 0, 2, 3, 123123), True),
        ("Asia/Shanghai", dt.datetime(1970, 1, 1, 7, 59, 58, 999000), True),
        ("Asia/Shanghai", dt.datetime(1970, 1, 1, 3, 0, 0, 500), False),  # sub-second part < 1 ms
        ("Asia/Shanghai", dt.datetime(1970, 1, 1, 8, 0, 1, 500000), False),
        ("Asia/Shanghai", dt.datetime(1969, 6, 1, 12, 0, 0, 250000), False),  # negative either side
        ("Asia/Shanghai", dt.datetime(2024, 11, 26, 6, 38, 56, 21000), False),
        ("America/New_York", dt.datetime(1969, 12, 31, 20, 0, 0, 500000), True),  # west of UTC: early
        ("America/New_York", dt.datetime(1969, 12, 31, 19, 0, 0, 500000), True),
        ("America/New_York", dt.datetime(1969, 12, 31, 2, 0, 0, 500000), False),
        ("GMT", dt.datetime(1969, 12, 31, 23, 59, 58, 500000), False),
    ],
)
def test_synthetic_java_written_values(zone: str, wall: dt.datetime, affected: bool) -> None:
    secs, nanos = _java_stored(wall, zone)
    data = ot.build_probe_file(zone, secs, nanos)
    raw = paorc.ORCFile(pa.BufferReader(data)).read()
    fixed = ot.correct_timestamps(raw, pa.BufferReader(data))
    assert fixed.column("ts")[0].value == _wall_ns(wall)
    if ot.reader_has_late_second_bug():
        assert (raw.column("ts")[0].value != _wall_ns(wall)) == affected


def test_pyarrow_written_utc_file_is_unchanged(tmp_path: Path) -> None:
    values = [-1_500_000_000, -999_000_000, -1, 1_001_000_000, 86_399_999_000_000, None]
    table = pa.table({
        "ts": pa.array(values, pa.timestamp("ns")),
        "nested": pa.array([[v] for v in values], pa.list_(pa.timestamp("ns"))),
        "ltz": pa.array(values, pa.timestamp("ns", tz="UTC")),
    })
    path = tmp_path / "utc.orc"
    paorc.write_table(table, str(path))
    data = path.read_bytes()
    zones = ot.read_stripe_zones(lambda off, n: data[off : off + n], len(data))
    assert all(z.writer_timezone in ot._UTC_NAMES for z in zones)
    file_io, _ = FileIO.for_uri(str(tmp_path))
    read = read_file(file_io, str(path), "orc")
    assert read.column("ts").cast(pa.int64()).to_pylist() == values
    assert read.column("nested").equals(table.column("nested"))
    assert read.column("ltz").equals(table.column("ltz"))


@pytest.mark.parametrize("compression", ["uncompressed", "zlib", "snappy", "lz4", "zstd"])
def test_tail_of_every_compression(compression: str) -> None:
    n = 300_000
    table = pa.table({"i": pa.array(range(n), pa.int64()), "s": pa.array([f"value {i * 7919 % 100_003}" for i in range(n)])})
    sink = io.BytesIO()
    paorc.write_table(table, sink, compression=compression, stripe_size=256 * 1024)
    data = sink.getvalue()
    zones = ot.read_stripe_zones(lambda off, n_: data[off : off + n_], len(data))
    assert len(zones) == paorc.ORCFile(pa.BufferReader(data)).nstripes
    assert sum(z.rows for z in zones) == n


def test_corrupt_tail() -> None:
    data = ot.build_probe_file("Asia/Shanghai", 0, 0)
    with pytest.raises(CorruptFileError, match="magic"):
        ot.read_stripe_zones(lambda off, n: (data[:-4] + b"XYZ" + data[-1:])[off : off + n], len(data))
    with pytest.raises(CorruptFileError):
        ot.read_stripe_zones(lambda off, n: b"\x00" * n, 3)


def test_lz4_block_decoder_overlapping_match() -> None:
    # literal 'ab', then a match of 6 bytes at offset 2 ('ababab'), then literal 'c'
    block = bytes([0x22]) + b"ab" + bytes([2, 0]) + bytes([0x10]) + b"c"
    assert ot._lz4_block_decompress(block) == b"abababab" + b"c"


def test_fix_table_nested_values_and_stripe_ranges() -> None:
    """fix_table on values as the old reader returns them: each stripe uses its own writer zone."""
    late = 1_001_000_000  # Shanghai writer: 1970-01-01T00:00:01.001 read for 00:00:00.001
    early = -18_001 * NS + 500_000_000  # New York writer: 18:59:59.5 read for 19:00:00.5 (1969-12-31)
    table = pa.table({
        "ts": pa.array([late, late, early], pa.timestamp("ns")),
        "row": pa.array([{"t": late}, None, {"t": early}], pa.struct([("t", pa.timestamp("ns"))])),
        "map": pa.array([[("k", late)], [("k", late)], [("k", early)]], pa.map_(pa.string(), pa.timestamp("ns"))),
        "ltz": pa.array([late, late, early], pa.timestamp("ns", tz="UTC")),
    })
    zones = [ot.StripeZone(1, "Asia/Shanghai"), ot.StripeZone(1, "GMT"), ot.StripeZone(1, "America/New_York")]
    fixed = ot.fix_table(table, zones)
    assert _ns(fixed, "ts") == [1_000_000, late, early + NS]
    assert fixed.column("row").to_pylist()[1] is None
    assert [r["t"] for r in pa.table({"r": fixed.column("row")}).column("r").to_pylist() if r] == [
        dt.datetime(1970, 1, 1, 0, 0, 0, 1000), dt.datetime(1969, 12, 31, 19, 0, 0, 500000)]
    assert [m[0][1] for m in fixed.column("map").to_pylist()] == [
        dt.datetime(1970, 1, 1, 0, 0, 0, 1000), dt.datetime(1970, 1, 1, 0, 0, 1, 1000),
        dt.datetime(1969, 12, 31, 19, 0, 0, 500000)]
    assert fixed.column("ltz").equals(table.column("ltz"))
    one_zone = ot.fix_table(table, [ot.StripeZone(3, "Asia/Shanghai")])
    assert _ns(one_zone, "ts") == [1_000_000, 1_000_000, early]


def test_unknown_writer_zone_is_corrupt() -> None:
    table = pa.table({"ts": pa.array([1_001_000_000], pa.timestamp("ns"))})
    with pytest.raises(CorruptFileError, match="Mars/Olympus"):
        ot.fix_table(table, [ot.StripeZone(1, "Mars/Olympus")])
