"""Corrects the ORC TIMESTAMP values pyarrow's ORC reader returns one second off.

An ORC TIMESTAMP (without time zone) stores seconds relative to 2015-01-01 00:00:00 in the writer's
time zone (the stripe footer's ``writerTimezone``) plus the nanoseconds. Java's ORC writer takes the
seconds by truncating the writer-local epoch millis toward zero, so a negative value with a sub-second
part >= 1 ms is stored one second high, and readers subtract that second again when the writer-local
seconds are negative and the nanos > 999999 (ORC-306). Apache ORC C++ before ORC-2151 (the one in
pyarrow) subtracts it only after shifting the value from the writer's zone to the reader's (GMT),
testing the sign of the shifted value: values whose writer-local and shifted seconds have different
signs come back one second off (late for zones east of UTC such as Asia/Shanghai: 1970-01-01T00:02:03.123
reads 00:02:04.123; early for zones west of UTC), and around a DST transition before 1970 the offset
of the wrong second can be taken. Java's ORC reader and ORC C++ since ORC-2151 subtract before the
shift. TIMESTAMP_INSTANT columns (TIMESTAMP WITH LOCAL TIME ZONE) are read in GMT on both sides and
are not affected.

Given a value ``r`` (seconds of the wall clock) returned by the old reader with nanos > 999999:
the writer-local wall clock was ``v = r + (r < 0)``, the writer instant ``w`` satisfies
``w + offset(w) = v``, and the true value is ``w' + offset(w')`` with ``w' = w - (w < 0)``. Only
values with nanos > 999999 and ``r`` before 1970-01-03 can change; those few are recomputed per value
with ``zoneinfo``, everything else stays as read. One case cannot be recovered from the value read: a
stored second exactly at a pre-1970 DST transition whose wall clock repeats (two writer instants give
the same result); the earlier instant is assumed.

A stripe without ``writerTimezone`` was read in ORC C++'s local zone ($TZ, else /etc/localtime), which is
taken as its writer zone here too.

Whether the pyarrow at hand has the old behaviour is found once by reading a tiny ORC file built
here (writer zone Asia/Shanghai, 1970-01-01T00:00:00.001).

The writer zones come from the file tail: postscript -> footer (stripes) -> stripe footers, read with a
small protobuf decoder, decompressed per ORC compression chunk (NONE, ZLIB, SNAPPY, LZ4, ZSTD).
"""

from __future__ import annotations

import functools
import importlib
import io
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import pyarrow as pa
import pyarrow.orc as paorc

from paimon_sql.errors import CorruptFileError, UnsupportedError

__all__ = ["StripeZone", "correct_timestamps", "fix_table", "read_stripe_zones", "reader_has_late_second_bug"]

ReadAt = Callable[[int, int], bytes]
"""``read_at(offset, length)`` returns those bytes of the file."""

_EPOCH = datetime(1970, 1, 1)
_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=timezone.utc)
_TWO_DAYS = 2 * 86400
_NANOS = 1_000_000_000


@dataclass(frozen=True)
class StripeZone:
    """A stripe's row count and writer time zone (None when the stripe footer has none)."""

    rows: int
    writer_timezone: str | None


# ----------------------------------------------------------------------------------------------
# Protobuf and ORC tail
# ----------------------------------------------------------------------------------------------


