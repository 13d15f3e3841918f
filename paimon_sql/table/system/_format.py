"""How Apache Paimon's Java code renders values as text in its system tables.

System tables show values as Java prints them: partitions through Paimon's cast to STRING
(``{2024-01-01, 3}``), statistics through ``toString()`` of Paimon's internal objects inside a
``TreeMap`` (``{a=1, b=x}``; a DATE is its epoch-day number there, a TIMESTAMP a ``LocalDateTime``),
keys through ``Arrays.toString`` (``[1, x]``), maps of options in ``HashMap`` iteration order and
durations as ``java.time.Duration.toString()`` (``PT1H``). The helpers here reproduce those facts
column-wise over Arrow arrays; the only per-value Python is where Java's own formatting forces it
(floating point and timestamps, through ``paimon_sql.casting``).

Time zone: Paimon shows the instants of its system tables (``$snapshots.commit_time``,
``$tags.commit_time``, ``$schemas.update_time``, ``$branches.create_time``) as ``TIMESTAMP(3)``
values: the wall clock of the JVM's default zone (``ZoneId.systemDefault()``). ``local_timestamps``
does the same in the system table's ``time_zone`` (the Spark shim passes its JVM's default zone;
the Python API uses the process's local zone, ``local_zone_name``). Times Paimon stores as a wall
clock already (``$files.creation_time``, ``$tags.create_time``, ``$partitions`` / ``$buckets``
``last_update_time``) are shown as stored.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re
import zoneinfo
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from paimon_sql import types as pt
from paimon_sql.casting import cast_array
from paimon_sql.errors import PaimonError, ValidationError
from paimon_sql.format.java_hash import java_hash_map_order, java_string_hash  # noqa: F401 (re-exported)
from paimon_sql.ops.tags import parse_duration_json, parse_local_date_time_millis  # noqa: F401 (re-exported)
from paimon_sql.types import DataField, DataType, VarCharType, to_arrow_type

_K = TypeVar("_K")

STRING = VarCharType()
NULL_TEXT = "null"


def arrow_field(f: DataField) -> pa.Field:
    """The Arrow field of a system-table column (no field-id metadata)."""
    return pa.field(f.name, to_arrow_type(f.type), f.type.nullable)


# ----------------------------------------------------------------------------------------------
# Values as text
# ----------------------------------------------------------------------------------------------


def cast_to_string(arr: pa.Array, t: DataType) -> pa.Array:
    """Paimon's ``CAST(x AS STRING)`` of every value (``CastExecutors.resolveToString``); values of
    types without such a cast become null."""
    if len(arr) == 0:
        return pa.array([], pa.string())
    try:
        return cast_array(arr, t, STRING)
    except PaimonError:
        return pa.nulls(len(arr), pa.string())


def java_to_string(arr: pa.Array, t: DataType) -> pa.Array:
    """``String.valueOf`` of Paimon's internal object for every value (null stays null).

    This is what a ``Map`` or ``Arrays.toString`` of internal values prints: numbers, strings,
    booleans and decimals as their cast to STRING; a DATE as its epoch day and a TIME as its
    millisecond of the day (both are ``Integer`` internally); a TIMESTAMP as
    ``LocalDateTime.toString()``. Binary values print as their bytes decoded as UTF-8 (Java prints
    an identity hash such as ``[B@1b2c3d``, which no one can reproduce)."""
    if len(arr) == 0:
        return pa.array([], pa.string())
    return t.accept(_JavaToString(arr))


class _JavaToString(pt.DefaultTypeVisitor[pa.Array]):
    def __init__(self, arr: pa.Array) -> None:
        self.arr = arr

    def default(self, t: DataType) -> pa.Array:
        return cast_to_string(self.arr, t)

    def _int_text(self, t: DataType) -> pa.Array:
        return pc.cast(pc.cast(self.arr, pa.int32()), pa.string())

    visit_date = visit_time = _int_text

    def _local_date_time(self, t: DataType) -> pa.Array:
        return _local_date_time_strings(self.arr)

    visit_timestamp = visit_local_zoned_timestamp = _local_date_time

    def _null(self, t: DataType) -> pa.Array:
        return pa.nulls(len(self.arr), pa.string())  # Paimon collects no statistics for nested types

    visit_array = visit_map = visit_multiset = visit_row = _null


def _local_date_time_strings(arr: pa.Array) -> pa.Array:
    """``LocalDateTime.toString()`` of timestamps (tz-aware ones at their UTC wall clock)."""
    unit = arr.type.unit
    per_sec = {"s": 1, "ms": 1_000, "us": 1_000_000, "ns": 1_000_000_000}[unit]
    raw = pc.cast(arr.cast(pa.timestamp(unit)), pa.int64()).to_numpy(zero_copy_only=False)
    valid = np.asarray(arr.is_valid(), dtype=bool)
    out: list[str | None] = []
    cache: dict[int, str] = {}
    for v, ok in zip(raw.tolist(), valid.tolist()):
        if not ok:
            out.append(None)
            continue
        s = cache.get(v)
        if s is None:
            secs, frac = divmod(int(v), per_sec)
            s = java_local_date_time(secs, frac * (1_000_000_000 // per_sec))
            cache[v] = s
        out.append(s)
    return pa.array(out, pa.string())


_EPOCH = _dt.datetime(1970, 1, 1)


def java_local_date_time(epoch_seconds: int, nanos: int) -> str:
    """``LocalDateTime.toString()`` of a UTC epoch second and nano of second: ``uuuu-MM-ddTHH:mm``,
    then ``:ss`` when seconds or nanos are not zero, then the fraction in groups of three digits."""
    try:
        d = _EPOCH + _dt.timedelta(seconds=epoch_seconds)
    except OverflowError:
        return str(np.datetime64(epoch_seconds, "s"))
    year = f"{d.year:04d}" if d.year <= 9999 else f"+{d.year}"
    out = f"{year}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}"
    if d.second or nanos:
        out += f":{d.second:02d}"
        if nanos:
            if nanos % 1_000_000 == 0:
                out += f".{nanos // 1_000_000:03d}"
            elif nanos % 1_000 == 0:
                out += f".{nanos // 1_000:06d}"
            else:
                out += f".{nanos:09d}"
    return out


def local_zone_name() -> str:
    """The IANA name of this process's local time zone, found as the JVM finds its default zone:
    ``$TZ``, else the ``/etc/localtime`` link, else ``/etc/timezone``; ``UTC`` when none names a
    zone Python knows."""
    candidates: list[str] = []
    env = os.environ.get("TZ")
    if env:
        candidates.append(env[1:] if env.startswith(":") else env)
    with contextlib.suppress(OSError):  # no /etc/localtime link: try the next source
        link = os.readlink("/etc/localtime")
        if "zoneinfo/" in link:
            candidates.append(link.split("zoneinfo/", 1)[1])
    with contextlib.suppress(OSError):  # no /etc/timezone either: UTC below
        with open("/etc/timezone", encoding="utf-8") as f:
            candidates.append(f.read().strip())
    for name in candidates:
        if _known_zone(name):
            return name
    return "UTC"


def _known_zone(name: str) -> bool:
    if not name or name.startswith("/"):
        return False
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def check_time_zone(name: str, what: str) -> str:
    """``name`` if it names a time zone (IANA name, ``UTC``, or an offset such as ``+08:00``);
    else a ValidationError naming ``what``."""
    if name == "Z":  # java.time.ZoneOffset.UTC
        return "UTC"
    if _known_zone(name) or _OFFSET.fullmatch(name):
        return name
    m = re.fullmatch(r"(?:GMT|UTC)([+-]\d{2}:\d{2})", name)  # Java's custom zone ids (GMT+08:00)
    if m:
        return m.group(1)
    raise ValidationError(f"{what}: unknown time zone {name!r} (use an IANA name such as 'Asia/Shanghai' or UTC)")


_OFFSET = re.compile(r"[+-]\d{2}:\d{2}")


def local_timestamps(epoch_ms: Sequence[int | None], time_zone: str | None) -> pa.Array:
    """Epoch milliseconds as ``TIMESTAMP(3)`` values: their wall clock in ``time_zone`` (None: the
    process's local zone), as Paimon's ``LocalDateTime.ofInstant(..., ZoneId.systemDefault())``."""
    zone = time_zone or local_zone_name()
    arr = pa.array(epoch_ms, pa.timestamp("ms", tz=zone))
    return pc.local_timestamp(arr).cast(pa.timestamp("ms"))


def join_strings(parts: Sequence[pa.Array | str], n: int) -> pa.Array:
    """Element-wise concatenation of string arrays and literal strings (``n`` rows)."""
    if not any(isinstance(p, pa.Array) for p in parts):
        return pa.array(["".join(str(p) for p in parts)] * n, pa.string())
    return pc.binary_join_element_wise(*parts, "")


def java_map_string(names: Sequence[str], values: Sequence[pa.Array], n: int) -> pa.Array:
    """``TreeMap.toString()`` per row: ``{a=1, b=null}``, keys in Java's ``String`` order."""
    order = sorted(range(len(names)), key=lambda i: java_string_key(names[i]))
    parts: list[pa.Array | str] = ["{"]
    for k, i in enumerate(order):
        if k:
            parts.append(", ")
        parts.append(f"{names[i]}=")
        parts.append(pc.fill_null(values[i], NULL_TEXT))
    parts.append("}")
    return join_strings(parts, n)


def java_list_string(values: Sequence[pa.Array], n: int) -> pa.Array:
    """``Arrays.toString(Object[])`` per row: ``[1, x, null]``."""
    parts: list[pa.Array | str] = ["["]
    for k, v in enumerate(values):
        if k:
            parts.append(", ")
        parts.append(pc.fill_null(v, NULL_TEXT))
    parts.append("]")
    return join_strings(parts, n)


def row_cast_strings(columns: Sequence[pa.Array], fields: Sequence[DataField], n: int) -> pa.Array:
    """Paimon's cast of ROW values to STRING (``RowToStringCastRule``): ``{v1, null, v3}``."""
    parts: list[pa.Array | str] = ["{"]
    for k, (c, f) in enumerate(zip(columns, fields)):
        if k:
            parts.append(", ")
        parts.append(pc.fill_null(cast_to_string(c, f.type), NULL_TEXT))
    parts.append("}")
    return join_strings(parts, n)


# ----------------------------------------------------------------------------------------------
# Java collections and JSON
# ----------------------------------------------------------------------------------------------


def java_string_key(s: str) -> bytes:
    """Sort key giving Java's ``String.compareTo`` order (UTF-16 code units)."""
    return s.encode("utf-16-be")


def java_concurrent_hash_map_order(keys: Iterable[_K], hash: Callable[[_K], int]) -> list[_K]:
    """The iteration order of a ``java.util.concurrent.ConcurrentHashMap`` (default constructor)
    the keys were put into, in this order, by one thread.

    The table is simulated: 16 bins, a new key appended to its bin, the table doubled as soon as
    the size reaches 3/4 of it; a doubling splits each bin as ``transfer`` does (the bin's longest
    tail going to one side keeps its order, the nodes before it are prepended one by one, so they
    end up reversed). Tree bins are not modelled."""
    table: list[list[tuple[int, _K]]] = [[] for _ in range(16)]
    size_ctl = 12
    count = 0
    for k in dict.fromkeys(keys):
        h = hash(k) & 0xFFFFFFFF
        h = (h ^ (h >> 16)) & 0x7FFFFFFF
        table[h & (len(table) - 1)].append((h, k))
        count += 1
        while count >= size_ctl:
            n = len(table)
            table = _transfer(table)
            size_ctl = (n << 1) - (n >> 1)
    return [k for b in table for _, k in b]


def _transfer(table: list[list[tuple[int, _K]]]) -> list[list[tuple[int, _K]]]:
    n = len(table)
    out: list[list[tuple[int, _K]]] = [[] for _ in range(2 * n)]
    for i, nodes in enumerate(table):
        if not nodes:
            continue
        last_run = len(nodes) - 1
        run_bit = nodes[-1][0] & n
        while last_run > 0 and nodes[last_run - 1][0] & n == run_bit:
            last_run -= 1
        low = [x for x in reversed(nodes[:last_run]) if not x[0] & n]
        high = [x for x in reversed(nodes[:last_run]) if x[0] & n]
        (high if run_bit else low).extend(nodes[last_run:])
        out[i], out[i + n] = low, high
    return out


def java_hash_of_strings(*parts: str | None) -> int:
    """``java.util.Objects.hash(parts...)`` (``Arrays.hashCode``) of strings, unsigned 32-bit."""
    h = 1
    for p in parts:
        h = (31 * h + (java_string_hash(p) if p is not None else 0)) & 0xFFFFFFFF
    return h


def flat_json(obj: Any) -> str:
    """``JsonSerdeUtil.toFlatJson``: compact JSON, non-ASCII characters kept."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def java_map_json(mapping: dict[str, str]) -> str:
    """Flat JSON of a ``HashMap<String, String>`` (Java's iteration order)."""
    return flat_json({k: mapping[k] for k in java_hash_map_order(mapping)})


# ----------------------------------------------------------------------------------------------
# java.time values as Paimon's JSON stores them (Jackson JavaTimeModule, timestamps as numbers)
# ----------------------------------------------------------------------------------------------


def java_duration_string(seconds: int, nanos: int) -> str:
    """``java.time.Duration.toString()`` of a non-negative duration: ``PT48H``, ``PT1M30S``,
    ``PT0.5S``, ``PT0S``."""
    if seconds == 0 and nanos == 0:
        return "PT0S"
    hours, rem = divmod(seconds, 3600)
    minutes, secs = divmod(rem, 60)
    out = "PT"
    if hours:
        out += f"{hours}H"
    if minutes:
        out += f"{minutes}M"
    if secs == 0 and nanos == 0:
        return out
    out += str(secs)
    if nanos:
        out += "." + f"{nanos:09d}".rstrip("0")
    return out + "S"


def file_format_of(file_name: str) -> str:
    """``DataFilePathFactory.formatIdentifier``: the extension, skipping a compression extension."""
    parts = file_name.rsplit(".", 2)
    if len(parts) < 2:
        return ""
    if parts[-1] in _COMPRESSION_EXTENSIONS and len(parts) == 3:
        return parts[-2]
    return parts[-1]


_COMPRESSION_EXTENSIONS = frozenset({"gz", "bz2", "deflate", "snappy", "lz4", "zst"})