def _varint(buf: bytes, pos: int, what: str) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        if pos >= len(buf):
            raise CorruptFileError(f"ORC {what}: truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 70:
            raise CorruptFileError(f"ORC {what}: varint too long")


def _fields(buf: bytes, what: str) -> dict[int, list[Any]]:
    """A protobuf message as {field number: [values]} (varints as int, length-delimited as bytes)."""
    out: dict[int, list[Any]] = {}
    pos = 0
    while pos < len(buf):
        key, pos = _varint(buf, pos, what)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, pos = _varint(buf, pos, what)
        elif wire == 2:
            n, pos = _varint(buf, pos, what)
            if pos + n > len(buf):
                raise CorruptFileError(f"ORC {what}: field {number} overruns the message")
            value = buf[pos : pos + n]
            pos += n
        elif wire == 1:
            value = buf[pos : pos + 8]
            pos += 8
        elif wire == 5:
            value = buf[pos : pos + 4]
            pos += 4
        else:
            raise CorruptFileError(f"ORC {what}: unsupported protobuf wire type {wire}")
        out.setdefault(number, []).append(value)
    return out


def _first(fields: dict[int, list[Any]], number: int, default: Any = None) -> Any:
    values = fields.get(number)
    return values[0] if values else default


_COMPRESSION = {0: "NONE", 1: "ZLIB", 2: "SNAPPY", 3: "LZO", 4: "LZ4", 5: "ZSTD", 6: "BROTLI"}


def _zstd_decompress(data: bytes) -> bytes:
    try:
        module = importlib.import_module("compression.zstd")
    except ImportError:
        module = importlib.import_module("backports.zstd")
    return bytes(module.decompress(data))


def _lz4_block_decompress(src: bytes) -> bytes:
    """Decodes one raw LZ4 block (ORC's LZ4 chunks have no frame)."""
    out = bytearray()
    pos = 0
    n = len(src)
    while pos < n:
        token = src[pos]
        pos += 1
        lit, pos = _lz4_length(src, pos, token >> 4)
        out += src[pos : pos + lit]
        pos += lit
        if pos >= n:
            break
        offset = src[pos] | (src[pos + 1] << 8)
        pos += 2
        if offset == 0 or offset > len(out):
            raise CorruptFileError("ORC LZ4 chunk: bad match offset")
        match, pos = _lz4_length(src, pos, token & 0x0F)
        match += 4
        start = len(out) - offset
        for i in range(match):
            out.append(out[start + i])
    return bytes(out)


def _lz4_length(src: bytes, pos: int, nibble: int) -> tuple[int, int]:
    """An LZ4 literal or match length: the token's 4 bits, extended by bytes while they are 255 when
    the bits are 15; returns the length and the position after it."""
    length = nibble
    if nibble == 15:
        while True:
            b = src[pos]
            pos += 1
            length += b
            if b != 255:
                break
    return length, pos


def _decompress_chunk(kind: str, data: bytes) -> bytes:
    if kind == "ZLIB":
        return zlib.decompress(data, -15)
    if kind == "ZSTD":
        return _zstd_decompress(data)
    if kind == "SNAPPY":
        size, _ = _varint(data, 0, "snappy chunk")
        return bytes(pa.Codec("snappy").decompress(data, decompressed_size=size, asbytes=True))
    if kind == "LZ4":
        return _lz4_block_decompress(data)
    raise UnsupportedError(f"ORC compression {kind} is not supported for reading the file tail")


def _decompress(kind: str, data: bytes, what: str) -> bytes:
    """An ORC compressed stream: 3-byte chunk headers (length << 1 | is-original), then the chunks."""
    if kind == "NONE":
        return data
    out = io.BytesIO()
    pos = 0
    while pos < len(data):
        if pos + 3 > len(data):
            raise CorruptFileError(f"ORC {what}: truncated compression chunk header")
        header = data[pos] | (data[pos + 1] << 8) | (data[pos + 2] << 16)
        pos += 3
        length = header >> 1
        chunk = data[pos : pos + length]
        if len(chunk) != length:
            raise CorruptFileError(f"ORC {what}: truncated compression chunk")
        pos += length
        try:
            out.write(chunk if header & 1 else _decompress_chunk(kind, chunk))
        except UnsupportedError as e:
            raise UnsupportedError(f"{e} ({what})") from e
        except (zlib.error, ValueError, IndexError, pa.ArrowException) as e:
            raise CorruptFileError(f"ORC {what}: cannot decompress a {kind} chunk: {e}") from e
    return out.getvalue()


def read_stripe_zones(read_at: ReadAt, size: int, name: str = "ORC file") -> list[StripeZone]:
    """Each stripe's row count and writer time zone, from the file tail and the stripe footers."""
    if size < 4:
        raise CorruptFileError(f"{name} is too short to be an ORC file ({size} bytes)")
    tail_len = min(size, 16 * 1024)
    tail = read_at(size - tail_len, tail_len)
    ps_len = tail[-1]
    if ps_len + 1 > len(tail):
        raise CorruptFileError(f"{name}: bad ORC postscript length {ps_len}")
    ps = _fields(tail[-1 - ps_len : -1], f"postscript of {name}")
    if _first(ps, 8000) != b"ORC":
        raise CorruptFileError(f"{name} has no ORC postscript magic")
    footer_len = int(_first(ps, 1, 0))
    kind = _COMPRESSION.get(int(_first(ps, 2, 0)), "UNKNOWN")
    footer_start = size - 1 - ps_len - footer_len
    if footer_start < 0:
        raise CorruptFileError(f"{name}: ORC footer length {footer_len} exceeds the file")
    if footer_len + ps_len + 1 <= len(tail):
        raw_footer = tail[len(tail) - 1 - ps_len - footer_len : len(tail) - 1 - ps_len]
    else:
        raw_footer = read_at(footer_start, footer_len)
    footer = _fields(_decompress(kind, raw_footer, f"footer of {name}"), f"footer of {name}")
    zones = []
    for raw in footer.get(3, []):
        info = _fields(raw, f"stripe information of {name}")
        offset = int(_first(info, 1, 0))
        stripe_footer_at = offset + int(_first(info, 2, 0)) + int(_first(info, 3, 0))
        stripe_footer_len = int(_first(info, 4, 0))
        if stripe_footer_at + stripe_footer_len > size:
            raise CorruptFileError(f"{name}: a stripe footer lies beyond the end of the file")
        sf_raw = read_at(stripe_footer_at, stripe_footer_len)
        sf = _fields(_decompress(kind, sf_raw, f"stripe footer of {name}"), f"stripe footer of {name}")
        tz = _first(sf, 3)
        zones.append(StripeZone(int(_first(info, 5, 0)), tz.decode("utf-8") if tz is not None else None))
    return zones


# ----------------------------------------------------------------------------------------------
# The correction
# ----------------------------------------------------------------------------------------------


def _offset_at_instant(zone: ZoneInfo, t: int) -> int:
    off = (_EPOCH_UTC + timedelta(seconds=t)).astimezone(zone).utcoffset()
    return int(off.total_seconds()) if off is not None else 0


def _true_seconds(zone: ZoneInfo, r: int) -> int:
    """The correct seconds for a value the old reader returned as ``r`` (nanos > 999999)."""
    v = r + (1 if r < 0 else 0)
    try:
        local = _EPOCH + timedelta(seconds=v)
    except OverflowError:
        return r
    w = None
    for fold in (0, 1):
        off = local.replace(fold=fold, tzinfo=zone).utcoffset()
        cand = v - (int(off.total_seconds()) if off is not None else 0)
        if cand + _offset_at_instant(zone, cand) == v:
            w = cand
            break
    if w is None:  # not a wall clock the zone has (cannot come from the reader): keep it
        return r
    if w < 0:
        w -= 1
    return w + _offset_at_instant(zone, w)


def _fix_timestamps(arr: pa.Array, zone: ZoneInfo) -> pa.Array | None:
    """A naive timestamp array corrected, or None when no value changes."""
    unit = arr.type.unit
    per_sec = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": _NANOS}[unit]
    raw = arr.view(pa.int64())
    valid = ~np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool) if arr.null_count \
        else np.ones(len(arr), dtype=bool)
    vals = np.asarray(raw.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)
    secs = np.floor_divide(vals, per_sec)
    nanos = (vals - secs * per_sec) * (_NANOS // per_sec)
    cand = valid & (nanos > 999_999) & (secs < _TWO_DAYS)
    if not cand.any():
        return None
    idx = np.nonzero(cand)[0]
    uniq, inverse = np.unique(secs[idx], return_inverse=True)
    fixed = np.array([_true_seconds(zone, int(r)) for r in uniq], dtype=np.int64)
    delta = (fixed - uniq)[inverse]
    if not delta.any():
        return None
    out = vals.copy()
    out[idx] += delta * per_sec
    mask = ~valid
    return pa.array(out, pa.int64(), mask=mask if mask.any() else None).view(arr.type)


def _fix_array(arr: pa.Array, zone: ZoneInfo) -> pa.Array | None:
    t = arr.type
    if pa.types.is_timestamp(t):
        return _fix_timestamps(arr, zone) if t.tz is None else None
    if pa.types.is_struct(t):
        children = arr.flatten()
        fixed = [_fix_array(c, zone) for c in children]
        if all(f is None for f in fixed):
            return None
        new = [f if f is not None else c for f, c in zip(fixed, children)]
        mask = arr.is_null() if arr.null_count else None
        return pa.StructArray.from_arrays(new, fields=list(t), mask=mask)
    if pa.types.is_map(t):
        items = _fix_array(arr.items, zone)
        keys = _fix_array(arr.keys, zone)
        if items is None and keys is None:
            return None
        return pa.MapArray.from_arrays(
            arr.offsets, keys if keys is not None else arr.keys, items if items is not None else arr.items,
            type=t, mask=arr.is_null() if arr.null_count else None)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        values = _fix_array(arr.values, zone)
        if values is None:
            return None
        cls = pa.LargeListArray if pa.types.is_large_list(t) else pa.ListArray
        return cls.from_arrays(arr.offsets, values, type=t, mask=arr.is_null() if arr.null_count else None)
    if pa.types.is_fixed_size_list(t):
        values = _fix_array(arr.values, zone)
        if values is None:
            return None
        return pa.FixedSizeListArray.from_arrays(
            values.slice(arr.offset * t.list_size, len(arr) * t.list_size), type=t,
            mask=arr.is_null() if arr.null_count else None)
    return None


def _has_naive_timestamp(t: pa.DataType) -> bool:
    if pa.types.is_timestamp(t):
        return bool(t.tz is None)
    if pa.types.is_struct(t):
        return any(_has_naive_timestamp(t.field(i).type) for i in range(t.num_fields))
    if pa.types.is_map(t):
        return _has_naive_timestamp(t.key_type) or _has_naive_timestamp(t.item_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return _has_naive_timestamp(t.value_type)
    return False


_UTC_NAMES = {"UTC", "GMT", "Etc/UTC", "Etc/GMT", "Etc/UCT", "UCT", "Etc/Universal", "Universal", "Etc/Zulu",
              "Zulu", "Etc/GMT+0", "Etc/GMT-0", "Etc/GMT0", "GMT0", "GMT+0", "GMT-0", "Z"}


@functools.cache
def _local_zone() -> ZoneInfo | None:
    """The zone ORC C++ takes for a stripe without a writer time zone: $TZ, else /etc/localtime."""
    name = os.environ.get("TZ")
    if name:
        try:
            return ZoneInfo(name.lstrip(":"))
        except (ZoneInfoNotFoundError, ValueError):
            return None
    try:
        with open("/etc/localtime", "rb") as fh:
            return ZoneInfo.from_file(fh)
    except (OSError, ValueError):
        return None


def _zone(name: str | None) -> ZoneInfo | None:
    """The zone the reader shifted the stripe's values from (None when it shifts nothing)."""
    if name is None:
        return _local_zone()
    if name in _UTC_NAMES:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise CorruptFileError(f"ORC writer time zone {name!r} is unknown") from e


def _fix_columns(table: pa.Table, zone: ZoneInfo) -> pa.Table:
    for i, field in enumerate(table.schema):
        if not _has_naive_timestamp(field.type):
            continue
        col = table.column(i)
        chunks = [_fix_array(c, zone) for c in col.chunks]
        if all(c is None for c in chunks):
            continue
        new = pa.chunked_array([f if f is not None else c for f, c in zip(chunks, col.chunks)], type=field.type)
        table = table.set_column(i, field, new)
    return table


def fix_table(table: pa.Table, zones: list[StripeZone]) -> pa.Table:
    """Corrects the TIMESTAMP (without time zone) values of a table pyarrow read from an ORC file
    whose stripes are ``zones`` (rows in stripe order)."""
    if not any(_has_naive_timestamp(f.type) for f in table.schema):
        return table
    names = {z.writer_timezone for z in zones}
    if len(names) == 1:
        zone = _zone(next(iter(names)))
        return table if zone is None else _fix_columns(table, zone)
    parts = []
    start = 0
    for z in zones:
        part = table.slice(start, z.rows)
        zone = _zone(z.writer_timezone)
        parts.append(part if zone is None else _fix_columns(part, zone))
        start += z.rows
    if start < table.num_rows:
        parts.append(table.slice(start))
    return pa.concat_tables(parts) if parts else table


def correct_timestamps(table: pa.Table, f: pa.NativeFile, name: str = "ORC file") -> pa.Table:
    """``table`` as read by ``pyarrow.orc`` from the open file ``f``, with the TIMESTAMP values the
    reader got one second wrong corrected (nothing is read from the file when there is nothing to
    correct or when this pyarrow reads them right)."""
    if not any(_has_naive_timestamp(fl.type) for fl in table.schema) or table.num_rows == 0:
        return table
    if not reader_has_late_second_bug():
        return table

    def read_at(offset: int, length: int) -> bytes:
        return bytes(f.read_at(length, offset))

    return fix_table(table, read_stripe_zones(read_at, f.size(), name))


# ----------------------------------------------------------------------------------------------
# Probe: does this pyarrow's ORC reader have the old behaviour?
# ----------------------------------------------------------------------------------------------


def _pb_varint(v: int) -> bytes:
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _pb_field(number: int, value: int | bytes) -> bytes:
    if isinstance(value, int):
        return _pb_varint(number << 3) + _pb_varint(value)
    return _pb_varint(number << 3 | 2) + _pb_varint(len(value)) + value


def _zigzag(v: int) -> int:
    return (v << 1) ^ (v >> 63)


def build_probe_file(writer_timezone: str, seconds: int, encoded_nanos: int) -> bytes:
    """A minimal uncompressed ORC file with one TIMESTAMP column ``ts`` and one row: the stored
    ``seconds`` (relative to the ORC epoch) and nanos (ORC's encoded form), written in
    ``writer_timezone``. Used to probe the reader and by the tests."""
    # RLE v1 literal runs of one value (column encoding DIRECT).
    data = b"\xff" + _pb_varint(_zigzag(seconds))
    secondary = b"\xff" + _pb_varint(encoded_nanos)
    streams = _pb_field(1, _pb_field(1, 1) + _pb_field(2, 1) + _pb_field(3, len(data)))
    streams += _pb_field(1, _pb_field(1, 5) + _pb_field(2, 1) + _pb_field(3, len(secondary)))
    encodings = _pb_field(2, _pb_field(1, 0)) + _pb_field(2, _pb_field(1, 0))
    stripe_footer = streams + encodings + _pb_field(3, writer_timezone.encode())
    body = data + secondary
    stripe_info = (_pb_field(1, 3) + _pb_field(2, 0) + _pb_field(3, len(body))
                   + _pb_field(4, len(stripe_footer)) + _pb_field(5, 1))
    types = _pb_field(4, _pb_field(1, 12) + _pb_field(2, 1) + _pb_field(3, b"ts")) + _pb_field(4, _pb_field(1, 9))
    content_len = 3 + len(body) + len(stripe_footer)
    footer = (_pb_field(1, 3) + _pb_field(2, content_len) + _pb_field(3, stripe_info) + types
              + _pb_field(6, 1) + _pb_field(8, 0))
    postscript = (_pb_field(1, len(footer)) + _pb_field(2, 0) + _pb_field(3, 262144)
                  + _pb_field(4, _pb_varint(0) + _pb_varint(12)) + _pb_field(5, 0) + _pb_field(6, 1)
                  + _pb_field(8000, b"ORC"))
    return b"ORC" + body + stripe_footer + footer + postscript + bytes([len(postscript)])


# 1970-01-01T00:00:00.001 written in Asia/Shanghai (UTC+8) by Java's ORC writer: writer-local epoch
# millis -28799999 -> seconds truncated toward zero -28799, minus the ORC epoch 2015-01-01 in
# Shanghai (1420041600); nanos 1000000 encoded as 1 << 3 | 5 (five more trailing zeros).
_PROBE_SECONDS = -28799 - 1420041600
_PROBE_NANOS = (1 << 3) | 5


@functools.cache
def reader_has_late_second_bug() -> bool:
    """True when ``pyarrow.orc`` applies ORC's negative-seconds correction after the time-zone
    shift (reading the probe value 1 s late)."""
    data = build_probe_file("Asia/Shanghai", _PROBE_SECONDS, _PROBE_NANOS)
    value = paorc.ORCFile(pa.BufferReader(data)).read().column("ts")[0].value
    return int(value) == 1_001_000_000
